//! `import` against what is stored and when: a corrupt imported amount in
//! `initial:B` (`nan`, `inf`, `1e3`, ...) is refused before the first write
//! (it used to be read with `tonumber`, and `nan` made a refused import
//! write first); a time past 9999-12-31 (in the campaign's offset) is
//! refused; an import into a period whose board is past its retention is
//! refused (it used to make the board anew without expiry); a board the
//! index knows but that expired is made anew with its expiry.

use redvote::campaign::{BoardSettings, CampaignSettings};
use redvote::{Code, Period};

use super::{day_name, hour_name, list_expired_day, T0};
use crate::support::{
    self, board, boards, expiretime, options, refused_unchanged, setup, DAY, HOUR,
};

/// The last second of year 9999, UTC.
const LAST_SECOND: u64 = 253_402_300_799;

#[test]
fn a_corrupt_stored_amount_is_refused_before_any_write() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = setup(
        &mut con,
        "impst",
        boards([(
            "B",
            board(&[Period::Day, Period::Total], options([("x", 1), ("y", 1)])),
        )]),
    );
    let at = c.at(T0);
    at.import("B", &[("x", "2"), ("y", "3")])
        .run(&mut con)
        .unwrap();
    for bad in [
        "nan",
        "inf",
        "-inf",
        "1e3",
        "-1",
        " 5",
        "0x10",
        "5.",
        "",
        "12345678901234567",
    ] {
        let _: () = redis::cmd("HSET")
            .arg("{c:impst}:initial:B")
            .arg("x")
            .arg(bad)
            .query(&mut con)
            .unwrap();
        // y first: a good pair before the corrupt one must not be written either
        let detail = refused_unchanged(
            &mut con,
            &format!("initial x = {bad:?}"),
            Code::InvalidConfig,
            |con| at.import("B", &[("y", "4"), ("x", "5")]).run(con),
        );
        assert!(detail.contains("initial:B x is corrupt"), "{detail}");
    }
    // a good stored amount imports again
    let _: () = redis::cmd("HSET")
        .arg("{c:impst}:initial:B")
        .arg("x")
        .arg("2")
        .query(&mut con)
        .unwrap();
    at.import("B", &[("y", "4"), ("x", "5")])
        .run(&mut con)
        .unwrap();
}

#[test]
fn a_time_past_year_9999_is_refused() {
    let server = support::server();
    let mut con = support::con(&server);
    let settings = |offset: &str| CampaignSettings {
        offset: Some(offset.to_string()),
        ..boards([(
            "B",
            board(
                &[Period::Day, Period::Week, Period::Total],
                options([("x", 1)]),
            ),
        )])
    };
    let utc = setup(&mut con, "y9999", settings("+00:00"));
    let east = setup(&mut con, "y9999e", settings("+08:00"));
    for t in [LAST_SECOND + 1, LAST_SECOND + DAY, 999_999_999_999] {
        refused_unchanged(
            &mut con,
            &format!("UTC at {t}"),
            Code::InvalidNumber,
            |con| utc.at(t).import("B", &[("x", "1")]).run(con),
        );
    }
    // 9999-12-31T16:00:00Z is 10000-01-01 in +08:00
    let t = LAST_SECOND + 1 - 8 * HOUR;
    refused_unchanged(
        &mut con,
        "+08:00 in year 10000",
        Code::InvalidNumber,
        |con| east.at(t).import("B", &[("x", "1")]).run(con),
    );
    // the last second itself is fine, and names a board `top` can read
    utc.at(LAST_SECOND)
        .import("B", &[("x", "1")])
        .run(&mut con)
        .unwrap();
    east.at(t - 1)
        .import("B", &[("x", "1")])
        .run(&mut con)
        .unwrap();
    let top = utc
        .top(
            &["B"],
            &redvote::View::shown("day:9999-12-31"),
            redvote::Paging::new(1, 10),
        )
        .run(&mut con)
        .unwrap();
    assert_eq!(top[0].entries.len(), 1);
}

#[test]
fn an_import_into_a_board_past_its_retention_is_refused() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = setup(
        &mut con,
        "impret",
        boards([(
            "B",
            BoardSettings {
                retention: [(Period::Day, DAY)].into(),
                ..board(&[Period::Day, Period::Total], options([("x", 1)]))
            },
        )]),
    );
    let now = support::server_time(&mut con) as u64;
    let old = now - 10 * DAY;
    // never written: refused
    let detail = refused_unchanged(&mut con, "old day, no board", Code::InvalidPeriod, |con| {
        c.at(old).import("B", &[("x", "5")]).run(con)
    });
    assert!(detail.contains(&day_name(old)), "{detail}");
    // listed in the index (as a board that expired since is)
    list_expired_day(&mut con, "{c:impret}:", "B", old);
    let board_key = format!("{{c:impret}}:b:B:shown:{}", day_name(old));
    refused_unchanged(&mut con, "old day, indexed", Code::InvalidPeriod, |con| {
        c.at(old).import("B", &[("x", "5")]).run(con)
    });
    assert!(!support::exists(&mut con, &board_key), "made anew");
    // yesterday's board is still kept (until the end of today): accepted
    c.at(now - DAY)
        .import("B", &[("x", "5")])
        .run(&mut con)
        .unwrap();
}

#[test]
fn an_indexed_board_that_expired_is_made_anew_with_its_expiry() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = setup(
        &mut con,
        "impexp",
        boards([(
            "B",
            BoardSettings {
                retention: [(Period::Hour, HOUR)].into(),
                ..board(&[Period::Hour, Period::Total], options([("x", 1)]))
            },
        )]),
    );
    let now = support::server_time(&mut con) as u64;
    let end = now - now % HOUR + HOUR;
    c.at(now).import("B", &[("x", "1")]).run(&mut con).unwrap();
    let key = format!("{{c:impexp}}:b:B:shown:{}", hour_name(now));
    assert_eq!(expiretime(&mut con, &key), (end + HOUR) as i64);
    // the board goes (as if it had expired early: a lowered retention, a
    // DEL), its index entry stays
    let _: () = redis::cmd("DEL").arg(&key).query(&mut con).unwrap();
    c.at(now).import("B", &[("x", "3")]).run(&mut con).unwrap();
    assert_eq!(expiretime(&mut con, &key), (end + HOUR) as i64, "{key}");
}
