//! `redvote campaign NAME fold`: a buffered campaign's accepted votes
//! written to its boards (docs/hot-campaigns.md), and [`folded_first`],
//! the one path of every command whose call a full buffer refuses
//! (`REDVOTE_UNFOLDED`: configure, remove-options, void).

use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use clap::Args;
use redvote::reply::Reply;
use redvote::{Call, Campaign, Code, Connection};
use serde::Serialize;

use crate::{print, Global};

/// The most votes one fold call takes (`campaign_fold.lua`'s bound).
const FOLD_MAX: u32 = redvote::caps::FOLD_VOTES;

/// How long a call refused `REDVOTE_UNFOLDED` folds the buffer at most
/// before it gives up: votes that keep arriving as fast as the folds take
/// them would keep it from ever emptying.
const DRAIN_WITHIN: Duration = Duration::from_secs(30);

/// `fold [--max N] [--all [--within S]]`.
#[derive(Args, Debug)]
pub struct FoldArgs {
    /// The most votes a fold call takes (1..1000)
    #[arg(long, default_value_t = FOLD_MAX, value_parser = clap::value_parser!(u32).range(1..=FOLD_MAX as i64))]
    max: u32,
    /// Fold calls until nothing is buffered (for at most --within seconds)
    #[arg(long)]
    all: bool,
    /// With --all: seconds to fold at most before giving up (exit 1)
    #[arg(long, default_value_t = DRAIN_WITHIN.as_secs_f64(), value_parser = crate::seconds, requires = "all")]
    within: f64,
}

/// What the fold calls of one command did, summed.
#[derive(Debug, Default, Serialize)]
struct Folding {
    /// Votes written to the boards.
    folded: u64,
    /// Votes still buffered after the last call.
    left: u64,
    /// Unix ms before which every accepted vote is on the boards.
    until: u64,
    /// Board entries left out beyond the exact range of scores.
    overflow: u64,
    /// Fold calls sent.
    calls: u64,
}

impl Folding {
    fn add(&mut self, step: redvote::Folded) {
        self.folded += step.folded;
        self.left = step.left;
        self.until = step.until;
        self.overflow += step.overflow;
        self.calls += 1;
    }
}

/// Run `fold`: one call of `--max` votes, or with `--all` calls until the
/// buffer is empty.
pub fn run(g: &Global, campaign: &Campaign, args: &FoldArgs) -> Result<()> {
    let mut con = g.connect()?;
    let done = if args.all {
        drain(
            g,
            &mut con,
            campaign,
            args.max,
            Duration::from_secs_f64(args.within),
        )?
    } else {
        let mut done = Folding::default();
        done.add(g.run_on(&mut con, &campaign.fold(args.max))?);
        done
    };
    print(g, &done, |d| {
        let mut out = format!(
            "folded {} vote(s) in {} call(s), {} left; boards {}",
            d.folded,
            d.calls,
            d.left,
            folded_words(d.until)
        );
        if d.overflow > 0 {
            out.push_str(&format!(
                "; {} board entr{} left out beyond the exact range of scores",
                d.overflow,
                if d.overflow == 1 { "y" } else { "ies" }
            ));
        }
        out
    })
}

/// Fold calls of `max` votes on `con` until nothing is buffered; an error
/// when votes are still buffered after `within`.
fn drain(
    g: &Global,
    con: &mut Connection,
    campaign: &Campaign,
    max: u32,
    within: Duration,
) -> Result<Folding> {
    let end = Instant::now() + within;
    let mut done = Folding::default();
    loop {
        done.add(g.run_on(con, &campaign.fold(max))?);
        if done.left == 0 {
            return Ok(done);
        }
        if Instant::now() >= end {
            bail!(
                "{} vote(s) still buffered after {} s of folding ({} folded in {} call(s)): \
                 votes arrive as fast as the folds take them",
                done.left,
                within.as_secs_f64(),
                done.folded,
                done.calls
            );
        }
    }
}

/// Run `call` of `campaign` on `con`. When the campaign's buffer holds more
/// than the call folds itself (`REDVOTE_UNFOLDED`: it wrote nothing), fold
/// it all first, then send the call once more.
pub fn folded_first<T: Reply + Send>(
    g: &Global,
    con: &mut Connection,
    campaign: &Campaign,
    call: &Call<T>,
) -> Result<T> {
    match g.run_on(con, call) {
        Err(err) if crate::driver_error(&err).and_then(|e| e.code()) == Some(Code::Unfolded) => {
            drain(g, con, campaign, FOLD_MAX, DRAIN_WITHIN)?;
            g.run_on(con, call)
        }
        done => done,
    }
}

/// How far a buffered campaign's boards are folded, in words: `folded up
/// to <time>` (every vote accepted before it is on the boards), or `not
/// folded yet` (0: a campaign made buffered by a build that did not record
/// the switch's time).
pub fn folded_words(ms: u64) -> String {
    match ms {
        0 => "not folded yet".to_string(),
        ms => format!("folded up to {}", ms_time(ms)),
    }
}

/// A Unix ms as a UTC time to the millisecond (`2026-03-17T12:00:00.250Z`).
fn ms_time(ms: u64) -> String {
    i64::try_from(ms)
        .ok()
        .and_then(chrono::DateTime::from_timestamp_millis)
        .map_or_else(
            || format!("{ms} ms"),
            |t| t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
        )
}
