//! Retention: period boards and their side keys expire (EXPIREAT) a kept
//! time after their period ends, whether a vote or an import wrote them;
//! total and unkept periods never expire.

use std::collections::BTreeSet;

use redvote::campaign::BoardSettings;
use redvote::{Period, Ties};

use super::{day_name, hour_name};
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
