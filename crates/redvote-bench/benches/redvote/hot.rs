//! The hot-campaign section (`cargo bench -p redvote-bench -- --section
//! hot`, docs/benchmark.md "Hot campaigns"): a buffered campaign's vote
//! (intake plus its share of the folds) against an immediate one and the
//! seed's 16 commands, side by side in one run, each row on a fresh
//! redis-server:
//! - server CPU a vote (INFO cpu deltas over N votes sent pipelined from
//!   one connection, folds included: a buffered row drains its buffer
//!   before the second reading), on 100 and 10,000 options, competition
//!   and first ties, 0 and 4 rate rules, with and without vote ids; in
//!   [`ROUNDS`] rounds, each row's median;
//! - votes/s at 50 connections (one vote a request each), buffered and
//!   immediate; the fold lag under that load (the age of the oldest
//!   waiting vote, sampled every 5 ms); the slowest call (SLOWLOG);
//! - the memory a remembered vote id and a rate-limited user keep.
//!   The run's figures go to a dated run folder (`runs/DATE-hot/`).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use hdrhistogram::Histogram;
use redis::Connection;
use redvote::campaign::{
    BoardSettings, CampaignSettings, Dimension, LimitRule, Mode, OptionSettings, Window,
};
use redvote::{Campaign, Period, Ties};
use redvote_testing::TempServer;
use serde::Serialize;

/// Rows of the server-CPU table: (mode, options, ties, rules, vote id).
const CASES: &[(Mode, usize, Ties, usize, bool)] = &[
    (Mode::Buffered, 100, Ties::Competition, 0, true),
    (Mode::Buffered, 100, Ties::Competition, 0, false),
    (Mode::Immediate, 100, Ties::Competition, 0, true),
    (Mode::Buffered, 100, Ties::First, 0, true),
    (Mode::Immediate, 100, Ties::First, 0, true),
    (Mode::Buffered, 100, Ties::Competition, 4, true),
    (Mode::Immediate, 100, Ties::Competition, 4, true),
    (Mode::Buffered, 10_000, Ties::Competition, 0, true),
    (Mode::Immediate, 10_000, Ties::Competition, 0, true),
    (Mode::Buffered, 10_000, Ties::First, 0, true),
];

/// Votes a pipeline carries.
const BATCH: usize = 100;

/// One row of the server-CPU table.
#[derive(Serialize)]
pub(super) struct CpuRow {
    what: String,
    options: usize,
    ties: &'static str,
    rules: usize,
    vote_id: bool,
    votes: u64,
    /// Server CPU (user + sys) a vote, µs: the median of the rounds.
    server_us: f64,
    /// The median of its ratios to the seed's 16 commands pipelined in the
    /// same round.
    vs_seed: f64,
}

/// Votes/s at 50 connections, the fold lag and the slowest call.
#[derive(Serialize)]
pub(super) struct LoadRow {
    mode: &'static str,
    connections: usize,
    seconds: f64,
    votes_per_sec: f64,
    /// The age of the oldest waiting vote, ms (buffered only).
    lag_p50_ms: u64,
    lag_p99_ms: u64,
    lag_max_ms: u64,
    /// The slowest call of the run (SLOWLOG), µs.
    slowest_call_us: u64,
}

/// Bytes one remembered vote id and one rate-limited user keep.
#[derive(Serialize)]
pub(super) struct MemoryRow {
    what: &'static str,
    bytes: u64,
}

#[derive(Serialize)]
pub(super) struct HotReport {
    date: String,
    redis: String,
    cpu: Vec<CpuRow>,
    load: Vec<LoadRow>,
    memory: Vec<MemoryRow>,
}

/// Rounds of the CPU rows. Each round measures every row once, the seed's
/// first; a row answers the median of its rounds, and its ratio the median
/// of its ratios to the same round's seed: the machine's load moves
/// between rounds more than within one.
const ROUNDS: usize = 3;

/// The median of `v` (not empty).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The whole section: `votes` a CPU row, `seconds` a load row.
pub(super) fn run_hot(votes: u64, seconds: f64) -> Result<HotReport> {
    // per round: the seed pipelined, the seed one request each, each case
    let mut rounds: Vec<Vec<f64>> = Vec::new();
    for _ in 0..ROUNDS {
        let mut round = vec![seed_cpu(votes, true)?, seed_cpu(votes / 10, false)?];
        for &(mode, options, ties, rules, id) in CASES {
            round.push(
                campaign_cpu(mode, options, ties, rules, id, votes)
                    .with_context(|| format!("{mode:?} {options} {ties:?} {rules}"))?,
            );
        }
        rounds.push(round);
    }
    let row = |i: usize| {
        let us = median(rounds.iter().map(|r| r[i]).collect());
        let ratio = median(rounds.iter().map(|r| r[i] / r[0]).collect());
        (us, ratio)
    };
    let mut cpu = Vec::new();
    for (i, (what, n)) in [
        ("seed's 16 commands, pipelined", votes),
        ("seed's 16 commands, one request each", votes / 10),
    ]
    .into_iter()
    .enumerate()
    {
        let (us, ratio) = row(i);
        cpu.push(CpuRow::seed(what, n, us, ratio));
    }
    for (i, &(mode, options, ties, rules, id)) in CASES.iter().enumerate() {
        let (us, ratio) = row(i + 2);
        cpu.push(CpuRow {
            what: mode_name(mode).to_string(),
            options,
            ties: ties_name(ties),
            rules,
            vote_id: id,
            votes,
            server_us: us,
            vs_seed: ratio,
        });
    }
    let load = vec![
        load(Mode::Immediate, seconds)?,
        load(Mode::Buffered, seconds)?,
    ];
    let memory = memory()?;
    let server = redvote_testing::server();
    let mut con = redvote_testing::con(&server);
    let info: String = redis::cmd("INFO").arg("server").query(&mut con)?;
    let redis = info
        .lines()
        .find_map(|l| l.strip_prefix("redis_version:"))
        .unwrap_or("?")
        .to_string();
    Ok(HotReport {
        date: today(),
        redis,
        cpu,
        load,
        memory,
    })
}

impl HotReport {
    /// Whether every row was measured: each CPU row above 0, each load
    /// voted, each memory figure above 0.
    pub(super) fn complete(&self) -> bool {
        self.cpu.len() == CASES.len() + 2
            && self.cpu.iter().all(|r| r.server_us > 0.0)
            && self.load.len() == 2
            && self.load.iter().all(|r| r.votes_per_sec > 0.0)
            && self.memory.len() == 3
            && self.memory.iter().all(|r| r.bytes > 0)
    }

    /// The rows of the report.
    pub(super) fn rows(&self) -> usize {
        self.cpu.len() + self.load.len() + self.memory.len()
    }
}

impl CpuRow {
    fn seed(what: &str, votes: u64, us: f64, vs_seed: f64) -> CpuRow {
        CpuRow {
            what: what.to_string(),
            options: 100,
            ties: "competition",
            rules: 0,
            vote_id: false,
            votes,
            server_us: us,
            vs_seed,
        }
    }
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Buffered => "buffered",
        Mode::Immediate => "immediate",
    }
}

fn ties_name(ties: Ties) -> &'static str {
    match ties {
        Ties::First => "first",
        Ties::Dense => "dense",
        Ties::Name => "name",
        Ties::Competition => "competition",
    }
}

/// The server's CPU time so far (user + sys), seconds.
fn server_cpu(con: &mut Connection) -> Result<f64> {
    let info: String = redis::cmd("INFO").arg("cpu").query(con)?;
    let field = |name: &str| -> f64 {
        info.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0.0)
    };
    Ok(field("used_cpu_user:") + field("used_cpu_sys:"))
}

/// Options a configure call may add (campaign_configure's bound).
const OPTIONS_A_CALL: usize = 1000;

/// The section's board: hour, day, week, month and total, carry 0.1,
/// with options o`from`..o`to`.
fn board(ties: Ties, from: usize, to: usize) -> BoardSettings {
    let mut board = BoardSettings::new(&[
        Period::Hour,
        Period::Day,
        Period::Week,
        Period::Month,
        Period::Total,
    ]);
    board.carry = Some("0.1".into());
    board.ties = Some(ties);
    for i in from..to {
        board = board.with_option(&format!("o{i}"), OptionSettings::weighted(1));
    }
    board
}

/// The campaign in `mode` with its first options and `rules` rate rules.
fn settings(mode: Mode, options: usize, ties: Ties, rules: usize) -> CampaignSettings {
    let board = board(ties, 0, options.min(OPTIONS_A_CALL));
    let mut s = CampaignSettings::new()
        .with_mode(mode)
        .with_board("stars", board);
    for (i, window) in [Window::Minute, Window::Hour, Window::Day, Window::Week]
        .iter()
        .take(rules)
        .enumerate()
    {
        s = s.with_limit(LimitRule::fixed(
            &format!("r{i}"),
            &[Dimension::User],
            *window,
            1_000_000,
        ));
    }
    s
}

/// A fresh server with the campaign configured and every script loaded.
fn fresh(
    mode: Mode,
    options: usize,
    ties: Ties,
    rules: usize,
) -> Result<(TempServer, Connection, Campaign)> {
    let server = redvote_testing::server();
    let mut con = redvote_testing::con(&server);
    let c = Campaign::new("hot");
    c.configure(&settings(mode, options, ties, rules))
        .run(&mut con)?;
    for from in (OPTIONS_A_CALL..options).step_by(OPTIONS_A_CALL) {
        let more = board(ties, from, (from + OPTIONS_A_CALL).min(options));
        c.configure(&CampaignSettings::new().with_board("stars", more))
            .run(&mut con)?;
    }
    redvote::scripts::load_all(&mut con)?;
    Ok((server, con, c))
}

/// The `i`-th vote's option: every option in turn, a step of 7.
fn option(i: u64, options: usize) -> String {
    format!("o{}", (i * 7) % options as u64)
}

/// Server CPU a vote, µs, of `votes` votes (new users, ids when `id`),
/// pipelined; a buffered campaign is drained before the second reading.
fn campaign_cpu(
    mode: Mode,
    options: usize,
    ties: Ties,
    rules: usize,
    id: bool,
    votes: u64,
) -> Result<f64> {
    let (_server, mut con, c) = fresh(mode, options, ties, rules)?;
    let before = server_cpu(&mut con)?;
    let mut i = 0;
    while i < votes {
        let mut pipe = redis::pipe();
        for _ in 0..BATCH.min((votes - i) as usize) {
            let voter = redvote::Voter::new(format!("user:{i:07}"));
            let voter = if id {
                voter.id(format!("vote-{i:012}"))
            } else {
                voter
            };
            let o = option(i, options);
            c.vote_by(&voter, &[("stars", o.as_str())])
                .add_to(&mut pipe);
            i += 1;
        }
        pipe.query::<redis::Value>(&mut con)?;
    }
    loop {
        if c.fold(1000).run(&mut con)?.left == 0 {
            break;
        }
    }
    let after = server_cpu(&mut con)?;
    Ok((after - before) * 1e6 / votes as f64)
}

/// The seed's vote: 14 ZINCRBY (real and shown of 5 periods, carry into 4
/// next periods) and 2 PFADD, pipelined or one request each.
fn seed_cpu(votes: u64, pipelined: bool) -> Result<f64> {
    let server = redvote_testing::server();
    let mut con = redvote_testing::con(&server);
    let before = server_cpu(&mut con)?;
    let periods = ["hour:x", "day:x", "week:x", "month:x", "total"];
    let next = ["hour:y", "day:y", "week:y", "month:y"];
    let mut pipe = redis::pipe();
    let mut queued = 0;
    for i in 0..votes {
        let o = option(i, 100);
        for p in periods {
            pipe.zincr(format!("{{s}}:real:{p}"), &o, 1).ignore();
            pipe.zincr(format!("{{s}}:shown:{p}"), &o, 1).ignore();
        }
        for p in next {
            pipe.zincr(format!("{{s}}:shown:{p}"), &o, 0.1).ignore();
        }
        pipe.pfadd(format!("{{s}}:hll:{o}"), format!("user:{i:07}"))
            .ignore();
        pipe.pfadd("{s}:hll", format!("user:{i:07}")).ignore();
        queued += 1;
        if !pipelined || queued == BATCH {
            if pipelined {
                pipe.query::<()>(&mut con)?;
            } else {
                for cmd in pipe.cmd_iter() {
                    cmd.query::<redis::Value>(&mut con)?;
                }
            }
            pipe = redis::pipe();
            queued = 0;
        }
    }
    if queued > 0 {
        pipe.query::<()>(&mut con)?;
    }
    let after = server_cpu(&mut con)?;
    Ok((after - before) * 1e6 / votes as f64)
}

/// Votes/s from 50 connections (one vote a request, ids, new users) for
/// `seconds`; for a buffered campaign the fold lag sampled meanwhile.
fn load(mode: Mode, seconds: f64) -> Result<LoadRow> {
    const CONNECTIONS: usize = 50;
    let (server, mut con, c) = fresh(mode, 100, Ties::Competition, 0)?;
    redis::cmd("CONFIG")
        .arg("SET")
        .arg("slowlog-log-slower-than")
        .arg(1000)
        .exec(&mut con)?;
    redis::cmd("CONFIG")
        .arg("SET")
        .arg("slowlog-max-len")
        .arg(100_000)
        .exec(&mut con)?;
    redis::cmd("SLOWLOG").arg("RESET").exec(&mut con)?;
    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let t0 = Instant::now();
    let lag = std::thread::scope(|s| -> Result<Histogram<u64>> {
        let mut voters = Vec::new();
        for t in 0..CONNECTIONS {
            let (server, c, sent) = (&server, c.clone(), sent.clone());
            voters.push(s.spawn(move || -> Result<()> {
                let mut con = redvote_testing::con(server);
                let mut n = 0u64;
                while Instant::now() < deadline {
                    let i = (t as u64) << 32 | n;
                    let voter = redvote::Voter::new(format!("u{t}:{n}")).id(format!("v{i}"));
                    let o = option(n + t as u64, 100);
                    c.vote_by(&voter, &[("stars", o.as_str())]).run(&mut con)?;
                    sent.fetch_add(1, Ordering::Relaxed);
                    n += 1;
                }
                Ok(())
            }));
        }
        let mut lag = Histogram::<u64>::new_with_bounds(1, 3_600_000, 3)?;
        let mut probe = redvote_testing::con(&server);
        let bufs = format!("{}bufs", c.namespace());
        while Instant::now() < deadline && mode == Mode::Buffered {
            let oldest: Vec<(String, f64)> = redis::cmd("ZRANGE")
                .arg(&bufs)
                .arg(0)
                .arg(0)
                .arg("WITHSCORES")
                .query(&mut probe)?;
            let now = server_ms(&mut probe)?;
            let age = oldest
                .first()
                .map(|(_, s)| now.saturating_sub((*s / 64.0) as u64))
                .unwrap_or(0);
            lag.saturating_record(age.max(1));
            std::thread::sleep(Duration::from_millis(5));
        }
        for v in voters {
            v.join().expect("a voter panicked")?;
        }
        stop.store(true, Ordering::Relaxed);
        Ok(lag)
    })?;
    let elapsed = t0.elapsed().as_secs_f64();
    let slowlog: Vec<redis::Value> = redis::cmd("SLOWLOG")
        .arg("GET")
        .arg(100_000)
        .query(&mut con)?;
    let slowest = slowlog
        .iter()
        .filter_map(|e| match e {
            redis::Value::Array(fields) => match fields.get(2) {
                Some(redis::Value::Int(us)) => Some(*us as u64),
                _ => None,
            },
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let buffered = mode == Mode::Buffered;
    Ok(LoadRow {
        mode: mode_name(mode),
        connections: CONNECTIONS,
        seconds: elapsed,
        votes_per_sec: sent.load(Ordering::Relaxed) as f64 / elapsed,
        lag_p50_ms: if buffered {
            lag.value_at_quantile(0.5)
        } else {
            0
        },
        lag_p99_ms: if buffered {
            lag.value_at_quantile(0.99)
        } else {
            0
        },
        lag_max_ms: if buffered { lag.max() } else { 0 },
        slowest_call_us: slowest,
    })
}

fn server_ms(con: &mut Connection) -> Result<u64> {
    let (s, us): (u64, u64) = redis::cmd("TIME").query(con)?;
    Ok(s * 1000 + us / 1000)
}

/// The users whose rate-limit counters the memory row divides: enough
/// that the 1,024 bucket keys of 4 rules (about 130 B each, whatever the
/// users) are not what it measures (at 1,000 users they are most of it).
const RATE_LIMITED_USERS: u64 = 20_000;

/// MEMORY USAGE of a vote id's record (a 12-byte user, one pair) in each
/// mode, and of the rate-limit counters of [`RATE_LIMITED_USERS`] users
/// with 4 rules, a user.
fn memory() -> Result<Vec<MemoryRow>> {
    let mut rows = Vec::new();
    for mode in [Mode::Immediate, Mode::Buffered] {
        let (_server, mut con, c) = fresh(mode, 100, Ties::Competition, 0)?;
        let voter = redvote::Voter::new("user:0000001").id("vote-000000000001");
        c.vote_by(&voter, &[("stars", "o1")]).run(&mut con)?;
        let bytes: u64 = redis::cmd("MEMORY")
            .arg("USAGE")
            .arg(format!("{}vid:vote-000000000001", c.namespace()))
            .query(&mut con)?;
        rows.push(MemoryRow {
            what: if mode == Mode::Buffered {
                "a vote id, buffered"
            } else {
                "a vote id, immediate"
            },
            bytes,
        });
    }
    let (_server, mut con, c) = fresh(Mode::Buffered, 100, Ties::Competition, 4)?;
    for start in (0..RATE_LIMITED_USERS).step_by(1000) {
        let mut pipe = redis::pipe();
        for i in start..(start + 1000).min(RATE_LIMITED_USERS) {
            let o = option(i, 100);
            c.vote(&format!("user:{i:07}"), &[("stars", o.as_str())])
                .add_to(&mut pipe);
        }
        pipe.query::<redis::Value>(&mut con)?;
    }
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{}rl*", c.namespace()))
        .query(&mut con)?;
    let mut total = 0u64;
    for key in keys {
        let n: u64 = redis::cmd("MEMORY")
            .arg("USAGE")
            .arg(&key)
            .query(&mut con)?;
        total += n;
    }
    rows.push(MemoryRow {
        what: "a rate-limited user, 4 rules, of 20,000",
        bytes: total / RATE_LIMITED_USERS,
    });
    Ok(rows)
}

fn today() -> String {
    let out = std::process::Command::new("date")
        .arg("-u")
        .arg("+%Y-%m-%d")
        .output();
    out.ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown-date".into())
}

/// The report as the markdown tables docs/benchmark.md shows.
pub(super) fn tables(r: &HotReport) -> String {
    let mut out = format!("Run of {} on Redis {}.\n\n", r.date, r.redis);
    out += "| vote | options | ties | rules | vote id | server CPU a vote | vs seed pipelined |\n";
    out += "| --- | --- | --- | --- | --- | --- | --- |\n";
    for row in &r.cpu {
        out += &format!(
            "| {} | {} | {} | {} | {} | {:.1} us | {:.2}x |\n",
            row.what,
            row.options,
            row.ties,
            row.rules,
            if row.vote_id { "yes" } else { "no" },
            row.server_us,
            row.vs_seed
        );
    }
    out += "\n| mode | connections | votes/s | fold lag p50 / p99 / max | slowest call |\n";
    out += "| --- | --- | --- | --- | --- |\n";
    for row in &r.load {
        let lag = if row.mode == "buffered" {
            format!(
                "{} / {} / {} ms",
                row.lag_p50_ms, row.lag_p99_ms, row.lag_max_ms
            )
        } else {
            "-".into()
        };
        out += &format!(
            "| {} | {} | {:.0} | {} | {:.2} ms |\n",
            row.mode,
            row.connections,
            row.votes_per_sec,
            lag,
            row.slowest_call_us as f64 / 1000.0
        );
    }
    out += "\n| memory | bytes |\n| --- | --- |\n";
    for row in &r.memory {
        out += &format!("| {} | {} |\n", row.what, row.bytes);
    }
    out
}

/// Write the run folder `runs/DATE-hot/` (hot.json, table.md) under the
/// bench crate; returns its path.
pub(super) fn save(r: &HotReport) -> Result<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("runs")
        .join(format!("{}-hot", r.date));
    std::fs::create_dir_all(&dir)?;
    std::fs::write(
        dir.join("hot.json"),
        serde_json::to_string_pretty(r)? + "\n",
    )?;
    std::fs::write(dir.join("table.md"), tables(r))?;
    Ok(dir)
}
