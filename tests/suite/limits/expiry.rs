//! Counters expire with their window: with an explicit clock (the end of
//! every counter over 200 minutes), and by themselves on the server's clock.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use redvote::campaign::Dimension::User;
use redvote::campaign::{Voter, Window};
use redvote::Campaign;

use super::{
    at_layout_2, bucket_of, fixed, pass, rl_expiries, rl_keys, rolling, settings, with_rules,
    BOARDS,
};
use crate::support::{self, dbsize, keys, local, DAY, HOUR, PLUS8};

/// The rules of the 200-minute runs: every fixed window up to the day, and
/// a rolling rule, all by user.
fn five_rules() -> Vec<redvote::campaign::LimitRule> {
    vec![
        fixed("s", &[User], Window::Second, 1000),
        fixed("m", &[User], Window::Minute, 1000),
        fixed("h", &[User], Window::Hour, 1000),
        fixed("d", &[User], Window::Day, 1000),
        rolling("r", &[User], 1000, 60, 1000),
    ]
}

/// 200 consecutive minutes (crossing a local midnight) at an explicit clock,
/// on layout 2: the voter's hash holds one counter per rule, naming its
/// current window's end (a counter of an earlier window is overwritten,
/// however many windows went by), and the hash expires with its latest
/// window.
#[test]
fn counters_expire_with_their_window() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(&mut con, "lim", five_rules());
    at_layout_2(&mut con, &c);
    let ns = c.namespace().to_string();
    let key = |rule: &str| format!("{ns}rlu:u#{rule}");
    let start = local(PLUS8, (2040, 3, 13), (22, 0, 30));
    let mut days = BTreeSet::new();
    for i in 0..200 {
        let t = start + i * 60;
        pass(&mut con, &c.at(t), &Voter::new("u"), &[("b", "a")]);
        let local_secs = t + 8 * 3600;
        let day_end = (t - local_secs % DAY + DAY) as i64;
        days.insert(day_end);
        let want = BTreeMap::from([
            (key("s"), t as i64 + 1),
            (key("m"), (t / 60 * 60 + 60) as i64),
            (key("h"), (t - local_secs % HOUR + HOUR) as i64),
            (key("d"), day_end),
            // GCRA: the theoretical arrival time t + 0.06 s, kept 1 s longer
            (key("r"), t as i64 + 2),
        ]);
        assert_eq!(
            rl_expiries(&mut con, &c),
            want,
            "after the vote at minute {i}"
        );
    }
    // the run crossed a local midnight: the day counter moved on
    assert_eq!(days.len(), 2);
    assert_eq!(rl_keys(&mut con, &c).len(), 1, "one hash for the voter");
}

/// The same 200 minutes on layout 3: each fixed window's counts live in a
/// bucket of their own, `rlb:RULE:WINDOW:N` (N the user's bucket), that
/// expires at the window's end (an earlier window's bucket stays until its
/// own end); the field is the user's subject and the value its count; the
/// voter's hash holds the rolling state only.
#[test]
fn layout_3_buckets_expire_with_their_window() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(&mut con, "lim", five_rules());
    let ns = c.namespace().to_string();
    let n = bucket_of(&mut con, "u");
    let start = local(PLUS8, (2040, 3, 13), (22, 0, 30));
    let hash = format!("{ns}rlu:u");
    for i in 0..200 {
        let t = start + i * 60;
        pass(&mut con, &c.at(t), &Voter::new("u"), &[("b", "a")]);
        let local_secs = t + 8 * 3600;
        let counters = rl_expiries(&mut con, &c);
        // the latest bucket of each fixed rule ends with the vote's window
        for (rule, end) in [
            ("s", t + 1),
            ("m", t / 60 * 60 + 60),
            ("h", t - local_secs % HOUR + HOUR),
            ("d", t - local_secs % DAY + DAY),
        ] {
            let latest = counters
                .iter()
                .filter(|(k, _)| k.starts_with(&format!("{ns}rlb:{rule}:")))
                .map(|(k, e)| {
                    assert!(k.ends_with(&format!(":{n}")), "{k} is not bucket {n}");
                    *e
                })
                .max();
            assert_eq!(latest, Some(end as i64), "{rule} after minute {i}");
        }
        assert_eq!(counters[&format!("{hash}#r")], t as i64 + 2);
        assert!(!counters.contains_key(&format!("{hash}#s")));
    }
    // a second's bucket: field the length-prefixed user, value the count
    let t = start + 199 * 60;
    let second: BTreeMap<String, String> = redis::cmd("HGETALL")
        .arg(format!("{ns}rlb:s:{t}:{n}"))
        .query(&mut con)
        .unwrap();
    assert_eq!(
        second,
        BTreeMap::from([("1:u".to_string(), "1".to_string())])
    );
}

/// With the server's clock: second-window and rolling counters disappear by
/// themselves once their window is over (polled, bounded), on layout 2 (in
/// the voter's hash) and on layout 3 (the second's buckets).
#[test]
fn counters_expire_by_themselves_on_the_server_clock() {
    expire_by_themselves(2);
    expire_by_themselves(3);
}

fn expire_by_themselves(layout: u8) {
    let server = support::server();
    let mut con = support::con(&server);
    let c = Campaign::new("rt");
    c.configure(&settings(
        "+08:00",
        vec![
            fixed("s", &[User], Window::Second, 1_000_000),
            rolling("r", &[User], 1_000_000, 1, 1_000_000),
        ],
        BOARDS,
    ))
    .run(&mut con)
    .unwrap();
    if layout == 2 {
        at_layout_2(&mut con, &c);
    }
    let hash = format!("{}rlu:u", c.namespace());
    let n = bucket_of(&mut con, "u");
    let s0 = support::server_time(&mut con);
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seconds = BTreeSet::new();
    loop {
        pass(&mut con, &c, &Voter::new("u"), &[("b", "a")]);
        let now = support::server_time(&mut con);
        let counters = rl_expiries(&mut con, &c);
        // alive: the voter's hash, its second counter naming the current
        // second's end (or, voted in the second before, the previous one's),
        // and the GCRA state
        let second = if layout == 2 {
            assert_eq!(counters.len(), 2, "{counters:?}");
            counters[&format!("{hash}#s")]
        } else {
            // this second's bucket, and perhaps the previous second's
            // (expired, not yet collected); none when the second ended
            // between the vote and the read
            let latest = counters
                .iter()
                .filter(|(k, _)| k.contains(":rlb:s:"))
                .max_by_key(|(_, e)| **e);
            assert!(counters.len() <= 3, "{counters:?}");
            let Some((k, e)) = latest else {
                assert!(Instant::now() < deadline, "the server clock did not move");
                continue;
            };
            assert!(k.ends_with(&format!(":{n}")), "{k}");
            *e
        };
        assert!(second == now || second == now + 1, "{counters:?} at {now}");
        assert!(counters.contains_key(&format!("{hash}#r")), "{counters:?}");
        seconds.insert(second);
        if now >= s0 + 3 {
            break;
        }
        assert!(Instant::now() < deadline, "the server clock did not move");
    }
    assert!(seconds.len() >= 3, "{seconds:?}");
    // every other key of the campaign is permanent
    let all = keys(&mut con, "*");
    let permanent = all
        .iter()
        .filter(|k| !k.starts_with(&format!("{}rl", c.namespace())))
        .count();
    let deadline = Instant::now() + Duration::from_secs(10);
    while dbsize(&mut con) != permanent {
        assert!(
            Instant::now() < deadline,
            "rate-limit counters still there: {:?}",
            rl_expiries(&mut con, &c)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(rl_keys(&mut con, &c).is_empty());
}
