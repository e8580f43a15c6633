//! Every dimension a rule counts by, alone and combined: user, option (a
//! board's option, names with '/' kept apart), channel, device, user x
//! channel, user x device, and a partner channel's extra allowance.

use redvote::campaign::Dimension::{Channel, Device, Option as Opt, User};
use redvote::campaign::{Voter, Window};

use super::{
    configure, fixed, lefts, pass, pass_n, peek, real_total, refusal, refused_vote, settings,
    voter, with_rules,
};
use crate::support::{self, local, PLUS8};

#[test]
fn by_user_counts_each_user_apart() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(
        &mut con,
        "lim",
        vec![fixed("user-minute", &[User], Window::Minute, 5)],
    );
    let t = local(PLUS8, (2040, 3, 13), (12, 0, 20));
    let alice = Voter::new("alice");
    for i in 0..5 {
        // any option, any board: one allowance per user
        let pair = [("b", "a"), ("b", "b"), ("b2", "c"), ("b", "a"), ("b2", "a")][i];
        pass(&mut con, &c.at(t + i as u64), &alice, &[pair]);
    }
    let want = refusal("user-minute", 35, &[("user-minute", 0)]);
    refused_vote(&mut con, &c.at(t + 5), &alice, &[("b", "c")], want);
    // bob has his own five
    let bob = Voter::new("bob");
    pass_n(&mut con, &c.at(t + 5), &bob, &[("b", "c")], 5);
    let want = refusal("user-minute", 35, &[("user-minute", 0)]);
    refused_vote(&mut con, &c.at(t + 5), &bob, &[("b", "c")], want);
    // the next minute, alice votes again
    let next = local(PLUS8, (2040, 3, 13), (12, 1, 0));
    pass(&mut con, &c.at(next), &alice, &[("b", "a")]);
    assert_eq!(
        peek(&mut con, &c.at(next), &alice, &[]),
        lefts(&[("user-minute", 4, 60)])
    );
    assert_eq!(real_total(&mut con, &c, "b", "a"), 3);
    assert_eq!(real_total(&mut con, &c, "b", "c"), 5);
}

#[test]
fn by_option_counts_each_board_option_apart() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(
        &mut con,
        "lim",
        vec![fixed("option-minute", &[Opt], Window::Minute, 3)],
    );
    let t = local(PLUS8, (2040, 3, 13), (12, 0, 30));
    let c = c.at(t);
    for user in ["u1", "u2", "u3"] {
        pass(&mut con, &c, &Voter::new(user), &[("b", "a")]);
    }
    let want = refusal("option-minute", 30, &[("option-minute", 0)]);
    refused_vote(&mut con, &c, &Voter::new("u4"), &[("b", "a")], want);
    // another option, and the same option name on another board: their own
    pass(&mut con, &c, &Voter::new("u4"), &[("b", "b")]);
    pass(&mut con, &c, &Voter::new("u4"), &[("b2", "a")]);
    assert_eq!(
        peek(
            &mut con,
            &c,
            &Voter::new("u9"),
            &[("b", "a"), ("b", "b"), ("b2", "a")]
        ),
        lefts(&[
            ("option-minute", 0, 30),
            ("option-minute", 2, 30),
            ("option-minute", 2, 30)
        ])
    );
    // an option rule needs the pairs to look at
    assert_eq!(peek(&mut con, &c, &Voter::new("u9"), &[]), lefts(&[]));
    assert_eq!(real_total(&mut con, &c, "b", "a"), 3);
}

#[test]
fn by_channel_counts_each_channel_apart() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(
        &mut con,
        "lim",
        vec![fixed("channel-hour", &[Channel], Window::Hour, 4)],
    );
    let c = c.at(local(PLUS8, (2040, 3, 13), (12, 30, 0)));
    for user in ["u1", "u2", "u3", "u4"] {
        pass(&mut con, &c, &voter(user, Some("web"), None), &[("b", "a")]);
    }
    let want = refusal("channel-hour", 1800, &[("channel-hour", 0)]);
    refused_vote(
        &mut con,
        &c,
        &voter("u5", Some("web"), None),
        &[("b", "a")],
        want,
    );
    pass(&mut con, &c, &voter("u5", Some("app"), None), &[("b", "a")]);
    assert_eq!(
        peek(&mut con, &c, &voter("u9", Some("app"), None), &[]),
        lefts(&[("channel-hour", 3, 1800)])
    );
}

#[test]
fn by_device_counts_each_device_apart() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(
        &mut con,
        "lim",
        vec![fixed("device-day", &[Device], Window::Day, 2)],
    );
    // 22:00 local: 2 hours to the end of the local day
    let c = c.at(local(PLUS8, (2040, 3, 13), (22, 0, 0)));
    pass(&mut con, &c, &voter("u1", None, Some("pc")), &[("b", "a")]);
    pass(&mut con, &c, &voter("u2", None, Some("pc")), &[("b", "b")]);
    let want = refusal("device-day", 2 * 3600, &[("device-day", 0)]);
    refused_vote(
        &mut con,
        &c,
        &voter("u3", None, Some("pc")),
        &[("b", "c")],
        want,
    );
    pass(
        &mut con,
        &c,
        &voter("u3", None, Some("mobile")),
        &[("b", "c")],
    );
}

#[test]
fn user_x_channel_counts_each_pair_apart() {
    let server = support::server();
    let mut con = support::con(&server);
    let rule = fixed("user-channel-day", &[User, Channel], Window::Day, 2);
    let c = with_rules(&mut con, "lim", vec![rule]);
    let c = c.at(local(PLUS8, (2040, 3, 13), (12, 0, 0)));
    let web = voter("alice", Some("web"), None);
    pass_n(&mut con, &c, &web, &[("b", "a")], 2);
    let want = refusal("user-channel-day", 12 * 3600, &[("user-channel-day", 0)]);
    refused_vote(&mut con, &c, &web, &[("b", "a")], want);
    // alice on another channel, bob on the same channel: their own counters
    pass_n(
        &mut con,
        &c,
        &voter("alice", Some("app"), None),
        &[("b", "a")],
        2,
    );
    pass_n(
        &mut con,
        &c,
        &voter("bob", Some("web"), None),
        &[("b", "a")],
        2,
    );
    assert_eq!(real_total(&mut con, &c, "b", "a"), 6);
}

#[test]
fn user_x_device_a_user_out_of_pc_votes_can_still_vote_on_mobile() {
    let server = support::server();
    let mut con = support::con(&server);
    let rule = fixed("user-device-day", &[User, Device], Window::Day, 3);
    let c = with_rules(&mut con, "lim", vec![rule]);
    let c = c.at(local(PLUS8, (2040, 3, 13), (18, 0, 0)));
    let pc = voter("alice", None, Some("pc"));
    let mobile = voter("alice", None, Some("mobile"));
    pass_n(&mut con, &c, &pc, &[("b", "a")], 3);
    let want = refusal("user-device-day", 6 * 3600, &[("user-device-day", 0)]);
    refused_vote(&mut con, &c, &pc, &[("b", "a")], want.clone());
    pass_n(&mut con, &c, &mobile, &[("b", "a")], 3);
    refused_vote(&mut con, &c, &mobile, &[("b", "a")], want);
    assert_eq!(
        peek(&mut con, &c, &voter("alice", None, Some("tablet")), &[]),
        lefts(&[("user-device-day", 3, 6 * 3600)])
    );
    // bob on pc: his own counter
    pass(&mut con, &c, &voter("bob", None, Some("pc")), &[("b", "a")]);
    assert_eq!(real_total(&mut con, &c, "b", "a"), 7);
}

#[test]
fn partner_channel_gets_its_extra_allowance() {
    let server = support::server();
    let mut con = support::con(&server);
    let mut rule = fixed("user-minute", &[User], Window::Minute, 5);
    rule.extra.insert("partner".to_string(), 5);
    let c = with_rules(&mut con, "lim", vec![rule]);
    let c = c.at(local(PLUS8, (2040, 3, 13), (12, 0, 10)));
    let partner = voter("alice", Some("partner"), None);
    let web = voter("alice", Some("web"), None);
    assert_eq!(
        peek(&mut con, &c, &partner, &[]),
        lefts(&[("user-minute", 10, 50)])
    );
    pass_n(&mut con, &c, &partner, &[("b", "a")], 10);
    let want = refusal("user-minute", 50, &[("user-minute", 0)]);
    refused_vote(&mut con, &c, &partner, &[("b", "a")], want.clone());
    refused_vote(&mut con, &c, &web, &[("b", "a")], want.clone());
    // bob: 5 on the web, then 5 more through the partner, never 11
    let bob_web = voter("bob", Some("web"), None);
    let bob_partner = voter("bob", Some("partner"), None);
    pass_n(&mut con, &c, &bob_web, &[("b", "a")], 5);
    refused_vote(&mut con, &c, &bob_web, &[("b", "a")], want.clone());
    assert_eq!(
        peek(&mut con, &c, &bob_partner, &[]),
        lefts(&[("user-minute", 5, 50)])
    );
    pass_n(&mut con, &c, &bob_partner, &[("b", "a")], 5);
    refused_vote(&mut con, &c, &bob_partner, &[("b", "a")], want);
    assert_eq!(real_total(&mut con, &c, "b", "a"), 20);
}

/// Board and option names may hold '/': the option dimension must still tell
/// board "x" option "y/z" from board "x/y" option "z".
#[test]
fn option_rule_tells_boards_and_options_with_slashes_apart() {
    let server = support::server();
    let mut con = support::con(&server);
    let rule = fixed("option-minute", &[Opt], Window::Minute, 1);
    let boards: &[(&str, &[&str])] = &[("x", &["y/z"]), ("x/y", &["z"])];
    let c = configure(&mut con, "lim", &settings("+08:00", vec![rule], boards));
    let t = c.at(local(PLUS8, (2040, 3, 13), (12, 0, 0)));
    pass(&mut con, &t, &Voter::new("alice"), &[("x", "y/z")]);
    assert_eq!(
        peek(&mut con, &t, &Voter::new("bob"), &[("x/y", "z")]),
        lefts(&[("option-minute", 1, 60)])
    );
    pass(&mut con, &t, &Voter::new("bob"), &[("x/y", "z")]);
}
