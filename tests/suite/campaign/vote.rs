//! `vote`: one real vote and the option's weight shown in every period the
//! board keeps, the server's clock when no time is given, batches over
//! several boards (a repeated pair counts twice), and batches that are all
//! or nothing.

use std::collections::BTreeSet;

use redvote::campaign::{Ballot, Participants};
use redvote::{Campaign, Code, Kind, Period};

use super::{e, hour_name, page, ps, shown_scores, T0};
use crate::support::{
    self, board, boards, discard, keys, options, refused_unchanged, setup, zscore_text,
    CampaignCall, HOUR,
};

#[test]
fn vote_adds_one_real_and_the_weight_shown_in_every_period() {
    let server = support::server();
    let mut con = support::con(&server);
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
            replay: false,
            folded: None,
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
        assert_eq!(
            zscore_text(&mut con, &real, "x").as_deref(),
            Some("2"),
            "{p}"
        );
        assert_eq!(
            zscore_text(&mut con, &shown, "x").as_deref(),
            Some("6"),
            "{p}"
        );
        assert_eq!(zscore_text(&mut con, &shown, "y"), None, "{p}");
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
    let before = support::server_time(&mut con) as u64;
    let ballots = c.vote("u3", &[("B", "y")]).run(&mut con).unwrap();
    let after = support::server_time(&mut con) as u64;
    let hour = &ballots[0].shown[0].period;
    assert!(
        *hour == hour_name(before) || *hour == hour_name(after),
        "{hour} is not the server's hour"
    );
    assert_eq!(ballots[0].shown[0].score, "1.00");
}

#[test]
fn batch_vote_over_several_boards_counts_duplicate_pairs_twice() {
    let server = support::server();
    let mut con = support::con(&server);
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
        replay: false,
        folded: None,
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
    let server = support::server();
    let mut con = support::con(&server);
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
    // (what, code, the refused call on `at`, the campaign at T0)
    #[rustfmt::skip]
    let cases: &[(&str, Code, CampaignCall)] = &[
        ("unknown board", Code::UnknownBoard, |at, c| discard(at.vote("u1", &[("A", "x"), ("C", "z"), ("nope", "x")]).run(c))),
        ("unknown option", Code::UnknownOption, |at, c| discard(at.vote("u1", &[("A", "x"), ("A", "nope")]).run(c))),
        ("option of another board", Code::UnknownOption, |at, c| discard(at.vote("u1", &[("A", "x"), ("C", "x")]).run(c))),
        ("key-like option", Code::InvalidName, |at, c| discard(at.vote("u1", &[("A", "x"), ("A", "a:b")]).run(c))),
        ("key-like board", Code::InvalidName, |at, c| discard(at.vote("u1", &[("A", "x"), ("{A}", "x")]).run(c))),
        ("empty board", Code::InvalidName, |at, c| discard(at.vote("u1", &[("A", "y"), ("", "x")]).run(c))),
        ("spaced option", Code::InvalidName, |at, c| discard(at.vote("u1", &[("A", "a b")]).run(c))),
        ("51 pairs", Code::Usage, |at, c| discard(at.vote("u1", &[("A", "x"); 51]).run(c))),
        ("no pairs", Code::Usage, |at, c| discard(at.vote("u1", &[]).run(c))),
        ("empty user", Code::InvalidUser, |at, c| discard(at.vote("", &[("A", "x")]).run(c))),
        ("long user", Code::InvalidUser, |at, c| discard(at.vote(&"u".repeat(257), &[("A", "x")]).run(c))),
        ("control user", Code::InvalidUser, |at, c| discard(at.vote("a\nb", &[("A", "x")]).run(c))),
        ("unknown campaign", Code::UnknownCampaign, |_, c| discard(Campaign::new("nope").at(T0).vote("u1", &[("A", "x")]).run(c))),
    ];
    for (what, code, call) in cases {
        refused_unchanged(&mut con, what, *code, |con| call(&at, con));
    }
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
