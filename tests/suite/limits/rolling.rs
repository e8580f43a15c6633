//! The rolling (GCRA) rule: votes spaced evenly after a burst, its state
//! expiring once drained, and no burst at a window's edge where a fixed
//! minute allows one.

use redvote::campaign::Dimension::User;
use redvote::campaign::{Voter, Window};

use super::{
    fixed, lefts, pass, pass_n, peek, real_total, refusal, refused_vote, rl_expiries, rolling,
    with_rules,
};
use crate::support::{self, local, PLUS8};

#[test]
fn rolling_rule_spaces_votes_evenly() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(&mut con, "lim", vec![rolling("smooth", &[User], 5, 60, 5)]);
    let t0 = local(PLUS8, (2040, 3, 13), (12, 0, 0));
    let alice = Voter::new("alice");
    assert_eq!(
        peek(&mut con, &c.at(t0), &alice, &[]),
        lefts(&[("smooth", 5, 0)])
    );
    pass_n(&mut con, &c.at(t0), &alice, &[("b", "a")], 5);
    assert_eq!(
        peek(&mut con, &c.at(t0), &alice, &[]),
        lefts(&[("smooth", 0, 60)])
    );
    let want = refusal("smooth", 12, &[("smooth", 0)]);
    refused_vote(&mut con, &c.at(t0), &alice, &[("b", "a")], want);
    let want = refusal("smooth", 1, &[("smooth", 0)]);
    refused_vote(&mut con, &c.at(t0 + 11), &alice, &[("b", "a")], want);
    // one more every 12 s (60 / 5)
    assert_eq!(
        peek(&mut con, &c.at(t0 + 12), &alice, &[]),
        lefts(&[("smooth", 1, 48)])
    );
    pass(&mut con, &c.at(t0 + 12), &alice, &[("b", "a")]);
    let want = refusal("smooth", 12, &[("smooth", 0)]);
    refused_vote(&mut con, &c.at(t0 + 12), &alice, &[("b", "a")], want);
    pass(&mut con, &c.at(t0 + 24), &alice, &[("b", "a")]);
    // the state expires (by the server's clock) once it has fully drained
    let keys = rl_expiries(&mut con, &c);
    assert_eq!(
        keys.into_values().collect::<Vec<_>>(),
        vec![(t0 + 84 + 1) as i64]
    );
    // a full burst again once `per` has passed since the last spend drained
    pass_n(&mut con, &c.at(t0 + 84), &alice, &[("b", "a")], 5);
    let want = refusal("smooth", 12, &[("smooth", 0)]);
    refused_vote(&mut con, &c.at(t0 + 84), &alice, &[("b", "a")], want);
    // bob has his own
    pass_n(&mut con, &c.at(t0), &Voter::new("bob"), &[("b", "a")], 5);
    assert_eq!(real_total(&mut con, &c, "b", "a"), 17);
}

#[test]
fn rolling_rule_has_no_edge_burst_where_a_fixed_minute_does() {
    let server = support::server();
    let mut con = support::con(&server);
    let fixed_c = with_rules(
        &mut con,
        "fixed",
        vec![fixed("minute", &[User], Window::Minute, 5)],
    );
    let rolling_c = with_rules(
        &mut con,
        "rolling",
        vec![rolling("smooth", &[User], 5, 60, 5)],
    );
    let last = local(PLUS8, (2040, 3, 13), (12, 0, 59));
    let first = local(PLUS8, (2040, 3, 13), (12, 1, 0));
    let alice = Voter::new("alice");
    // fixed minute: 5 at 12:00:59 and 5 more at 12:01:00, 10 in two seconds
    pass_n(&mut con, &fixed_c.at(last), &alice, &[("b", "a")], 5);
    pass_n(&mut con, &fixed_c.at(first), &alice, &[("b", "a")], 5);
    let want = refusal("minute", 60, &[("minute", 0)]);
    refused_vote(&mut con, &fixed_c.at(first), &alice, &[("b", "a")], want);
    assert_eq!(real_total(&mut con, &fixed_c, "b", "a"), 10);
    // rolling: 5 at 12:00:59, then nothing until 12:01:11
    pass_n(&mut con, &rolling_c.at(last), &alice, &[("b", "a")], 5);
    let want = refusal("smooth", 11, &[("smooth", 0)]);
    refused_vote(&mut con, &rolling_c.at(first), &alice, &[("b", "a")], want);
    pass(&mut con, &rolling_c.at(first + 11), &alice, &[("b", "a")]);
    assert_eq!(real_total(&mut con, &rolling_c, "b", "a"), 6);
}

/// The peek on the server's clock counts a rolling rule from the same
/// microsecond the vote does: after each of 5 votes in one second, it
/// leaves exactly what the next votes may spend (4, 3, 2, 1, 0), where a
/// peek at the whole second saw one vote more spent until that second
/// ended. The votes start early in a second (waited for, with a deadline)
/// so that they and their peeks fall within it; the expected counts hold
/// whenever they take less than the rule's 720 s interval.
#[test]
fn rolling_peek_agrees_with_the_vote_within_a_second() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(
        &mut con,
        "lim",
        vec![rolling("smooth", &[User], 5, 3600, 5)],
    );
    let alice = Voter::new("alice");
    early_in_a_second(&mut con);
    let mut seen = Vec::new();
    for _ in 0..5 {
        pass(&mut con, &c, &alice, &[("b", "a")]);
        let left = peek(&mut con, &c, &alice, &[]);
        seen.push(left[0].remaining);
    }
    assert_eq!(seen, vec![4, 3, 2, 1, 0]);
    let want = refusal("smooth", 720, &[("smooth", 0)]);
    let refused = super::limited(c.vote_by(&alice, &[("b", "a")]).run(&mut con));
    assert_eq!(refused.rule, want.rule);
    assert_eq!(refused.remaining, want.remaining);
}

/// Returns once the server's clock is in the first 200 ms of a second.
fn early_in_a_second(con: &mut redis::Connection) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let (_secs, micros): (i64, i64) = redis::cmd("TIME").query(con).unwrap();
        if micros < 200_000 {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server's clock was never early in a second"
        );
        std::thread::sleep(std::time::Duration::from_millis(
            1 + (1_000_000 - micros) as u64 / 1000,
        ));
    }
}
