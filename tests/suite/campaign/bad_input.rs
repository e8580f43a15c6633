//! The campaign's bad-input catalogue: malformed settings documents (raw
//! JSON and through the typed driver), JSON arrays, numbers given as
//! strings, and raw arguments of every other campaign script, each refused
//! with its code and `DEBUG DIGEST` unchanged.

use std::collections::BTreeMap;

use redis::Connection;
use redvote::campaign::{BoardSettings, Configured, OptionSettings};
use redvote::{Campaign, CampaignSettings, Code, Period};

use super::T0;
use crate::support::{self, board, boards, map, options, raw, refused_unchanged, setup};

/// A campaign with a board, options, display data, votes and an import.
fn populated_campaign(con: &mut Connection) -> Campaign {
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
    let server = support::server();
    let mut con = support::con(&server);
    let c = populated_campaign(&mut con);
    let root = c.root_key().to_string();
    let b = |spec: &str| format!(r#"{{"boards":{{"B":{spec}}}}}"#);
    let opt = |spec: &str| b(&format!(r#"{{"options":{{"x":{spec}}}}}"#));
    let long_value = format!(r#"{{"data":{{"k":"{}"}}}}"#, "v".repeat(2049));
    let long_key = format!(r#"{{"data":{{"{}":"v"}}}}"#, "k".repeat(65));
    #[rustfmt::skip]
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
        (b(r#"{"retention":{"hour":315360001}}"#), Code::InvalidConfig),
        (b(r#"{"retention":5}"#), Code::InvalidConfig),
        // removal
        (b(r#"{"remove":"x"}"#), Code::InvalidConfig),
        (b(r#"{"remove":["nope"]}"#), Code::UnknownOption),
        (b(r#"{"remove":["a:b"]}"#), Code::InvalidName),
        (b(r#"{"options":{"x":{}},"remove":["x"]}"#), Code::InvalidConfig),
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
        (r#"{"offset":"+01:00","boards":{"B":{"ties":"dense"},"C":{"ties":"bogus"}}}"#.to_string(), Code::InvalidConfig),
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
    #[rustfmt::skip]
    let typed_cases: Vec<(&str, CampaignSettings, Code)> = vec![
        ("weight 0", with(|s| s.options = options([("x", 0)])), Code::InvalidConfig),
        ("carry 1.5", with(|s| s.carry = Some("1.5".to_string())), Code::InvalidConfig),
        ("carry -0.1", with(|s| s.carry = Some("-0.1".to_string())), Code::InvalidConfig),
        ("carry 0.1234567", with(|s| s.carry = Some("0.1234567".to_string())), Code::InvalidConfig),
        ("decimals 7", with(|s| s.decimals = Some(7)), Code::InvalidConfig),
        ("retention total", with(|s| s.retention = [(Period::Total, 5)].into()), Code::InvalidConfig),
        ("empty periods", with(|s| s.periods = Some(vec![])), Code::InvalidConfig),
        ("65-byte board", typed(&"b".repeat(65), BoardSettings::default()), Code::InvalidName),
        ("key-like board", typed("a:b", BoardSettings::default()), Code::InvalidName),
        ("key-like option", with(|s| s.options = options([("{x}", 1)])), Code::InvalidName),
        ("65-byte option", typed("B", BoardSettings { options: options([(&"o".repeat(65), 1)]), ..Default::default() }), Code::InvalidName),
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
    let server = support::server();
    let mut con = support::con(&server);
    let c = populated_campaign(&mut con);
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
    let server = support::server();
    let mut con = support::con(&server);
    let c = populated_campaign(&mut con);
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
    for id in ["i".repeat(129), "a\nb".to_string(), "\0".to_string()] {
        let mut args = base.clone();
        args[5] = id;
        votes.push((args, Code::InvalidVoteId));
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
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<&str>, Code)> = vec![
        // import
        ("campaign_import", vec!["B", t0, "x"], Code::Usage),
        ("campaign_import", vec!["B", "abc", "x", "1"], Code::InvalidNumber),
        ("campaign_import", vec!["B", t0, "x", "1", "y"], Code::Usage),
        // top: kind, period, page, per_page, time, boards
        ("campaign_top", vec!["both", "total", "1", "10", t0, "B"], Code::InvalidPeriod),
        ("campaign_top", vec!["shown", "total", "0", "10", t0, "B"], Code::InvalidNumber),
        ("campaign_top", vec!["shown", "total", "-1", "10", t0, "B"], Code::InvalidNumber),
        ("campaign_top", vec!["shown", "total", "abc", "10", t0, "B"], Code::InvalidNumber),
        ("campaign_top", vec!["shown", "total", "1", "1.5", t0, "B"], Code::InvalidNumber),
        ("campaign_top", vec!["shown", "total", "1", "10", "x", "B"], Code::InvalidNumber),
        ("campaign_top", vec!["shown", "total", "1", "10", t0], Code::Usage),
        ("campaign_top", vec!["shown", "day:2026-3-1", "1", "10", t0, "B"], Code::InvalidPeriod),
        ("campaign_top", vec!["shown", "week:2026-W54", "1", "10", t0, "B"], Code::InvalidPeriod),
        ("campaign_top", vec!["shown", "month:2026-13", "1", "10", t0, "B"], Code::InvalidPeriod),
        // standing: board, kind, period, time, members
        ("campaign_standing", vec!["B", "both", "total", t0, "x"], Code::InvalidPeriod),
        ("campaign_standing", vec!["B", "shown", "total", "x", "x"], Code::InvalidNumber),
        ("campaign_standing", vec!["B", "shown", "total", t0, "{x}"], Code::InvalidName),
        // around: board, kind, period, time, member, window, per_page
        ("campaign_around", vec!["B", "shown", "total", t0, "x", "5"], Code::Usage),
        ("campaign_around", vec!["B", "shown", "total", t0, "x", "abc", "3"], Code::InvalidNumber),
        ("campaign_around", vec!["B", "shown", "total", t0, "x", "5", "-3"], Code::InvalidNumber),
        ("campaign_around", vec!["B", "real", "week", t0, "x", "5", "3"], Code::InvalidPeriod),
        // participants
        ("campaign_participants", vec![], Code::Usage),
        // reindex: count, then cursors that no call returns (a ZSCAN
        // cursor past 19 digits would be Redis' own error)
        ("campaign_reindex", vec!["B", "0"], Code::Usage),
        ("campaign_reindex", vec!["B", "0", "0"], Code::InvalidNumber),
        ("campaign_reindex", vec!["B", "0", "5001"], Code::InvalidNumber),
        ("campaign_reindex", vec!["B", "1", "10"], Code::Usage),
        ("campaign_reindex", vec!["B", "0|real:total", "10"], Code::Usage),
        ("campaign_reindex", vec!["B", "0|real:total|99999999999999999999999", "10"], Code::Usage),
        ("campaign_reindex", vec!["Z", "0", "10"], Code::UnknownBoard),
        // stats: board, granularity, from, to
        ("campaign_stats", vec!["B", "day", "0"], Code::Usage),
        ("campaign_stats", vec!["B", "week", "0", "1"], Code::InvalidPeriod),
        ("campaign_stats", vec!["B", "hour", "-1", "1"], Code::InvalidNumber),
        ("campaign_stats", vec!["B", "hour", "0", "1e3"], Code::InvalidNumber),
        ("campaign_stats", vec!["B", "hour", "0", "2682000"], Code::InvalidNumber),
        ("campaign_stats", vec!["{B}", "hour", "0", "1"], Code::InvalidName),
        ("campaign_stats", vec!["Z", "hour", "0", "1"], Code::UnknownBoard),
        // void: the vote id
        ("campaign_void", vec![], Code::Usage),
        ("campaign_void", vec!["a", "b"], Code::Usage),
        ("campaign_void", vec!["a\nb"], Code::InvalidVoteId),
        ("campaign_void", vec!["a\x01b"], Code::InvalidVoteId),
        ("campaign_void", vec!["nope"], Code::UnknownVote),
        // void_range: by, value, from, to, cursor, count
        ("campaign_void_range", vec!["user", "u", "0", "1", "0"], Code::Usage),
        ("campaign_void_range", vec!["option", "u", "0", "1", "0", "1"], Code::Usage),
        ("campaign_void_range", vec!["user", "", "0", "1", "0", "1"], Code::InvalidUser),
        ("campaign_void_range", vec!["channel", "a b", "0", "1", "0", "1"], Code::InvalidName),
        ("campaign_void_range", vec!["user", "u", "1", "1", "0", "1"], Code::InvalidNumber),
        ("campaign_void_range", vec!["user", "u", "0", "1", "1", "1"], Code::InvalidNumber),
        ("campaign_void_range", vec!["user", "u", "0", "1", "0", "1001"], Code::InvalidNumber),
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
        "campaign_reindex",
        "campaign_stats",
        "campaign_void",
        "campaign_void_range",
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
    let server = support::server();
    let mut con = support::con(&server);
    let root = Campaign::new("strings").root_key().to_string();
    raw(
        &mut con,
        "campaign_configure",
        &root,
        &[r#"{"boards": {"B": {"options": {"x": {}}}}}"#],
    )
    .unwrap();
    let before = support::digest(&mut con);
    for doc in [
        r#"{"start": "5"}"#,
        r#"{"boards": {"B": {"decimals": "2"}}}"#,
        r#"{"boards": {"B": {"retention": {"hour": "3600"}}}}"#,
        r#"{"boards": {"B": {"options": {"x": {"weight": "2"}}}}}"#,
        r#"{"limits": [{"name": "u", "by": ["user"], "window": "day", "limit": "5"}]}"#,
    ] {
        refused_unchanged(&mut con, doc, Code::InvalidConfig, |con| {
            raw(con, "campaign_configure", &root, &[doc])
        });
    }
    assert_eq!(support::digest(&mut con), before);
}
