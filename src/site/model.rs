//! The site's values: votes, orders and rankings, the typed results of its
//! operations and its settings. All of them serialize with serde (the CLI's
//! `--json`); how each is read from its script's reply is in `reply.rs`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::words::words;

/// A user's vote on an article.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Vote {
    /// An upvote: the user is in `voted:ID` (as in the seeds).
    Up,
    /// A downvote: the user is in `downvoted:ID`.
    Down,
    /// No vote.
    #[default]
    None,
}

/// The sorted set a page is read from, highest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// `score:`: time + vote_score x (votes - downvotes) (the seeds' ranking).
    #[default]
    Score,
    /// `time:`: newest first.
    Time,
    /// `hot:`: Reddit's hot ranking (when switched on).
    Hot,
    /// `best:`: Wilson lower bound of the upvote share (when switched on).
    Best,
}

/// An extra ranking a site may keep beside `score:` (see [`Config`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Ranking {
    /// `hot:` = sign(s) x log10(max(|s|, 1)) + (time - 1134028003) / 45000, s = up - down.
    Hot,
    /// `best:` = Wilson lower bound of up / (up + down), z = 1.281551565545.
    Best,
}

words!(Vote { Up => "up", Down => "down", None => "none" });
words!(Order { Score => "score", Time => "time", Hot => "hot", Best => "best" });
words!(Ranking { Hot => "hot", Best => "best" });

/// One article: its hash fields, its id and its score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Article {
    /// The number, as a string (`"7"` for `article:7`).
    pub id: String,
    /// Title.
    pub title: String,
    /// Link.
    pub link: String,
    /// The user who posted it.
    pub poster: String,
    /// Publish time, Unix seconds (the seeds' Python writes fractions: floored).
    pub time: i64,
    /// Upvotes, the poster's own included (hash field `votes`).
    pub votes: i64,
    /// Downvotes (hash field `downvotes`; absent in seed data, read as 0).
    pub downvotes: i64,
    /// The article's `score:` value, if it has one (in a page only when
    /// asked for: [`crate::PageCall::with_scores`]).
    pub score: Option<f64>,
    /// 1-based rank in `score:` (only from [`crate::Site::article`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u64>,
    /// The asking user's vote (only from [`crate::Site::article`] given a user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_vote: Option<Vote>,
    /// Hash fields other than the ones above, kept as they are.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, String>,
}

/// One page of articles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page {
    /// The order the page was read in.
    pub order: Order,
    /// The group, for a group page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// 1-based page number.
    pub page: u32,
    /// Articles per page.
    pub per_page: u32,
    /// Articles in the whole ordering (to compute the page count).
    pub total: u64,
    /// This page's articles, highest first.
    pub articles: Vec<Article>,
}

/// What a vote did.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VoteOutcome {
    /// False when the user's vote already was the requested one (a repeated
    /// upvote): nothing was written.
    pub changed: bool,
    /// The user's vote before the call.
    pub previous: Vote,
    /// The user's vote now.
    pub vote: Vote,
    /// The article's score after the call.
    pub score: Option<f64>,
    /// Upvotes after the call.
    pub votes: i64,
    /// Downvotes after the call.
    pub downvotes: i64,
}

/// What a [`crate::Site::rerank`] batch did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Reranked {
    /// Articles ranked in this batch.
    pub ranked: u64,
    /// Where the next batch starts; 0 when this one reached the end.
    pub next: u64,
}

/// What a [`crate::Site::upgrade`] step did (`upgrade.lua`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SiteUpgraded {
    /// The site's data layout before this call (1: the seeds' groups, a
    /// group page rebuilt by `ZINTERSTORE`).
    pub from: u32,
    /// The layout the upgrade moves to (2: group boards kept up to date).
    pub to: u32,
    /// The cursor for the next call; `"0"` when the upgrade is done.
    pub next: String,
}

impl SiteUpgraded {
    /// The site is at layout 2.
    pub fn is_done(&self) -> bool {
        self.next == "0"
    }
}

/// What a group change did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GroupChange {
    /// Groups the article newly joined.
    pub added: u64,
    /// Groups the article left.
    pub removed: u64,
}

/// A site's settings, stored in Redis at `<prefix>redvote:config` so every
/// client of the site applies the same ones (defaults when absent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Config {
    /// Score of one net vote (default 432 = 86400 / 200). Fixed once the site has articles.
    pub vote_score: u32,
    /// Voting window after the publish time, seconds (default 604800, a week).
    pub window: u64,
    /// Default articles per page (default 25, at most 100).
    pub page_size: u32,
    /// Extra rankings kept beside `score:` (default none).
    pub rankings: Vec<Ranking>,
}

/// A change to a site's settings: `None` leaves a setting as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigUpdate {
    /// New vote score (refused with `REDVOTE_CONFIG_LOCKED` once articles exist).
    pub vote_score: Option<u32>,
    /// New voting window, seconds (60 ..= 315360000).
    pub window: Option<u64>,
    /// New default page size (1 ..= 100).
    pub page_size: Option<u32>,
    /// New set of extra rankings.
    pub rankings: Option<Vec<Ranking>>,
}

impl ConfigUpdate {
    /// The `field, value` pairs `configure.lua` takes.
    pub(crate) fn to_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        let mut push = |field: &str, value: String| {
            args.push(field.to_string());
            args.push(value);
        };
        if let Some(v) = self.vote_score {
            push("vote_score", v.to_string());
        }
        if let Some(v) = self.window {
            push("window", v.to_string());
        }
        if let Some(v) = self.page_size {
            push("page_size", v.to_string());
        }
        if let Some(v) = &self.rankings {
            let names: Vec<&str> = v.iter().map(|r| r.as_str()).collect();
            push("rankings", names.join(","));
        }
        args
    }
}
