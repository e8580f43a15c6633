//! Voiding votes (docs/statistics.md): `campaign_void` takes back exactly
//! what a vote with an id added, on every period board, carry included,
//! under every tie rule (the boards equal those of a twin campaign that
//! never got the voided votes, and every read ranks as the rank model
//! does), once; `campaign_void_range` voids a user's or a channel's votes
//! of the capped vote log in steps with a cursor; every refusal writes
//! nothing; `redvote-check` finds nothing wrong after.

use std::collections::BTreeMap;

use redis::Connection;
use redvote::campaign::{BoardSettings, Voter};
use redvote::{
    Campaign, CampaignSettings, Code, Granularity, Kind, OptionSettings, Period, Ties, View, VoidBy,
};
use redvote_check::check_campaign;

use super::rank_model::assert_reads_match;
use crate::support::{self, digest, keys, refused_unchanged};

/// 2040-03-11T11:33:20Z: in the future, so that boards kept 2 days live.
const T0: u64 = 2_215_000_000;
const HOUR: u64 = 3600;
const DAY: u64 = 24 * HOUR;

fn board(ties: Ties) -> BoardSettings {
    BoardSettings::new(&[Period::Hour, Period::Day, Period::Total])
        .with_ties(ties)
        .with_carry("0.1")
        .with_decimals(2)
        .with_retention(Period::Hour, 2 * DAY)
        .with_retention(Period::Day, 30 * DAY)
        .with_option("x", OptionSettings::weighted(3))
        .with_option("y", OptionSettings::weighted(1))
        .with_option("z", OptionSettings::weighted(2))
        .with_option("w", OptionSettings::weighted(1))
}

fn campaign(con: &mut Connection, name: &str, ties: Ties, log: u64) -> Campaign {
    let c = Campaign::new(name);
    let settings = CampaignSettings::new()
        .with_vote_log(log)
        .with_board("B", board(ties))
        .with_board("C", board(Ties::Competition));
    c.configure(&settings).run(con).unwrap();
    c
}

/// Every period board of `c` (`b:` keys) with its members and scores, by
/// the key's name after the namespace.
fn boards_of(con: &mut Connection, c: &Campaign) -> BTreeMap<String, Vec<(String, String)>> {
    let ns = c.namespace();
    keys(con, &format!("{ns}b:*"))
        .into_iter()
        .map(|k| {
            let members: Vec<(String, String)> = redis::cmd("ZRANGE")
                .arg(&k)
                .arg(0)
                .arg(-1)
                .arg("WITHSCORES")
                .query(con)
                .unwrap();
            (k[ns.len()..].to_string(), members)
        })
        .collect()
}

/// One vote of the script: (user, channel, time offset, pairs, voided?).
type Step = (
    &'static str,
    &'static str,
    u64,
    &'static [(&'static str, &'static str)],
    bool,
);

/// Votes over two days and three hours (so that carry reaches the next
/// day), batches included; the ones marked true are voided.
const STEPS: &[Step] = &[
    ("u1", "app", 0, &[("B", "x")], false),
    ("u2", "web", 10, &[("B", "y"), ("C", "x")], true),
    ("u3", "app", 20, &[("B", "x"), ("B", "z")], true),
    ("u4", "web", 30, &[("B", "z")], false),
    ("u1", "app", HOUR, &[("B", "y")], false),
    ("u5", "app", HOUR + 5, &[("B", "w"), ("B", "w")], true),
    ("u2", "web", DAY, &[("B", "x")], false),
    ("u6", "app", DAY + 1, &[("B", "y"), ("C", "z")], true),
    ("u3", "web", DAY + HOUR, &[("B", "z"), ("B", "x")], false),
];

fn cast(con: &mut Connection, c: &Campaign, twin: bool) {
    for (i, (user, channel, dt, pairs, voided)) in STEPS.iter().enumerate() {
        if twin && *voided {
            continue;
        }
        let id = format!("vote-{i}");
        let voter = Voter::new(*user).channel(*channel).id(&id);
        c.at(T0 + dt).vote_by(&voter, pairs).run(con).unwrap();
    }
}

fn assert_ranks(con: &mut Connection, c: &Campaign, ties: Ties) {
    let day1 = super::day_name(T0 + DAY);
    for (kind, period) in [
        (Kind::Shown, "total".to_string()),
        (Kind::Real, "total".to_string()),
        (Kind::Shown, day1),
        (Kind::Shown, super::day_name(T0)),
        (Kind::Real, super::hour_name(T0)),
    ] {
        let view = View::new(kind, &period);
        let decimals = if kind == Kind::Real { 0 } else { 2 };
        assert_reads_match(
            con,
            c,
            "B",
            &view,
            ties,
            decimals,
            2,
            &["x", "y", "z", "w"],
            &["x", "w"],
        );
    }
}

#[test]
fn a_void_takes_back_exactly_what_the_vote_added_under_every_tie_rule() {
    let server = support::server();
    let mut con = support::con(&server);
    for ties in [Ties::Competition, Ties::Dense, Ties::First] {
        let name = format!("{ties}").to_lowercase();
        let c = campaign(&mut con, &format!("v-{name}"), ties, 0);
        let twin = campaign(&mut con, &format!("w-{name}"), ties, 0);
        cast(&mut con, &c, false);
        cast(&mut con, &twin, true);
        assert_ne!(boards_of(&mut con, &c), boards_of(&mut con, &twin));
        let mut voided = 0;
        for (i, step) in STEPS.iter().enumerate() {
            if !step.4 {
                continue;
            }
            let v = c.void(&format!("vote-{i}")).run(&mut con).unwrap();
            assert!(!v.already, "{ties}: vote-{i}");
            assert!(v.changed > 0 && v.skipped == 0, "{ties}: {v:?}");
            voided += step.3.iter().filter(|p| p.0 == "B").count() as u64;
        }
        // exactly the twin's boards: scores, members (a member brought to 0
        // left its board), and the carry into the next day
        assert_eq!(
            boards_of(&mut con, &c),
            boards_of(&mut con, &twin),
            "{ties}"
        );
        assert_ranks(&mut con, &c, ties);
        let report = check_campaign(&mut con, &c).unwrap();
        assert!(report.is_clean(), "{ties}: {report:?}");
        // the statistics count the voided votes in their buckets
        let s = c
            .stats("B", Granularity::Day, T0, T0 + 2 * DAY)
            .run(&mut con)
            .unwrap();
        assert_eq!(s.voided(), voided, "{ties}: {s:?}");
        assert_eq!(s.votes(), 12);
        let amount: u64 = s.buckets.iter().map(|b| b.voided_amount).sum();
        assert_eq!(amount, 1 + 3 + 2 + 1 + 1 + 1, "{ties}");
        let t = twin
            .stats("B", Granularity::Day, T0, T0 + 2 * DAY)
            .run(&mut con)
            .unwrap();
        assert_eq!(s.votes() - s.voided(), t.votes());

        // a second void answers "already voided" and writes nothing
        let before = digest(&mut con);
        let again = c.void("vote-1").run(&mut con).unwrap();
        assert!(again.already && again.changed == 0, "{again:?}");
        assert_eq!(digest(&mut con), before);
        // the vote sent again with its id is a replay: it counts nothing
        let (user, channel, dt, pairs, _) = STEPS[1];
        let voter = Voter::new(user).channel(channel).id("vote-1");
        let replay = c.at(T0 + dt).vote_by(&voter, pairs).run(&mut con).unwrap();
        assert!(replay[0].replay);
        assert_eq!(digest(&mut con), before);
    }
}

#[test]
fn voids_of_unknown_old_or_corrupt_records_are_refused_unchanged() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con, "refusals", Ties::First, 0);
    c.at(T0)
        .vote_by(&Voter::new("u").id("kept"), &[("B", "x")])
        .run(&mut con)
        .unwrap();
    let ns = c.namespace();
    // a record as redvote 0.5 wrote it: [request, reply], no amounts
    let record = format!("{ns}vid:old");
    let _: () = redis::cmd("SET")
        .arg(&record)
        .arg(r#"["[\"u\"]",[["B","x",["total","3.00"]]]]"#)
        .query(&mut con)
        .unwrap();
    let corrupt = format!("{ns}vid:corrupt");
    let _: () = redis::cmd("SET")
        .arg(&corrupt)
        .arg(r#"["[]",[],{"e":[["B","real:total","x","1"]],"s":[["B","1"]],"h":"hour:x","dy":"day:x","t":"1","u":"u","c":"","d":""}]"#)
        .query(&mut con)
        .unwrap();
    let detail = refused_unchanged(&mut con, "unknown id", Code::UnknownVote, |con| {
        c.void("never").run(con)
    });
    assert!(detail.contains("vote_id_ttl"), "{detail}");
    refused_unchanged(&mut con, "old record", Code::NotVoidable, |con| {
        c.void("old").run(con)
    });
    refused_unchanged(&mut con, "corrupt record", Code::InvalidConfig, |con| {
        c.void("corrupt").run(con)
    });
    refused_unchanged(&mut con, "empty id", Code::InvalidVoteId, |con| {
        c.void("").run(con)
    });
    let long = "x".repeat(129);
    refused_unchanged(&mut con, "long id", Code::InvalidVoteId, |con| {
        c.void(&long).run(con)
    });
    refused_unchanged(&mut con, "unknown campaign", Code::UnknownCampaign, |con| {
        Campaign::new("nope").void("kept").run(con)
    });
    // an expired record is an unknown one
    let _: () = redis::cmd("DEL")
        .arg(format!("{ns}vid:kept"))
        .query(&mut con)
        .unwrap();
    refused_unchanged(&mut con, "expired id", Code::UnknownVote, |con| {
        c.void("kept").run(con)
    });
    for (what, args) in [
        ("by", ["device", "x", "0", "1", "0", "10"]),
        ("count 0", ["user", "u", "0", "1", "0", "0"]),
        ("count 1001", ["user", "u", "0", "1", "0", "1001"]),
        ("to before from", ["user", "u", "5", "5", "0", "10"]),
        ("cursor", ["user", "u", "0", "1", "x-1", "10"]),
        ("channel name", ["channel", "a:b", "0", "1", "0", "10"]),
    ] {
        let before = digest(&mut con);
        let got = support::raw(&mut con, "campaign_void_range", c.root_key(), &args);
        assert!(
            matches!(got, Err(redvote::Error::Script { .. })),
            "{what}: {got:?}"
        );
        assert_eq!(digest(&mut con), before, "{what}");
    }
}

#[test]
fn a_void_range_voids_a_users_or_channels_logged_votes_in_steps() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con, "range", Ties::Dense, 1000);
    let twin = campaign(&mut con, "range-twin", Ties::Dense, 0);
    // u1's votes (some with ids) and others', interleaved
    let mut n = 0;
    for i in 0..12u64 {
        let user = if i % 3 == 0 { "u1" } else { "u2" };
        let channel = if i % 2 == 0 { "app" } else { "web" };
        let option = ["x", "y", "z"][(i % 3) as usize];
        let id = format!("id-{i}");
        let voter = Voter::new(user).channel(channel);
        let voter = if i % 4 == 0 { voter.id(&id) } else { voter };
        c.at(T0 + i * 600)
            .vote_by(&voter, &[("B", option)])
            .run(&mut con)
            .unwrap();
        if user != "u1" {
            twin.at(T0 + i * 600)
                .vote_by(&voter, &[("B", option)])
                .run(&mut con)
                .unwrap();
        } else {
            n += 1;
        }
    }
    let log = format!("{}log", c.namespace());
    let len: u64 = redis::cmd("XLEN").arg(&log).query(&mut con).unwrap();
    assert_eq!(len, 12);
    // one of u1's votes voided by its id first: the range skips it
    assert!(!c.void("id-0").run(&mut con).unwrap().already);
    let now = support::server_time(&mut con) as u64;
    let (mut cursor, mut voided, mut calls) = ("0".to_string(), 0, 0);
    loop {
        let step = c
            .void_range(VoidBy::User, "u1", now - 60, now + 60, &cursor, 3)
            .run(&mut con)
            .unwrap();
        voided += step.voided;
        calls += 1;
        if step.is_done() {
            break;
        }
        cursor = step.next;
    }
    assert_eq!(voided, n - 1);
    assert!(calls >= 4, "{calls} calls of 3 entries");
    assert_eq!(boards_of(&mut con, &c), boards_of(&mut con, &twin));
    assert_ranks(&mut con, &c, Ties::Dense);
    // the voided entries left the log; a vote with an id voided by the
    // range is "already voided" for campaign_void
    let len: u64 = redis::cmd("XLEN").arg(&log).query(&mut con).unwrap();
    assert_eq!(len, 12 - n);
    assert!(c.void("id-0").run(&mut con).unwrap().already);
    assert!(c.void("id-12").run(&mut con).is_err());
    // the range again: nothing left to void
    let before = digest(&mut con);
    let again = c
        .void_range(VoidBy::User, "u1", now - 60, now + 60, "0", 100)
        .run(&mut con)
        .unwrap();
    assert_eq!((again.voided, again.next.as_str()), (0, "0"));
    assert_eq!(digest(&mut con), before);
    let s = c
        .stats("B", Granularity::Day, T0, T0 + DAY)
        .run(&mut con)
        .unwrap();
    assert_eq!(s.voided(), n);
    let report = check_campaign(&mut con, &c).unwrap();
    assert!(report.is_clean(), "{report:?}");

    // by channel: the rest of "web", outside the time range nothing
    let out = c
        .void_range(VoidBy::Channel, "web", now - 7200, now - 3600, "0", 100)
        .run(&mut con)
        .unwrap();
    assert_eq!((out.voided, out.others), (0, 0));
    let web = c
        .void_range(VoidBy::Channel, "web", now - 60, now + 60, "0", 100)
        .run(&mut con)
        .unwrap();
    assert_eq!(web.voided, 4, "u2's web votes: i = 1, 5, 7, 11");
    assert!(web.is_done());
    // a campaign without a log has nothing to void
    let none = twin
        .void_range(VoidBy::User, "u2", now - 60, now + 60, "0", 100)
        .run(&mut con)
        .unwrap();
    assert_eq!((none.voided, none.others, none.next.as_str()), (0, 0, "0"));
}

/// The shown total and day scores and the real total of option `o` on
/// board `b` of `c`, as text (None: not on the board).
fn scores_of(
    con: &mut Connection,
    c: &Campaign,
    b: &str,
    o: &str,
    day: u64,
) -> [Option<String>; 3] {
    let ns = c.namespace();
    [
        support::zscore_text(con, &format!("{ns}b:{b}:shown:total"), o),
        support::zscore_text(con, &format!("{ns}b:{b}:shown:{}", super::day_name(day)), o),
        support::zscore_text(con, &format!("{ns}b:{b}:real:total"), o),
    ]
}

/// A void skips an option removed since its vote: while the removal is
/// pending, and once it finished and the option was configured again (a
/// new member of the same name, which the void must not lower), by id and
/// by the vote log alike.
#[test]
fn a_void_skips_an_option_removed_since_even_when_configured_again() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con, "regen", Ties::First, 1000);
    let remove = |con: &mut Connection, c: &Campaign, option: &str| {
        let board = BoardSettings {
            remove: vec![option.to_string()],
            ..Default::default()
        };
        let settings = CampaignSettings::new().with_board("B", board);
        c.configure(&settings).run(con).unwrap();
    };
    let again = |con: &mut Connection, c: &Campaign, option: &str| {
        let settings = CampaignSettings::new().with_board(
            "B",
            BoardSettings::default().with_option(option, OptionSettings::weighted(2)),
        );
        c.configure(&settings).run(con).unwrap();
    };
    let vote = |con: &mut Connection, user: &str, id: &str, option: &str, dt: u64| {
        let voter = Voter::new(user).id(id);
        c.at(T0 + dt)
            .vote_by(&voter, &[("B", option)])
            .run(con)
            .unwrap();
    };
    vote(&mut con, "u1", "old-y", "y", 0);
    vote(&mut con, "u1", "old-z", "z", 1);
    vote(&mut con, "u2", "x", "x", 2);

    // pending: the void leaves the entries to the removal steps
    remove(&mut con, &c, "z");
    let ns = c.namespace();
    assert!(support::zscore_text(&mut con, &format!("{ns}b:B:real:total"), "z").is_some());
    let v = c.void("old-z").run(&mut con).unwrap();
    assert_eq!(v.changed, 0, "{v:?}");
    assert!(v.skipped > 0, "{v:?}");

    // removed, configured again, two new votes: y at 4.00 (ZSCORE: 4)
    remove(&mut con, &c, "y");
    super::removal::finish_removal(&mut con, &c, "B", 100);
    again(&mut con, &c, "y");
    vote(&mut con, "u3", "new-1", "y", 10);
    vote(&mut con, "u4", "new-2", "y", 11);
    let before = scores_of(&mut con, &c, "B", "y", T0);
    assert_eq!(before[0].as_deref(), Some("4"));
    let v = c.void("old-y").run(&mut con).unwrap();
    assert!(!v.already && v.changed == 0 && v.skipped > 0, "{v:?}");
    assert_eq!(scores_of(&mut con, &c, "B", "y", T0), before);
    // by the vote log: u1's votes are the removed y's and z's
    let now = support::server_time(&mut con) as u64;
    let _ = c
        .void_range(VoidBy::User, "u1", now - 60, now + 60, "0", 100)
        .run(&mut con)
        .unwrap();
    assert_eq!(scores_of(&mut con, &c, "B", "y", T0), before);
    // a vote on the new y is voided as ever
    let v = c.void("new-2").run(&mut con).unwrap();
    assert!(v.changed > 0 && v.skipped == 0, "{v:?}");
    assert_eq!(
        scores_of(&mut con, &c, "B", "y", T0)[0].as_deref(),
        Some("2")
    );
    super::removal::finish_removal(&mut con, &c, "B", 100);
    let report = check_campaign(&mut con, &c).unwrap();
    assert!(report.is_clean(), "{report:?}");
}

/// A void restores the score the member would have without the vote: a
/// shown board an import lowered to -60.00 on a later day, made -59.00 by
/// the vote, is -60.00 again (not deleted); 0 is deleted only where
/// nothing but votes wrote the member.
#[test]
fn a_void_restores_a_score_an_import_lowered_below_zero() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con, "below", Ties::Dense, 0);
    c.at(T0).import("B", &[("y", "100")]).run(&mut con).unwrap();
    // a day later the import is lowered to 40: that day's board gets -60
    c.at(T0 + DAY)
        .import("B", &[("y", "40")])
        .run(&mut con)
        .unwrap();
    assert_eq!(
        scores_of(&mut con, &c, "B", "y", T0 + DAY),
        [Some("40".into()), Some("-60".into()), None]
    );
    let voter = Voter::new("u1").id("v");
    c.at(T0 + DAY + 5)
        .vote_by(&voter, &[("B", "y"), ("B", "z")])
        .run(&mut con)
        .unwrap();
    assert_eq!(
        scores_of(&mut con, &c, "B", "y", T0 + DAY),
        [Some("41".into()), Some("-59".into()), Some("1".into())]
    );
    let v = c.void("v").run(&mut con).unwrap();
    assert!(v.changed > 0 && v.skipped == 0, "{v:?}");
    assert_eq!(
        scores_of(&mut con, &c, "B", "y", T0 + DAY),
        [Some("40".into()), Some("-60".into()), None]
    );
    // z, never imported: what the vote made leaves its boards
    assert_eq!(
        scores_of(&mut con, &c, "B", "z", T0 + DAY),
        [None, None, None]
    );
    assert_reads_match(
        &mut con,
        &c,
        "B",
        &View::new(Kind::Shown, super::day_name(T0 + DAY)),
        Ties::Dense,
        2,
        2,
        &["x", "y", "z", "w"],
        &["y"],
    );
    let report = check_campaign(&mut con, &c).unwrap();
    assert!(report.is_clean(), "{report:?}");
}
