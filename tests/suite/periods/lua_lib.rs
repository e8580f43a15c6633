//! `lua/src/lib/periods.lua` itself, evaluated on the server: a property test
//! against chrono's calendar at fixed offsets (names, first and next
//! seconds, names parsed back), hand-checked fixed points of both, and the
//! names that are not exactly one period (refused by parse_period and by the
//! scripts with INVALID_PERIOD, writing nothing).

use std::cell::RefCell;

use chrono::{Datelike, FixedOffset, NaiveDate, TimeZone, Timelike};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use redis::{Connection, Value};
use redvote::{Code, Kind};

use super::all_periods;
use crate::support::{self, refused_unchanged};

const PERIODS_LIB: &str = include_str!("../../../lua/src/lib/periods.lua");

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

/// Every local day of 1970..2100, at two offsets (one east, one west and
/// not whole hours), for the kinds whose bounds depend on the calendar
/// (day, week: the ISO year from the day but in a year's first or last 3
/// days; month: its length and the leap-year rule): name, bounds and the
/// name parsed back, against chrono. The property test samples; this one
/// leaves no day out.
#[test]
fn every_day_from_1970_to_2100_matches_chrono() {
    let server = support::server();
    let mut con = support::con(&server);
    for offset in [8 * 3600, -(9 * 3600 + 1800)] {
        let triples: Vec<(i64, i32, &str)> = (0..Y2100 / 86400)
            .flat_map(|day| {
                let noon = day * 86400 + 43200 - i64::from(offset);
                ["day", "week", "month"].map(move |kind| (noon, offset, kind))
            })
            .collect();
        for chunk in triples.chunks(6000) {
            let got = lua_periods(&mut con, chunk);
            for ((t, offset, kind), (name, start, end, parsed_kind, parsed_start)) in
                chunk.iter().zip(got)
            {
                let (want_name, want_start, want_end) = reference(kind, *t, *offset);
                let ctx = format!("{kind} at {t}, offset {offset}");
                assert_eq!(name, want_name, "{ctx}");
                assert_eq!((start, end), (want_start, want_end), "{ctx}");
                assert_eq!(
                    (parsed_kind.as_deref(), parsed_start),
                    (Some(*kind), want_start),
                    "{ctx}"
                );
            }
        }
    }
}

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
    let server = support::server();
    let con = RefCell::new(support::con(&server));
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
    let server = support::server();
    let mut con = support::con(&server);
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
    let server = support::server();
    let mut con = support::con(&server);
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
    let before = support::digest(&mut con);
    for name in invalid.iter().filter(|n| n.contains(':')) {
        refused_unchanged(&mut con, &format!("{name:?}"), Code::InvalidPeriod, |con| {
            c.top(
                &["b"],
                &redvote::View::new(Kind::Shown, *name),
                redvote::Paging::new(1, 10),
            )
            .run(con)
        });
    }
    assert_eq!(support::digest(&mut con), before);
    for (name, _, _) in valid {
        let pages = c
            .top(
                &["b"],
                &redvote::View::new(Kind::Shown, name),
                redvote::Paging::new(1, 10),
            )
            .run(&mut con)
            .unwrap();
        assert_eq!((pages[0].period.as_str(), pages[0].size), (name, 0));
    }
}
