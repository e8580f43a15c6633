//! A buffered campaign against an immediate one: the same random calls
//! (vote_diff's: every tie rule, carry, decimals, weights, retention,
//! vote ids and replays, bad calls, period edges), with voids by id and
//! weight changes among them, sent to two campaigns configured alike but
//! for their mode. Every refusal must be the same, every accepted vote
//! accepted by both (a replay a replay), and once the buffer is folded
//! every key the same: boards, side keys, period index, participants,
//! statistics, the vote log and what each vote id's record keeps (its
//! reply apart: a buffered vote answers before its fold). Folded one vote
//! at a time, "first" ties too are the same; folded many at once, they
//! rank by the arrival of the options' first votes in a fold, so there the
//! side keys are compared without their sequence numbers.

use std::collections::BTreeMap;

use redis::{Connection, Value};
use redvote::campaign::{CampaignSettings, Mode};
use redvote::Campaign;

use super::vote_diff::{call, settings, VOTE};
use crate::support::{self, Rng};

/// The root's fields that differ by mode (or hold the clock).
const ROOT_FIELDS: [&str; 7] = [
    "updated", "mode", "fold_ms", "fold_due", "folded", "buffered", "layout",
];

/// The reply of the vote script to `args` on `c`: a refusal as its code and
/// detail, an accepted vote as its (board, option, replay) list.
fn vote(con: &mut Connection, script: &redis::Script, c: &Campaign, args: &[String]) -> String {
    let reply: redis::RedisResult<Value> = script.key(c.root_key()).arg(args).invoke(con);
    match reply {
        Ok(Value::Array(pairs)) => {
            let mut out = Vec::new();
            for pair in pairs {
                let Value::Array(items) = pair else {
                    panic!("a pair {pair:?}")
                };
                let text = |i: usize| match items.get(i) {
                    Some(Value::BulkString(b)) => String::from_utf8_lossy(b).to_string(),
                    _ => String::new(),
                };
                out.push(format!("{}/{}/{}", text(0), text(1), text(3)));
            }
            out.join(" ")
        }
        Ok(other) => panic!("a vote answered {other:?}"),
        Err(e) => format!(
            "error {} {}",
            e.code().unwrap_or("?"),
            e.detail()
                .unwrap_or_default()
                .replace(c.namespace(), "<ns>")
        ),
    }
}

/// Every key of `c` as keyspace gives it, with a vote id record's reply
/// and log entry cut (it is compared by request and what it added) and,
/// unless `exact`, the "first" side keys without their sequence numbers.
fn keys(con: &mut Connection, c: &Campaign, exact: bool) -> BTreeMap<String, String> {
    let ignore: Vec<(&str, &str)> = ROOT_FIELDS.iter().map(|f| ("campaign", *f)).collect();
    let mut all = support::keyspace(con, c.namespace(), &ignore);
    let ids: Vec<String> = all
        .keys()
        .filter(|k| k.starts_with("vid:"))
        .cloned()
        .collect();
    for key in ids {
        let raw: String = redis::cmd("GET")
            .arg(format!("{}{key}", c.namespace()))
            .query(con)
            .unwrap();
        let mut record: serde_json::Value = serde_json::from_str(&raw).unwrap();
        let info = without_entries(&mut record[2]);
        let request = &record[0];
        all.insert(key, format!("{} {}", request, info));
    }
    // the vote log: what each vote added, compared as its record's is; its
    // latest 50 entries (vote_diff's vote_log), the ones MAXLEN ~ keeps
    // whatever the size of the entries before them
    if all.contains_key("log") {
        let entries: Vec<(String, Vec<String>)> = redis::cmd("XREVRANGE")
            .arg(format!("{}log", c.namespace()))
            .arg("+")
            .arg("-")
            .arg("COUNT")
            .arg(50)
            .query(con)
            .unwrap();
        let entries: Vec<Vec<String>> = entries
            .into_iter()
            .map(|(_, fields)| {
                fields
                    .chunks(2)
                    .map(|f| match f[0].as_str() {
                        "a" => {
                            let mut info: serde_json::Value = serde_json::from_str(&f[1]).unwrap();
                            format!("a={}", without_entries(&mut info))
                        }
                        name => format!("{name}={}", f[1]),
                    })
                    .collect()
            })
            .collect();
        all.insert("log".into(), format!("{entries:?}"));
    }
    if !exact {
        all.remove("seq");
        let sided: Vec<String> = all
            .keys()
            .filter(|k| k.starts_with("o:") || k.starts_with("f:"))
            .cloned()
            .collect();
        for key in sided {
            let full = format!("{}{key}", c.namespace());
            let v: Vec<(String, String)> = redis::cmd("ZRANGE")
                .arg(&full)
                .arg(0)
                .arg(-1)
                .arg("WITHSCORES")
                .query(con)
                .unwrap();
            let mut v: Vec<String> = if key.starts_with("o:") {
                // 15 digits of sequence, then the member
                v.into_iter()
                    .map(|(m, s)| format!("{} {s}", &m[15..]))
                    .collect()
            } else {
                v.into_iter().map(|(m, _)| m).collect()
            };
            v.sort();
            all.insert(key, format!("{v:?}"));
        }
    }
    all
}

/// What a vote added, without how: an immediate vote's record lists its
/// entries (`e`), a buffered one's what plans them again (`x`, lib/void);
/// the voids of the test compare what each takes back. The log entry it
/// quotes (`l`) and when it was voided (`v`, the two voids' seconds may
/// differ on a busy machine) hold the clock: `v` is kept as "voided".
fn without_entries(info: &mut serde_json::Value) -> serde_json::Value {
    if let Some(o) = info.as_object_mut() {
        o.remove("l");
        o.remove("e");
        o.remove("x");
        // a buffered record names neither its voter (the request does) nor
        // its buckets (a void names them from its time and stamp)
        for derived in ["u", "c", "d", "h", "dy"] {
            o.remove(derived);
        }
        if o.contains_key("v") {
            o.insert("v".into(), "voided".into());
        }
    }
    info.clone()
}

fn assert_same(con: &mut Connection, a: &Campaign, b: &Campaign, exact: bool, what: &str) {
    let x = keys(con, a, exact);
    let y = keys(con, b, exact);
    assert!(
        x.len() > 10,
        "{what}: the immediate campaign wrote only {x:?}"
    );
    for (key, text) in &x {
        assert_eq!(Some(text), y.get(key), "{what}: key {key} differs");
    }
    let only: Vec<&String> = y.keys().filter(|k| !x.contains_key(*k)).collect();
    assert!(
        only.is_empty(),
        "{what}: only the buffered campaign has {only:?}"
    );
}

/// Fold `c` until nothing is buffered; returns how many votes it folded.
fn drain(con: &mut Connection, c: &Campaign) -> u64 {
    let mut folded = 0;
    loop {
        let f = c.fold(1000).run(con).unwrap();
        folded += f.folded;
        if f.left == 0 {
            return folded;
        }
        assert!(f.folded > 0, "a fold with votes left folded none");
    }
}

/// `send` on `c`; refused because more votes are buffered than it folds
/// first (a batch of distinct options is much work), folded and sent again.
fn unfolded_first<T>(
    con: &mut Connection,
    c: &Campaign,
    send: impl Fn(&mut Connection) -> redvote::Result<T>,
) -> T {
    match send(con) {
        Err(e) if e.code() == Some(redvote::Code::Unfolded) => {
            drain(con, c);
            send(con).unwrap()
        }
        other => other.unwrap(),
    }
}

fn run_seed(seed: u64, exact: bool) {
    let server = support::server();
    let mut con = support::con(&server);
    let script = redis::Script::new(VOTE);
    let mut rng = Rng::seeded(seed);
    let s = settings(&mut rng);
    let imm = Campaign::new(&format!("imm{seed}"));
    let buf = Campaign::new(&format!("buf{seed}"));
    imm.configure(&s).run(&mut con).unwrap();
    let buffered = CampaignSettings {
        fold_ms: Some(60000),
        ..s.clone().with_mode(Mode::Buffered)
    };
    buf.configure(&buffered).run(&mut con).unwrap();
    let (mut accepted, mut replayed, mut voided, mut folds) = (0, 0, 0, 0);
    let mut ids: Vec<String> = Vec::new();
    let mut last_with_id: Option<Vec<String>> = None;
    for step in 0..600 {
        let what = format!("seed {seed}, call {step}");
        match rng.below(40) {
            0 if !ids.is_empty() => {
                // a void by id: the buffered campaign folds first
                let id = rng.pick(&ids).clone();
                let a = imm.void(&id).run(&mut con).unwrap();
                let b = unfolded_first(&mut con, &buf, |con| buf.void(&id).run(con));
                assert_eq!(
                    (a.already, a.changed, a.skipped),
                    (b.already, b.changed, b.skipped),
                    "{what}: void {id}"
                );
                voided += usize::from(!a.already);
                continue;
            }
            1 => {
                // a weight changed: the votes buffered before count with
                // the weight they were accepted with
                let (board, b) = s.boards.iter().nth(rng.below(s.boards.len())).unwrap();
                let option = format!("o{}", rng.below(b.options.len()));
                let change: CampaignSettings = serde_json::from_value(serde_json::json!({
                    "boards": { board: { "options": { option: { "weight": 1 + rng.below(9) } } } }
                }))
                .unwrap();
                imm.configure(&change).run(&mut con).unwrap();
                unfolded_first(&mut con, &buf, |con| buf.configure(&change).run(con));
                continue;
            }
            _ => {}
        }
        let args = match last_with_id.clone() {
            Some(again) if rng.below(8) == 0 => again,
            _ => call(&mut rng, &s),
        };
        if !args[5].is_empty() {
            last_with_id = Some(args.clone());
        }
        let a = vote(&mut con, &script, &imm, &args);
        let b = vote(&mut con, &script, &buf, &args);
        assert_eq!(a, b, "{what} {args:?}");
        if !a.starts_with("error") {
            accepted += 1;
            replayed += usize::from(a.contains("/replay"));
            if !args[5].is_empty() {
                ids.push(args[5].clone());
            }
        }
        if exact || rng.below(20) == 0 {
            folds += drain(&mut con, &buf);
        }
        if step % 200 == 199 {
            drain(&mut con, &buf);
            assert_same(&mut con, &imm, &buf, exact, &what);
        }
    }
    drain(&mut con, &buf);
    assert_same(
        &mut con,
        &imm,
        &buf,
        exact,
        &format!("seed {seed}, the end"),
    );
    assert!(accepted > 300, "seed {seed}: {accepted} accepted");
    assert!(replayed > 5, "seed {seed}: {replayed} replayed");
    assert!(voided > 3, "seed {seed}: {voided} voided");
    // the votes did wait in the buffer for the folds
    assert!(folds > 100, "seed {seed}: {folds} votes folded by calls");
}

#[test]
fn a_buffered_campaign_folded_vote_by_vote_equals_an_immediate_one() {
    for seed in [5u64, 17] {
        run_seed(seed, true);
    }
}

#[test]
fn a_buffered_campaign_folded_in_batches_equals_an_immediate_one_but_first_ties_order() {
    for seed in [7u64, 23, 41] {
        run_seed(seed, false);
    }
}
