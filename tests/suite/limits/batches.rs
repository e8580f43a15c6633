//! Batches: every pair of a vote spends, pair by pair, and the whole batch is
//! refused when one pair would exceed a rule.

use redvote::campaign::Dimension::{Option as Opt, User};
use redvote::campaign::{Voter, Window};

use super::{fixed, lefts, pass, peek, real_total, refusal, refused_vote, with_rules};
use crate::support::{self, local, PLUS8};

#[test]
fn batch_votes_count_pair_by_pair_all_or_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(
        &mut con,
        "lim",
        vec![fixed("user-minute", &[User], Window::Minute, 5)],
    );
    let t = c.at(local(PLUS8, (2040, 3, 13), (12, 0, 30)));
    let alice = Voter::new("alice");
    pass(&mut con, &t, &alice, &[("b", "a"), ("b", "b"), ("b", "c")]);
    assert_eq!(
        peek(&mut con, &t, &alice, &[]),
        lefts(&[("user-minute", 2, 30)])
    );
    let want = refusal("user-minute", 30, &[("user-minute", 2)]);
    refused_vote(
        &mut con,
        &t,
        &alice,
        &[("b", "a"), ("b", "b"), ("b2", "a")],
        want,
    );
    assert_eq!(
        peek(&mut con, &t, &alice, &[]),
        lefts(&[("user-minute", 2, 30)])
    );
    for (board, option, n) in [("b", "a", 1), ("b", "b", 1), ("b", "c", 1), ("b2", "a", 0)] {
        assert_eq!(
            real_total(&mut con, &c, board, option),
            n,
            "{board}/{option}"
        );
    }
    pass(&mut con, &t, &alice, &[("b", "a"), ("b2", "a")]);
    assert_eq!(
        peek(&mut con, &t, &alice, &[]),
        lefts(&[("user-minute", 0, 30)])
    );

    // per option: the same option twice in a batch counts twice, and one
    // exhausted option refuses the whole batch
    let c = with_rules(
        &mut con,
        "opt",
        vec![fixed("option-minute", &[Opt], Window::Minute, 1)],
    );
    let t = c.at(local(PLUS8, (2040, 3, 13), (12, 0, 30)));
    // Two votes for one option in a window that allows one can never pass:
    // retry_after is -1, not the end of the window.
    let want = refusal("option-minute", -1, &[("option-minute", 1)]);
    refused_vote(&mut con, &t, &alice, &[("b", "a"), ("b", "a")], want);
    pass(&mut con, &t, &alice, &[("b", "a")]);
    let want = refusal("option-minute", 30, &[("option-minute", 0)]);
    refused_vote(
        &mut con,
        &t,
        &Voter::new("bob"),
        &[("b", "b"), ("b", "a")],
        want,
    );
    pass(&mut con, &t, &Voter::new("bob"), &[("b", "b"), ("b", "c")]);
    assert_eq!(real_total(&mut con, &c, "b", "a"), 1);
    assert_eq!(real_total(&mut con, &c, "b", "b"), 1);
}
