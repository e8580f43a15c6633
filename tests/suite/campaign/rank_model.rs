//! A model of the four tie rules, computed here from a period board's
//! members and scores (and, for `first`, its "first" side key of vote
//! sequence numbers): the reference the reads of `top`, `standing` and
//! `around` are compared with, whatever side keys the scripts keep.

use std::collections::HashMap;

use redis::Connection;
use redvote::campaign::Entry;
use redvote::{Campaign, Neighbourhood, Paging, Ties, View};

/// Board key `<ns>b:B:KIND:P` in display order under `ties`, with each
/// member's rank and its score as replies show it (`decimals`).
pub fn model_order(con: &mut Connection, key: &str, ties: Ties, decimals: usize) -> Vec<Entry> {
    let members: Vec<(String, f64)> = redis::cmd("ZRANGE")
        .arg(key)
        .arg(0)
        .arg(-1)
        .arg("WITHSCORES")
        .query(con)
        .unwrap();
    // <ns>b:B:... -> <ns>f:B:...
    let at = key.find(":b:").expect("a board key") + 1;
    let fkey = format!("{}f{}", &key[..at], &key[at + 1..]);
    let seqs: HashMap<String, f64> = if ties == Ties::First {
        redis::cmd("ZRANGE")
            .arg(&fkey)
            .arg(0)
            .arg(-1)
            .arg("WITHSCORES")
            .query::<Vec<(String, f64)>>(con)
            .unwrap()
            .into_iter()
            .collect()
    } else {
        HashMap::new()
    };
    let mut order = members;
    order.sort_by(|(ma, sa), (mb, sb)| {
        sb.partial_cmp(sa).unwrap().then_with(|| {
            let (qa, qb) = (
                seqs.get(ma).copied().unwrap_or(f64::INFINITY),
                seqs.get(mb).copied().unwrap_or(f64::INFINITY),
            );
            let by_seq = if ties == Ties::First {
                qa.partial_cmp(&qb).unwrap()
            } else {
                std::cmp::Ordering::Equal
            };
            by_seq.then_with(|| mb.as_bytes().cmp(ma.as_bytes()))
        })
    });
    let mut out: Vec<Entry> = Vec::with_capacity(order.len());
    let (mut distinct, mut group_start) = (0u64, 0usize);
    for (i, (m, s)) in order.iter().enumerate() {
        let new_score = i == 0 || order[i - 1].1 != *s;
        if new_score {
            distinct += 1;
            group_start = i;
        }
        let rank = match ties {
            Ties::Name | Ties::First => i as u64 + 1,
            Ties::Competition => group_start as u64 + 1,
            Ties::Dense => distinct,
        };
        out.push(Entry {
            member: m.clone(),
            score: format!("{s:.decimals$}"),
            rank,
        });
    }
    out
}

/// Compare every read of board `b` at view `view` with the model of
/// `ties`: pages of `per_page`, the standing of `members` (rank, score,
/// the member ahead), and the neighbourhood of `around` (window 11).
/// Returns the model's order.
#[allow(clippy::too_many_arguments)]
pub fn assert_reads_match(
    con: &mut Connection,
    c: &Campaign,
    b: &str,
    view: &View,
    ties: Ties,
    decimals: usize,
    per_page: u32,
    members: &[&str],
    around: &[&str],
) -> Vec<Entry> {
    let first = c
        .top(&[b], view, Paging::new(1, per_page))
        .run(con)
        .unwrap();
    let key = format!(
        "{}b:{b}:{}:{}",
        c.namespace(),
        view.kind.as_str(),
        first[0].period
    );
    let model = model_order(con, &key, ties, decimals);
    let pages = model.len().div_ceil(per_page as usize).clamp(1, 3);
    for page in 1..=pages as u32 {
        let got = c
            .top(&[b], view, Paging::new(page, per_page))
            .run(con)
            .unwrap();
        let lo = ((page - 1) * per_page) as usize;
        let hi = (lo + per_page as usize).min(model.len());
        assert_eq!(
            got[0].entries,
            model[lo.min(hi)..hi],
            "{key} ({ties:?}) page {page}"
        );
        assert_eq!(got[0].size, model.len() as u64);
    }
    let at: HashMap<&str, usize> = model
        .iter()
        .enumerate()
        .map(|(i, e)| (e.member.as_str(), i))
        .collect();
    for chunk in members.chunks(100) {
        let got = c.standing(b, view, chunk).run(con).unwrap();
        for s in got {
            match at.get(s.member.as_str()) {
                None => assert_eq!(s.rank, None, "{key}: {}", s.member),
                Some(&i) => {
                    let want = &model[i];
                    assert_eq!(
                        (s.rank, s.score.as_deref()),
                        (Some(want.rank), Some(want.score.as_str())),
                        "{key} ({ties:?}): standing of {}",
                        s.member
                    );
                    let ahead = i.checked_sub(1).map(|j| model[j].member.as_str());
                    assert_eq!(s.ahead.as_deref(), ahead, "{key}: ahead of {}", s.member);
                }
            }
        }
    }
    for m in around {
        let got = c
            .around(b, view, m, Neighbourhood::new(11, per_page))
            .run(con)
            .unwrap();
        let Some(&i) = at.get(m) else {
            assert_eq!(got.rank, None);
            continue;
        };
        assert_eq!(got.rank, Some(model[i].rank), "{key}: around {m}");
        let start = i.saturating_sub(5);
        let stop = (start + 10).min(model.len() - 1);
        let start = stop.saturating_sub(10).min(start);
        assert_eq!(
            got.window,
            model[start..=stop],
            "{key} ({ties:?}): around {m}"
        );
    }
    model
}
