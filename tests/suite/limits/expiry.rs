//! Counters expire with their window: with an explicit clock (EXPIRETIME of
//! every counter over 200 minutes), and by themselves on the server's clock.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use chrono::{FixedOffset, TimeZone};
use redvote::campaign::Dimension::User;
use redvote::campaign::{Voter, Window};
use redvote::Campaign;

use super::{fixed, pass, rl_expiries, rl_keys, rolling, settings, with_rules, BOARDS};
use crate::support::{self, dbsize, keys, local, DAY, HOUR, PLUS8};

/// 200 consecutive minutes (crossing a local midnight) at an explicit clock:
/// every counter gets an expiry equal to its window's end, so at each vote
/// exactly one counter per rule is alive (the current windows'), however many
/// windows went by.
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
    let tz = FixedOffset::east_opt(8 * 3600).unwrap();
    let ns = c.namespace().to_string();
    let key = |rule: &str, id: &str| format!("{ns}rl:{rule}:{id}:1:u");
    let start = local(PLUS8, (2040, 3, 13), (22, 0, 30));
    let mut want = BTreeMap::new();
    for i in 0..200 {
        let t = start + i * 60;
        pass(&mut con, &c.at(t), &Voter::new("u"), &[("b", "a")]);
        let lt = tz.timestamp_opt(t as i64, 0).unwrap();
        let local_secs = t + 8 * 3600;
        want.insert(key("s", &t.to_string()), t as i64 + 1);
        want.insert(key("m", &format!("m{}", t / 60)), (t / 60 * 60 + 60) as i64);
        want.insert(
            key("h", &lt.format("hour:%Y-%m-%dT%H").to_string()),
            (t - local_secs % HOUR + HOUR) as i64,
        );
        want.insert(
            key("d", &lt.format("day:%Y-%m-%d").to_string()),
            (t - local_secs % DAY + DAY) as i64,
        );
        // GCRA: the theoretical arrival time t + 0.06 s, kept 1 s longer
        want.insert(key("r", "rolling"), t as i64 + 2);
        let got = rl_expiries(&mut con, &c);
        assert_eq!(got, want, "after the vote at minute {i}");
        let alive = got.values().filter(|e| **e > t as i64).count();
        assert_eq!(alive, 5, "counters alive at minute {i}");
    }
    // 200 seconds, 200 minutes, 4 hours (22, 23, 00, 01), 2 local days, 1 GCRA
    assert_eq!(want.len(), 200 + 200 + 4 + 2 + 1);
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
    let second_key = format!("{}rl:s:", c.namespace());
    let s0 = support::server_time(&mut con);
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seconds = BTreeSet::new();
    loop {
        pass(&mut con, &c, &Voter::new("u"), &[("b", "a")]);
        let keys = rl_expiries(&mut con, &c);
        // alive: the GCRA state, the current second's counter and, during
        // the very millisecond it expires in, the previous second's (a key
        // may also expire between KEYS and EXPIRETIME: -2)
        let mut alive = BTreeSet::new();
        for (k, e) in keys.iter().filter(|(_, e)| **e != -2) {
            if let Some(rest) = k.strip_prefix(&second_key) {
                let sec: i64 = rest.strip_suffix(":1:u").unwrap().parse().unwrap();
                assert_eq!(*e, sec + 1, "{k}");
                alive.insert(sec);
            } else {
                assert_eq!(k, &format!("{}rl:r:rolling:1:u", c.namespace()));
            }
        }
        let span = alive.last().copied().unwrap_or(0) - alive.first().copied().unwrap_or(0);
        assert!(alive.len() <= 2 && span <= 1, "{keys:?}");
        seconds.extend(alive);
        if support::server_time(&mut con) >= s0 + 3 {
            break;
        }
        assert!(Instant::now() < deadline, "the server clock did not move");
    }
    assert!(seconds.len() >= 3, "{seconds:?}");
    // every other key of the campaign is permanent
    let all = keys(&mut con, "*");
    let permanent = all
        .iter()
        .filter(|k| !k.starts_with(&format!("{}rl:", c.namespace())))
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
