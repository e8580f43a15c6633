//! `configure`: the documented defaults, partial updates that keep every
//! setting not given (board settings, options, weights, display data), the
//! UTC offset's syntax and its 14-hour bound, and start/end bounding the
//! votes.

use redis::Connection;
use redvote::campaign::{Ballot, BoardSettings, Configured, OptionSettings};
use redvote::{Campaign, CampaignSettings, Code, Kind, Period, Ties};

use super::{ps, T0};
use crate::support::{
    self, board, boards, exists, hget, hgetall, keys, map, options, refused, refused_unchanged,
    set, setup, smembers, DAY,
};

#[test]
fn configure_creates_boards_with_the_documented_defaults() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = Campaign::new("spring");
    assert_eq!(c.namespace(), "{c:spring}:");
    assert_eq!(c.root_key(), "{c:spring}:campaign");

    let before = support::server_time(&mut con);
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
    let after = support::server_time(&mut con);
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
            // the side keys of dense / first ranks are complete (no votes yet)
            ("indexed", "1"),
        ])
    );
    assert_eq!(hgetall(&mut con, "{c:spring}:weights:B"), map([("x", "1")]));
    assert_eq!(smembers(&mut con, "{c:spring}:boards"), set(["B"]));
    // The root holds only the data layout (docs/versions.md), the update
    // time and the statistics' retention (-1: a board of its total only is
    // kept): no offset (UTC), no start or end.
    let root = hgetall(&mut con, "{c:spring}:campaign");
    assert_eq!(
        root.keys().collect::<Vec<_>>(),
        ["layout", "stats_keep", "updated"]
    );
    assert_eq!(root["layout"], "3");
    assert_eq!(root["stats_keep"], "-1");
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
            replay: false,
            folded: None,
        }]
    );
    refused(
        c.at(T0)
            .top(
                &["B"],
                &redvote::View::new(Kind::Shown, "day"),
                redvote::Paging::new(1, 10),
            )
            .run(&mut con),
        Code::InvalidPeriod,
    );
}

#[test]
fn configure_updates_keep_unspecified_settings() {
    let server = support::server();
    let mut con = support::con(&server);
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
                ties_pending: None,
                ties_effective: None,
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
        ("indexed", "1"),
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
            ("indexed", "1"),
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
    let server = support::server();
    let mut con = support::con(&server);
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
    let server = support::server();
    let mut con = support::con(&server);
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
    let server = support::server();
    let mut con = support::con(&server);
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
