//! Period arithmetic: the period names a vote lands in at the edges of hours,
//! days, ISO weeks (week 53, week 1 starting in December), months (leap
//! February) and years, in positive and negative UTC offsets, through the real
//! scripts; a property test of `lua/src/lib/periods.lua` against chrono; named
//! periods parsed back and invalid ones refused; carry-over into the NEXT
//! period.

mod common;

use std::cell::RefCell;

use chrono::{Datelike, FixedOffset, NaiveDate, TimeZone, Timelike};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use redis::{Connection, Value};
use redvote::campaign::{BoardSettings, OptionSettings};
use redvote::{Campaign, CampaignSettings, Code, Error, Kind, Period};

const PLUS8: i64 = 8 * 3600;
const MINUS5: i64 = -5 * 3600;

// ---- helpers ---------------------------------------------------------------

/// Unix seconds of a local wall-clock time at `offset` seconds east of UTC.
fn local(offset: i64, (y, mo, d): (i32, u32, u32), (h, mi, s): (u32, u32, u32)) -> u64 {
    let naive = NaiveDate::from_ymd_opt(y, mo, d)
        .unwrap()
        .and_hms_opt(h, mi, s)
        .unwrap();
    let t = naive.and_utc().timestamp() - offset;
    assert!(t >= 0);
    t as u64
}

/// Unix seconds of a UTC time.
fn utc(ymd: (i32, u32, u32), hms: (u32, u32, u32)) -> u64 {
    local(0, ymd, hms)
}

/// A campaign at `offset` with board `b` keeping every period (in the order
/// hour, day, week, month, total) and one option `x`.
fn all_periods(con: &mut Connection, offset: &str) -> Campaign {
    let campaign = Campaign::new("periods");
    let mut boards = std::collections::BTreeMap::new();
    boards.insert(
        "b".to_string(),
        BoardSettings {
            periods: Some(vec![
                Period::Hour,
                Period::Day,
                Period::Week,
                Period::Month,
                Period::Total,
            ]),
            options: [("x".to_string(), OptionSettings::default())].into(),
            ..Default::default()
        },
    );
    campaign
        .configure(&CampaignSettings {
            offset: Some(offset.to_string()),
            boards,
            ..Default::default()
        })
        .run(con)
        .unwrap();
    campaign
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

#[track_caller]
fn assert_periods(con: &mut Connection, campaign: &Campaign, t: u64, want: [&str; 4]) {
    let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
    want.push("total".to_string());
    assert_eq!(periods_at(con, campaign, t), want, "vote at {t}");
}

/// The shown score of `x` on a named period board (None: not on it).
fn shown_x(con: &mut Connection, campaign: &Campaign, period: &str) -> Option<String> {
    let pages = campaign
        .top(&["b"], Kind::Shown, period, 1, 10)
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

// ---- boundaries through the scripts ----------------------------------------

#[test]
fn last_second_of_an_hour_and_first_of_the_next() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = all_periods(&mut con, "+08:00");
    let last = local(PLUS8, (2026, 3, 17), (12, 59, 59));
    // 2026-03-17T12:59:59+08:00 is 04:59:59Z: the name is local time.
    assert_eq!(last, utc((2026, 3, 17), (4, 59, 59)));
    assert_periods(
        &mut con,
        &c,
        last,
        [
            "hour:2026-03-17T12",
            "day:2026-03-17",
            "week:2026-W12",
            "month:2026-03",
        ],
    );
    assert_periods(
        &mut con,
        &c,
        last + 1,
        [
            "hour:2026-03-17T13",
            "day:2026-03-17",
            "week:2026-W12",
            "month:2026-03",
        ],
    );
    // Each vote went to its own hour board, and both to the day's.
    assert_eq!(
        shown_x(&mut con, &c, "hour:2026-03-17T12").as_deref(),
        Some("1.00")
    );
    assert_eq!(
        shown_x(&mut con, &c, "hour:2026-03-17T13").as_deref(),
        Some("1.00")
    );
    assert_eq!(
        shown_x(&mut con, &c, "day:2026-03-17").as_deref(),
        Some("2.00")
    );
}

#[test]
fn last_second_of_a_day_and_first_of_the_next() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = all_periods(&mut con, "+08:00");
    let last = local(PLUS8, (2026, 3, 17), (23, 59, 59));
    assert_periods(
        &mut con,
        &c,
        last,
        [
            "hour:2026-03-17T23",
            "day:2026-03-17",
            "week:2026-W12",
            "month:2026-03",
        ],
    );
    assert_periods(
        &mut con,
        &c,
        last + 1,
        [
            "hour:2026-03-18T00",
            "day:2026-03-18",
            "week:2026-W12",
            "month:2026-03",
        ],
    );
    // Sunday 23:59:59 local is still week 12, Monday 00:00:00 is week 13.
    let sunday = local(PLUS8, (2026, 3, 22), (23, 59, 59));
    assert_periods(
        &mut con,
        &c,
        sunday,
        [
            "hour:2026-03-22T23",
            "day:2026-03-22",
            "week:2026-W12",
            "month:2026-03",
        ],
    );
    assert_periods(
        &mut con,
        &c,
        sunday + 1,
        [
            "hour:2026-03-23T00",
            "day:2026-03-23",
            "week:2026-W13",
            "month:2026-03",
        ],
    );
    assert_eq!(
        shown_x(&mut con, &c, "day:2026-03-17").as_deref(),
        Some("1.00")
    );
    assert_eq!(
        shown_x(&mut con, &c, "day:2026-03-18").as_deref(),
        Some("1.00")
    );
    assert_eq!(
        shown_x(&mut con, &c, "week:2026-W12").as_deref(),
        Some("3.00")
    );
    assert_eq!(
        shown_x(&mut con, &c, "week:2026-W13").as_deref(),
        Some("1.00")
    );
}

#[test]
fn iso_week_53_of_2020_and_week_1_of_2021() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = all_periods(&mut con, "+08:00");
    // 2020 starts on a Wednesday and is a leap year: it has 53 ISO weeks.
    // Monday 2020-12-28 starts W53, which runs to Sunday 2021-01-03.
    assert_periods(
        &mut con,
        &c,
        local(PLUS8, (2020, 12, 28), (0, 0, 0)),
        [
            "hour:2020-12-28T00",
            "day:2020-12-28",
            "week:2020-W53",
            "month:2020-12",
        ],
    );
    assert_periods(
        &mut con,
        &c,
        local(PLUS8, (2020, 12, 27), (23, 59, 59)),
        [
            "hour:2020-12-27T23",
            "day:2020-12-27",
            "week:2020-W52",
            "month:2020-12",
        ],
    );
    assert_periods(
        &mut con,
        &c,
        local(PLUS8, (2020, 12, 31), (12, 0, 0)),
        [
            "hour:2020-12-31T12",
            "day:2020-12-31",
            "week:2020-W53",
            "month:2020-12",
        ],
    );
    assert_periods(
        &mut con,
        &c,
        local(PLUS8, (2021, 1, 1), (0, 0, 0)),
        [
            "hour:2021-01-01T00",
            "day:2021-01-01",
            "week:2020-W53",
            "month:2021-01",
        ],
    );
    let sunday = local(PLUS8, (2021, 1, 3), (23, 59, 59));
    assert_periods(
        &mut con,
        &c,
        sunday,
        [
            "hour:2021-01-03T23",
            "day:2021-01-03",
            "week:2020-W53",
            "month:2021-01",
        ],
    );
    assert_periods(
        &mut con,
        &c,
        sunday + 1,
        [
            "hour:2021-01-04T00",
            "day:2021-01-04",
            "week:2021-W01",
            "month:2021-01",
        ],
    );
    // Four votes in W53, whatever their calendar year.
    assert_eq!(
        shown_x(&mut con, &c, "week:2020-W53").as_deref(),
        Some("4.00")
    );
    assert_eq!(
        shown_x(&mut con, &c, "week:2021-W01").as_deref(),
        Some("1.00")
    );
    assert_eq!(
        shown_x(&mut con, &c, "week:2020-W52").as_deref(),
        Some("1.00")
    );
}

#[test]
fn year_2026_has_53_weeks_and_new_year_2027_is_in_its_week_53() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = all_periods(&mut con, "+08:00");
    // 2026 starts on a Thursday: 53 ISO weeks, W53 = 2026-12-28..2027-01-03.
    let eve = local(PLUS8, (2026, 12, 31), (23, 59, 59));
    assert_periods(
        &mut con,
        &c,
        eve,
        [
            "hour:2026-12-31T23",
            "day:2026-12-31",
            "week:2026-W53",
            "month:2026-12",
        ],
    );
    assert_periods(
        &mut con,
        &c,
        eve + 1,
        [
            "hour:2027-01-01T00",
            "day:2027-01-01",
            "week:2026-W53",
            "month:2027-01",
        ],
    );
    let sunday = local(PLUS8, (2027, 1, 3), (23, 59, 59));
    assert_periods(
        &mut con,
        &c,
        sunday,
        [
            "hour:2027-01-03T23",
            "day:2027-01-03",
            "week:2026-W53",
            "month:2027-01",
        ],
    );
    assert_periods(
        &mut con,
        &c,
        sunday + 1,
        [
            "hour:2027-01-04T00",
            "day:2027-01-04",
            "week:2027-W01",
            "month:2027-01",
        ],
    );
    // 2027 starts on a Friday: 52 weeks, its last week W52 ends on Sunday
    // 2028-01-02; Monday 2028-01-03 is 2028-W01.
    assert_periods(
        &mut con,
        &c,
        local(PLUS8, (2028, 1, 2), (23, 59, 59)),
        [
            "hour:2028-01-02T23",
            "day:2028-01-02",
            "week:2027-W52",
            "month:2028-01",
        ],
    );
    assert_periods(
        &mut con,
        &c,
        local(PLUS8, (2028, 1, 3), (0, 0, 0)),
        [
            "hour:2028-01-03T00",
            "day:2028-01-03",
            "week:2028-W01",
            "month:2028-01",
        ],
    );
}

#[test]
fn january_first_in_the_previous_years_last_week_and_week_1_in_december() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = all_periods(&mut con, "+08:00");
    // Saturday 2022-01-01 and Sunday 2023-01-01 belong to the previous
    // year's W52.
    assert_periods(
        &mut con,
        &c,
        local(PLUS8, (2022, 1, 1), (0, 0, 0)),
        [
            "hour:2022-01-01T00",
            "day:2022-01-01",
            "week:2021-W52",
            "month:2022-01",
        ],
    );
    assert_periods(
        &mut con,
        &c,
        local(PLUS8, (2023, 1, 1), (23, 59, 59)),
        [
            "hour:2023-01-01T23",
            "day:2023-01-01",
            "week:2022-W52",
            "month:2023-01",
        ],
    );
    assert_periods(
        &mut con,
        &c,
        local(PLUS8, (2023, 1, 2), (0, 0, 0)),
        [
            "hour:2023-01-02T00",
            "day:2023-01-02",
            "week:2023-W01",
            "month:2023-01",
        ],
    );
    // Monday 2024-12-30 already starts 2025-W01 (its Thursday is 2025-01-02).
    assert_periods(
        &mut con,
        &c,
        local(PLUS8, (2024, 12, 29), (23, 59, 59)),
        [
            "hour:2024-12-29T23",
            "day:2024-12-29",
            "week:2024-W52",
            "month:2024-12",
        ],
    );
    assert_periods(
        &mut con,
        &c,
        local(PLUS8, (2024, 12, 30), (0, 0, 0)),
        [
            "hour:2024-12-30T00",
            "day:2024-12-30",
            "week:2025-W01",
            "month:2024-12",
        ],
    );
}

#[test]
fn month_ends_including_leap_february() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = all_periods(&mut con, "+08:00");
    let leap = local(PLUS8, (2028, 2, 29), (23, 59, 59));
    assert_periods(
        &mut con,
        &c,
        leap,
        [
            "hour:2028-02-29T23",
            "day:2028-02-29",
            "week:2028-W09",
            "month:2028-02",
        ],
    );
    assert_periods(
        &mut con,
        &c,
        leap + 1,
        [
            "hour:2028-03-01T00",
            "day:2028-03-01",
            "week:2028-W09",
            "month:2028-03",
        ],
    );
    let plain = local(PLUS8, (2027, 2, 28), (23, 59, 59));
    assert_periods(
        &mut con,
        &c,
        plain,
        [
            "hour:2027-02-28T23",
            "day:2027-02-28",
            "week:2027-W08",
            "month:2027-02",
        ],
    );
    assert_periods(
        &mut con,
        &c,
        plain + 1,
        [
            "hour:2027-03-01T00",
            "day:2027-03-01",
            "week:2027-W09",
            "month:2027-03",
        ],
    );
    let april = local(PLUS8, (2026, 4, 30), (23, 59, 59));
    assert_periods(
        &mut con,
        &c,
        april,
        [
            "hour:2026-04-30T23",
            "day:2026-04-30",
            "week:2026-W18",
            "month:2026-04",
        ],
    );
    assert_periods(
        &mut con,
        &c,
        april + 1,
        [
            "hour:2026-05-01T00",
            "day:2026-05-01",
            "week:2026-W18",
            "month:2026-05",
        ],
    );
    assert_eq!(
        shown_x(&mut con, &c, "month:2028-02").as_deref(),
        Some("1.00")
    );
    assert_eq!(
        shown_x(&mut con, &c, "month:2028-03").as_deref(),
        Some("1.00")
    );
    assert_eq!(
        shown_x(&mut con, &c, "day:2028-02-29").as_deref(),
        Some("1.00")
    );
    assert_eq!(
        shown_x(&mut con, &c, "month:2027-02").as_deref(),
        Some("1.00")
    );
    assert_eq!(
        shown_x(&mut con, &c, "month:2027-03").as_deref(),
        Some("1.00")
    );
}

#[test]
fn new_year_happens_at_the_campaigns_offset_not_at_utc() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = all_periods(&mut con, "+08:00");
    let midnight = utc((2026, 12, 31), (16, 0, 0));
    assert_eq!(midnight, 1_798_732_800);
    assert_periods(
        &mut con,
        &c,
        midnight - 1,
        [
            "hour:2026-12-31T23",
            "day:2026-12-31",
            "week:2026-W53",
            "month:2026-12",
        ],
    );
    assert_periods(
        &mut con,
        &c,
        midnight,
        [
            "hour:2027-01-01T00",
            "day:2027-01-01",
            "week:2026-W53",
            "month:2027-01",
        ],
    );
    // The boards hold what the names say: one vote on each side.
    assert_eq!(
        shown_x(&mut con, &c, "day:2026-12-31").as_deref(),
        Some("1.00")
    );
    assert_eq!(
        shown_x(&mut con, &c, "day:2027-01-01").as_deref(),
        Some("1.00")
    );
    assert_eq!(
        shown_x(&mut con, &c, "month:2026-12").as_deref(),
        Some("1.00")
    );
    assert_eq!(
        shown_x(&mut con, &c, "month:2027-01").as_deref(),
        Some("1.00")
    );
    assert_eq!(
        shown_x(&mut con, &c, "week:2026-W53").as_deref(),
        Some("2.00")
    );
    assert_eq!(shown_x(&mut con, &c, "total").as_deref(), Some("2.00"));
}

#[test]
fn negative_offset_days_start_five_hours_after_utc() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = all_periods(&mut con, "-05:00");
    // 2027-01-01T04:59:59Z is still New Year's Eve at -05:00.
    let midnight = utc((2027, 1, 1), (5, 0, 0));
    assert_eq!(midnight, local(MINUS5, (2027, 1, 1), (0, 0, 0)));
    assert_periods(
        &mut con,
        &c,
        midnight - 1,
        [
            "hour:2026-12-31T23",
            "day:2026-12-31",
            "week:2026-W53",
            "month:2026-12",
        ],
    );
    assert_periods(
        &mut con,
        &c,
        midnight,
        [
            "hour:2027-01-01T00",
            "day:2027-01-01",
            "week:2026-W53",
            "month:2027-01",
        ],
    );
    // At 2026-12-31T20:00Z UTC's New Year is 4 hours away, local it is 15:00.
    assert_periods(
        &mut con,
        &c,
        utc((2026, 12, 31), (20, 0, 0)),
        [
            "hour:2026-12-31T15",
            "day:2026-12-31",
            "week:2026-W53",
            "month:2026-12",
        ],
    );
    // A UTC Monday 03:00 is still Sunday at -05:00: the week has not turned.
    assert_periods(
        &mut con,
        &c,
        utc((2027, 1, 4), (3, 0, 0)),
        [
            "hour:2027-01-03T22",
            "day:2027-01-03",
            "week:2026-W53",
            "month:2027-01",
        ],
    );
    assert_periods(
        &mut con,
        &c,
        utc((2027, 1, 4), (5, 0, 0)),
        [
            "hour:2027-01-04T00",
            "day:2027-01-04",
            "week:2027-W01",
            "month:2027-01",
        ],
    );
    assert_eq!(
        shown_x(&mut con, &c, "day:2026-12-31").as_deref(),
        Some("2.00")
    );
    assert_eq!(
        shown_x(&mut con, &c, "day:2027-01-01").as_deref(),
        Some("1.00")
    );
}

// ---- lua/src/lib/periods.lua against chrono -------------------------------------

const PERIODS_LIB: &str = include_str!("../lua/src/lib/periods.lua");

/// For each (t, offset, kind) triple of ARGV: name, start, end of the period
/// and parse_period(name, offset) -> kind, start (false where nil).
const PERIOD_BODY: &str = r#"
local out = {}
for i = 1, #ARGV, 3 do
  local t, offset, kind = tonumber(ARGV[i]), tonumber(ARGV[i + 1]), ARGV[i + 2]
  local name, s, e = period(kind, t, offset)
  local pk, ps = parse_period(name, offset)
  out[#out + 1] = name
  out[#out + 1] = s or false
  out[#out + 1] = e or false
  out[#out + 1] = pk or false
  out[#out + 1] = ps or false
end
return out
"#;

/// For each (name, offset) pair of ARGV: parse_period's kind and start, or
/// false, false.
const PARSE_BODY: &str = r#"
local out = {}
for i = 1, #ARGV, 2 do
  local kind, start = parse_period(ARGV[i], tonumber(ARGV[i + 1]))
  out[#out + 1] = kind or false
  out[#out + 1] = start or false
end
return out
"#;

const KINDS: [&str; 5] = ["hour", "day", "week", "month", "total"];

/// The reference: chrono's calendar at a fixed offset. Name, first second
/// of the period and first second of the next (None for total).
fn reference(kind: &str, t: i64, offset: i32) -> (String, Option<i64>, Option<i64>) {
    if kind == "total" {
        return ("total".to_string(), None, None);
    }
    let tz = FixedOffset::east_opt(offset).unwrap();
    let now = tz.timestamp_opt(t, 0).unwrap();
    let date = now.date_naive();
    let at = |d: NaiveDate, h: u32| {
        tz.from_local_datetime(&d.and_hms_opt(h, 0, 0).unwrap())
            .unwrap()
            .timestamp()
    };
    let next_day = |d: NaiveDate| d.succ_opt().unwrap();
    match kind {
        "hour" => {
            let start = at(date, now.hour());
            (
                format!(
                    "hour:{:04}-{:02}-{:02}T{:02}",
                    date.year(),
                    date.month(),
                    date.day(),
                    now.hour()
                ),
                Some(start),
                Some(start + 3600),
            )
        }
        "day" => (
            format!(
                "day:{:04}-{:02}-{:02}",
                date.year(),
                date.month(),
                date.day()
            ),
            Some(at(date, 0)),
            Some(at(next_day(date), 0)),
        ),
        "week" => {
            let iso = date.iso_week();
            let monday = date - chrono::Days::new(u64::from(date.weekday().num_days_from_monday()));
            let next_monday = monday + chrono::Days::new(7);
            (
                format!("week:{:04}-W{:02}", iso.year(), iso.week()),
                Some(at(monday, 0)),
                Some(at(next_monday, 0)),
            )
        }
        "month" => {
            let first = NaiveDate::from_ymd_opt(date.year(), date.month(), 1).unwrap();
            let next = if date.month() == 12 {
                NaiveDate::from_ymd_opt(date.year() + 1, 1, 1).unwrap()
            } else {
                NaiveDate::from_ymd_opt(date.year(), date.month() + 1, 1).unwrap()
            };
            (
                format!("month:{:04}-{:02}", date.year(), date.month()),
                Some(at(first, 0)),
                Some(at(next, 0)),
            )
        }
        other => panic!("no period kind {other}"),
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::BulkString(b) => String::from_utf8(b.clone()).unwrap(),
        Value::SimpleString(s) => s.clone(),
        other => panic!("expected a string, got {other:?}"),
    }
}

fn opt_int(v: &Value) -> Option<i64> {
    match v {
        Value::Nil => None,
        Value::Int(n) => Some(*n),
        other => panic!("expected an integer or nil, got {other:?}"),
    }
}

fn opt_text(v: &Value) -> Option<String> {
    match v {
        Value::Nil => None,
        v => Some(text(v)),
    }
}

fn eval(con: &mut Connection, body: &str, args: &[String]) -> Vec<Value> {
    redis::cmd("EVAL")
        .arg(format!("{PERIODS_LIB}\n{body}"))
        .arg(0)
        .arg(args)
        .query(con)
        .unwrap()
}

/// The Lua (name, start, end, parsed kind, parsed start) of each triple.
type LuaPeriod = (
    String,
    Option<i64>,
    Option<i64>,
    Option<String>,
    Option<i64>,
);

fn lua_periods(con: &mut Connection, triples: &[(i64, i32, &str)]) -> Vec<LuaPeriod> {
    let args: Vec<String> = triples
        .iter()
        .flat_map(|(t, o, k)| [t.to_string(), o.to_string(), k.to_string()])
        .collect();
    let out = eval(con, PERIOD_BODY, &args);
    assert_eq!(out.len(), triples.len() * 5);
    out.chunks(5)
        .map(|c| {
            (
                text(&c[0]),
                opt_int(&c[1]),
                opt_int(&c[2]),
                opt_text(&c[3]),
                opt_int(&c[4]),
            )
        })
        .collect()
}

/// 2100-01-01T00:00:00Z.
const Y2100: i64 = 4_102_444_800;

/// (t, offset, kind): t either anywhere in 1970..2100 or within a few
/// seconds of a local midnight (every hour, day, week and month boundary
/// is one); offsets -14:00..+14:00 in 15-minute steps.
fn triple() -> impl Strategy<Value = (i64, i32, &'static str)> {
    (
        0..Y2100,
        0i64..(Y2100 / 86400),
        -2i64..=2,
        any::<bool>(),
        -56i32..=56,
        0usize..KINDS.len(),
    )
        .prop_map(|(anywhere, day, delta, edge, quarters, kind)| {
            let offset = quarters * 900;
            let t = if edge {
                (day * 86400 - i64::from(offset) + delta).clamp(0, Y2100 - 1)
            } else {
                anywhere
            };
            (t, offset, KINDS[kind])
        })
}

#[test]
fn lua_periods_match_chrono_and_parse_back() {
    let server = common::server();
    let con = RefCell::new(common::con(&server));
    let mut runner = TestRunner::new(Config::with_cases(64));
    runner
        .run(&prop::collection::vec(triple(), 300), |triples| {
            let got = lua_periods(&mut con.borrow_mut(), &triples);
            for ((t, offset, kind), (name, start, end, parsed_kind, parsed_start)) in
                triples.iter().zip(got)
            {
                let (want_name, want_start, want_end) = reference(kind, *t, *offset);
                let ctx = format!("{kind} at {t}, offset {offset}");
                prop_assert_eq!(&name, &want_name, "{}", ctx);
                prop_assert_eq!(start, want_start, "{}", ctx);
                prop_assert_eq!(end, want_end, "{}", ctx);
                if let (Some(s), Some(e)) = (start, end) {
                    prop_assert!(s <= *t && *t < e, "{}: {} not in [{}, {})", ctx, t, s, e);
                }
                // The name parses back to its kind and first second.
                prop_assert_eq!(parsed_kind.as_deref(), Some(*kind), "{}", ctx);
                prop_assert_eq!(parsed_start, want_start, "{}", ctx);
            }
            Ok::<(), TestCaseError>(())
        })
        .unwrap();
}

/// (t, offset, kind, name, start, end).
type HandChecked = (
    i64,
    i32,
    &'static str,
    &'static str,
    Option<i64>,
    Option<i64>,
);

/// A few fixed points of the reference itself, so a bug shared by both
/// sides cannot hide: chrono and the Lua agree with hand-checked values.
#[test]
fn lua_periods_match_hand_checked_values() {
    let server = common::server();
    let mut con = common::con(&server);
    let t = 1_798_732_800; // 2026-12-31T16:00:00Z
    let cases: [HandChecked; 10] = [
        (
            t,
            28800,
            "hour",
            "hour:2027-01-01T00",
            Some(t),
            Some(t + 3600),
        ),
        (t, 28800, "day", "day:2027-01-01", Some(t), Some(t + 86400)),
        // W53 of 2026 starts Monday 2026-12-28T00:00+08:00.
        (
            t,
            28800,
            "week",
            "week:2026-W53",
            Some(t - 4 * 86400),
            Some(t + 3 * 86400),
        ),
        (
            t,
            28800,
            "month",
            "month:2027-01",
            Some(t),
            Some(t + 31 * 86400),
        ),
        (t, 28800, "total", "total", None, None),
        (
            t - 1,
            28800,
            "day",
            "day:2026-12-31",
            Some(t - 86400),
            Some(t),
        ),
        (
            t - 1,
            28800,
            "month",
            "month:2026-12",
            Some(t - 31 * 86400),
            Some(t),
        ),
        // Nepal's +05:45: hours start at :15 UTC.
        (
            t,
            20700,
            "hour",
            "hour:2026-12-31T21",
            Some(t - 2700),
            Some(t - 2700 + 3600),
        ),
        // The epoch at -14:00 is still 1969.
        (
            0,
            -50400,
            "day",
            "day:1969-12-31",
            Some(-36000),
            Some(50400),
        ),
        (
            0,
            -50400,
            "week",
            "week:1970-W01",
            Some(-208800),
            Some(396000),
        ),
    ];
    let triples: Vec<(i64, i32, &str)> = cases.iter().map(|c| (c.0, c.1, c.2)).collect();
    let got = lua_periods(&mut con, &triples);
    for (case, (name, start, end, _, _)) in cases.iter().zip(got) {
        let (t, offset, kind, want, want_start, want_end) = *case;
        assert_eq!(
            (name.as_str(), start, end),
            (want, want_start, want_end),
            "lua {kind} at {t} offset {offset}"
        );
        let (r_name, r_start, r_end) = reference(kind, t, offset);
        assert_eq!(
            (r_name.as_str(), r_start, r_end),
            (want, want_start, want_end),
            "chrono {kind} at {t} offset {offset}"
        );
    }
}

#[test]
fn parse_period_refuses_names_that_are_not_exactly_one_period() {
    let server = common::server();
    let mut con = common::con(&server);
    let invalid = [
        "hour:2026-03-17T24",
        "hour:2026-03-17T7",
        "hour:2026-03-17",
        "day:2027-02-29",
        "day:2026-02-30",
        "day:2026-04-31",
        "day:2026-03-00",
        "day:2026-3-1",
        "day:2026-03-1",
        "day:20260301",
        "day:2026-03-01 ",
        " day:2026-03-01",
        "day:",
        "Day:2026-03-01",
        "week:2026-W54",
        "week:2027-W53",
        "week:2026-W00",
        "week:2026-W5",
        "week:2026W05",
        "month:2026-13",
        "month:2026-00",
        "month:2026-3",
        "year:2026",
        "total:2026",
        "total:",
        "hour",
        "",
    ];
    let valid: [(&str, &str, i64); 8] = [
        ("hour:2026-03-17T23", "hour", 1_773_788_400 - 28800),
        ("day:2028-02-29", "day", 1_835_395_200 - 28800),
        ("week:2026-W53", "week", 1_798_416_000 - 28800),
        ("week:2020-W53", "week", 1_609_113_600 - 28800),
        ("week:2025-W01", "week", 1_735_516_800 - 28800),
        ("month:2026-12", "month", 1_796_083_200 - 28800),
        ("day:2026-03-01", "day", 1_772_323_200 - 28800),
        ("total", "total", 0),
    ];
    let mut args = Vec::new();
    for name in invalid {
        args.push(name.to_string());
        args.push("28800".to_string());
    }
    for (name, _, _) in valid {
        args.push(name.to_string());
        args.push("28800".to_string());
    }
    let out = eval(&mut con, PARSE_BODY, &args);
    assert_eq!(out.len(), args.len());
    for (i, name) in invalid.iter().enumerate() {
        assert_eq!(
            (&out[2 * i], &out[2 * i + 1]),
            (&Value::Nil, &Value::Nil),
            "{name:?} must not parse"
        );
    }
    for (j, (name, kind, start)) in valid.iter().enumerate() {
        let i = invalid.len() + j;
        assert_eq!(text(&out[2 * i]), *kind, "{name}");
        let want = if *kind == "total" { None } else { Some(*start) };
        assert_eq!(opt_int(&out[2 * i + 1]), want, "{name}");
    }
    // Cross-check the hand-written starts with chrono.
    for (name, kind, start) in valid {
        if kind != "total" {
            assert_eq!(reference(kind, start, 28800).0, name);
            assert_eq!(reference(kind, start, 28800).1, Some(start));
        }
    }

    // Through the scripts: a board keeping every period refuses each
    // malformed name with INVALID_PERIOD and reads every valid one.
    let c = all_periods(&mut con, "+08:00");
    let before = common::digest(&mut con);
    for name in invalid.iter().filter(|n| n.contains(':')) {
        match c.top(&["b"], Kind::Shown, name, 1, 10).run(&mut con) {
            Err(Error::Script { code, detail }) => {
                assert_eq!(code, Code::InvalidPeriod, "{name:?}: {detail}")
            }
            other => panic!("{name:?}: expected INVALID_PERIOD, got {other:?}"),
        }
    }
    assert_eq!(common::digest(&mut con), before);
    for (name, _, _) in valid {
        let pages = c
            .top(&["b"], Kind::Shown, name, 1, 10)
            .run(&mut con)
            .unwrap();
        assert_eq!((pages[0].period.as_str(), pages[0].size), (name, 0));
    }
}

// ---- carry-over --------------------------------------------------------------

#[test]
fn carry_over_lands_in_the_next_day_and_the_next_week() {
    let server = common::server();
    let mut con = common::con(&server);
    let campaign = Campaign::new("carry");
    let mut boards = std::collections::BTreeMap::new();
    boards.insert(
        "b".to_string(),
        BoardSettings {
            periods: Some(vec![Period::Day, Period::Week]),
            carry: Some("0.5".to_string()),
            options: [(
                "x".to_string(),
                OptionSettings {
                    weight: Some(2),
                    data: None,
                },
            )]
            .into(),
            ..Default::default()
        },
    );
    campaign
        .configure(&CampaignSettings {
            offset: Some("+08:00".to_string()),
            boards,
            ..Default::default()
        })
        .run(&mut con)
        .unwrap();
    let top = |con: &mut Connection, kind: Kind, period: &str| {
        let pages = campaign.top(&["b"], kind, period, 1, 10).run(con).unwrap();
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
