//! The four tie rules (name, competition, dense, first) through top,
//! standing and around, as votes move options into and out of ties.

use redis::Connection;
use redvote::campaign::{Around, BoardSettings, Entry, Standing};
use redvote::{Campaign, Kind, Period, Ties};

use super::{e, page, standing, T0};
use crate::support::{self, board, boards, options, setup};

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
        .standing(
            board,
            &redvote::View::new(Kind::Shown, "total"),
            &["a", "p", "q", "z"],
        )
        .run(con)
        .unwrap()
}

#[test]
fn the_four_tie_rules_through_top_standing_and_around() {
    let server = support::server();
    let mut con = support::con(&server);
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
            .around(
                board,
                &redvote::View::new(Kind::Shown, "total"),
                member,
                redvote::Neighbourhood::new(k, 2),
            )
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
        folded: None,
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

/// `first` within one batch call: the pairs count in the order the call
/// lists them, so of two options tied by one call, the earlier-listed one
/// reached the score first (docs/campaigns.md, "Ties and precision").
#[test]
fn first_ties_within_one_call_follow_the_order_of_the_pairs() {
    let server = support::server();
    let mut con = support::con(&server);
    let first = |members| BoardSettings {
        ties: Some(Ties::First),
        ..board(&[Period::Total], members)
    };
    let c = setup(
        &mut con,
        "batchties",
        boards([
            ("b1", first(options([("m", 1), ("n", 1)]))),
            ("b2", first(options([("m", 1), ("n", 1)]))),
        ]),
    );
    // b1 lists n first, b2 lists m first, in the same call.
    let pairs = [("b1", "n"), ("b2", "m"), ("b1", "m"), ("b2", "n")];
    c.at(T0).vote("u1", &pairs).run(&mut con).unwrap();
    let mut order = |b: &str| -> Vec<(String, u64)> {
        page(&mut con, &c, b, Kind::Real, "total", 1, 10)
            .into_iter()
            .map(|e| (e.member, e.rank))
            .collect()
    };
    assert_eq!(order("b1"), [("n".to_string(), 1), ("m".to_string(), 2)]);
    assert_eq!(order("b2"), [("m".to_string(), 1), ("n".to_string(), 2)]);
}
