//! Vote statistics (docs/statistics.md): the counters the vote writes per
//! board and hour / day bucket match the votes cast (by channel, device,
//! weight; participants within the HyperLogLog's error), empty buckets read
//! as zeros, the range is capped, a hostile caller cannot grow a bucket
//! past 32 channels, and the buckets expire with the boards' retention.

use redvote::campaign::{BoardSettings, OptionSettings, Voter};
use redvote::{Campaign, CampaignSettings, Code, Granularity, Period};

use super::{day_name, hour_name};
use crate::support::{self, expiretime, hgetall, refused_unchanged, T0};

const HOUR: u64 = 3600;
const DAY: u64 = 86400;

/// Board `B` (hour, day, total) with options x (weight 2) and y; board `T`
/// keeping only its total. No retention: the votes of the test clock (T0,
/// months ago) would have expired at once.
fn campaign(con: &mut redis::Connection) -> Campaign {
    let c = Campaign::new("stats");
    let settings = CampaignSettings::new()
        .with_board(
            "B",
            BoardSettings::new(&[Period::Hour, Period::Day, Period::Total])
                .with_option("x", OptionSettings::weighted(2))
                .with_option("y", OptionSettings::weighted(1)),
        )
        .with_board(
            "T",
            BoardSettings::new(&[Period::Total]).with_option("z", OptionSettings::weighted(1)),
        );
    c.configure(&settings).run(con).unwrap();
    c
}

/// The start of T0's hour and day (UTC).
fn hour0() -> u64 {
    T0 - T0 % HOUR
}
fn day0() -> u64 {
    T0 - T0 % DAY
}

#[test]
fn the_counters_match_the_votes_by_hour_day_channel_and_device() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con);
    // hour 0: 3 votes (x, y, x) by u1..u3, app/pc, app/mobile, web/-
    fn v(u: &str, ch: &str, dev: &str) -> Voter {
        Voter::new(u).channel(ch).device(dev)
    }
    c.at(T0)
        .vote_by(&v("u1", "app", "pc"), &[("B", "x")])
        .run(&mut con)
        .unwrap();
    c.at(T0 + 1)
        .vote_by(&v("u2", "app", "mobile"), &[("B", "y")])
        .run(&mut con)
        .unwrap();
    c.at(T0 + 2)
        .vote_by(&Voter::new("u3").channel("web"), &[("B", "x"), ("T", "z")])
        .run(&mut con)
        .unwrap();
    // hour 2 (hour 1 empty): a batch of two pairs on B by u1 again
    c.at(T0 + 2 * HOUR)
        .vote_by(&v("u1", "app", "pc"), &[("B", "x"), ("B", "y")])
        .run(&mut con)
        .unwrap();

    let s = c
        .stats("B", Granularity::Hour, hour0(), hour0() + 3 * HOUR)
        .run(&mut con)
        .unwrap();
    assert_eq!(s.buckets.len(), 3, "{s:?}");
    let [h0, h1, h2] = [&s.buckets[0], &s.buckets[1], &s.buckets[2]];
    assert_eq!(h0.period, hour_name(T0));
    assert_eq!(h0.start, hour0());
    assert_eq!(
        (h0.votes, h0.amount, h0.voided, h0.participants),
        (3, 5, 0, 3)
    );
    assert_eq!(h0.channels, [("app".into(), 2), ("web".into(), 1)].into());
    assert_eq!(h0.devices, [("mobile".into(), 1), ("pc".into(), 1)].into());
    // the empty hour reads as zeros
    assert_eq!(h1.period, hour_name(T0 + HOUR));
    assert_eq!((h1.votes, h1.amount, h1.participants), (0, 0, 0));
    assert!(h1.channels.is_empty() && h1.devices.is_empty());
    assert_eq!((h2.votes, h2.amount, h2.participants), (2, 3, 1));
    assert_eq!(h2.channels, [("app".into(), 2)].into());

    // the day: everything, participants counted once (u1..u3)
    let d = c
        .stats("B", Granularity::Day, T0, T0 + 1)
        .run(&mut con)
        .unwrap();
    assert_eq!(d.buckets.len(), 1);
    let d0 = &d.buckets[0];
    assert_eq!(d0.period, day_name(T0));
    assert_eq!(d0.start, day0());
    assert_eq!((d0.votes, d0.amount, d0.participants), (5, 8, 3));
    assert_eq!(d0.channels, [("app".into(), 4), ("web".into(), 1)].into());
    // board T counts its own pair only
    let t = c
        .stats("T", Granularity::Day, T0, T0 + 1)
        .run(&mut con)
        .unwrap();
    assert_eq!((t.buckets[0].votes, t.buckets[0].amount), (1, 1));

    // CSV: a column per channel and device, a line per bucket
    let csv = s.to_csv();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "period,start,votes,amount,voided,voided_amount,participants,ch:app,ch:web,dev:mobile,dev:pc"
    );
    assert_eq!(
        lines[1],
        format!("{},{},3,5,0,0,3,2,1,1,1", hour_name(T0), hour0())
    );
    assert_eq!(
        lines[2],
        format!(
            "{},{},0,0,0,0,0,0,0,0,0",
            hour_name(T0 + HOUR),
            hour0() + HOUR
        )
    );
    assert_eq!(lines.len(), 4);
}

#[test]
fn participants_are_counted_within_the_hyperloglog_error() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con);
    let n = 3000;
    for i in 0..n {
        c.at(T0)
            .vote(&format!("user:{i}"), &[("B", "y")])
            .run(&mut con)
            .unwrap();
    }
    let s = c
        .stats("B", Granularity::Hour, T0, T0 + 1)
        .run(&mut con)
        .unwrap();
    let b = &s.buckets[0];
    assert_eq!(b.votes, n);
    let err = (b.participants as f64 - n as f64).abs() / n as f64;
    assert!(err < 0.03, "{} participants for {n}", b.participants);
    // the cached count is the HyperLogLog's own
    let count: u64 = redis::cmd("PFCOUNT")
        .arg(format!("{}sp:{}", c.namespace(), hour_name(T0)))
        .query(&mut con)
        .unwrap();
    assert_eq!(b.participants, count);
}

#[test]
fn a_bucket_keeps_32_channels_and_counts_the_others_together() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con);
    for i in 0..40 {
        let (ch, dev) = (format!("ch{i}"), format!("d{i}"));
        let voter = Voter::new("u").channel(&ch).device(&dev);
        c.at(T0)
            .vote_by(&voter, &[("B", "y")])
            .run(&mut con)
            .unwrap();
    }
    // a channel already kept still counts under its name
    let voter = Voter::new("u").channel("ch0");
    c.at(T0)
        .vote_by(&voter, &[("B", "y")])
        .run(&mut con)
        .unwrap();
    let s = c
        .stats("B", Granularity::Hour, T0, T0 + 1)
        .run(&mut con)
        .unwrap();
    let b = &s.buckets[0];
    assert_eq!(b.votes, 41);
    assert_eq!(b.channels.len(), 33, "{:?}", b.channels);
    assert_eq!(b.channels["*"], 8);
    assert_eq!(b.channels["ch0"], 2);
    assert_eq!(b.devices.len(), 33);
    assert_eq!(b.devices["*"], 8);
    let key = format!("{}st:B:{}", c.namespace(), hour_name(T0));
    assert_eq!(hgetall(&mut con, &key).len(), 2 + 2 + 33 + 33);
}

#[test]
fn ranges_are_capped_and_bad_arguments_refused_unchanged() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con);
    c.at(T0).vote("u", &[("B", "x")]).run(&mut con).unwrap();
    let h = c
        .stats("B", Granularity::Hour, hour0(), hour0() + 336 * HOUR)
        .run(&mut con)
        .unwrap();
    assert_eq!(h.buckets.len(), 336);
    assert_eq!(h.votes(), 1);
    let d = c
        .stats("B", Granularity::Day, day0(), day0() + 366 * DAY)
        .run(&mut con)
        .unwrap();
    assert_eq!(d.buckets.len(), 366);
    let nope = Campaign::new("nope");
    let cases = [
        (
            "745 hours",
            Code::InvalidNumber,
            c.stats("B", Granularity::Hour, hour0(), hour0() + 745 * HOUR),
        ),
        (
            "367 days",
            Code::InvalidNumber,
            c.stats("B", Granularity::Day, day0(), day0() + 367 * DAY),
        ),
        (
            "to before from",
            Code::InvalidNumber,
            c.stats("B", Granularity::Day, T0, T0),
        ),
        (
            "unknown board",
            Code::UnknownBoard,
            c.stats("nope", Granularity::Day, T0, T0 + 1),
        ),
        (
            "unknown campaign",
            Code::UnknownCampaign,
            nope.stats("B", Granularity::Day, T0, T0 + 1),
        ),
    ];
    for (what, code, call) in cases {
        refused_unchanged(&mut con, what, code, |con| call.run(con));
    }
    // the read is flagged no-writes (it runs on a replica); voids write
    assert!(!c.stats("B", Granularity::Day, T0, T0 + 1).writes());
    assert!(c.void("v").writes());
    let range = c.void_range(redvote::VoidBy::User, "u", 0, 1, "0", 1);
    assert!(range.writes());
    let bad = support::raw(
        &mut con,
        "campaign_stats",
        c.root_key(),
        &["B", "week", "0", "1"],
    );
    assert!(
        matches!(
            bad,
            Err(redvote::Error::Script {
                code: Code::InvalidPeriod,
                ..
            })
        ),
        "{bad:?}"
    );
}

#[test]
fn buckets_expire_with_the_boards_longest_retention() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con);
    let retained = BoardSettings::new(&[Period::Hour, Period::Day, Period::Total])
        .with_retention(Period::Hour, 2 * DAY)
        .with_retention(Period::Day, 30 * DAY);
    let settings = CampaignSettings::new().with_board("B", retained);
    c.configure(&settings).run(&mut con).unwrap();
    let now = support::server_time(&mut con) as u64;
    c.vote_by(&Voter::new("u"), &[("B", "x"), ("T", "z")])
        .run(&mut con)
        .unwrap();
    let ns = c.namespace();
    let (hour, day) = (hour_name(now), day_name(now));
    let hour_end = now - now % HOUR + HOUR;
    let day_end = now - now % DAY + DAY;
    // B: its longest retention, 30 days (of its day boards)
    let b_hour = expiretime(&mut con, &format!("{ns}st:B:{hour}"));
    let b_day = expiretime(&mut con, &format!("{ns}st:B:{day}"));
    assert_eq!(b_hour as u64, hour_end + 30 * DAY);
    assert_eq!(b_day as u64, day_end + 30 * DAY);
    // T keeps its total forever: so do its statistics, and the campaign's
    // participants (the longest retention of any of its boards)
    assert_eq!(expiretime(&mut con, &format!("{ns}st:T:{hour}")), -1);
    assert_eq!(expiretime(&mut con, &format!("{ns}sp:{hour}")), -1);
    assert_eq!(expiretime(&mut con, &format!("{ns}sn:{day}")), -1);
    // a campaign of B only: its participants expire with B's statistics
    let c2 = Campaign::new("stats2");
    let settings = CampaignSettings::new().with_board(
        "B",
        BoardSettings::new(&[Period::Hour, Period::Total])
            .with_retention(Period::Hour, 3600)
            .with_option("x", OptionSettings::weighted(1)),
    );
    c2.configure(&settings).run(&mut con).unwrap();
    c2.vote("u", &[("B", "x")]).run(&mut con).unwrap();
    let ns2 = c2.namespace();
    // configure keeps the campaign's longest statistics retention in its root
    let keep = |con: &mut redis::Connection| support::hget(con, c2.root_key(), "stats_keep");
    assert_eq!(keep(&mut con).as_deref(), Some("3600"));
    assert_eq!(
        expiretime(&mut con, &format!("{ns2}st:B:{hour}")) as u64,
        hour_end + 3600
    );
    assert_eq!(
        expiretime(&mut con, &format!("{ns2}sp:{day}")) as u64,
        day_end + 3600
    );
    assert_eq!(
        expiretime(&mut con, &format!("{ns2}sn:{hour}")) as u64,
        hour_end + 3600
    );
    // it only grows: a longer board raises it, a board kept forever makes it -1
    let longer = BoardSettings::new(&[Period::Day]).with_retention(Period::Day, 7 * DAY);
    c2.configure(&CampaignSettings::new().with_board("L", longer))
        .run(&mut con)
        .unwrap();
    assert_eq!(keep(&mut con), Some((7 * DAY).to_string()));
    let shorter = BoardSettings::new(&[Period::Day]).with_retention(Period::Day, 60);
    c2.configure(&CampaignSettings::new().with_board("S", shorter))
        .run(&mut con)
        .unwrap();
    assert_eq!(keep(&mut con), Some((7 * DAY).to_string()));
    let kept = BoardSettings::new(&[Period::Total]);
    c2.configure(&CampaignSettings::new().with_board("K", kept))
        .run(&mut con)
        .unwrap();
    assert_eq!(keep(&mut con).as_deref(), Some("-1"));
}

/// docs/statistics.md's Rust example, as the chapter shows it.
mod example {
    #![allow(dead_code)]
    include!("../../readme_examples/statistics.rs");
}

#[test]
fn the_statistics_chapter_example_runs() {
    support::readme::assert_shows_example("statistics.rs");
    let server = support::server();
    let mut con = support::con(&server);
    let c = Campaign::new("spring2026");
    let spring: CampaignSettings =
        serde_json::from_str(include_str!("../../../docs/spring2026.json")).unwrap();
    let settings = spring.with_vote_log(1000);
    c.configure(&settings).run(&mut con).unwrap();
    for _ in 0..3 {
        let voter = Voter::new("user:666").channel("app");
        c.vote_by(&voter, &[("male-stars", "yyqx")])
            .run(&mut con)
            .unwrap();
    }
    let csv = example::back_office(&mut con, &c).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 25, "{csv}");
    assert!(
        lines[0].starts_with("period,start,votes,amount,voided,voided_amount,participants,ch:app"),
        "{csv}"
    );
    let now = support::server_time(&mut con) as u64;
    let s = c
        .stats("male-stars", Granularity::Day, now, now + 1)
        .run(&mut con)
        .unwrap();
    assert_eq!((s.votes(), s.voided()), (4, 4), "{s:?}");
    // every vote taken back: the boards are empty again
    let top = c
        .top(
            &["male-stars"],
            &redvote::View::real("total"),
            redvote::Paging::top(10),
        )
        .run(&mut con)
        .unwrap();
    assert!(top[0].entries.is_empty(), "{top:?}");
}

#[test]
fn the_checker_reads_the_statistics_and_finds_a_planted_fault() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con);
    c.configure(&CampaignSettings::new().with_vote_log(10))
        .run(&mut con)
        .unwrap();
    for i in 0..5 {
        let (user, ch) = (format!("u{i}"), format!("ch{i}"));
        let voter = Voter::new(&user).channel(&ch).device("pc");
        c.at(T0)
            .vote_by(&voter, &[("B", "x"), ("T", "z")])
            .run(&mut con)
            .unwrap();
    }
    let report = redvote_check::check_campaign(&mut con, &c).unwrap();
    assert!(report.is_clean(), "{report:?}");
    // st:B and st:T for an hour and a day, sp and sn for both, the log
    assert_eq!(report.checked.get("stats_keys"), Some(&9), "{report:?}");
    let ns = c.namespace();
    let bucket = format!("{ns}st:B:{}", hour_name(T0));
    let people = format!("{ns}sp:{}", day_name(T0));
    let _: () = redis::cmd("HSET")
        .arg(&bucket)
        .arg("voided")
        .arg(99)
        .query(&mut con)
        .unwrap();
    let _: () = redis::cmd("HSET")
        .arg(&bucket)
        .arg("bogus")
        .arg(1)
        .query(&mut con)
        .unwrap();
    let _: () = redis::cmd("SET")
        .arg(&people)
        .arg("x")
        .query(&mut con)
        .unwrap();
    let _: () = redis::cmd("SET")
        .arg(format!("{ns}st:B:week:2026-W12"))
        .arg(1)
        .query(&mut con)
        .unwrap();
    let report = redvote_check::check_campaign(&mut con, &c).unwrap();
    let on = |key: &str| {
        report
            .violations_of(key)
            .map(|v| v.what.clone())
            .collect::<Vec<_>>()
    };
    let faults = on(&bucket);
    assert!(
        faults.iter().any(|w| w.contains("voided exceed votes")),
        "{faults:?}"
    );
    assert!(
        faults.iter().any(|w| w.contains("unknown field bogus")),
        "{faults:?}"
    );
    assert_eq!(on(&people).len(), 1, "{report:?}");
    assert_eq!(
        on(&format!("{ns}st:B:week:2026-W12")).len(),
        1,
        "{report:?}"
    );
}
