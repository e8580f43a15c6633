//! Rolling (GCRA) limits are exact for every limit and per, also when
//! per / limit is not exact in binary (7 per 60 s, 6 per 1 s, 5 per 2 s):
//! a fresh user has `burst` votes, exactly `burst` back-to-back votes pass,
//! the next one is refused with retry_after = ceil(per / limit), and once
//! per / limit seconds have passed (rounded up to the explicit clock's whole
//! seconds) one more passes. The stored arrival time once rounded up to
//! microseconds and took the second vote of a burst of 2.

use redvote::campaign::Dimension::User;
use redvote::campaign::Voter;

use super::{lefts, pass, peek, refusal, refused_vote, rl_keys, rolling, with_rules};
use crate::support::{self, local, PLUS8};

/// (limit, per, burst)
const CASES: &[(u64, u64, u64)] = &[
    (7, 60, 2),
    (6, 1, 6),
    (5, 2, 5),
    (3, 10, 1),
    (7, 60, 7),
    (3, 1, 3),
    (10, 3, 4),
    (1000000, 7, 13),
    (5, 60, 5),
];

#[test]
fn rolling_limits_are_exact_for_every_limit_and_per() {
    let server = support::server();
    let mut con = support::con(&server);
    let t0 = local(PLUS8, (2040, 3, 13), (12, 0, 0));
    for (n, &(limit, per, burst)) in CASES.iter().enumerate() {
        let what = format!("{limit} per {per} s, burst {burst}");
        let c = with_rules(
            &mut con,
            &format!("x{n}"),
            vec![rolling("r", &[User], limit, per, burst)],
        );
        let alice = Voter::new("alice");
        assert_eq!(
            peek(&mut con, &c.at(t0), &alice, &[]),
            lefts(&[("r", burst as i64, 0)]),
            "{what}: fresh peek"
        );
        for i in 0..burst {
            assert_eq!(
                peek(&mut con, &c.at(t0), &alice, &[])[0].remaining,
                (burst - i) as i64,
                "{what}: before vote {i}"
            );
            pass(&mut con, &c.at(t0), &alice, &[("b", "a")]);
        }
        // ceil(per / limit) and ceil(burst * per / limit), exactly
        let interval = per.div_ceil(limit) as i64;
        let drained = (burst * per).div_ceil(limit) as i64;
        assert_eq!(
            peek(&mut con, &c.at(t0), &alice, &[]),
            lefts(&[("r", 0, drained)]),
            "{what}: after the burst"
        );
        let want = refusal("r", interval, &[("r", 0)]);
        refused_vote(&mut con, &c.at(t0), &alice, &[("b", "a")], want);
        let wait = per.div_ceil(limit);
        if wait > 1 {
            // one second short of the interval
            let want = refusal("r", 1, &[("r", 0)]);
            refused_vote(&mut con, &c.at(t0 + wait - 1), &alice, &[("b", "a")], want);
        }
        let at = t0 + wait;
        let left = burst.min(wait * limit / per) as i64;
        assert_eq!(
            peek(&mut con, &c.at(at), &alice, &[])[0].remaining,
            left,
            "{what}: after the interval"
        );
        for _ in 0..left {
            pass(&mut con, &c.at(at), &alice, &[("b", "a")]);
        }
        let refused = peek(&mut con, &c.at(at), &alice, &[]);
        assert_eq!(refused[0].remaining, 0, "{what}: spent again");
    }
}

#[test]
fn rolling_state_is_stored_exactly_and_readably() {
    let server = support::server();
    let mut con = support::con(&server);
    let t0 = local(PLUS8, (2040, 3, 13), (12, 0, 0));
    let c = with_rules(&mut con, "x", vec![rolling("smooth", &[User], 7, 60, 2)]);
    let alice = Voter::new("alice");
    pass(&mut con, &c.at(t0), &alice, &[("b", "a")]);
    pass(&mut con, &c.at(t0), &alice, &[("b", "a")]);
    let keys = rl_keys(&mut con, &c);
    assert_eq!(keys.len(), 1);
    let key = keys.into_iter().next().unwrap();
    assert_eq!(key, format!("{}rlu:alice", c.namespace()));
    let stored: String = redis::cmd("HGET")
        .arg(&key)
        .arg("smooth")
        .query(&mut con)
        .unwrap();
    // 2 x 60/7 s = 17.142857 s and 1/7 of a microsecond
    assert_eq!(stored, format!("{}.142857+1/7", t0 + 17));
    assert_eq!(support::expiretime(&mut con, &key), (t0 + 18 + 1) as i64);
}
