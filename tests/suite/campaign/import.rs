//! `import`: idempotent (a second import writes nothing), adds only the
//! difference to the last imported amount, never on real boards; bad
//! amounts, unknown options and boards are refused and write nothing.

use std::collections::BTreeSet;

use redvote::campaign::{BoardSettings, Imported};
use redvote::{Campaign, Code, Kind, Period};

use super::{e, page, T0};
use crate::support::{
    self, board, boards, discard, hgetall, keys, map, options, refused_unchanged, setup,
    CampaignCall, DAY,
};

#[test]
fn import_is_idempotent_and_adds_only_the_difference() {
    let server = support::server();
    let mut con = support::con(&server);
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
    let once = support::digest(&mut con);
    assert_eq!(
        at.import("B", &[("x", "10.50"), ("y", "3")])
            .run(&mut con)
            .unwrap(),
        Imported {
            changed: 0,
            unchanged: 2
        }
    );
    assert_eq!(support::digest(&mut con), once, "a second import wrote");
    // "10.5" is the same amount as "10.50".
    assert_eq!(
        at.import("B", &[("x", "10.5")]).run(&mut con).unwrap(),
        Imported {
            changed: 0,
            unchanged: 1
        }
    );
    assert_eq!(support::digest(&mut con), once);
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
    let server = support::server();
    let mut con = support::con(&server);
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
    // (what, code, the refused call on `at`, the campaign at T0)
    #[rustfmt::skip]
    let cases: &[(&str, Code, CampaignCall)] = &[
        ("decimals 0", Code::InvalidNumber, |at, c| discard(at.import("D", &[("x", "1.5")]).run(c))),
        ("unknown option", Code::UnknownOption, |at, c| discard(at.import("B", &[("y", "2"), ("nope", "1")]).run(c))),
        ("unknown board", Code::UnknownBoard, |at, c| discard(at.import("nope", &[("x", "1")]).run(c))),
        ("key-like option", Code::InvalidName, |at, c| discard(at.import("B", &[("a*", "1")]).run(c))),
        ("twice in a call", Code::Usage, |at, c| discard(at.import("B", &[("x", "2"), ("x", "3")]).run(c))),
        ("no pairs", Code::Usage, |at, c| discard(at.import("B", &[]).run(c))),
        ("unknown campaign", Code::UnknownCampaign, |_, c| discard(Campaign::new("nope").at(T0).import("B", &[("x", "1")]).run(c))),
    ];
    for (what, code, call) in cases {
        refused_unchanged(&mut con, what, *code, |con| call(&at, con));
    }
    assert_eq!(
        page(&mut con, &c, "B", Kind::Shown, "total", 1, 10),
        vec![e("x", "1.00", 1)]
    );
}
