//! [`Campaign`]: the campaign leaderboards of seed 002 (period boards,
//! weighted votes, carry-over, unique participants, rank queries, batch
//! votes), one atomic script call per operation.
//!
//! A campaign lives in one namespace, `{c:<name>}:` by default, whose hash
//! tag puts every key of the campaign in one Redis Cluster slot. Every script
//! gets one key, the campaign root `<ns>campaign` (its settings hash), and
//! derives the others from `<ns>`:
//!
//! | key | content |
//! | --- | --- |
//! | `<ns>campaign` | hash: `offset` (seconds east of UTC), `start`, `end`, `updated` |
//! | `<ns>boards` | set of board names |
//! | `<ns>board:B` | hash: `periods`, `ties`, `carry`, `decimals`, `keep_<period>` |
//! | `<ns>weights:B` | hash: option -> weight (the board's options) |
//! | `<ns>option:B:O` | hash: the option's display data |
//! | `<ns>b:B:real:P`, `<ns>b:B:shown:P` | zsets: the period boards (P = `hour:2026-03-17T12`, `day:2026-03-17`, `week:2026-W12`, `month:2026-03`, `total`) |
//! | `<ns>f:B:real:P`, `<ns>f:B:shown:P` | zsets: "first" tie order (boards with `ties = first`) |
//! | `<ns>periods:B` | zset: the period names the board wrote -> their expiry (0: kept) |
//! | `<ns>initial:B` | hash: imported votes per option |
//! | `<ns>hll`, `<ns>hll:B:O` | HyperLogLogs of participants |
//! | `<ns>seq` | vote sequence counter ("first" ties) |
//! | `<ns>st:B:P`, `<ns>sp:P`, `<ns>sn:P` | statistics of hour and day buckets P: the board's counters (hash), the campaign's participants (HyperLogLog) and their count |
//! | `<ns>vid:ID` | a vote id's record: request, reply, what it added (void) |
//! | `<ns>log` | stream: the capped vote log (`vote_log` > 0) |

mod model;
mod registry;
mod reply;
mod settings;
mod stats;

pub use model::{
    Around, Ballot, BoardPage, Configured, Entry, Folded, Imported, Kind, LimitLeft, Neighbourhood,
    Paging, Participants, Period, PeriodScore, Reindexed, RemoveStep, Standing, Ties, Upgraded,
    View, Voter,
};
pub use registry::{CampaignRegistry, RegistryPage, REGISTRY_KEY};
pub use settings::{
    BoardSettings, CampaignSettings, DenyLists, Dimension, LimitRule, Mode, OptionSettings,
    Rolling, Window, FOLD_MS_DEFAULT,
};
pub use stats::{Granularity, Stats, StatsBucket, VoidBy, Voided, VoidedRange};

use crate::call::Call;

/// One campaign: its namespace and, on the test/import path only, a fixed
/// clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Campaign {
    ns: String,
    root: String,
    at: Option<u64>,
}

impl Campaign {
    /// The campaign `name` in the namespace `{c:<name>}:` (one cluster slot).
    pub fn new(name: &str) -> Self {
        Self::with_namespace(format!("{{c:{name}}}:"))
    }

    /// A campaign under an explicit namespace (keep a hash tag in it for
    /// Redis Cluster).
    pub fn with_namespace(ns: impl Into<String>) -> Self {
        let ns = ns.into();
        let root = format!("{ns}campaign");
        Campaign { ns, root, at: None }
    }

    /// Test/import path: the same campaign with every call at Unix time
    /// `time` instead of the server's clock. A vote or an import into a
    /// period whose board is past its retention by the server's clock is
    /// refused with `Code::InvalidPeriod`.
    pub fn at(&self, time: u64) -> Self {
        Campaign {
            at: Some(time),
            ..self.clone()
        }
    }

    /// The namespace.
    pub fn namespace(&self) -> &str {
        &self.ns
    }

    /// The root key every script takes as `KEYS[1]`: `<ns>campaign`.
    pub fn root_key(&self) -> &str {
        &self.root
    }

    fn time_arg(&self) -> String {
        self.at.map(|t| t.to_string()).unwrap_or_default()
    }

    /// Create or update the campaign, its boards, options and settings.
    /// Idempotent (retried after an unknown outcome) unless it removes
    /// options: sent again, a removal would be refused, the option being gone.
    /// A removal (a board's `remove`) deletes the options at once for
    /// writers and reads, and on campaign data layout 2 and later leaves their
    /// entries on the period boards to [`Campaign::remove_step`]: loop it
    /// to the end after the configure (the CLI and the service do), or an
    /// option of the same name cannot be configured again.
    /// It does not add the campaign to the campaign list (another cluster
    /// slot): run [`Campaign::register`] after it, as the service and the
    /// CLI do ([`CampaignRegistry`]).
    pub fn configure(&self, settings: &CampaignSettings) -> Call<Configured> {
        let json = serde_json::to_string(settings).expect("settings serialize");
        let removes = settings.boards.values().any(|b| !b.remove.is_empty());
        Call::new("campaign_configure", &self.root, vec![json]).idempotent(!removes)
    }

    /// `user` votes for each (board, option) pair, all or nothing.
    pub fn vote(&self, user: &str, pairs: &[(&str, &str)]) -> Call<Vec<Ballot>> {
        self.vote_by(&Voter::new(user), pairs)
    }

    /// A vote with its rate-limit context (channel, device, cost). A refusal
    /// is [`crate::Error::RateLimited`] or `Code::Denied`; nothing is written.
    /// An empty vote id (`Voter::id("")`) is refused with
    /// `Code::InvalidVoteId`: the script reads `""` as "no id", so the vote
    /// would count again each time it is sent, while its sender believes it
    /// idempotent.
    pub fn vote_by(&self, voter: &Voter, pairs: &[(&str, &str)]) -> Call<Vec<Ballot>> {
        let mut args = voter.args(self.time_arg());
        args.push(voter.cost.to_string());
        args.push(match voter.id.as_deref() {
            Some("") => EMPTY_VOTE_ID.to_string(),
            id => id.unwrap_or_default().to_string(),
        });
        args.extend(flat(pairs));
        Call::new("campaign_vote", &self.root, args)
            .idempotent(voter.id.is_some())
            .vote_id_at(5)
    }

    /// Fold up to `max` (1..=1000) of a buffered campaign's oldest accepted
    /// votes into its boards, in one atomic call of bounded work
    /// (`lua/campaign_fold.lua`); on an immediate campaign it folds
    /// nothing. Idempotent: sent again it folds the next votes, never the
    /// same twice. Loop while [`Folded::left`] is above 0 to drain the
    /// buffer; `redvote serve` folds its campaigns in the background.
    pub fn fold(&self, max: u32) -> Call<Folded> {
        Call::new("campaign_fold", &self.root, vec![max.to_string()])
    }

    /// Set the imported (starting) shown votes of options of `board`:
    /// `(option, votes)` with votes a decimal string. Idempotent. One call's
    /// work is bounded (about 2.5 ms of the server's time): it takes the
    /// pairs in order while they fit and answers how many it left in
    /// [`Imported::rest`]; send [`Imported::rest_of`] again until none is
    /// left (its example).
    pub fn import(&self, board: &str, votes: &[(&str, &str)]) -> Call<Imported> {
        let mut args = vec![board.to_string(), self.time_arg()];
        args.extend(flat(votes));
        Call::new("campaign_import", &self.root, args)
    }

    /// One step of building the side keys that make `board`'s dense or
    /// first ranks O(log N) (`lua/campaign_reindex.lua`): needed once for a
    /// board whose tie rule was switched to dense or first after votes (the
    /// switch is pending: reads rank by the rule before until the last call
    /// makes it), or written by a redvote before 0.2 (it ranks by
    /// competition until then). Start with cursor `"0"` and call again with
    /// [`Reindexed::next`] until [`Reindexed::is_done`]; each call indexes
    /// about `count` (1..=5000) members, so none is long. Idempotent, and
    /// safe while votes go on.
    ///
    /// ```no_run
    /// # fn main() -> redvote::Result<()> {
    /// # let mut con = redis::Client::open("redis://127.0.0.1:1/")?.get_connection()?;
    /// let spring = redvote::Campaign::new("spring2026");
    /// let mut cursor = "0".to_string();
    /// loop {
    ///     let step = spring.reindex("stars", &cursor, 100).run(&mut con)?;
    ///     if step.is_done() {
    ///         break;
    ///     }
    ///     cursor = step.next;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn reindex(&self, board: &str, cursor: &str, count: u32) -> Call<Reindexed> {
        let args = vec![board.to_string(), cursor.to_string(), count.to_string()];
        Call::new("campaign_reindex", &self.root, args)
    }

    /// One step of finishing the removal of options from `board`'s period
    /// boards (`lua/campaign_remove.lua`). [`Campaign::configure`] with a
    /// board's `remove` deletes the options at once (weights, display data,
    /// imports, participants: votes for them are refused, reads skip them)
    /// and, on campaign data layout 2, leaves their entries on the period
    /// boards pending; these steps take them off, each at most `count`
    /// (1..=10000) units of work (period boards x pending options). Start
    /// with cursor `"0"` and call again with [`RemoveStep::next`] until
    /// [`RemoveStep::is_done`]; an option pending removal cannot be
    /// configured again until then. Idempotent, and safe while votes go
    /// on; no removal pending answers done at once. The progress is kept
    /// in Redis: a cursor other than `"0"`, the one the last step handed
    /// out, or the one that step was sent (a resend) is refused with
    /// `Code::InvalidCursor`, nothing written; `"0"` goes on from where
    /// the removal stands.
    ///
    /// ```no_run
    /// # fn main() -> redvote::Result<()> {
    /// # let mut con = redis::Client::open("redis://127.0.0.1:1/")?.get_connection()?;
    /// let spring = redvote::Campaign::new("spring2026");
    /// let mut cursor = "0".to_string();
    /// loop {
    ///     let step = spring.remove_step("stars", &cursor, 500).run(&mut con)?;
    ///     if step.is_done() {
    ///         break;
    ///     }
    ///     cursor = step.next;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn remove_step(&self, board: &str, cursor: &str, count: u32) -> Call<RemoveStep> {
        let args = vec![board.to_string(), cursor.to_string(), count.to_string()];
        Call::new("campaign_remove", &self.root, args)
    }

    /// One step of moving the campaign's data layout forward to the last
    /// these scripts write (`lua/campaign_upgrade.lua`, docs/versions.md):
    /// run it once no client of redvote 0.5 writes the campaign any more.
    /// Start with cursor `"0"` and call again with [`Upgraded::next`] until
    /// [`Upgraded::is_done`]; each call does at most `count` (1..=5000)
    /// units of work (from layout 1 or 2 to 3, one call does it all: the
    /// rate-limit counters are not moved, docs/versions.md).
    /// Idempotent: a campaign already upgraded answers done.
    pub fn upgrade(&self, cursor: &str, count: u32) -> Call<Upgraded> {
        Call::new(
            "campaign_upgrade",
            &self.root,
            vec![cursor.to_string(), count.to_string()],
        )
    }

    /// One page of each of `boards` (1..=20), in `view`.
    pub fn top(&self, boards: &[&str], view: &View, paging: Paging) -> Call<Vec<BoardPage>> {
        let mut args = vec![
            view.kind.as_str().to_string(),
            view.period.clone(),
            paging.page.to_string(),
            paging.per_page.to_string(),
            self.time_arg(),
        ];
        args.extend(strings(boards));
        Call::new("campaign_top", &self.root, args)
    }

    /// Rank, score, the member ahead and the gap, and last period's rank and
    /// score, for each of `members` (1..=100) of `board` in `view`.
    pub fn standing(&self, board: &str, view: &View, members: &[&str]) -> Call<Vec<Standing>> {
        let mut args = self.board_args(board, view);
        args.extend(strings(members));
        Call::new("campaign_standing", &self.root, args)
    }

    /// The members of `board` around `member` in `view`: its rank,
    /// percentile and page, and the board's size and page count.
    pub fn around(
        &self,
        board: &str,
        view: &View,
        member: &str,
        near: Neighbourhood,
    ) -> Call<Around> {
        let mut args = self.board_args(board, view);
        args.extend([
            member.to_string(),
            near.window.to_string(),
            near.per_page.to_string(),
        ]);
        Call::new("campaign_around", &self.root, args)
    }

    /// board, kind, period, time: the ARGV standing and around start with.
    fn board_args(&self, board: &str, view: &View) -> Vec<String> {
        vec![
            board.to_string(),
            view.kind.as_str().to_string(),
            view.period.clone(),
            self.time_arg(),
        ]
    }

    /// How many votes each rate-limit rule leaves `voter` now, spending
    /// nothing; rules that count per option need the `pairs` to look at.
    /// Read-only (`campaign_limits.lua`, flagged no-writes): it runs on a
    /// replica, and [`crate::Client::wait_for_replicas`] does not wait
    /// after it.
    pub fn limits(&self, voter: &Voter, pairs: &[(&str, &str)]) -> Call<Vec<LimitLeft>> {
        Call::new(
            "campaign_limits",
            &self.root,
            self.limits_args(voter, pairs),
        )
    }

    /// Admin: delete `voter`'s counters of every rule that counts per user
    /// (the current windows and rolling state); per-user rules that also
    /// count per option lose the counters of `pairs`. Returns how many were
    /// deleted (`campaign_limits_reset.lua`, a writer). Idempotent.
    pub fn reset_limits(&self, voter: &Voter, pairs: &[(&str, &str)]) -> Call<u64> {
        Call::new(
            "campaign_limits_reset",
            &self.root,
            self.limits_args(voter, pairs),
        )
    }

    /// The arguments `campaign_limits.lua` and `campaign_limits_reset.lua`
    /// take: user, time, channel, device, then the pairs.
    fn limits_args(&self, voter: &Voter, pairs: &[(&str, &str)]) -> Vec<String> {
        let mut args = voter.args(self.time_arg());
        args.extend(flat(pairs));
        args
    }

    /// The campaign's stored settings, as the document
    /// [`Campaign::configure`] takes (configured with it, they make the
    /// same campaign): the offset, start, end, vote id TTL, rate limits,
    /// and each board's periods, tie rule, carry, decimals, retention and
    /// options with their weights. Left out, as they can be large: the
    /// deny lists and the options' display data. Read-only and atomic
    /// (`campaign_settings.lua`, flagged no-writes: it runs on a replica).
    /// Costs O(boards + options), bounded by the caps of one configure
    /// call: a campaign of more than 64 boards or 1000 options is refused
    /// (`Code::InvalidConfig`). An unknown campaign is
    /// `Code::UnknownCampaign`, as for every other campaign call.
    pub fn settings(&self) -> Call<CampaignSettings> {
        Call::new("campaign_settings", &self.root, Vec::new())
    }

    /// `board`'s vote statistics from `from` to `to` (Unix seconds, `to`
    /// exclusive), one [`StatsBucket`] an hour or a day of the campaign's
    /// offset, empty ones included: at most 336 hours or 366 days a call
    /// (`Code::InvalidNumber` beyond). Read-only (`campaign_stats.lua`,
    /// flagged no-writes: it runs on a replica). [`Stats::to_csv`] writes
    /// the series as CSV.
    pub fn stats(&self, board: &str, granularity: Granularity, from: u64, to: u64) -> Call<Stats> {
        let args = vec![
            board.to_string(),
            granularity.as_str().to_string(),
            from.to_string(),
            to.to_string(),
        ];
        Call::new("campaign_stats", &self.root, args)
    }

    /// Admin: void the vote applied with vote id `id` while its record
    /// lives (the campaign's `vote_id_ttl`): what it added is subtracted
    /// from every period board, carry included, atomically, once, and its
    /// pairs count as voided in the statistics. Idempotent: a second call
    /// answers [`Voided::already`] and changes nothing. Rate limits are
    /// not given back, nor participants. An unknown or expired id is
    /// `Code::UnknownVote`; a record of redvote 0.5 or before (no amounts
    /// kept) `Code::NotVoidable`.
    pub fn void(&self, id: &str) -> Call<Voided> {
        let id = if id.is_empty() { EMPTY_VOTE_ID } else { id };
        Call::new("campaign_void", &self.root, vec![id.to_string()])
    }

    /// Admin: one step of voiding every vote of one user or channel
    /// (`by`, `value`) logged from `from` to `to` (Unix seconds of the
    /// server's clock, `to` exclusive), in a campaign with a vote log
    /// (`vote_log` > 0 in its settings). Start with cursor `"0"` and call
    /// again with [`VoidedRange::next`] until [`VoidedRange::is_done`];
    /// each call reads at most `count` (1..=1000) log entries. Idempotent:
    /// a voided vote leaves the log, so none is voided twice.
    pub fn void_range(
        &self,
        by: VoidBy,
        value: &str,
        from: u64,
        to: u64,
        cursor: &str,
        count: u32,
    ) -> Call<VoidedRange> {
        let args = vec![
            by.as_str().to_string(),
            value.to_string(),
            from.to_string(),
            to.to_string(),
            cursor.to_string(),
            count.to_string(),
        ];
        Call::new("campaign_void_range", &self.root, args)
    }

    /// Unique participants of the campaign and of `options` of `board`.
    pub fn participants(&self, board: &str, options: &[&str]) -> Call<Participants> {
        let mut args = vec![board.to_string()];
        args.extend(strings(options));
        Call::new("campaign_participants", &self.root, args)
    }
}

/// Pairs as the flat `a, b, a, b, ...` arguments the scripts take.
fn flat<'a>(pairs: &'a [(&str, &str)]) -> impl Iterator<Item = String> + 'a {
    pairs
        .iter()
        .flat_map(|(a, b)| [a.to_string(), b.to_string()])
}

fn strings<'a>(items: &'a [&str]) -> impl Iterator<Item = String> + 'a {
    items.iter().map(|s| s.to_string())
}

/// What an empty vote id is sent as: an id the script refuses
/// (`REDVOTE_INVALID_VOTE_ID`, before it reads or writes anything), since
/// `""` is its "no id" and would be counted on every send. A control
/// character: no valid id holds one.
const EMPTY_VOTE_ID: &str = "\u{0}";
