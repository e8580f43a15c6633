//! Atomic voting and ranking for Redis: one Lua script per operation, run
//! through a thin driver.
//!
//! Two systems share the driver:
//! - [`Site`]: the article-voting site of "Redis in Action" chapter 1 (post,
//!   vote/downvote/retract, pages by score, time, hot or best, groups), over
//!   the seeds' own keys;
//! - [`Campaign`]: campaign leaderboards (period boards, weighted votes,
//!   carry-over, tie rules, unique participants, rank queries, batch votes,
//!   rate limits).
//!
//! Every method returns a [`Call`], plain data: nothing is sent until
//! [`Call::run`] (sync) or [`Call::run_async`] (async, feature `async`), or
//! until it joins a [`redis::Pipeline`](https://docs.rs/redis/1.8/redis/struct.Pipeline.html) ([`Call::add_to`], then
//! [`Call::decode`]). A call is one `EVALSHA` that validates every argument
//! and stored value before its first write, so a refused call writes
//! nothing; the driver recovers from `NOSCRIPT` by itself.
//!
//! ```
//! use redvote::{Campaign, Paging, Site, View};
//!
//! let vote = Site::default().vote("user:2", "7");
//! assert_eq!(vote.to_string().split(' ').next(), Some("EVALSHA"));
//! let top = Campaign::new("spring").top(&["stars"], &View::shown("day"), Paging::top(10));
//! assert_eq!(top.key(), "{c:spring}:campaign");
//! ```
//!
//! # Errors
//! A script refuses with a stable code (`REDVOTE_UNKNOWN_ARTICLE ...`),
//! read as [`Error::Script`] with a [`Code`], or [`Error::RateLimited`] with
//! the rule, the retry time and what each rule leaves. [`Error::Redis`] is
//! the connection's own error (a Redis that is down).
//!
//! # Redis Cluster
//! Every script takes exactly one key, the root of its site
//! (`<prefix>article:`) or campaign (`<ns>campaign`), and derives the other
//! keys from that prefix: a hash-tagged prefix (`{site1}:`; campaigns get
//! `{c:<name>}:` by default) keeps a call in one slot. An untagged prefix on
//! a cluster is refused by Redis, possibly after a first write.
//!
//! # Features
//! - `async` (default): [`Call::run_async`] and [`AsyncConnection`] on
//!   redis-rs's tokio connections (and its async cluster client). Without
//!   it (`default-features = false`) the crate compiles no tokio.
//! - `tls` (opt-in): `rediss://` URLs (and `rediss+sentinel://`,
//!   `rediss+cluster://`) through rustls with the ring provider, a custom CA
//!   and client certificates ([`Tls`]); brings `async`.
//! - `openapi` (opt-in): `utoipa::ToSchema` on the public value, settings
//!   and result types (the OpenAPI schemas of the service, `redvote-serve`).
//!
//! The command line (`redvote-cli`), the HTTP service (`redvote-serve`),
//! the invariant checker (`redvote-check`), the test harness
//! (`redvote-testing`) and the benchmark are other crates of the workspace:
//! this one depends on none of them.
//!
//! # Layout
//! - [`site`]: the article site: [`Site`], its values and results, their
//!   decoding.
//! - [`campaign`]: campaigns: [`Campaign`], settings, values and results,
//!   their decoding.
//! - [`call`]: [`Call`], one prepared script invocation.
//! - [`client`]: [`Client`] (where to connect, timeouts, retries, the wait
//!   for replicas), [`Connection`] and [`AsyncConnection`], which run every
//!   call type under the retry policy.
//! - [`caps`]: the largest sizes the scripts accept (page sizes, batch
//!   sizes), as constants.
//! - [`reply`]: [`reply::Reply`], how results are read from replies (and
//!   `redis::FromRedisValue` for them).
//! - [`error`]: [`Code`], the one table of script error codes, and [`Error`].
//! - [`scripts`]: the embedded Lua (`lua/<op>.lua`, assembled from
//!   `lua/src/`), their SHA1s, `SCRIPT LOAD` of all, and
//!   [`scripts::MANIFEST`], every script's contract as JSON.
//!
//! Every public type of [`site`] and [`campaign`] is also re-exported at the
//! crate root. The chapters in `docs/` of the repository (linked from the
//! README) hold the rest: connecting, the key layout, the `redis-cli` forms
//! of every script, errors and guarantees, the benchmark.
#![warn(missing_docs)]

pub mod call;
pub mod campaign;
pub mod caps;
pub mod client;
pub mod error;
#[cfg(test)]
mod headers;
#[cfg(test)]
mod manifest;
mod names;
pub mod reply;
pub mod scripts;
pub mod site;
mod words;

pub use call::Call;
pub use campaign::{
    Around, Ballot, BoardPage, BoardSettings, Campaign, CampaignSettings, Configured, DenyLists,
    Dimension, Entry, Folded, Imported, Kind, LimitLeft, LimitRule, Mode, Neighbourhood,
    OptionSettings, Paging, Participants, Period, PeriodScore, Reindexed, RemoveStep, Rolling,
    Standing, Ties, Upgraded, View, Voter, Window,
};
pub use campaign::{CampaignRegistry, RegistryPage};
pub use campaign::{Granularity, Stats, StatsBucket, VoidBy, Voided, VoidedRange};
#[cfg(feature = "async")]
pub use client::{AsyncConnection, AsyncRedis};
pub use client::{Client, Connection, Retry, Tls};
pub use error::{Code, Error, RateLimited, Result};
pub use names::is_valid_name;
pub use site::{
    Article, Config, ConfigUpdate, GroupChange, Order, Page, PageCall, PageIds, PageOf, Ranking,
    Reranked, Site, SiteUpgraded, Vote, VoteOutcome,
};

/// The README's Rust examples, compiled (and run unless `no_run`) as
/// doctests.
#[cfg(all(doctest, feature = "async"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The Rust chapter's examples as doctests.
#[cfg(all(doctest, feature = "async"))]
#[doc = include_str!("../docs/rust.md")]
pub struct RustChapterDoctests;

/// The campaign chapter's examples as doctests.
#[cfg(all(doctest, feature = "async"))]
#[doc = include_str!("../docs/campaigns.md")]
pub struct CampaignsChapterDoctests;

/// The statistics chapter's example as a doctest (`tests/suite` runs it).
#[cfg(all(doctest, feature = "async"))]
#[doc = include_str!("../docs/statistics.md")]
pub struct StatisticsChapterDoctests;

/// The hot campaigns chapter's example as a doctest.
#[cfg(all(doctest, feature = "async"))]
#[doc = include_str!("../docs/hot-campaigns.md")]
pub struct HotCampaignsChapterDoctests;

/// The cluster chapter's examples as doctests.
#[cfg(all(doctest, feature = "async"))]
#[doc = include_str!("../docs/cluster.md")]
pub struct ClusterChapterDoctests;

/// The connecting chapter's examples (TLS among them) as doctests.
#[cfg(all(doctest, feature = "tls"))]
#[doc = include_str!("../docs/connecting.md")]
pub struct ConnectingChapterDoctests;
