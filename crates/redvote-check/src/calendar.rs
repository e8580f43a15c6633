//! Calendar periods in a fixed UTC offset, as `lua/src/lib/periods.lua`
//! computes them (H. Hinnant's civil-date algorithms), for Rust code that
//! must name the same periods as the scripts: the checker (a period's bounds
//! from its name, the period before one) and the benchmark (the seed's
//! client-side keys). A test compares the Lua with chrono; this module's
//! tests compare names both ways.

use redvote::Period;

/// The calendar period named `hour`, `day`, `week` or `month` (the kinds
/// of a board's periods and of a fixed rate-limit window); not `total`.
pub fn calendar_period(name: &str) -> Option<Period> {
    Some(match name {
        "hour" => Period::Hour,
        "day" => Period::Day,
        "week" => Period::Week,
        "month" => Period::Month,
        _ => return None,
    })
}

/// The name of a period kind, as [`calendar_period`] takes it (and
/// `total`).
pub fn kind_name(kind: Period) -> &'static str {
    match kind {
        Period::Hour => "hour",
        Period::Day => "day",
        Period::Week => "week",
        Period::Month => "month",
        Period::Total => "total",
    }
}

fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468
}

/// The period of `kind` holding second `t` at `offset` seconds east of UTC:
/// its name (`day:2026-03-17`), first second and end (first second of the
/// next period). The total period holds every second: (`total`, `i64::MIN`,
/// `i64::MAX`).
pub fn period(kind: Period, t: i64, offset: i64) -> (String, i64, i64) {
    let lt = t + offset;
    let days = lt.div_euclid(86400);
    let (y, m, d) = civil(days);
    match kind {
        Period::Total => ("total".to_string(), i64::MIN, i64::MAX),
        Period::Hour => {
            let start = lt.div_euclid(3600) * 3600;
            let h = (start - days * 86400) / 3600;
            (
                format!("hour:{y:04}-{m:02}-{d:02}T{h:02}"),
                start - offset,
                start + 3600 - offset,
            )
        }
        Period::Day => (
            format!("day:{y:04}-{m:02}-{d:02}"),
            days * 86400 - offset,
            (days + 1) * 86400 - offset,
        ),
        Period::Week => {
            let monday = days - (days + 3).rem_euclid(7);
            let (iso_year, _, _) = civil(monday + 3);
            let week = (monday + 3 - days_from_civil(iso_year, 1, 1)).div_euclid(7) + 1;
            (
                format!("week:{iso_year:04}-W{week:02}"),
                monday * 86400 - offset,
                (monday + 7) * 86400 - offset,
            )
        }
        Period::Month => {
            let first = days_from_civil(y, m, 1);
            let next = if m == 12 {
                days_from_civil(y + 1, 1, 1)
            } else {
                days_from_civil(y, m + 1, 1)
            };
            (
                format!("month:{y:04}-{m:02}"),
                first * 86400 - offset,
                next * 86400 - offset,
            )
        }
    }
}

/// The period of board period `kind` holding second `t` at `offset`, as
/// `campaign_vote.lua` names it (`total` for the total board), and its end
/// (the first second of the next period; `None` for total).
pub fn period_of(kind: Period, t: i64, offset: i64) -> (String, Option<i64>) {
    let (name, _, end) = period(kind, t, offset);
    (name, (kind != Period::Total).then_some(end))
}

fn number(s: &str, width: usize) -> Option<i64> {
    (s.len() == width && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// A period name (`hour:2026-03-17T12`, `day:...`, `week:2026-W12`,
/// `month:2026-03`; not `total`) back to its kind, first second and end at
/// `offset`; `None` unless it is exactly one period's name, as the scripts
/// write it.
pub fn parse_period(name: &str, offset: i64) -> Option<(Period, i64, i64)> {
    let (kind, rest) = name.split_once(':')?;
    let kind = calendar_period(kind)?;
    let date = |s: &str| -> Option<i64> {
        let (y, md) = s.split_once('-')?;
        let (m, d) = md.split_once('-')?;
        let (y, m, d) = (number(y, 4)?, number(m, 2)?, number(d, 2)?);
        ((1..=12).contains(&m) && (1..=31).contains(&d)).then(|| days_from_civil(y, m, d))
    };
    let lt = match kind {
        Period::Total => return None,
        Period::Hour => {
            let (day, h) = rest.split_once('T')?;
            date(day)? * 86400 + number(h, 2)? * 3600
        }
        Period::Day => date(rest)? * 86400,
        Period::Week => {
            let (y, w) = rest.split_once("-W")?;
            let jan4 = days_from_civil(number(y, 4)?, 1, 4);
            (jan4 - (jan4 + 3).rem_euclid(7) + (number(w, 2)? - 1) * 7) * 86400
        }
        Period::Month => {
            let (y, m) = rest.split_once('-')?;
            let m = number(m, 2)?;
            if !(1..=12).contains(&m) {
                return None;
            }
            days_from_civil(number(y, 4)?, m, 1) * 86400
        }
    };
    let (again, start, end) = period(kind, lt - offset, offset);
    (again == name).then_some((kind, start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_at_offsets() {
        // 2026-03-17 12:34:56 UTC, a Tuesday of ISO week 12
        let t = 1773750896;
        for (offset, names) in [
            (
                0,
                [
                    "hour:2026-03-17T12",
                    "day:2026-03-17",
                    "week:2026-W12",
                    "month:2026-03",
                ],
            ),
            (
                8 * 3600,
                [
                    "hour:2026-03-17T20",
                    "day:2026-03-17",
                    "week:2026-W12",
                    "month:2026-03",
                ],
            ),
            (
                -13 * 3600,
                [
                    "hour:2026-03-16T23",
                    "day:2026-03-16",
                    "week:2026-W12",
                    "month:2026-03",
                ],
            ),
        ] {
            for (kind, want) in [Period::Hour, Period::Day, Period::Week, Period::Month]
                .into_iter()
                .zip(names)
            {
                let (name, start, end) = period(kind, t, offset);
                assert_eq!(name, want);
                assert!(start <= t && t < end);
                assert_eq!(parse_period(&name, offset), Some((kind, start, end)));
                assert_eq!(period(kind, start - 1, offset).2, start);
            }
        }
    }

    #[test]
    fn iso_weeks_across_new_year_and_bad_names() {
        // 2021-01-03 (a Sunday) is in 2020-W53; 2027-01-01 in 2026-W53
        assert_eq!(period(Period::Week, 1609632000, 0).0, "week:2020-W53");
        assert_eq!(period(Period::Week, 1798761600, 0).0, "week:2026-W53");
        for bad in [
            "hour:2026-03-17T24",
            "day:2027-02-29",
            "week:2026-W54",
            "month:2026-13",
            "day:2026-3-17",
            "total",
            "year:2026",
        ] {
            assert_eq!(parse_period(bad, 0), None, "{bad}");
        }
        assert!(parse_period("day:2028-02-29", 0).is_some());
    }
}
