//! `redvote campaign NAME stats BOARD`: a board's votes per hour or per
//! day (`Campaign::stats`, one read-only call; docs/statistics.md), as
//! lines, `--json` or `--csv`. `--from` / `--to` are Unix seconds or
//! period names read in the campaign's offset (docs/export.md).

use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use redvote::campaign::Granularity;
use redvote::Campaign;
use serde_json::json;

use crate::{out, print, Global};

/// `--by`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ByArg {
    /// One bucket an hour (at most 336 a call)
    Hour,
    /// One bucket a day (at most 366 a call)
    Day,
}

/// `campaign NAME stats BOARD ...`.
#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Board
    board: String,
    /// Bucket size, in the campaign's offset
    #[arg(long, value_enum, default_value = "hour")]
    by: ByArg,
    /// From the bucket holding this moment: Unix seconds, or a period name in the campaign's offset (its start), e.g. day:2026-03-17 [default: 24 hours (--by hour) or 30 days (--by day) before --to]
    #[arg(long, value_parser = moment_arg)]
    from: Option<String>,
    /// To this moment, exclusive: Unix seconds, or a period name (its end) [default: now]
    #[arg(long, value_parser = moment_arg)]
    to: Option<String>,
    /// Print the series as CSV (a header line, then a line a bucket)
    #[arg(long)]
    csv: bool,
}

/// Unix seconds or a period name (hour:..., day:..., week:..., month:...).
fn moment_arg(s: &str) -> Result<String, String> {
    let seconds = !s.is_empty() && s.len() <= 12 && s.bytes().all(|b| b.is_ascii_digit());
    if seconds || redvote_check::calendar::parse_period(s, 0).is_some() {
        Ok(s.to_string())
    } else {
        Err(
            "a moment is Unix seconds or a period name such as hour:2026-03-17T10, \
             day:2026-03-17, week:2026-W12, month:2026-03"
                .to_string(),
        )
    }
}

/// Run the command.
pub fn run(g: &Global, c: &Campaign, a: &StatsArgs) -> Result<()> {
    let by = match a.by {
        ByArg::Hour => Granularity::Hour,
        ByArg::Day => Granularity::Day,
    };
    let mut con = g.connect_for(c.root_key())?;
    let mut offset: Option<i64> = None;
    let mut moment = |s: &str, end: bool| -> Result<u64> {
        if let Ok(t) = s.parse::<u64>() {
            return Ok(t);
        }
        if offset.is_none() {
            let stored: Option<String> = redis::cmd("HGET")
                .arg(c.root_key())
                .arg("offset")
                .query(con.redis()?)
                .context("cannot read the campaign's offset")?;
            offset = Some(stored.and_then(|o| o.parse().ok()).unwrap_or(0));
        }
        let (_, start, stop) = redvote_check::calendar::parse_period(s, offset.unwrap_or(0))
            .with_context(|| format!("{s:?} is not a period name"))?;
        Ok(u64::try_from(if end { stop } else { start }).unwrap_or(0))
    };
    let to = match &a.to {
        Some(t) => moment(t, true)?,
        None => SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    };
    let from = match &a.from {
        Some(f) => moment(f, false)?,
        None => to.saturating_sub(match by {
            // 24 hour buckets (30 day buckets), the one of `to` included
            Granularity::Hour => 23 * 3600,
            Granularity::Day => 29 * 86400,
        }),
    };
    let series = g.run_on(&mut con, &c.stats(&a.board, by, from, to))?;
    if a.csv {
        return out(series.to_csv().trim_end_matches('\n'));
    }
    let shape = json!({
        "board": a.board,
        "by": by,
        "from": from,
        "to": to,
        "buckets": series.buckets,
    });
    print(g, &shape, |_| {
        let lines: Vec<String> = series
            .buckets
            .iter()
            .map(|b| {
                format!(
                    "{}  votes {}  amount {}  voided {}  participants {}",
                    b.period, b.votes, b.amount, b.voided, b.participants
                )
            })
            .collect();
        if lines.is_empty() {
            "no buckets".to_string()
        } else {
            lines.join("\n")
        }
    })
}
