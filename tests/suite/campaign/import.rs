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
            unchanged: 0,
            rest: 0
        }
    );
    let once = support::digest(&mut con);
    assert_eq!(
        at.import("B", &[("x", "10.50"), ("y", "3")])
            .run(&mut con)
            .unwrap(),
        Imported {
            changed: 0,
            unchanged: 2,
            rest: 0
        }
    );
    assert_eq!(support::digest(&mut con), once, "a second import wrote");
    // "10.5" is the same amount as "10.50".
    assert_eq!(
        at.import("B", &[("x", "10.5")]).run(&mut con).unwrap(),
        Imported {
            changed: 0,
            unchanged: 1,
            rest: 0
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
            unchanged: 2,
            rest: 0
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

/// Commands the server has run so far (scripts' inner commands included):
/// the sum of INFO commandstats' `calls`.
fn commands_run(con: &mut redis::Connection) -> u64 {
    let info: String = redis::cmd("INFO").arg("commandstats").query(con).unwrap();
    info.lines()
        .filter_map(|l| l.split("calls=").nth(1))
        .map(|rest| rest.split(',').next().unwrap().parse::<u64>().unwrap())
        .sum()
}

/// One call's work is bounded (lua/campaign_import.lua, Bounded work): it
/// takes the pairs that fit, in order, and answers how many it left; sending
/// those again until none is left imports everything, exactly as importing
/// the same amounts one pair a call does. Each call sends at most its
/// budget of 600 commands (plus the few it makes whatever the pairs).
#[test]
fn an_import_larger_than_one_call_is_finished_by_resending_the_rest() {
    let server = support::server();
    let mut con = support::con(&server);
    let names: Vec<String> = (0..450).map(|i| format!("o{i}")).collect();
    let weights = || {
        names
            .iter()
            .map(|n| (n.clone(), redvote::campaign::OptionSettings::weighted(1)))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let five = [
        Period::Hour,
        Period::Day,
        Period::Week,
        Period::Month,
        Period::Total,
    ];
    let settings = || {
        boards([
            (
                "F",
                BoardSettings {
                    ties: Some(redvote::Ties::First),
                    ..board(&five, weights())
                },
            ),
            ("C", board(&[Period::Total], weights())),
        ])
    };
    let chunked = setup(&mut con, "chunked", settings());
    let single = setup(&mut con, "single", settings());
    let amounts: Vec<(String, String)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            (
                n.clone(),
                format!("{}.{:02}", (i * 7919) % 500 + 1, i % 100),
            )
        })
        .collect();
    let pairs: Vec<(&str, &str)> = amounts
        .iter()
        .map(|(o, a)| (o.as_str(), a.as_str()))
        .collect();
    // (board, pairs sent, pairs the first call takes: (600 - a unit for ten
    // options checked) / (3 + keys x (2 + 4 a side rule + 2 for first's
    // sequence numbers)))
    for (b, sent, takes) in [
        ("F", 60, (600 - 6) / (3 + 5 * 8)),
        ("C", 450, (600 - 45) / (3 + 2)),
    ] {
        let at = chunked.at(T0);
        let mut left = &pairs[..sent];
        let mut calls = 0;
        let mut total = Imported {
            changed: 0,
            unchanged: 0,
            rest: 0,
        };
        while !left.is_empty() {
            let before = commands_run(&mut con);
            let done = at.import(b, left).run(&mut con).unwrap();
            let commands = commands_run(&mut con) - before;
            assert!(
                commands <= 600 + 20,
                "{b}: one call ran {commands} commands"
            );
            if calls == 0 {
                assert_eq!(
                    done.rest as usize,
                    sent - takes,
                    "{b}: the first call's rest"
                );
            }
            calls += 1;
            left = done.rest_of(left);
            total = total.and(done);
        }
        assert_eq!(
            total,
            Imported {
                changed: sent as u64,
                unchanged: 0,
                rest: 0
            },
            "{b}"
        );
        // later calls, sent fewer pairs, check fewer and take as many or more
        assert!(calls <= sent.div_ceil(takes), "{b}: {calls} calls");
        for pair in &pairs[..sent] {
            single.at(T0).import(b, &[*pair]).run(&mut con).unwrap();
        }
        // every board of the two campaigns, side keys included, alike
        for key in keys(&mut con, &format!("{{c:single}}:*:{b}:*")) {
            let twin = key.replacen("{c:single}", "{c:chunked}", 1);
            let dump = |con: &mut redis::Connection, k: &str| -> Vec<(String, String)> {
                redis::cmd("ZRANGE")
                    .arg(k)
                    .arg(0)
                    .arg(-1)
                    .arg("WITHSCORES")
                    .query(con)
                    .unwrap()
            };
            let (a, c) = (dump(&mut con, &key), dump(&mut con, &twin));
            if key.contains(":f:") || key.contains(":o:") {
                // sequence numbers differ (one call a pair against one a
                // chunk), the pages below show the order they give
                assert_eq!(a.len(), c.len(), "{key}");
            } else {
                assert_eq!(a, c, "{key}");
            }
        }
        // first ties: the same order from other sequence numbers
        for n in 1..=(sent as u32).div_ceil(100) {
            assert_eq!(
                page(&mut con, &chunked, b, Kind::Shown, "total", n, 100),
                page(&mut con, &single, b, Kind::Shown, "total", n, 100),
                "{b} page {n}"
            );
        }
    }
}
