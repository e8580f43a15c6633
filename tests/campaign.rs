//! Every `Campaign` operation and setting against a real redis-server:
//! configure (defaults, partial updates, options and display data, offset,
//! start/end), vote (real/shown/weights, batches, all or nothing), exact
//! decimals and the exact range, idempotent import, top, the four tie rules,
//! standing, around, participants, option removal, retention, concurrency
//! and the bad-input catalogue (every refusal leaves `DEBUG DIGEST` as it was).

mod common;

use std::collections::{BTreeMap, BTreeSet};

use redis::{Connection, Value};
use redvote::campaign::{
    Around, Ballot, BoardSettings, Configured, Entry, Imported, OptionSettings, Participants,
    PeriodScore, Standing,
};
use redvote::{Campaign, CampaignSettings, Code, Error, Kind, Period, Ties};

/// (board, option) pairs of one vote.
type Pairs<'a> = Vec<(&'a str, &'a str)>;

/// 2026-03-17T12:30:00Z, a Tuesday in ISO week 12.
const T0: u64 = 1_773_750_600;
const HOUR: u64 = 3600;
const DAY: u64 = 86400;

// ---- small helpers ---------------------------------------------------------

fn hgetall(con: &mut Connection, key: &str) -> BTreeMap<String, String> {
    redis::cmd("HGETALL").arg(key).query(con).unwrap()
}

fn hget(con: &mut Connection, key: &str, field: &str) -> Option<String> {
    redis::cmd("HGET").arg(key).arg(field).query(con).unwrap()
}

fn zscore(con: &mut Connection, key: &str, member: &str) -> Option<String> {
    redis::cmd("ZSCORE")
        .arg(key)
        .arg(member)
        .query(con)
        .unwrap()
}

fn smembers(con: &mut Connection, key: &str) -> BTreeSet<String> {
    redis::cmd("SMEMBERS").arg(key).query(con).unwrap()
}

fn exists(con: &mut Connection, key: &str) -> bool {
    redis::cmd("EXISTS").arg(key).query::<i64>(con).unwrap() == 1
}

/// `EXPIRETIME` (Redis 7): the absolute Unix second a key expires at, -1
/// without a TTL, -2 when the key does not exist.
fn expiretime(con: &mut Connection, key: &str) -> i64 {
    redis::cmd("EXPIRETIME").arg(key).query(con).unwrap()
}

fn keys(con: &mut Connection, pattern: &str) -> BTreeSet<String> {
    redis::cmd("KEYS").arg(pattern).query(con).unwrap()
}

fn set<const N: usize>(items: [&str; N]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn map<const N: usize>(items: [(&str, &str); N]) -> BTreeMap<String, String> {
    items
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The refusal code and detail of a call that must fail.
#[track_caller]
fn refused<T: std::fmt::Debug>(result: redvote::Result<T>, want: Code) -> String {
    match result {
        Err(Error::Script { code, detail }) => {
            assert_eq!(code, want, "wrong code (detail: {detail})");
            detail
        }
        other => panic!("expected a {want} refusal, got {other:?}"),
    }
}

/// A refusal that must also leave the data set exactly as it was.
#[track_caller]
fn refused_unchanged<T: std::fmt::Debug>(
    con: &mut Connection,
    what: &str,
    want: Code,
    call: impl FnOnce(&mut Connection) -> redvote::Result<T>,
) {
    let before = common::digest(con);
    match call(con) {
        Err(Error::Script { code, detail }) => {
            assert_eq!(code, want, "{what}: wrong code (detail: {detail})")
        }
        other => panic!("{what}: expected a {want} refusal, got {other:?}"),
    }
    assert_eq!(common::digest(con), before, "{what}: the refusal wrote");
}

/// A script call with raw arguments: what `redis-cli --eval` can send and
/// the typed driver cannot.
fn raw(con: &mut Connection, op: &str, key: &str, args: &[&str]) -> redvote::Result<Value> {
    let script = redvote::scripts::get(op).unwrap().script();
    let mut inv = script.prepare_invoke();
    inv.key(key);
    for a in args {
        inv.arg(*a);
    }
    inv.invoke::<Value>(con).map_err(Error::from)
}

fn options<const N: usize>(list: [(&str, u32); N]) -> BTreeMap<String, OptionSettings> {
    list.iter()
        .map(|(name, weight)| {
            (
                name.to_string(),
                OptionSettings {
                    weight: Some(*weight),
                    data: None,
                },
            )
        })
        .collect()
}

fn board(periods: &[Period], options: BTreeMap<String, OptionSettings>) -> BoardSettings {
    BoardSettings {
        periods: Some(periods.to_vec()),
        options,
        ..Default::default()
    }
}

fn boards<const N: usize>(list: [(&str, BoardSettings); N]) -> CampaignSettings {
    CampaignSettings {
        boards: list.into_iter().map(|(n, b)| (n.to_string(), b)).collect(),
        ..Default::default()
    }
}

fn setup(con: &mut Connection, name: &str, settings: CampaignSettings) -> Campaign {
    let campaign = Campaign::new(name);
    campaign.configure(&settings).run(con).unwrap();
    campaign
}

fn e(member: &str, score: &str, rank: u64) -> Entry {
    Entry {
        member: member.to_string(),
        score: score.to_string(),
        rank,
    }
}

/// One board's page.
fn page(
    con: &mut Connection,
    c: &Campaign,
    board: &str,
    kind: Kind,
    period: &str,
    page: u32,
    per_page: u32,
) -> Vec<Entry> {
    let mut pages = c
        .top(&[board], kind, period, page, per_page)
        .run(con)
        .unwrap();
    assert_eq!(pages.len(), 1);
    assert_eq!(pages[0].board, board);
    pages.remove(0).entries
}

fn shown_scores(ballot: &Ballot) -> Vec<(String, String)> {
    ballot
        .shown
        .iter()
        .map(|p| (p.period.clone(), p.score.clone()))
        .collect()
}

fn ps(period: &str, score: &str) -> PeriodScore {
    PeriodScore {
        period: period.to_string(),
        score: score.to_string(),
    }
}

#[allow(clippy::too_many_arguments)]
fn standing(
    member: &str,
    rank: Option<u64>,
    score: Option<&str>,
    ahead: Option<&str>,
    gap: Option<&str>,
    previous_rank: Option<u64>,
    previous_score: Option<&str>,
) -> Standing {
    Standing {
        member: member.to_string(),
        rank,
        score: score.map(str::to_string),
        ahead: ahead.map(str::to_string),
        gap: gap.map(str::to_string),
        previous_rank,
        previous_score: previous_score.map(str::to_string),
    }
}

/// `hour:YYYY-MM-DDTHH` of a UTC time (offset 0).
fn hour_name(t: u64) -> String {
    let dt = chrono::DateTime::from_timestamp(t as i64, 0).unwrap();
    use chrono::{Datelike, Timelike};
    format!(
        "hour:{:04}-{:02}-{:02}T{:02}",
        dt.year(),
        dt.month(),
        dt.day(),
        dt.hour()
    )
}

fn day_name(t: u64) -> String {
    let dt = chrono::DateTime::from_timestamp(t as i64, 0).unwrap();
    use chrono::Datelike;
    format!("day:{:04}-{:02}-{:02}", dt.year(), dt.month(), dt.day())
}

// ---- configure -------------------------------------------------------------

#[test]
fn configure_creates_boards_with_the_documented_defaults() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = Campaign::new("spring");
    assert_eq!(c.namespace(), "{c:spring}:");
    assert_eq!(c.root_key(), "{c:spring}:campaign");

    let before = common::server_time(&mut con);
    let done = c
        .configure(&boards([(
            "B",
            BoardSettings {
                options: [("x".to_string(), OptionSettings::default())].into(),
                ..Default::default()
            },
        )]))
        .run(&mut con)
        .unwrap();
    let after = common::server_time(&mut con);
    assert_eq!(
        done,
        Configured {
            boards: 1,
            options: 1
        }
    );
    assert_eq!(
        hgetall(&mut con, "{c:spring}:board:B"),
        map([
            ("periods", "total"),
            ("ties", "competition"),
            ("carry", "0"),
            ("decimals", "2"),
        ])
    );
    assert_eq!(hgetall(&mut con, "{c:spring}:weights:B"), map([("x", "1")]));
    assert_eq!(smembers(&mut con, "{c:spring}:boards"), set(["B"]));
    // The root holds only the update time: no offset (UTC), no start or end.
    let root = hgetall(&mut con, "{c:spring}:campaign");
    assert_eq!(root.keys().collect::<Vec<_>>(), ["updated"]);
    let updated: i64 = root["updated"].parse().unwrap();
    assert!(before <= updated && updated <= after, "{updated}");
    assert_eq!(
        keys(&mut con, "*"),
        set([
            "{c:spring}:campaign",
            "{c:spring}:boards",
            "{c:spring}:board:B",
            "{c:spring}:weights:B",
        ])
    );
    // No display data unless given.
    assert!(!exists(&mut con, "{c:spring}:option:B:x"));

    // The defaults at work: a total board only, weight 1, 2 decimals, in UTC.
    let ballots = c.at(T0).vote("u", &[("B", "x")]).run(&mut con).unwrap();
    assert_eq!(
        ballots,
        vec![Ballot {
            board: "B".to_string(),
            option: "x".to_string(),
            shown: vec![ps("total", "1.00")],
        }]
    );
    refused(
        c.at(T0)
            .top(&["B"], Kind::Shown, "day", 1, 10)
            .run(&mut con),
        Code::InvalidPeriod,
    );
}

#[test]
fn configure_updates_keep_unspecified_settings() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = Campaign::new("upd");
    let mut x = OptionSettings {
        weight: Some(5),
        data: Some(map([("name", "X"), ("img", "http://x/x.png")])),
    };
    let first = CampaignSettings {
        offset: Some("+08:00".to_string()),
        start: Some(100),
        boards: [(
            "B".to_string(),
            BoardSettings {
                periods: Some(vec![Period::Day, Period::Total]),
                ties: Some(Ties::Dense),
                carry: Some("0.25".to_string()),
                decimals: Some(3),
                retention: [(Period::Day, 86400)].into(),
                options: [
                    ("x".to_string(), x.clone()),
                    ("y".to_string(), OptionSettings::default()),
                ]
                .into(),
                remove: vec![],
            },
        )]
        .into(),
        ..Default::default()
    };
    assert_eq!(
        c.configure(&first).run(&mut con).unwrap(),
        Configured {
            boards: 1,
            options: 2
        }
    );
    let board_b = map([
        ("periods", "day,total"),
        ("ties", "dense"),
        ("carry", "0.25"),
        ("decimals", "3"),
        ("keep_day", "86400"),
    ]);
    assert_eq!(hgetall(&mut con, "{c:upd}:board:B"), board_b);
    assert_eq!(
        hgetall(&mut con, "{c:upd}:weights:B"),
        map([("x", "5"), ("y", "1")])
    );
    assert_eq!(
        hgetall(&mut con, "{c:upd}:option:B:x"),
        map([("name", "X"), ("img", "http://x/x.png")])
    );
    assert!(!exists(&mut con, "{c:upd}:option:B:y"));
    assert_eq!(
        hget(&mut con, "{c:upd}:campaign", "offset").as_deref(),
        Some("28800")
    );
    assert_eq!(
        hget(&mut con, "{c:upd}:campaign", "start").as_deref(),
        Some("100")
    );

    // A new option only: every board setting and the other options stay.
    let only_z = boards([(
        "B",
        BoardSettings {
            options: options([("z", 2)]),
            ..Default::default()
        },
    )]);
    assert_eq!(
        c.configure(&only_z).run(&mut con).unwrap(),
        Configured {
            boards: 1,
            options: 1
        }
    );
    assert_eq!(hgetall(&mut con, "{c:upd}:board:B"), board_b);
    assert_eq!(
        hgetall(&mut con, "{c:upd}:weights:B"),
        map([("x", "5"), ("y", "1"), ("z", "2")])
    );
    assert_eq!(
        hgetall(&mut con, "{c:upd}:option:B:x"),
        map([("name", "X"), ("img", "http://x/x.png")])
    );

    // Data without a weight: the data is replaced, the weight kept.
    x.weight = None;
    x.data = Some(map([("name", "X2")]));
    let data_only = boards([(
        "B",
        BoardSettings {
            options: [("x".to_string(), x)].into(),
            ..Default::default()
        },
    )]);
    c.configure(&data_only).run(&mut con).unwrap();
    assert_eq!(
        hget(&mut con, "{c:upd}:weights:B", "x").as_deref(),
        Some("5")
    );
    assert_eq!(
        hgetall(&mut con, "{c:upd}:option:B:x"),
        map([("name", "X2")])
    );

    // A weight without data: the weight changes, the data stays.
    c.configure(&boards([(
        "B",
        BoardSettings {
            options: options([("x", 7)]),
            ..Default::default()
        },
    )]))
    .run(&mut con)
    .unwrap();
    assert_eq!(
        hget(&mut con, "{c:upd}:weights:B", "x").as_deref(),
        Some("7")
    );
    assert_eq!(
        hgetall(&mut con, "{c:upd}:option:B:x"),
        map([("name", "X2")])
    );

    // One setting: only it changes.
    c.configure(&boards([(
        "B",
        BoardSettings {
            ties: Some(Ties::First),
            ..Default::default()
        },
    )]))
    .run(&mut con)
    .unwrap();
    let mut board_b = board_b;
    board_b.insert("ties".to_string(), "first".to_string());
    assert_eq!(hgetall(&mut con, "{c:upd}:board:B"), board_b);

    // Campaign settings one at a time; a second board leaves B alone.
    c.configure(&CampaignSettings {
        end: Some(200),
        ..Default::default()
    })
    .run(&mut con)
    .unwrap();
    c.configure(&CampaignSettings {
        offset: Some("-05:00".to_string()),
        boards: [("C".to_string(), BoardSettings::default())].into(),
        ..Default::default()
    })
    .run(&mut con)
    .unwrap();
    let root = hgetall(&mut con, "{c:upd}:campaign");
    assert_eq!(
        (
            root.get("offset").map(String::as_str),
            root.get("start").map(String::as_str),
            root.get("end").map(String::as_str)
        ),
        (Some("-18000"), Some("100"), Some("200"))
    );
    assert_eq!(hgetall(&mut con, "{c:upd}:board:B"), board_b);
    assert_eq!(
        hgetall(&mut con, "{c:upd}:board:C"),
        map([
            ("periods", "total"),
            ("ties", "competition"),
            ("carry", "0"),
            ("decimals", "2"),
        ])
    );
    assert!(!exists(&mut con, "{c:upd}:weights:C"));
    assert_eq!(smembers(&mut con, "{c:upd}:boards"), set(["B", "C"]));
    assert_eq!(
        hgetall(&mut con, "{c:upd}:weights:B"),
        map([("x", "7"), ("y", "1"), ("z", "2")])
    );
}

#[test]
fn configure_offset_syntax() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "off",
        boards([("B", board(&[Period::Hour], options([("x", 1)])))]),
    );
    let offset = |o: &str| CampaignSettings {
        offset: Some(o.to_string()),
        ..Default::default()
    };
    for (text, seconds, hour) in [
        ("+08:00", "28800", "hour:2026-03-17T20"),
        ("-05:00", "-18000", "hour:2026-03-17T07"),
        ("+00:00", "0", "hour:2026-03-17T12"),
        ("-00:30", "-1800", "hour:2026-03-17T12"),
        ("+05:45", "20700", "hour:2026-03-17T18"),
        ("+14:00", "50400", "hour:2026-03-18T02"),
        ("-14:00", "-50400", "hour:2026-03-16T22"),
    ] {
        c.configure(&offset(text)).run(&mut con).unwrap();
        assert_eq!(
            hget(&mut con, "{c:off}:campaign", "offset").as_deref(),
            Some(seconds),
            "{text}"
        );
        // The stored offset is the one votes use: 12:30Z at that offset.
        let ballots = c.at(T0).vote("u", &[("B", "x")]).run(&mut con).unwrap();
        assert_eq!(ballots[0].shown[0].period, hour, "{text}");
    }
    c.configure(&offset("+08:00")).run(&mut con).unwrap();
    for bad in [
        "+8:00",
        "08:00",
        "+08:60",
        "+15:00",
        "-15:00",
        "+99:00",
        "+0800",
        "+08",
        "UTC",
        "+08:00:00",
        "",
        "++8:00",
        " +08:00",
        "+08:00 ",
        "+0a:00",
    ] {
        refused_unchanged(&mut con, bad, Code::InvalidConfig, |con| {
            c.configure(&offset(bad)).run(con)
        });
    }
    assert_eq!(
        hget(&mut con, "{c:off}:campaign", "offset").as_deref(),
        Some("28800")
    );
}

/// "within 14 hours": +14:30 or -14:59 are more than 14 hours from UTC.
#[test]
fn configure_refuses_offsets_beyond_fourteen_hours() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(&mut con, "off14", boards([("B", BoardSettings::default())]));
    for bad in ["+14:01", "+14:30", "-14:59"] {
        refused_unchanged(&mut con, bad, Code::InvalidConfig, |con| {
            c.configure(&CampaignSettings {
                offset: Some(bad.to_string()),
                ..Default::default()
            })
            .run(con)
        });
    }
}

#[test]
fn start_and_end_bound_the_votes() {
    let server = common::server();
    let mut con = common::con(&server);
    let (start, end) = (T0, T0 + DAY);
    let c = setup(
        &mut con,
        "window",
        CampaignSettings {
            start: Some(start),
            end: Some(end),
            ..boards([("B", board(&[Period::Total], options([("x", 1)])))])
        },
    );
    let vote = |con: &mut Connection, t: u64| c.at(t).vote("u", &[("B", "x")]).run(con);
    for t in [0, start - 1] {
        refused_unchanged(&mut con, "before start", Code::CampaignClosed, |con| {
            vote(con, t)
        });
    }
    assert_eq!(
        vote(&mut con, start).unwrap()[0].shown,
        vec![ps("total", "1.00")]
    );
    assert_eq!(
        vote(&mut con, end - 1).unwrap()[0].shown,
        vec![ps("total", "2.00")]
    );
    for t in [end, end + 1, end + 1000 * DAY] {
        refused_unchanged(&mut con, "from end on", Code::CampaignClosed, |con| {
            vote(con, t)
        });
    }
    // The window must not be empty, whichever side changes.
    for (s, e) in [
        (None, Some(start)),
        (None, Some(start - 1)),
        (Some(end), None),
        (Some(end + 5), None),
    ] {
        refused_unchanged(&mut con, "empty window", Code::InvalidConfig, |con| {
            c.configure(&CampaignSettings {
                start: s,
                end: e,
                ..Default::default()
            })
            .run(con)
        });
    }
    // Moving the end opens the campaign again.
    c.configure(&CampaignSettings {
        end: Some(end + DAY),
        ..Default::default()
    })
    .run(&mut con)
    .unwrap();
    assert_eq!(
        vote(&mut con, end).unwrap()[0].shown,
        vec![ps("total", "3.00")]
    );
}

// ---- vote ------------------------------------------------------------------

#[test]
fn vote_adds_one_real_and_the_weight_shown_in_every_period() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "v",
        boards([(
            "B",
            board(
                &[Period::Hour, Period::Day, Period::Total],
                options([("x", 3), ("y", 1)]),
            ),
        )]),
    );
    let ballots = c.at(T0).vote("u1", &[("B", "x")]).run(&mut con).unwrap();
    assert_eq!(
        ballots,
        vec![Ballot {
            board: "B".to_string(),
            option: "x".to_string(),
            shown: vec![
                ps("hour:2026-03-17T12", "3.00"),
                ps("day:2026-03-17", "3.00"),
                ps("total", "3.00"),
            ],
        }]
    );
    let ballots = c.at(T0).vote("u2", &[("B", "x")]).run(&mut con).unwrap();
    assert_eq!(
        shown_scores(&ballots[0]),
        [
            ("hour:2026-03-17T12".to_string(), "6.00".to_string()),
            ("day:2026-03-17".to_string(), "6.00".to_string()),
            ("total".to_string(), "6.00".to_string()),
        ]
    );
    for p in ["hour:2026-03-17T12", "day:2026-03-17", "total"] {
        let real = format!("{{c:v}}:b:B:real:{p}");
        let shown = format!("{{c:v}}:b:B:shown:{p}");
        assert_eq!(zscore(&mut con, &real, "x").as_deref(), Some("2"), "{p}");
        assert_eq!(zscore(&mut con, &shown, "x").as_deref(), Some("6"), "{p}");
        assert_eq!(zscore(&mut con, &shown, "y"), None, "{p}");
    }
    // Exactly these period boards; no "first" side keys on a competition
    // board.
    let mut boards_written = BTreeSet::new();
    for p in ["hour:2026-03-17T12", "day:2026-03-17", "total"] {
        boards_written.insert(format!("{{c:v}}:b:B:real:{p}"));
        boards_written.insert(format!("{{c:v}}:b:B:shown:{p}"));
    }
    assert_eq!(keys(&mut con, "{c:v}:b:*"), boards_written);
    assert_eq!(keys(&mut con, "{c:v}:f:*"), BTreeSet::new());

    // The next hour has its own hour board; day and total add up.
    let ballots = c
        .at(T0 + HOUR)
        .vote("u1", &[("B", "y")])
        .run(&mut con)
        .unwrap();
    assert_eq!(
        ballots[0].shown,
        vec![
            ps("hour:2026-03-17T13", "1.00"),
            ps("day:2026-03-17", "1.00"),
            ps("total", "1.00"),
        ]
    );
    assert_eq!(
        page(&mut con, &c, "B", Kind::Real, "total", 1, 10),
        vec![e("x", "2", 1), e("y", "1", 2)]
    );
    assert_eq!(
        page(&mut con, &c, "B", Kind::Shown, "hour:2026-03-17T12", 1, 10),
        vec![e("x", "6.00", 1)]
    );

    // Without an explicit time the server's clock picks the periods.
    let before = common::server_time(&mut con) as u64;
    let ballots = c.vote("u3", &[("B", "y")]).run(&mut con).unwrap();
    let after = common::server_time(&mut con) as u64;
    let hour = &ballots[0].shown[0].period;
    assert!(
        *hour == hour_name(before) || *hour == hour_name(after),
        "{hour} is not the server's hour"
    );
    assert_eq!(ballots[0].shown[0].score, "1.00");
}

#[test]
fn batch_vote_over_several_boards_counts_duplicate_pairs_twice() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "batch",
        boards([
            ("A", board(&[Period::Total], options([("x", 1), ("y", 4)]))),
            (
                "C",
                board(&[Period::Day, Period::Total], options([("z", 2)])),
            ),
        ]),
    );
    let ballots = c
        .at(T0)
        .vote("u1", &[("A", "x"), ("A", "y"), ("C", "z"), ("A", "x")])
        .run(&mut con)
        .unwrap();
    let row = |b: &str, o: &str, s: &[(&str, &str)]| Ballot {
        board: b.to_string(),
        option: o.to_string(),
        shown: s.iter().map(|(p, v)| ps(p, v)).collect(),
    };
    // Both x pairs report x's score after the whole call.
    assert_eq!(
        ballots,
        vec![
            row("A", "x", &[("total", "2.00")]),
            row("A", "y", &[("total", "4.00")]),
            row("C", "z", &[("day:2026-03-17", "2.00"), ("total", "2.00")]),
            row("A", "x", &[("total", "2.00")]),
        ]
    );
    assert_eq!(
        page(&mut con, &c, "A", Kind::Real, "total", 1, 10),
        vec![e("x", "2", 1), e("y", "1", 2)]
    );
    assert_eq!(
        page(&mut con, &c, "A", Kind::Shown, "total", 1, 10),
        vec![e("y", "4.00", 1), e("x", "2.00", 2)]
    );
    assert_eq!(
        page(&mut con, &c, "C", Kind::Real, "day:2026-03-17", 1, 10),
        vec![e("z", "1", 1)]
    );
    // One user, counted once however many pairs.
    assert_eq!(
        c.participants("A", &["x", "y"]).run(&mut con).unwrap(),
        Participants {
            campaign: 1,
            options: vec![("x".to_string(), 1), ("y".to_string(), 1)],
        }
    );
}

#[test]
fn batch_vote_is_all_or_nothing() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "aon",
        boards([
            ("A", board(&[Period::Total], options([("x", 1), ("y", 1)]))),
            (
                "C",
                board(&[Period::Day, Period::Total], options([("z", 1)])),
            ),
        ]),
    );
    c.at(T0)
        .vote("u0", &[("A", "x"), ("C", "z")])
        .run(&mut con)
        .unwrap();
    let at = c.at(T0);
    let cases: Vec<(&str, Code, Pairs)> = vec![
        (
            "unknown board",
            Code::UnknownBoard,
            vec![("A", "x"), ("C", "z"), ("nope", "x")],
        ),
        (
            "unknown option",
            Code::UnknownOption,
            vec![("A", "x"), ("A", "nope")],
        ),
        (
            "option of another board",
            Code::UnknownOption,
            vec![("A", "x"), ("C", "x")],
        ),
        (
            "key-like option",
            Code::InvalidName,
            vec![("A", "x"), ("A", "a:b")],
        ),
        (
            "key-like board",
            Code::InvalidName,
            vec![("A", "x"), ("{A}", "x")],
        ),
        (
            "empty board",
            Code::InvalidName,
            vec![("A", "y"), ("", "x")],
        ),
        ("spaced option", Code::InvalidName, vec![("A", "a b")]),
    ];
    for (what, code, pairs) in cases {
        refused_unchanged(&mut con, what, code, |con| at.vote("u1", &pairs).run(con));
    }
    let many = [("A", "x"); 51];
    refused_unchanged(&mut con, "51 pairs", Code::Usage, |con| {
        at.vote("u1", &many).run(con)
    });
    refused_unchanged(&mut con, "no pairs", Code::Usage, |con| {
        at.vote("u1", &[]).run(con)
    });
    refused_unchanged(&mut con, "empty user", Code::InvalidUser, |con| {
        at.vote("", &[("A", "x")]).run(con)
    });
    refused_unchanged(&mut con, "long user", Code::InvalidUser, |con| {
        at.vote(&"u".repeat(257), &[("A", "x")]).run(con)
    });
    refused_unchanged(&mut con, "control user", Code::InvalidUser, |con| {
        at.vote("a\nb", &[("A", "x")]).run(con)
    });
    refused_unchanged(&mut con, "unknown campaign", Code::UnknownCampaign, |con| {
        Campaign::new("nope")
            .at(T0)
            .vote("u1", &[("A", "x")])
            .run(con)
    });
    assert_eq!(
        page(&mut con, &c, "A", Kind::Real, "total", 1, 10),
        vec![e("x", "1", 1)]
    );

    // 50 pairs is the limit, and they all count.
    let fifty = [("A", "x"); 50];
    let ballots = at.vote("u1", &fifty).run(&mut con).unwrap();
    assert_eq!(ballots.len(), 50);
    assert_eq!(
        page(&mut con, &c, "A", Kind::Real, "total", 1, 10),
        vec![e("x", "51", 1)]
    );
}

// ---- exact decimals and the exact range ------------------------------------

#[test]
fn carry_of_a_tenth_adds_up_to_exact_decimals() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "prec",
        boards([
            (
                "B",
                BoardSettings {
                    carry: Some("0.1".to_string()),
                    ..board(&[Period::Day], options([("x", 1)]))
                },
            ),
            (
                "Z",
                BoardSettings {
                    carry: Some("0.1".to_string()),
                    decimals: Some(0),
                    ..board(&[Period::Day], options([("x", 1), ("v", 4), ("w", 5)]))
                },
            ),
        ]),
    );
    for u in ["u1", "u2", "u3"] {
        c.at(T0).vote(u, &[("B", "x")]).run(&mut con).unwrap();
    }
    assert_eq!(
        page(&mut con, &c, "B", Kind::Shown, "day:2026-03-18", 1, 10),
        vec![e("x", "0.30", 1)]
    );
    // Stored as the double nearest 0.3, not 0.1 + 0.1 + 0.1.
    let raw = zscore(&mut con, "{c:prec}:b:B:shown:day:2026-03-18", "x").unwrap();
    assert_eq!(raw.parse::<f64>().unwrap(), 0.3, "{raw}");
    for i in 0..7 {
        c.at(T0)
            .vote(&format!("w{i}"), &[("B", "x")])
            .run(&mut con)
            .unwrap();
    }
    let raw = zscore(&mut con, "{c:prec}:b:B:shown:day:2026-03-18", "x").unwrap();
    assert_eq!(raw.parse::<f64>().unwrap(), 1.0, "{raw}");
    assert_eq!(
        page(&mut con, &c, "B", Kind::Shown, "day:2026-03-18", 1, 10),
        vec![e("x", "1.00", 1)]
    );
    assert_eq!(
        page(&mut con, &c, "B", Kind::Shown, "day:2026-03-17", 1, 10),
        vec![e("x", "10.00", 1)]
    );

    // decimals 0: 1 x 0.1 rounds to 0 (nothing written), 4 x 0.1 too,
    // 5 x 0.1 = 0.5 rounds half up to 1.
    c.at(T0)
        .vote("u1", &[("Z", "x"), ("Z", "v")])
        .run(&mut con)
        .unwrap();
    assert!(!exists(&mut con, "{c:prec}:b:Z:shown:day:2026-03-18"));
    c.at(T0).vote("u1", &[("Z", "w")]).run(&mut con).unwrap();
    let pages = c
        .top(&["Z"], Kind::Shown, "day:2026-03-18", 1, 10)
        .run(&mut con)
        .unwrap();
    assert_eq!(
        (pages[0].size, pages[0].entries.clone()),
        (1, vec![e("w", "1", 1)])
    );
    assert_eq!(
        page(&mut con, &c, "Z", Kind::Shown, "day:2026-03-17", 1, 10),
        vec![e("w", "5", 1), e("v", "4", 2), e("x", "1", 3)]
    );
}

/// The exact range: a score is kept in units of 10^-decimals, and a zset
/// score is a double. At 0 decimals every integer below 2^53 is exact; with
/// decimals a fraction only survives the round trip (decimal -> double ->
/// decimal) below 2^51 units, so that is where writes must stop: at 2
/// decimals 22517998136852.47 is the last exact score, and
/// 90071992547409.91 (2^53 - 1 cents) cannot be held (its double is
/// ...409.90625, the same as 90071992547409.90's).
#[test]
fn writes_beyond_the_exact_range_are_refused() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "range",
        boards([
            ("B", board(&[Period::Total], options([("x", 1), ("y", 1)]))),
            (
                "D",
                BoardSettings {
                    decimals: Some(0),
                    ..board(&[Period::Total], options([("x", 1)]))
                },
            ),
        ]),
    );
    // 2^51 - 1 cents: the last exact score at 2 decimals.
    assert_eq!(
        c.at(T0)
            .import("B", &[("x", "22517998136852.47")])
            .run(&mut con)
            .unwrap(),
        Imported {
            changed: 1,
            unchanged: 0
        }
    );
    assert_eq!(
        page(&mut con, &c, "B", Kind::Shown, "total", 1, 10),
        vec![e("x", "22517998136852.47", 1)]
    );
    refused_unchanged(&mut con, "vote past the range", Code::OutOfRange, |con| {
        c.at(T0).vote("u", &[("B", "x")]).run(con)
    });
    // A batch with one pair out of range writes none of the others.
    refused_unchanged(&mut con, "batch past the range", Code::OutOfRange, |con| {
        c.at(T0).vote("u", &[("B", "y"), ("B", "x")]).run(con)
    });
    // 2^51 cents is already out, and so is 2^53 - 1 cents.
    for amount in [
        "22517998136852.48",
        "90071992547409.91",
        "90071992547409.92",
    ] {
        refused_unchanged(&mut con, amount, Code::OutOfRange, |con| {
            c.at(T0).import("B", &[("y", amount)]).run(con)
        });
    }

    // At 0 decimals the last exact integer is 2^53 - 1.
    c.at(T0)
        .import("D", &[("x", "9007199254740990")])
        .run(&mut con)
        .unwrap();
    let ballots = c.at(T0).vote("u", &[("D", "x")]).run(&mut con).unwrap();
    assert_eq!(ballots[0].shown, vec![ps("total", "9007199254740991")]);
    refused_unchanged(&mut con, "vote to 2^53", Code::OutOfRange, |con| {
        c.at(T0).vote("u", &[("D", "x")]).run(con)
    });
    assert_eq!(
        page(&mut con, &c, "D", Kind::Shown, "total", 1, 10),
        vec![e("x", "9007199254740991", 1)]
    );
    assert_eq!(
        page(&mut con, &c, "D", Kind::Real, "total", 1, 10),
        vec![e("x", "1", 1)]
    );
}

/// Just below the exact range every cent survives: two options one cent
/// apart read back as imported, and a vote reads a score back exactly
/// before adding to it.
#[test]
fn scores_below_the_limit_keep_every_cent() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "cents",
        boards([(
            "B",
            board(&[Period::Total], options([("x", 1), ("y", 1), ("w", 1)])),
        )]),
    );
    c.at(T0)
        .import(
            "B",
            &[
                ("x", "22517998136852.46"),
                ("y", "22517998136852.47"),
                ("w", "22517998136851.45"),
            ],
        )
        .run(&mut con)
        .unwrap();
    let ballots = c.at(T0).vote("u", &[("B", "w")]).run(&mut con).unwrap();
    assert_eq!(ballots[0].shown, vec![ps("total", "22517998136852.45")]);
    assert_eq!(
        page(&mut con, &c, "B", Kind::Shown, "total", 1, 10),
        vec![
            e("y", "22517998136852.47", 1),
            e("x", "22517998136852.46", 2),
            e("w", "22517998136852.45", 3),
        ]
    );
}

// ---- import ----------------------------------------------------------------

#[test]
fn import_is_idempotent_and_adds_only_the_difference() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "imp",
        boards([(
            "B",
            board(
                &[Period::Hour, Period::Day, Period::Total],
                options([("x", 2), ("y", 1), ("z", 1)]),
            ),
        )]),
    );
    let at = c.at(T0);
    let current = ["hour:2026-03-17T12", "day:2026-03-17", "total"];
    assert_eq!(
        at.import("B", &[("x", "10.50"), ("y", "3")])
            .run(&mut con)
            .unwrap(),
        Imported {
            changed: 2,
            unchanged: 0
        }
    );
    let once = common::digest(&mut con);
    assert_eq!(
        at.import("B", &[("x", "10.50"), ("y", "3")])
            .run(&mut con)
            .unwrap(),
        Imported {
            changed: 0,
            unchanged: 2
        }
    );
    assert_eq!(common::digest(&mut con), once, "a second import wrote");
    // "10.5" is the same amount as "10.50".
    assert_eq!(
        at.import("B", &[("x", "10.5")]).run(&mut con).unwrap(),
        Imported {
            changed: 0,
            unchanged: 1
        }
    );
    assert_eq!(common::digest(&mut con), once);
    for p in current {
        assert_eq!(
            page(&mut con, &c, "B", Kind::Shown, p, 1, 10),
            vec![e("x", "10.50", 1), e("y", "3.00", 2)],
            "{p}"
        );
    }
    // Never on real boards.
    assert_eq!(keys(&mut con, "{c:imp}:b:B:real:*"), BTreeSet::new());
    assert_eq!(
        hgetall(&mut con, "{c:imp}:initial:B"),
        map([("x", "10.50"), ("y", "3.00")])
    );

    // A new amount adds the difference; an unchanged one and a zero one
    // for an option never imported are unchanged.
    assert_eq!(
        at.import("B", &[("x", "12"), ("y", "3.00"), ("z", "0")])
            .run(&mut con)
            .unwrap(),
        Imported {
            changed: 1,
            unchanged: 2
        }
    );
    for p in current {
        assert_eq!(
            page(&mut con, &c, "B", Kind::Shown, p, 1, 10),
            vec![e("x", "12.00", 1), e("y", "3.00", 2)],
            "{p}"
        );
    }
    // Votes add on top of imported votes; a lower import takes back only
    // what was imported.
    at.vote("u1", &[("B", "x")]).run(&mut con).unwrap();
    assert_eq!(
        page(&mut con, &c, "B", Kind::Shown, "total", 1, 1),
        vec![e("x", "14.00", 1)]
    );
    at.import("B", &[("x", "5")]).run(&mut con).unwrap();
    assert_eq!(
        page(&mut con, &c, "B", Kind::Shown, "total", 1, 1),
        vec![e("x", "7.00", 1)]
    );
    assert_eq!(
        page(&mut con, &c, "B", Kind::Real, "total", 1, 10),
        vec![e("x", "1", 1)]
    );
    // A day later the difference goes to that day's board and the total.
    c.at(T0 + DAY)
        .import("B", &[("x", "6.25")])
        .run(&mut con)
        .unwrap();
    assert_eq!(
        page(&mut con, &c, "B", Kind::Shown, "day:2026-03-18", 1, 10),
        vec![e("x", "1.25", 1)]
    );
    assert_eq!(
        page(&mut con, &c, "B", Kind::Shown, "day:2026-03-17", 1, 1),
        vec![e("x", "7.00", 1)]
    );
    assert_eq!(
        page(&mut con, &c, "B", Kind::Shown, "total", 1, 1),
        vec![e("x", "8.25", 1)]
    );
}

#[test]
fn import_refuses_bad_amounts_and_unknown_options() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "impbad",
        boards([
            ("B", board(&[Period::Total], options([("x", 1), ("y", 1)]))),
            (
                "D",
                BoardSettings {
                    decimals: Some(0),
                    ..board(&[Period::Total], options([("x", 1)]))
                },
            ),
        ]),
    );
    let at = c.at(T0);
    at.import("B", &[("x", "1")]).run(&mut con).unwrap();
    for bad in [
        "1.234", "-1", "abc", "1.", ".5", "1e3", "", " 1", "1,5", "+1", "0x10",
    ] {
        refused_unchanged(&mut con, bad, Code::InvalidNumber, |con| {
            at.import("B", &[("y", "2"), ("x", bad)]).run(con)
        });
    }
    refused_unchanged(&mut con, "decimals 0", Code::InvalidNumber, |con| {
        at.import("D", &[("x", "1.5")]).run(con)
    });
    refused_unchanged(&mut con, "unknown option", Code::UnknownOption, |con| {
        at.import("B", &[("y", "2"), ("nope", "1")]).run(con)
    });
    refused_unchanged(&mut con, "unknown board", Code::UnknownBoard, |con| {
        at.import("nope", &[("x", "1")]).run(con)
    });
    refused_unchanged(&mut con, "key-like option", Code::InvalidName, |con| {
        at.import("B", &[("a*", "1")]).run(con)
    });
    refused_unchanged(&mut con, "twice in a call", Code::Usage, |con| {
        at.import("B", &[("x", "2"), ("x", "3")]).run(con)
    });
    refused_unchanged(&mut con, "no pairs", Code::Usage, |con| {
        at.import("B", &[]).run(con)
    });
    refused_unchanged(&mut con, "unknown campaign", Code::UnknownCampaign, |con| {
        Campaign::new("nope")
            .at(T0)
            .import("B", &[("x", "1")])
            .run(con)
    });
    assert_eq!(
        page(&mut con, &c, "B", Kind::Shown, "total", 1, 10),
        vec![e("x", "1.00", 1)]
    );
}

// ---- top -------------------------------------------------------------------

#[test]
fn top_pages_several_boards_real_and_shown() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "top",
        boards([
            (
                "A",
                board(
                    &[Period::Day, Period::Total],
                    options([("p", 1), ("q", 5), ("r", 2), ("s", 1), ("t", 1)]),
                ),
            ),
            ("C", board(&[Period::Total], options([("c1", 1)]))),
        ]),
    );
    let at = c.at(T0);
    let mut n = 0;
    for (option, votes) in [("p", 3), ("q", 1), ("r", 2), ("s", 4), ("t", 1)] {
        for _ in 0..votes {
            n += 1;
            at.vote(&format!("u{n}"), &[("A", option)])
                .run(&mut con)
                .unwrap();
        }
    }
    at.vote("u1", &[("C", "c1")]).run(&mut con).unwrap();

    // Shown: q 5, s 4, r 4, p 3, t 1 (ties: member descending, shared rank).
    let pages = at
        .top(&["A", "C"], Kind::Shown, "total", 1, 2)
        .run(&mut con)
        .unwrap();
    let got: Vec<(String, String, u64, Vec<Entry>)> = pages
        .into_iter()
        .map(|p| (p.board, p.period, p.size, p.entries))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                "A".to_string(),
                "total".to_string(),
                5,
                vec![e("q", "5.00", 1), e("s", "4.00", 2)]
            ),
            (
                "C".to_string(),
                "total".to_string(),
                1,
                vec![e("c1", "1.00", 1)]
            ),
        ]
    );
    let pages = at
        .top(&["A", "C"], Kind::Shown, "total", 2, 2)
        .run(&mut con)
        .unwrap();
    assert_eq!(pages[0].entries, vec![e("r", "4.00", 2), e("p", "3.00", 4)]);
    assert_eq!((pages[1].size, pages[1].entries.clone()), (1, vec![]));
    assert_eq!(
        page(&mut con, &c, "A", Kind::Shown, "total", 3, 2),
        vec![e("t", "1.00", 5)]
    );
    assert_eq!(page(&mut con, &c, "A", Kind::Shown, "total", 4, 2), vec![]);

    // Real: s 4, p 3, r 2, t 1, q 1; a page starting inside a tie keeps
    // the shared rank.
    assert_eq!(
        page(&mut con, &c, "A", Kind::Real, "total", 1, 10),
        vec![
            e("s", "4", 1),
            e("p", "3", 2),
            e("r", "2", 3),
            e("t", "1", 4),
            e("q", "1", 4),
        ]
    );
    assert_eq!(
        page(&mut con, &c, "A", Kind::Real, "total", 3, 2),
        vec![e("q", "1", 4)]
    );

    // The current day by selector or by name; another day is empty.
    let by_selector = at
        .top(&["A"], Kind::Shown, "day", 1, 10)
        .run(&mut con)
        .unwrap();
    let by_name = c
        .top(&["A"], Kind::Shown, "day:2026-03-17", 1, 10)
        .run(&mut con)
        .unwrap();
    assert_eq!(by_selector, by_name);
    assert_eq!(by_name[0].period, "day:2026-03-17");
    assert_eq!(by_name[0].size, 5);
    let other = c
        .top(&["A"], Kind::Shown, "day:2026-03-16", 1, 10)
        .run(&mut con)
        .unwrap();
    assert_eq!((other[0].size, other[0].entries.clone()), (0, vec![]));
    c.at(T0 + DAY)
        .vote("u1", &[("A", "t")])
        .run(&mut con)
        .unwrap();
    let next = c
        .at(T0 + DAY)
        .top(&["A"], Kind::Shown, "day", 1, 10)
        .run(&mut con)
        .unwrap();
    assert_eq!(next[0].period, "day:2026-03-18");
    assert_eq!(next[0].entries, vec![e("t", "1.00", 1)]);
    assert_eq!(
        page(&mut con, &c, "A", Kind::Shown, "total", 3, 2),
        vec![e("t", "2.00", 5)]
    );

    // Periods the boards do not keep, malformed names, bad pages.
    let before = common::digest(&mut con);
    for (boards, period) in [
        (&["A", "C"][..], "day"),
        (&["C"][..], "hour"),
        (&["A"][..], "week"),
        (&["A"][..], "month:2026-03"),
        (&["A"][..], "day:2026-3-17"),
        (&["A"][..], "day:2026-02-30"),
        (&["A"][..], "hour:2026-03-17T24"),
        (&["A"][..], "Day"),
        (&["A"][..], ""),
        (&["A"][..], "year"),
    ] {
        match at.top(boards, Kind::Shown, period, 1, 10).run(&mut con) {
            Err(Error::Script { code, .. }) => assert_eq!(code, Code::InvalidPeriod, "{period:?}"),
            other => panic!("{period:?}: expected INVALID_PERIOD, got {other:?}"),
        }
    }
    refused(
        at.top(&["A", "nope"], Kind::Shown, "total", 1, 10)
            .run(&mut con),
        Code::UnknownBoard,
    );
    refused(
        at.top(&["{A}"], Kind::Shown, "total", 1, 10).run(&mut con),
        Code::InvalidName,
    );
    for (p, per) in [(0, 10), (1, 0), (1, 101), (1_000_001, 1)] {
        refused(
            at.top(&["A"], Kind::Shown, "total", p, per).run(&mut con),
            Code::InvalidNumber,
        );
    }
    let many = ["A"; 21];
    refused(
        at.top(&many, Kind::Shown, "total", 1, 10).run(&mut con),
        Code::Usage,
    );
    refused(
        Campaign::new("nope")
            .top(&["A"], Kind::Shown, "total", 1, 10)
            .run(&mut con),
        Code::UnknownCampaign,
    );
    assert_eq!(common::digest(&mut con), before);
    assert_eq!(
        at.top(&["A"; 20], Kind::Shown, "total", 1, 1)
            .run(&mut con)
            .unwrap()
            .len(),
        20
    );
}

// ---- ties ------------------------------------------------------------------

const TIE_BOARDS: [&str; 4] = ["tn", "tc", "td", "tf"];

fn vote_all(con: &mut Connection, c: &Campaign, user: &str, member: &str) {
    let pairs: Vec<(&str, &str)> = TIE_BOARDS.iter().map(|b| (*b, member)).collect();
    c.at(T0).vote(user, &pairs).run(con).unwrap();
}

fn tops(con: &mut Connection, c: &Campaign) -> Vec<Vec<Entry>> {
    TIE_BOARDS
        .iter()
        .map(|b| page(con, c, b, Kind::Shown, "total", 1, 10))
        .collect()
}

fn standings(con: &mut Connection, c: &Campaign, board: &str) -> Vec<Standing> {
    c.at(T0)
        .standing(board, Kind::Shown, "total", &["a", "p", "q", "z"])
        .run(con)
        .unwrap()
}

#[test]
fn the_four_tie_rules_through_top_standing_and_around() {
    let server = common::server();
    let mut con = common::con(&server);
    let members = options([("a", 1), ("p", 1), ("q", 1), ("z", 1)]);
    let tie = |ties: Ties| BoardSettings {
        ties: Some(ties),
        ..board(&[Period::Total], members.clone())
    };
    let c = setup(
        &mut con,
        "ties",
        boards([
            ("tn", tie(Ties::Name)),
            ("tc", tie(Ties::Competition)),
            ("td", tie(Ties::Dense)),
            ("tf", tie(Ties::First)),
        ]),
    );
    // a 5, z 1, then p reaches 3 before q does.
    let mut n = 0;
    for (member, votes) in [("a", 5), ("z", 1), ("p", 3), ("q", 3)] {
        for _ in 0..votes {
            n += 1;
            vote_all(&mut con, &c, &format!("u{n}"), member);
        }
    }
    assert_eq!(
        tops(&mut con, &c),
        vec![
            // name: Redis' order, q before p (member descending), 1..4
            vec![
                e("a", "5.00", 1),
                e("q", "3.00", 2),
                e("p", "3.00", 3),
                e("z", "1.00", 4)
            ],
            vec![
                e("a", "5.00", 1),
                e("q", "3.00", 2),
                e("p", "3.00", 2),
                e("z", "1.00", 4)
            ],
            vec![
                e("a", "5.00", 1),
                e("q", "3.00", 2),
                e("p", "3.00", 2),
                e("z", "1.00", 3)
            ],
            // first: p reached 3 first
            vec![
                e("a", "5.00", 1),
                e("p", "3.00", 2),
                e("q", "3.00", 3),
                e("z", "1.00", 4)
            ],
        ]
    );
    // Pages that start inside a tie group keep each rule's ranks.
    assert_eq!(
        page(&mut con, &c, "tc", Kind::Shown, "total", 2, 2),
        vec![e("p", "3.00", 2), e("z", "1.00", 4)]
    );
    assert_eq!(
        page(&mut con, &c, "td", Kind::Shown, "total", 2, 2),
        vec![e("p", "3.00", 2), e("z", "1.00", 3)]
    );
    assert_eq!(
        page(&mut con, &c, "tf", Kind::Shown, "total", 2, 1),
        vec![e("p", "3.00", 2)]
    );
    assert_eq!(
        page(&mut con, &c, "tf", Kind::Shown, "total", 3, 1),
        vec![e("q", "3.00", 3)]
    );
    assert_eq!(
        page(&mut con, &c, "tn", Kind::Shown, "total", 3, 1),
        vec![e("p", "3.00", 3)]
    );

    let s = |m: &str, rank: u64, score: &str, ahead: Option<&str>, gap: Option<&str>| {
        standing(m, Some(rank), Some(score), ahead, gap, None, None)
    };
    assert_eq!(
        standings(&mut con, &c, "tn"),
        vec![
            s("a", 1, "5.00", None, None),
            s("p", 3, "3.00", Some("q"), Some("0.00")),
            s("q", 2, "3.00", Some("a"), Some("2.00")),
            s("z", 4, "1.00", Some("p"), Some("2.00")),
        ]
    );
    assert_eq!(
        standings(&mut con, &c, "tc"),
        vec![
            s("a", 1, "5.00", None, None),
            s("p", 2, "3.00", Some("q"), Some("0.00")),
            s("q", 2, "3.00", Some("a"), Some("2.00")),
            s("z", 4, "1.00", Some("p"), Some("2.00")),
        ]
    );
    assert_eq!(
        standings(&mut con, &c, "td"),
        vec![
            s("a", 1, "5.00", None, None),
            s("p", 2, "3.00", Some("q"), Some("0.00")),
            s("q", 2, "3.00", Some("a"), Some("2.00")),
            s("z", 3, "1.00", Some("p"), Some("2.00")),
        ]
    );
    assert_eq!(
        standings(&mut con, &c, "tf"),
        vec![
            s("a", 1, "5.00", None, None),
            s("p", 2, "3.00", Some("a"), Some("2.00")),
            s("q", 3, "3.00", Some("p"), Some("0.00")),
            s("z", 4, "1.00", Some("q"), Some("2.00")),
        ]
    );

    let around = |con: &mut Connection, board: &str, member: &str, k: u32| {
        c.at(T0)
            .around(board, Kind::Shown, "total", member, k, 2)
            .run(con)
            .unwrap()
    };
    let ar = |rank: u64, pct: &str, page: u64, window: Vec<Entry>| Around {
        size: 4,
        pages: 2,
        rank: Some(rank),
        percentile: Some(pct.to_string()),
        page: Some(page),
        window,
    };
    assert_eq!(
        around(&mut con, "tf", "q", 3),
        ar(
            3,
            "25.00",
            2,
            vec![e("p", "3.00", 2), e("q", "3.00", 3), e("z", "1.00", 4)]
        )
    );
    assert_eq!(
        around(&mut con, "tc", "q", 3),
        ar(
            2,
            "25.00",
            1,
            vec![e("a", "5.00", 1), e("q", "3.00", 2), e("p", "3.00", 2)]
        )
    );
    assert_eq!(
        around(&mut con, "tc", "p", 3),
        ar(
            2,
            "25.00",
            2,
            vec![e("q", "3.00", 2), e("p", "3.00", 2), e("z", "1.00", 4)]
        )
    );
    assert_eq!(
        around(&mut con, "td", "z", 3),
        ar(
            3,
            "0.00",
            2,
            vec![e("q", "3.00", 2), e("p", "3.00", 2), e("z", "1.00", 3)]
        )
    );
    assert_eq!(
        around(&mut con, "tn", "a", 3),
        ar(
            1,
            "75.00",
            1,
            vec![e("a", "5.00", 1), e("q", "3.00", 2), e("p", "3.00", 3)]
        )
    );

    // q gets +1 before p does: q reached 4 first.
    vote_all(&mut con, &c, "v1", "q");
    vote_all(&mut con, &c, "v2", "p");
    assert_eq!(
        tops(&mut con, &c),
        vec![
            vec![
                e("a", "5.00", 1),
                e("q", "4.00", 2),
                e("p", "4.00", 3),
                e("z", "1.00", 4)
            ],
            vec![
                e("a", "5.00", 1),
                e("q", "4.00", 2),
                e("p", "4.00", 2),
                e("z", "1.00", 4)
            ],
            vec![
                e("a", "5.00", 1),
                e("q", "4.00", 2),
                e("p", "4.00", 2),
                e("z", "1.00", 3)
            ],
            vec![
                e("a", "5.00", 1),
                e("q", "4.00", 2),
                e("p", "4.00", 3),
                e("z", "1.00", 4)
            ],
        ]
    );
    assert_eq!(
        standings(&mut con, &c, "tf")[1],
        s("p", 3, "4.00", Some("q"), Some("0.00"))
    );

    // p reaches 5, where a has been all along: a stays ahead under "first",
    // p leads under "name" (p > a).
    vote_all(&mut con, &c, "v3", "p");
    assert_eq!(
        tops(&mut con, &c),
        vec![
            vec![
                e("p", "5.00", 1),
                e("a", "5.00", 2),
                e("q", "4.00", 3),
                e("z", "1.00", 4)
            ],
            vec![
                e("p", "5.00", 1),
                e("a", "5.00", 1),
                e("q", "4.00", 3),
                e("z", "1.00", 4)
            ],
            vec![
                e("p", "5.00", 1),
                e("a", "5.00", 1),
                e("q", "4.00", 2),
                e("z", "1.00", 3)
            ],
            vec![
                e("a", "5.00", 1),
                e("p", "5.00", 2),
                e("q", "4.00", 3),
                e("z", "1.00", 4)
            ],
        ]
    );
    assert_eq!(
        standings(&mut con, &c, "tf"),
        vec![
            s("a", 1, "5.00", None, None),
            s("p", 2, "5.00", Some("a"), Some("0.00")),
            s("q", 3, "4.00", Some("p"), Some("1.00")),
            s("z", 4, "1.00", Some("q"), Some("3.00")),
        ]
    );
    assert_eq!(
        around(&mut con, "tf", "p", 3).window,
        vec![e("a", "5.00", 1), e("p", "5.00", 2), e("q", "4.00", 3)]
    );
    assert_eq!(
        around(&mut con, "tf", "a", 1).window,
        vec![e("a", "5.00", 1)]
    );
    // The real boards keep their own "first" order, same votes, same order.
    assert_eq!(
        page(&mut con, &c, "tf", Kind::Real, "total", 1, 10),
        vec![
            e("a", "5", 1),
            e("p", "5", 2),
            e("q", "4", 3),
            e("z", "1", 4)
        ]
    );

    // q joins at 5 last: a, p, q; then a moves on to 6 and p, q keep
    // their order at 5.
    vote_all(&mut con, &c, "v4", "q");
    assert_eq!(
        page(&mut con, &c, "tf", Kind::Shown, "total", 1, 10),
        vec![
            e("a", "5.00", 1),
            e("p", "5.00", 2),
            e("q", "5.00", 3),
            e("z", "1.00", 4)
        ]
    );
    vote_all(&mut con, &c, "v5", "a");
    assert_eq!(
        page(&mut con, &c, "tf", Kind::Shown, "total", 1, 10),
        vec![
            e("a", "6.00", 1),
            e("p", "5.00", 2),
            e("q", "5.00", 3),
            e("z", "1.00", 4)
        ]
    );
    assert_eq!(
        page(&mut con, &c, "td", Kind::Shown, "total", 1, 10),
        vec![
            e("a", "6.00", 1),
            e("q", "5.00", 2),
            e("p", "5.00", 2),
            e("z", "1.00", 3)
        ]
    );
}

// ---- standing --------------------------------------------------------------

#[test]
fn standing_reports_rank_gap_and_the_previous_period() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "st",
        boards([(
            "B",
            board(
                &[Period::Hour, Period::Total],
                options([("x", 1), ("y", 1), ("z", 1), ("w", 1)]),
            ),
        )]),
    );
    // Hour 12: x 3, y 1. Hour 13: y 2, z 1.
    for u in ["u1", "u2", "u3"] {
        c.at(T0).vote(u, &[("B", "x")]).run(&mut con).unwrap();
    }
    c.at(T0).vote("u4", &[("B", "y")]).run(&mut con).unwrap();
    let h1 = c.at(T0 + HOUR);
    h1.vote("u1", &[("B", "y")]).run(&mut con).unwrap();
    h1.vote("u2", &[("B", "y")]).run(&mut con).unwrap();
    h1.vote("u3", &[("B", "z")]).run(&mut con).unwrap();

    let want = vec![
        standing(
            "y",
            Some(1),
            Some("2.00"),
            None,
            None,
            Some(2),
            Some("1.00"),
        ),
        standing(
            "z",
            Some(2),
            Some("1.00"),
            Some("y"),
            Some("1.00"),
            None,
            None,
        ),
        standing("x", None, None, None, None, Some(1), Some("3.00")),
        standing("w", None, None, None, None, None, None),
    ];
    let members = ["y", "z", "x", "w"];
    assert_eq!(
        h1.standing("B", Kind::Shown, "hour", &members)
            .run(&mut con)
            .unwrap(),
        want
    );
    // The same by name, whatever the clock says.
    assert_eq!(
        c.at(T0 + 5 * DAY)
            .standing("B", Kind::Shown, "hour:2026-03-17T13", &members)
            .run(&mut con)
            .unwrap(),
        want
    );
    // Hour 12 itself: its previous hour is empty.
    assert_eq!(
        c.standing("B", Kind::Shown, "hour:2026-03-17T12", &["x", "y"])
            .run(&mut con)
            .unwrap(),
        vec![
            standing("x", Some(1), Some("3.00"), None, None, None, None),
            standing(
                "y",
                Some(2),
                Some("1.00"),
                Some("x"),
                Some("2.00"),
                None,
                None
            ),
        ]
    );
    // Real counts, without decimals.
    assert_eq!(
        h1.standing("B", Kind::Real, "hour", &["y", "z"])
            .run(&mut con)
            .unwrap(),
        vec![
            standing("y", Some(1), Some("2"), None, None, Some(2), Some("1")),
            standing("z", Some(2), Some("1"), Some("y"), Some("1"), None, None),
        ]
    );
    // Total: x 3, y 3 tied (y first in Redis' order), z 1; no previous.
    assert_eq!(
        h1.standing("B", Kind::Shown, "total", &["x", "y", "z"])
            .run(&mut con)
            .unwrap(),
        vec![
            standing(
                "x",
                Some(1),
                Some("3.00"),
                Some("y"),
                Some("0.00"),
                None,
                None
            ),
            standing("y", Some(1), Some("3.00"), None, None, None, None),
            standing(
                "z",
                Some(3),
                Some("1.00"),
                Some("x"),
                Some("2.00"),
                None,
                None
            ),
        ]
    );
    let before = common::digest(&mut con);
    refused(
        h1.standing("B", Kind::Shown, "day", &["x"]).run(&mut con),
        Code::InvalidPeriod,
    );
    refused(
        h1.standing("B", Kind::Shown, "hour", &["a b"])
            .run(&mut con),
        Code::InvalidName,
    );
    refused(
        h1.standing("B", Kind::Shown, "hour", &[]).run(&mut con),
        Code::Usage,
    );
    refused(
        h1.standing("B", Kind::Shown, "hour", &["x"; 101])
            .run(&mut con),
        Code::Usage,
    );
    refused(
        h1.standing("nope", Kind::Shown, "hour", &["x"])
            .run(&mut con),
        Code::UnknownBoard,
    );
    assert_eq!(common::digest(&mut con), before);
    assert_eq!(
        h1.standing("B", Kind::Shown, "hour", &["x"; 100])
            .run(&mut con)
            .unwrap()
            .len(),
        100
    );
}

// ---- around ----------------------------------------------------------------

#[test]
fn around_centres_the_window_and_fills_it_at_the_edges() {
    let server = common::server();
    let mut con = common::con(&server);
    let names: Vec<String> = (1..=11).map(|i| format!("m{i:02}")).collect();
    let opts: BTreeMap<String, OptionSettings> = names
        .iter()
        .map(|n| (n.clone(), OptionSettings::default()))
        .collect();
    let c = setup(
        &mut con,
        "ar",
        boards([("B", board(&[Period::Total], opts))]),
    );
    // m01 10, m02 9, ..., m10 1; m11 has none.
    let amounts: Vec<(String, String)> = (0..10)
        .map(|i| (names[i].clone(), (10 - i).to_string()))
        .collect();
    let pairs: Vec<(&str, &str)> = amounts
        .iter()
        .map(|(o, a)| (o.as_str(), a.as_str()))
        .collect();
    c.at(T0).import("B", &pairs).run(&mut con).unwrap();
    let entry = |rank: usize| e(&names[rank - 1], &format!("{}.00", 11 - rank), rank as u64);
    let ranks = |from: usize, to: usize| (from..=to).map(entry).collect::<Vec<_>>();
    let around = |con: &mut Connection, member: &str, k: u32, per_page: u32| {
        c.at(T0)
            .around("B", Kind::Shown, "total", member, k, per_page)
            .run(con)
            .unwrap()
    };
    let ar = |rank: u64, pct: &str, page: u64, window: Vec<Entry>| Around {
        size: 10,
        pages: 4,
        rank: Some(rank),
        percentile: Some(pct.to_string()),
        page: Some(page),
        window,
    };
    // Centred: rank 5 sees 3..7, 5 scores below it out of 10.
    assert_eq!(
        around(&mut con, "m05", 5, 3),
        ar(5, "50.00", 2, ranks(3, 7))
    );
    // At the top the window fills downwards, at the bottom upwards.
    assert_eq!(
        around(&mut con, "m01", 5, 3),
        ar(1, "90.00", 1, ranks(1, 5))
    );
    assert_eq!(
        around(&mut con, "m02", 5, 3),
        ar(2, "80.00", 1, ranks(1, 5))
    );
    assert_eq!(
        around(&mut con, "m09", 5, 3),
        ar(9, "10.00", 3, ranks(6, 10))
    );
    assert_eq!(
        around(&mut con, "m10", 5, 3),
        ar(10, "0.00", 4, ranks(6, 10))
    );
    // An even window leans down; one bigger than the board is the board.
    assert_eq!(around(&mut con, "m05", 4, 3).window, ranks(4, 7));
    assert_eq!(around(&mut con, "m05", 101, 3).window, ranks(1, 10));
    assert_eq!(around(&mut con, "m05", 1, 3).window, ranks(5, 5));
    // Pages follow per_page.
    let one = around(&mut con, "m07", 3, 1);
    assert_eq!((one.pages, one.page), (10, Some(7)));
    let all = around(&mut con, "m07", 3, 100);
    assert_eq!((all.pages, all.page), (1, Some(1)));
    assert_eq!(all.percentile.as_deref(), Some("30.00"));
    // Absent: no rank, percentile, page or window; the board's size still.
    assert_eq!(
        around(&mut con, "m11", 5, 3),
        Around {
            size: 10,
            pages: 4,
            rank: None,
            percentile: None,
            page: None,
            window: vec![],
        }
    );
    // An empty period board.
    c.configure(&boards([("E", board(&[Period::Day], options([("x", 1)])))]))
        .run(&mut con)
        .unwrap();
    assert_eq!(
        c.at(T0)
            .around("E", Kind::Shown, "day", "x", 5, 3)
            .run(&mut con)
            .unwrap(),
        Around {
            size: 0,
            pages: 0,
            rank: None,
            percentile: None,
            page: None,
            window: vec![],
        }
    );
    // A tie: below counts strictly lower scores only.
    c.at(T0).import("B", &[("m11", "6")]).run(&mut con).unwrap();
    let tied = around(&mut con, "m05", 3, 3);
    assert_eq!(
        (tied.size, tied.rank, tied.percentile.as_deref()),
        (11, Some(5), Some("45.45"))
    );
    let before = common::digest(&mut con);
    for (k, per) in [(0, 3), (102, 3), (5, 0), (5, 101)] {
        refused(
            c.at(T0)
                .around("B", Kind::Shown, "total", "m05", k, per)
                .run(&mut con),
            Code::InvalidNumber,
        );
    }
    refused(
        c.at(T0)
            .around("B", Kind::Shown, "total", "", 5, 3)
            .run(&mut con),
        Code::InvalidName,
    );
    refused(
        c.at(T0)
            .around("B", Kind::Shown, "day", "m05", 5, 3)
            .run(&mut con),
        Code::InvalidPeriod,
    );
    assert_eq!(common::digest(&mut con), before);
}

// ---- participants ----------------------------------------------------------

#[test]
fn participants_count_each_user_once() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "pp",
        boards([
            (
                "B",
                board(&[Period::Total], options([("x", 1), ("y", 1), ("z", 1)])),
            ),
            ("C", board(&[Period::Total], options([("w", 1)]))),
        ]),
    );
    let at = c.at(T0);
    at.vote("u1", &[("B", "x")]).run(&mut con).unwrap();
    at.vote("u1", &[("B", "x")]).run(&mut con).unwrap();
    at.vote("u2", &[("B", "x")]).run(&mut con).unwrap();
    at.vote("u3", &[("B", "y")]).run(&mut con).unwrap();
    at.vote("u1", &[("C", "w")]).run(&mut con).unwrap();
    assert_eq!(
        c.participants("B", &["x", "y", "z"]).run(&mut con).unwrap(),
        Participants {
            campaign: 3,
            options: vec![
                ("x".to_string(), 2),
                ("y".to_string(), 1),
                ("z".to_string(), 0)
            ],
        }
    );
    assert_eq!(
        c.participants("B", &[]).run(&mut con).unwrap(),
        Participants {
            campaign: 3,
            options: vec![],
        }
    );
    assert_eq!(
        c.participants("C", &["w"]).run(&mut con).unwrap(),
        Participants {
            campaign: 3,
            options: vec![("w".to_string(), 1)],
        }
    );
    refused(
        c.participants("B", &["w"]).run(&mut con),
        Code::UnknownOption,
    );
    refused(
        c.participants("nope", &[]).run(&mut con),
        Code::UnknownBoard,
    );
    refused(
        c.participants("B", &["a,b"]).run(&mut con),
        Code::InvalidName,
    );
    refused(
        Campaign::new("nope").participants("B", &[]).run(&mut con),
        Code::UnknownCampaign,
    );
}

/// A refused participants call leaves the data set as it was, even when a
/// vote has just changed the HyperLogLogs (whose cached count PFCOUNT
/// rewrites).
#[test]
fn participants_refusals_change_nothing() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "ppbad",
        boards([("B", board(&[Period::Total], options([("x", 1)])))]),
    );
    c.at(T0).vote("u1", &[("B", "x")]).run(&mut con).unwrap();
    refused_unchanged(&mut con, "unknown option", Code::UnknownOption, |con| {
        c.participants("B", &["x", "nope"]).run(con)
    });
    c.at(T0).vote("u2", &[("B", "x")]).run(&mut con).unwrap();
    refused_unchanged(&mut con, "key-like option", Code::InvalidName, |con| {
        c.participants("B", &["x", "a,b"]).run(con)
    });
}

// ---- option removal --------------------------------------------------------

#[test]
fn removing_an_option_deletes_it_everywhere() {
    let server = common::server();
    let mut con = common::con(&server);
    let ns = "{c:rm}:";
    let c = setup(
        &mut con,
        "rm",
        boards([(
            "R",
            BoardSettings {
                ties: Some(Ties::First),
                carry: Some("0.5".to_string()),
                options: [
                    (
                        "x".to_string(),
                        OptionSettings {
                            weight: Some(2),
                            data: Some(map([("name", "X")])),
                        },
                    ),
                    (
                        "y".to_string(),
                        OptionSettings {
                            weight: Some(1),
                            data: Some(map([("name", "Y")])),
                        },
                    ),
                ]
                .into(),
                ..board(&[Period::Hour, Period::Day, Period::Total], BTreeMap::new())
            },
        )]),
    );
    let at = c.at(T0);
    at.import("R", &[("x", "4"), ("y", "1")])
        .run(&mut con)
        .unwrap();
    at.vote("u1", &[("R", "x"), ("R", "y")])
        .run(&mut con)
        .unwrap();
    at.vote("u2", &[("R", "x")]).run(&mut con).unwrap();
    // Every period board, real and shown, with the carry's next periods.
    let periods = ["hour:2026-03-17T12", "day:2026-03-17", "total"];
    let next = ["hour:2026-03-17T13", "day:2026-03-18"];
    let mut board_keys = BTreeSet::new();
    for side in ["b", "f"] {
        for p in periods {
            board_keys.insert(format!("{ns}{side}:R:real:{p}"));
            board_keys.insert(format!("{ns}{side}:R:shown:{p}"));
        }
        for p in next {
            board_keys.insert(format!("{ns}{side}:R:shown:{p}"));
        }
    }
    let mut written = keys(&mut con, &format!("{ns}b:R:*"));
    written.extend(keys(&mut con, &format!("{ns}f:R:*")));
    assert_eq!(written, board_keys);
    for key in &board_keys {
        assert!(zscore(&mut con, key, "x").is_some(), "{key}");
    }
    assert_eq!(
        page(&mut con, &c, "R", Kind::Shown, "hour:2026-03-17T13", 1, 10),
        vec![e("x", "2.00", 1), e("y", "0.50", 2)]
    );

    assert_eq!(
        c.configure(&boards([(
            "R",
            BoardSettings {
                remove: vec!["x".to_string()],
                ..Default::default()
            },
        )]))
        .run(&mut con)
        .unwrap(),
        Configured {
            boards: 1,
            options: 0
        }
    );
    // Gone from every board (y stays on each), side keys included.
    for key in &board_keys {
        assert_eq!(zscore(&mut con, key, "x"), None, "{key}");
        assert!(zscore(&mut con, key, "y").is_some(), "{key}");
    }
    assert!(!exists(&mut con, &format!("{ns}option:R:x")));
    assert!(!exists(&mut con, &format!("{ns}hll:R:x")));
    assert_eq!(
        hgetall(&mut con, &format!("{ns}weights:R")),
        map([("y", "1")])
    );
    assert_eq!(
        hgetall(&mut con, &format!("{ns}initial:R")),
        map([("y", "1.00")])
    );
    assert_eq!(
        hgetall(&mut con, &format!("{ns}option:R:y")),
        map([("name", "Y")])
    );
    assert!(exists(&mut con, &format!("{ns}hll:R:y")));
    assert_eq!(
        page(&mut con, &c, "R", Kind::Shown, "total", 1, 10),
        vec![e("y", "2.00", 1)]
    );

    // x is unknown now, and removing it again is refused.
    refused_unchanged(&mut con, "vote removed", Code::UnknownOption, |con| {
        at.vote("u3", &[("R", "x")]).run(con)
    });
    refused(
        c.participants("R", &["x"]).run(&mut con),
        Code::UnknownOption,
    );
    for option in ["x", "nope"] {
        refused_unchanged(&mut con, option, Code::UnknownOption, |con| {
            c.configure(&boards([(
                "R",
                BoardSettings {
                    remove: vec![option.to_string()],
                    ..Default::default()
                },
            )]))
            .run(con)
        });
    }
    // Configured and removed at once is refused.
    refused_unchanged(&mut con, "both", Code::InvalidConfig, |con| {
        c.configure(&boards([(
            "R",
            BoardSettings {
                options: options([("y", 1)]),
                remove: vec!["y".to_string()],
                ..Default::default()
            },
        )]))
        .run(con)
    });

    // Added again, x starts from nothing: weight 1, no score, no import.
    c.configure(&boards([(
        "R",
        BoardSettings {
            options: [("x".to_string(), OptionSettings::default())].into(),
            ..Default::default()
        },
    )]))
    .run(&mut con)
    .unwrap();
    let ballots = at.vote("u9", &[("R", "x")]).run(&mut con).unwrap();
    assert_eq!(
        ballots[0].shown,
        vec![
            ps("hour:2026-03-17T12", "1.00"),
            ps("day:2026-03-17", "1.00"),
            ps("total", "1.00"),
        ]
    );
    assert_eq!(
        c.participants("R", &["x"]).run(&mut con).unwrap().options,
        vec![("x".to_string(), 1)]
    );
}

/// An import writes period boards too: removal must reach them even when
/// no vote ever wrote that period.
#[test]
fn removing_an_option_reaches_boards_written_only_by_import() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "rmi",
        boards([(
            "R",
            board(
                &[Period::Hour, Period::Total],
                options([("x", 1), ("y", 1)]),
            ),
        )]),
    );
    c.at(T0)
        .import("R", &[("x", "5"), ("y", "2")])
        .run(&mut con)
        .unwrap();
    c.configure(&boards([(
        "R",
        BoardSettings {
            remove: vec!["x".to_string()],
            ..Default::default()
        },
    )]))
    .run(&mut con)
    .unwrap();
    for p in ["total", "hour:2026-03-17T12"] {
        assert_eq!(
            zscore(&mut con, &format!("{{c:rmi}}:b:R:shown:{p}"), "x"),
            None,
            "{p}"
        );
        assert_eq!(
            page(&mut con, &c, "R", Kind::Shown, p, 1, 10),
            vec![e("y", "2.00", 1)],
            "{p}"
        );
    }
}

// ---- retention -------------------------------------------------------------

#[test]
fn retention_sets_expireat_on_period_boards_and_side_keys() {
    let server = common::server();
    let mut con = common::con(&server);
    let ns = "{c:ret}:";
    let c = setup(
        &mut con,
        "ret",
        boards([
            (
                "K",
                BoardSettings {
                    ties: Some(Ties::First),
                    carry: Some("0.5".to_string()),
                    retention: [(Period::Hour, 3600)].into(),
                    ..board(
                        &[Period::Hour, Period::Day, Period::Total],
                        options([("x", 1)]),
                    )
                },
            ),
            ("N", board(&[Period::Hour], options([("x", 1)]))),
        ]),
    );
    // The server's own clock: an expiry in the past would delete the keys.
    let now = common::server_time(&mut con) as u64;
    let end = now - now % HOUR + HOUR;
    c.at(now)
        .vote("u", &[("K", "x"), ("N", "x")])
        .run(&mut con)
        .unwrap();
    let (hour, next_hour, day) = (hour_name(now), hour_name(end), day_name(now));
    let next_day = day_name(now - now % DAY + DAY);
    for side in ["b", "f"] {
        for kind in ["real", "shown"] {
            let key = format!("{ns}{side}:K:{kind}:{hour}");
            assert_eq!(expiretime(&mut con, &key), (end + 3600) as i64, "{key}");
            for p in [day.as_str(), "total"] {
                let key = format!("{ns}{side}:K:{kind}:{p}");
                assert_eq!(expiretime(&mut con, &key), -1, "{key}");
            }
        }
        // The carried share lives as long as the period it was carried to.
        let key = format!("{ns}{side}:K:shown:{next_hour}");
        assert_eq!(
            expiretime(&mut con, &key),
            (end + HOUR + 3600) as i64,
            "{key}"
        );
        let key = format!("{ns}{side}:K:shown:{next_day}");
        assert_eq!(expiretime(&mut con, &key), -1, "{key}");
    }
    for kind in ["real", "shown"] {
        let key = format!("{ns}b:N:{kind}:{hour}");
        assert_eq!(expiretime(&mut con, &key), -1, "{key}");
    }
    assert_eq!(keys(&mut con, &format!("{ns}f:N:*")), BTreeSet::new());
}

/// Retention is per period board, whoever writes it: an import into the
/// current hour creates the hour board, which must expire like a voted one.
#[test]
fn retention_applies_to_boards_written_by_import() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "reti",
        boards([(
            "K",
            BoardSettings {
                retention: [(Period::Hour, 3600)].into(),
                ..board(&[Period::Hour, Period::Total], options([("x", 1)]))
            },
        )]),
    );
    let now = common::server_time(&mut con) as u64;
    let end = now - now % HOUR + HOUR;
    c.at(now).import("K", &[("x", "1")]).run(&mut con).unwrap();
    let key = format!("{{c:reti}}:b:K:shown:{}", hour_name(now));
    assert_eq!(expiretime(&mut con, &key), (end + 3600) as i64, "{key}");
    assert_eq!(expiretime(&mut con, "{c:reti}:b:K:shown:total"), -1);
}

// ---- concurrency -----------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_tasks_on_one_connection_count_every_vote() {
    const TASKS: usize = 50;
    const VOTES: usize = 20;
    let server = common::server();
    let mut con = common::con_async(&server).await;
    let c = Campaign::new("busy");
    c.configure(&boards([(
        "B",
        board(
            &[Period::Hour, Period::Day, Period::Total],
            options([("o0", 3), ("o1", 3), ("o2", 3), ("o3", 3)]),
        ),
    )]))
    .run_async(&mut con)
    .await
    .unwrap();
    let at = c.at(T0);
    let imported = [("o0", "100"), ("o1", "0.50"), ("o2", "7")];
    at.import("B", &imported).run_async(&mut con).await.unwrap();

    let tasks: Vec<_> = (0..TASKS)
        .map(|i| {
            let mut con = con.clone();
            let at = at.clone();
            tokio::spawn(async move {
                let mut seen = Vec::new();
                for j in 0..VOTES {
                    let option = format!("o{}", (i + j) % 4);
                    let ballots = at
                        .vote(&format!("user:{i}"), &[("B", option.as_str())])
                        .run_async(&mut con)
                        .await
                        .unwrap();
                    let total = ballots[0].shown.last().unwrap().clone();
                    assert_eq!(total.period, "total");
                    seen.push((option, total.score));
                }
                seen
            })
        })
        .collect();
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for task in futures::future::join_all(tasks).await {
        for (option, score) in task.unwrap() {
            let fresh = seen.entry(option).or_default().insert(score);
            assert!(fresh, "two votes saw the same total");
        }
    }
    // 50 x 20 votes, 5 per task per option: 250 each.
    let per_option = (TASKS * VOTES / 4) as u64;
    let base = |o: &str| -> u64 {
        imported
            .iter()
            .find(|(n, _)| *n == o)
            .map(|(_, a)| (a.parse::<f64>().unwrap() * 100.0).round() as u64)
            .unwrap_or(0)
    };
    for o in ["o0", "o1", "o2", "o3"] {
        // Every vote saw its own total: import + 3k for k = 1..=250.
        let want: BTreeSet<String> = (1..=per_option)
            .map(|k| {
                let cents = base(o) + 300 * k;
                format!("{}.{:02}", cents / 100, cents % 100)
            })
            .collect();
        assert_eq!(seen[o], want, "{o}");
    }
    for period in ["hour", "day", "total"] {
        let pages = at
            .top(&["B"], Kind::Real, period, 1, 10)
            .run_async(&mut con)
            .await
            .unwrap();
        let real: BTreeMap<String, String> = pages[0]
            .entries
            .iter()
            .map(|e| (e.member.clone(), e.score.clone()))
            .collect();
        assert_eq!(
            real,
            map([("o0", "250"), ("o1", "250"), ("o2", "250"), ("o3", "250")]),
            "{period}"
        );
        let pages = at
            .top(&["B"], Kind::Shown, period, 1, 10)
            .run_async(&mut con)
            .await
            .unwrap();
        assert_eq!(
            pages[0].entries,
            vec![
                e("o0", "850.00", 1),
                e("o2", "757.00", 2),
                e("o1", "750.50", 3),
                e("o3", "750.00", 4),
            ],
            "{period}"
        );
    }
}

// ---- bad input -------------------------------------------------------------

/// A campaign with a board, options, display data, votes and an import.
fn populated(con: &mut Connection) -> Campaign {
    let c = setup(
        con,
        "bad",
        CampaignSettings {
            offset: Some("+08:00".to_string()),
            ..boards([(
                "B",
                BoardSettings {
                    carry: Some("0.1".to_string()),
                    options: [
                        (
                            "x".to_string(),
                            OptionSettings {
                                weight: Some(2),
                                data: Some(map([("name", "X")])),
                            },
                        ),
                        ("y".to_string(), OptionSettings::default()),
                    ]
                    .into(),
                    ..board(&[Period::Hour, Period::Day, Period::Total], BTreeMap::new())
                },
            )])
        },
    );
    c.at(T0).import("B", &[("x", "3")]).run(con).unwrap();
    c.at(T0)
        .vote("u1", &[("B", "x"), ("B", "y")])
        .run(con)
        .unwrap();
    c
}

#[test]
fn configure_refuses_bad_documents_and_changes_nothing() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = populated(&mut con);
    let root = c.root_key().to_string();
    let b = |spec: &str| format!(r#"{{"boards":{{"B":{spec}}}}}"#);
    let opt = |spec: &str| b(&format!(r#"{{"options":{{"x":{spec}}}}}"#));
    let long_value = format!(r#"{{"data":{{"k":"{}"}}}}"#, "v".repeat(2049));
    let long_key = format!(r#"{{"data":{{"{}":"v"}}}}"#, "k".repeat(65));
    let mut cases: Vec<(String, Code)> = vec![
        // weights
        (opt(r#"{"weight":0}"#), Code::InvalidConfig),
        (opt(r#"{"weight":-3}"#), Code::InvalidConfig),
        (opt(r#"{"weight":"abc"}"#), Code::InvalidConfig),
        (opt(r#"{"weight":1.5}"#), Code::InvalidConfig),
        (opt(r#"{"weight":true}"#), Code::InvalidConfig),
        (opt(r#"{"weight":{}}"#), Code::InvalidConfig),
        (opt(r#"{"weight":1000001}"#), Code::InvalidConfig),
        // display data
        (opt(r#"{"data":"x"}"#), Code::InvalidConfig),
        (opt(r#"{"data":{"k":{}}}"#), Code::InvalidConfig),
        (opt(r#"{"data":{"k":true}}"#), Code::InvalidConfig),
        (opt(r#"{"data":{"":"v"}}"#), Code::InvalidConfig),
        (opt(&long_value), Code::InvalidConfig),
        (opt(&long_key), Code::InvalidConfig),
        (opt("5"), Code::InvalidConfig),
        (b(r#"{"options":"x"}"#), Code::InvalidConfig),
        // carry
        (b(r#"{"carry":"1.5"}"#), Code::InvalidConfig),
        (b(r#"{"carry":"-0.1"}"#), Code::InvalidConfig),
        (b(r#"{"carry":"0.1234567"}"#), Code::InvalidConfig),
        (b(r#"{"carry":"abc"}"#), Code::InvalidConfig),
        (b(r#"{"carry":"1.1"}"#), Code::InvalidConfig),
        (b(r#"{"carry":".5"}"#), Code::InvalidConfig),
        (b(r#"{"carry":"0."}"#), Code::InvalidConfig),
        (b(r#"{"carry":"1e-1"}"#), Code::InvalidConfig),
        (b(r#"{"carry":2}"#), Code::InvalidConfig),
        // periods, ties, decimals, retention
        (b(r#"{"periods":["day","year"]}"#), Code::InvalidConfig),
        (b(r#"{"periods":["Day"]}"#), Code::InvalidConfig),
        (b(r#"{"periods":[]}"#), Code::InvalidConfig),
        (b(r#"{"periods":"day"}"#), Code::InvalidConfig),
        (b(r#"{"periods":[1]}"#), Code::InvalidConfig),
        (b(r#"{"ties":"random"}"#), Code::InvalidConfig),
        (b(r#"{"ties":"First"}"#), Code::InvalidConfig),
        (b(r#"{"ties":1}"#), Code::InvalidConfig),
        (b(r#"{"decimals":7}"#), Code::InvalidConfig),
        (b(r#"{"decimals":-1}"#), Code::InvalidConfig),
        (b(r#"{"decimals":1.5}"#), Code::InvalidConfig),
        (b(r#"{"decimals":"abc"}"#), Code::InvalidConfig),
        (b(r#"{"retention":{"total":10}}"#), Code::InvalidConfig),
        (b(r#"{"retention":{"hour":-1}}"#), Code::InvalidConfig),
        (b(r#"{"retention":{"hour":"abc"}}"#), Code::InvalidConfig),
        (
            b(r#"{"retention":{"hour":315360001}}"#),
            Code::InvalidConfig,
        ),
        (b(r#"{"retention":5}"#), Code::InvalidConfig),
        // removal
        (b(r#"{"remove":"x"}"#), Code::InvalidConfig),
        (b(r#"{"remove":["nope"]}"#), Code::UnknownOption),
        (b(r#"{"remove":["a:b"]}"#), Code::InvalidName),
        (
            b(r#"{"options":{"x":{}},"remove":["x"]}"#),
            Code::InvalidConfig,
        ),
        // campaign settings
        (r#"{"offset":"+8"}"#.to_string(), Code::InvalidConfig),
        (r#"{"offset":8}"#.to_string(), Code::InvalidConfig),
        (r#"{"start":-1}"#.to_string(), Code::InvalidConfig),
        (r#"{"start":"abc"}"#.to_string(), Code::InvalidConfig),
        (r#"{"start":1.5}"#.to_string(), Code::InvalidConfig),
        (r#"{"start":253402300800}"#.to_string(), Code::InvalidConfig),
        (r#"{"start":10,"end":10}"#.to_string(), Code::InvalidConfig),
        (r#"{"boards":"x"}"#.to_string(), Code::InvalidConfig),
        (r#"{"boards":5}"#.to_string(), Code::InvalidConfig),
        (b(r#""x""#), Code::InvalidConfig),
        // one bad board refuses the good settings beside it
        (
            r#"{"offset":"+01:00","boards":{"B":{"ties":"dense"},"C":{"ties":"bogus"}}}"#
                .to_string(),
            Code::InvalidConfig,
        ),
        // not a JSON object
        ("42".to_string(), Code::InvalidConfig),
        (r#""settings""#.to_string(), Code::InvalidConfig),
        ("null".to_string(), Code::InvalidConfig),
        ("true".to_string(), Code::InvalidConfig),
        ("not json".to_string(), Code::InvalidConfig),
        ("".to_string(), Code::InvalidConfig),
        ("{".to_string(), Code::InvalidConfig),
    ];
    // Board and option names that could address other keys.
    for name in [
        String::new(),
        "a:b".to_string(),
        "{a}".to_string(),
        "a b".to_string(),
        "a".repeat(65),
        "a*".to_string(),
        "a?".to_string(),
        "a[".to_string(),
        "a]".to_string(),
        "a\\\\b".to_string(),
        "a,b".to_string(),
        "a\\tb".to_string(),
        "a\\nb".to_string(),
    ] {
        cases.push((
            format!(r#"{{"boards":{{"{name}":{{}}}}}}"#),
            Code::InvalidName,
        ));
        cases.push((
            format!(r#"{{"boards":{{"B":{{"options":{{"{name}":{{}}}}}}}}}}"#),
            Code::InvalidName,
        ));
    }
    for (json, code) in &cases {
        let what = json.chars().take(120).collect::<String>();
        refused_unchanged(&mut con, &what, *code, |con| {
            raw(con, "campaign_configure", &root, &[json])
        });
    }
    // Arity and key.
    refused_unchanged(&mut con, "two documents", Code::Usage, |con| {
        raw(con, "campaign_configure", &root, &["{}", "{}"])
    });
    refused_unchanged(&mut con, "wrong key", Code::Usage, |con| {
        raw(con, "campaign_configure", "{c:bad}:board:B", &["{}"])
    });

    // The typed driver's path to the same refusals.
    let typed = |board: &str, spec: BoardSettings| boards([(board, spec)]);
    let with = |f: fn(&mut BoardSettings)| {
        let mut spec = BoardSettings::default();
        f(&mut spec);
        typed("B", spec)
    };
    let typed_cases: Vec<(&str, CampaignSettings, Code)> = vec![
        (
            "weight 0",
            with(|s| s.options = options([("x", 0)])),
            Code::InvalidConfig,
        ),
        (
            "carry 1.5",
            with(|s| s.carry = Some("1.5".to_string())),
            Code::InvalidConfig,
        ),
        (
            "carry -0.1",
            with(|s| s.carry = Some("-0.1".to_string())),
            Code::InvalidConfig,
        ),
        (
            "carry 0.1234567",
            with(|s| s.carry = Some("0.1234567".to_string())),
            Code::InvalidConfig,
        ),
        (
            "decimals 7",
            with(|s| s.decimals = Some(7)),
            Code::InvalidConfig,
        ),
        (
            "retention total",
            with(|s| s.retention = [(Period::Total, 5)].into()),
            Code::InvalidConfig,
        ),
        (
            "empty periods",
            with(|s| s.periods = Some(vec![])),
            Code::InvalidConfig,
        ),
        (
            "65-byte board",
            typed(&"b".repeat(65), BoardSettings::default()),
            Code::InvalidName,
        ),
        (
            "key-like board",
            typed("a:b", BoardSettings::default()),
            Code::InvalidName,
        ),
        (
            "key-like option",
            with(|s| s.options = options([("{x}", 1)])),
            Code::InvalidName,
        ),
        (
            "65-byte option",
            typed(
                "B",
                BoardSettings {
                    options: options([(&"o".repeat(65), 1)]),
                    ..Default::default()
                },
            ),
            Code::InvalidName,
        ),
    ];
    for (what, settings, code) in typed_cases {
        refused_unchanged(&mut con, what, code, |con| c.configure(&settings).run(con));
    }

    // The edges that are fine: 64-byte names, weight 10^6, carry 0 and 1,
    // decimals 0 and 6.
    let edge = CampaignSettings {
        boards: [
            (
                "b".repeat(64),
                BoardSettings {
                    carry: Some("1".to_string()),
                    decimals: Some(6),
                    options: options([(&"o".repeat(64), 1_000_000)]),
                    ..Default::default()
                },
            ),
            (
                "E".to_string(),
                BoardSettings {
                    carry: Some("0.000001".to_string()),
                    decimals: Some(0),
                    ..Default::default()
                },
            ),
        ]
        .into(),
        ..Default::default()
    };
    assert_eq!(
        c.configure(&edge).run(&mut con).unwrap(),
        Configured {
            boards: 2,
            options: 1
        }
    );
}

/// JSON arrays decode to Lua tables too, but they are not settings.
#[test]
fn configure_refuses_json_arrays() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = populated(&mut con);
    let root = c.root_key().to_string();
    for json in ["[1,2]", r#"[{"offset":"+01:00"}]"#] {
        refused_unchanged(&mut con, json, Code::InvalidConfig, |con| {
            raw(con, "campaign_configure", &root, &[json])
        });
    }
    // Nor may an array create a campaign that does not exist.
    let fresh = Campaign::new("fresh");
    refused_unchanged(
        &mut con,
        "array on a new campaign",
        Code::InvalidConfig,
        |con| raw(con, "campaign_configure", fresh.root_key(), &["[1]"]),
    );
}

#[test]
fn raw_arguments_of_the_other_scripts_are_validated() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = populated(&mut con);
    let root = c.root_key().to_string();
    let t0 = T0.to_string();
    let t0 = t0.as_str();
    let long = "b".repeat(65);
    // vote: the driver's own arguments (user, time, ..., board, option)
    // with the time or the trailing pair replaced.
    let base = c.at(T0).vote("u", &[("B", "x")]).args().to_vec();
    let n = base.len();
    let mut votes: Vec<(Vec<String>, Code)> = Vec::new();
    for time in ["abc", "-5", "1.5", "1e9", "1234567890123"] {
        let mut args = base.clone();
        args[1] = time.to_string();
        votes.push((args, Code::InvalidNumber));
    }
    for (board, option) in [(long.as_str(), "x"), ("B", long.as_str()), ("B", "x\ty")] {
        let mut args = base.clone();
        args[n - 2] = board.to_string();
        args[n - 1] = option.to_string();
        votes.push((args, Code::InvalidName));
    }
    votes.push((base[..n - 1].to_vec(), Code::Usage));
    let mut odd = base.clone();
    odd.push("B".to_string());
    votes.push((odd, Code::Usage));
    for (args, code) in &votes {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let what = format!("campaign_vote {args:?}");
        refused_unchanged(&mut con, &what, *code, |con| {
            raw(con, "campaign_vote", &root, &args)
        });
    }
    let cases: Vec<(&str, Vec<&str>, Code)> = vec![
        // import
        ("campaign_import", vec!["B", t0, "x"], Code::Usage),
        (
            "campaign_import",
            vec!["B", "abc", "x", "1"],
            Code::InvalidNumber,
        ),
        ("campaign_import", vec!["B", t0, "x", "1", "y"], Code::Usage),
        // top: kind, period, page, per_page, time, boards
        (
            "campaign_top",
            vec!["both", "total", "1", "10", t0, "B"],
            Code::InvalidPeriod,
        ),
        (
            "campaign_top",
            vec!["shown", "total", "0", "10", t0, "B"],
            Code::InvalidNumber,
        ),
        (
            "campaign_top",
            vec!["shown", "total", "-1", "10", t0, "B"],
            Code::InvalidNumber,
        ),
        (
            "campaign_top",
            vec!["shown", "total", "abc", "10", t0, "B"],
            Code::InvalidNumber,
        ),
        (
            "campaign_top",
            vec!["shown", "total", "1", "1.5", t0, "B"],
            Code::InvalidNumber,
        ),
        (
            "campaign_top",
            vec!["shown", "total", "1", "10", "x", "B"],
            Code::InvalidNumber,
        ),
        (
            "campaign_top",
            vec!["shown", "total", "1", "10", t0],
            Code::Usage,
        ),
        (
            "campaign_top",
            vec!["shown", "day:2026-3-1", "1", "10", t0, "B"],
            Code::InvalidPeriod,
        ),
        (
            "campaign_top",
            vec!["shown", "week:2026-W54", "1", "10", t0, "B"],
            Code::InvalidPeriod,
        ),
        (
            "campaign_top",
            vec!["shown", "month:2026-13", "1", "10", t0, "B"],
            Code::InvalidPeriod,
        ),
        // standing: board, kind, period, time, members
        (
            "campaign_standing",
            vec!["B", "both", "total", t0, "x"],
            Code::InvalidPeriod,
        ),
        (
            "campaign_standing",
            vec!["B", "shown", "total", "x", "x"],
            Code::InvalidNumber,
        ),
        (
            "campaign_standing",
            vec!["B", "shown", "total", t0, "{x}"],
            Code::InvalidName,
        ),
        // around: board, kind, period, time, member, window, per_page
        (
            "campaign_around",
            vec!["B", "shown", "total", t0, "x", "5"],
            Code::Usage,
        ),
        (
            "campaign_around",
            vec!["B", "shown", "total", t0, "x", "abc", "3"],
            Code::InvalidNumber,
        ),
        (
            "campaign_around",
            vec!["B", "shown", "total", t0, "x", "5", "-3"],
            Code::InvalidNumber,
        ),
        (
            "campaign_around",
            vec!["B", "real", "week", t0, "x", "5", "3"],
            Code::InvalidPeriod,
        ),
        // participants
        ("campaign_participants", vec![], Code::Usage),
    ];
    for (op, args, code) in &cases {
        let what = format!("{op} {args:?}");
        refused_unchanged(&mut con, &what, *code, |con| raw(con, op, &root, args));
    }
    // Every script takes the campaign root as its one key.
    for op in [
        "campaign_vote",
        "campaign_import",
        "campaign_top",
        "campaign_standing",
        "campaign_around",
        "campaign_participants",
    ] {
        refused_unchanged(&mut con, op, Code::Usage, |con| {
            raw(
                con,
                op,
                "{c:bad}:boards",
                &["B", t0, "x", "1", "1", "1", "1"],
            )
        });
    }
}

/// Numbers in the settings document are JSON numbers: a numeric string is a
/// malformed document, refused with nothing written.
#[test]
fn configure_refuses_numbers_given_as_strings() {
    let server = common::server();
    let mut con = common::con(&server);
    let root = Campaign::new("strings").root_key().to_string();
    raw(
        &mut con,
        "campaign_configure",
        &root,
        &[r#"{"boards": {"B": {"options": {"x": {}}}}}"#],
    )
    .unwrap();
    let before = common::digest(&mut con);
    for doc in [
        r#"{"start": "5"}"#,
        r#"{"boards": {"B": {"decimals": "2"}}}"#,
        r#"{"boards": {"B": {"retention": {"hour": "3600"}}}}"#,
        r#"{"boards": {"B": {"options": {"x": {"weight": "2"}}}}}"#,
        r#"{"limits": [{"name": "u", "by": ["user"], "window": "day", "limit": "5"}]}"#,
    ] {
        let err = raw(&mut con, "campaign_configure", &root, &[doc]).unwrap_err();
        assert_eq!(err.code(), Some(Code::InvalidConfig), "{doc}: {err}");
    }
    assert_eq!(common::digest(&mut con), before);
}
