//! A vote at an explicit time past 9999-12-31T23:59:59 (in the campaign's
//! UTC offset) is refused with `REDVOTE_INVALID_NUMBER` and writes nothing,
//! as an import there is (`import_stored.rs`): no period name addresses
//! such a moment (it used to be taken, writing boards named year 10000 and
//! beyond).

use redvote::campaign::CampaignSettings;
use redvote::{Code, Period};

use crate::support::{self, board, boards, options, refused_unchanged, setup, DAY, HOUR};

/// The last second of year 9999, UTC.
const LAST_SECOND: u64 = 253_402_300_799;

#[test]
fn a_vote_past_year_9999_is_refused_and_writes_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    let settings = |offset: &str| CampaignSettings {
        offset: Some(offset.to_string()),
        ..boards([(
            "B",
            board(
                &[
                    Period::Hour,
                    Period::Day,
                    Period::Week,
                    Period::Month,
                    Period::Total,
                ],
                options([("x", 1)]),
            ),
        )])
    };
    let utc = setup(&mut con, "v9999", settings("+00:00"));
    let east = setup(&mut con, "v9999e", settings("+08:00"));
    for t in [LAST_SECOND + 1, LAST_SECOND + DAY, 999_999_999_999] {
        let detail = refused_unchanged(
            &mut con,
            &format!("UTC at {t}"),
            Code::InvalidNumber,
            |con| utc.at(t).vote("u1", &[("B", "x")]).run(con),
        );
        assert!(detail.contains("9999-12-31T23:59:59"), "{detail}");
        // with a vote id too: nothing recorded
        let voter = redvote::campaign::Voter::new("u1").id("far");
        refused_unchanged(
            &mut con,
            &format!("UTC at {t}, id"),
            Code::InvalidNumber,
            |con| utc.at(t).vote_by(&voter, &[("B", "x")]).run(con),
        );
    }
    // 9999-12-31T16:00:00Z is 10000-01-01 in +08:00
    let t = LAST_SECOND + 1 - 8 * HOUR;
    refused_unchanged(
        &mut con,
        "+08:00 in year 10000",
        Code::InvalidNumber,
        |con| east.at(t).vote("u1", &[("B", "x")]).run(con),
    );
    // the last second itself is taken, and names boards `top` reads
    utc.at(LAST_SECOND)
        .vote("u1", &[("B", "x")])
        .run(&mut con)
        .unwrap();
    east.at(t - 1)
        .vote("u1", &[("B", "x")])
        .run(&mut con)
        .unwrap();
    let top = utc
        .top(
            &["B"],
            &redvote::View::shown("hour:9999-12-31T23"),
            redvote::Paging::new(1, 10),
        )
        .run(&mut con)
        .unwrap();
    assert_eq!(top[0].entries.len(), 1);
}
