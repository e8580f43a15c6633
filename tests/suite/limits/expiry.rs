//! Counters expire with their window: with an explicit clock (the end of
//! every counter over 200 minutes), and by themselves on the server's clock.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use redvote::campaign::Dimension::User;
use redvote::campaign::{Voter, Window};
use redvote::Campaign;

use super::{fixed, pass, rl_expiries, rl_keys, rolling, settings, with_rules, BOARDS};
use crate::support::{self, dbsize, keys, local, DAY, HOUR, PLUS8};

/// 200 consecutive minutes (crossing a local midnight) at an explicit clock:
/// the voter's hash holds one counter per rule, naming its current window's
/// end (a counter of an earlier window is overwritten, however many windows
/// went by), and the hash expires with its latest window.
#[test]
fn counters_expire_with_their_window() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(
        &mut con,
        "lim",
        vec![
            fixed("s", &[User], Window::Second, 1000),
            fixed("m", &[User], Window::Minute, 1000),
            fixed("h", &[User], Window::Hour, 1000),
            fixed("d", &[User], Window::Day, 1000),
            rolling("r", &[User], 1000, 60, 1000),
        ],
    );
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

/// With the server's clock: second-window and rolling counters disappear by
/// themselves once their window is over (polled, bounded).
#[test]
fn counters_expire_by_themselves_on_the_server_clock() {
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
    let hash = format!("{}rlu:u", c.namespace());
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
        let second = counters[&format!("{hash}#s")];
        assert!(second == now || second == now + 1, "{counters:?} at {now}");
        assert!(counters.contains_key(&format!("{hash}#r")), "{counters:?}");
        assert_eq!(counters.len(), 2, "{counters:?}");
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
