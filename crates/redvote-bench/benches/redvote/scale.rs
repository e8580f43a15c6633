//! The scale section: a large data set on a throwaway `redis-server` of its
//! own (persistence off), then every operation timed on the server against
//! the 5 ms bound ("no call blocks Redis").
//!
//! ```text
//! cargo bench -p redvote-bench -- scale           # or --scale-only
//! cargo bench -p redvote-bench -- scale --json    # {"scale": {...}}
//! cargo bench -p redvote-bench -- scale --scale-ir  # and each operation's Ir
//! ```
//!
//! The data set, built through the scripts themselves (pipelined calls of
//! the library's own `Call`s, so every key is exactly what the scripts
//! write, whatever version of them is checked out; no raw writes, so no
//! equivalence proof is needed):
//!
//! * the site (empty prefix, `hot` and `best` switched on so that every
//!   order pages): `--scale-articles` articles (1,000,000) posted with
//!   `Site::post` (`post.lua`), 1,000 a pipeline; the first `--scale-group`
//!   (300,000) added to the group `big` with `Site::groups` (`groups.lua`);
//! * `{c:scale-boards}:`: four boards of `--scale-options` options
//!   (1,000,000) `o1` .. `oN`, one per tie rule (board named for its rule),
//!   keeping the `total` period, option `o<r>` with floor(2N / r) imported
//!   votes (the scaling section's Zipf-like layout), built with
//!   `configure` (1000 options a call) and `import` (500 a call);
//! * `{c:scale-periods}:`: one board `hourly` keeping `hour` and `total`
//!   (no retention: kept forever), 1000 options, one vote an hour over
//!   `--scale-hours` hours (8760, a year, up to the current hour) through
//!   `campaign_vote` at that hour (`Campaign::at`), so the vote itself
//!   writes the period boards and the `periods:hourly` index (17,522
//!   entries: real and shown of each hour, and total);
//! * `{c:scale-limits}:`: one board `stars` (day, total; 100 options) with
//!   the rate-limit section's 4 rules (3 per user), `--scale-users`
//!   (100,000) users voting once each through `campaign_vote`, 1,000 a
//!   pipeline.
//!
//! Each operation is then called `--scale-calls` times (fewer for the
//! slow and destructive ones, see [`ops`]) on one sync connection, each
//! call timed on the server by SLOWLOG (`slowlog-log-slower-than 0`):
//! SLOWLOG RESET before the call, SLOWLOG GET after it, on another
//! connection; the call's time is the longest top-level command it sent
//! (`EVALSHA`, or the `EXEC` of a page's article reads), in µs as Redis
//! logs it. Redis 7.0 also logs the commands a script runs: those entries
//! are skipped. An operation reports its calls, the longest and the p99
//! call, and whether the longest is over the 5 ms bound.
//!
//! With `--scale-ir`, the Ir pass ([`ir_pass`]) then counts each
//! operation's server instructions: the data set cannot be built under
//! valgrind in any reasonable time (about 50 times slower), so the server
//! SAVEs it before the operations and again after the site's upgrade, and
//! a server under callgrind (`redvote_testing::callgrind`) loads each copy
//! and makes the same calls, the first [`IR_CALLS`] of each operation
//! measured apart; `ir` is the worst of them (null without the pass).

use std::collections::BTreeMap;
use std::io::Write;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::{ensure, Context, Result};
use redis::Value;
use redvote::campaign::{BoardSettings, Neighbourhood, OptionSettings, Voter};
use redvote::site::{ConfigUpdate, Order, Ranking};
use redvote::{Call, Campaign, CampaignSettings, Granularity, Paging, Period, Site, Ties, View};
use redvote_testing::callgrind::CallgrindServer;
use redvote_testing::TempServer;
use serde::Serialize;

use super::limits::limit_rules;
use super::measure::round;
use super::scenario::splitmix64;

/// The operations timed (rows of the table): 10 of the site, 7 of the
/// site at layout 2 (its upgrade steps, by phase, among them), 7 per tie
/// rule, 10 of limits, statistics and settings (the removals' steps
/// among them), 2 reindex steps.
pub(super) const SCALE_OPS: usize = 10 + 7 + 7 * 4 + 10 + 2;
/// Keys or group members a site upgrade step is asked to visit: all of
/// the scan's keys it takes (1000); of the members it takes 25 a call
/// (lua/upgrade.lua, bounded work).
const UPGRADE_COUNT: u32 = 1000;
/// Group members a site upgrade step visits (upgrade.lua's most).
const UPGRADE_MEMBERS: u32 = 25;
/// Units of work a removal step does (the CLI's and the service's batch).
const REMOVE_COUNT: u32 = 100;
/// The bound: no call above 5 ms.
pub(super) const BOUND_MS: f64 = 5.0;
/// The tie rules of the 1M boards.
const TIES: [Ties; 4] = [Ties::Competition, Ties::Dense, Ties::First, Ties::Name];
/// Calls a build pipeline carries.
const PIPE: usize = 1000;
/// Options a configure call adds; votes an import call is sent (500: the
/// script's most; a call takes what fits its bounded work, lua/campaign_import.lua).
const CONFIGURE_BATCH: u64 = 1000;
const IMPORT_BATCH: u64 = 500;
/// Votes a build import call is sent: as many as one call takes on a board
/// keeping one period, whatever its tie rule (first: 600 / (3 + 8)), so the
/// pipelined build leaves none (checked after it).
const BUILD_IMPORT_BATCH: u64 = 54;
/// Pairs of the batch vote: the most a call takes on a board keeping one
/// period (lua/campaign_vote.lua, Bounded work: 600 units, 8 a pair and 2
/// entries a pair of 2 units, 6 with dense ties, 8 with first ties), at
/// most 50 (the script's most).
fn batch_pairs(ties: &str) -> u64 {
    let entry = match ties {
        "dense" => 6,
        "first" => 8,
        _ => 2,
    };
    (600 / (8 + 2 * entry)).min(50)
}
/// Options of the periods board and of the limits board.
const PERIOD_OPTIONS: u64 = 1000;
const LIMIT_OPTIONS: u64 = 100;
/// SLOWLOG entries kept (the call's own entry is the newest: a script's
/// commands are logged before it).
const SLOWLOG_LEN: u64 = 1024;
/// The group of the site.
const GROUP: &str = "big";
/// Calls of an operation the Ir pass measures (the first ones; each under
/// callgrind about 50 times slower than without).
const IR_CALLS: usize = 5;

/// How big the data set is and how many calls an operation makes.
#[derive(Clone, Debug)]
pub(super) struct ScalePlan {
    pub(super) articles: u64,
    pub(super) group: u64,
    pub(super) options: u64,
    pub(super) hours: u64,
    pub(super) users: u64,
    pub(super) calls: u64,
    /// The Ir pass too (`--scale-ir`): each operation's Ir under callgrind.
    pub(super) ir: bool,
}

/// The section's report (`{"scale": ...}` with `--json`).
#[derive(Serialize)]
pub(super) struct Scale {
    pub(super) commit: Option<String>,
    pub(super) redis_version: String,
    pub(super) cpus: usize,
    pub(super) articles: u64,
    pub(super) group: u64,
    pub(super) options: u64,
    pub(super) hours: u64,
    pub(super) period_boards: u64,
    pub(super) users: u64,
    pub(super) bound_ms: f64,
    /// Each build phase: its time and `used_memory` after it.
    pub(super) build: Vec<Phase>,
    pub(super) build_seconds: f64,
    pub(super) used_memory: u64,
    pub(super) keys: u64,
    /// `used_memory` the 100k rate-limited users' votes added, per user
    /// (their counters, and what their vote wrote besides: HyperLogLogs,
    /// statistics).
    pub(super) bytes_per_limited_user: f64,
    pub(super) ops: Vec<ScaleRow>,
    pub(super) over: Vec<String>,
    pub(super) seconds: f64,
}

#[derive(Serialize)]
pub(super) struct Phase {
    pub(super) what: String,
    pub(super) calls: u64,
    pub(super) seconds: f64,
    pub(super) used_memory: u64,
}

/// One operation's calls.
#[derive(Serialize)]
pub(super) struct ScaleRow {
    pub(super) op: String,
    pub(super) calls: u64,
    pub(super) max_ms: f64,
    pub(super) p99_ms: f64,
    pub(super) p50_ms: f64,
    /// The Ir pass: the server instructions of the worst of the first
    /// [`IR_CALLS`] calls (callgrind; None without `--scale-ir`).
    pub(super) ir: Option<u64>,
    pub(super) over_bound: bool,
}

/// 1..=n picked by `i`.
fn pick(i: u64, salt: u64, n: u64) -> u64 {
    splitmix64(i.wrapping_mul(31).wrapping_add(salt)) % n + 1
}

fn used_memory(con: &mut redis::Connection) -> Result<u64> {
    let info: String = redis::cmd("INFO").arg("memory").query(con)?;
    info.lines()
        .find_map(|l| l.strip_prefix("used_memory:"))
        .and_then(|v| v.trim().parse().ok())
        .context("INFO memory has no used_memory")
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// `calls` pipelined, `PIPE` a request, each reply decoded (a refusal
/// fails the build).
fn pipelined<T: redvote::reply::Reply>(
    con: &mut redis::Connection,
    calls: impl Iterator<Item = Call<T>>,
) -> Result<u64> {
    let mut n = 0;
    let mut chunk = Vec::with_capacity(PIPE);
    let flush = |chunk: &mut Vec<Call<T>>, con: &mut redis::Connection| -> Result<()> {
        if chunk.is_empty() {
            return Ok(());
        }
        let mut pipe = redis::pipe();
        for call in chunk.iter() {
            call.add_to(&mut pipe);
        }
        let replies: Vec<Value> = pipe.query(con)?;
        ensure!(replies.len() == chunk.len(), "a pipeline lost replies");
        for (call, reply) in chunk.iter().zip(replies) {
            call.decode(reply)
                .with_context(|| format!("building the scale data set: {call}"))?;
        }
        chunk.clear();
        Ok(())
    };
    for call in calls {
        chunk.push(call);
        n += 1;
        if chunk.len() == PIPE {
            flush(&mut chunk, con)?;
        }
    }
    flush(&mut chunk, con)?;
    Ok(n)
}

/// The server's timer: SLOWLOG around each call (on the admin connection).
fn slowlog_reset(admin: &mut redis::Connection) -> Result<()> {
    redis::cmd("SLOWLOG").arg("RESET").exec(admin)?;
    Ok(())
}

/// The longest top-level command logged since the reset (µs).
fn slowlog_longest(admin: &mut redis::Connection) -> Result<u64> {
    let entries: Vec<Value> = redis::cmd("SLOWLOG")
        .arg("GET")
        .arg(SLOWLOG_LEN)
        .query(admin)?;
    let mut best: Option<u64> = None;
    for entry in entries {
        let Value::Array(fields) = entry else {
            continue;
        };
        let (Some(Value::Int(us)), Some(Value::Array(args))) = (fields.get(2), fields.get(3))
        else {
            continue;
        };
        let name = match args.first() {
            Some(Value::BulkString(b)) => String::from_utf8_lossy(b).to_ascii_lowercase(),
            Some(Value::SimpleString(s)) => s.to_ascii_lowercase(),
            _ => continue,
        };
        if matches!(name.as_str(), "evalsha" | "eval" | "exec" | "fcall") {
            best = Some(best.unwrap_or(0).max(*us as u64));
        }
    }
    best.context("SLOWLOG holds no EVALSHA or EXEC after the call")
}

/// How a call is measured.
enum Meter {
    /// Its server time: SLOWLOG around it (the data set's own server).
    Time,
    /// Its server instructions: callgrind's count around it (the Ir pass,
    /// on a copy of the data set loaded under callgrind).
    Ir(CallgrindServer),
}

/// The section's state: the connections and the data set's names.
struct Run {
    con: redis::Connection,
    /// SLOWLOG and the set-up commands that are not measured.
    admin: redis::Connection,
    meter: Meter,
    site: Site,
    boards: Campaign,
    periods: Campaign,
    limits: Campaign,
    plan: ScalePlan,
    rows: Vec<ScaleRow>,
    /// The Ir pass: the worst measured call's Ir by operation.
    irs: BTreeMap<String, u64>,
    /// Numbers for new users, articles to vote on, ...
    next: u64,
}

impl Run {
    /// `calls` calls of `op`, each measured; `f(con, i)` makes call `i`
    /// (0-based).
    fn time(
        &mut self,
        op: &str,
        calls: u64,
        mut f: impl FnMut(&mut redis::Connection, u64) -> Result<()>,
    ) -> Result<()> {
        self.time_steps(op, calls, |con, i| f(con, i).map(|()| false))
    }

    /// One call, measured when the Ir pass has measured fewer than
    /// [`IR_CALLS`] of its operation (`measured`; the time is always
    /// measured): its longest top-level command (µs), or its Ir; None when
    /// not measured.
    fn one(
        &mut self,
        measured: usize,
        f: impl FnOnce(&mut redis::Connection) -> Result<()>,
    ) -> Result<Option<u64>> {
        match &mut self.meter {
            Meter::Time => {
                slowlog_reset(&mut self.admin)?;
                f(&mut self.con)?;
                Ok(Some(slowlog_longest(&mut self.admin)?))
            }
            Meter::Ir(server) if measured < IR_CALLS => {
                let ((), ir) = server.measure(|| f(&mut self.con))?;
                Ok(Some(ir))
            }
            Meter::Ir(_) => f(&mut self.con).map(|()| None),
        }
    }

    /// Up to `calls` calls of `op` (the Ir pass: up to [`IR_CALLS`]), each
    /// measured, until `f(con, i)` answers true (the last step done).
    fn time_steps(
        &mut self,
        op: &str,
        calls: u64,
        mut f: impl FnMut(&mut redis::Connection, u64) -> Result<bool>,
    ) -> Result<()> {
        let started = Instant::now();
        let calls = match self.meter {
            Meter::Time => calls,
            Meter::Ir(_) => calls.min(IR_CALLS as u64),
        };
        let mut values = Vec::with_capacity(calls.min(100_000) as usize);
        for i in 0..calls {
            let mut done = false;
            let value = self
                .one(values.len(), |con| {
                    done = f(con, i)?;
                    Ok(())
                })
                .with_context(|| format!("scale: {op}, call {}", i + 1))?;
            values.extend(value);
            if done {
                break;
            }
        }
        self.push_row(op, values, started);
        Ok(())
    }

    /// The row of `op` from its calls' measures: times (µs), or Ir (the
    /// Ir pass: its worst call's, kept for the time row of the same name).
    fn push_row(&mut self, op: &str, mut times: Vec<u64>, started: Instant) {
        if let Meter::Ir(_) = self.meter {
            let worst = times.iter().copied().max().unwrap_or(0);
            eprintln!(
                "scale (Ir): {op}: {} calls measured, the worst {worst} Ir ({:.1} s)",
                times.len(),
                started.elapsed().as_secs_f64()
            );
            self.irs.insert(op.to_string(), worst);
            return;
        }
        if times.is_empty() {
            // No call: a row of zeros (the smoke run fails on it).
            self.rows.push(ScaleRow {
                op: op.to_string(),
                calls: 0,
                max_ms: 0.0,
                p99_ms: 0.0,
                p50_ms: 0.0,
                ir: None,
                over_bound: false,
            });
            return;
        }
        let calls = times.len() as u64;
        times.sort_unstable();
        let at = |q: f64| -> f64 {
            let k = ((q * times.len() as f64).ceil() as usize).clamp(1, times.len()) - 1;
            round(times[k] as f64 / 1000.0, 3)
        };
        let row = ScaleRow {
            op: op.to_string(),
            calls,
            max_ms: at(1.0),
            p99_ms: at(0.99),
            p50_ms: at(0.5),
            ir: None,
            over_bound: at(1.0) > BOUND_MS,
        };
        eprintln!(
            "scale: {op}: {calls} calls, max {:.3} ms, p99 {:.3} ms ({:.1} s)",
            row.max_ms,
            row.p99_ms,
            started.elapsed().as_secs_f64()
        );
        self.rows.push(row);
    }
}

/// Build the data set on a throwaway server, time every operation.
pub(super) fn run_scale(plan: &ScalePlan) -> Result<Scale> {
    let started = Instant::now();
    let server = TempServer::start().context("cannot start a throwaway redis-server")?;
    let client = server.client();
    let mut admin = client.get_connection()?;
    let mut con = client.get_connection()?;
    redvote::scripts::load_all(&mut admin)?;
    redis::cmd("CONFIG")
        .arg("SET")
        .arg("slowlog-log-slower-than")
        .arg("0")
        .arg("slowlog-max-len")
        .arg(SLOWLOG_LEN)
        .exec(&mut admin)?;
    let info: String = redis::cmd("INFO").arg("server").query(&mut admin)?;
    let redis_version = info
        .lines()
        .find_map(|l| l.strip_prefix("redis_version:"))
        .unwrap_or("?")
        .trim()
        .to_string();

    let site = Site::new("");
    let boards = Campaign::with_namespace("{c:scale-boards}:");
    let periods = Campaign::with_namespace("{c:scale-periods}:");
    let limits = Campaign::with_namespace("{c:scale-limits}:");
    let mut build = Vec::new();
    let mut phase = |what: &str, calls: u64, t: Instant, admin: &mut redis::Connection| {
        let p = Phase {
            what: what.to_string(),
            calls,
            seconds: round(t.elapsed().as_secs_f64(), 1),
            used_memory: used_memory(admin)?,
        };
        eprintln!(
            "scale: built {what}: {calls} calls, {:.1} s, used_memory {:.0} MB",
            p.seconds,
            p.used_memory as f64 / 1e6
        );
        build.push(p);
        Ok::<(), anyhow::Error>(())
    };
    let build_started = Instant::now();

    // The site: rankings on, then the articles, then the group. At layout
    // 1, as the seeds' own data is (a site redvote starts is at layout 2):
    // the upgrade rows measure moving it.
    let t = Instant::now();
    redvote_testing::site_at_layout_1(&mut con, site.prefix());
    site.configure(&ConfigUpdate {
        rankings: Some(vec![Ranking::Hot, Ranking::Best]),
        ..ConfigUpdate::default()
    })
    .run(&mut con)?;
    let n = pipelined(
        &mut con,
        (1..=plan.articles).map(|i| {
            site.post(
                &format!("poster:{}", i % 5000),
                &format!("Article {i}"),
                &format!("https://example.com/a/{i}"),
            )
        }),
    )?;
    phase("articles (post.lua)", n, t, &mut admin)?;
    let t = Instant::now();
    let n = pipelined(
        &mut con,
        (1..=plan.group).map(|i| site.groups(i.to_string(), &[GROUP], &[])),
    )?;
    phase("group (groups.lua)", n, t, &mut admin)?;

    // The 1M boards, one per tie rule.
    let options = plan.options;
    for ties in TIES {
        let t = Instant::now();
        let board = ties.as_str();
        let configure = (0..options.div_ceil(CONFIGURE_BATCH)).map(|k| {
            let lo = k * CONFIGURE_BATCH + 1;
            let hi = (lo + CONFIGURE_BATCH - 1).min(options);
            let settings = BoardSettings {
                periods: Some(vec![Period::Total]),
                ties: Some(ties),
                options: (lo..=hi)
                    .map(|r| (format!("o{r}"), OptionSettings::default()))
                    .collect(),
                ..BoardSettings::default()
            };
            boards.configure(&CampaignSettings {
                boards: BTreeMap::from([(board.to_string(), settings)]),
                ..CampaignSettings::default()
            })
        });
        let mut calls = pipelined(&mut con, configure)?;
        let import = (0..options.div_ceil(BUILD_IMPORT_BATCH)).map(|k| {
            let lo = k * BUILD_IMPORT_BATCH + 1;
            let hi = (lo + BUILD_IMPORT_BATCH - 1).min(options);
            let votes: Vec<(String, String)> = (lo..=hi)
                .map(|r| (format!("o{r}"), (2 * options / r).to_string()))
                .collect();
            let pairs: Vec<(&str, &str)> = votes.iter().map(|(o, v)| (&o[..], &v[..])).collect();
            boards.import(board, &pairs)
        });
        calls += pipelined(&mut con, import)?;
        let members: u64 = redis::cmd("ZCARD")
            .arg(format!("{}b:{board}:shown:total", boards.namespace()))
            .query(&mut con)?;
        ensure!(
            members == options,
            "the import left options out: {members} of {options} on {board}"
        );
        phase(
            &format!("board {board} (configure, import)"),
            calls,
            t,
            &mut admin,
        )?;
    }

    // The periods board: one vote an hour over `hours` hours.
    let t = Instant::now();
    let board = BoardSettings {
        periods: Some(vec![Period::Hour, Period::Total]),
        ties: Some(Ties::Competition),
        options: (1..=PERIOD_OPTIONS)
            .map(|r| (format!("opt{r}"), OptionSettings::default()))
            .collect(),
        ..BoardSettings::default()
    };
    periods
        .configure(&CampaignSettings::default().with_board("hourly", board))
        .run(&mut con)?;
    let hour_now = now() / 3600 * 3600;
    let first_hour = hour_now - (plan.hours - 1) * 3600;
    let votes = (0..plan.hours).map(|h| {
        let option = format!("opt{}", h % 50 + 1);
        periods
            .at(first_hour + h * 3600 + 60)
            .vote(&format!("hour-voter:{h}"), &[("hourly", &option)])
    });
    let n = pipelined(&mut con, votes)? + 1;
    phase(
        "periods board (campaign_vote at each hour)",
        n,
        t,
        &mut admin,
    )?;
    let period_boards: u64 = redis::cmd("ZCARD")
        .arg(format!("{}periods:hourly", periods.namespace()))
        .query(&mut admin)?;

    // The rate-limited users.
    let t = Instant::now();
    let board = BoardSettings {
        periods: Some(vec![Period::Day, Period::Total]),
        ties: Some(Ties::Competition),
        options: (1..=LIMIT_OPTIONS)
            .map(|r| (format!("opt{r}"), OptionSettings::default()))
            .collect(),
        ..BoardSettings::default()
    };
    limits
        .configure(
            &CampaignSettings::default()
                .with_limits(limit_rules(4))
                .with_board("stars", board),
        )
        .run(&mut con)?;
    let before = used_memory(&mut admin)?;
    let votes = (1..=plan.users).map(|u| {
        let user = format!("user:{u}");
        let option = format!("opt{}", pick(u, 7, LIMIT_OPTIONS));
        limits.vote_by(
            &Voter::new(&user).channel("web").device("pc"),
            &[("stars", &option)],
        )
    });
    let n = pipelined(&mut con, votes)? + 1;
    let after = used_memory(&mut admin)?;
    phase(
        "rate-limited users (campaign_vote, 4 rules)",
        n,
        t,
        &mut admin,
    )?;
    let bytes_per_limited_user = round(
        after.saturating_sub(before) as f64 / plan.users.max(1) as f64,
        1,
    );
    let build_seconds = round(build_started.elapsed().as_secs_f64(), 1);

    let mut run = Run {
        con,
        admin,
        meter: Meter::Time,
        site,
        boards,
        periods,
        limits,
        plan: plan.clone(),
        rows: Vec::new(),
        irs: BTreeMap::new(),
        next: 0,
    };
    // The Ir pass replays the operations on copies of the data set: the
    // site's before them, the rest after the site's upgrade.
    let snapshots = match plan.ir {
        true => Some(Snapshots::new()?),
        false => None,
    };
    if let Some(snap) = &snapshots {
        snap.save(&mut run.admin, SITE_RDB)?;
    }
    site_ops(&mut run)?;
    let next_after_site = run.next;
    if let Some(snap) = &snapshots {
        snap.save(&mut run.admin, REST_RDB)?;
    }
    rest_ops(&mut run)?;

    let mut admin = run.admin;
    let used = used_memory(&mut admin)?;
    let keys: u64 = redis::cmd("DBSIZE").query(&mut admin)?;
    if let Some(snap) = &snapshots {
        drop(admin);
        drop(run.con);
        drop(server);
        let irs = ir_pass(
            plan,
            snap,
            &run.site,
            &run.boards,
            &run.periods,
            &run.limits,
            next_after_site,
        )?;
        for row in &mut run.rows {
            row.ir = irs.get(&row.op).copied();
        }
    }
    let over = run
        .rows
        .iter()
        .filter(|r| r.over_bound)
        .map(|r| r.op.clone())
        .collect();
    Ok(Scale {
        commit: commit(),
        redis_version,
        cpus: std::thread::available_parallelism().map_or(0, |n| n.get()),
        articles: plan.articles,
        group: plan.group,
        options: plan.options,
        hours: plan.hours,
        period_boards,
        users: plan.users,
        bound_ms: BOUND_MS,
        build,
        build_seconds,
        used_memory: used,
        keys,
        bytes_per_limited_user,
        ops: run.rows,
        over,
        seconds: round(started.elapsed().as_secs_f64(), 1),
    })
}

/// The commit measured: `$REDVOTE_BENCH_COMMIT` when set (a build from an
/// exported tree has no git), else `git rev-parse --short HEAD`, when there
/// is one.
pub(super) fn commit() -> Option<String> {
    if let Ok(commit) = std::env::var("REDVOTE_BENCH_COMMIT") {
        return Some(commit);
    }
    let out = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The Ir pass (`--scale-ir`): the operations again, on copies of the
/// data set loaded by a server under callgrind, each operation's first
/// [`IR_CALLS`] calls measured apart (`callgrind_control --zero` and
/// `--dump` around each). The operations that need a finished step loop
/// run it to its end unmeasured, but the site's upgrade, whose state the
/// second copy already holds. Returns the worst measured call's Ir by
/// operation.
fn ir_pass(
    plan: &ScalePlan,
    snap: &Snapshots,
    site: &Site,
    boards: &Campaign,
    periods: &Campaign,
    limits: &Campaign,
    next_after_site: u64,
) -> Result<BTreeMap<String, u64>> {
    let mut irs = BTreeMap::new();
    for (file, next) in [(SITE_RDB, 0), (REST_RDB, next_after_site)] {
        let t = Instant::now();
        let dir = snap.dir.display().to_string();
        let server = CallgrindServer::start_with(
            &["--dir", &dir, "--dbfilename", file],
            std::time::Duration::from_secs(3600),
        )
        .with_context(|| format!("cannot start a callgrind server loading {file}"))?;
        eprintln!(
            "scale (Ir): loaded {file} under callgrind in {:.1} s",
            t.elapsed().as_secs_f64()
        );
        let client = server.server().client();
        let mut admin = client.get_connection()?;
        redvote::scripts::load_all(&mut admin)?;
        let mut run = Run {
            con: client.get_connection()?,
            admin,
            meter: Meter::Ir(server),
            site: site.clone(),
            boards: boards.clone(),
            periods: periods.clone(),
            limits: limits.clone(),
            plan: plan.clone(),
            rows: Vec::new(),
            irs: BTreeMap::new(),
            next,
        };
        match file {
            SITE_RDB => site_ops(&mut run)?,
            _ => rest_ops(&mut run)?,
        }
        irs.append(&mut run.irs);
    }
    Ok(irs)
}

/// The copies of the data set the Ir pass loads (a directory removed on
/// drop): [`SITE_RDB`] before the operations, [`REST_RDB`] after the
/// site's.
struct Snapshots {
    dir: std::path::PathBuf,
}

/// The data set before the operations.
const SITE_RDB: &str = "site.rdb";
/// The data set after the site's operations (its upgrade done).
const REST_RDB: &str = "rest.rdb";

impl Snapshots {
    fn new() -> Result<Snapshots> {
        let dir = std::env::temp_dir().join(format!("redvote-scale-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        Ok(Snapshots { dir })
    }

    /// SAVE the server's data set, and move the RDB into the directory as
    /// `file` (`dir` and `dbfilename` are protected configs in Redis 7:
    /// the server writes where it was started to).
    fn save(&self, admin: &mut redis::Connection, file: &str) -> Result<()> {
        let t = Instant::now();
        let config = |admin: &mut redis::Connection, name: &str| -> Result<String> {
            let pair: Vec<String> = redis::cmd("CONFIG").arg("GET").arg(name).query(admin)?;
            pair.get(1).cloned().context("CONFIG GET answered nothing")
        };
        let rdb = std::path::Path::new(&config(admin, "dir")?).join(config(admin, "dbfilename")?);
        redis::cmd("SAVE").exec(admin)?;
        std::fs::rename(&rdb, self.dir.join(file))
            .with_context(|| format!("moving {} to {}", rdb.display(), self.dir.display()))?;
        eprintln!(
            "scale: saved {file} for the Ir pass in {:.1} s",
            t.elapsed().as_secs_f64()
        );
        Ok(())
    }
}

impl Drop for Snapshots {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The site's operations on layout 1, then its upgrade to layout 2 in
/// bounded steps (each timed; the Ir pass measures the first steps of each
/// phase and stops there: [`REST_RDB`] holds the upgraded site).
fn site_ops(r: &mut Run) -> Result<()> {
    let calls = r.plan.calls;
    let few = (calls / 10).max(1);
    let articles = r.plan.articles;
    let site = r.site.clone();

    // The site.
    let n0 = r.next;
    r.time("site vote", calls, |con, i| {
        let article = pick(n0 + i, 1, articles).to_string();
        site.vote(&format!("voter:{}", n0 + i), &article).run(con)?;
        Ok(())
    })?;
    r.next += calls;
    r.time("site post", calls, |con, i| {
        site.post("poster:new", &format!("New {i}"), "https://example.com/new")
            .run(con)?;
        Ok(())
    })?;
    for order in [Order::Score, Order::Time, Order::Hot, Order::Best] {
        let pages = (articles / 25).max(1);
        r.time(
            &format!("site page ({})", order.as_str()),
            calls,
            |con, i| {
                let page = pick(i, 3, pages) as u32;
                site.page(order, page, Some(25)).run(con)?;
                Ok(())
            },
        )?;
    }
    r.time("site article", calls, |con, i| {
        let article = pick(i, 5, articles).to_string();
        site.article(&article, Some("voter:1")).run(con)?;
        Ok(())
    })?;
    let group = r.plan.group;
    for order in [Order::Score, Order::Time] {
        r.time(
            &format!(
                "site group_page ({}, {}k group)",
                order.as_str(),
                group / 1000
            ),
            few,
            |con, i| {
                let pages = (group / 25).max(1);
                site.group_page(GROUP, order, pick(i, 9, pages) as u32, Some(25))
                    .run(con)?;
                Ok(())
            },
        )?;
    }
    r.time("site groups change", calls, |con, i| {
        // Articles outside the group join it, then leave it again.
        let article = (group + 1 + i / 2).to_string();
        match i % 2 {
            0 => site.groups(&article, &[GROUP, "other"], &[]).run(con)?,
            _ => site.groups(&article, &[], &[GROUP]).run(con)?,
        };
        Ok(())
    })?;

    // The site moved to layout 2 (group boards kept by the writers) in
    // bounded steps, each timed; then the calls whose work the layout
    // changes, again.
    // Its steps timed apart by phase, as the cursor sent says: "0" and
    // "s,N" scan the keyspace for the groups, "g,N,NAME" index members.
    let (started, mut scan, mut members) = (Instant::now(), Vec::new(), Vec::new());
    let mut cursor = "0".to_string();
    let mut upgraded = false;
    let ir_pass = matches!(r.meter, Meter::Ir(_));
    for _ in 0..10_000_000 {
        let phase_members = cursor.starts_with("g,");
        let phase = match phase_members {
            true => &mut members,
            false => &mut scan,
        };
        let measured = r
            .one(phase.len(), |con| {
                let step = site.upgrade(&cursor, UPGRADE_COUNT).run(con)?;
                cursor = step.next.clone();
                upgraded = step.is_done();
                Ok(())
            })
            .context("scale: the site upgrade")?;
        phase.extend(measured);
        if upgraded || (ir_pass && members.len() >= IR_CALLS) {
            break;
        }
    }
    r.push_row(
        &format!("site upgrade step, {UPGRADE_COUNT} keys (scan for groups)"),
        scan,
        started,
    );
    r.push_row(
        &format!("site upgrade step, {UPGRADE_MEMBERS} group members"),
        members,
        started,
    );
    ensure!(
        upgraded || ir_pass,
        "scale: the site upgrade did not finish"
    );
    Ok(())
}

/// The operations after the site's upgrade: the site on layout 2, the 1M
/// boards, rate limits, statistics and settings; the destructive ones
/// (option removal, reindex) last.
fn rest_ops(r: &mut Run) -> Result<()> {
    let calls = r.plan.calls;
    let few = (calls / 10).max(1);
    let options = r.plan.options;
    let group = r.plan.group;
    let site = r.site.clone();
    let n0 = r.next;
    r.time("site vote (layout 2)", calls, |con, i| {
        // Votes on articles of the group: the group's boards move too.
        let article = pick(n0 + i, 43, group).to_string();
        site.vote(&format!("voter:{}", n0 + i), &article).run(con)?;
        Ok(())
    })?;
    r.next += calls;
    r.time("site post (layout 2)", calls, |con, i| {
        site.post(
            "poster:new",
            &format!("New2 {i}"),
            "https://example.com/new",
        )
        .run(con)?;
        Ok(())
    })?;
    for order in [Order::Score, Order::Time] {
        r.time(
            &format!(
                "site group_page ({}, {}k group, layout 2)",
                order.as_str(),
                group / 1000
            ),
            calls,
            |con, i| {
                let pages = (group / 25).max(1);
                site.group_page(GROUP, order, pick(i, 47, pages) as u32, Some(25))
                    .run(con)?;
                Ok(())
            },
        )?;
    }
    r.time("site groups change (layout 2)", calls, |con, i| {
        let article = (group + 1 + i / 2).to_string();
        match i % 2 {
            0 => site.groups(&article, &[GROUP, "other"], &[]).run(con)?,
            _ => site.groups(&article, &[], &[GROUP]).run(con)?,
        };
        Ok(())
    })?;

    // The 1M boards.
    let boards = r.boards.clone();
    let view = View::shown("total");
    for ties in TIES {
        let board = ties.as_str();
        let n0 = r.next;
        r.time(&format!("campaign vote ({board})"), calls, |con, i| {
            let option = format!("o{}", pick(n0 + i, 11, options));
            boards
                .vote(&format!("cv:{}", n0 + i), &[(board, &option)])
                .run(con)?;
            Ok(())
        })?;
        r.next += calls;
        let n0 = r.next;
        let batch = batch_pairs(board);
        r.time(
            &format!("campaign batch vote, {batch} pairs ({board})"),
            few,
            |con, i| {
                let names: Vec<String> = (0..batch)
                    .map(|k| format!("o{}", pick((n0 + i) * 100 + k, 13, options)))
                    .collect();
                let pairs: Vec<(&str, &str)> = names.iter().map(|o| (board, &o[..])).collect();
                boards.vote(&format!("bv:{}", n0 + i), &pairs).run(con)?;
                Ok(())
            },
        )?;
        r.next += few;
        let pages = (options / 25).max(1);
        r.time(&format!("campaign top ({board})"), calls, |con, i| {
            let page = pick(i, 17, pages) as u32;
            boards
                .top(&[board], &view, Paging::new(page, 25))
                .run(con)?;
            Ok(())
        })?;
        r.time(&format!("campaign standing ({board})"), calls, |con, i| {
            let member = format!("o{}", pick(i, 19, options));
            boards.standing(board, &view, &[&member]).run(con)?;
            Ok(())
        })?;
        r.time(&format!("campaign around ({board})"), calls, |con, i| {
            let member = format!("o{}", pick(i, 23, options));
            boards
                .around(board, &view, &member, Neighbourhood::new(25, 25))
                .run(con)?;
            Ok(())
        })?;
        r.time(
            &format!("campaign import, one call sent {IMPORT_BATCH} pairs ({board})"),
            few,
            |con, i| {
                // New imported totals for 500 consecutive options from a
                // random place of the board.
                let lo = pick(i, 29, options - IMPORT_BATCH);
                let votes: Vec<(String, String)> = (0..IMPORT_BATCH)
                    .map(|k| {
                        let o = lo + k;
                        (format!("o{o}"), (2 * options / o + 1 + i).to_string())
                    })
                    .collect();
                let pairs: Vec<(&str, &str)> =
                    votes.iter().map(|(o, v)| (&o[..], &v[..])).collect();
                boards.import(board, &pairs).run(con)?;
                Ok(())
            },
        )?;
        // Votes with ids (untimed), then their voids (timed).
        let n0 = r.next;
        let ids: Vec<String> = (0..few)
            .map(|i| format!("void:{board}:{}", n0 + i))
            .collect();
        for (i, id) in ids.iter().enumerate() {
            let user = format!("vv:{}", n0 + i as u64);
            let option = format!("o{}", pick(n0 + i as u64, 31, options));
            boards
                .vote_by(&Voter::new(&user).id(id), &[(board, &option)])
                .run(&mut r.con)?;
        }
        r.next += few;
        r.time(&format!("campaign void ({board})"), few, |con, i| {
            boards.void(&ids[i as usize]).run(con)?;
            Ok(())
        })?;
    }

    // Rate limits, statistics, settings.
    let limits = r.limits.clone();
    let users = r.plan.users;
    r.time("limits peek (4 rules)", calls, |con, i| {
        let user = format!("user:{}", pick(i, 37, users));
        let voter = Voter::new(&user).channel("web").device("pc");
        limits.limits(&voter, &[("stars", "opt1")]).run(con)?;
        Ok(())
    })?;
    r.time("limits reset (4 rules)", calls, |con, i| {
        let user = format!("user:{}", pick(i, 41, users));
        let voter = Voter::new(&user).channel("web").device("pc");
        limits.reset_limits(&voter, &[("stars", "opt1")]).run(con)?;
        Ok(())
    })?;
    let to = now() / 3600 * 3600 + 3600;
    r.time(
        &format!("stats, 24 hours ({}k-vote board)", users / 1000),
        calls.min(50),
        |con, _| {
            limits
                .stats("stars", Granularity::Hour, to - 24 * 3600, to)
                .run(con)?;
            Ok(())
        },
    )?;
    let periods = r.periods.clone();
    r.time("stats, 336 hours (hourly board)", few, |con, _| {
        periods
            .stats("hourly", Granularity::Hour, to - 336 * 3600, to)
            .run(con)?;
        Ok(())
    })?;
    r.time("settings read (1000 options)", calls.min(50), |con, _| {
        periods.settings().run(con)?;
        Ok(())
    })?;
    r.time("configure, a weight change", calls.min(50), |con, i| {
        let board = BoardSettings::default()
            .with_option("opt999", OptionSettings::weighted(1 + (i % 2) as u32));
        periods
            .configure(&CampaignSettings::default().with_board("hourly", board))
            .run(con)?;
        Ok(())
    })?;
    let remove = 3;
    let mut next_option = 1;
    let period_boards: u64 = redis::cmd("ZCARD")
        .arg(format!("{}periods:hourly", periods.namespace()))
        .query(&mut r.admin)?;
    for count in [1, 10] {
        let (started, mut configure, mut steps) = (Instant::now(), Vec::new(), Vec::new());
        for i in 0..remove {
            let first = next_option + i * count;
            configure.extend(
                r.one(configure.len(), |con| {
                    let mut board = BoardSettings::default();
                    for k in 0..count {
                        board = board.with_removed(&format!("opt{}", first + k));
                    }
                    periods
                        .configure(&CampaignSettings::default().with_board("hourly", board))
                        .run(con)?;
                    Ok(())
                })
                .with_context(|| format!("scale: removing {count} option(s)"))?,
            );
            // The removal's bounded steps (the CLI's batch), to the end.
            let mut cursor = "0".to_string();
            for _ in 0..1_000_000 {
                let mut done = false;
                steps.extend(r.one(steps.len(), |con| {
                    let step = periods
                        .remove_step("hourly", &cursor, REMOVE_COUNT)
                        .run(con)?;
                    done = step.is_done();
                    cursor = step.next;
                    Ok(())
                })?);
                if done {
                    break;
                }
            }
        }
        r.push_row(
            &format!("configure, removing {count} option(s) ({period_boards} period boards)"),
            configure,
            started,
        );
        r.push_row(
            &format!("remove step, {REMOVE_COUNT} (after removing {count})"),
            steps,
            started,
        );
        next_option += remove * count;
    }

    // A reindex step of 100 members on the 1M dense and first boards (their
    // `indexed` flag cleared first, as the scaling section does).
    for ties in [Ties::Dense, Ties::First] {
        let board = ties.as_str();
        redis::cmd("HSET")
            .arg(format!("{}board:{board}", boards.namespace()))
            .arg("indexed")
            .arg("0")
            .exec(&mut r.admin)?;
        let mut cursor = "0".to_string();
        r.time(
            &format!("reindex step, 100 members ({board})"),
            few,
            |con, _| {
                let step = boards.reindex(board, &cursor, 100).run(con)?;
                cursor = step.next;
                Ok(())
            },
        )?;
    }
    Ok(())
}

/// The table.
pub(super) fn write_scale(out: &mut impl Write, s: &Scale) -> Result<()> {
    writeln!(
        out,
        "\nScale: {} articles ({}k group), 4 boards of {} options, {} period boards, {} rate-limited users",
        s.articles,
        s.group / 1000,
        s.options,
        s.period_boards,
        s.users
    )?;
    writeln!(
        out,
        "commit {}, Redis {}, {} cpus; build {:.1} s, used_memory {:.0} MB, {} keys, {:.0} B per rate-limited user",
        s.commit.as_deref().unwrap_or("?"),
        s.redis_version,
        s.cpus,
        s.build_seconds,
        s.used_memory as f64 / 1e6,
        s.keys,
        s.bytes_per_limited_user
    )?;
    for p in &s.build {
        writeln!(
            out,
            "  build {:<46} {:>8} calls {:>7.1} s  used_memory {:>6.0} MB",
            p.what,
            p.calls,
            p.seconds,
            p.used_memory as f64 / 1e6
        )?;
    }
    writeln!(
        out,
        "\n| operation | calls | max ms | p99 ms | p50 ms | Ir | {} ms bound |",
        s.bound_ms
    )?;
    writeln!(out, "| --- | --- | --- | --- | --- | --- | --- |")?;
    for row in &s.ops {
        writeln!(
            out,
            "| {} | {} | {:.3} | {:.3} | {:.3} | {} | {} |",
            row.op,
            row.calls,
            row.max_ms,
            row.p99_ms,
            row.p50_ms,
            row.ir.map_or("-".to_string(), |ir| ir.to_string()),
            if row.over_bound { "**over**" } else { "under" }
        )?;
    }
    writeln!(
        out,
        "\nOver the bound: {}",
        if s.over.is_empty() {
            "none".to_string()
        } else {
            s.over.join(", ")
        }
    )?;
    writeln!(out, "(section {:.1} s)", s.seconds)?;
    Ok(())
}
