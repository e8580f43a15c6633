//! Retention: period boards and their side keys expire (EXPIREAT) a kept
//! time after their period ends, whether a vote or an import wrote them,
//! and a board made anew gets its expiry again; total and unkept periods
//! never expire; a vote into a period past its retention is refused.

use std::collections::BTreeSet;

use redvote::campaign::BoardSettings;
use redvote::{Code, Period, Ties};

use super::{day_name, hour_name, list_expired_day};
use crate::support::{self, board, boards, expiretime, keys, options, setup, DAY, HOUR};

#[test]
fn retention_sets_expireat_on_period_boards_and_side_keys() {
    let server = support::server();
    let mut con = support::con(&server);
    let ns = "{c:ret}:";
    let c = setup(
        &mut con,
        "ret",
        boards([
            (
                "K",
                BoardSettings {
                    ties: Some(Ties::First),
                    carry: Some("0.5".to_string()),
                    retention: [(Period::Hour, 3600)].into(),
                    ..board(
                        &[Period::Hour, Period::Day, Period::Total],
                        options([("x", 1)]),
                    )
                },
            ),
            ("N", board(&[Period::Hour], options([("x", 1)]))),
        ]),
    );
    // The server's own clock: an expiry in the past would delete the keys.
    let now = support::server_time(&mut con) as u64;
    let end = now - now % HOUR + HOUR;
    c.at(now)
        .vote("u", &[("K", "x"), ("N", "x")])
        .run(&mut con)
        .unwrap();
    let (hour, next_hour, day) = (hour_name(now), hour_name(end), day_name(now));
    let next_day = day_name(now - now % DAY + DAY);
    for side in ["b", "f"] {
        for kind in ["real", "shown"] {
            let key = format!("{ns}{side}:K:{kind}:{hour}");
            assert_eq!(expiretime(&mut con, &key), (end + 3600) as i64, "{key}");
            for p in [day.as_str(), "total"] {
                let key = format!("{ns}{side}:K:{kind}:{p}");
                assert_eq!(expiretime(&mut con, &key), -1, "{key}");
            }
        }
        // The carried share lives as long as the period it was carried to.
        let key = format!("{ns}{side}:K:shown:{next_hour}");
        assert_eq!(
            expiretime(&mut con, &key),
            (end + HOUR + 3600) as i64,
            "{key}"
        );
        let key = format!("{ns}{side}:K:shown:{next_day}");
        assert_eq!(expiretime(&mut con, &key), -1, "{key}");
    }
    for kind in ["real", "shown"] {
        let key = format!("{ns}b:N:{kind}:{hour}");
        assert_eq!(expiretime(&mut con, &key), -1, "{key}");
    }
    assert_eq!(keys(&mut con, &format!("{ns}f:N:*")), BTreeSet::new());
}

/// Retention is per period board, whoever writes it: an import into the
/// current hour creates the hour board, which must expire like a voted one.
#[test]
fn retention_applies_to_boards_written_by_import() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = setup(
        &mut con,
        "reti",
        boards([(
            "K",
            BoardSettings {
                retention: [(Period::Hour, 3600)].into(),
                ..board(&[Period::Hour, Period::Total], options([("x", 1)]))
            },
        )]),
    );
    let now = support::server_time(&mut con) as u64;
    let end = now - now % HOUR + HOUR;
    c.at(now).import("K", &[("x", "1")]).run(&mut con).unwrap();
    let key = format!("{{c:reti}}:b:K:shown:{}", hour_name(now));
    assert_eq!(expiretime(&mut con, &key), (end + 3600) as i64, "{key}");
    assert_eq!(expiretime(&mut con, "{c:reti}:b:K:shown:total"), -1);
}

/// The board index `periods:B` after votes: the vote asks the index only
/// about the boards it does not see to exist (a board that exists is
/// listed), so a vote into the next hour, whose shown board the carry
/// already created, lists exactly the new boards, each with its expiry, and
/// a vote on boards that all exist leaves the index as it was.
#[test]
fn the_index_lists_each_new_board_once_with_its_expiry() {
    let server = support::server();
    let mut con = support::con(&server);
    let ns = "{c:reti2}:";
    let c = setup(
        &mut con,
        "reti2",
        boards([(
            "K",
            board(
                &[Period::Hour, Period::Total],
                options([("x", 1), ("y", 1)]),
            )
            .with_carry("0.5")
            .with_retention(Period::Hour, 3600),
        )]),
    );
    let now = support::server_time(&mut con) as u64;
    let end = now - now % HOUR + HOUR;
    let index = |con: &mut redis::Connection| -> Vec<(String, i64)> {
        redis::cmd("ZRANGE")
            .arg(format!("{ns}periods:K"))
            .arg(0)
            .arg(-1)
            .arg("WITHSCORES")
            .query(con)
            .unwrap()
    };
    let (h0, h1, h2) = (hour_name(now), hour_name(end), hour_name(end + HOUR));
    let listed = |entries: &[(&str, u64)]| -> Vec<(String, i64)> {
        let mut v: Vec<(String, i64)> = entries
            .iter()
            .map(|(m, e)| (m.to_string(), *e as i64))
            .collect();
        v.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
        v
    };
    c.at(now).vote("u1", &[("K", "x")]).run(&mut con).unwrap();
    let first = listed(&[
        ("real:total", 0),
        ("shown:total", 0),
        (&format!("real:{h0}"), end + 3600),
        (&format!("shown:{h0}"), end + 3600),
        (&format!("shown:{h1}"), end + HOUR + 3600),
    ]);
    assert_eq!(index(&mut con), first);
    // Every board exists (y is new on them): the index is unchanged.
    c.at(now).vote("u2", &[("K", "y")]).run(&mut con).unwrap();
    assert_eq!(index(&mut con), first);
    // The next hour: its shown board exists (the carry), its real board and
    // the carry's next board are new.
    c.at(end).vote("u3", &[("K", "x")]).run(&mut con).unwrap();
    let mut second = first.clone();
    second.extend(listed(&[
        (&format!("real:{h1}"), end + HOUR + 3600),
        (&format!("shown:{h2}"), end + 2 * HOUR + 3600),
    ]));
    second.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
    assert_eq!(index(&mut con), second);
    for (member, at) in &second {
        let key = format!("{ns}b:K:{member}");
        let want = if *at == 0 { -1 } else { *at };
        assert_eq!(expiretime(&mut con, &key), want, "{key}");
    }
}

/// The side keys of ties (`f:`, `o:` for first, `d:` for dense) expire with
/// their board, whichever writer made them and in whatever order the board
/// lists its periods: a total board listed before a kept one used to give
/// its side key the next period's expiry on import (the expiries list
/// skipped the total's missing one, and the next board's slid into its
/// place), and an indexed total board lost its side key when it expired.
#[test]
fn side_keys_expire_with_their_board_whoever_writes_them() {
    let server = support::server();
    let mut con = support::con(&server);
    let ns = "{c:rets}:";
    let with = |ties: Ties| BoardSettings {
        ties: Some(ties),
        carry: Some("0.5".to_string()),
        retention: [(Period::Hour, 3600)].into(),
        ..board(
            &[Period::Total, Period::Hour],
            options([("x", 1), ("y", 1)]),
        )
    };
    let c = setup(
        &mut con,
        "rets",
        boards([("F", with(Ties::First)), ("D", with(Ties::Dense))]),
    );
    let now = support::server_time(&mut con) as u64;
    let end = now - now % HOUR + HOUR;
    // the import first (it creates the boards and their side keys), then
    // a vote (the carry creates the next hour's shown board)
    for b in ["F", "D"] {
        c.at(now).import(b, &[("x", "3")]).run(&mut con).unwrap();
    }
    c.at(now)
        .vote("u", &[("F", "y"), ("D", "y")])
        .run(&mut con)
        .unwrap();
    let (hour, next_hour) = (hour_name(now), hour_name(end));
    for (b, sides) in [("F", ["b", "f", "o"]), ("D", ["b", "d", "d"])] {
        for side in sides {
            let key = format!("{ns}{side}:{b}:shown:total");
            assert_eq!(expiretime(&mut con, &key), -1, "{key}");
            let key = format!("{ns}{side}:{b}:shown:{hour}");
            assert_eq!(expiretime(&mut con, &key), (end + 3600) as i64, "{key}");
            let key = format!("{ns}{side}:{b}:shown:{next_hour}");
            assert_eq!(
                expiretime(&mut con, &key),
                (end + HOUR + 3600) as i64,
                "{key}"
            );
            let key = format!("{ns}{side}:{b}:real:{hour}");
            assert_eq!(expiretime(&mut con, &key), (end + 3600) as i64, "{key}");
            let key = format!("{ns}{side}:{b}:real:total");
            assert_eq!(expiretime(&mut con, &key), -1, "{key}");
        }
    }
}

/// A vote at an explicit time into a period whose boards are past their
/// retention (by the server's clock) is refused, as an import is, with
/// nothing written: it used to answer the count while its new boards
/// expired at once, and, once the index listed the period, to make the
/// boards anew with no expiry at all. A batch with one such pair is refused
/// whole; a period still kept is voted as before.
#[test]
fn a_vote_into_a_period_past_its_retention_is_refused() {
    let server = support::server();
    let mut con = support::con(&server);
    let ns = "{c:retv}:";
    let c = setup(
        &mut con,
        "retv",
        boards([
            (
                "K",
                board(&[Period::Day, Period::Total], options([("x", 1)]))
                    .with_retention(Period::Day, DAY),
            ),
            (
                "N",
                board(&[Period::Day, Period::Total], options([("x", 1)])),
            ),
        ]),
    );
    let now = support::server_time(&mut con) as u64;
    let old = now - 10 * DAY;
    let day = day_name(old);
    // never written
    let detail = support::refused_unchanged(&mut con, "old day", Code::InvalidPeriod, |con| {
        c.at(old).vote("u", &[("K", "x")]).run(con)
    });
    assert!(
        detail.contains(&day) && detail.contains("retention"),
        "{detail}"
    );
    // listed in the index (as a board that expired since is)
    list_expired_day(&mut con, ns, "K", old);
    support::refused_unchanged(&mut con, "old day, listed", Code::InvalidPeriod, |con| {
        c.at(old).vote("u", &[("K", "x")]).run(con)
    });
    // a batch with a board that keeps the day forever: refused whole
    support::refused_unchanged(&mut con, "batch", Code::InvalidPeriod, |con| {
        c.at(old).vote("u", &[("N", "x"), ("K", "x")]).run(con)
    });
    for kind in ["real", "shown"] {
        assert!(!support::exists(&mut con, &format!("{ns}b:K:{kind}:{day}")));
    }
    // the board that keeps its days takes the old vote alone
    c.at(old).vote("u", &[("N", "x")]).run(&mut con).unwrap();
    assert_eq!(expiretime(&mut con, &format!("{ns}b:N:shown:{day}")), -1);
    // yesterday is kept until the end of today: voted, with its expiry
    let yesterday = now - DAY;
    c.at(yesterday)
        .vote("u", &[("K", "x")])
        .run(&mut con)
        .unwrap();
    let key = format!("{ns}b:K:shown:{}", day_name(yesterday));
    assert_eq!(
        expiretime(&mut con, &key),
        (yesterday - yesterday % DAY + 2 * DAY) as i64,
        "{key}"
    );
}

/// A period board the index lists but that is gone (expired early,
/// evicted under a volatile maxmemory policy, deleted) is made anew by the
/// next vote with its expiry: it used to be made anew with none, and so
/// kept forever. One that exists keeps its own.
#[test]
fn a_vote_gives_a_board_made_anew_its_expiry() {
    let server = support::server();
    let mut con = support::con(&server);
    let ns = "{c:retn}:";
    let c = setup(
        &mut con,
        "retn",
        boards([(
            "K",
            board(
                &[Period::Hour, Period::Total],
                options([("x", 1), ("y", 1)]),
            )
            .with_retention(Period::Hour, 3600),
        )]),
    );
    let now = support::server_time(&mut con) as u64;
    let end = now - now % HOUR + HOUR;
    let hour = hour_name(now);
    c.at(now).vote("u1", &[("K", "x")]).run(&mut con).unwrap();
    let real = format!("{ns}b:K:real:{hour}");
    let shown = format!("{ns}b:K:shown:{hour}");
    let _: () = redis::cmd("DEL")
        .arg(&real)
        .arg(&shown)
        .query(&mut con)
        .unwrap();
    // y is new to the boards, x would be too: either way, made anew
    c.at(now).vote("u2", &[("K", "y")]).run(&mut con).unwrap();
    for key in [&real, &shown] {
        assert_eq!(expiretime(&mut con, key), (end + 3600) as i64, "{key}");
    }
    // one that exists keeps its own expiry (set by hand here)
    let _: () = redis::cmd("EXPIREAT")
        .arg(&shown)
        .arg(end + 7200)
        .query(&mut con)
        .unwrap();
    c.at(now).vote("u3", &[("K", "x")]).run(&mut con).unwrap();
    assert_eq!(expiretime(&mut con, &shown), (end + 7200) as i64);
}
