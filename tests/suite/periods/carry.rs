//! Carry-over: a board's carry share of each vote lands in the NEXT period
//! (the next day, the next ISO week), on shown boards only, and nowhere
//! further.

use redis::Connection;
use redvote::campaign::BoardSettings;
use redvote::{CampaignSettings, Kind, Period};

use crate::support::{self, board, boards, local, options, setup, PLUS8};

#[test]
fn carry_over_lands_in_the_next_day_and_the_next_week() {
    let server = support::server();
    let mut con = support::con(&server);
    let campaign = setup(
        &mut con,
        "carry",
        CampaignSettings {
            offset: Some("+08:00".to_string()),
            ..boards([(
                "b",
                BoardSettings {
                    carry: Some("0.5".to_string()),
                    ..board(&[Period::Day, Period::Week], options([("x", 2)]))
                },
            )])
        },
    );
    let top = |con: &mut Connection, kind: Kind, period: &str| {
        let pages = campaign
            .top(
                &["b"],
                &redvote::View::new(kind, period),
                redvote::Paging::new(1, 10),
            )
            .run(con)
            .unwrap();
        pages[0]
            .entries
            .iter()
            .map(|e| (e.member.clone(), e.score.clone(), e.rank))
            .collect::<Vec<_>>()
    };
    let x = |score: &str| vec![("x".to_string(), score.to_string(), 1)];

    // Sunday 2026-03-22, 23:00 at +08:00: the last day of ISO week 12.
    let sunday = local(PLUS8, (2026, 3, 22), (23, 0, 0));
    let ballots = campaign
        .at(sunday)
        .vote("u1", &[("b", "x")])
        .run(&mut con)
        .unwrap();
    let shown: Vec<(&str, &str)> = ballots[0]
        .shown
        .iter()
        .map(|p| (p.period.as_str(), p.score.as_str()))
        .collect();
    // The vote's own periods get the full weight; the carry is not in them.
    assert_eq!(
        shown,
        [("day:2026-03-22", "2.00"), ("week:2026-W12", "2.00")]
    );
    assert_eq!(top(&mut con, Kind::Shown, "day:2026-03-22"), x("2.00"));
    assert_eq!(top(&mut con, Kind::Shown, "week:2026-W12"), x("2.00"));
    // 2 x 0.5 = 1.00 on Monday's board and on week 13's.
    assert_eq!(top(&mut con, Kind::Shown, "day:2026-03-23"), x("1.00"));
    assert_eq!(top(&mut con, Kind::Shown, "week:2026-W13"), x("1.00"));
    // Nothing on the real boards of the next periods, nothing further on.
    assert_eq!(top(&mut con, Kind::Real, "day:2026-03-23"), vec![]);
    assert_eq!(top(&mut con, Kind::Real, "week:2026-W13"), vec![]);
    assert_eq!(top(&mut con, Kind::Real, "day:2026-03-22"), x("1"));
    assert_eq!(top(&mut con, Kind::Shown, "day:2026-03-24"), vec![]);
    assert_eq!(top(&mut con, Kind::Shown, "week:2026-W14"), vec![]);
    assert_eq!(top(&mut con, Kind::Shown, "day:2026-03-21"), vec![]);
    assert_eq!(top(&mut con, Kind::Shown, "week:2026-W11"), vec![]);

    // A vote on Monday adds its weight to the carried 1.00, and carries on.
    let monday = local(PLUS8, (2026, 3, 23), (0, 0, 0));
    let ballots = campaign
        .at(monday)
        .vote("u2", &[("b", "x")])
        .run(&mut con)
        .unwrap();
    let shown: Vec<(&str, &str)> = ballots[0]
        .shown
        .iter()
        .map(|p| (p.period.as_str(), p.score.as_str()))
        .collect();
    assert_eq!(
        shown,
        [("day:2026-03-23", "3.00"), ("week:2026-W13", "3.00")]
    );
    assert_eq!(top(&mut con, Kind::Shown, "day:2026-03-24"), x("1.00"));
    assert_eq!(top(&mut con, Kind::Shown, "week:2026-W14"), x("1.00"));
    assert_eq!(top(&mut con, Kind::Shown, "day:2026-03-22"), x("2.00"));
}
