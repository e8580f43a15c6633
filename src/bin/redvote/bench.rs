//! `redvote bench`: redvote's one-call operations against the seeds'
//! client-side flow, on one Redis server, side by side.
//!
//! # What runs
//!
//! Against ONE server per run: a throwaway `redis-server` on a free loopback
//! port (the default; FLUSHDB'd first, killed at the end), or `--url` (then
//! the bench writes under `--prefix`, `redvote-bench:` when that is empty,
//! refuses a prefix that already holds a site, and deletes the keys it
//! created when it ends).
//!
//! Setup: `--articles` articles are posted with [`Site::post`]. Every vote of
//! every scenario is a *new* upvote by a distinct user (`user:<n>`, `n`
//! running over the whole run) on an article picked by a fixed hash of `n`,
//! so each scenario does real writes spread over all articles.
//!
//! Vote scenarios, each at 1 connection (a sync `redis::Connection`, ops one
//! after the other: pure latency, what one request handler sees) and with
//! `--tasks` concurrent tokio tasks (throughput, what a busy backend sees):
//!
//! * **(a) seeds**: the seeds' client-side `article_vote`, ZSCORE `time:`,
//!   SADD `voted:ID`, ZINCRBY `score:`, HINCRBY `article:ID votes`: 4 round
//!   trips, not atomic (two clients can interleave: it is the baseline, not
//!   a recommendation). The 1-connection run calls
//!   [`redvote::seed::article_vote`] itself when the prefix is empty;
//!   otherwise, and for the tasks, a twin in this file sends the same
//!   commands with prefixed keys (members stay `article:ID`). The tasks share
//!   one multiplexed connection, as a redis-rs backend would (`--dedicated`:
//!   one connection each).
//! * **(b) watch**: the same vote made safe the classic way, i.e. what you
//!   would write without scripts: WATCH `voted:ID`, ZSCORE `time:`,
//!   SISMEMBER `voted:ID`, then MULTI SADD ZINCRBY HINCRBY EXEC as one
//!   pipelined request, retried when EXEC aborts because another client voted
//!   on the article in between: 4 round trips per attempt. WATCH state
//!   belongs to a connection, so each task has its own connection here,
//!   always. Aborted attempts are counted as `retries`.
//! * **(c) redvote**: [`Site::vote`], one EVALSHA of `lua/vote.lua`, atomic.
//!   The tasks share one multiplexed connection like (a) (`--dedicated`: one
//!   each); a second row (`own`) always gives each task its own connection,
//!   one request in flight on each, like redis-benchmark (with
//!   `--dedicated` both rows measure that same setup).
//!
//! Page scenarios (`--pages` reads each, page `i % pages + 1` of `score:`,
//! 25 articles): the seeds' `get_articles` (ZREVRANGE, then one HGETALL per
//! article: 26 round trips) against
//! [`Site::page`]`(Order::Score, p, Some(25))` (one EVALSHA of
//! `lua/page.lua`), at 1 connection and with the tasks.
//!
//! Campaign scenarios (`--campaign-ops` votes each, default `ops / 4`): a
//! campaign leaderboard vote (seed 002). Setup: the campaign
//! `{<prefix>c:bench}:` (namespace of [`Campaign::with_namespace`]) at offset
//! `+08:00`, one board `stars` keeping all 5 periods (hour, day, week,
//! month, total), ties `competition`, carry `0.1`, 100 options `opt1` ..
//! `opt100` of weight 2. Every vote is by a distinct user on an option picked
//! by a fixed hash, so one vote writes, for each period P: +1 on
//! `<ns>b:stars:real:P`, +2 on `<ns>b:stars:shown:P`, +0.2 (carry) on
//! `<ns>b:stars:shown:<next P>` (not for total), then the user into the
//! option's and the campaign's HyperLogLogs: 5 + 5 + 4 + 2 = 16 writes.
//!
//! * **(a) seed**: the seed's approach, one command per write: the keys are
//!   computed client-side (period names at +08:00 from the client clock, the
//!   same civil-date arithmetic as the Lua; checked against
//!   `campaign_vote.lua` at setup), then 5 ZINCRBY real + 5 ZINCRBY shown +
//!   4 ZINCRBY carry + 2 PFADD, under its own namespace
//!   `{<prefix>c:bench-seed}:` (same key layout, so the checks are exact).
//!   `concurrent` rows send the 16 commands at once, the seed's "parallel
//!   goroutines": `join_all` of 16 `query_async` on one multiplexed
//!   connection, which redis-rs pipelines on the wire (about 1 round trip,
//!   16 commands); the 1-connection row is one such connection with the
//!   votes in sequence (`conns` = `1 async`). The `sequential` row sends the
//!   16 commands one after the other on a sync connection (16 round trips).
//!   The tasks share one multiplexed connection (`--dedicated`: one each).
//! * **(c) redvote**: [`Campaign::vote`]`(user, &[("stars", option)])`, one
//!   EVALSHA of `lua/campaign_vote.lua` (atomic; it also keeps the
//!   `periods:stars` index), at 1 sync connection, with the tasks sharing
//!   one multiplexed connection, and (`own`) one connection per task.
//!
//! Rate-limit scenarios (`--limits-ops` votes each, default `ops / 4`): the
//! cost of the rate limits, as the same vote with 0, 4 and 8 rules. Setup:
//! three campaigns `{<prefix>c:bench-limits0}:`, `..limits4}:` and
//! `..limits8}:`, configured identically but for their `limits`: offset
//! `+08:00`, one board `stars` keeping `day` and `total` (a light base vote,
//! so the limits' share shows: 2 real + 2 shown writes and 2 PFADDs), ties
//! `competition`, no carry, options `opt1` .. `opt100` of weight 1. Rules
//! (every vote is by a new user, so the per-user rules keep realistic limits,
//! as `docs/spring2026.json`, and never refuse; option and channel rules get
//! 1e9, which no bench reaches):
//!
//! * 4 rules: `user-minute` (user, minute, 5), `user-hour` (user, hour, 10),
//!   `option-second` (option, second, 1e9), `user-device-day` (user x
//!   device, day, 20);
//! * 8 rules: those 4, then `channel-day` (channel, day, 1e9),
//!   `user-channel-day` (user x channel, day, 20, extra `partner` +5),
//!   `option-hour` (option, hour, 1e9) and `user-rolling` (user, GCRA: 5
//!   per 60 s, burst 5).
//!
//! Each vote is [`Campaign::vote_by`] with a [`Voter`] of its own user
//! (`user:<n>`, as above), channel `web` or `partner` and device `pc` or
//! `mobile` (picked by the same hash as the option), cost 1, for
//! (`stars`, option): every dimension is exercised, one EVALSHA of
//! `lua/campaign_vote.lua` on the same arguments in all three campaigns. At
//! 1 sync connection and with the tasks sharing one multiplexed connection
//! (`--dedicated`: one each). The cost of the limits is reported as
//! throughput ratios ops/s(0 rules) / ops/s(4 rules) and ops/s(0) /
//! ops/s(8), at 1 connection and with the tasks (target: 4 rules cost at most
//! 1.5x the unlimited vote, i.e. that ratio <= 1.5), and the server's CPU per
//! vote with the rules over without (the tasks' rows).
//!
//! Ceiling: when `redis-benchmark` is on PATH (and `--no-redis-benchmark` is
//! not given), `redis-benchmark -c <tasks> -n <slice> -r 1000000000 -q --csv
//! EVALSHA <vote sha> 1 <prefix>ceiling:article: bench:<slice>:__rand_int__ <id> up`
//! runs against the same server, on an article of its own site
//! `<prefix>ceiling:` (so the checked articles and pages stay as they are),
//! `--ops` requests in all: the server's own speed for the same script with
//! a minimal C client (`-P 1`, its default: one request in flight per
//! connection). (c) with the tasks is reported as a ratio of it, both shared
//! and `own` (the like-for-like one).
//!
//! Interleaving: the run is cut into `--rounds` rounds (default 10, at most
//! one per 500 votes, so `--ops 200` runs one round); round `r` runs the
//! `r`-th slice of every scenario, then a slice of the ceiling. On a shared
//! or noisy machine a slow spell then hits every scenario a little instead
//! of one scenario a lot, which keeps the ratios steady. The rate-limit
//! scenarios run in two groups of three (0, 4, 8 rules at 1 connection, then
//! with the tasks), each rotated by one every round, so none of them always
//! runs first or last. Every scenario opens its connections once, before
//! the first round, and keeps them.
//!
//! Each op's latency goes into an HDR histogram (microseconds, from just
//! before the op's first request to its last reply); throughput is ops over
//! the sum of the slices' wall times. The ceiling's throughput is its
//! requests over the sum of `requests / rps` of its slices (redis-benchmark
//! times in whole milliseconds: a slice it reports as `inf` requests/s is
//! left out of the rate); its p50 is the median of the slices' p50s and its
//! p99 the highest slice p99. Beside them: the median PING round trip,
//! sampled at every round (the floor under every round trip: a 1-connection
//! op costs about round trips x RTT + server work, so the 1-connection
//! ratios grow with the RTT), and the server's CPU time per op (INFO cpu
//! before and after each slice, network I/O included: what bounds
//! throughput once the server is the bottleneck).
//!
//! # Checks
//!
//! A benchmark that measures failures is worthless, so: every op's reply is
//! checked (each vote must count as a new upvote, each page must hold the
//! expected articles) and any error aborts the bench (exit 1); after every
//! vote scenario every article is read back and must satisfy
//! `votes == |voted:ID|` and `score == time + 432 * votes`, and the sum of
//! `votes` must equal the posts plus every vote cast so far; both page flows
//! must read the same page 1. The ceiling's article must have gained (all
//! but 1%, for random-user collisions) the votes redis-benchmark sent.
//! Campaign: every redvote ballot must name the board, the option and 5
//! periods, every seed command must succeed; after every campaign slice each
//! side's `real:total` board must sum to the votes that side cast and its
//! `shown:total` to twice that; at the end, for each side and each period
//! kind, the real boards of that kind (all periods written, found by SCAN)
//! must sum to the votes, the shown boards to 2 x votes (total) or 2.2 x
//! votes (hour, day, week, month: weight plus carry), and the campaign's and
//! the options' HyperLogLogs must count the voters (within 3% + 2).
//! Rate limits: at setup, a peek ([`Campaign::limits`]) for a fresh voter on
//! `partner` must list each campaign's rules in order, each leaving its
//! whole allowance (extra included); every vote must pass (a
//! `REDVOTE_RATE_LIMITED` refusal, or any error, fails the bench) and answer
//! one ballot with the day and total scores; after every slice each
//! campaign's `real:total` and `shown:total` boards must sum to the votes
//! cast on it; at the end, for each campaign, the real and shown boards of
//! each period kind (found by SCAN) must sum to its votes, the unlimited
//! campaign must hold no rate-limit counter, and, when all its votes fell
//! on one day (at +08:00) that is still the server's day, the counters of
//! each of its day rules must sum to its votes (every rule was checked and
//! spent by every vote).
//!
//! # JSON (`--json`): one object, on one line
//!
//! * `redis_version` (string), `ping_p50_us` (median PING round trip on a
//!   sync connection, 200 sampled at each round), `server` (`host:port` or
//!   socket path), `throwaway` (bool), `prefix` (string), `articles`, `ops`
//!   (votes per vote scenario), `pages` (reads per page scenario), `tasks`,
//!   `threads` (tokio worker threads), `dedicated` (bool), `seconds` (whole
//!   run), `rounds`.
//! * `campaign`: the campaign section's setup: `ops` (votes per campaign
//!   scenario), `redvote_namespace`, `seed_namespace`, `board`, `options`,
//!   `weight`, `carry` (string), `offset` (string), `periods` (array of
//!   strings), `writes_per_vote` (16).
//! * `limits`: the rate-limit section's setup: `ops` (votes per rate-limit
//!   scenario), `board`, `options`, `weight`, `offset` (string), `periods`,
//!   `channels`, `devices` (arrays of strings), `target` (1.5: the most
//!   ops/s(0 rules) / ops/s(4 rules) wanted), `campaigns`: array of
//!   `rules` (0, 4, 8), `namespace`, `limits` (the rules as
//!   `Campaign::configure` takes them: `name`, `by`, `window` + `limit` or
//!   `rolling` {`limit`, `per`, `burst`}, `extra`).
//! * `rows`: array, in this order, of objects with `id` (`vote_seeds_1`,
//!   `vote_seeds_tasks`, `vote_watch_1`, `vote_watch_tasks`, `vote_redvote_1`,
//!   `vote_redvote_tasks`, `vote_redvote_own`, `page_seeds_1`,
//!   `page_redvote_1`, `page_seeds_tasks`, `page_redvote_tasks`,
//!   `campaign_seeds_sequential_1`, `campaign_seeds_1`,
//!   `campaign_seeds_tasks`, `campaign_redvote_1`, `campaign_redvote_tasks`,
//!   `campaign_redvote_own`, `limits_rules0_1`, `limits_rules4_1`,
//!   `limits_rules8_1`, `limits_rules0_tasks`, `limits_rules4_tasks`,
//!   `limits_rules8_tasks`), `op` (`vote` | `page` | `campaign` | `limits`),
//!   `flow` (`seeds` | `seeds_sequential` | `watch` | `redvote`; the
//!   campaign's `seeds` sends its 16 commands concurrently,
//!   `seeds_sequential` one after the other), `rules` (rate-limit rules each
//!   vote checks: 0, 4 or 8 on the `limits` rows, null on the others),
//!   `label`, `tasks`, `concurrent` (bool: false for the
//!   1-connection rows, whose `tasks` is 1), `connections` (TCP connections
//!   used), `shared` (bool: the tasks multiplex one connection), `client`
//!   (`sync`: a `redis::Connection`; `async`: multiplexed connections, which
//!   `campaign_seeds_1` uses with one connection and votes in sequence),
//!   `ops`, `seconds`, `ops_per_sec`, `p50_us`, `p99_us`, `max_us`,
//!   `mean_us`, `round_trips_per_op` (float, retried attempts included;
//!   commands sent concurrently count as one), `commands_per_op` (float,
//!   Redis commands sent per op, MULTI/EXEC included), `retries`,
//!   `server_cpu_us_per_op` (float or null), all summed over the rounds.
//! * `ceiling`: `ran` (bool), `skipped` (reason string or null), `command`
//!   (string or null), `clients`, `requests`, `ops_per_sec`, `p50_us`,
//!   `p99_us`, `server_cpu_us_per_op` (numbers, null when not run).
//! * `ratios`: array, in this order, of objects with `id`
//!   (`vote_redvote_over_seeds_1`, `vote_redvote_over_watch_1`,
//!   `vote_redvote_over_seeds_tasks`, `vote_redvote_over_watch_tasks`,
//!   `page_redvote_over_seeds_1`, `page_redvote_over_seeds_tasks`,
//!   `vote_redvote_tasks_over_redis_benchmark`,
//!   `vote_redvote_own_over_redis_benchmark`,
//!   `campaign_redvote_over_seeds_1` (target 3: `campaign_redvote_1` over
//!   `campaign_seeds_1`, the seed's 16 concurrent commands on 1 connection),
//!   `campaign_redvote_over_seeds_sequential_1`,
//!   `campaign_redvote_over_seeds_tasks`, then the limits' costs:
//!   `limits_4_over_0_1` (target 1.5: ops/s of `limits_rules0_1` over
//!   `limits_rules4_1`), `limits_8_over_0_1`, `limits_4_over_0_tasks`
//!   (target 1.5: `limits_rules0_tasks` over `limits_rules4_tasks`),
//!   `limits_8_over_0_tasks`, `limits_4_over_0_server_cpu` and
//!   `limits_8_over_0_server_cpu` (`server_cpu_us_per_op` of
//!   `limits_rules4_tasks`, `limits_rules8_tasks` over
//!   `limits_rules0_tasks`)), `label`, `value` (the ratio, null when not
//!   measured), `goal` (`at_least`: a throughput ratio, higher is better,
//!   `target` is the minimum wanted; `at_most`: a cost, lower is better,
//!   `target` is the maximum wanted), `target` (number or null), `pass`
//!   (bool: `value >= target` or, for `at_most`, `value <= target`; null
//!   without a target or a value). Targets are reported, not enforced:
//!   missing one does not fail the run.
//! * `checks`: `ok` (always true: a failed check is an error, exit 1),
//!   `articles`, `votes_cast`, `votes_found`, `campaign`: `redvote` and
//!   `seed`, each with `votes` (cast by that side's scenarios),
//!   `real_total` and `shown_total` (sums of the `total` boards),
//!   `participants` (PFCOUNT of the campaign's HyperLogLog; redvote's also
//!   holds the setup's probe voter) and `boards` (period boards found);
//!   `limits`: array (0, 4, 8 rules) of `rules`, `votes` (cast on that
//!   campaign, every one passed), `real_total` and `shown_total` (sums of
//!   its `total` boards), `boards` (period boards found), `counters`
//!   (rate-limit counter keys alive at the end) and `day_counters` (object:
//!   each day rule -> the sum of its counters, equal to `votes`; `{}` for
//!   the unlimited campaign; null when the votes spread over two days or the
//!   day ended before the check, which then compares nothing).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, ensure, Context, Result};
use clap::Args;
use hdrhistogram::Histogram;
use redis::aio::MultiplexedConnection;
use redis::{AsyncCommands, Commands, ConnectionAddr};
use redvote::campaign::{
    Ballot, BoardSettings, Dimension, LimitRule, OptionSettings, Rolling, Voter, Window,
};
use redvote::seed::{ONE_WEEK_IN_SECONDS, VOTE_SCORE};
use redvote::{
    Campaign, CampaignSettings, Order, Period, Site, TempServer, Ties, Vote, VoteOutcome,
};
use serde::Serialize;

/// Benchmark options.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Votes per vote scenario [default: 20000, 1000 with --quick]
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub ops: Option<u64>,
    /// Page reads per page scenario [default: ops / 10, at least 1]
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub pages: Option<u64>,
    /// Votes per campaign scenario [default: ops / 4, at least 1]
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub campaign_ops: Option<u64>,
    /// Votes per rate-limit scenario (0, 4 and 8 rules) [default: ops / 4,
    /// at least 1]
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub limits_ops: Option<u64>,
    /// A small run: 1000 votes, 100 page reads, 250 campaign votes and 250
    /// rate-limited votes per scenario
    #[arg(long, conflicts_with = "ops")]
    pub quick: bool,
    /// Concurrent tasks in the concurrent scenarios (and redis-benchmark -c)
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub tasks: u64,
    /// Articles posted first; the votes are spread over them
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub articles: u64,
    /// Give every task its own connection in (a) and (c) too [default: the
    /// tasks share one multiplexed connection, as a redis-rs backend does]
    #[arg(long)]
    pub dedicated: bool,
    /// Tokio worker threads for the concurrent scenarios (redis-benchmark
    /// uses one thread)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub threads: u64,
    /// Skip the redis-benchmark ceiling
    #[arg(long)]
    pub no_redis_benchmark: bool,
    /// Interleave the scenarios in this many rounds (each runs a slice of
    /// every scenario), so a slow spell of the machine hits all of them; at
    /// most one round per 500 votes
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub rounds: u64,
}

/// Articles per page, as in the seeds.
const PER_PAGE: u32 = 25;
/// (b) gives up on a vote after this many aborted transactions.
const MAX_WATCH_ATTEMPTS: u64 = 1000;
/// Prefix used with `--url` when `--prefix` is empty (never the seeds' keys).
const URL_PREFIX: &str = "redvote-bench:";
/// PINGs timed at the start of every round.
const PINGS_PER_ROUND: u64 = 200;
/// A reply slower than this fails the bench instead of hanging it.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(30);
/// The campaign section's board, its options (`opt1` ..), their weight and
/// the board's carry-over, the campaign's UTC offset (text and seconds).
const CAMPAIGN_BOARD: &str = "stars";
const CAMPAIGN_OPTIONS: usize = 100;
const CAMPAIGN_WEIGHT: u32 = 2;
const CAMPAIGN_CARRY: &str = "0.1";
const CAMPAIGN_CARRY_VALUE: f64 = 0.1;
const CAMPAIGN_OFFSET: &str = "+08:00";
const CAMPAIGN_OFFSET_SECONDS: i64 = 8 * 3600;
/// A second board of the redvote campaign, for the setup's period check
/// (its votes stay off the checked board).
const PROBE_BOARD: &str = "probe";
/// The periods the board keeps, in the order the vote reply lists them.
const PERIODS: [Period; 5] = [
    Period::Hour,
    Period::Day,
    Period::Week,
    Period::Month,
    Period::Total,
];
/// Commands of the seed's campaign vote: 5 ZINCRBY real + 5 ZINCRBY shown +
/// 4 ZINCRBY carry + 2 PFADD.
const SEED_WRITES: usize = 16;
/// The rate-limit section: the rules of its three campaigns (identical but
/// for their limits), their board (the campaign section's `opt1` ..
/// `opt100`, at weight 1, no carry) and the periods it keeps.
const LIMIT_RULE_COUNTS: [usize; 3] = [0, 4, 8];
const LIMITS_BOARD: &str = "stars";
const LIMITS_WEIGHT: u32 = 1;
const LIMITS_PERIODS: [Period; 2] = [Period::Day, Period::Total];
/// The rate-limit votes' channels and devices (picked by a hash of the user).
const LIMITS_CHANNELS: [&str; 2] = ["web", "partner"];
const LIMITS_DEVICES: [&str; 2] = ["pc", "mobile"];
/// "4 rules cost <= 1.5x": ops/s with 0 rules over ops/s with 4 rules.
const LIMITS_TARGET: f64 = 1.5;
/// Limits no bench vote can reach (the most `campaign_configure` takes).
const NEVER: u64 = 1_000_000_000;

/// `redvote bench`: run every scenario against one server (throwaway unless
/// `--url`), check the data, print the table and ratios (or the JSON object).
pub fn run(g: &crate::Global, args: &BenchArgs) -> Result<()> {
    let started = Instant::now();
    let ops = args.ops.unwrap_or(if args.quick { 1000 } else { 20_000 });
    let pages = args.pages.unwrap_or((ops / 10).max(1));
    let campaign_ops = args.campaign_ops.unwrap_or((ops / 4).max(1));
    let limits_ops = args.limits_ops.unwrap_or((ops / 4).max(1));
    let tasks = args.tasks as usize;
    // Slices of at least 500 votes: smaller ones measure little but noise.
    let rounds = args.rounds.min(ops / 500).max(1);

    // One server for the whole run; a throwaway one lives until `run` returns.
    let temp = match g.url {
        None => Some(TempServer::start().context("cannot start a throwaway redis-server")?),
        Some(_) => None,
    };
    let url = match (&temp, &g.url) {
        (Some(server), _) => server.url(),
        (None, Some(url)) => url.clone(),
        (None, None) => unreachable!("a throwaway server is started when there is no URL"),
    };
    let client =
        redis::Client::open(url.as_str()).with_context(|| format!("invalid Redis URL {url}"))?;
    let mut admin = crate::connect(&url)?;

    let prefix = match (&temp, g.prefix.is_empty()) {
        (None, true) => URL_PREFIX.to_string(),
        _ => g.prefix.clone(),
    };
    let site = Site::new(prefix.clone());
    if temp.is_some() {
        redis::cmd("FLUSHDB").exec(&mut admin)?;
    } else {
        let root = site.root_key().to_string();
        let busy: u64 = redis::cmd("EXISTS")
            .arg(&root)
            .arg(format!("{prefix}time:"))
            .arg(format!("{prefix}score:"))
            .arg(ceiling_site(&prefix).root_key())
            .query(&mut admin)?;
        ensure!(
            busy == 0,
            "prefix {prefix:?} already holds a site at {url}; the bench posts articles and votes, \
             so give it an unused --prefix (e.g. --prefix bench:)"
        );
        let names = CampaignNames::new(&prefix);
        let limits = limits_campaigns(&prefix);
        let mut exists = redis::cmd("EXISTS");
        exists
            .arg(names.redvote.root_key())
            .arg(format!("{}boards", names.redvote.namespace()))
            .arg(format!("{}hll", names.seed_ns))
            .arg(format!("{}b:{CAMPAIGN_BOARD}:real:total", names.seed_ns));
        for c in &limits {
            exists
                .arg(c.root_key())
                .arg(format!("{}boards", c.namespace()));
        }
        let busy: u64 = exists.query(&mut admin)?;
        ensure!(
            busy == 0,
            "the bench's campaign namespaces {:?}, {:?} or {:?} are in use at {url}; give the \
             bench an unused --prefix (e.g. --prefix bench:)",
            names.redvote.namespace(),
            names.seed_ns,
            limits.iter().map(|c| c.namespace()).collect::<Vec<_>>()
        );
    }
    // (a) and (b) add the seeds' VOTE_SCORE per vote: the site must use it too.
    let vote_score = site.config().run(&mut admin)?.vote_score;
    ensure!(
        f64::from(vote_score) == VOTE_SCORE,
        "the site under {prefix:?} has vote_score {vote_score}; the seeds' flows add {VOTE_SCORE}"
    );
    let version = redis_version(&mut admin)?;

    let mut bench = Bench {
        ctx: Arc::new(Ctx::new(site, Vec::new())),
        client,
        admin,
        next_user: 0,
        votes_cast: 0,
        posts: 0,
        votes_found: 0,
        campaign_votes: [0, 0],
        limits_votes: [0; 3],
        threads: args.threads as usize,
        pings: Measure::new()?,
    };
    let plan = Plan {
        ops,
        pages,
        campaign_ops,
        limits_ops,
        tasks,
        rounds,
    };
    let result = bench.all(args, plan, &temp, &url);
    // With --url, remove what the bench wrote (its prefix was empty at start).
    if temp.is_none() {
        let cleaned = bench.cleanup();
        if result.is_ok() {
            cleaned?;
        }
    }
    let (rows, ceiling, checks) = result?;
    let ping_p50_us = bench.pings.hist.value_at_quantile(0.5);

    let ratios = ratios(&rows, &ceiling);
    let names = &bench.ctx.campaign;
    let campaign = CampaignInfo {
        ops: campaign_ops,
        redvote_namespace: names.redvote.namespace().to_string(),
        seed_namespace: names.seed_ns.clone(),
        board: CAMPAIGN_BOARD,
        options: CAMPAIGN_OPTIONS,
        weight: CAMPAIGN_WEIGHT,
        carry: CAMPAIGN_CARRY,
        offset: CAMPAIGN_OFFSET,
        periods: PERIODS.iter().map(|p| p.as_str()).collect(),
        writes_per_vote: SEED_WRITES,
    };
    let limits = LimitsInfo {
        ops: limits_ops,
        board: LIMITS_BOARD,
        options: CAMPAIGN_OPTIONS,
        weight: LIMITS_WEIGHT,
        offset: CAMPAIGN_OFFSET,
        periods: LIMITS_PERIODS.iter().map(|p| p.as_str()).collect(),
        channels: LIMITS_CHANNELS.to_vec(),
        devices: LIMITS_DEVICES.to_vec(),
        target: LIMITS_TARGET,
        campaigns: LIMIT_RULE_COUNTS
            .iter()
            .zip(&bench.ctx.limits)
            .map(|(&rules, c)| LimitsCampaign {
                rules,
                namespace: c.namespace().to_string(),
                limits: limit_rules(rules),
            })
            .collect(),
    };
    let report = Report {
        redis_version: version,
        ping_p50_us,
        server: server_name(&bench.client),
        throwaway: temp.is_some(),
        prefix,
        articles: args.articles,
        ops,
        pages,
        tasks: args.tasks,
        threads: args.threads,
        dedicated: args.dedicated,
        rounds,
        seconds: round(started.elapsed().as_secs_f64(), 3),
        campaign,
        limits,
        rows,
        ceiling,
        ratios,
        checks,
    };
    if g.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print_human(&report);
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The run

/// Everything an op needs, shared by the tasks.
struct Ctx {
    site: Site,
    /// The prefix is empty: the 1-connection (a) and seeds page call the
    /// library's `redvote::seed` functions themselves.
    seeds_layout: bool,
    time_key: String,
    score_key: String,
    articles: Vec<ArticleKeys>,
    /// The campaign section's names and the seed's key cache.
    campaign: CampaignNames,
    /// The rate-limit section's campaigns (0, 4 and 8 rules).
    limits: Vec<Campaign>,
}

/// One posted article's names, built once.
struct ArticleKeys {
    /// `7`
    id: String,
    /// `article:7` (sorted-set member, no prefix)
    member: String,
    /// `<prefix>article:7`
    hash: String,
    /// `<prefix>voted:7`
    voted: String,
}

impl ArticleKeys {
    fn new(prefix: &str, id: u64) -> Self {
        ArticleKeys {
            id: id.to_string(),
            member: format!("article:{id}"),
            hash: format!("{prefix}article:{id}"),
            voted: format!("{prefix}voted:{id}"),
        }
    }
}

impl Ctx {
    fn new(site: Site, ids: Vec<u64>) -> Self {
        let prefix = site.prefix().to_string();
        Ctx {
            seeds_layout: prefix.is_empty(),
            time_key: format!("{prefix}time:"),
            score_key: format!("{prefix}score:"),
            articles: ids
                .iter()
                .map(|&id| ArticleKeys::new(&prefix, id))
                .collect(),
            campaign: CampaignNames::new(&prefix),
            limits: limits_campaigns(&prefix),
            site,
        }
    }

    /// Pages of `PER_PAGE` in `score:`.
    fn page_count(&self) -> u64 {
        (self.articles.len() as u64).div_ceil(PER_PAGE as u64)
    }

    /// The inputs of op `i` of a scenario whose users start at `base`:
    /// user `user:<base + i>` on an article (an option, a channel, a device)
    /// picked by a hash of that number (fixed, spread evenly), page
    /// `i % pages + 1`.
    fn input(&self, base: u64, i: u64) -> Input {
        let n = base + i;
        let hash = splitmix64(n);
        Input {
            user: format!("user:{n}"),
            article: (hash % self.articles.len() as u64) as usize,
            option: (hash % CAMPAIGN_OPTIONS as u64) as usize,
            channel: LIMITS_CHANNELS[(hash >> 40) as usize % LIMITS_CHANNELS.len()],
            device: LIMITS_DEVICES[(hash >> 48) as usize % LIMITS_DEVICES.len()],
            page: self.input_page(i),
            now: unix_now(),
        }
    }

    /// The page op `i` of a page scenario reads: `i % pages + 1`.
    fn input_page(&self, i: u64) -> u32 {
        (i % self.page_count()) as u32 + 1
    }

    /// Articles page `page` must hold.
    fn page_len(&self, page: u32) -> usize {
        let before = (page as usize - 1) * PER_PAGE as usize;
        self.articles
            .len()
            .saturating_sub(before)
            .min(PER_PAGE as usize)
    }
}

struct Input {
    user: String,
    article: usize,
    /// Index into the campaign's options.
    option: usize,
    /// The rate-limit votes' channel and device.
    channel: &'static str,
    device: &'static str,
    page: u32,
    /// Client clock, the seeds' `time.time()`.
    now: f64,
}

impl Input {
    /// The rate-limit votes' voter: the user, its channel and device, cost 1.
    fn voter(&self) -> Voter<'_> {
        Voter {
            user: &self.user,
            channel: Some(self.channel),
            device: Some(self.device),
            cost: 1,
        }
    }
}

/// The campaign section: the redvote campaign, the seed's namespace, the
/// option names, and the seed's keys for the current hour.
struct CampaignNames {
    /// `{<prefix>c:bench}:`
    redvote: Campaign,
    /// `{<prefix>c:bench-seed}:`
    seed_ns: String,
    /// `opt1` .. `opt100`
    options: Vec<String>,
    /// The seed's period keys, recomputed when the hour changes.
    seed_keys: Mutex<Arc<SeedKeys>>,
}

impl CampaignNames {
    fn new(prefix: &str) -> Self {
        let seed_ns = format!("{{{prefix}c:bench-seed}}:");
        let seed_keys = Mutex::new(Arc::new(SeedKeys::new(&seed_ns, unix_now() as i64)));
        CampaignNames {
            redvote: Campaign::with_namespace(format!("{{{prefix}c:bench}}:")),
            options: (1..=CAMPAIGN_OPTIONS).map(|i| format!("opt{i}")).collect(),
            seed_ns,
            seed_keys,
        }
    }

    /// The seed's keys at Unix second `now` (cached for the hour: every
    /// period boundary at a whole-hour offset is an hour boundary).
    fn seed_keys(&self, now: i64) -> Arc<SeedKeys> {
        let mut cached = self.seed_keys.lock().unwrap_or_else(|e| e.into_inner());
        if !(cached.from..cached.until).contains(&now) {
            *cached = Arc::new(SeedKeys::new(&self.seed_ns, now));
        }
        Arc::clone(&cached)
    }

    /// The namespace of a side (0: redvote, 1: seed).
    fn ns(&self, side: usize) -> &str {
        if side == 0 {
            self.redvote.namespace()
        } else {
            &self.seed_ns
        }
    }
}

/// The keys one seed vote writes in the hour `from..until`, computed
/// client-side as the seed does.
struct SeedKeys {
    from: i64,
    until: i64,
    /// (key, increment) of the 14 ZINCRBYs: real +1 and shown +weight for
    /// each period, shown +weight x carry for each next period.
    zincrby: Vec<(String, f64)>,
    /// `<ns>hll:stars:` (the option follows) and `<ns>hll`.
    option_hll: String,
    campaign_hll: String,
}

impl SeedKeys {
    fn new(ns: &str, now: i64) -> Self {
        let offset = CAMPAIGN_OFFSET_SECONDS;
        let board = format!("{ns}b:{CAMPAIGN_BOARD}:");
        let weight = f64::from(CAMPAIGN_WEIGHT);
        let mut zincrby = Vec::with_capacity(14);
        for kind in PERIODS {
            let (name, _) = period_at(kind, now, offset);
            zincrby.push((format!("{board}real:{name}"), 1.0));
            zincrby.push((format!("{board}shown:{name}"), weight));
        }
        for kind in PERIODS {
            if let (_, Some(end)) = period_at(kind, now, offset) {
                let (next, _) = period_at(kind, end, offset);
                zincrby.push((
                    format!("{board}shown:{next}"),
                    weight * CAMPAIGN_CARRY_VALUE,
                ));
            }
        }
        let local = now + offset;
        let from = local.div_euclid(3600) * 3600 - offset;
        SeedKeys {
            from,
            until: from + 3600,
            zincrby,
            option_hll: format!("{ns}hll:{CAMPAIGN_BOARD}:"),
            campaign_hll: format!("{ns}hll"),
        }
    }

    /// The seed's 16 commands for `user` voting for `option`.
    fn commands(&self, option: &str, user: &str) -> Vec<redis::Cmd> {
        let mut cmds = Vec::with_capacity(SEED_WRITES);
        for (key, by) in &self.zincrby {
            let mut c = redis::cmd("ZINCRBY");
            c.arg(key).arg(*by).arg(option);
            cmds.push(c);
        }
        let mut c = redis::cmd("PFADD");
        c.arg(format!("{}{option}", self.option_hll)).arg(user);
        cmds.push(c);
        let mut c = redis::cmd("PFADD");
        c.arg(&self.campaign_hll).arg(user);
        cmds.push(c);
        cmds
    }
}

/// The rules of the rate-limit campaign with `n` (0, 4 or 8) rules. Every
/// bench vote is by a new user, so the per-user rules keep realistic limits
/// (as `docs/spring2026.json`) and still never refuse; the option and
/// channel rules get limits no bench reaches.
fn limit_rules(n: usize) -> Vec<LimitRule> {
    let fixed = |name: &str, by: &[Dimension], window: Window, limit: u64| LimitRule {
        name: name.to_string(),
        by: by.to_vec(),
        window: Some(window),
        limit: Some(limit),
        rolling: None,
        extra: BTreeMap::new(),
    };
    let (user, option) = (Dimension::User, Dimension::Option);
    let mut rules = vec![
        // 4 rules.
        fixed("user-minute", &[user], Window::Minute, 5),
        fixed("user-hour", &[user], Window::Hour, 10),
        fixed("option-second", &[option], Window::Second, NEVER),
        fixed(
            "user-device-day",
            &[user, Dimension::Device],
            Window::Day,
            20,
        ),
        // 8 rules.
        fixed("channel-day", &[Dimension::Channel], Window::Day, NEVER),
        LimitRule {
            extra: BTreeMap::from([(LIMITS_CHANNELS[1].to_string(), 5)]),
            ..fixed(
                "user-channel-day",
                &[user, Dimension::Channel],
                Window::Day,
                20,
            )
        },
        fixed("option-hour", &[option], Window::Hour, NEVER),
        LimitRule {
            name: "user-rolling".to_string(),
            by: vec![user],
            window: None,
            limit: None,
            rolling: Some(Rolling {
                limit: 5,
                per: 60,
                burst: Some(5),
            }),
            extra: BTreeMap::new(),
        },
    ];
    rules.truncate(n);
    rules
}

/// What `rule` allows a fresh voter on `channel`: its limit (a rolling
/// rule: its burst) plus the channel's extra allowance.
fn allowance(rule: &LimitRule, channel: &str) -> u64 {
    let base = match (&rule.rolling, rule.limit) {
        (Some(r), _) => r.burst.unwrap_or(r.limit),
        (None, limit) => limit.unwrap_or(0),
    };
    base + rule.extra.get(channel).copied().unwrap_or(0)
}

/// `user-channel-day 20/day +5 partner`, `user-rolling GCRA 5 per 60 s
/// burst 5`: a rule in a few words (`1e9`: never reached).
fn describe_rule(rule: &LimitRule) -> String {
    let amount = |n: u64| {
        if n >= NEVER {
            "1e9".to_string()
        } else {
            n.to_string()
        }
    };
    let mut text = match (&rule.rolling, rule.window, rule.limit) {
        (Some(r), _, _) => format!(
            "{} GCRA {} per {} s burst {}",
            rule.name,
            r.limit,
            r.per,
            r.burst.unwrap_or(r.limit)
        ),
        (None, Some(w), Some(limit)) => {
            let window = serde_json::to_value(w)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            format!("{} {}/{window}", rule.name, amount(limit))
        }
        _ => rule.name.clone(),
    };
    for (channel, n) in &rule.extra {
        text.push_str(&format!(" +{n} {channel}"));
    }
    text
}

/// The rate-limit section's campaigns, one per entry of
/// `LIMIT_RULE_COUNTS`: `{<prefix>c:bench-limits<rules>}:`.
fn limits_campaigns(prefix: &str) -> Vec<Campaign> {
    LIMIT_RULE_COUNTS
        .iter()
        .map(|n| Campaign::with_namespace(format!("{{{prefix}c:bench-limits{n}}}:")))
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Seeds,
    /// The campaign seed's 16 commands one after the other.
    SeedsSequential,
    Watch,
    Redvote,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Vote,
    Page,
    /// A campaign leaderboard vote.
    Campaign,
    /// A rate-limited campaign vote on the `k`-th campaign of the rate-limit
    /// section (`LIMIT_RULE_COUNTS[k]` rules).
    Limits(usize),
}

/// One scenario: what, how, how much.
#[derive(Clone, Copy, Debug)]
struct Scenario {
    op: Op,
    flow: Flow,
    /// False: one sync connection, ops in sequence (`tasks` is 1); true:
    /// `tasks` tokio tasks.
    concurrent: bool,
    tasks: usize,
    /// With tasks: one multiplexed connection for all of them.
    shared: bool,
    /// Without tasks: one multiplexed (async) connection instead of a sync
    /// one, ops still in sequence (the campaign seed's concurrent commands).
    async_con: bool,
    ops: u64,
    /// The last part of the row id: `1`, `tasks` or `own`.
    suffix: &'static str,
}

impl Scenario {
    fn id(&self) -> String {
        match self.op {
            Op::Limits(k) => format!("limits_rules{}_{}", LIMIT_RULE_COUNTS[k], self.suffix),
            _ => format!("{}_{}_{}", self.op_name(), self.flow_name(), self.suffix),
        }
    }

    /// The rate-limit rules every vote checks (None outside that section).
    fn rules(&self) -> Option<usize> {
        match self.op {
            Op::Limits(k) => Some(LIMIT_RULE_COUNTS[k]),
            _ => None,
        }
    }

    fn op_name(&self) -> &'static str {
        match self.op {
            Op::Vote => "vote",
            Op::Page => "page",
            Op::Campaign => "campaign",
            Op::Limits(_) => "limits",
        }
    }

    fn flow_name(&self) -> &'static str {
        match self.flow {
            Flow::Seeds => "seeds",
            Flow::SeedsSequential => "seeds_sequential",
            Flow::Watch => "watch",
            Flow::Redvote => "redvote",
        }
    }

    fn label(&self) -> &'static str {
        match (self.op, self.flow) {
            (Op::Vote, Flow::Seeds | Flow::SeedsSequential) => "vote (a) seeds client-side",
            (Op::Vote, Flow::Watch) => "vote (b) WATCH/MULTI/EXEC",
            (Op::Vote, Flow::Redvote) => "vote (c) redvote EVALSHA",
            (Op::Page, Flow::Seeds | Flow::SeedsSequential) => "page seeds ZREVRANGE+HGETALLs",
            (Op::Page, _) => "page redvote EVALSHA",
            (Op::Campaign, Flow::Seeds) => "campaign (a) seed 16 concurrent",
            (Op::Campaign, Flow::SeedsSequential) => "campaign (a) seed 16 sequential",
            (Op::Campaign, _) => "campaign (c) redvote EVALSHA",
            (Op::Limits(k), _) => [
                "limits 0 rules EVALSHA",
                "limits 4 rules EVALSHA",
                "limits 8 rules EVALSHA",
            ][k],
        }
    }

    /// Round trips per op on average (`retries` more attempts of (b) cost
    /// 4 each); commands sent together count as one.
    fn round_trips(&self, ctx: &Ctx, retries: u64) -> f64 {
        match (self.op, self.flow) {
            (Op::Vote, Flow::Seeds) => 4.0,
            (Op::Vote, Flow::Watch) => 4.0 * (self.ops + retries) as f64 / self.ops as f64,
            (Op::Page, Flow::Seeds) => self.page_seeds_commands(ctx),
            (Op::Campaign, Flow::SeedsSequential) => SEED_WRITES as f64,
            _ => 1.0,
        }
    }

    /// Redis commands sent per op on average: (b) sends WATCH, ZSCORE,
    /// SISMEMBER, MULTI, SADD, ZINCRBY, HINCRBY, EXEC per attempt.
    fn commands(&self, ctx: &Ctx, retries: u64) -> f64 {
        match (self.op, self.flow) {
            (Op::Vote, Flow::Seeds) => 4.0,
            (Op::Vote, Flow::Watch) => 8.0 * (self.ops + retries) as f64 / self.ops as f64,
            (Op::Page, Flow::Seeds) => self.page_seeds_commands(ctx),
            (Op::Campaign, Flow::Seeds | Flow::SeedsSequential) => SEED_WRITES as f64,
            _ => 1.0,
        }
    }

    /// The seeds' page: ZREVRANGE, then one HGETALL per article read.
    fn page_seeds_commands(&self, ctx: &Ctx) -> f64 {
        let hgetalls: u64 = (0..self.ops)
            .map(|i| ctx.page_len(ctx.input_page(i)) as u64)
            .sum();
        1.0 + hgetalls as f64 / self.ops as f64
    }
}

/// A scenario's connections.
enum Cons {
    /// The 1-connection scenarios.
    Sync(redis::Connection),
    /// One handle per task.
    Tasks(Vec<MultiplexedConnection>),
}

/// How much to run: votes and page reads per scenario, concurrent tasks,
/// interleaved rounds.
#[derive(Clone, Copy, Debug)]
struct Plan {
    ops: u64,
    pages: u64,
    campaign_ops: u64,
    limits_ops: u64,
    tasks: usize,
    rounds: u64,
}

/// The order of the scenarios in round `round`: as listed, except that each
/// group of rate-limit scenarios (0, 4 and 8 rules at the same connections)
/// is rotated by one every round, so none of them always runs first (right
/// after a different kind of scenario) or last.
fn round_order(scenarios: &[Scenario], round: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scenarios.len()).collect();
    let mut i = 0;
    while i < scenarios.len() {
        let mut j = i;
        while j < scenarios.len()
            && matches!(scenarios[j].op, Op::Limits(_))
            && scenarios[j].suffix == scenarios[i].suffix
        {
            j += 1;
        }
        if j > i {
            order[i..j].rotate_left(round as usize % (j - i));
            i = j;
        } else {
            i += 1;
        }
    }
    order
}

struct Bench {
    ctx: Arc<Ctx>,
    client: redis::Client,
    /// Setup, checks and cleanup.
    admin: redis::Connection,
    /// Users are `user:<n>`, `n` never reused in a run: every vote is new.
    next_user: u64,
    /// Votes counted by the scenarios so far.
    votes_cast: u64,
    /// Articles posted (each starts with the poster's vote).
    posts: u64,
    /// The votes the last check found on the articles.
    votes_found: u64,
    /// Campaign votes cast by each side: [redvote, seed].
    campaign_votes: [u64; 2],
    /// Votes cast on each rate-limit campaign (0, 4 and 8 rules).
    limits_votes: [u64; 3],
    threads: usize,
    /// PING round trips, sampled at every round.
    pings: Measure,
}

impl Bench {
    fn all(
        &mut self,
        args: &BenchArgs,
        plan: Plan,
        temp: &Option<TempServer>,
        url: &str,
    ) -> Result<(Vec<Row>, Ceiling, Checks)> {
        let Plan {
            ops,
            pages,
            campaign_ops,
            limits_ops,
            tasks,
            rounds,
        } = plan;
        let site = self.ctx.site.clone();
        // Warm the script cache so no op pays a NOSCRIPT round trip.
        redvote::scripts::load_all(&mut self.admin)?;
        let mut ids = Vec::with_capacity(args.articles as usize);
        for i in 1..=args.articles {
            let call = site.post(
                &format!("author:{i}"),
                &format!("Bench article {i}"),
                &format!("https://example.com/{i}"),
            );
            ids.push(call.run(&mut self.admin).context("posting the articles")?);
            self.posts += 1;
        }
        self.ctx = Arc::new(Ctx::new(site, ids));
        self.check("setup")?;
        self.campaign_setup()?;
        self.limits_setup()?;

        let many = |op, flow, shared, ops| Scenario {
            op,
            flow,
            concurrent: true,
            tasks,
            shared,
            async_con: false,
            ops,
            suffix: "tasks",
        };
        let one = |op, flow, ops| Scenario {
            op,
            flow,
            concurrent: false,
            tasks: 1,
            shared: false,
            async_con: false,
            ops,
            suffix: "1",
        };
        let shared = !args.dedicated;
        let scenarios = [
            one(Op::Vote, Flow::Seeds, ops),
            many(Op::Vote, Flow::Seeds, shared, ops),
            one(Op::Vote, Flow::Watch, ops),
            // WATCH is per connection: one per task, always.
            many(Op::Vote, Flow::Watch, false, ops),
            one(Op::Vote, Flow::Redvote, ops),
            many(Op::Vote, Flow::Redvote, shared, ops),
            // Like for like with redis-benchmark -c <tasks> -P 1: one
            // connection per task, one request in flight on each.
            Scenario {
                suffix: "own",
                ..many(Op::Vote, Flow::Redvote, false, ops)
            },
            one(Op::Page, Flow::Seeds, pages),
            one(Op::Page, Flow::Redvote, pages),
            many(Op::Page, Flow::Seeds, shared, pages),
            many(Op::Page, Flow::Redvote, shared, pages),
            // The campaign section: the seed's 16 commands one after the
            // other, then all at once on one multiplexed connection, ...
            one(Op::Campaign, Flow::SeedsSequential, campaign_ops),
            Scenario {
                async_con: true,
                ..one(Op::Campaign, Flow::Seeds, campaign_ops)
            },
            many(Op::Campaign, Flow::Seeds, shared, campaign_ops),
            // ... against one EVALSHA.
            one(Op::Campaign, Flow::Redvote, campaign_ops),
            many(Op::Campaign, Flow::Redvote, shared, campaign_ops),
            Scenario {
                suffix: "own",
                ..many(Op::Campaign, Flow::Redvote, false, campaign_ops)
            },
            // The rate-limit section: the same vote with 0, 4 and 8 rules
            // (each group of three runs in a rotated order every round).
            one(Op::Limits(0), Flow::Redvote, limits_ops),
            one(Op::Limits(1), Flow::Redvote, limits_ops),
            one(Op::Limits(2), Flow::Redvote, limits_ops),
            many(Op::Limits(0), Flow::Redvote, shared, limits_ops),
            many(Op::Limits(1), Flow::Redvote, shared, limits_ops),
            many(Op::Limits(2), Flow::Redvote, shared, limits_ops),
        ];

        // The ceiling runs a slice per round too, after the scenarios' slices.
        let mut ceiling = if args.no_redis_benchmark {
            Err("--no-redis-benchmark".to_string())
        } else {
            self.ceiling_start(tasks, temp)?
        };

        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(self.threads)
            .enable_all()
            .build()?;
        // Each scenario's users start at its own base: user numbers are
        // never reused, so every vote is new.
        let mut bases = Vec::with_capacity(scenarios.len());
        for s in &scenarios {
            bases.push(self.next_user);
            self.next_user += s.ops;
        }
        // Interleaved rounds: round r runs the r-th slice of every scenario,
        // one scenario after the other, so a slow spell of the machine
        // (shared CPUs, noisy loopback) spreads over all of them instead of
        // skewing one scenario and every ratio built on it.
        let mut totals = scenarios
            .iter()
            .map(|_| Measure::new())
            .collect::<Result<Vec<_>>>()?;
        // Each scenario's connections, opened once and kept over the rounds,
        // as a backend keeps its own.
        let mut cons = Vec::with_capacity(scenarios.len());
        for s in &scenarios {
            cons.push(if s.concurrent || s.async_con {
                Cons::Tasks(runtime.block_on(self.connect_tasks(s))?)
            } else {
                Cons::Sync(self.client.get_connection()?)
            });
        }
        for round in 0..rounds {
            self.ping(PINGS_PER_ROUND)?;
            for k in round_order(&scenarios, round) {
                let s = &scenarios[k];
                let (lo, hi) = (s.ops * round / rounds, s.ops * (round + 1) / rounds);
                if lo == hi {
                    continue;
                }
                let cpu_before = server_cpu(&mut self.admin)?;
                let mut m = match &mut cons[k] {
                    Cons::Tasks(tasks) => {
                        runtime.block_on(self.run_tasks(tasks, *s, bases[k], lo, hi))
                    }
                    Cons::Sync(con) => self.run_sequential(con, *s, bases[k], lo, hi),
                }
                .with_context(|| format!("scenario {} (round {})", s.id(), round + 1))?;
                let cpu_after = server_cpu(&mut self.admin)?;
                m.server_cpu = cpu_before.zip(cpu_after).map(|(b, a)| (a - b).max(0.0));
                match s.op {
                    Op::Vote => {
                        self.votes_cast += hi - lo;
                        self.check(&format!("{} (round {})", s.id(), round + 1))?;
                    }
                    Op::Campaign => {
                        let side = usize::from(s.flow != Flow::Redvote);
                        self.campaign_votes[side] += hi - lo;
                        self.check_campaign_totals(
                            side,
                            &format!("{} (round {})", s.id(), round + 1),
                        )?;
                    }
                    Op::Limits(c) => {
                        self.limits_votes[c] += hi - lo;
                        self.check_limits_totals(c, &format!("{} (round {})", s.id(), round + 1))?;
                    }
                    Op::Page => {}
                }
                totals[k].add(&m)?;
            }
            if let Ok(run) = &mut ceiling {
                let (lo, hi) = (ops * round / rounds, ops * (round + 1) / rounds);
                if hi > lo {
                    self.ceiling_slice(run, hi - lo, url)?;
                }
            }
        }
        let rows = scenarios
            .iter()
            .zip(totals)
            .map(|(s, m)| Row::new(s, &self.ctx, m))
            .collect();
        self.check_pages_agree()?;
        let campaign = CampaignChecks {
            redvote: self.check_campaign(0)?,
            seed: self.check_campaign(1)?,
        };
        let limits = (0..LIMIT_RULE_COUNTS.len())
            .map(|k| self.check_limits(k))
            .collect::<Result<Vec<_>>>()?;
        let checks = Checks {
            ok: true,
            articles: self.ctx.articles.len() as u64,
            votes_cast: self.votes_cast,
            votes_found: self.votes_found,
            campaign,
            limits,
        };

        let ceiling = match ceiling {
            Ok(run) => self.ceiling_finish(run)?,
            Err(reason) => Ceiling::skipped(&reason, tasks, ops),
        };
        Ok((rows, ceiling, checks))
    }

    /// `n` PINGs on the sync admin connection, timed into `pings`: the
    /// floor under every round trip the flows pay, sampled every round
    /// (loopback latency drifts on a shared machine).
    fn ping(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            let t = Instant::now();
            redis::cmd("PING").exec(&mut self.admin)?;
            self.pings.record(t.elapsed());
        }
        Ok(())
    }

    /// Ops `lo..hi` of a 1-connection scenario: a sync connection, one op
    /// after the other.
    fn run_sequential(
        &self,
        con: &mut redis::Connection,
        s: Scenario,
        base: u64,
        lo: u64,
        hi: u64,
    ) -> Result<Measure> {
        let ctx = &*self.ctx;
        let mut m = Measure::new()?;
        let start = Instant::now();
        for i in lo..hi {
            let input = ctx.input(base, i);
            let t = Instant::now();
            m.retries += op_sync(ctx, con, s, &input)?;
            m.record(t.elapsed());
        }
        m.elapsed = start.elapsed();
        Ok(m)
    }

    /// One connection handle per task: clones of one multiplexed connection
    /// when the scenario shares it, else a connection each.
    async fn connect_tasks(&self, s: &Scenario) -> Result<Vec<MultiplexedConnection>> {
        let config = redis::AsyncConnectionConfig::new()
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_connection_timeout(Some(RESPONSE_TIMEOUT));
        let mut cons: Vec<MultiplexedConnection> = Vec::with_capacity(s.tasks);
        for i in 0..s.tasks {
            if s.shared && i > 0 {
                cons.push(cons[0].clone());
            } else {
                let con = self
                    .client
                    .get_multiplexed_async_connection_with_config(&config)
                    .await
                    .with_context(|| format!("connecting the tasks of {}", s.id()))?;
                cons.push(con);
            }
        }
        Ok(cons)
    }

    /// Ops `lo..hi` of a concurrent scenario: `s.tasks` tokio tasks take op
    /// numbers from a shared counter until it reaches `hi` (or one fails,
    /// which stops all).
    async fn run_tasks(
        &self,
        cons: &[MultiplexedConnection],
        s: Scenario,
        base: u64,
        lo: u64,
        hi: u64,
    ) -> Result<Measure> {
        let next = Arc::new(AtomicU64::new(lo));
        let start = Instant::now();
        let handles: Vec<_> = cons
            .iter()
            .map(|con| {
                // A handle to the task's connection (the shared one, or its
                // own, which no other task touches: WATCH stays per task).
                let mut con = con.clone();
                let ctx = Arc::clone(&self.ctx);
                let next = Arc::clone(&next);
                tokio::spawn(async move {
                    let mut m = Measure::new()?;
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= hi {
                            return Ok::<Measure, anyhow::Error>(m);
                        }
                        let input = ctx.input(base, i);
                        let t = Instant::now();
                        match op_async(&ctx, &mut con, s, &input).await {
                            Ok(retries) => m.retries += retries,
                            Err(e) => {
                                next.store(hi, Ordering::Relaxed); // stop the others
                                return Err(e);
                            }
                        }
                        m.record(t.elapsed());
                    }
                })
            })
            .collect();
        let mut total = Measure::new()?;
        let mut first_error = None;
        for handle in handles {
            match handle.await.context("a bench task panicked")? {
                Ok(m) => total.add(&m)?,
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        total.elapsed = start.elapsed();
        match first_error {
            Some(e) => Err(e),
            None => Ok(total),
        }
    }

    /// Every article must satisfy `votes == |voted:ID|` and `score == time +
    /// 432 * votes`, and all votes must add up to the posts plus every vote
    /// the scenarios cast so far.
    fn check(&mut self, after: &str) -> Result<()> {
        let ctx = &*self.ctx;
        let con = &mut self.admin;
        let mut times = redis::pipe();
        let mut scores = redis::pipe();
        let mut votes = redis::pipe();
        let mut voters = redis::pipe();
        for a in &ctx.articles {
            times.zscore(&ctx.time_key, &a.member);
            scores.zscore(&ctx.score_key, &a.member);
            votes.hget(&a.hash, "votes");
            voters.scard(&a.voted);
        }
        let times: Vec<Option<f64>> = times.query(con)?;
        let scores: Vec<Option<f64>> = scores.query(con)?;
        let votes: Vec<Option<u64>> = votes.query(con)?;
        let voters: Vec<u64> = voters.query(con)?;
        let mut sum = 0;
        for (i, a) in ctx.articles.iter().enumerate() {
            let (Some(time), Some(score), Some(v)) = (times[i], scores[i], votes[i]) else {
                bail!(
                    "check after {after}: {} lost its time, score or votes",
                    a.hash
                );
            };
            ensure!(
                v == voters[i],
                "check after {after}: {} has votes {v} but {} holds {} voters",
                a.hash,
                a.voted,
                voters[i]
            );
            let want = time + VOTE_SCORE * v as f64;
            ensure!(
                (score - want).abs() < 1e-3,
                "check after {after}: {} has score {score}, want time + 432 x votes = {want}",
                a.member
            );
            sum += v;
        }
        let want = self.posts + self.votes_cast;
        ensure!(
            sum == want,
            "check after {after}: the articles hold {sum} votes, want {} posts + {} votes cast = {want}",
            self.posts,
            self.votes_cast
        );
        self.votes_found = sum;
        Ok(())
    }

    /// Configure the redvote campaign (the seed's namespace needs no
    /// settings: its client knows them), then check the seed's client-side
    /// period names against `campaign_vote.lua`'s: at now, at the first
    /// second of each next period (the carry's target) and at New Year and
    /// 29 February across the offset, on the probe board.
    fn campaign_setup(&mut self) -> Result<()> {
        let campaign = self.ctx.campaign.redvote.clone();
        let all = PERIODS.to_vec();
        let board = |options: &[String]| BoardSettings {
            periods: Some(all.clone()),
            ties: Some(Ties::Competition),
            carry: Some(CAMPAIGN_CARRY.to_string()),
            options: options
                .iter()
                .map(|o| {
                    let option = OptionSettings {
                        weight: Some(CAMPAIGN_WEIGHT),
                        data: None,
                    };
                    (o.clone(), option)
                })
                .collect(),
            ..BoardSettings::default()
        };
        let settings = CampaignSettings {
            offset: Some(CAMPAIGN_OFFSET.to_string()),
            boards: BTreeMap::from([
                (
                    CAMPAIGN_BOARD.to_string(),
                    board(&self.ctx.campaign.options),
                ),
                (PROBE_BOARD.to_string(), board(&["opt1".to_string()])),
            ]),
            ..CampaignSettings::default()
        };
        campaign
            .configure(&settings)
            .run(&mut self.admin)
            .context("configuring the bench campaign")?;
        let now = unix_now() as i64;
        let mut times = vec![now, 1_798_732_799, 1_798_732_800, 1_835_366_400];
        for kind in PERIODS {
            if let (_, Some(end)) = period_at(kind, now, CAMPAIGN_OFFSET_SECONDS) {
                times.push(end);
            }
        }
        for t in times {
            let ballots = campaign
                .at(t as u64)
                .vote("probe", &[(PROBE_BOARD, "opt1")])
                .run(&mut self.admin)
                .context("the campaign's probe vote")?;
            let lua: Vec<&str> = ballots
                .iter()
                .flat_map(|b| b.shown.iter().map(|p| p.period.as_str()))
                .collect();
            let rust: Vec<String> = PERIODS
                .iter()
                .map(|&k| period_at(k, t, CAMPAIGN_OFFSET_SECONDS).0)
                .collect();
            ensure!(
                lua == rust,
                "the seed's period names at {t} are {rust:?}, campaign_vote.lua's {lua:?}"
            );
        }
        Ok(())
    }

    /// After a campaign slice: `side`'s (0: redvote, 1: seed) `real:total`
    /// board sums to its votes, its `shown:total` board to twice that.
    fn check_campaign_totals(&mut self, side: usize, after: &str) -> Result<()> {
        let ns = self.ctx.campaign.ns(side).to_string();
        let votes = self.campaign_votes[side] as f64;
        for (kind, want) in [
            ("real", votes),
            ("shown", votes * f64::from(CAMPAIGN_WEIGHT)),
        ] {
            let key = format!("{ns}b:{CAMPAIGN_BOARD}:{kind}:total");
            let sum = zset_sum(&mut self.admin, &key)?;
            ensure!(
                close(sum, want),
                "campaign check after {after}: {key} sums to {sum}, want {want}"
            );
        }
        Ok(())
    }

    /// After the rounds: every period board of `side`, found by SCAN, per
    /// kind: real boards sum to the votes, shown boards to weight x votes
    /// plus the carry (none into total); the HyperLogLogs count the voters.
    fn check_campaign(&mut self, side: usize) -> Result<CampaignCheck> {
        let names = &self.ctx.campaign;
        let ns = names.ns(side).to_string();
        let who = if side == 0 { "redvote" } else { "seed" };
        let votes = self.campaign_votes[side];
        let boards = scan_keys(&mut self.admin, &format!("{ns}b:{CAMPAIGN_BOARD}:"))?;
        // (real or shown, period kind) -> sum over that kind's boards.
        let mut sums: BTreeMap<(String, String), f64> = BTreeMap::new();
        for key in &boards {
            let rest = &key[ns.len() + CAMPAIGN_BOARD.len() + 3..];
            let (kind, period) = rest
                .split_once(':')
                .with_context(|| format!("unexpected campaign key {key}"))?;
            let period_kind = period.split(':').next().unwrap_or(period);
            *sums
                .entry((kind.to_string(), period_kind.to_string()))
                .or_default() += zset_sum(&mut self.admin, key)?;
        }
        let weight = f64::from(CAMPAIGN_WEIGHT);
        let v = votes as f64;
        for period in PERIODS {
            let p = period.as_str().to_string();
            let carry = if period == Period::Total {
                0.0
            } else {
                weight * CAMPAIGN_CARRY_VALUE
            };
            for (kind, want) in [("real", v), ("shown", v * (weight + carry))] {
                let got = sums.get(&(kind.to_string(), p.clone())).copied();
                let got = got.unwrap_or(0.0);
                ensure!(
                    close(got, want),
                    "campaign check ({who}): the {kind} {p} boards sum to {got}, want {want} \
                     for {votes} votes"
                );
            }
        }
        ensure!(
            sums.len() == 2 * PERIODS.len(),
            "campaign check ({who}): unexpected boards {:?}",
            sums.keys().collect::<Vec<_>>()
        );
        // HyperLogLogs: approximate counts (redvote's campaign HLL also
        // holds the setup's probe voter).
        let probe = u64::from(side == 0);
        let participants: u64 = redis::cmd("PFCOUNT")
            .arg(format!("{ns}hll"))
            .query(&mut self.admin)?;
        let mut pipe = redis::pipe();
        for o in &names.options {
            pipe.cmd("PFCOUNT")
                .arg(format!("{ns}hll:{CAMPAIGN_BOARD}:{o}"));
        }
        let per_option: Vec<u64> = pipe.query(&mut self.admin)?;
        let option_sum: u64 = per_option.iter().sum();
        for (what, got, want) in [
            ("the campaign's", participants, votes + probe),
            ("the options'", option_sum, votes),
        ] {
            let slack = want as f64 * 0.03 + 2.0;
            ensure!(
                (got as f64 - want as f64).abs() <= slack,
                "campaign check ({who}): {what} HyperLogLogs count {got} voters, want about {want}"
            );
        }
        let total = |kind: &str| {
            sums.get(&(kind.to_string(), "total".to_string()))
                .copied()
                .unwrap_or(0.0)
        };
        Ok(CampaignCheck {
            votes,
            real_total: round(total("real"), 2),
            shown_total: round(total("shown"), 2),
            participants,
            boards: boards.len() as u64,
        })
    }

    /// Configure the rate-limit section's campaigns, identical but for their
    /// limits (offset +08:00, one board keeping day and total, the options
    /// at weight 1), then peek at each one's rules for a fresh voter on the
    /// `partner` channel: they must be the configured ones, in order, each
    /// leaving its whole allowance (extra included).
    fn limits_setup(&mut self) -> Result<()> {
        let options = &self.ctx.campaign.options;
        for (k, campaign) in self.ctx.limits.iter().enumerate() {
            let rules = limit_rules(LIMIT_RULE_COUNTS[k]);
            let board = BoardSettings {
                periods: Some(LIMITS_PERIODS.to_vec()),
                ties: Some(Ties::Competition),
                options: options
                    .iter()
                    .map(|o| {
                        let option = OptionSettings {
                            weight: Some(LIMITS_WEIGHT),
                            data: None,
                        };
                        (o.clone(), option)
                    })
                    .collect(),
                ..BoardSettings::default()
            };
            let settings = CampaignSettings {
                offset: Some(CAMPAIGN_OFFSET.to_string()),
                limits: Some(rules.clone()),
                boards: BTreeMap::from([(LIMITS_BOARD.to_string(), board)]),
                ..CampaignSettings::default()
            };
            campaign
                .configure(&settings)
                .run(&mut self.admin)
                .with_context(|| format!("configuring the {}-rule campaign", rules.len()))?;
            let channel = LIMITS_CHANNELS[1];
            let voter = Voter {
                user: "bench:limits-probe",
                channel: Some(channel),
                device: Some(LIMITS_DEVICES[1]),
                cost: 1,
            };
            let got: Vec<(String, i64)> = campaign
                .limits(&voter, &[(LIMITS_BOARD, "opt1")])
                .run(&mut self.admin)
                .context("peeking at the rate-limit campaign's rules")?
                .into_iter()
                .map(|l| (l.rule, l.remaining))
                .collect();
            let want: Vec<(String, i64)> = rules
                .iter()
                .map(|r| (r.name.clone(), allowance(r, channel) as i64))
                .collect();
            ensure!(
                got == want,
                "the {}-rule campaign leaves a fresh voter {got:?}, want {want:?}",
                rules.len()
            );
        }
        Ok(())
    }

    /// After a rate-limit slice: campaign `k`'s `real:total` board sums to
    /// its votes, its `shown:total` board to weight x that.
    fn check_limits_totals(&mut self, k: usize, after: &str) -> Result<()> {
        let ns = self.ctx.limits[k].namespace().to_string();
        let votes = self.limits_votes[k] as f64;
        for (kind, want) in [("real", votes), ("shown", votes * f64::from(LIMITS_WEIGHT))] {
            let key = format!("{ns}b:{LIMITS_BOARD}:{kind}:total");
            let sum = zset_sum(&mut self.admin, &key)?;
            ensure!(
                close(sum, want),
                "limits check after {after}: {key} sums to {sum}, want {want}"
            );
        }
        Ok(())
    }

    /// After the rounds, for rate-limit campaign `k`: every board (found by
    /// SCAN) of each period kind sums to the votes (real and shown, weight
    /// 1); the unlimited campaign has no rate-limit counter; and when every
    /// vote fell on one day that is still the server's day, each day rule's
    /// counters sum to the votes (every rule was checked and spent).
    fn check_limits(&mut self, k: usize) -> Result<LimitsCheck> {
        let ns = self.ctx.limits[k].namespace().to_string();
        let rules = LIMIT_RULE_COUNTS[k];
        let who = format!("{rules} rules");
        let votes = self.limits_votes[k];
        let boards = scan_keys(&mut self.admin, &format!("{ns}b:{LIMITS_BOARD}:"))?;
        let mut sums: BTreeMap<(String, String), f64> = BTreeMap::new();
        let mut days = std::collections::BTreeSet::new();
        for key in &boards {
            let rest = &key[ns.len() + LIMITS_BOARD.len() + 3..];
            let (kind, period) = rest
                .split_once(':')
                .with_context(|| format!("unexpected limits campaign key {key}"))?;
            let period_kind = period.split(':').next().unwrap_or(period);
            if period_kind == "day" {
                days.insert(period.to_string());
            }
            *sums
                .entry((kind.to_string(), period_kind.to_string()))
                .or_default() += zset_sum(&mut self.admin, key)?;
        }
        let v = votes as f64;
        for period in LIMITS_PERIODS {
            let p = period.as_str().to_string();
            for (kind, want) in [("real", v), ("shown", v * f64::from(LIMITS_WEIGHT))] {
                let got = sums.get(&(kind.to_string(), p.clone())).copied();
                let got = got.unwrap_or(0.0);
                ensure!(
                    close(got, want),
                    "limits check ({who}): the {kind} {p} boards sum to {got}, want {want} \
                     for {votes} votes"
                );
            }
        }
        ensure!(
            sums.len() == 2 * LIMITS_PERIODS.len(),
            "limits check ({who}): unexpected boards {:?}",
            sums.keys().collect::<Vec<_>>()
        );
        let counters = scan_keys(&mut self.admin, &format!("{ns}rl:"))?;
        if rules == 0 {
            ensure!(
                counters.is_empty(),
                "limits check ({who}): the unlimited campaign holds rate-limit counters {:?}",
                &counters[..counters.len().min(5)]
            );
        }
        let mut day_counters = BTreeMap::new();
        for rule in limit_rules(rules) {
            if rule.window != Some(Window::Day) {
                continue;
            }
            let prefix = format!("{ns}rl:{}:", rule.name);
            let keys: Vec<&String> = counters.iter().filter(|k| k.starts_with(&prefix)).collect();
            let mut sum = 0u64;
            for chunk in keys.chunks(1000) {
                let values: Vec<Option<u64>> =
                    redis::cmd("MGET").arg(chunk).query(&mut self.admin)?;
                sum += values.iter().flatten().sum::<u64>();
            }
            day_counters.insert(rule.name, sum);
        }
        // The counters expire when their day ends: compare them only when the
        // votes fell on one day and the server is still in it (TIME after the
        // reads, so they were all read before it ended).
        let (secs, _): (i64, i64) = redis::cmd("TIME").query(&mut self.admin)?;
        let today = period_at(Period::Day, secs, CAMPAIGN_OFFSET_SECONDS).0;
        let one_day = days.len() == 1 && days.contains(&today);
        if one_day {
            for (rule, sum) in &day_counters {
                ensure!(
                    *sum == votes,
                    "limits check ({who}): the {rule} counters of {today} sum to {sum}, want \
                     the {votes} votes"
                );
            }
        }
        let total = |kind: &str| {
            sums.get(&(kind.to_string(), "total".to_string()))
                .copied()
                .unwrap_or(0.0)
        };
        Ok(LimitsCheck {
            rules,
            votes,
            real_total: round(total("real"), 2),
            shown_total: round(total("shown"), 2),
            boards: boards.len() as u64,
            counters: counters.len() as u64,
            day_counters: one_day.then_some(day_counters),
        })
    }

    /// Both page flows must read the same first page.
    fn check_pages_agree(&mut self) -> Result<()> {
        let ctx = &*self.ctx;
        let seeds: Vec<String> = seeds_page_sync(ctx, &mut self.admin, 1)?
            .into_iter()
            .map(|a| a.get("id").cloned().unwrap_or_default())
            .collect();
        let redvote: Vec<String> = ctx
            .site
            .page(Order::Score, 1, Some(PER_PAGE))
            .run(&mut self.admin)?
            .articles
            .into_iter()
            .map(|a| format!("article:{}", a.id))
            .collect();
        ensure!(
            seeds == redvote,
            "page 1 differs: seeds {seeds:?}, redvote {redvote:?}"
        );
        Ok(())
    }

    /// Get the redis-benchmark ceiling ready: its address options, its own
    /// site `<prefix>ceiling:` (so the checked articles and pages stay as
    /// they are) with one article, the vote script loaded. `Ok(Err(reason))`
    /// when it cannot run.
    fn ceiling_start(
        &mut self,
        clients: usize,
        temp: &Option<TempServer>,
    ) -> Result<std::result::Result<CeilingRun, String>> {
        let target = match temp {
            Some(server) => vec![
                "-h".into(),
                "127.0.0.1".into(),
                "-p".into(),
                server.port().to_string(),
            ],
            None => match benchmark_target(&self.client) {
                Ok(target) => target,
                Err(reason) => return Ok(Err(reason)),
            },
        };
        let probe = std::process::Command::new("redis-benchmark")
            .arg("--version")
            .stdin(std::process::Stdio::null())
            .output();
        match probe {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Err("redis-benchmark not found on PATH".into()))
            }
            Err(e) => return Err(e).context("cannot run redis-benchmark"),
        }
        let site = ceiling_site(self.ctx.site.prefix());
        let id = site
            .post(
                "author:ceiling",
                "Ceiling article",
                "https://example.com/ceiling",
            )
            .run(&mut self.admin)?;
        let script = redvote::scripts::get("vote").context("lua/vote.lua is not embedded")?;
        script.script().load(&mut self.admin)?;
        let command = vec![
            "EVALSHA".into(),
            script.sha1().into(),
            "1".into(),
            site.root_key().into(),
            // The user; ceiling_slice makes it `bench:<slice>:__rand_int__`.
            "bench:<slice>:__rand_int__".into(),
            id.to_string(),
            "up".into(),
        ];
        Ok(Ok(CeilingRun {
            site,
            id,
            target,
            command,
            clients,
            slices: 0,
            requests: 0,
            timed_requests: 0,
            seconds: 0.0,
            p50s_ms: Vec::new(),
            p99_max_ms: 0.0,
            server_cpu: Some(0.0),
        }))
    }

    /// One slice of the ceiling: `redis-benchmark -n <n>`, its rps and
    /// latencies folded into `run`.
    fn ceiling_slice(&mut self, run: &mut CeilingRun, n: u64, url: &str) -> Result<()> {
        // Users unique to the slice: redis-benchmark seeds its random numbers
        // from the clock and its pid, and two runs can draw the same users
        // (seen: a whole slice of repeated, uncounted votes).
        let mut command = run.command.clone();
        command[4] = format!("bench:{}:__rand_int__", run.slices);
        run.slices += 1;
        let mut cmd = std::process::Command::new("redis-benchmark");
        cmd.args(&run.target)
            .args(["-c", &run.clients.to_string(), "-n", &n.to_string()])
            .args(["-r", "1000000000", "-q", "--csv"])
            .args(&command)
            .stdin(std::process::Stdio::null());
        let cpu_before = server_cpu(&mut self.admin)?;
        let out = cmd.output().context("cannot run redis-benchmark")?;
        let cpu_after = server_cpu(&mut self.admin)?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        ensure!(
            out.status.success(),
            "redis-benchmark against {url} failed ({}): {}",
            out.status,
            stderr.trim()
        );
        let (rps, p50_ms, p99_ms) = parse_benchmark_csv(&stdout)
            .with_context(|| format!("cannot read redis-benchmark's output: {stdout:?}"))?;
        ensure!(rps > 0.0, "redis-benchmark reported {rps} requests/s");
        run.requests += n;
        // It times in whole milliseconds: a slice done within one reports
        // "inf" and has no usable time.
        if rps.is_finite() {
            run.timed_requests += n;
            run.seconds += n as f64 / rps;
        }
        run.p50s_ms.push(p50_ms);
        run.p99_max_ms = run.p99_max_ms.max(p99_ms);
        run.server_cpu = run
            .server_cpu
            .zip(cpu_before.zip(cpu_after))
            .map(|(sum, (b, a))| sum + (a - b).max(0.0));
        Ok(())
    }

    /// Check that redis-benchmark's requests were real votes and sum up.
    fn ceiling_finish(&mut self, mut run: CeilingRun) -> Result<Ceiling> {
        let requests = run.requests;
        // Random users may collide (12-digit numbers): allow 1%.
        let votes: u64 = self
            .admin
            .hget(format!("{}{}", run.site.root_key(), run.id), "votes")?;
        let counted = votes.saturating_sub(1);
        ensure!(
            counted <= requests && counted + requests / 100 >= requests,
            "redis-benchmark sent {requests} votes but its article counted {counted}"
        );
        run.p50s_ms.sort_by(f64::total_cmp);
        let p50_ms = run.p50s_ms.get(run.p50s_ms.len() / 2).copied();
        let ran = requests > 0;
        let timed = run.timed_requests > 0 && run.seconds > 0.0;
        Ok(Ceiling {
            ran,
            skipped: None,
            command: Some(format!(
                "redis-benchmark {} -c {} -n <slice> -r 1000000000 -q --csv {}",
                run.target.join(" "),
                run.clients,
                run.command.join(" ")
            )),
            clients: run.clients,
            requests,
            ops_per_sec: timed.then(|| round(run.timed_requests as f64 / run.seconds, 1)),
            p50_us: p50_ms.map(|ms| ms * 1000.0),
            p99_us: ran.then_some(run.p99_max_ms * 1000.0),
            server_cpu_us_per_op: run
                .server_cpu
                .filter(|_| ran)
                .map(|cpu| round(cpu * 1e6 / requests as f64, 1)),
        })
    }

    /// With `--url`: delete the keys the bench created under its prefix and
    /// the ceiling's (both were empty when it started).
    fn cleanup(&mut self) -> Result<()> {
        let prefix = self.ctx.site.prefix().to_string();
        let mut keys = Vec::new();
        for site in [Site::new(prefix.clone()), ceiling_site(&prefix)] {
            let p = site.prefix();
            let last: Option<u64> = self.admin.get(site.root_key())?;
            for k in ["article:", "time:", "score:", "hot:", "best:"] {
                keys.push(format!("{p}{k}"));
            }
            for id in 1..=last.unwrap_or(0) {
                for k in ["article:", "voted:", "downvoted:"] {
                    keys.push(format!("{p}{k}{id}"));
                }
            }
        }
        // The campaigns' namespaces (unused when the bench started).
        let mut namespaces: Vec<String> = (0..2)
            .map(|side| self.ctx.campaign.ns(side).to_string())
            .collect();
        namespaces.extend(self.ctx.limits.iter().map(|c| c.namespace().to_string()));
        for ns in namespaces {
            keys.extend(scan_keys(&mut self.admin, &ns)?);
        }
        for chunk in keys.chunks(1000) {
            redis::cmd("UNLINK").arg(chunk).exec(&mut self.admin)?;
        }
        Ok(())
    }
}

/// Every key starting with `prefix` (SCAN MATCH, glob characters escaped).
fn scan_keys(con: &mut redis::Connection, prefix: &str) -> Result<Vec<String>> {
    let mut pattern = String::with_capacity(prefix.len() + 1);
    for c in prefix.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('*');
    let mut keys = Vec::new();
    let mut cursor = 0u64;
    loop {
        let (next, batch): (u64, Vec<String>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(&pattern)
            .arg("COUNT")
            .arg(1000)
            .query(con)?;
        keys.extend(batch);
        if next == 0 {
            break;
        }
        cursor = next;
    }
    keys.sort();
    keys.dedup();
    Ok(keys)
}

/// The sum of a zset's scores.
fn zset_sum(con: &mut redis::Connection, key: &str) -> Result<f64> {
    let members: Vec<(String, f64)> = con.zrange_withscores(key, 0, -1)?;
    Ok(members.iter().map(|(_, score)| score).sum())
}

/// Equal up to float noise (the seed's ZINCRBY 0.2 accumulates some).
fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-6 * want.abs() + 1e-6
}

/// The ceiling's own site, beside the bench's: `<prefix>ceiling:`.
fn ceiling_site(prefix: &str) -> Site {
    Site::new(format!("{prefix}ceiling:"))
}

/// The redis-benchmark ceiling while it runs, one slice per round.
struct CeilingRun {
    site: Site,
    id: u64,
    /// `-h host -p port` (or `-s path`, `--dbnum n`).
    target: Vec<String>,
    /// `EVALSHA <sha> 1 <root> bench:__rand_int__ <id> up`.
    command: Vec<String>,
    clients: usize,
    /// Slices run so far.
    slices: u64,
    /// Requests sent so far; those of the slices with a usable rps, and the
    /// time they took at that rps.
    requests: u64,
    timed_requests: u64,
    seconds: f64,
    p50s_ms: Vec<f64>,
    p99_max_ms: f64,
    server_cpu: Option<f64>,
}

// ---------------------------------------------------------------------------
// One op of each flow, sync (1 connection) and async (tasks). Each returns
// its retries (aborted transactions, (b) only) and fails on anything but the
// expected result.

fn op_sync(ctx: &Ctx, con: &mut redis::Connection, s: Scenario, input: &Input) -> Result<u64> {
    let a = &ctx.articles[input.article];
    match (s.op, s.flow) {
        (Op::Vote, Flow::Seeds | Flow::SeedsSequential) => {
            let counted = if ctx.seeds_layout {
                redvote::seed::article_vote(con, &input.user, &a.member, input.now)?
            } else {
                seeds_vote_sync(ctx, con, a, &input.user, input.now)?
            };
            ensure!(
                counted,
                "the seeds' vote of {} on {} did not count",
                input.user,
                a.member
            );
            Ok(0)
        }
        (Op::Vote, Flow::Watch) => watch_vote_sync(ctx, con, a, &input.user, input.now),
        (Op::Vote, Flow::Redvote) => {
            check_outcome(&ctx.site.vote(&input.user, &a.id).run(con)?, input, a)
        }
        (Op::Page, Flow::Seeds) => {
            let got = seeds_page_sync(ctx, con, input.page)?;
            check_seeds_page(ctx, &got, input.page)
        }
        (Op::Page, _) => {
            let page = ctx
                .site
                .page(Order::Score, input.page, Some(PER_PAGE))
                .run(con)?;
            check_page(ctx, page.articles.len(), input.page)
        }
        (Op::Campaign, Flow::Redvote) => {
            let option = &ctx.campaign.options[input.option];
            let ballots = ctx
                .campaign
                .redvote
                .vote(&input.user, &[(CAMPAIGN_BOARD, option)])
                .run(con)?;
            check_ballots(&ballots, input, option)
        }
        (Op::Campaign, Flow::SeedsSequential) => {
            let option = &ctx.campaign.options[input.option];
            let keys = ctx.campaign.seed_keys(input.now as i64);
            for cmd in keys.commands(option, &input.user) {
                cmd.query::<redis::Value>(con)
                    .context("a seed campaign command")?;
            }
            Ok(0)
        }
        (Op::Campaign, _) => bail!("{} runs on a multiplexed connection", s.id()),
        (Op::Limits(k), _) => {
            let option = &ctx.campaign.options[input.option];
            let reply = ctx.limits[k]
                .vote_by(&input.voter(), &[(LIMITS_BOARD, option)])
                .run(con);
            check_limited(reply, k, input, option)
        }
    }
}

async fn op_async(
    ctx: &Ctx,
    con: &mut MultiplexedConnection,
    s: Scenario,
    input: &Input,
) -> Result<u64> {
    let a = &ctx.articles[input.article];
    match (s.op, s.flow) {
        (Op::Vote, Flow::Seeds | Flow::SeedsSequential) => {
            let counted = seeds_vote_async(ctx, con, a, &input.user, input.now).await?;
            ensure!(
                counted,
                "the seeds' vote of {} on {} did not count",
                input.user,
                a.member
            );
            Ok(0)
        }
        (Op::Vote, Flow::Watch) => watch_vote_async(ctx, con, a, &input.user, input.now).await,
        (Op::Vote, Flow::Redvote) => {
            let outcome = ctx.site.vote(&input.user, &a.id).run_async(con).await?;
            check_outcome(&outcome, input, a)
        }
        (Op::Page, Flow::Seeds) => {
            let got = seeds_page_async(ctx, con, input.page).await?;
            check_seeds_page(ctx, &got, input.page)
        }
        (Op::Page, _) => {
            let call = ctx.site.page(Order::Score, input.page, Some(PER_PAGE));
            let page = call.run_async(con).await?;
            check_page(ctx, page.articles.len(), input.page)
        }
        (Op::Campaign, Flow::Redvote) => {
            let option = &ctx.campaign.options[input.option];
            let call = ctx
                .campaign
                .redvote
                .vote(&input.user, &[(CAMPAIGN_BOARD, option)]);
            check_ballots(&call.run_async(con).await?, input, option)
        }
        (Op::Campaign, Flow::Seeds) => {
            // The seed's "parallel goroutines": all 16 commands in flight at
            // once; the multiplexed connection pipelines them on the wire.
            let option = &ctx.campaign.options[input.option];
            let keys = ctx.campaign.seed_keys(input.now as i64);
            let cmds = keys.commands(option, &input.user);
            let replies = futures::future::join_all(cmds.iter().map(|cmd| {
                let mut con = con.clone();
                async move { cmd.query_async::<redis::Value>(&mut con).await }
            }))
            .await;
            for reply in replies {
                reply.context("a seed campaign command")?;
            }
            Ok(0)
        }
        (Op::Campaign, _) => bail!("{} runs on a sync connection", s.id()),
        (Op::Limits(k), _) => {
            let option = &ctx.campaign.options[input.option];
            let reply = ctx.limits[k]
                .vote_by(&input.voter(), &[(LIMITS_BOARD, option)])
                .run_async(con)
                .await;
            check_limited(reply, k, input, option)
        }
    }
}

/// redvote's campaign vote must answer one ballot for the board and option
/// with a shown score in each of the 5 periods.
fn check_ballots(ballots: &[Ballot], input: &Input, option: &str) -> Result<u64> {
    ensure!(
        ballots.len() == 1
            && ballots[0].board == CAMPAIGN_BOARD
            && ballots[0].option == option
            && ballots[0].shown.len() == PERIODS.len(),
        "redvote's campaign vote of {} for {option} answered {ballots:?}",
        input.user
    );
    Ok(0)
}

/// A rate-limited vote must pass (a refusal fails the bench: its limits are
/// meant never to refuse) and answer one ballot for the board and option
/// with a shown score in each of its periods.
fn check_limited(
    reply: redvote::Result<Vec<Ballot>>,
    k: usize,
    input: &Input,
    option: &str,
) -> Result<u64> {
    let rules = LIMIT_RULE_COUNTS[k];
    let ballots = match reply {
        Err(redvote::Error::RateLimited(refusal)) => bail!(
            "the {rules}-rule campaign refused the vote of {} (channel {}, device {}) for \
             {option}: {refusal}; the bench's limits must never refuse a vote",
            input.user,
            input.channel,
            input.device
        ),
        reply => reply.with_context(|| format!("a vote on the {rules}-rule campaign"))?,
    };
    ensure!(
        ballots.len() == 1
            && ballots[0].board == LIMITS_BOARD
            && ballots[0].option == option
            && ballots[0].shown.len() == LIMITS_PERIODS.len(),
        "the {rules}-rule campaign's vote of {} for {option} answered {ballots:?}",
        input.user
    );
    Ok(0)
}

fn check_outcome(o: &VoteOutcome, input: &Input, a: &ArticleKeys) -> Result<u64> {
    ensure!(
        o.changed && o.previous == Vote::None && o.vote == Vote::Up,
        "redvote's vote of {} on {} was not a new upvote: {o:?}",
        input.user,
        a.member
    );
    Ok(0)
}

type SeedArticle = std::collections::HashMap<String, String>;

fn check_seeds_page(ctx: &Ctx, got: &[SeedArticle], page: u32) -> Result<u64> {
    ensure!(
        got.iter().all(|a| a.contains_key("title")),
        "the seeds' page {page} holds an article without a title"
    );
    check_page(ctx, got.len(), page)
}

fn check_page(ctx: &Ctx, len: usize, page: u32) -> Result<u64> {
    let want = ctx.page_len(page);
    ensure!(len == want, "page {page} holds {len} articles, want {want}");
    Ok(0)
}

/// The seeds' `article_vote` with prefixed keys (members stay
/// `article:ID`): ZSCORE, SADD, ZINCRBY, HINCRBY.
fn seeds_vote_sync(
    ctx: &Ctx,
    con: &mut redis::Connection,
    a: &ArticleKeys,
    user: &str,
    now: f64,
) -> Result<bool> {
    let time: Option<f64> = con.zscore(&ctx.time_key, &a.member)?;
    if time.unwrap_or(0.0) < now - ONE_WEEK_IN_SECONDS {
        return Ok(false);
    }
    let added: i64 = con.sadd(&a.voted, user)?;
    if added == 1 {
        let _: () = con.zincr(&ctx.score_key, &a.member, VOTE_SCORE)?;
        let _: () = con.hincr(&a.hash, "votes", 1)?;
    }
    Ok(added == 1)
}

/// Async twin of the seeds' `article_vote`, command for command.
async fn seeds_vote_async(
    ctx: &Ctx,
    con: &mut MultiplexedConnection,
    a: &ArticleKeys,
    user: &str,
    now: f64,
) -> Result<bool> {
    let time: Option<f64> = con.zscore(&ctx.time_key, &a.member).await?;
    if time.unwrap_or(0.0) < now - ONE_WEEK_IN_SECONDS {
        return Ok(false);
    }
    let added: i64 = con.sadd(&a.voted, user).await?;
    if added == 1 {
        let _: () = con.zincr(&ctx.score_key, &a.member, VOTE_SCORE).await?;
        let _: () = con.hincr(&a.hash, "votes", 1).await?;
    }
    Ok(added == 1)
}

/// The transaction (b) sends: MULTI SADD ZINCRBY HINCRBY EXEC, one request.
fn watch_transaction(ctx: &Ctx, a: &ArticleKeys, user: &str) -> redis::Pipeline {
    let mut p = redis::pipe();
    p.atomic()
        .sadd(&a.voted, user)
        .zincr(&ctx.score_key, &a.member, VOTE_SCORE)
        .hincr(&a.hash, "votes", 1);
    p
}

/// What (b) found before MULTI; anything but `Open` is a failed op here.
fn watch_refusal(
    time: Option<f64>,
    voted: bool,
    now: f64,
    user: &str,
    a: &ArticleKeys,
) -> Option<String> {
    if time.unwrap_or(0.0) < now - ONE_WEEK_IN_SECONDS {
        Some(format!("voting on {} is closed", a.member))
    } else if voted {
        Some(format!("{user} already voted on {}", a.member))
    } else {
        None
    }
}

/// (b), sync: WATCH voted:ID, ZSCORE, SISMEMBER, MULTI..EXEC; again while
/// EXEC aborts. Returns the aborted attempts.
fn watch_vote_sync(
    ctx: &Ctx,
    con: &mut redis::Connection,
    a: &ArticleKeys,
    user: &str,
    now: f64,
) -> Result<u64> {
    for attempt in 0..MAX_WATCH_ATTEMPTS {
        redis::cmd("WATCH").arg(&a.voted).exec(con)?;
        let time: Option<f64> = con.zscore(&ctx.time_key, &a.member)?;
        let voted: bool = con.sismember(&a.voted, user)?;
        if let Some(why) = watch_refusal(time, voted, now, user, a) {
            redis::cmd("UNWATCH").exec(con)?;
            bail!("WATCH vote refused: {why}");
        }
        let done: Option<(i64, f64, i64)> = watch_transaction(ctx, a, user).query(con)?;
        match done {
            Some((1, _, _)) => return Ok(attempt),
            Some(other) => bail!(
                "WATCH vote of {user} on {}: SADD answered {other:?}",
                a.member
            ),
            None => continue, // another client changed voted:ID: retry
        }
    }
    bail!(
        "WATCH vote of {user} on {} aborted {MAX_WATCH_ATTEMPTS} times",
        a.member
    )
}

/// (b), async, on a connection no other task uses (WATCH is per connection).
async fn watch_vote_async(
    ctx: &Ctx,
    con: &mut MultiplexedConnection,
    a: &ArticleKeys,
    user: &str,
    now: f64,
) -> Result<u64> {
    for attempt in 0..MAX_WATCH_ATTEMPTS {
        redis::cmd("WATCH").arg(&a.voted).exec_async(con).await?;
        let time: Option<f64> = con.zscore(&ctx.time_key, &a.member).await?;
        let voted: bool = con.sismember(&a.voted, user).await?;
        if let Some(why) = watch_refusal(time, voted, now, user, a) {
            redis::cmd("UNWATCH").exec_async(con).await?;
            bail!("WATCH vote refused: {why}");
        }
        let done: Option<(i64, f64, i64)> =
            watch_transaction(ctx, a, user).query_async(con).await?;
        match done {
            Some((1, _, _)) => return Ok(attempt),
            Some(other) => bail!(
                "WATCH vote of {user} on {}: SADD answered {other:?}",
                a.member
            ),
            None => continue,
        }
    }
    bail!(
        "WATCH vote of {user} on {} aborted {MAX_WATCH_ATTEMPTS} times",
        a.member
    )
}

/// The seeds' `get_articles(conn, page)` by score: the library's own
/// function for the seeds' layout, else the same commands with prefixed keys.
fn seeds_page_sync(ctx: &Ctx, con: &mut redis::Connection, page: u32) -> Result<Vec<SeedArticle>> {
    if ctx.seeds_layout {
        return Ok(redvote::seed::get_articles(con, page as isize, "score:")?);
    }
    let start = (page as isize - 1) * PER_PAGE as isize;
    let ids: Vec<String> = con.zrevrange(&ctx.score_key, start, start + PER_PAGE as isize - 1)?;
    let mut articles = Vec::with_capacity(ids.len());
    for id in ids {
        let mut data: SeedArticle = con.hgetall(format!("{}{id}", ctx.site.prefix()))?;
        data.insert("id".to_string(), id);
        articles.push(data);
    }
    Ok(articles)
}

/// Async twin of the seeds' `get_articles`: ZREVRANGE, then one HGETALL
/// after the other.
async fn seeds_page_async(
    ctx: &Ctx,
    con: &mut MultiplexedConnection,
    page: u32,
) -> Result<Vec<SeedArticle>> {
    let start = (page as isize - 1) * PER_PAGE as isize;
    let ids: Vec<String> = con
        .zrevrange(&ctx.score_key, start, start + PER_PAGE as isize - 1)
        .await?;
    let mut articles = Vec::with_capacity(ids.len());
    for id in ids {
        let mut data: SeedArticle = con.hgetall(format!("{}{id}", ctx.site.prefix())).await?;
        data.insert("id".to_string(), id);
        articles.push(data);
    }
    Ok(articles)
}

// ---------------------------------------------------------------------------
// Measurements and the report

/// Latencies (µs) and retries of one scenario, its wall time and the
/// server's CPU time (user + sys seconds) meanwhile.
struct Measure {
    hist: Histogram<u64>,
    retries: u64,
    elapsed: Duration,
    server_cpu: Option<f64>,
}

impl Measure {
    fn new() -> Result<Measure> {
        Ok(Measure {
            hist: Histogram::new_with_bounds(1, 3_600_000_000, 3)?,
            retries: 0,
            elapsed: Duration::ZERO,
            server_cpu: Some(0.0),
        })
    }

    fn record(&mut self, latency: Duration) {
        let us = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        self.hist.saturating_record(us.max(1));
    }

    /// Fold in another slice's (or task's) latencies, retries, wall time
    /// and server CPU.
    fn add(&mut self, other: &Measure) -> Result<()> {
        self.hist.add(&other.hist)?;
        self.retries += other.retries;
        self.elapsed += other.elapsed;
        self.server_cpu = self.server_cpu.zip(other.server_cpu).map(|(a, b)| a + b);
        Ok(())
    }
}

#[derive(Serialize)]
struct Report {
    redis_version: String,
    ping_p50_us: u64,
    server: String,
    throwaway: bool,
    prefix: String,
    articles: u64,
    ops: u64,
    pages: u64,
    tasks: u64,
    threads: u64,
    dedicated: bool,
    rounds: u64,
    seconds: f64,
    campaign: CampaignInfo,
    limits: LimitsInfo,
    rows: Vec<Row>,
    ceiling: Ceiling,
    ratios: Vec<Ratio>,
    checks: Checks,
}

/// The campaign section's setup, for the report.
#[derive(Serialize)]
struct CampaignInfo {
    ops: u64,
    redvote_namespace: String,
    seed_namespace: String,
    board: &'static str,
    options: usize,
    weight: u32,
    carry: &'static str,
    offset: &'static str,
    periods: Vec<&'static str>,
    writes_per_vote: usize,
}

/// The rate-limit section's setup, for the report.
#[derive(Serialize)]
struct LimitsInfo {
    ops: u64,
    board: &'static str,
    options: usize,
    weight: u32,
    offset: &'static str,
    periods: Vec<&'static str>,
    channels: Vec<&'static str>,
    devices: Vec<&'static str>,
    target: f64,
    campaigns: Vec<LimitsCampaign>,
}

/// One campaign of the rate-limit section.
#[derive(Serialize)]
struct LimitsCampaign {
    rules: usize,
    namespace: String,
    limits: Vec<LimitRule>,
}

#[derive(Serialize)]
struct Row {
    id: String,
    op: &'static str,
    flow: &'static str,
    /// Rate-limit rules each vote checks (rate-limit rows only, else null).
    rules: Option<usize>,
    label: &'static str,
    tasks: usize,
    concurrent: bool,
    connections: usize,
    shared: bool,
    client: &'static str,
    ops: u64,
    seconds: f64,
    ops_per_sec: f64,
    p50_us: u64,
    p99_us: u64,
    max_us: u64,
    mean_us: f64,
    round_trips_per_op: f64,
    commands_per_op: f64,
    retries: u64,
    server_cpu_us_per_op: Option<f64>,
}

impl Row {
    fn new(s: &Scenario, ctx: &Ctx, m: Measure) -> Row {
        let seconds = m.elapsed.as_secs_f64();
        Row {
            id: s.id(),
            op: s.op_name(),
            flow: s.flow_name(),
            rules: s.rules(),
            label: s.label(),
            tasks: s.tasks,
            concurrent: s.concurrent,
            connections: if s.shared { 1 } else { s.tasks },
            shared: s.shared,
            client: if s.concurrent || s.async_con {
                "async"
            } else {
                "sync"
            },
            ops: s.ops,
            seconds: round(seconds, 6),
            ops_per_sec: round(s.ops as f64 / seconds.max(1e-9), 1),
            p50_us: m.hist.value_at_quantile(0.5),
            p99_us: m.hist.value_at_quantile(0.99),
            max_us: m.hist.max(),
            mean_us: round(m.hist.mean(), 1),
            round_trips_per_op: round(s.round_trips(ctx, m.retries), 3),
            commands_per_op: round(s.commands(ctx, m.retries), 3),
            retries: m.retries,
            server_cpu_us_per_op: m.server_cpu.map(|cpu| round(cpu * 1e6 / s.ops as f64, 1)),
        }
    }

    fn connections_text(&self) -> String {
        match (self.concurrent, self.shared) {
            (false, _) => format!("1 {}", self.client),
            (true, true) => "1 shared".to_string(),
            (true, false) => format!("{} own", self.tasks),
        }
    }
}

#[derive(Serialize)]
struct Ceiling {
    ran: bool,
    skipped: Option<String>,
    command: Option<String>,
    clients: usize,
    requests: u64,
    ops_per_sec: Option<f64>,
    p50_us: Option<f64>,
    p99_us: Option<f64>,
    server_cpu_us_per_op: Option<f64>,
}

impl Ceiling {
    fn skipped(reason: &str, clients: usize, requests: u64) -> Ceiling {
        Ceiling {
            ran: false,
            skipped: Some(reason.to_string()),
            command: None,
            clients,
            requests,
            ops_per_sec: None,
            p50_us: None,
            p99_us: None,
            server_cpu_us_per_op: None,
        }
    }
}

#[derive(Serialize)]
struct Ratio {
    id: &'static str,
    label: String,
    value: Option<f64>,
    /// `at_least`: higher is better, `target` is a minimum (throughput
    /// ratios); `at_most`: lower is better, `target` is a maximum (costs).
    goal: &'static str,
    target: Option<f64>,
    pass: Option<bool>,
}

#[derive(Serialize)]
struct Checks {
    ok: bool,
    articles: u64,
    votes_cast: u64,
    votes_found: u64,
    campaign: CampaignChecks,
    limits: Vec<LimitsCheck>,
}

/// What the end-of-run check found on one campaign of the rate-limit
/// section.
#[derive(Serialize)]
struct LimitsCheck {
    rules: usize,
    votes: u64,
    real_total: f64,
    shown_total: f64,
    boards: u64,
    /// Rate-limit counter keys at the end (the fixed windows' and rolling
    /// state still alive).
    counters: u64,
    /// Day rule -> the sum of its counters (each equal to `votes`); null
    /// when the votes spread over two days or the day ended before the check.
    day_counters: Option<BTreeMap<String, u64>>,
}

#[derive(Serialize)]
struct CampaignChecks {
    redvote: CampaignCheck,
    seed: CampaignCheck,
}

/// What the end-of-run check found on one side of the campaign section.
#[derive(Serialize)]
struct CampaignCheck {
    votes: u64,
    real_total: f64,
    shown_total: f64,
    participants: u64,
    boards: u64,
}

/// Throughput ratios, with the targets redvote is meant to meet.
fn ratios(rows: &[Row], ceiling: &Ceiling) -> Vec<Ratio> {
    let rps = |id: &str| rows.iter().find(|r| r.id == id).map(|r| r.ops_per_sec);
    let tasks = rows.iter().map(|r| r.tasks).max().unwrap_or(1);
    let shared = rows
        .iter()
        .any(|r| r.id == "vote_redvote_tasks" && r.shared);
    let cpu = |id: &str| {
        rows.iter()
            .find(|r| r.id == id)
            .and_then(|r| r.server_cpu_us_per_op)
    };
    let make = |id: &'static str,
                label: String,
                num: Option<f64>,
                den: Option<f64>,
                goal: &'static str,
                target: Option<f64>| {
        let value = match (num, den) {
            (Some(n), Some(d)) if d > 0.0 => Some(round(n / d, 3)),
            _ => None,
        };
        let pass = match (value, target) {
            (Some(v), Some(t)) if goal == "at_most" => Some(v <= t),
            (Some(v), Some(t)) => Some(v >= t),
            _ => None,
        };
        Ratio {
            id,
            label,
            value,
            goal,
            target,
            pass,
        }
    };
    // Throughput ratios: higher is better.
    let ratio = |id, label, num, den, target| make(id, label, num, den, "at_least", target);
    // Costs: lower is better.
    let cost = |id, label, num, den, target| make(id, label, num, den, "at_most", target);
    let c1 = rps("vote_redvote_1");
    let cn = rps("vote_redvote_tasks");
    vec![
        ratio(
            "vote_redvote_over_seeds_1",
            "vote (c)/(a), 1 connection".into(),
            c1,
            rps("vote_seeds_1"),
            Some(3.0),
        ),
        ratio(
            "vote_redvote_over_watch_1",
            "vote (c)/(b), 1 connection".into(),
            c1,
            rps("vote_watch_1"),
            None,
        ),
        ratio(
            "vote_redvote_over_seeds_tasks",
            format!("vote (c)/(a), {tasks} tasks"),
            cn,
            rps("vote_seeds_tasks"),
            None,
        ),
        ratio(
            "vote_redvote_over_watch_tasks",
            format!("vote (c)/(b), {tasks} tasks"),
            cn,
            rps("vote_watch_tasks"),
            None,
        ),
        ratio(
            "page_redvote_over_seeds_1",
            "page redvote/seeds, 1 connection".into(),
            rps("page_redvote_1"),
            rps("page_seeds_1"),
            Some(10.0),
        ),
        ratio(
            "page_redvote_over_seeds_tasks",
            format!("page redvote/seeds, {tasks} tasks"),
            rps("page_redvote_tasks"),
            rps("page_seeds_tasks"),
            None,
        ),
        ratio(
            "vote_redvote_tasks_over_redis_benchmark",
            format!(
                "vote (c) {tasks} tasks, {} / redis-benchmark -c {}",
                if shared { "1 shared conn" } else { "own conns" },
                ceiling.clients
            ),
            cn,
            ceiling.ops_per_sec,
            Some(0.8),
        ),
        ratio(
            "vote_redvote_own_over_redis_benchmark",
            format!(
                "vote (c) {tasks} tasks, own conns / redis-benchmark -c {}",
                ceiling.clients
            ),
            rps("vote_redvote_own"),
            ceiling.ops_per_sec,
            Some(0.8),
        ),
        ratio(
            "campaign_redvote_over_seeds_1",
            "campaign (c)/(a) 16 concurrent, 1 connection".into(),
            rps("campaign_redvote_1"),
            rps("campaign_seeds_1"),
            Some(3.0),
        ),
        ratio(
            "campaign_redvote_over_seeds_sequential_1",
            "campaign (c)/(a) 16 sequential, 1 connection".into(),
            rps("campaign_redvote_1"),
            rps("campaign_seeds_sequential_1"),
            None,
        ),
        ratio(
            "campaign_redvote_over_seeds_tasks",
            format!("campaign (c)/(a) 16 concurrent, {tasks} tasks"),
            rps("campaign_redvote_tasks"),
            rps("campaign_seeds_tasks"),
            None,
        ),
        // The limits' cost: how much slower the vote gets with the rules,
        // ops/s without them over ops/s with them.
        cost(
            "limits_4_over_0_1",
            "limits cost 4 rules/0, 1 connection".into(),
            rps("limits_rules0_1"),
            rps("limits_rules4_1"),
            Some(LIMITS_TARGET),
        ),
        cost(
            "limits_8_over_0_1",
            "limits cost 8 rules/0, 1 connection".into(),
            rps("limits_rules0_1"),
            rps("limits_rules8_1"),
            None,
        ),
        cost(
            "limits_4_over_0_tasks",
            format!("limits cost 4 rules/0, {tasks} tasks"),
            rps("limits_rules0_tasks"),
            rps("limits_rules4_tasks"),
            Some(LIMITS_TARGET),
        ),
        cost(
            "limits_8_over_0_tasks",
            format!("limits cost 8 rules/0, {tasks} tasks"),
            rps("limits_rules0_tasks"),
            rps("limits_rules8_tasks"),
            None,
        ),
        // The server's side of it: its CPU per vote with the rules over
        // without (the tasks' rows, where the server is busy).
        cost(
            "limits_4_over_0_server_cpu",
            format!("limits srv µs/op 4 rules/0, {tasks} tasks"),
            cpu("limits_rules4_tasks"),
            cpu("limits_rules0_tasks"),
            None,
        ),
        cost(
            "limits_8_over_0_server_cpu",
            format!("limits srv µs/op 8 rules/0, {tasks} tasks"),
            cpu("limits_rules8_tasks"),
            cpu("limits_rules0_tasks"),
            None,
        ),
    ]
}

fn print_human(r: &Report) {
    let place = if r.throwaway {
        "throwaway server"
    } else {
        "server"
    };
    println!(
        "redvote bench: redis {} ({place} {}, PING round trip p50 {} µs), prefix {:?}",
        r.redis_version, r.server, r.ping_p50_us, r.prefix
    );
    println!(
        "{} articles; {} votes and {} page reads per scenario in {} interleaved rounds; {} tasks on {} tokio thread(s)",
        r.articles, r.ops, r.pages, r.rounds, r.tasks, r.threads
    );
    println!();
    let line = |label: &str,
                tasks: String,
                conns: String,
                ops: String,
                rps: f64,
                p50: String,
                p99: String,
                rt: String,
                retries: String,
                cpu: Option<f64>| {
        let cpu = cpu.map_or("-".to_string(), |c| format!("{c:.0}"));
        println!(
            "{label:<31} {tasks:>5} {conns:>8} {ops:>7} {rps:>8.0} {p50:>7} {p99:>7} {rt:>5} {retries:>7} {cpu:>9}"
        );
    };
    println!(
        "{:<31} {:>5} {:>8} {:>7} {:>8} {:>7} {:>7} {:>5} {:>7} {:>9}",
        "scenario",
        "tasks",
        "conns",
        "ops",
        "ops/s",
        "p50 µs",
        "p99 µs",
        "RT/op",
        "retries",
        "srv µs/op"
    );
    for (i, row) in r.rows.iter().enumerate() {
        if row.op == "campaign" && r.rows.get(i.wrapping_sub(1)).map(|p| p.op) != Some("campaign") {
            let c = &r.campaign;
            println!(
                "-- campaign vote: board {:?}, {} options of weight {}, periods {} at {}, \
                 carry {}: {} writes a vote",
                c.board,
                c.options,
                c.weight,
                c.periods.join("/"),
                c.offset,
                c.carry,
                c.writes_per_vote
            );
        }
        if row.op == "limits" && r.rows.get(i.wrapping_sub(1)).map(|p| p.op) != Some("limits") {
            let l = &r.limits;
            println!(
                "-- rate limits: 3 campaigns identical but for their limits: board {:?}, {} \
                 options of weight {}, periods {} at {}; new users, channel {}, device {}",
                l.board,
                l.options,
                l.weight,
                l.periods.join("/"),
                l.offset,
                l.channels.join("|"),
                l.devices.join("|")
            );
        }
        line(
            row.label,
            row.tasks.to_string(),
            row.connections_text(),
            row.ops.to_string(),
            row.ops_per_sec,
            row.p50_us.to_string(),
            row.p99_us.to_string(),
            trim_float(row.round_trips_per_op),
            row.retries.to_string(),
            row.server_cpu_us_per_op,
        );
    }
    let c = &r.ceiling;
    match (c.ops_per_sec, c.p50_us, c.p99_us) {
        (Some(rps), Some(p50), Some(p99)) => line(
            "ceiling redis-benchmark EVALSHA",
            c.clients.to_string(),
            format!("{} own", c.clients),
            c.requests.to_string(),
            rps,
            format!("{p50:.0}"),
            format!("{p99:.0}"),
            "1".to_string(),
            "-".to_string(),
            c.server_cpu_us_per_op,
        ),
        _ => println!(
            "{:<31} skipped: {}",
            "ceiling redis-benchmark",
            c.skipped.as_deref().unwrap_or("not run")
        ),
    }
    println!();
    let how = if r.dedicated {
        "every task has its own connection in every scenario (--dedicated)"
    } else {
        "(a), (c) and the page reads share one multiplexed connection (a redis-rs \
         backend's way); (b) has one connection per task (WATCH is per connection)"
    };
    println!("conns: 1 sync = one redis::Connection, ops in sequence; with tasks, {how}.");
    println!(
        "RT/op: round trips per op (retried WATCH attempts included); srv µs/op: the server's \
         CPU time (INFO cpu) per op, network I/O included."
    );
    println!(
        "campaign: {} votes per scenario. (a) seed = the seed's one command per write, keys \
         computed client-side: 5 ZINCRBY real + 5 ZINCRBY shown + 4 ZINCRBY carry + 2 PFADD; \
         \"16 concurrent\" sends them all at once (the seed's parallel goroutines: join_all on a \
         multiplexed connection, pipelined on the wire, so RT/op 1; 1 async = one such \
         connection, votes in sequence), \"16 sequential\" one after the other on a sync \
         connection. (c) = one EVALSHA of campaign_vote.lua (atomic).",
        r.campaign.ops
    );
    let rules_of = |n: usize| {
        r.limits
            .campaigns
            .iter()
            .find(|c| c.rules == n)
            .map(|c| &c.limits[..])
            .unwrap_or_default()
    };
    let (four, eight) = (rules_of(4), rules_of(8));
    let extra: Vec<String> = eight
        .iter()
        .filter(|x| !four.contains(x))
        .map(describe_rule)
        .collect();
    println!(
        "limits: {} votes per scenario, one EVALSHA of campaign_vote.lua each, every one by a \
         new user (so no rule may refuse: a refusal fails the bench). 4 rules: {}; 8 rules: \
         those + {}.",
        r.limits.ops,
        four.iter()
            .map(describe_rule)
            .collect::<Vec<_>>()
            .join(", "),
        extra.join(", ")
    );
    if let Some(command) = &c.command {
        println!("ceiling: {command}");
    }
    println!();
    println!(
        "ratios (throughput: redvote's ops/s over the other's; limits cost: ops/s with 0 rules \
         over ops/s with 4 or 8, srv µs/op with them over without):"
    );
    let width = r
        .ratios
        .iter()
        .map(|x| x.label.chars().count())
        .max()
        .unwrap_or(0);
    for x in &r.ratios {
        let value = x.value.map_or("-".to_string(), |v| format!("{v:.2}x"));
        let sign = if x.goal == "at_most" { "<=" } else { ">=" };
        let verdict = match (x.target, x.pass) {
            (Some(t), Some(true)) => format!("target {sign} {}x  PASS", trim_float(t)),
            (Some(t), Some(false)) if x.goal == "at_most" => {
                format!("target {sign} {}x  ABOVE TARGET", trim_float(t))
            }
            (Some(t), Some(false)) => format!("target {sign} {}x  BELOW TARGET", trim_float(t)),
            (Some(t), None) => format!("target {sign} {}x  not measured", trim_float(t)),
            (None, _) => String::new(),
        };
        let pad = width - x.label.chars().count();
        let text = format!("  {}{:pad$}  {:>7}   {verdict}", x.label, "", value);
        println!("{}", text.trim_end());
    }
    println!();
    println!(
        "checks: OK: {} articles hold {} votes = {} posts + {} votes cast; every article's \
         votes == |voted:ID| and score == time + 432 x votes",
        r.checks.articles, r.checks.votes_found, r.checks.articles, r.checks.votes_cast
    );
    for (who, c) in [
        ("redvote", &r.checks.campaign.redvote),
        ("seed", &r.checks.campaign.seed),
    ] {
        println!(
            "checks: OK: campaign {who}: {} votes; real total {}, shown total {} (= {} x real); \
             every period kind's real boards sum to the votes, shown to weight + carry; {} \
             boards; {} participants (HyperLogLog)",
            c.votes,
            trim_float(c.real_total),
            trim_float(c.shown_total),
            r.campaign.weight,
            c.boards,
            c.participants
        );
    }
    for c in &r.checks.limits {
        let counters = match &c.day_counters {
            Some(sums) if !sums.is_empty() => format!(
                "; day counters {}",
                sums.iter()
                    .map(|(rule, n)| format!("{rule} {n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Some(_) => String::new(),
            None => "; day counters not compared (the day changed)".to_string(),
        };
        println!(
            "checks: OK: limits {} rules: {} votes, every one passed; real total {}, shown total \
             {}, day boards likewise; {} counter keys{counters}",
            c.rules,
            c.votes,
            trim_float(c.real_total),
            trim_float(c.shown_total),
            c.counters
        );
    }
    println!("total {:.1} s", r.seconds);
}

// ---------------------------------------------------------------------------
// Small helpers

/// `redis_version` from INFO server.
fn redis_version(con: &mut redis::Connection) -> Result<String> {
    let info: String = redis::cmd("INFO").arg("server").query(con)?;
    Ok(info
        .lines()
        .find_map(|l| l.strip_prefix("redis_version:"))
        .unwrap_or("unknown")
        .trim()
        .to_string())
}

/// The server process's CPU time so far (`used_cpu_user + used_cpu_sys` of
/// INFO cpu), seconds; None if INFO does not tell.
fn server_cpu(con: &mut redis::Connection) -> Result<Option<f64>> {
    let info: String = redis::cmd("INFO").arg("cpu").query(con)?;
    let field = |name: &str| {
        info.lines().find_map(|l| {
            l.strip_prefix(name)?
                .strip_prefix(':')?
                .trim()
                .parse::<f64>()
                .ok()
        })
    };
    Ok(field("used_cpu_user")
        .zip(field("used_cpu_sys"))
        .map(|(u, s)| u + s))
}

/// `host:port` or the socket path, for the report (never the credentials).
fn server_name(client: &redis::Client) -> String {
    match client.get_connection_info().addr() {
        ConnectionAddr::Tcp(host, port) => format!("{host}:{port}"),
        ConnectionAddr::TcpTls { host, port, .. } => format!("{host}:{port} (tls)"),
        ConnectionAddr::Unix(path) => path.display().to_string(),
        #[allow(unreachable_patterns)]
        _ => "?".to_string(),
    }
}

/// redis-benchmark's address options for a `--url` server, or why the
/// ceiling cannot run against it.
fn benchmark_target(client: &redis::Client) -> std::result::Result<Vec<String>, String> {
    let info = client.get_connection_info();
    let settings = info.redis_settings();
    if settings.username().is_some() || settings.password().is_some() {
        return Err("the URL carries credentials; not passing them to redis-benchmark".into());
    }
    let mut target = match info.addr() {
        ConnectionAddr::Tcp(host, port) => {
            vec!["-h".into(), host.clone(), "-p".into(), port.to_string()]
        }
        ConnectionAddr::Unix(path) => vec!["-s".into(), path.display().to_string()],
        #[allow(unreachable_patterns)]
        _ => return Err("TLS URLs are not supported for the ceiling".into()),
    };
    if settings.db() != 0 {
        target.extend(["--dbnum".into(), settings.db().to_string()]);
    }
    Ok(target)
}

/// rps, p50 and p99 (ms) from `redis-benchmark -q --csv`: a header line,
/// then `"<test>","<rps>","<avg>","<min>","<p50>","<p95>","<p99>","<max>"`.
fn parse_benchmark_csv(out: &str) -> Option<(f64, f64, f64)> {
    let line = out.lines().find(|l| l.starts_with("\"EVALSHA"))?;
    let fields: Vec<&str> = line.trim().trim_matches('"').split("\",\"").collect();
    let num = |i: usize| fields.get(i)?.parse::<f64>().ok();
    Some((num(1)?, num(4)?, num(6)?))
}

/// The period of `kind` holding Unix second `t` at UTC offset `offset`
/// seconds, as `campaign_vote.lua` names it (`hour:2026-03-17T12`,
/// `day:2026-03-17`, `week:2026-W12`, `month:2026-03`, `total`), and its end
/// (the first second of the next period; None for total). H. Hinnant's
/// civil-date algorithms, like the Lua.
fn period_at(kind: Period, t: i64, offset: i64) -> (String, Option<i64>) {
    let local = t + offset;
    let days = local.div_euclid(86_400);
    let (y, m, d) = civil(days);
    match kind {
        Period::Total => ("total".to_string(), None),
        Period::Hour => {
            let start = local.div_euclid(3600) * 3600;
            let hour = (start - days * 86_400) / 3600;
            (
                format!("hour:{y:04}-{m:02}-{d:02}T{hour:02}"),
                Some(start + 3600 - offset),
            )
        }
        Period::Day => (
            format!("day:{y:04}-{m:02}-{d:02}"),
            Some((days + 1) * 86_400 - offset),
        ),
        Period::Week => {
            let monday = days - (days + 3).rem_euclid(7);
            let (iso_year, _, _) = civil(monday + 3);
            let week = (monday + 3 - days_from_civil(iso_year, 1, 1)).div_euclid(7) + 1;
            (
                format!("week:{iso_year:04}-W{week:02}"),
                Some((monday + 7) * 86_400 - offset),
            )
        }
        Period::Month => {
            let next = if m == 12 {
                days_from_civil(y + 1, 1, 1)
            } else {
                days_from_civil(y, m + 1, 1)
            };
            (format!("month:{y:04}-{m:02}"), Some(next * 86_400 - offset))
        }
    }
}

/// Days since 1970-01-01 to (year, month, day).
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// (year, month, day) to days since 1970-01-01.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
}

/// A fixed, well-spread hash (splitmix64) to pick each vote's article.
fn splitmix64(n: u64) -> u64 {
    let mut z = n.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

fn round(x: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (x * scale).round() / scale
}

/// `4`, `26`, `4.02`: no trailing zeros.
fn trim_float(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
