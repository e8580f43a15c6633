//! `top`: several boards in one call, real and shown, pages, shared ranks in
//! a tie, the current period by selector or by name; unkept periods,
//! malformed names and bad pages refused.

use redvote::campaign::Entry;
use redvote::{Campaign, Code, Error, Kind, Period};

use super::{e, page, T0};
use crate::support::{self, board, boards, options, refused, setup, DAY};

#[test]
fn top_pages_several_boards_real_and_shown() {
    let server = support::server();
    let mut con = support::con(&server);
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
        .top(
            &["A", "C"],
            &redvote::View::new(Kind::Shown, "total"),
            redvote::Paging::new(1, 2),
        )
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
        .top(
            &["A", "C"],
            &redvote::View::new(Kind::Shown, "total"),
            redvote::Paging::new(2, 2),
        )
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
        .top(
            &["A"],
            &redvote::View::new(Kind::Shown, "day"),
            redvote::Paging::new(1, 10),
        )
        .run(&mut con)
        .unwrap();
    let by_name = c
        .top(
            &["A"],
            &redvote::View::new(Kind::Shown, "day:2026-03-17"),
            redvote::Paging::new(1, 10),
        )
        .run(&mut con)
        .unwrap();
    assert_eq!(by_selector, by_name);
    assert_eq!(by_name[0].period, "day:2026-03-17");
    assert_eq!(by_name[0].size, 5);
    let other = c
        .top(
            &["A"],
            &redvote::View::new(Kind::Shown, "day:2026-03-16"),
            redvote::Paging::new(1, 10),
        )
        .run(&mut con)
        .unwrap();
    assert_eq!((other[0].size, other[0].entries.clone()), (0, vec![]));
    c.at(T0 + DAY)
        .vote("u1", &[("A", "t")])
        .run(&mut con)
        .unwrap();
    let next = c
        .at(T0 + DAY)
        .top(
            &["A"],
            &redvote::View::new(Kind::Shown, "day"),
            redvote::Paging::new(1, 10),
        )
        .run(&mut con)
        .unwrap();
    assert_eq!(next[0].period, "day:2026-03-18");
    assert_eq!(next[0].entries, vec![e("t", "1.00", 1)]);
    assert_eq!(
        page(&mut con, &c, "A", Kind::Shown, "total", 3, 2),
        vec![e("t", "2.00", 5)]
    );

    // Periods the boards do not keep, malformed names, bad pages.
    let before = support::digest(&mut con);
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
        match at
            .top(
                boards,
                &redvote::View::new(Kind::Shown, period),
                redvote::Paging::new(1, 10),
            )
            .run(&mut con)
        {
            Err(Error::Script { code, .. }) => assert_eq!(code, Code::InvalidPeriod, "{period:?}"),
            other => panic!("{period:?}: expected INVALID_PERIOD, got {other:?}"),
        }
    }
    refused(
        at.top(
            &["A", "nope"],
            &redvote::View::new(Kind::Shown, "total"),
            redvote::Paging::new(1, 10),
        )
        .run(&mut con),
        Code::UnknownBoard,
    );
    refused(
        at.top(
            &["{A}"],
            &redvote::View::new(Kind::Shown, "total"),
            redvote::Paging::new(1, 10),
        )
        .run(&mut con),
        Code::InvalidName,
    );
    for (p, per) in [(0, 10), (1, 0), (1, 101), (1_000_001, 1)] {
        refused(
            at.top(
                &["A"],
                &redvote::View::new(Kind::Shown, "total"),
                redvote::Paging::new(p, per),
            )
            .run(&mut con),
            Code::InvalidNumber,
        );
    }
    let many = ["A"; 21];
    refused(
        at.top(
            &many,
            &redvote::View::new(Kind::Shown, "total"),
            redvote::Paging::new(1, 10),
        )
        .run(&mut con),
        Code::Usage,
    );
    refused(
        Campaign::new("nope")
            .top(
                &["A"],
                &redvote::View::new(Kind::Shown, "total"),
                redvote::Paging::new(1, 10),
            )
            .run(&mut con),
        Code::UnknownCampaign,
    );
    assert_eq!(support::digest(&mut con), before);
    assert_eq!(
        at.top(
            &["A"; 20],
            &redvote::View::new(Kind::Shown, "total"),
            redvote::Paging::new(1, 1)
        )
        .run(&mut con)
        .unwrap()
        .len(),
        20
    );
}
