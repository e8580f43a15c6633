//! The side keys that make dense and first ranks O(log N)
//! (`lua/src/lib/order.lua`): every read answers what the rank model
//! (`rank_model.rs`, computed from the boards themselves) answers, after
//! votes, imports, removals and retention; the checker finds them
//! consistent; `campaign_reindex` builds them for a board written without
//! them (which ranks by competition until then), in small batches while
//! votes go on, and a tie-rule change is pending, the old rule in effect,
//! until it has run (`switch.rs` holds the large-board cases).

use std::collections::BTreeSet;

use redis::Connection;
use redvote::campaign::BoardSettings;
use redvote::{Campaign, Kind, Neighbourhood, OptionSettings, Paging, Period, Ties, View};

use super::rank_model::assert_reads_match;

use redvote_check::check_campaign;

use crate::support::{self, boards, setup, Rng};

/// 2040-03-11T11:33:20Z: in the future, so that hour boards kept 2 days
/// have not expired (the boards live on the server's clock).
const T0: u64 = 2_215_000_000;
const HOUR: u64 = 3600;
const DAY: u64 = 24 * HOUR;
const OPTIONS: usize = 30;

/// An option, skewed to the low numbers so that scores tie in the tail.
fn option(rng: &mut Rng) -> String {
    let a = rng.below(OPTIONS);
    let b = rng.below(OPTIONS);
    format!("o{}", a.min(b))
}

fn board(ties: Ties) -> BoardSettings {
    let mut b = BoardSettings::new(&[Period::Hour, Period::Day, Period::Total])
        .with_ties(ties)
        .with_carry("0.5")
        .with_decimals(1)
        .with_retention(Period::Hour, 2 * DAY);
    for i in 0..OPTIONS {
        b = b.with_option(
            &format!("o{i}"),
            OptionSettings::weighted(1 + (i % 3) as u32),
        );
    }
    b
}

/// Campaign `name` with boards "f" (ties first), "d" (dense) and "c"
/// (competition), and `n` votes spread over three hours, each on all three.
fn campaign(con: &mut Connection, name: &str, n: u64) -> Campaign {
    let settings = boards([
        ("f", board(Ties::First)),
        ("d", board(Ties::Dense)),
        ("c", board(Ties::Competition)),
    ])
    .with_dates(T0 - DAY, T0 + 30 * DAY);
    let c = setup(con, name, settings);
    vote(con, &c, n, 1);
    c
}

fn vote(con: &mut Connection, c: &Campaign, n: u64, seed: u64) {
    let mut rng = Rng::seeded(seed);
    for i in 0..n {
        let option = option(&mut rng);
        let pairs = [
            ("f", option.as_str()),
            ("d", option.as_str()),
            ("c", option.as_str()),
        ];
        c.at(T0 + i * 3 * HOUR / n)
            .vote(&format!("u{seed}-{i}"), &pairs)
            .run(con)
            .unwrap();
    }
}

/// Every read of board `b`: whole-board pages, the standing of every
/// option, the neighbourhood of some, in every kind and period, as text.
fn reads(con: &mut Connection, c: &Campaign, b: &str) -> Vec<String> {
    let mut out = Vec::new();
    let members: Vec<String> = (0..OPTIONS).map(|i| format!("o{i}")).collect();
    let members: Vec<&str> = members.iter().map(String::as_str).collect();
    for at in [T0, T0 + HOUR + 60, T0 + 3 * HOUR] {
        let c = c.at(at);
        for kind in [Kind::Real, Kind::Shown] {
            for period in ["total", "day", "hour"] {
                let view = View::new(kind, period);
                for page in 1..=5 {
                    let top = c.top(&[b], &view, Paging::new(page, 7)).run(con).unwrap();
                    out.push(format!("{at} {view:?} page {page}: {top:?}"));
                }
                let standing = c.standing(b, &view, &members).run(con).unwrap();
                out.push(format!("{at} {view:?} standing: {standing:?}"));
                for m in ["o0", "o7", "o19", "o29"] {
                    let around = c
                        .around(b, &view, m, Neighbourhood::new(5, 7))
                        .run(con)
                        .unwrap();
                    out.push(format!("{at} {view:?} around {m}: {around:?}"));
                }
            }
        }
    }
    out
}

fn send(con: &mut Connection, args: &[&str]) {
    let mut cmd = redis::cmd(args[0]);
    for a in &args[1..] {
        cmd.arg(*a);
    }
    cmd.query::<redis::Value>(con).unwrap();
}

fn indexed(con: &mut Connection, c: &Campaign, b: &str) -> Option<String> {
    redis::cmd("HGET")
        .arg(format!("{}board:{b}", c.namespace()))
        .arg("indexed")
        .query(con)
        .unwrap()
}

/// Every read of board `b` (whole-board pages, the standing of every
/// option, the neighbourhood of some, in every kind and period) against
/// the rank model of `ties`.
fn assert_model_reads(con: &mut Connection, c: &Campaign, b: &str, ties: Ties) {
    let members: Vec<String> = (0..OPTIONS).map(|i| format!("o{i}")).collect();
    let members: Vec<&str> = members.iter().map(String::as_str).collect();
    for at in [T0, T0 + HOUR + 60, T0 + 3 * HOUR] {
        let c = c.at(at);
        for kind in [Kind::Real, Kind::Shown] {
            let decimals = if kind == Kind::Real { 0 } else { 1 };
            for period in ["total", "day", "hour"] {
                let view = View::new(kind, period);
                let around = ["o0", "o7", "o19", "o29"];
                assert_reads_match(con, &c, b, &view, ties, decimals, 7, &members, &around);
            }
        }
    }
}

fn ties_next(con: &mut Connection, c: &Campaign, b: &str) -> Option<String> {
    redis::cmd("HGET")
        .arg(format!("{}board:{b}", c.namespace()))
        .arg("ties_next")
        .query(con)
        .unwrap()
}

fn assert_clean(con: &mut Connection, c: &Campaign) {
    let report = check_campaign(con, c).unwrap();
    assert!(report.violations.is_empty(), "{report}");
}

/// Clean but for the members a "first" side key lacks after the board
/// switched to first: votes from before the switch have no sequence number,
/// and votes at explicit times (these tests') escape the checker's rule
/// that judges only the periods since the last configure.
fn assert_clean_since_switch(con: &mut Connection, c: &Campaign) {
    let report = check_campaign(con, c).unwrap();
    let left: Vec<_> = report
        .violations
        .iter()
        .filter(|v| !(v.key.contains(":f:") && v.what.starts_with("lacks ")))
        .collect();
    assert!(left.is_empty(), "{report}");
}

/// The side keys of every period board of `b`, removed, and the board
/// marked as one written before them (no `indexed` field).
fn make_legacy(con: &mut Connection, c: &Campaign, b: &str) {
    let ns = c.namespace();
    let index: Vec<String> = redis::cmd("ZRANGE")
        .arg(format!("{ns}periods:{b}"))
        .arg(0)
        .arg(-1)
        .query(con)
        .unwrap();
    assert!(index.len() >= 6, "{index:?}");
    for p in &index {
        send(
            con,
            &["DEL", &format!("{ns}o:{b}:{p}"), &format!("{ns}d:{b}:{p}")],
        );
    }
    send(
        con,
        &["HDEL", &format!("{ns}board:{b}"), "indexed", "order_gen"],
    );
}

/// Run campaign_reindex on `b` to the end, `count` members a call, calling
/// `between` after every call; returns the number of calls.
fn reindex(
    con: &mut Connection,
    c: &Campaign,
    b: &str,
    count: u32,
    mut between: impl FnMut(&mut Connection, u32),
) -> u32 {
    let mut cursor = "0".to_string();
    for calls in 1..=10_000 {
        let step = c.reindex(b, &cursor, count).run(con).unwrap();
        assert!(step.members <= u64::from(count) + 128, "{step:?}");
        if step.is_done() {
            return calls;
        }
        between(con, calls);
        cursor = step.next;
    }
    panic!("reindex of {b} did not end");
}

#[test]
fn indexed_reads_answer_what_the_rank_model_answers() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con, "order", 400);
    // an import onto the current periods, an option removed from every board
    c.at(T0 + 3 * HOUR)
        .import("f", &[("o3", "12.5"), ("o25", "3")])
        .run(&mut con)
        .unwrap();
    c.at(T0 + 3 * HOUR)
        .import("d", &[("o3", "12.5"), ("o25", "3")])
        .run(&mut con)
        .unwrap();
    let removal = boards([
        ("f", BoardSettings::default().with_removed("o1")),
        ("d", BoardSettings::default().with_removed("o1")),
    ]);
    c.configure(&removal).run(&mut con).unwrap();
    // pending, the reads skip o1 and rank the others as when it is gone
    let pending = [reads(&mut con, &c, "f"), reads(&mut con, &c, "d")];
    for (b, ties) in [("f", Ties::First), ("d", Ties::Dense)] {
        super::removal::finish_removal(&mut con, &c, b, 7);
        assert_eq!(indexed(&mut con, &c, b).as_deref(), Some("1"));
        assert_model_reads(&mut con, &c, b, ties);
    }
    assert_eq!(
        pending,
        [reads(&mut con, &c, "f"), reads(&mut con, &c, "d")]
    );
    // ties happen: the dense ranks are not the competition ranks
    let dense = reads(&mut con, &c, "d");
    let competition = reads(&mut con, &c, "c");
    assert_ne!(dense, competition);
    assert_clean(&mut con, &c);
    let report = check_campaign(&mut con, &c).unwrap();
    assert!(report.checked["order_keys"] >= 8, "{report}");

    // the side keys expire with their board (retention of hour boards)
    let ns = c.namespace();
    let hour: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{ns}b:f:real:hour:*"))
        .query(&mut con)
        .unwrap();
    assert!(!hour.is_empty());
    for key in hour {
        let side = key.replacen(":b:", ":o:", 1);
        let at = |con: &mut Connection, k: &str| -> i64 {
            redis::cmd("EXPIRETIME").arg(k).query(con).unwrap()
        };
        assert!(at(&mut con, &key) > 0);
        assert_eq!(at(&mut con, &side), at(&mut con, &key), "{side}");
    }
}

#[test]
fn reindex_builds_the_side_keys_of_old_boards_while_votes_go_on() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con, "old", 300);
    for (b, ties) in [("f", Ties::First), ("d", Ties::Dense)] {
        make_legacy(&mut con, &c, b);
        assert_eq!(indexed(&mut con, &c, b), None);
        // not indexed: the rule is pending, the reads rank by competition
        // (never by a scan)
        assert_model_reads(&mut con, &c, b, Ties::Competition);
        let settings = c.settings().run(&mut con).unwrap();
        assert_eq!(settings.boards[b].ties, Some(ties));
        assert_eq!(settings.boards[b].ties_pending, Some(true));
        assert_eq!(settings.boards[b].ties_effective, Some(Ties::Competition));
        // batches of 4 members, votes between the batches
        let calls = reindex(&mut con, &c, b, 4, |con, n| {
            if n % 5 == 0 {
                vote(con, &c, 3, 100 + u64::from(n));
            }
        });
        assert!(calls > 10, "{calls} calls");
        assert_eq!(indexed(&mut con, &c, b).as_deref(), Some("1"));
        assert_model_reads(&mut con, &c, b, ties);
        assert_clean(&mut con, &c);
        // an indexed board needs nothing; rebuilt from the start (the flag
        // cleared), the side keys come out the same
        assert_eq!(c.reindex(b, "0", 10).run(&mut con).unwrap().members, 0);
        let digest = support::digest(&mut con);
        send(
            &mut con,
            &[
                "HSET",
                &format!("{}board:{b}", c.namespace()),
                "indexed",
                "0",
            ],
        );
        reindex(&mut con, &c, b, 5000, |_, _| {});
        assert_eq!(support::digest(&mut con), digest);
    }
    // a competition board needs nothing
    let step = c.reindex("c", "0", 10).run(&mut con).unwrap();
    assert!(step.is_done());
    assert_eq!(step.members, 0);
}

/// A call's budget counts every board it visits: a period index that
/// lists many boards which are empty (or expired) does not make one call
/// walk all of them (it used to: only members counted).
#[test]
fn reindex_visits_at_most_count_boards_a_call() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con, "sparse", 30);
    make_legacy(&mut con, &c, "d");
    let index = format!("{}periods:d", c.namespace());
    for h in 0..300 {
        send(
            &mut con,
            &[
                "ZADD",
                &index,
                "0",
                &format!("real:2039-01-01T{:02}", h % 24),
            ],
        );
        send(
            &mut con,
            &[
                "ZADD",
                &index,
                "0",
                &format!("shown:2038-{:02}-01T00", 1 + h % 12),
            ],
        );
    }
    let mut cursor = "0".to_string();
    let mut calls = 0;
    loop {
        let step = c.reindex("d", &cursor, 10).run(&mut con).unwrap();
        assert!(
            step.boards <= 10,
            "one call finished {} boards",
            step.boards
        );
        calls += 1;
        if step.is_done() {
            break;
        }
        assert!(calls < 1000);
        cursor = step.next;
    }
    assert!(calls >= 4, "{calls} calls for 36+ listed boards");
    assert_eq!(indexed(&mut con, &c, "d").as_deref(), Some("1"));
    assert_model_reads(&mut con, &c, "d", Ties::Dense);
}

#[test]
fn a_new_tie_rule_takes_effect_when_reindexed() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con, "switch", 200);
    let ties = |t: Ties| boards([("c", BoardSettings::default().with_ties(t))]);

    // competition -> first: pending, competition in effect until reindexed
    c.configure(&ties(Ties::First)).run(&mut con).unwrap();
    assert_eq!(ties_next(&mut con, &c, "c").as_deref(), Some("first"));
    vote(&mut con, &c, 20, 7);
    assert_model_reads(&mut con, &c, "c", Ties::Competition);
    assert_clean_since_switch(&mut con, &c);
    reindex(&mut con, &c, "c", 50, |_, _| {});
    assert_eq!(indexed(&mut con, &c, "c").as_deref(), Some("1"));
    assert_eq!(ties_next(&mut con, &c, "c"), None);
    assert_model_reads(&mut con, &c, "c", Ties::First);
    assert_clean_since_switch(&mut con, &c);

    // first -> dense in the middle of a reindex: the old cursor restarts
    c.configure(&ties(Ties::Competition)).run(&mut con).unwrap();
    c.configure(&ties(Ties::Dense)).run(&mut con).unwrap();
    let ns = c.namespace();
    let stale: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{ns}o:c:*"))
        .query(&mut con)
        .unwrap();
    assert_eq!(stale, Vec::<String>::new(), "the first rule's side keys go");
    let step = c.reindex("c", "0", 3).run(&mut con).unwrap();
    assert!(!step.is_done());
    assert_model_reads(&mut con, &c, "c", Ties::Competition);
    c.configure(&ties(Ties::First)).run(&mut con).unwrap();
    let mut cursor = step.next;
    loop {
        let step = c.reindex("c", &cursor, 1000).run(&mut con).unwrap();
        if step.is_done() {
            break;
        }
        cursor = step.next;
    }
    assert_eq!(indexed(&mut con, &c, "c").as_deref(), Some("1"));
    assert_model_reads(&mut con, &c, "c", Ties::First);
    assert_clean_since_switch(&mut con, &c);
    let dense: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{ns}d:c:*"))
        .query(&mut con)
        .unwrap();
    assert_eq!(dense, Vec::<String>::new());
}

#[test]
fn the_checker_finds_side_keys_that_disagree_with_their_board() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con, "plant", 100);
    assert_clean(&mut con, &c);
    let ns = c.namespace().to_string();
    let top: Vec<String> = redis::cmd("ZREVRANGE")
        .arg(format!("{ns}o:f:real:total"))
        .arg(0)
        .arg(0)
        .query(&mut con)
        .unwrap();
    let o = format!("{ns}o:f:real:total");
    let d = format!("{ns}d:d:real:total");
    let plants: Vec<(&str, Vec<String>, Vec<String>)> = vec![
        // an order entry moved, one missing, one for a stranger
        (
            &o,
            vec!["ZINCRBY".into(), o.clone(), "1".into(), top[0].clone()],
            vec!["ZINCRBY".into(), o.clone(), "-1".into(), top[0].clone()],
        ),
        (&o, vec!["ZREM".into(), o.clone(), top[0].clone()], vec![]),
        (
            &o,
            vec![
                "ZADD".into(),
                o.clone(),
                "1".into(),
                "000000000000000ghost".into(),
            ],
            vec!["ZREM".into(), o.clone(), "000000000000000ghost".into()],
        ),
        // a dense score no member has, and a score missing
        (
            &d,
            vec!["ZADD".into(), d.clone(), "12345".into(), "12345".into()],
            vec!["ZREM".into(), d.clone(), "12345".into()],
        ),
        (&d, vec!["ZPOPMAX".into(), d.clone()], vec![]),
    ];
    for (key, plant, undo) in plants {
        let saved: Vec<u8> = redis::cmd("DUMP").arg(key).query(&mut con).unwrap();
        let args: Vec<&str> = plant.iter().map(String::as_str).collect();
        send(&mut con, &args);
        let report = check_campaign(&mut con, &c).unwrap();
        let named: BTreeSet<&str> = report.violations.iter().map(|v| v.key.as_str()).collect();
        assert_eq!(named, BTreeSet::from([key]), "{plant:?}:\n{report}");
        if undo.is_empty() {
            let ttl: i64 = redis::cmd("PTTL").arg(key).query(&mut con).unwrap();
            redis::cmd("RESTORE")
                .arg(key)
                .arg(ttl.max(0))
                .arg(saved)
                .arg("REPLACE")
                .query::<()>(&mut con)
                .unwrap();
        } else {
            let args: Vec<&str> = undo.iter().map(String::as_str).collect();
            send(&mut con, &args);
        }
        assert_clean(&mut con, &c);
    }
}
