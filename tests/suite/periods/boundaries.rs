//! The period names a vote lands in at the edges of hours, days, ISO weeks
//! (week 53, week 1 starting in December), months (leap February) and years,
//! at +08:00 and -05:00, through the real scripts: a table of votes (time,
//! the hour, day, week and month it lands in) and a table of the boards'
//! resulting shown scores per test.

use super::{all_periods, assert_shown_x, assert_votes_land_in};
use crate::support::{self, local, utc, PLUS8};

const MINUS5: i64 = -5 * 3600;

#[test]
fn last_second_of_an_hour_and_first_of_the_next() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = all_periods(&mut con, "+08:00");
    let last = local(PLUS8, (2026, 3, 17), (12, 59, 59));
    // 2026-03-17T12:59:59+08:00 is 04:59:59Z: the name is local time.
    assert_eq!(last, utc((2026, 3, 17), (4, 59, 59)));
    #[rustfmt::skip]
    let votes: &[(u64, [&str; 4])] = &[
        (last,     ["hour:2026-03-17T12", "day:2026-03-17", "week:2026-W12", "month:2026-03"]),
        (last + 1, ["hour:2026-03-17T13", "day:2026-03-17", "week:2026-W12", "month:2026-03"]),
    ];
    assert_votes_land_in(&mut con, &c, votes);
    // Each vote went to its own hour board, and both to the day's.
    #[rustfmt::skip]
    let shown: &[(&str, &str)] = &[
        ("hour:2026-03-17T12", "1.00"),
        ("hour:2026-03-17T13", "1.00"),
        ("day:2026-03-17",     "2.00"),
    ];
    assert_shown_x(&mut con, &c, shown);
}

#[test]
fn last_second_of_a_day_and_first_of_the_next() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = all_periods(&mut con, "+08:00");
    let last = local(PLUS8, (2026, 3, 17), (23, 59, 59));
    // Sunday 23:59:59 local is still week 12, Monday 00:00:00 is week 13.
    let sunday = local(PLUS8, (2026, 3, 22), (23, 59, 59));
    #[rustfmt::skip]
    let votes: &[(u64, [&str; 4])] = &[
        (last,       ["hour:2026-03-17T23", "day:2026-03-17", "week:2026-W12", "month:2026-03"]),
        (last + 1,   ["hour:2026-03-18T00", "day:2026-03-18", "week:2026-W12", "month:2026-03"]),
        (sunday,     ["hour:2026-03-22T23", "day:2026-03-22", "week:2026-W12", "month:2026-03"]),
        (sunday + 1, ["hour:2026-03-23T00", "day:2026-03-23", "week:2026-W13", "month:2026-03"]),
    ];
    assert_votes_land_in(&mut con, &c, votes);
    #[rustfmt::skip]
    let shown: &[(&str, &str)] = &[
        ("day:2026-03-17", "1.00"),
        ("day:2026-03-18", "1.00"),
        ("week:2026-W12",  "3.00"),
        ("week:2026-W13",  "1.00"),
    ];
    assert_shown_x(&mut con, &c, shown);
}

#[test]
fn iso_week_53_of_2020_and_week_1_of_2021() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = all_periods(&mut con, "+08:00");
    // 2020 starts on a Wednesday and is a leap year: it has 53 ISO weeks.
    // Monday 2020-12-28 starts W53, which runs to Sunday 2021-01-03.
    let sunday = local(PLUS8, (2021, 1, 3), (23, 59, 59));
    #[rustfmt::skip]
    let votes: &[(u64, [&str; 4])] = &[
        (local(PLUS8, (2020, 12, 28), (0, 0, 0)),    ["hour:2020-12-28T00", "day:2020-12-28", "week:2020-W53", "month:2020-12"]),
        (local(PLUS8, (2020, 12, 27), (23, 59, 59)), ["hour:2020-12-27T23", "day:2020-12-27", "week:2020-W52", "month:2020-12"]),
        (local(PLUS8, (2020, 12, 31), (12, 0, 0)),   ["hour:2020-12-31T12", "day:2020-12-31", "week:2020-W53", "month:2020-12"]),
        (local(PLUS8, (2021, 1, 1), (0, 0, 0)),      ["hour:2021-01-01T00", "day:2021-01-01", "week:2020-W53", "month:2021-01"]),
        (sunday,                                     ["hour:2021-01-03T23", "day:2021-01-03", "week:2020-W53", "month:2021-01"]),
        (sunday + 1,                                 ["hour:2021-01-04T00", "day:2021-01-04", "week:2021-W01", "month:2021-01"]),
    ];
    assert_votes_land_in(&mut con, &c, votes);
    // Four votes in W53, whatever their calendar year.
    #[rustfmt::skip]
    let shown: &[(&str, &str)] = &[
        ("week:2020-W53", "4.00"),
        ("week:2021-W01", "1.00"),
        ("week:2020-W52", "1.00"),
    ];
    assert_shown_x(&mut con, &c, shown);
}

#[test]
fn year_2026_has_53_weeks_and_new_year_2027_is_in_its_week_53() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = all_periods(&mut con, "+08:00");
    // 2026 starts on a Thursday: 53 ISO weeks, W53 = 2026-12-28..2027-01-03.
    let eve = local(PLUS8, (2026, 12, 31), (23, 59, 59));
    let sunday = local(PLUS8, (2027, 1, 3), (23, 59, 59));
    #[rustfmt::skip]
    let votes: &[(u64, [&str; 4])] = &[
        (eve,                                      ["hour:2026-12-31T23", "day:2026-12-31", "week:2026-W53", "month:2026-12"]),
        (eve + 1,                                  ["hour:2027-01-01T00", "day:2027-01-01", "week:2026-W53", "month:2027-01"]),
        (sunday,                                   ["hour:2027-01-03T23", "day:2027-01-03", "week:2026-W53", "month:2027-01"]),
        (sunday + 1,                               ["hour:2027-01-04T00", "day:2027-01-04", "week:2027-W01", "month:2027-01"]),
        // 2027 starts on a Friday: 52 weeks, its last week W52 ends on Sunday
        // 2028-01-02; Monday 2028-01-03 is 2028-W01.
        (local(PLUS8, (2028, 1, 2), (23, 59, 59)), ["hour:2028-01-02T23", "day:2028-01-02", "week:2027-W52", "month:2028-01"]),
        (local(PLUS8, (2028, 1, 3), (0, 0, 0)),    ["hour:2028-01-03T00", "day:2028-01-03", "week:2028-W01", "month:2028-01"]),
    ];
    assert_votes_land_in(&mut con, &c, votes);
}

#[test]
fn january_first_in_the_previous_years_last_week_and_week_1_in_december() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = all_periods(&mut con, "+08:00");
    // Saturday 2022-01-01 and Sunday 2023-01-01 belong to the previous
    // year's W52.
    #[rustfmt::skip]
    let votes: &[(u64, [&str; 4])] = &[
        (local(PLUS8, (2022, 1, 1), (0, 0, 0)),      ["hour:2022-01-01T00", "day:2022-01-01", "week:2021-W52", "month:2022-01"]),
        (local(PLUS8, (2023, 1, 1), (23, 59, 59)),   ["hour:2023-01-01T23", "day:2023-01-01", "week:2022-W52", "month:2023-01"]),
        (local(PLUS8, (2023, 1, 2), (0, 0, 0)),      ["hour:2023-01-02T00", "day:2023-01-02", "week:2023-W01", "month:2023-01"]),
        // Monday 2024-12-30 already starts 2025-W01 (its Thursday is 2025-01-02).
        (local(PLUS8, (2024, 12, 29), (23, 59, 59)), ["hour:2024-12-29T23", "day:2024-12-29", "week:2024-W52", "month:2024-12"]),
        (local(PLUS8, (2024, 12, 30), (0, 0, 0)),    ["hour:2024-12-30T00", "day:2024-12-30", "week:2025-W01", "month:2024-12"]),
    ];
    assert_votes_land_in(&mut con, &c, votes);
}

#[test]
fn month_ends_including_leap_february() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = all_periods(&mut con, "+08:00");
    let leap = local(PLUS8, (2028, 2, 29), (23, 59, 59));
    let plain = local(PLUS8, (2027, 2, 28), (23, 59, 59));
    let april = local(PLUS8, (2026, 4, 30), (23, 59, 59));
    #[rustfmt::skip]
    let votes: &[(u64, [&str; 4])] = &[
        (leap,      ["hour:2028-02-29T23", "day:2028-02-29", "week:2028-W09", "month:2028-02"]),
        (leap + 1,  ["hour:2028-03-01T00", "day:2028-03-01", "week:2028-W09", "month:2028-03"]),
        (plain,     ["hour:2027-02-28T23", "day:2027-02-28", "week:2027-W08", "month:2027-02"]),
        (plain + 1, ["hour:2027-03-01T00", "day:2027-03-01", "week:2027-W09", "month:2027-03"]),
        (april,     ["hour:2026-04-30T23", "day:2026-04-30", "week:2026-W18", "month:2026-04"]),
        (april + 1, ["hour:2026-05-01T00", "day:2026-05-01", "week:2026-W18", "month:2026-05"]),
    ];
    assert_votes_land_in(&mut con, &c, votes);
    #[rustfmt::skip]
    let shown: &[(&str, &str)] = &[
        ("month:2028-02",  "1.00"),
        ("month:2028-03",  "1.00"),
        ("day:2028-02-29", "1.00"),
        ("month:2027-02",  "1.00"),
        ("month:2027-03",  "1.00"),
    ];
    assert_shown_x(&mut con, &c, shown);
}

#[test]
fn new_year_happens_at_the_campaigns_offset_not_at_utc() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = all_periods(&mut con, "+08:00");
    let midnight = utc((2026, 12, 31), (16, 0, 0));
    assert_eq!(midnight, 1_798_732_800);
    #[rustfmt::skip]
    let votes: &[(u64, [&str; 4])] = &[
        (midnight - 1, ["hour:2026-12-31T23", "day:2026-12-31", "week:2026-W53", "month:2026-12"]),
        (midnight,     ["hour:2027-01-01T00", "day:2027-01-01", "week:2026-W53", "month:2027-01"]),
    ];
    assert_votes_land_in(&mut con, &c, votes);
    // The boards hold what the names say: one vote on each side.
    #[rustfmt::skip]
    let shown: &[(&str, &str)] = &[
        ("day:2026-12-31", "1.00"),
        ("day:2027-01-01", "1.00"),
        ("month:2026-12",  "1.00"),
        ("month:2027-01",  "1.00"),
        ("week:2026-W53",  "2.00"),
        ("total",          "2.00"),
    ];
    assert_shown_x(&mut con, &c, shown);
}

#[test]
fn negative_offset_days_start_five_hours_after_utc() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = all_periods(&mut con, "-05:00");
    // 2027-01-01T04:59:59Z is still New Year's Eve at -05:00.
    let midnight = utc((2027, 1, 1), (5, 0, 0));
    assert_eq!(midnight, local(MINUS5, (2027, 1, 1), (0, 0, 0)));
    #[rustfmt::skip]
    let votes: &[(u64, [&str; 4])] = &[
        (midnight - 1,                    ["hour:2026-12-31T23", "day:2026-12-31", "week:2026-W53", "month:2026-12"]),
        (midnight,                        ["hour:2027-01-01T00", "day:2027-01-01", "week:2026-W53", "month:2027-01"]),
        // At 2026-12-31T20:00Z UTC's New Year is 4 hours away, local it is 15:00.
        (utc((2026, 12, 31), (20, 0, 0)), ["hour:2026-12-31T15", "day:2026-12-31", "week:2026-W53", "month:2026-12"]),
        // A UTC Monday 03:00 is still Sunday at -05:00: the week has not turned.
        (utc((2027, 1, 4), (3, 0, 0)),    ["hour:2027-01-03T22", "day:2027-01-03", "week:2026-W53", "month:2027-01"]),
        (utc((2027, 1, 4), (5, 0, 0)),    ["hour:2027-01-04T00", "day:2027-01-04", "week:2027-W01", "month:2027-01"]),
    ];
    assert_votes_land_in(&mut con, &c, votes);
    #[rustfmt::skip]
    let shown: &[(&str, &str)] = &[
        ("day:2026-12-31", "2.00"),
        ("day:2027-01-01", "1.00"),
    ];
    assert_shown_x(&mut con, &c, shown);
}
