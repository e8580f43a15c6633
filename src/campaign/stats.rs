//! Statistics and voiding: the typed results of [`crate::Campaign::stats`],
//! [`crate::Campaign::void`] and [`crate::Campaign::void_range`], read from
//! the replies of `campaign_stats.lua`, `campaign_void.lua` and
//! `campaign_void_range.lua` (docs/statistics.md), and the CSV form of a
//! series.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use redis::Value;
use serde::{Deserialize, Serialize};

use crate::reply::{count, get, items, reply_type, text, Shape};
use crate::words::words;

/// The bucket size of a statistics series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Granularity {
    /// One bucket an hour (`hour:2026-03-17T12`); at most 336 a call.
    #[default]
    Hour,
    /// One bucket a day (`day:2026-03-17`); at most 366 a call.
    Day,
}

/// What [`crate::Campaign::void_range`] selects votes of the log by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum VoidBy {
    /// The voting user.
    User,
    /// The vote's channel ([`crate::Voter::channel`]).
    Channel,
}

words!(Granularity { Hour => "hour", Day => "day" });
words!(VoidBy { User => "user", Channel => "channel" });

impl Granularity {
    /// Seconds a bucket spans (the campaign's offset is whole minutes, so
    /// every hour and day of it is 3600 / 86400 seconds).
    pub fn seconds(self) -> u64 {
        match self {
            Granularity::Hour => 3600,
            Granularity::Day => 86400,
        }
    }

    /// The most buckets one [`crate::Campaign::stats`] call reads.
    pub fn max_buckets(self) -> u64 {
        match self {
            Granularity::Hour => 336,
            Granularity::Day => 366,
        }
    }
}

/// One hour or day of a board's statistics. Every count is of (board,
/// option) pairs voted on the board: a batch vote of two pairs on it counts
/// 2. Voided votes stay in `votes` (and their channel and device) and are
/// counted again in `voided`, in the bucket of the vote: what stands is
/// `votes - voided`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StatsBucket {
    /// The bucket's period name: `hour:2026-03-17T12` or `day:2026-03-17`.
    pub period: String,
    /// Its first second (Unix seconds).
    pub start: u64,
    /// Votes (pairs) on the board.
    pub votes: u64,
    /// Their weights summed (what they added to the shown boards, carry
    /// aside).
    pub amount: u64,
    /// Votes of the bucket voided since.
    pub voided: u64,
    /// Their weights summed.
    pub voided_amount: u64,
    /// The campaign's participants in the bucket (all boards; a
    /// HyperLogLog's estimate, about 0.81 % standard error).
    pub participants: u64,
    /// Votes by channel: the first 32 channels of the bucket by name, the
    /// others together under `"*"` (no channel name holds a `*`). Votes
    /// without a channel are in no entry.
    pub channels: BTreeMap<String, u64>,
    /// Votes by device, as `channels`.
    pub devices: BTreeMap<String, u64>,
}

/// A board's statistics series ([`crate::Campaign::stats`]): one bucket an
/// hour or a day of the range, in time order, empty ones included.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Stats {
    /// The buckets, oldest first.
    pub buckets: Vec<StatsBucket>,
}

impl Stats {
    /// The series as CSV (RFC 4180, `\n` line ends): a header line
    /// `period,start,votes,amount,voided,voided_amount,participants`, then
    /// a column `ch:NAME` for every channel and `dev:NAME` for every device
    /// of any bucket (sorted; `ch:*` / `dev:*` the others), and one line a
    /// bucket. Names need no quoting (board, channel and device names hold
    /// no comma, quote or space).
    ///
    /// ```
    /// let stats = redvote::campaign::Stats { buckets: vec![redvote::campaign::StatsBucket {
    ///     period: "day:2026-03-17".into(),
    ///     start: 1773705600,
    ///     votes: 3,
    ///     amount: 4,
    ///     channels: [("app".to_string(), 2)].into(),
    ///     ..Default::default()
    /// }] };
    /// assert_eq!(
    ///     stats.to_csv(),
    ///     "period,start,votes,amount,voided,voided_amount,participants,ch:app\n\
    ///      day:2026-03-17,1773705600,3,4,0,0,0,2\n"
    /// );
    /// ```
    pub fn to_csv(&self) -> String {
        let channels: BTreeSet<&str> = self
            .buckets
            .iter()
            .flat_map(|b| b.channels.keys().map(String::as_str))
            .collect();
        let devices: BTreeSet<&str> = self
            .buckets
            .iter()
            .flat_map(|b| b.devices.keys().map(String::as_str))
            .collect();
        let mut out = String::from("period,start,votes,amount,voided,voided_amount,participants");
        for c in &channels {
            let _ = write!(out, ",ch:{c}");
        }
        for d in &devices {
            let _ = write!(out, ",dev:{d}");
        }
        out.push('\n');
        for b in &self.buckets {
            let _ = write!(
                out,
                "{},{},{},{},{},{},{}",
                b.period, b.start, b.votes, b.amount, b.voided, b.voided_amount, b.participants
            );
            for c in &channels {
                let _ = write!(out, ",{}", b.channels.get(*c).copied().unwrap_or(0));
            }
            for d in &devices {
                let _ = write!(out, ",{}", b.devices.get(*d).copied().unwrap_or(0));
            }
            out.push('\n');
        }
        out
    }

    /// Votes summed over the buckets (`votes - voided` is what stands).
    pub fn votes(&self) -> u64 {
        self.buckets.iter().map(|b| b.votes).sum()
    }

    /// Voided votes summed over the buckets.
    pub fn voided(&self) -> u64 {
        self.buckets.iter().map(|b| b.voided).sum()
    }
}

/// What [`crate::Campaign::void`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Voided {
    /// The vote had been voided before: nothing changed now.
    pub already: bool,
    /// When it was voided (Unix seconds, the server's clock).
    pub at: u64,
    /// Period board entries changed (real, shown and carry, each board and
    /// period); 0 when `already`.
    pub changed: u64,
    /// Entries skipped: their board or member is gone (expired, removed).
    pub skipped: u64,
}

/// One step of [`crate::Campaign::void_range`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VoidedRange {
    /// Votes voided by this call.
    pub voided: u64,
    /// Log entries read that were another user's or channel's.
    pub others: u64,
    /// The cursor for the next call; `"0"` when the range is done.
    pub next: String,
}

impl VoidedRange {
    /// The range is done: no call needed.
    pub fn is_done(&self) -> bool {
        self.next == "0"
    }
}

fn counts(v: &Value) -> Shape<BTreeMap<String, u64>> {
    items(v.clone())?
        .chunks(2)
        .map(|c| Ok((text(get(c, 0)?)?, count(get(c, 1)?)?)))
        .collect()
}

reply_type! {
    // `campaign_stats.lua`: per bucket `{ period, start, votes, amount,
    // voided, voided_amount, participants, { channel, n, ... }, { device,
    // n, ... } }`.
    Stats => |v| {
        let buckets = items(v)?
            .into_iter()
            .map(|b| {
                let b = items(b)?;
                Ok(StatsBucket {
                    period: text(get(&b, 0)?)?,
                    start: count(get(&b, 1)?)?,
                    votes: count(get(&b, 2)?)?,
                    amount: count(get(&b, 3)?)?,
                    voided: count(get(&b, 4)?)?,
                    voided_amount: count(get(&b, 5)?)?,
                    participants: count(get(&b, 6)?)?,
                    channels: counts(get(&b, 7)?)?,
                    devices: counts(get(&b, 8)?)?,
                })
            })
            .collect::<Shape<_>>()?;
        Ok(Stats { buckets })
    };
    // `campaign_void.lua`: `{ "voided" | "already_voided", at, changed, skipped }`.
    Voided => |v| {
        let r = items(v)?;
        let status = text(get(&r, 0)?)?;
        let already = match status.as_str() {
            "voided" => false,
            "already_voided" => true,
            other => return Err(format!("expected voided or already_voided, got {other:?}")),
        };
        Ok(Voided {
            already,
            at: count(get(&r, 1)?)?,
            changed: count(get(&r, 2)?)?,
            skipped: count(get(&r, 3)?)?,
        })
    };
    // `campaign_void_range.lua`: `{ voided, others, next cursor }`.
    VoidedRange => |v| {
        let r = items(v)?;
        Ok(VoidedRange {
            voided: count(get(&r, 0)?)?,
            others: count(get(&r, 1)?)?,
            next: text(get(&r, 2)?)?,
        })
    };
}
