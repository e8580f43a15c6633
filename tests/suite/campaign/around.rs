//! `around`: the window centred on an option and filled at the board's
//! edges, its rank, percentile and page; absent options, empty boards and
//! ties; refusals write nothing.

use std::collections::BTreeMap;

use redis::Connection;
use redvote::campaign::{Around, Entry, OptionSettings};
use redvote::{Code, Kind, Period};

use super::{e, T0};
use crate::support::{self, board, boards, options, refused, setup};

#[test]
fn around_centres_the_window_and_fills_it_at_the_edges() {
    let server = support::server();
    let mut con = support::con(&server);
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
            .around(
                "B",
                &redvote::View::new(Kind::Shown, "total"),
                member,
                redvote::Neighbourhood::new(k, per_page),
            )
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
        folded: None,
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
            folded: None,
        }
    );
    // An empty period board.
    c.configure(&boards([("E", board(&[Period::Day], options([("x", 1)])))]))
        .run(&mut con)
        .unwrap();
    assert_eq!(
        c.at(T0)
            .around(
                "E",
                &redvote::View::new(Kind::Shown, "day"),
                "x",
                redvote::Neighbourhood::new(5, 3)
            )
            .run(&mut con)
            .unwrap(),
        Around {
            size: 0,
            pages: 0,
            rank: None,
            percentile: None,
            page: None,
            window: vec![],
            folded: None,
        }
    );
    // A tie: below counts strictly lower scores only.
    c.at(T0).import("B", &[("m11", "6")]).run(&mut con).unwrap();
    let tied = around(&mut con, "m05", 3, 3);
    assert_eq!(
        (tied.size, tied.rank, tied.percentile.as_deref()),
        (11, Some(5), Some("45.45"))
    );
    let before = support::digest(&mut con);
    for (k, per) in [(0, 3), (102, 3), (5, 0), (5, 101)] {
        refused(
            c.at(T0)
                .around(
                    "B",
                    &redvote::View::new(Kind::Shown, "total"),
                    "m05",
                    redvote::Neighbourhood::new(k, per),
                )
                .run(&mut con),
            Code::InvalidNumber,
        );
    }
    refused(
        c.at(T0)
            .around(
                "B",
                &redvote::View::new(Kind::Shown, "total"),
                "",
                redvote::Neighbourhood::new(5, 3),
            )
            .run(&mut con),
        Code::InvalidName,
    );
    refused(
        c.at(T0)
            .around(
                "B",
                &redvote::View::new(Kind::Shown, "day"),
                "m05",
                redvote::Neighbourhood::new(5, 3),
            )
            .run(&mut con),
        Code::InvalidPeriod,
    );
    assert_eq!(support::digest(&mut con), before);
}
