//! Exact decimals and the exact range: a carry of a tenth adds up to exact
//! decimals (rounding half up at 0 decimals), writes beyond the range a zset
//! score holds exactly are refused, and scores just below it keep every
//! cent.

use redvote::campaign::{BoardSettings, Imported};
use redvote::{Code, Kind, Period};

use super::{e, page, ps, T0};
use crate::support::{self, board, boards, exists, options, refused_unchanged, setup, zscore_text};

#[test]
fn carry_of_a_tenth_adds_up_to_exact_decimals() {
    let server = support::server();
    let mut con = support::con(&server);
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
    let raw = zscore_text(&mut con, "{c:prec}:b:B:shown:day:2026-03-18", "x").unwrap();
    assert_eq!(raw.parse::<f64>().unwrap(), 0.3, "{raw}");
    for i in 0..7 {
        c.at(T0)
            .vote(&format!("w{i}"), &[("B", "x")])
            .run(&mut con)
            .unwrap();
    }
    let raw = zscore_text(&mut con, "{c:prec}:b:B:shown:day:2026-03-18", "x").unwrap();
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
        .top(
            &["Z"],
            &redvote::View::new(Kind::Shown, "day:2026-03-18"),
            redvote::Paging::new(1, 10),
        )
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
    let server = support::server();
    let mut con = support::con(&server);
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
            unchanged: 0,
            rest: 0
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
    let server = support::server();
    let mut con = support::con(&server);
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
