//! Period arithmetic: the period names a vote lands in at the edges of hours,
//! days, ISO weeks (week 53, week 1 starting in December), months (leap
//! February) and years, in positive and negative UTC offsets, through the real
//! scripts (`boundaries`); a property test of `lua/src/lib/periods.lua` against
//! chrono, named periods parsed back and invalid ones refused (`lua_lib`);
//! carry-over into the NEXT period (`carry`). Here: the campaign keeping every
//! period and the assertions the boundary tables run.

mod boundaries;
mod carry;
mod lua_lib;

use redis::Connection;
use redvote::campaign::OptionSettings;
use redvote::{Campaign, CampaignSettings, Kind, Period};

use crate::support::{board, boards, setup};

/// A campaign at `offset` with board `b` keeping every period (in the order
/// hour, day, week, month, total) and one option `x`.
fn all_periods(con: &mut Connection, offset: &str) -> Campaign {
    let every = [
        Period::Hour,
        Period::Day,
        Period::Week,
        Period::Month,
        Period::Total,
    ];
    let b = board(
        &every,
        [("x".to_string(), OptionSettings::default())].into(),
    );
    setup(
        con,
        "periods",
        CampaignSettings {
            offset: Some(offset.to_string()),
            ..boards([("b", b)])
        },
    )
}

/// The period names a vote at `t` lands in, read from the vote's reply.
fn periods_at(con: &mut Connection, campaign: &Campaign, t: u64) -> Vec<String> {
    let ballots = campaign
        .at(t)
        .vote("voter", &[("b", "x")])
        .run(con)
        .unwrap();
    assert_eq!(ballots.len(), 1);
    assert_eq!(
        (ballots[0].board.as_str(), ballots[0].option.as_str()),
        ("b", "x")
    );
    ballots[0].shown.iter().map(|p| p.period.clone()).collect()
}

/// One vote a case, in order: the vote at `t` lands in these hour, day,
/// week and month boards (and `total`).
#[track_caller]
fn assert_votes_land_in(con: &mut Connection, campaign: &Campaign, cases: &[(u64, [&str; 4])]) {
    for (t, want) in cases {
        let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
        want.push("total".to_string());
        assert_eq!(
            periods_at(con, campaign, *t),
            want,
            "vote at {t} (want {})",
            want[0]
        );
    }
}

/// The shown score of `x` on a named period board (None: not on it).
fn shown_x(con: &mut Connection, campaign: &Campaign, period: &str) -> Option<String> {
    let pages = campaign
        .top(
            &["b"],
            &redvote::View::new(Kind::Shown, period),
            redvote::Paging::new(1, 10),
        )
        .run(con)
        .unwrap();
    assert_eq!(pages.len(), 1);
    assert_eq!(pages[0].period, period);
    pages[0]
        .entries
        .iter()
        .find(|e| e.member == "x")
        .map(|e| e.score.clone())
}

/// `x`'s shown score on each named period board.
#[track_caller]
fn assert_shown_x(con: &mut Connection, campaign: &Campaign, cases: &[(&str, &str)]) {
    for (period, score) in cases {
        assert_eq!(
            shown_x(con, campaign, period).as_deref(),
            Some(*score),
            "x on {period}"
        );
    }
}
