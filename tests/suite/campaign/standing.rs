//! `standing`: rank, the option ahead and the gap to it, the previous
//! period's rank and score, real and shown; refusals write nothing.

use redvote::{Code, Kind, Period};

use super::{standing, T0};
use crate::support::{self, board, boards, options, refused, setup, DAY, HOUR};

#[test]
fn standing_reports_rank_gap_and_the_previous_period() {
    let server = support::server();
    let mut con = support::con(&server);
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
        h1.standing("B", &redvote::View::new(Kind::Shown, "hour"), &members)
            .run(&mut con)
            .unwrap(),
        want
    );
    // The same by name, whatever the clock says.
    assert_eq!(
        c.at(T0 + 5 * DAY)
            .standing(
                "B",
                &redvote::View::new(Kind::Shown, "hour:2026-03-17T13"),
                &members
            )
            .run(&mut con)
            .unwrap(),
        want
    );
    // Hour 12 itself: its previous hour is empty.
    assert_eq!(
        c.standing(
            "B",
            &redvote::View::new(Kind::Shown, "hour:2026-03-17T12"),
            &["x", "y"]
        )
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
        h1.standing("B", &redvote::View::new(Kind::Real, "hour"), &["y", "z"])
            .run(&mut con)
            .unwrap(),
        vec![
            standing("y", Some(1), Some("2"), None, None, Some(2), Some("1")),
            standing("z", Some(2), Some("1"), Some("y"), Some("1"), None, None),
        ]
    );
    // Total: x 3, y 3 tied (y first in Redis' order), z 1; no previous.
    assert_eq!(
        h1.standing(
            "B",
            &redvote::View::new(Kind::Shown, "total"),
            &["x", "y", "z"]
        )
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
    let before = support::digest(&mut con);
    refused(
        h1.standing("B", &redvote::View::new(Kind::Shown, "day"), &["x"])
            .run(&mut con),
        Code::InvalidPeriod,
    );
    refused(
        h1.standing("B", &redvote::View::new(Kind::Shown, "hour"), &["a b"])
            .run(&mut con),
        Code::InvalidName,
    );
    refused(
        h1.standing("B", &redvote::View::new(Kind::Shown, "hour"), &[])
            .run(&mut con),
        Code::Usage,
    );
    refused(
        h1.standing("B", &redvote::View::new(Kind::Shown, "hour"), &["x"; 101])
            .run(&mut con),
        Code::Usage,
    );
    refused(
        h1.standing("nope", &redvote::View::new(Kind::Shown, "hour"), &["x"])
            .run(&mut con),
        Code::UnknownBoard,
    );
    assert_eq!(support::digest(&mut con), before);
    assert_eq!(
        h1.standing("B", &redvote::View::new(Kind::Shown, "hour"), &["x"; 100])
            .run(&mut con)
            .unwrap()
            .len(),
        100
    );
}
