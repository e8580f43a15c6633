//! A campaign's values: board kinds, periods and tie rules, the views and
//! pages a query asks for, who votes, and the typed results of every
//! operation (read from their replies in `reply.rs`).

use serde::{Deserialize, Serialize};

use crate::words::words;

/// Real boards count votes; shown boards count weighted votes, imported
/// votes and carry-over (what a campaign page displays).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// One per vote.
    Real,
    /// Weight per vote, plus imported votes and carry-over.
    #[default]
    Shown,
}

/// A calendar period a board may keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Period {
    /// `hour:2026-03-17T12`.
    Hour,
    /// `day:2026-03-17`.
    Day,
    /// `week:2026-W12` (ISO-8601: Monday start, week 1 holds January 4th).
    Week,
    /// `month:2026-03`.
    Month,
    /// `total`: the whole campaign.
    Total,
}

/// How equal scores rank on a board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Ties {
    /// Redis' order: equal scores by member name, descending.
    Name,
    /// Equal scores share the rank, the next skips: 1, 2, 2, 4.
    #[default]
    Competition,
    /// Equal scores share the rank, no gap: 1, 2, 2, 3.
    Dense,
    /// Who reached the score first ranks first (exact for every score:
    /// the order is kept in a side zset of vote sequence numbers).
    First,
}

words!(Kind { Real => "real", Shown => "shown" });
words!(Period { Hour => "hour", Day => "day", Week => "week", Month => "month", Total => "total" });
words!(Ties { Name => "name", Competition => "competition", Dense => "dense", First => "first" });

/// What [`crate::Campaign::configure`] touched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Configured {
    /// Boards created or updated.
    pub boards: u64,
    /// Options created or updated.
    pub options: u64,
}

/// A score on one period's shown board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PeriodScore {
    /// Period name (`day:2026-03-17`, `total`, ...).
    pub period: String,
    /// Score with the board's decimals.
    pub score: String,
}

/// The result of one (board, option) pair of a vote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Ballot {
    /// Board.
    pub board: String,
    /// Option.
    pub option: String,
    /// The new shown score in every period the board keeps (empty when the
    /// vote was buffered: see `folded`).
    pub shown: Vec<PeriodScore>,
    /// True when the vote's id ([`Voter::id`]) had already been applied:
    /// nothing was written now, and this is the first run's answer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replay: bool,
    /// A buffered campaign's vote (accepted, not yet on the boards unless a
    /// fold took it): the Unix ms before which every accepted vote was on
    /// the boards when it was accepted. None on an immediate campaign.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folded: Option<u64>,
}

/// What one [`crate::Campaign::fold`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Folded {
    /// Votes written to the boards by this call.
    pub folded: u64,
    /// Votes still buffered.
    pub left: u64,
    /// Unix ms before which every accepted vote is on the boards.
    pub until: u64,
    /// Board entries left out because they would leave the exact range of
    /// scores (a buffered vote cannot check that when it is accepted).
    pub overflow: u64,
}

/// One ranked member of a board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Entry {
    /// The option.
    pub member: String,
    /// Score with the board's decimals (0 on real boards).
    pub score: String,
    /// 1-based rank under the board's tie rule.
    pub rank: u64,
}

/// One page of one board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BoardPage {
    /// Board.
    pub board: String,
    /// The period read.
    pub period: String,
    /// Members on the board.
    pub size: u64,
    /// This page, best first.
    pub entries: Vec<Entry>,
    /// A buffered campaign's page: the Unix ms before which every accepted
    /// vote is on the boards (later ones may wait in its buffer). None on
    /// an immediate campaign.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folded: Option<u64>,
}

/// Where a member stands on a board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Standing {
    /// The option.
    pub member: String,
    /// 1-based rank (None: not on the board).
    pub rank: Option<u64>,
    /// Score.
    pub score: Option<String>,
    /// The member just ahead in the board's order (None for the leader).
    pub ahead: Option<String>,
    /// How far ahead it is (0 when tied).
    pub gap: Option<String>,
    /// Rank in the previous period (None for `total` or when absent).
    pub previous_rank: Option<u64>,
    /// Score in the previous period.
    pub previous_score: Option<String>,
    /// A buffered campaign's standing: the Unix ms before which every
    /// accepted vote is on the board (later ones may wait in its buffer).
    /// None on an immediate campaign.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folded: Option<u64>,
}

/// The neighbourhood of a member on a board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Around {
    /// Members on the board.
    pub size: u64,
    /// Pages at the asked page size.
    pub pages: u64,
    /// The member's rank (None: not on the board).
    pub rank: Option<u64>,
    /// Share of the board scoring strictly below the member, percent with 2 decimals.
    pub percentile: Option<String>,
    /// The page the member is on.
    pub page: Option<u64>,
    /// The window of members around it, in board order.
    pub window: Vec<Entry>,
    /// A buffered campaign's neighbourhood: the Unix ms before which every
    /// accepted vote is on the board (later ones may wait in its buffer).
    /// None on an immediate campaign.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folded: Option<u64>,
}

/// Unique participants.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Participants {
    /// Of the whole campaign.
    pub campaign: u64,
    /// Of each asked option: (option, participants).
    pub options: Vec<(String, u64)>,
}

/// What an import call did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Imported {
    /// Options whose imported amount changed.
    pub changed: u64,
    /// Options already at the asked amount.
    pub unchanged: u64,
    /// Pairs left for another call: the last `rest` pairs sent, which this
    /// call did not take because one call's work is bounded
    /// (`lua/campaign_import.lua`, Bounded work). 0: every pair is done
    /// (and left out of the JSON form, which the CLI and the service
    /// answer once every call is made).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rest: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Imported {
    /// Every pair sent was taken: nothing left to send again.
    pub fn is_done(&self) -> bool {
        self.rest == 0
    }

    /// The pairs of `sent` (what the call was given) that it left: its last
    /// [`Imported::rest`], to send in the next call.
    ///
    /// ```no_run
    /// # fn main() -> redvote::Result<()> {
    /// # let mut con = redis::Client::open("redis://127.0.0.1:1/")?.get_connection()?;
    /// let spring = redvote::Campaign::new("spring2026");
    /// let rows = [("yyqx", "120"), ("wjk", "100.5")];
    /// let mut left = &rows[..];
    /// while !left.is_empty() {
    ///     left = spring.import("male-stars", left).run(&mut con)?.rest_of(left);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn rest_of<'a, T>(&self, sent: &'a [T]) -> &'a [T] {
        let rest = (self.rest as usize).min(sent.len());
        &sent[sent.len() - rest..]
    }

    /// This call's counts added to `self` (the totals of an import made in
    /// several calls); `rest` becomes the later call's.
    pub fn and(self, later: Imported) -> Imported {
        Imported {
            changed: self.changed + later.changed,
            unchanged: self.unchanged + later.unchanged,
            rest: later.rest,
        }
    }
}

/// What one `campaign_reindex` call did (see [`crate::Campaign::reindex`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Reindexed {
    /// Members indexed by this call.
    pub members: u64,
    /// Period boards this call finished.
    pub boards: u64,
    /// The cursor for the next call; `"0"` when the board is indexed (a
    /// pending tie rule is now in effect).
    pub next: String,
}

impl Reindexed {
    /// The board is indexed: a pending tie rule is now the one in effect,
    /// and its dense / first ranks cost O(log N).
    pub fn is_done(&self) -> bool {
        self.next == "0"
    }
}

/// What one `campaign_remove` call did (see [`crate::Campaign::remove_step`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RemoveStep {
    /// Entries (option x period board) this call removed.
    pub removed: u64,
    /// Period boards this call finished.
    pub boards: u64,
    /// The cursor for the next call; `"0"` when the removal is complete.
    pub next: String,
}

impl RemoveStep {
    /// The board's pending removal is complete (or there was none).
    pub fn is_done(&self) -> bool {
        self.next == "0"
    }
}

/// What one `campaign_upgrade` call did (see [`crate::Campaign::upgrade`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Upgraded {
    /// The campaign's data layout before this call (1: configured by
    /// redvote 0.5 or before).
    pub from: u32,
    /// The layout after it, once done: the last these scripts write.
    pub to: u32,
    /// The cursor for the next call; `"0"` when the upgrade is done.
    pub next: String,
}

impl Upgraded {
    /// The campaign is at the last layout these scripts write.
    pub fn is_done(&self) -> bool {
        self.next == "0"
    }
}

/// Who votes, for rate limits: the user and the vote's context. It owns
/// its strings, so `Voter::new(user).id(format!("req-{n}"))` may be kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Voter {
    /// The user (1..256 bytes).
    pub user: String,
    /// Traffic source (a partner channel may have extra allowance).
    pub channel: Option<String>,
    /// Device type (`pc`, `mobile`, ...), counted apart by rules `by` device.
    pub device: Option<String>,
    /// What the vote spends of each limit (1..=1000).
    pub cost: u32,
    /// The vote's idempotency key (1..=128 bytes, no control characters):
    /// a vote with an id already applied writes nothing and answers the
    /// first run's ballots, marked [`Ballot::replay`]. Give one to every
    /// vote that may be retried (the driver retries only votes with an id).
    /// `Some("")` is refused with `Code::InvalidVoteId`, writing nothing
    /// (no id is `None`).
    pub id: Option<String>,
}

impl Voter {
    /// A voter with no channel or device, spending 1.
    pub fn new(user: impl Into<String>) -> Self {
        Voter {
            user: user.into(),
            channel: None,
            device: None,
            cost: 1,
            id: None,
        }
    }

    /// The same voter coming through `channel` (a partner channel may have
    /// extra allowance).
    pub fn channel(self, channel: impl Into<String>) -> Self {
        Voter {
            channel: Some(channel.into()),
            ..self
        }
    }

    /// The same voter on device type `device`.
    pub fn device(self, device: impl Into<String>) -> Self {
        Voter {
            device: Some(device.into()),
            ..self
        }
    }

    /// The same voter spending `cost` of each limit.
    pub fn cost(self, cost: u32) -> Self {
        Voter { cost, ..self }
    }

    /// The same voter with the vote's idempotency key `id` (see
    /// [`Voter::id`](Voter#structfield.id)).
    pub fn id(self, id: impl Into<String>) -> Self {
        Voter {
            id: Some(id.into()),
            ..self
        }
    }

    /// user, time, channel, device: the ARGV the vote and the limit
    /// scripts both start with (the vote adds the cost).
    pub(super) fn args(&self, time: String) -> Vec<String> {
        vec![
            self.user.clone(),
            time,
            self.channel.clone().unwrap_or_default(),
            self.device.clone().unwrap_or_default(),
        ]
    }
}

/// What one rate-limit counter leaves a voter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LimitLeft {
    /// The rule.
    pub rule: String,
    /// Votes it still allows now.
    pub remaining: i64,
    /// Seconds until its window resets (-1: never within the campaign).
    pub reset_in: i64,
}

/// Which board a query reads: real or shown, and the period: `"day"` (the
/// current day; likewise `"hour"`, `"week"`, `"month"`), `"total"`, or a
/// named period such as `"day:2026-03-17"`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct View {
    /// Real or shown scores.
    pub kind: Kind,
    /// The period selector.
    pub period: String,
}

impl View {
    /// A view of `kind` boards for `period`.
    pub fn new(kind: Kind, period: impl Into<String>) -> Self {
        View {
            kind,
            period: period.into(),
        }
    }

    /// The shown boards (weights, imported votes, carry) for `period`.
    pub fn shown(period: impl Into<String>) -> Self {
        View::new(Kind::Shown, period)
    }

    /// The real boards (one per vote) for `period`.
    pub fn real(period: impl Into<String>) -> Self {
        View::new(Kind::Real, period)
    }
}

/// Which page of a ranking: 1-based `page` of `per_page` (1..=100) members.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Paging {
    /// 1-based page number.
    pub page: u32,
    /// Members per page, 1..=100.
    pub per_page: u32,
}

impl Paging {
    /// Page `page` of `per_page` members.
    pub fn new(page: u32, per_page: u32) -> Self {
        Paging { page, per_page }
    }

    /// The first `per_page` members: the top.
    pub fn top(per_page: u32) -> Self {
        Paging::new(1, per_page)
    }
}

/// What [`crate::Campaign::around`] returns around a member: `window`
/// members (1..=101) centred on it, and its page number at `per_page`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Neighbourhood {
    /// Members in the window, the member included.
    pub window: u32,
    /// The page size the member's page number is counted in (1..=100).
    pub per_page: u32,
}

impl Neighbourhood {
    /// `window` members around the member, its page counted at `per_page`.
    pub fn new(window: u32, per_page: u32) -> Self {
        Neighbourhood { window, per_page }
    }
}
