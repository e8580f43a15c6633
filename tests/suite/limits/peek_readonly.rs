//! The rate-limit peek is a read-only script: `campaign_limits.lua` is
//! flagged no-writes and answers what each rule leaves a voter; the admin
//! reset is the writer `campaign_limits_reset.lua`. The peek writes
//! nothing, is not waited for by a client that waits for replicas after
//! writes (the reset is), and runs on a replica; a caller still sending the
//! old mode argument is refused, never misread.

use std::time::Duration;

use redis::Connection;
use redvote::campaign::{LimitLeft, Voter};
use redvote::{
    BoardSettings, Campaign, CampaignSettings, Code, Dimension, Error, LimitRule, Period, Rolling,
    Window,
};

use crate::support::{self, utc, DAY};

/// The tests' clock: 2040-03-13T12:30Z, in the future so that no counter
/// expires (by the server's clock) under the test.
fn t0() -> u64 {
    utc((2040, 3, 13), (12, 30, 0))
}

/// Campaign "rl" at [`t0`] (offset 0): four rules, one counting per
/// option; alice has voted twice for b/x.
fn campaign(con: &mut Connection) -> Campaign {
    let t0 = t0();
    let settings = CampaignSettings::new()
        .with_dates(t0 - DAY, t0 + 30 * DAY)
        .with_limits(vec![
            LimitRule::fixed("user-day", &[Dimension::User], Window::Day, 10),
            LimitRule::fixed(
                "per-option",
                &[Dimension::User, Dimension::Option],
                Window::Hour,
                3,
            ),
            LimitRule::rolling("smooth", &[Dimension::User], Rolling::new(5, 60)),
            LimitRule::fixed("once", &[Dimension::User], Window::Campaign, 100),
        ])
        .with_board(
            "b",
            BoardSettings::new(&[Period::Total]).with_options(&["x", "y"]),
        );
    let c = support::setup(con, "rl", settings).at(t0);
    for _ in 0..2 {
        c.vote("alice", &[("b", "x")]).run(con).unwrap();
    }
    c
}

fn left(rule: &str, remaining: i64, reset_in: i64) -> LimitLeft {
    LimitLeft {
        rule: rule.to_string(),
        remaining,
        reset_in,
    }
}

/// What alice's peek answers after her two votes: the day ends in 11.5 h,
/// the hour in 30 min, the rolling rule's two votes drain in 24 s, the
/// campaign counter never resets within the campaign.
fn alice_left(with_pairs: bool) -> Vec<LimitLeft> {
    let mut want = vec![left("user-day", 8, 41400)];
    if with_pairs {
        want.push(left("per-option", 1, 1800));
    }
    want.extend([left("smooth", 3, 24), left("once", 98, -1)]);
    want
}

#[test]
fn the_peek_answers_the_counters_and_writes_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con);
    let alice = Voter::new("alice");
    let peek = c.limits(&alice, &[("b", "x")]);
    assert!(!peek.writes(), "campaign_limits is flagged no-writes");
    assert_eq!(peek.script().name(), "campaign_limits");
    assert!(peek
        .script()
        .source()
        .starts_with("#!lua flags=no-writes\n"));
    let reset = c.reset_limits(&alice, &[]);
    assert!(reset.writes(), "the reset is a writer");
    assert_eq!(reset.script().name(), "campaign_limits_reset");

    let before = support::digest(&mut con);
    assert_eq!(peek.run(&mut con).unwrap(), alice_left(true));
    assert_eq!(
        c.limits(&alice, &[]).run(&mut con).unwrap(),
        alice_left(false)
    );
    assert_eq!(support::digest(&mut con), before, "a peek wrote");

    // the old form (a mode first) is refused: 5 + 2k arguments never fit
    for old in [
        &["peek", "alice", "", "", ""][..],
        &["reset", "alice", "", "", "", "b", "x"][..],
    ] {
        for script in ["campaign_limits", "campaign_limits_reset"] {
            support::refused_unchanged(&mut con, script, Code::Usage, |con| {
                support::raw(con, script, c.root_key(), old)
            });
        }
    }

    // the reset deletes alice's per-user counters; the peek sees them gone
    assert_eq!(
        c.reset_limits(&alice, &[("b", "x")]).run(&mut con).unwrap(),
        4
    );
    assert_eq!(
        c.limits(&alice, &[("b", "x")]).run(&mut con).unwrap(),
        vec![
            left("user-day", 10, 41400),
            left("per-option", 3, 1800),
            left("smooth", 5, 0),
            left("once", 100, -1),
        ]
    );
}

#[test]
fn a_client_waiting_for_replicas_peeks_on_a_master_without_any() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con);
    let alice = Voter::new("alice");
    let client = redvote::Client::open(&server.url())
        .unwrap()
        .wait_for_replicas(1, Duration::from_millis(50));
    let mut waited = client.connect().unwrap();
    let before = support::digest(&mut con);
    assert_eq!(
        waited.run(&c.limits(&alice, &[("b", "x")])).unwrap(),
        alice_left(true)
    );
    assert_eq!(support::digest(&mut con), before);
    // the reset is waited for, and no replica acknowledges it
    let reset = waited.run(&c.reset_limits(&alice, &[]));
    assert!(
        matches!(
            reset,
            Err(Error::NotReplicated {
                acked: 0,
                wanted: 1,
                ..
            })
        ),
        "{reset:?}"
    );
}

#[test]
fn the_peek_runs_on_a_replica() {
    let master = support::server();
    let mut con = support::con(&master);
    let c = campaign(&mut con);
    let alice = Voter::new("alice");
    let replica = support::replica_of(&master);
    let mut rcon = support::con(&replica);
    let before = support::digest(&mut rcon);
    assert_eq!(
        c.limits(&alice, &[("b", "x")]).run(&mut rcon).unwrap(),
        alice_left(true)
    );
    assert_eq!(
        c.limits(&Voter::new("bob"), &[]).run(&mut rcon).unwrap(),
        vec![
            left("user-day", 10, 41400),
            left("smooth", 5, 0),
            left("once", 100, -1),
        ]
    );
    assert_eq!(support::digest(&mut rcon), before);
    // refusals read the same there
    support::refused(
        Campaign::new("nope").limits(&alice, &[]).run(&mut rcon),
        Code::UnknownCampaign,
    );
    // the writer is refused on the replica
    let reset = c.reset_limits(&alice, &[]).run(&mut rcon);
    assert!(
        matches!(&reset, Err(Error::Redis(e)) if e.to_string().contains("read only replica")),
        "{reset:?}"
    );
}
