//! Vote ids: a campaign vote sent again with the same id counts once and
//! answers the first run's ballots marked as a replay; the same id on
//! another vote is refused; a refused vote records nothing; the record
//! lives `vote_id_ttl` seconds; a corrupt record is refused before any
//! write. And the CLI's `--vote-id`.

use redvote::campaign::{LimitRule, Voter, Window};
use redvote::{CampaignSettings, Code, Error, Period};

use super::T0;
use crate::support::vote_ids_campaign as campaign;
use crate::support::{
    self, board, boards, digest, options, real_total, refused_unchanged, setup, ttl,
};

#[test]
fn a_vote_sent_twice_with_one_id_counts_once_and_replays_its_answer() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con);
    let voter = Voter::new("u1").id("req-1");
    let first = c
        .at(T0)
        .vote_by(&voter, &[("B", "x")])
        .run(&mut con)
        .unwrap();
    assert!(!first[0].replay);
    let record = format!("{}vid:req-1", c.namespace());
    assert!(support::exists(&mut con, &record));
    // another vote moves the scores on, so a replay cannot be a recount
    c.at(T0).vote("u2", &[("B", "x")]).run(&mut con).unwrap();
    let before = digest(&mut con);
    for _ in 0..3 {
        let again = c
            .at(T0)
            .vote_by(&voter, &[("B", "x")])
            .run(&mut con)
            .unwrap();
        assert_eq!(digest(&mut con), before, "a replay wrote");
        assert_eq!(again.len(), 1);
        assert!(again[0].replay);
        assert_eq!(again[0].shown, first[0].shown, "the first run's answer");
    }
    assert_eq!(real_total(&mut con, &c, "B", "x"), 2);
    // without an id, the same vote counts again
    c.at(T0).vote("u1", &[("B", "x")]).run(&mut con).unwrap();
    assert_eq!(real_total(&mut con, &c, "B", "x"), 3);
    // the record expires after the default vote_id_ttl, a day
    let left = ttl(&mut con, &record);
    assert!((86390..=86400).contains(&left), "TTL {left}");
}

#[test]
fn one_id_on_another_vote_is_refused_and_writes_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con);
    c.at(T0)
        .vote_by(&Voter::new("u1").id("abc"), &[("B", "x")])
        .run(&mut con)
        .unwrap();
    let other_votes: [(Voter, &[(&str, &str)]); 4] = [
        (Voter::new("u1").id("abc"), &[("B", "y")]),
        (Voter::new("u2").id("abc"), &[("B", "x")]),
        (Voter::new("u1").id("abc").cost(2), &[("B", "x")]),
        (Voter::new("u1").id("abc"), &[("B", "x"), ("B", "x")]),
    ];
    for (voter, pairs) in other_votes {
        let what = format!("{voter:?} {pairs:?}");
        refused_unchanged(&mut con, &what, Code::VoteIdReused, |con| {
            c.at(T0).vote_by(&voter, pairs).run(con)
        });
    }
    // ids are per campaign
    let other = setup(
        &mut con,
        "ids2",
        boards([("B", board(&[Period::Total], options([("x", 1)])))]),
    );
    let ballots = other
        .at(T0)
        .vote_by(&Voter::new("u1").id("abc"), &[("B", "x")])
        .run(&mut con)
        .unwrap();
    assert!(!ballots[0].replay);
}

#[test]
fn a_refused_vote_records_nothing_and_its_retry_is_judged_afresh() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con);
    c.configure(&CampaignSettings {
        limits: Some(vec![LimitRule::fixed(
            "one-a-day",
            &[redvote::campaign::Dimension::User],
            Window::Day,
            1,
        )]),
        ..Default::default()
    })
    .run(&mut con)
    .unwrap();
    // the second vote of the day is refused: its id is not recorded
    let t = support::utc((2040, 3, 1), (12, 0, 0));
    c.at(t).vote("u1", &[("B", "x")]).run(&mut con).unwrap();
    let voter = Voter::new("u1").id("second");
    let before = digest(&mut con);
    match c.at(t).vote_by(&voter, &[("B", "x")]).run(&mut con) {
        Err(Error::RateLimited(r)) => assert_eq!(r.rule, "one-a-day"),
        other => panic!("expected a rate-limit refusal, got {other:?}"),
    }
    assert_eq!(digest(&mut con), before);
    // the next day the same id passes, once
    let next = t + 86400;
    let ballots = c
        .at(next)
        .vote_by(&voter, &[("B", "x")])
        .run(&mut con)
        .unwrap();
    assert!(!ballots[0].replay);
    let again = c
        .at(next)
        .vote_by(&voter, &[("B", "x")])
        .run(&mut con)
        .unwrap();
    assert!(again[0].replay);
    assert_eq!(real_total(&mut con, &c, "B", "x"), 2);
}

#[test]
fn vote_id_ttl_is_a_campaign_setting_and_a_corrupt_record_is_refused() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con);
    c.configure(&CampaignSettings {
        vote_id_ttl: Some(60),
        ..Default::default()
    })
    .run(&mut con)
    .unwrap();
    for bad in [0, 31_536_001] {
        refused_unchanged(&mut con, "vote_id_ttl", Code::InvalidConfig, |con| {
            c.configure(&CampaignSettings {
                vote_id_ttl: Some(bad),
                ..Default::default()
            })
            .run(con)
        });
    }
    let voter = Voter::new("u1").id("short");
    c.at(T0)
        .vote_by(&voter, &[("B", "x")])
        .run(&mut con)
        .unwrap();
    let record = format!("{}vid:short", c.namespace());
    let left = ttl(&mut con, &record);
    assert!((50..=60).contains(&left), "TTL {left}");
    // a record that is not one, or a key of the wrong type: refused, unchanged
    let _: () = redis::cmd("SET")
        .arg(&record)
        .arg("not json")
        .query(&mut con)
        .unwrap();
    refused_unchanged(&mut con, "corrupt record", Code::InvalidConfig, |con| {
        c.at(T0).vote_by(&voter, &[("B", "x")]).run(con)
    });
    support::del(&mut con, &record);
    let _: () = redis::cmd("SADD")
        .arg(&record)
        .arg("x")
        .query(&mut con)
        .unwrap();
    refused_unchanged(&mut con, "wrong type", Code::InvalidConfig, |con| {
        c.at(T0).vote_by(&voter, &[("B", "x")]).run(con)
    });
    // a corrupt stored vote_id_ttl is refused before the first write
    support::del(&mut con, &record);
    let _: () = redis::cmd("HSET")
        .arg(c.root_key())
        .arg("vote_id_ttl")
        .arg("1e3")
        .query(&mut con)
        .unwrap();
    refused_unchanged(
        &mut con,
        "corrupt vote_id_ttl",
        Code::InvalidConfig,
        |con| c.at(T0).vote_by(&voter, &[("B", "x")]).run(con),
    );
}
