//! What a vote spends: several rules at once (a vote passes only if every
//! rule passes, and a refusal spends nothing), cost, peek (spends nothing)
//! and reset.

use redvote::campaign::Dimension::{Device, Option as Opt, User};
use redvote::campaign::{Voter, Window};
use redvote::Code;

use super::{
    code_of, costing, fixed, lefts, pass, pass_n, peek, real_total, refusal, refused_vote, rl_keys,
    rolling, voter, with_rules,
};
use crate::support::{self, local, PLUS8};

#[test]
fn every_rule_must_pass_and_a_refusal_spends_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    // the refusing rule comes after one that would pass: it must not be spent
    let c = with_rules(
        &mut con,
        "lim",
        vec![
            fixed("user-hour", &[User], Window::Hour, 3),
            fixed("user-minute", &[User], Window::Minute, 2),
            fixed("option-minute", &[Opt], Window::Minute, 100),
        ],
    );
    let alice = Voter::new("alice");
    let t = c.at(local(PLUS8, (2040, 3, 13), (12, 0, 30)));
    pass_n(&mut con, &t, &alice, &[("b", "a")], 2);
    let before = lefts(&[
        ("user-hour", 1, 3570),
        ("user-minute", 0, 30),
        ("option-minute", 98, 30),
    ]);
    assert_eq!(peek(&mut con, &t, &alice, &[("b", "a")]), before);
    let want = refusal(
        "user-minute",
        30,
        &[("user-hour", 1), ("user-minute", 0), ("option-minute", 98)],
    );
    for _ in 0..3 {
        refused_vote(&mut con, &t, &alice, &[("b", "a")], want.clone());
        assert_eq!(peek(&mut con, &t, &alice, &[("b", "a")]), before);
    }
    assert_eq!(real_total(&mut con, &c, "b", "a"), 2);

    // the next minute: the hour rule refuses the second vote
    let t = c.at(local(PLUS8, (2040, 3, 13), (12, 1, 0)));
    pass(&mut con, &t, &alice, &[("b", "a")]);
    let want = refusal(
        "user-hour",
        3540,
        &[("user-hour", 0), ("user-minute", 1), ("option-minute", 99)],
    );
    refused_vote(&mut con, &t, &alice, &[("b", "a")], want);
    // both refuse (cost 2 > 1 left a minute, 0 left an hour): the first
    // rule is named, retry_after is the longer wait
    let want = refusal(
        "user-hour",
        3540,
        &[("user-hour", 0), ("user-minute", 1), ("option-minute", 99)],
    );
    refused_vote(&mut con, &t, &costing("alice", 2), &[("b", "a")], want);
    assert_eq!(
        peek(&mut con, &t, &alice, &[("b", "a")]),
        lefts(&[
            ("user-hour", 0, 3540),
            ("user-minute", 1, 60),
            ("option-minute", 99, 60),
        ])
    );
    // the option rule refuses while the user rules pass: nothing spent
    let c2 = with_rules(
        &mut con,
        "two",
        vec![
            fixed("user-minute", &[User], Window::Minute, 5),
            fixed("option-minute", &[Opt], Window::Minute, 1),
        ],
    );
    let t2 = c2.at(local(PLUS8, (2040, 3, 13), (12, 0, 30)));
    pass(&mut con, &t2, &Voter::new("bob"), &[("b", "a")]);
    let want = refusal(
        "option-minute",
        30,
        &[("user-minute", 5), ("option-minute", 0)],
    );
    refused_vote(&mut con, &t2, &alice, &[("b", "a")], want);
    assert_eq!(
        peek(&mut con, &t2, &alice, &[("b", "a")]),
        lefts(&[("user-minute", 5, 30), ("option-minute", 0, 30)])
    );
}

#[test]
fn cost_spends_that_many() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(
        &mut con,
        "lim",
        vec![fixed("user-minute", &[User], Window::Minute, 10)],
    );
    let t = c.at(local(PLUS8, (2040, 3, 13), (12, 0, 0)));
    for left in [7, 4, 1] {
        pass(&mut con, &t, &costing("alice", 3), &[("b", "a")]);
        assert_eq!(
            peek(&mut con, &t, &Voter::new("alice"), &[]),
            lefts(&[("user-minute", left, 60)])
        );
    }
    let want = refusal("user-minute", 60, &[("user-minute", 1)]);
    refused_vote(&mut con, &t, &costing("alice", 3), &[("b", "a")], want);
    pass(&mut con, &t, &costing("alice", 1), &[("b", "a")]);
    // the cost is what a vote spends of the limits, not its weight on the board
    assert_eq!(real_total(&mut con, &c, "b", "a"), 4);
    // a batch of 2 pairs at cost 2 spends 4
    let t = c.at(local(PLUS8, (2040, 3, 13), (12, 1, 0)));
    pass(
        &mut con,
        &t,
        &costing("alice", 2),
        &[("b", "a"), ("b", "b")],
    );
    assert_eq!(
        peek(&mut con, &t, &Voter::new("alice"), &[]),
        lefts(&[("user-minute", 6, 60)])
    );
    // cost outside 1..1000 is refused before anything else
    let before = support::digest(&mut con);
    for cost in [0, 1001] {
        let r = t
            .vote_by(&costing("alice", cost), &[("b", "a")])
            .run(&mut con);
        assert_eq!(code_of(r), Code::InvalidNumber);
    }
    assert_eq!(support::digest(&mut con), before);
}

#[test]
fn peek_spends_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(
        &mut con,
        "lim",
        vec![
            fixed("user-minute", &[User], Window::Minute, 5),
            fixed("option-minute", &[Opt], Window::Minute, 3),
            fixed("user-device-day", &[User, Device], Window::Day, 4),
            rolling("smooth", &[User], 5, 60, 5),
        ],
    );
    let t = c.at(local(PLUS8, (2040, 3, 13), (12, 0, 15)));
    let alice = voter("alice", None, Some("pc"));
    let fresh = lefts(&[
        ("user-minute", 5, 45),
        ("user-device-day", 4, 43200 - 15),
        ("smooth", 5, 0),
    ]);
    let with_pairs = lefts(&[
        ("user-minute", 5, 45),
        ("option-minute", 3, 45),
        ("option-minute", 3, 45),
        ("user-device-day", 4, 43200 - 15),
        ("smooth", 5, 0),
    ]);
    let before = support::digest(&mut con);
    for _ in 0..10 {
        assert_eq!(peek(&mut con, &t, &alice, &[]), fresh);
        assert_eq!(
            peek(&mut con, &t, &alice, &[("b", "a"), ("b", "b")]),
            with_pairs
        );
    }
    assert_eq!(support::digest(&mut con), before, "a peek wrote");
    assert!(rl_keys(&mut con, &c).is_empty());
    // one vote spends one of each
    pass(&mut con, &t, &alice, &[("b", "a")]);
    assert_eq!(
        peek(&mut con, &t, &alice, &[("b", "a"), ("b", "b")]),
        lefts(&[
            ("user-minute", 4, 45),
            ("option-minute", 2, 45),
            ("option-minute", 3, 45),
            ("user-device-day", 3, 43200 - 15),
            ("smooth", 4, 12),
        ])
    );
    // a campaign without rules has nothing to peek at
    let none = with_rules(&mut con, "none", vec![]);
    assert_eq!(
        peek(&mut con, &none.at(0), &alice, &[("b", "a")]),
        lefts(&[])
    );
}

#[test]
fn reset_limits_restores_a_users_allowance() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(
        &mut con,
        "lim",
        vec![
            fixed("user-minute", &[User], Window::Minute, 2),
            fixed("user-device-day", &[User, Device], Window::Day, 3),
            fixed("option-minute", &[Opt], Window::Minute, 100),
            rolling("smooth", &[User], 2, 60, 2),
        ],
    );
    let t = c.at(local(PLUS8, (2040, 3, 13), (12, 0, 20)));
    let alice = voter("alice", None, Some("pc"));
    let bob = voter("bob", None, Some("pc"));
    pass_n(&mut con, &t, &alice, &[("b", "a")], 2);
    pass(&mut con, &t, &bob, &[("b", "a")]);
    // minute: 40 s to wait; smooth (one per 30 s, burst 2): 30 s; the longer wins
    let want = refusal(
        "user-minute",
        40,
        &[
            ("user-minute", 0),
            ("user-device-day", 1),
            ("option-minute", 97),
            ("smooth", 0),
        ],
    );
    refused_vote(&mut con, &t, &alice, &[("b", "a")], want);

    // admin: every per-user counter of alice (minute, device-day, rolling)
    assert_eq!(t.reset_limits(&alice, &[]).run(&mut con).unwrap(), 3);
    assert_eq!(
        peek(&mut con, &t, &alice, &[("b", "a")]),
        lefts(&[
            ("user-minute", 2, 40),
            ("user-device-day", 3, 43200 - 20),
            ("option-minute", 97, 40),
            ("smooth", 2, 0),
        ])
    );
    // bob and the option counter are untouched
    assert_eq!(
        peek(&mut con, &t, &bob, &[]),
        lefts(&[
            ("user-minute", 1, 40),
            ("user-device-day", 2, 43200 - 20),
            ("smooth", 1, 30),
        ])
    );
    pass_n(&mut con, &t, &alice, &[("b", "a")], 2);
    // nothing left to reset for a user who never voted
    let before = support::digest(&mut con);
    assert_eq!(
        t.reset_limits(&voter("carol", None, Some("pc")), &[])
            .run(&mut con)
            .unwrap(),
        0
    );
    assert_eq!(support::digest(&mut con), before);
    assert_eq!(real_total(&mut con, &c, "b", "a"), 5);
}
