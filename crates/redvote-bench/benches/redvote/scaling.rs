//! The scaling section: what the campaign reads cost as a board grows, for
//! every tie rule, measured on the server (no network in the figures).
//!
//! On a throwaway `redis-server` of its own (started after the main section,
//! killed at the end: the boards never share a server with the other
//! scenarios), one campaign `{<prefix>c:bench-scaling}:` holds one
//! board per tie rule and size, `<ties>-<size>` (e.g. `dense-1000000`),
//! keeping the `total` period only. Board of size N: options `o1` .. `oN`,
//! option `o<r>` with ⌊2N / r⌋ imported votes (Zipf-like, s = 1: the top
//! option has 2N, and the long tail ties: a third of the board shares the
//! lowest score 2, a sixth 3, a tenth 4, ...; about 2√(2N) distinct scores).
//!
//! Built with the library's own calls, so the boards hold whatever the
//! scripts keep beside them (the `first` rule's side zset today, and any
//! structure a later version of `import` maintains): [`Campaign::configure`]
//! creates the board with its tie rule and adds its options 1000 a call (the
//! script's most a call), then [`Campaign::import`] sets the votes 500
//! options a call (its most), in rank order (so under `first` ties option
//! `o<r>` ranks r-th: it reached its score first), 16 calls a pipeline.
//!
//! Reads, each the same call repeated, on every board (the shown `total`
//! board, pages of 25):
//!
//! * `top`: the middle page, the one holding position N/2
//!   ([`Campaign::top`], one board);
//! * `standing middle`: [`Campaign::standing`] of `o<N/2>` (score 4, in a
//!   tie group of N/10 members);
//! * `standing last`: [`Campaign::standing`] of `o<N>` (score 2, the last
//!   of the biggest tie group, N/3 members);
//! * `around`: [`Campaign::around`] `o<N/2>`, a window of 25.
//!
//! Every reply is checked: the first against the board's known layout (the
//! ranks by the rule: competition = members above + 1, dense = distinct
//! scores above + 1, first = r, name = Redis' order of the tied names; the
//! scores, the page's members and size), the others must equal it.
//!
//! Every board of every size is built first (all live at once: about 1.5 GB
//! for the default sizes); then the calls go in passes, each pass one call
//! of every cell (read x tie rule x size) still running, so a slow spell of
//! the shared machine falls on all cells alike. A cell runs until it has
//! made `--scaling-calls` calls or spent `--scaling-budget-ms` in them (at
//! least one call). Each call is timed on the server: INFO commandstats is
//! read (on another connection) before and after it, and the call's time is
//! the `cmdstat_evalsha` usec delta (the calls delta must be 1): the
//! script's execution time, nothing of the network or of the client. A
//! read under 10 ms is timed right after an untimed call of the same read
//! (warm caches: otherwise a cheap read measured right after another
//! cell's long scan pays for the caches that scan evicted, and the sizes
//! whose slow cells run longer look slower). A
//! cell reports the mean, the least, the median and the longest of its
//! calls. (Not SLOWLOG: Redis 7.0 logs every command a script runs too,
//! which fills the log and adds its own cost to the calls measured.) A
//! cell whose first call would take longer than `--scaling-skip-ms` (the
//! longest call so far of the same read and rule at the size before,
//! scaled linearly with the size; default 5000 ms, Redis'
//! `busy-reply-threshold`, past which other clients get `BUSY`) is not run:
//! "skipped: over budget", and it fails its targets. (Linear is a guess: a
//! read that sorts its tie group grows faster, so a call past 5 s can
//! still run.)
//!
//! Targets (reported, not enforced): for each read and tie rule, the median
//! at the largest size within 2x of the smallest's (`flat`); at the largest
//! size, each rule's median within 2x of the competition rule's for the
//! same read (`vs competition`); no single call above 5 ms (`max call`).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use redis::Value;
use redvote::campaign::{BoardSettings, OptionSettings};
use redvote::{Call, Campaign, CampaignSettings, Paging, Period, Ties, View};
use redvote_testing::TempServer;
use serde::Serialize;

use super::measure::{command_stats, round};

/// The tie rules, competition first (the others are compared with it).
pub(super) const SCALING_TIES: [Ties; 4] =
    [Ties::Competition, Ties::Name, Ties::Dense, Ties::First];
/// Page size of `top` and `around` (window and page).
pub(super) const SCALING_PER_PAGE: u32 = 25;
/// Options a `configure` call adds (the script's most).
const CONFIGURE_BATCH: usize = 1000;
/// Options an `import` call is sent: as many as one call takes on a board
/// keeping one period, whatever its tie rule (first ties take the fewest:
/// 600 / (3 + 8); lua/campaign_import.lua, Bounded work), so a pipelined
/// build leaves none (checked after it).
const IMPORT_BATCH: usize = 54;
/// Build calls sent in one pipeline (hides the round trips).
const BUILD_PIPELINE: usize = 16;
/// The targets: growth from the smallest to the largest size, a rule over
/// competition at the largest, the longest single call (µs).
pub(super) const FLAT_TARGET: f64 = 2.0;
pub(super) const TIES_TARGET: f64 = 2.0;
pub(super) const MAX_CALL_TARGET_US: f64 = 5000.0;
/// Reads faster than this (µs) are timed right after a warm-up call.
const WARM_UP_BELOW_US: u64 = 10_000;
/// The smallest board (a page, a window and a middle that are not the top).
pub(super) const MIN_SIZE: u64 = 100;

/// The reads measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Query {
    TopMiddle,
    StandingMiddle,
    StandingLast,
    AroundMiddle,
}

pub(super) const QUERIES: [Query; 4] = [
    Query::TopMiddle,
    Query::StandingMiddle,
    Query::StandingLast,
    Query::AroundMiddle,
];

impl Query {
    pub(super) fn id(self) -> &'static str {
        match self {
            Query::TopMiddle => "top_middle",
            Query::StandingMiddle => "standing_middle",
            Query::StandingLast => "standing_last",
            Query::AroundMiddle => "around_middle",
        }
    }

    pub(super) fn label(self) -> &'static str {
        match self {
            Query::TopMiddle => "top, middle page",
            Query::StandingMiddle => "standing, middle member",
            Query::StandingLast => "standing, last member",
            Query::AroundMiddle => "around, middle member",
        }
    }
}

/// How much the scaling section runs.
#[derive(Clone, Debug)]
pub(super) struct ScalingPlan {
    pub(super) sizes: Vec<u64>,
    pub(super) calls: u64,
    pub(super) budget: Duration,
    /// 0: never skip.
    pub(super) skip_over: Duration,
}

/// `1000,100000,1000000` (or `1k,100k,1M`): board sizes, ascending, each
/// at least [`MIN_SIZE`]; `none` (or empty): no scaling section.
pub(super) fn parse_sizes(text: &str) -> Result<Vec<u64>> {
    let text = text.trim();
    if text.is_empty() || text == "none" {
        return Ok(Vec::new());
    }
    let mut sizes = Vec::new();
    for part in text.split(',') {
        let part = part.trim();
        let (digits, scale) = match part.chars().last() {
            Some('k' | 'K') => (&part[..part.len() - 1], 1_000),
            Some('m' | 'M') => (&part[..part.len() - 1], 1_000_000),
            _ => (part, 1),
        };
        let n: u64 = digits
            .parse()
            .with_context(|| format!("board size {part:?} is not a number"))?;
        let n = n * scale;
        ensure!(
            (MIN_SIZE..=10_000_000).contains(&n),
            "board size {n} is outside {MIN_SIZE}..=10000000"
        );
        sizes.push(n);
    }
    sizes.sort_unstable();
    sizes.dedup();
    Ok(sizes)
}

/// The scaling section's report.
#[derive(Serialize)]
pub(super) struct Scaling {
    pub(super) ran: bool,
    pub(super) skipped: Option<String>,
    pub(super) sizes: Vec<u64>,
    pub(super) namespace: String,
    pub(super) scores: &'static str,
    pub(super) per_page: u32,
    pub(super) calls: u64,
    pub(super) budget_ms: u64,
    pub(super) skip_over_ms: u64,
    pub(super) builds: Vec<Build>,
    pub(super) cells: Vec<Cell>,
    pub(super) targets: Vec<Target>,
    pub(super) max_call_us: Option<u64>,
    /// The migration of the dense and first boards (campaign_reindex),
    /// timed after the reads: each board's flag cleared, then reindexed.
    pub(super) reindex: Vec<Reindex>,
    pub(super) seconds: f64,
}

/// One board reindexed from scratch, `REINDEX_COUNT` members a call.
#[derive(Serialize)]
pub(super) struct Reindex {
    pub(super) ties: &'static str,
    pub(super) size: u64,
    pub(super) calls: u64,
    /// Server µs per call (INFO commandstats EVALSHA deltas).
    pub(super) p50_us: u64,
    pub(super) max_us: u64,
    pub(super) seconds: f64,
}

/// Members a campaign_reindex call of the scaling section indexes (the
/// CLI's default).
const REINDEX_COUNT: u32 = 100;

/// One board's build.
#[derive(Serialize)]
pub(super) struct Build {
    pub(super) ties: &'static str,
    pub(super) size: u64,
    pub(super) board: String,
    pub(super) configure_calls: u64,
    pub(super) import_calls: u64,
    /// Configuring the board and its options (then importing their votes:
    /// the rest of `seconds`).
    pub(super) configure_seconds: f64,
    pub(super) seconds: f64,
}

/// One read on one board.
#[derive(Serialize, Clone)]
pub(super) struct Cell {
    pub(super) query: &'static str,
    pub(super) ties: &'static str,
    pub(super) size: u64,
    pub(super) calls: u64,
    /// Server µs per call (INFO commandstats EVALSHA usec deltas): mean,
    /// least, median and longest single call.
    pub(super) us_per_call: Option<f64>,
    pub(super) min_us: Option<u64>,
    pub(super) p50_us: Option<u64>,
    pub(super) max_us: Option<u64>,
    /// Stopped before `calls` because the cell ran its time budget.
    pub(super) over_budget: bool,
    pub(super) skipped: Option<String>,
}

/// A target of the scaling section.
#[derive(Serialize)]
pub(super) struct Target {
    pub(super) id: String,
    pub(super) kind: &'static str,
    pub(super) query: Option<&'static str>,
    pub(super) ties: Option<&'static str>,
    pub(super) value: Option<f64>,
    pub(super) target: f64,
    pub(super) pass: bool,
}

impl Scaling {
    pub(super) fn skipped(reason: &str, plan: &ScalingPlan) -> Scaling {
        Scaling {
            ran: false,
            skipped: Some(reason.to_string()),
            sizes: plan.sizes.clone(),
            namespace: String::new(),
            scores: SCORES,
            per_page: SCALING_PER_PAGE,
            calls: plan.calls,
            budget_ms: plan.budget.as_millis() as u64,
            skip_over_ms: plan.skip_over.as_millis() as u64,
            builds: Vec::new(),
            cells: Vec::new(),
            targets: Vec::new(),
            max_call_us: None,
            reindex: Vec::new(),
            seconds: 0.0,
        }
    }

    pub(super) fn cell(&self, query: Query, ties: Ties, size: u64) -> Option<&Cell> {
        self.cells
            .iter()
            .find(|c| c.query == query.id() && c.ties == ties.as_str() && c.size == size)
    }
}

const SCORES: &str = "option o<r> (r = 1..N) has floor(2N / r) votes";

/// A board's layout, known client-side: the scores and what each rule
/// makes of them.
struct Layout {
    n: u64,
    /// Distinct scores, descending.
    distinct: Vec<u64>,
}

impl Layout {
    fn new(n: u64) -> Layout {
        let mut distinct: Vec<u64> = Vec::new();
        for r in 1..=n {
            let s = Layout::score_of(n, r);
            if distinct.last() != Some(&s) {
                distinct.push(s);
            }
        }
        Layout { n, distinct }
    }

    fn score_of(n: u64, r: u64) -> u64 {
        2 * n / r
    }

    fn score(&self, r: u64) -> u64 {
        Layout::score_of(self.n, r)
    }

    /// Members scoring more than `s`: r with 2N / r >= s + 1.
    fn above(&self, s: u64) -> u64 {
        (2 * self.n / (s + 1)).min(self.n)
    }

    /// Distinct scores above `s`.
    fn distinct_above(&self, s: u64) -> u64 {
        self.distinct.iter().take_while(|&&d| d > s).count() as u64
    }

    /// The 1-based rank of `o<r>` under `ties`.
    fn rank(&self, ties: Ties, r: u64) -> u64 {
        let s = self.score(r);
        let above = self.above(s);
        match ties {
            Ties::Competition => above + 1,
            Ties::Dense => self.distinct_above(s) + 1,
            Ties::First => r,
            Ties::Name => {
                // Redis' order of equal scores: names descending.
                let me = format!("o{r}");
                let last = self.above(s - 1);
                let before = (above + 1..=last).filter(|&q| format!("o{q}") > me).count() as u64;
                above + 1 + before
            }
        }
    }

    /// The middle member: `o<N/2>` (the last is `o<N>`).
    fn middle(&self) -> u64 {
        self.n / 2
    }

    /// The page of 25 holding position N/2 (1-based).
    fn middle_page(&self) -> u64 {
        (self.middle() - 1) / u64::from(SCALING_PER_PAGE) + 1
    }
}

fn board_name(ties: Ties, size: u64) -> String {
    format!("{}-{size}", ties.as_str())
}

fn decimal(score: u64) -> String {
    format!("{score}.00")
}

/// A cell while it runs.
struct Running {
    query: Query,
    ties: Ties,
    /// Index into the sizes.
    size: usize,
    /// Each call's server µs.
    times: Vec<u64>,
    /// Wall time spent in its calls (the budget's measure).
    spent: Duration,
    first: Option<Reply>,
    done: bool,
    skipped: Option<String>,
}

/// Run the scaling section on a throwaway server of its own: build every
/// board of every size, then make the calls in passes (each pass one call
/// of every cell still running, the sizes, reads and rules in turn), so a
/// slow spell of the machine falls on all cells alike rather than on the
/// ones measured then.
pub(super) fn run_scaling(prefix: &str, plan: &ScalingPlan) -> Result<Scaling> {
    let started = Instant::now();
    if plan.sizes.is_empty() {
        return Ok(Scaling::skipped("no sizes (--scaling none)", plan));
    }
    // Its own server even with --url (its boards never go to the user's
    // server); without a local redis-server the section says so.
    let server = match TempServer::start() {
        Ok(server) => server,
        Err(e) => {
            return Ok(Scaling::skipped(
                &format!("cannot start a throwaway redis-server for it: {e}"),
                plan,
            ))
        }
    };
    let client = server.client();
    let mut admin = client.get_connection()?;
    let mut con = client.get_connection()?;
    redvote::scripts::load_all(&mut admin)?;
    let campaign = Campaign::with_namespace(format!("{{{prefix}c:bench-scaling}}:"));

    let layouts: Vec<Layout> = plan.sizes.iter().map(|&n| Layout::new(n)).collect();
    let mut builds = Vec::new();
    for layout in &layouts {
        for ties in SCALING_TIES {
            builds.push(build_board(&mut admin, &campaign, ties, layout)?);
        }
    }
    let mut cells: Vec<Running> = Vec::new();
    for size in 0..plan.sizes.len() {
        for query in QUERIES {
            for ties in SCALING_TIES {
                cells.push(Running {
                    query,
                    ties,
                    size,
                    times: Vec::new(),
                    spent: Duration::ZERO,
                    first: None,
                    done: false,
                    skipped: None,
                });
            }
        }
    }
    for _pass in 0..plan.calls {
        for i in 0..cells.len() {
            if cells[i].done {
                continue;
            }
            if cells[i].times.is_empty() {
                // Its first call: not when the same read and rule at the
                // size before took too long, scaled linearly.
                let c = &cells[i];
                let before = c.size.checked_sub(1).and_then(|j| {
                    cells
                        .iter()
                        .find(|b| b.size == j && b.query == c.query && b.ties == c.ties)
                });
                if let Some(reason) = before.and_then(|b| skip_reason(b, c, plan)) {
                    cells[i].skipped = Some(reason);
                    cells[i].done = true;
                    continue;
                }
            }
            // A cheap read is timed right after an untimed one of its own
            // (warm caches), so what ran just before it (another cell's
            // long scan, in this pass) does not count in it; a read of more
            // than WARM_UP_BELOW_US (its last call, or for its first the
            // same read and rule at the size before) is not repeated.
            let c = &cells[i];
            let last = c.times.last().copied().or_else(|| {
                let j = c.size.checked_sub(1)?;
                cells
                    .iter()
                    .find(|b| b.size == j && b.query == c.query && b.ties == c.ties)?
                    .times
                    .last()
                    .copied()
            });
            let warm_up = last.unwrap_or(0) < WARM_UP_BELOW_US;
            let layout = &layouts[cells[i].size];
            let cell = &mut cells[i];
            let t = Instant::now();
            if warm_up {
                timed_call(
                    &mut admin, &mut con, &campaign, cell.query, cell.ties, layout,
                )?;
            }
            let (us, reply) = timed_call(
                &mut admin, &mut con, &campaign, cell.query, cell.ties, layout,
            )
            .with_context(|| {
                format!(
                    "scaling: {} on {}",
                    cell.query.id(),
                    board_name(cell.ties, layout.n)
                )
            })?;
            cell.spent += t.elapsed();
            cell.times.push(us);
            match &cell.first {
                None => {
                    check_reply(&reply, cell.query, cell.ties, layout).with_context(|| {
                        format!(
                            "scaling: {} on {}",
                            cell.query.id(),
                            board_name(cell.ties, layout.n)
                        )
                    })?;
                    cell.first = Some(reply);
                }
                Some(f) => ensure!(
                    *f == reply,
                    "scaling: {} on {}: a call answered {reply:?}, the first {f:?}",
                    cell.query.id(),
                    board_name(cell.ties, layout.n)
                ),
            }
            cell.done = cell.times.len() as u64 >= plan.calls || cell.spent >= plan.budget;
        }
    }
    let cells: Vec<Cell> = cells
        .into_iter()
        .map(|c| {
            let mut times = c.times;
            times.sort_unstable();
            let calls = times.len() as u64;
            Cell {
                query: c.query.id(),
                ties: c.ties.as_str(),
                size: plan.sizes[c.size],
                calls,
                us_per_call: (calls > 0)
                    .then(|| round(times.iter().sum::<u64>() as f64 / calls as f64, 1)),
                min_us: times.first().copied(),
                p50_us: times.get(times.len() / 2).copied(),
                max_us: times.last().copied(),
                over_budget: calls < plan.calls,
                skipped: c.skipped,
            }
        })
        .collect();
    let mut scaling = Scaling {
        ran: true,
        skipped: None,
        sizes: plan.sizes.clone(),
        namespace: campaign.namespace().to_string(),
        scores: SCORES,
        per_page: SCALING_PER_PAGE,
        calls: plan.calls,
        budget_ms: plan.budget.as_millis() as u64,
        skip_over_ms: plan.skip_over.as_millis() as u64,
        builds,
        max_call_us: cells.iter().filter_map(|c| c.max_us).max(),
        cells,
        reindex: reindex_all(&mut admin, &mut con, &campaign, &plan.sizes)?,
        targets: Vec::new(),
        seconds: 0.0,
    };
    scaling.targets = targets(&scaling);
    scaling.seconds = round(started.elapsed().as_secs_f64(), 3);
    Ok(scaling)
}

/// Why cell `c` is not run, from the same read and rule at the size
/// before (`b`): skipped there, or its longest call so far scaled linearly
/// to `c`'s size over `--scaling-skip-ms`.
fn skip_reason(b: &Running, c: &Running, plan: &ScalingPlan) -> Option<String> {
    let (from, to) = (plan.sizes[b.size], plan.sizes[c.size]);
    if b.skipped.is_some() {
        return Some(format!("over budget: skipped at {from} already"));
    }
    let max = b.times.iter().copied().max()?;
    let projected = max as f64 * to as f64 / from as f64;
    (!plan.skip_over.is_zero() && projected > plan.skip_over.as_micros() as f64).then(|| {
        format!(
            "over budget: a call would take about {:.1} s ({max} µs at {from}, x{})",
            projected / 1e6,
            to / from
        )
    })
}

/// Configure board `<ties>-<N>` with options `o1` .. `oN`, then import
/// their votes in rank order.
fn build_board(
    con: &mut redis::Connection,
    campaign: &Campaign,
    ties: Ties,
    layout: &Layout,
) -> Result<Build> {
    let started = Instant::now();
    let n = layout.n;
    let board = board_name(ties, n);
    let mut configure = Vec::new();
    for lo in (1..=n).step_by(CONFIGURE_BATCH) {
        let hi = (lo + CONFIGURE_BATCH as u64 - 1).min(n);
        let options = (lo..=hi)
            .map(|r| (format!("o{r}"), OptionSettings::default()))
            .collect();
        let settings = BoardSettings {
            periods: Some(vec![Period::Total]),
            ties: Some(ties),
            options,
            ..BoardSettings::default()
        };
        let settings = CampaignSettings {
            boards: BTreeMap::from([(board.clone(), settings)]),
            ..CampaignSettings::default()
        };
        configure.push(campaign.configure(&settings));
    }
    run_pipelined(con, &configure).context("configuring a scaling board")?;
    let configure_seconds = started.elapsed().as_secs_f64();
    let mut import = Vec::new();
    for lo in (1..=n).step_by(IMPORT_BATCH) {
        let hi = (lo + IMPORT_BATCH as u64 - 1).min(n);
        let votes: Vec<(String, String)> = (lo..=hi)
            .map(|r| (format!("o{r}"), layout.score(r).to_string()))
            .collect();
        let pairs: Vec<(&str, &str)> = votes.iter().map(|(o, v)| (&o[..], &v[..])).collect();
        import.push(campaign.import(&board, &pairs));
    }
    run_pipelined(con, &import).context("importing a scaling board's votes")?;
    let members: u64 = redis::cmd("ZCARD")
        .arg(format!("{}b:{board}:shown:total", campaign.namespace()))
        .query(con)?;
    ensure!(
        members == n,
        "the import left options out: {members} of {n} on {board}"
    );
    Ok(Build {
        ties: ties.as_str(),
        size: n,
        board,
        configure_calls: configure.len() as u64,
        import_calls: import.len() as u64,
        configure_seconds: round(configure_seconds, 3),
        seconds: round(started.elapsed().as_secs_f64(), 3),
    })
}

/// `calls` in pipelines of [`BUILD_PIPELINE`], each reply decoded (any
/// refusal is an error).
fn run_pipelined<T: redvote::reply::Reply>(
    con: &mut redis::Connection,
    calls: &[Call<T>],
) -> Result<()> {
    for chunk in calls.chunks(BUILD_PIPELINE) {
        let mut pipe = redis::pipe();
        for call in chunk {
            call.add_to(&mut pipe);
        }
        let replies: Vec<Value> = pipe.query(con)?;
        ensure!(replies.len() == chunk.len(), "a pipeline lost replies");
        for (call, reply) in chunk.iter().zip(replies) {
            call.decode(reply)?;
        }
    }
    Ok(())
}

/// One read's reply, decoded, for comparing the calls of a cell.
#[derive(PartialEq, Debug)]
enum Reply {
    Top(Vec<redvote::BoardPage>),
    Standing(Vec<redvote::Standing>),
    Around(redvote::Around),
}

/// One call of a cell's read, timed on the server: INFO commandstats read
/// (on the admin connection) before and after it; its time is the
/// `cmdstat_evalsha` usec delta, its calls delta must be 1.
fn timed_call(
    admin: &mut redis::Connection,
    con: &mut redis::Connection,
    campaign: &Campaign,
    query: Query,
    ties: Ties,
    layout: &Layout,
) -> Result<(u64, Reply)> {
    let n = layout.n;
    let board = board_name(ties, n);
    let view = View::shown("total");
    let middle = format!("o{}", layout.middle());
    let (c0, u0) = evalsha_stat(admin)?;
    let reply = match query {
        Query::TopMiddle => Reply::Top(
            campaign
                .top(
                    &[&board],
                    &view,
                    Paging::new(layout.middle_page() as u32, SCALING_PER_PAGE),
                )
                .run(con)?,
        ),
        Query::StandingMiddle => {
            Reply::Standing(campaign.standing(&board, &view, &[&middle]).run(con)?)
        }
        Query::StandingLast => Reply::Standing(
            campaign
                .standing(&board, &view, &[&format!("o{n}")])
                .run(con)?,
        ),
        Query::AroundMiddle => Reply::Around(
            campaign
                .around(
                    &board,
                    &view,
                    &middle,
                    redvote::Neighbourhood::new(SCALING_PER_PAGE, SCALING_PER_PAGE),
                )
                .run(con)?,
        ),
    };
    let (c1, u1) = evalsha_stat(admin)?;
    ensure!(
        c1 == c0 + 1,
        "INFO commandstats counted {} EVALSHA calls for one",
        c1 - c0
    );
    Ok((u1 - u0, reply))
}

/// Every dense and first board migrated again from scratch: its `indexed`
/// flag cleared (the reads then scan), `campaign_reindex` run to the end,
/// each call timed on the server; the flag must be back.
fn reindex_all(
    admin: &mut redis::Connection,
    con: &mut redis::Connection,
    campaign: &Campaign,
    sizes: &[u64],
) -> Result<Vec<Reindex>> {
    let mut out = Vec::new();
    for &size in sizes {
        for ties in [Ties::Dense, Ties::First] {
            let board = board_name(ties, size);
            let flag = format!("{}board:{board}", campaign.namespace());
            redis::cmd("HSET")
                .arg(&flag)
                .arg("indexed")
                .arg("0")
                .exec(admin)?;
            let started = Instant::now();
            let mut times = Vec::new();
            let mut cursor = "0".to_string();
            loop {
                let (c0, u0) = evalsha_stat(admin)?;
                let step = campaign.reindex(&board, &cursor, REINDEX_COUNT).run(con)?;
                let (c1, u1) = evalsha_stat(admin)?;
                ensure!(
                    c1 == c0 + 1,
                    "INFO commandstats counted {} EVALSHA calls for one",
                    c1 - c0
                );
                times.push(u1 - u0);
                if step.is_done() {
                    break;
                }
                cursor = step.next;
            }
            let indexed: Option<String> =
                redis::cmd("HGET").arg(&flag).arg("indexed").query(admin)?;
            ensure!(
                indexed.as_deref() == Some("1"),
                "scaling: reindex left {board} not indexed"
            );
            times.sort_unstable();
            out.push(Reindex {
                ties: ties.as_str(),
                size,
                calls: times.len() as u64,
                p50_us: times[times.len() / 2],
                max_us: *times.last().unwrap_or(&0),
                seconds: round(started.elapsed().as_secs_f64(), 3),
            });
        }
    }
    Ok(out)
}

/// `cmdstat_evalsha` of INFO commandstats: calls and usec so far.
fn evalsha_stat(admin: &mut redis::Connection) -> Result<(u64, u64)> {
    Ok(command_stats(admin)?
        .get("evalsha")
        .copied()
        .unwrap_or((0, 0)))
}

/// The first reply of a cell against the board's known layout.
fn check_reply(reply: &Reply, query: Query, ties: Ties, layout: &Layout) -> Result<()> {
    let n = layout.n;
    let page = layout.middle_page();
    let member = |r: u64| format!("o{r}");
    match (query, reply) {
        (Query::TopMiddle, Reply::Top(pages)) => {
            ensure!(pages.len() == 1, "top answered {} boards", pages.len());
            let p = &pages[0];
            ensure!(p.size == n, "top: board size {}, want {n}", p.size);
            let start = (page - 1) * u64::from(SCALING_PER_PAGE);
            ensure!(
                p.entries.len() as u64 == u64::from(SCALING_PER_PAGE).min(n - start),
                "top: {} entries on page {page}",
                p.entries.len()
            );
            for (i, e) in p.entries.iter().enumerate() {
                // Position pos holds the score of o<pos + 1> whatever the
                // rule (the rules only order equal scores).
                let pos = start + i as u64;
                let s = layout.score(pos + 1);
                ensure!(
                    e.score == decimal(s),
                    "top: position {pos} scores {}, want {}",
                    e.score,
                    decimal(s)
                );
                let want = match ties {
                    Ties::Competition => layout.above(s) + 1,
                    Ties::Dense => layout.distinct_above(s) + 1,
                    Ties::Name | Ties::First => pos + 1,
                };
                ensure!(
                    e.rank == want,
                    "top: {} at position {pos} ranks {}, want {want}",
                    e.member,
                    e.rank
                );
                if ties == Ties::First {
                    ensure!(
                        e.member == member(pos + 1),
                        "top (first): position {pos} holds {}, want {}",
                        e.member,
                        member(pos + 1)
                    );
                }
            }
        }
        (Query::StandingMiddle | Query::StandingLast, Reply::Standing(list)) => {
            let r = if query == Query::StandingLast {
                n
            } else {
                layout.middle()
            };
            ensure!(list.len() == 1, "standing answered {} members", list.len());
            let st = &list[0];
            let want = layout.rank(ties, r);
            ensure!(
                st.member == member(r)
                    && st.rank == Some(want)
                    && st.score.as_deref() == Some(&decimal(layout.score(r))[..]),
                "standing of {}: {st:?}, want rank {want} score {}",
                member(r),
                decimal(layout.score(r))
            );
        }
        (Query::AroundMiddle, Reply::Around(a)) => {
            let r = layout.middle();
            let want = layout.rank(ties, r);
            ensure!(
                a.size == n
                    && a.rank == Some(want)
                    && a.window.len() as u64 == u64::from(SCALING_PER_PAGE).min(n)
                    && a.window.iter().any(|e| e.member == member(r)),
                "around {}: size {} rank {:?} window of {}, want size {n} rank {want}",
                member(r),
                a.size,
                a.rank,
                a.window.len()
            );
        }
        _ => anyhow::bail!("{} answered {reply:?}", query.id()),
    }
    Ok(())
}

/// The targets, from the cells.
fn targets(s: &Scaling) -> Vec<Target> {
    let mut out = Vec::new();
    let (Some(&small), Some(&large)) = (s.sizes.first(), s.sizes.last()) else {
        return out;
    };
    let p50 = |q: Query, t: Ties, size: u64| s.cell(q, t, size).and_then(|c| c.p50_us);
    for q in QUERIES {
        for t in SCALING_TIES {
            let value = match (p50(q, t, large), p50(q, t, small)) {
                (Some(a), Some(b)) if b > 0 => Some(round(a as f64 / b as f64, 2)),
                _ => None,
            };
            out.push(Target {
                id: format!("flat_{}_{}", q.id(), t.as_str()),
                kind: "flat",
                query: Some(q.id()),
                ties: Some(t.as_str()),
                value,
                target: FLAT_TARGET,
                pass: value.is_some_and(|v| v <= FLAT_TARGET),
            });
        }
    }
    for q in QUERIES {
        for t in &SCALING_TIES[1..] {
            let value = match (p50(q, *t, large), p50(q, Ties::Competition, large)) {
                (Some(a), Some(b)) if b > 0 => Some(round(a as f64 / b as f64, 2)),
                _ => None,
            };
            out.push(Target {
                id: format!("vs_competition_{}_{}", q.id(), t.as_str()),
                kind: "vs_competition",
                query: Some(q.id()),
                ties: Some(t.as_str()),
                value,
                target: TIES_TARGET,
                pass: value.is_some_and(|v| v <= TIES_TARGET),
            });
        }
    }
    let skipped = s.cells.iter().any(|c| c.skipped.is_some());
    let max = s.max_call_us.map(|m| m as f64);
    out.push(Target {
        id: "max_call_us".into(),
        kind: "max_call",
        query: None,
        ties: None,
        value: max,
        target: MAX_CALL_TARGET_US,
        pass: !skipped && max.is_some_and(|m| m <= MAX_CALL_TARGET_US),
    });
    out
}
