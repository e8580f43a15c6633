//! The redvote benchmark: redvote's one-call operations against the seeds'
//! client-side flow, on one Redis server, side by side, every scenario
//! interleaved in rounds and its results checked afterwards. A `cargo bench`
//! target of its own (`harness = false`), kept out of the `redvote` binary.
//!
//! ```text
//! cargo bench -p redvote-bench                  # the full run (a few minutes)
//! cargo bench -p redvote-bench -- --help        # every option
//! cargo test -p redvote-bench                   # the smoke run (seconds; see smoke.rs)
//! ```
//!
//! What runs, the RTT model, the checks, the JSON report (the rows and the
//! ratios, in order) and the measured figures: docs/benchmark.md, the one
//! place for them.
//!
//! This file holds the options, `main`, `run` and the round scheduler
//! (`Bench`: setup, the interleaved rounds, each scenario's connections and
//! tasks, the cleanup); the rest is in modules named for what they hold:
//! `scenario`, `article`, `campaign`, `limits`, `ceiling`, `scaling`,
//! `checks`, `measure`, `report`, `serve`, `cluster`, `replicas`, `scale`,
//! `smoke`.

mod article;
mod campaign;
mod ceiling;
mod checks;
mod cluster;
mod hot;
mod ir;
mod limits;
mod measure;
mod replicas;
mod report;
mod scale;
mod scaling;
mod scenario;
mod serve;
mod smoke;

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use clap::Parser;
use redis::aio::MultiplexedConnection;
use redis::Commands;
use redvote::Site;
use redvote_testing::seed::VOTE_SCORE;
use redvote_testing::TempServer;

use campaign::{
    CampaignNames, CAMPAIGN_BOARD, CAMPAIGN_CARRY, CAMPAIGN_OFFSET, CAMPAIGN_OPTIONS,
    CAMPAIGN_WEIGHT, PERIODS, SEED_WRITES,
};
use ceiling::{ceiling_campaign, ceiling_site, Ceiling};
use checks::{scan_keys, CampaignChecks, Checks};
use limits::{
    limit_rules, limits_campaigns, LIMITS_BOARD, LIMITS_CHANNELS, LIMITS_DEVICES, LIMITS_PERIODS,
    LIMITS_TARGET, LIMITS_WEIGHT, LIMIT_RULE_COUNTS,
};
use measure::{command_stats, command_usec, round, server_cpu, Measure, Row};
use report::{
    ratios, redis_version, server_name, write_human, write_scaling, CampaignInfo, LimitsCampaign,
    LimitsInfo, Report,
};
use scaling::{parse_sizes, run_scaling, Scaling, ScalingPlan};
use scenario::{op_async, op_sync, ops_pipelined, Ctx, Flow, Op, Scenario};

/// Benchmark options: the arguments after `--` of `cargo bench --bench
/// redvote -- ...`.
#[derive(Parser, Debug)]
#[command(
    name = "redvote-bench",
    bin_name = "cargo bench -p redvote-bench --",
    about = "Benchmark redvote against the seeds' client-side flow (run without --bench, as \
             `cargo test` does, it is a small smoke test instead)"
)]
pub struct BenchArgs {
    /// Redis URL [default: a throwaway redis-server on a free loopback port]
    #[arg(long, env = "REDVOTE_URL")]
    pub url: Option<String>,
    /// Key prefix of everything the bench writes [default: none on the
    /// throwaway server, redvote-bench: with --url]
    #[arg(long, default_value = "", hide_default_value = true)]
    pub prefix: String,
    /// Machine-readable JSON output: one object on one line
    #[arg(long)]
    pub json: bool,
    /// Also write the JSON object to this file (whatever the output), e.g.
    /// to sum up several runs
    #[arg(long, value_name = "PATH")]
    pub json_file: Option<std::path::PathBuf>,
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
    /// Skip the redis-benchmark ceilings
    #[arg(long)]
    pub no_redis_benchmark: bool,
    /// Full redis-benchmark runs of each ceiling, spread over the rounds
    /// (the ceiling is the median run)
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=10))]
    pub ceiling_runs: u64,
    /// Interleave the scenarios in this many rounds (each runs a slice of
    /// every scenario), so a slow spell of the machine hits all of them; at
    /// most one round per 500 votes
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub rounds: u64,
    /// Board sizes of the scaling section (campaign reads as boards grow),
    /// comma-separated (`1k,100k,1M` works), or `none` [default:
    /// 1000,100000,1000000; 1000,10000 with --quick]
    #[arg(long)]
    pub scaling: Option<String>,
    /// Most calls per scaling cell (one read, one tie rule, one size)
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub scaling_calls: u64,
    /// A scaling cell stops repeating its call once it has run this long
    /// (ms), after at least one call
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub scaling_budget_ms: u64,
    /// Skip a scaling cell whose single call, scaled linearly from the size
    /// before, would take longer than this (ms; 0: never skip)
    #[arg(long, default_value_t = 5000)]
    pub scaling_skip_ms: u64,
    /// Run the scaling section only
    #[arg(long)]
    pub scaling_only: bool,
    /// The section to run alone: `scale` (the same as --scale-only), `ir`
    /// (server instructions a call under callgrind, against their target
    /// ratios; ir.rs), or `ir-settings` (no server: the settings the `ir`
    /// rows configure, as JSON, which tools/vote_phases.sh reads), or `hot`
    /// (buffered campaigns against immediate ones and the seed; hot.rs)
    #[arg(value_parser = ["scale", "ir", "ir-settings", "hot"])]
    pub section: Option<String>,
    /// Ir section: calls a side of each row
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(2..=100_000))]
    pub ir_calls: u64,
    /// Run the scale section only (the large data set on a throwaway
    /// server, every operation against the 5 ms bound; scale.rs)
    #[arg(long)]
    pub scale_only: bool,
    /// Scale section: articles posted
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub scale_articles: u64,
    /// Scale section: articles in the one group (at most --scale-articles)
    #[arg(long, default_value_t = 300_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub scale_group: u64,
    /// Scale section: options of each tie rule's board
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(100..=10_000_000))]
    pub scale_options: u64,
    /// Scale section: hours voted on the periods board (one vote an hour)
    #[arg(long, default_value_t = 8760, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub scale_hours: u64,
    /// Scale section: rate-limited users (one vote each)
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub scale_users: u64,
    /// Scale section: calls of each cheap operation (the slow and
    /// destructive ones make a tenth, at least 1)
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub scale_calls: u64,
    /// Scale section: also count each operation's server instructions (Ir)
    /// on copies of the data set loaded under callgrind (valgrind
    /// required; tens of minutes more at the default sizes)
    #[arg(long)]
    pub scale_ir: bool,
    /// Votes of each run of the cluster section (campaign votes through
    /// `redis+cluster://` on 1 master, then 3 masters; 0: skip it; not in
    /// the `--json` object) [default: 20000, 2000 with --quick]
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=10_000_000))]
    pub cluster_votes: Option<u64>,
    /// Campaigns the cluster section's votes are spread over
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub cluster_campaigns: u64,
    /// Run the cluster section only
    #[arg(long)]
    pub cluster_only: bool,
    /// Votes of each mode in each round of the replicas section (campaign
    /// votes on a master with one replica, without and with
    /// wait_for_replicas; 0: skip it; not in the `--json` object)
    /// [default: 10000, 1000 with --quick]
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=10_000_000))]
    pub replica_votes: Option<u64>,
    /// Alternated rounds of the replicas section
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=100))]
    pub replica_rounds: u64,
    /// Connections of the replicas section's spread row
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(2..=1000))]
    pub replica_connections: u64,
    /// Run the replicas section only
    #[arg(long)]
    pub replicas_only: bool,
    /// Passed by `cargo bench`: run the benchmark (without it, the binary
    /// runs the smoke test)
    #[arg(long, hide = true)]
    pub bench: bool,
}

/// Prefix used with `--url` when `--prefix` is empty (never the seeds' keys).
const URL_PREFIX: &str = "redvote-bench:";
/// Votes a pipeline of the `pipe16` rows carries (and redis-benchmark -P).
const PIPELINE: u64 = 16;
/// PINGs timed at the start of every round.
const PINGS_PER_ROUND: u64 = 200;
/// A reply slower than this fails the bench instead of hanging it.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(30);

/// `cargo bench` passes `--bench`: the benchmark, its options parsed from the
/// command line. Without it (`cargo test`): the smoke test.
fn main() -> ExitCode {
    if !std::env::args_os().skip(1).any(|a| a == "--bench") {
        return smoke::main();
    }
    let args = BenchArgs::parse();
    let done = if args.scale_only || args.section.as_deref() == Some("scale") {
        scale_section(&args)
    } else if args.section.as_deref() == Some("ir") {
        ir_section(&args)
    } else if args.section.as_deref() == Some("hot") {
        hot_section(&args)
    } else if args.section.as_deref() == Some("ir-settings") {
        ir_settings()
    } else if args.scaling_only {
        scaling_only(&args)
    } else if args.cluster_only {
        cluster_section(&args)
    } else if args.replicas_only {
        replicas_section(&args)
    } else {
        run(&args)
            .and_then(|report| print_report(&args, &report))
            .and_then(|()| match args.json {
                true => Ok(()),
                false => cluster_section(&args).and_then(|()| replicas_section(&args)),
            })
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("redvote bench: {}", one_line(&err));
            ExitCode::FAILURE
        }
    }
}

/// The JSON object (one line) with `--json`, else the table and ratios;
/// the JSON object to `--json-file` too.
fn print_report(args: &BenchArgs, report: &Report) -> Result<()> {
    if let Some(path) = &args.json_file {
        std::fs::write(path, serde_json::to_string(report)? + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string(report)?)?;
    } else {
        write_human(&mut out, report)?;
    }
    out.flush()?;
    Ok(())
}

/// The scale section alone (`scale` or `--scale-only`): the JSON object
/// `{"scale": ...}` or its table.
fn scale_section(args: &BenchArgs) -> Result<()> {
    let plan = scale::ScalePlan {
        articles: args.scale_articles,
        group: args.scale_group.min(args.scale_articles),
        options: args.scale_options,
        hours: args.scale_hours,
        users: args.scale_users,
        calls: args.scale_calls,
        ir: args.scale_ir,
    };
    let scale = scale::run_scale(&plan).context("the scale section")?;
    let json = serde_json::json!({ "scale": serde_json::to_value(&scale)? });
    if let Some(path) = &args.json_file {
        std::fs::write(path, format!("{json}\n"))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{json}")?;
    } else {
        scale::write_scale(&mut out, &scale)?;
    }
    out.flush()?;
    Ok(())
}

/// The server-instructions section alone (`ir`): the JSON object
/// `{"ir": ...}` or its table.
fn ir_section(args: &BenchArgs) -> Result<()> {
    let ir = ir::run_ir(args.ir_calls).context("the ir section")?;
    let json = serde_json::json!({ "ir": serde_json::to_value(&ir)? });
    if let Some(path) = &args.json_file {
        std::fs::write(path, format!("{json}\n"))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{json}")?;
    } else {
        ir::write_ir(&mut out, &ir)?;
    }
    out.flush()?;
    Ok(())
}

/// The hot-campaign section alone (`hot`): buffered against immediate and
/// the seed (hot.rs); its tables, and the run saved in `runs/DATE-hot/`.
fn hot_section(args: &BenchArgs) -> Result<()> {
    let votes = args.ops.unwrap_or(if args.quick { 2000 } else { 20_000 });
    let seconds = if args.quick { 3.0 } else { 10.0 };
    let report = hot::run_hot(votes, seconds).context("the hot section")?;
    let dir = hot::save(&report)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string(&report)?)?;
    } else {
        write!(out, "{}", hot::tables(&report))?;
        writeln!(out, "\nsaved in {}", dir.display())?;
    }
    out.flush()?;
    Ok(())
}

/// `ir-settings`: the settings the `ir` section's rows configure, as one
/// JSON object on one line (`ir::IrSettings`).
fn ir_settings() -> Result<()> {
    let options = campaign::CampaignNames::new("").options;
    let json = serde_json::to_string(&ir::IrSettings::new(&options))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{json}")?;
    out.flush()?;
    Ok(())
}

/// `--scaling-only`: the scaling section alone, as the JSON object
/// `{"scaling": ...}` or its table.
fn scaling_only(args: &BenchArgs) -> Result<()> {
    let plan = scaling_plan(args)?;
    let prefix = if args.url.is_some() && args.prefix.is_empty() {
        URL_PREFIX
    } else {
        &args.prefix
    };
    let scaling = run_scaling(prefix, &plan)?;
    let json = serde_json::json!({ "scaling": serde_json::to_value(&scaling)? });
    if let Some(path) = &args.json_file {
        std::fs::write(path, format!("{json}\n"))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{json}")?;
    } else {
        write_scaling(&mut out, &scaling)?;
    }
    out.flush()?;
    Ok(())
}

/// The replicas section (its own throwaway master and replica, whatever
/// `--url` says): its table, or with `--json` the object
/// `{"replicas": [...]}`.
fn replicas_section(args: &BenchArgs) -> Result<()> {
    let votes = args
        .replica_votes
        .unwrap_or(if args.quick { 1000 } else { 10_000 });
    if votes == 0 {
        return Ok(());
    }
    let plan = replicas::ReplicaPlan {
        tasks: args.tasks,
        votes,
        rounds: args.replica_rounds,
        connections: args.replica_connections as usize,
    };
    let rows = replicas::run_replicas(&plan).context("the replicas section")?;
    print_section(args, "replicas", &rows, |out, rows| {
        replicas::write_replicas(out, rows)
    })
}

/// A section printed after the table: with `--json` the object
/// `{"NAME": [rows]}`, else the table `table` writes.
fn print_section<R: serde::Serialize>(
    args: &BenchArgs,
    name: &str,
    rows: &[R],
    table: impl FnOnce(&mut std::io::StdoutLock<'static>, &[R]) -> Result<()>,
) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::json!({ name: rows }))?;
    } else {
        table(&mut out, rows)?;
    }
    out.flush()?;
    Ok(())
}

/// The cluster section (its own throwaway clusters, whatever `--url`
/// says): its table, or with `--json` the object `{"cluster": [...]}`.
fn cluster_section(args: &BenchArgs) -> Result<()> {
    let votes = args
        .cluster_votes
        .unwrap_or(if args.quick { 2000 } else { 20_000 });
    if votes == 0 {
        return Ok(());
    }
    let plan = cluster::ClusterPlan {
        masters: vec![1, 3],
        campaigns: args.cluster_campaigns as usize,
        tasks: args.tasks,
        votes,
    };
    let rows = cluster::run_cluster(&plan).context("the cluster section")?;
    print_section(args, "cluster", &rows, |out, rows| {
        cluster::write_cluster(out, rows)
    })
}

/// The scaling section's sizes and limits from the options.
fn scaling_plan(args: &BenchArgs) -> Result<ScalingPlan> {
    let sizes = match &args.scaling {
        Some(text) => parse_sizes(text).context("--scaling")?,
        None if args.quick => vec![1000, 10_000],
        None => vec![1000, 100_000, 1_000_000],
    };
    Ok(ScalingPlan {
        sizes,
        calls: args.scaling_calls,
        budget: Duration::from_millis(args.scaling_budget_ms),
        skip_over: Duration::from_millis(args.scaling_skip_ms),
    })
}

/// The error and its causes on one line (anyhow's `{:#}`).
fn one_line(err: &anyhow::Error) -> String {
    format!("{err:#}").replace('\n', " ")
}

/// A sync connection, with an error that names the URL.
fn connect(url: &str) -> Result<redis::Connection> {
    redis::Client::open(url)
        .and_then(|c| c.get_connection())
        .with_context(|| format!("cannot connect to Redis at {url}"))
}

/// Run every scenario against one server (throwaway unless `--url`), check
/// the data, and return the report (the table and ratios, or the JSON object).
fn run(args: &BenchArgs) -> Result<Report> {
    let started = Instant::now();
    let ops = args.ops.unwrap_or(if args.quick { 1000 } else { 20_000 });
    let pages = args.pages.unwrap_or((ops / 10).max(1));
    let campaign_ops = args.campaign_ops.unwrap_or((ops / 4).max(1));
    let limits_ops = args.limits_ops.unwrap_or((ops / 4).max(1));
    let tasks = args.tasks as usize;
    // Slices of at least 500 votes: smaller ones measure little but noise.
    let rounds = args.rounds.min(ops / 500).max(1);

    // One server for the whole run; a throwaway one lives until `run` returns.
    let temp = match args.url {
        None => Some(TempServer::start().context("cannot start a throwaway redis-server")?),
        Some(_) => None,
    };
    let url = match (&temp, &args.url) {
        (Some(server), _) => server.url(),
        (None, Some(url)) => url.clone(),
        (None, None) => unreachable!("a throwaway server is started when there is no URL"),
    };
    let client =
        redis::Client::open(url.as_str()).with_context(|| format!("invalid Redis URL {url}"))?;
    let mut admin = connect(&url)?;

    let prefix = match (&temp, args.prefix.is_empty()) {
        (None, true) => URL_PREFIX.to_string(),
        _ => args.prefix.clone(),
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
        for c in limits.iter().chain([&ceiling_campaign(&prefix)]) {
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
        campaign_id_votes: 0,
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
    let (mut rows, ceilings, checks) = result?;
    // The serve section: HTTP against the library, on the same server.
    let serve_ops = campaign_ops;
    let serve = serve::run_serve(
        &url,
        serve_ops,
        tasks,
        args.rounds.min(serve_ops / 500).max(1),
        args.threads as usize,
    )
    .context("the serve section")?;
    // The scaling section, on a throwaway server of its own.
    let scaling_plan = scaling_plan(args)?;
    let scaling = if scaling_plan.sizes.is_empty() {
        Scaling::skipped("--scaling none", &scaling_plan)
    } else {
        run_scaling(&prefix, &scaling_plan)?
    };
    let ping_p50_us = bench.pings.hist.value_at_quantile(0.5);

    // The model's client time of the 1-connection rows, from the RTT.
    for row in &mut rows {
        row.set_client(ping_p50_us as f64);
    }
    let ratios = ratios(&rows, &ceilings);
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
        ceilings,
        ratios,
        checks,
        serve,
        scaling,
    };
    Ok(report)
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

/// The round after which the ceilings' run `run` (of `runs`) is made:
/// evenly apart over the rounds, never after the last.
fn ceiling_due(run: usize, runs: usize, rounds: u64) -> u64 {
    ((run as u64 + 1) * rounds / (runs as u64 + 1)).min(rounds - 1)
}

/// The order of the scenarios in round `round`: as listed, except that the
/// members of each rotation group (`Scenario::rotation_group`: the rate-limit
/// campaigns at the same connections; the redvote campaign vote without and
/// with a vote id at the same connections) trade places, rotated by one
/// every round, so none of them always runs first or last, or right after
/// the same other scenario.
fn round_order(scenarios: &[Scenario], round: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scenarios.len()).collect();
    let mut placed = vec![false; scenarios.len()];
    for i in 0..scenarios.len() {
        let Some(group) = scenarios[i].rotation_group() else {
            continue;
        };
        if placed[i] {
            continue;
        }
        // The group's places, in the listed order; member k of the group
        // runs at place k - round (mod its size).
        let places: Vec<usize> = (i..scenarios.len())
            .filter(|&j| scenarios[j].rotation_group() == Some(group))
            .collect();
        let n = places.len();
        for (k, &place) in places.iter().enumerate() {
            order[place] = places[(k + round as usize) % n];
            placed[place] = true;
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
    /// Campaign votes cast by each side: [redvote, seed] (redvote's include
    /// the votes with a vote id).
    campaign_votes: [u64; 2],
    /// Campaign votes cast with a vote id (each recorded at `<ns>vid:<id>`).
    campaign_id_votes: u64,
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
    ) -> Result<(Vec<Row>, Vec<Ceiling>, Checks)> {
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
            pipeline: 1,
            one_article: false,
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
            pipeline: 1,
            one_article: false,
            suffix: "1",
        };
        // One sync connection, the ops sent PIPELINE at a time in one
        // pipeline: a backend draining a queue.
        let piped = |op, ops| Scenario {
            pipeline: PIPELINE,
            suffix: "pipe16",
            ..one(op, Flow::Redvote, ops)
        };
        let shared = !args.dedicated;
        let (plain, with_id) = (
            Op::Campaign { vote_id: false },
            Op::Campaign { vote_id: true },
        );
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
            // Like for like with redis-benchmark -c 1 -P 16.
            piped(Op::Vote, ops),
            // The same on one article, as redis-benchmark votes.
            Scenario {
                one_article: true,
                suffix: "pipe16_hot",
                ..piped(Op::Vote, ops)
            },
            one(Op::Page, Flow::Seeds, pages),
            one(Op::Page, Flow::Redvote, pages),
            many(Op::Page, Flow::Seeds, shared, pages),
            many(Op::Page, Flow::Redvote, shared, pages),
            // The campaign section: the seed's 16 commands one after the
            // other, then all at once on one multiplexed connection, ...
            one(plain, Flow::SeedsSequential, campaign_ops),
            Scenario {
                async_con: true,
                ..one(plain, Flow::Seeds, campaign_ops)
            },
            many(plain, Flow::Seeds, shared, campaign_ops),
            // ... against one EVALSHA, ...
            one(plain, Flow::Redvote, campaign_ops),
            many(plain, Flow::Redvote, shared, campaign_ops),
            Scenario {
                suffix: "own",
                ..many(plain, Flow::Redvote, false, campaign_ops)
            },
            piped(plain, campaign_ops),
            // ... and the same EVALSHA on the same campaign with a new vote
            // id on every vote: what recording the id costs (each trades
            // places with its plain twin every round).
            one(with_id, Flow::Redvote, campaign_ops),
            many(with_id, Flow::Redvote, shared, campaign_ops),
            // The rate-limit section: the same vote with 0, 4 and 8 rules
            // (each group of three runs in a rotated order every round).
            one(Op::Limits(0), Flow::Redvote, limits_ops),
            one(Op::Limits(1), Flow::Redvote, limits_ops),
            one(Op::Limits(2), Flow::Redvote, limits_ops),
            many(Op::Limits(0), Flow::Redvote, shared, limits_ops),
            many(Op::Limits(1), Flow::Redvote, shared, limits_ops),
            many(Op::Limits(2), Flow::Redvote, shared, limits_ops),
        ];

        // The ceilings: redis-benchmark on the same scripts, full runs
        // spread over the rounds.
        let ceiling_runs = args.ceiling_runs as usize;
        let mut ceiling_plans = if args.no_redis_benchmark {
            Err("--no-redis-benchmark".to_string())
        } else {
            self.ceiling_setup(tasks, ops, campaign_ops, ceiling_runs, temp)?
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
                let stats_before = command_stats(&mut self.admin)?;
                let mut m = match &mut cons[k] {
                    Cons::Tasks(tasks) => {
                        runtime.block_on(self.run_tasks(tasks, *s, bases[k], lo, hi))
                    }
                    Cons::Sync(con) => self.run_sequential(con, *s, bases[k], lo, hi),
                }
                .with_context(|| format!("scenario {} (round {})", s.id(), round + 1))?;
                let stats_after = command_stats(&mut self.admin)?;
                let cpu_after = server_cpu(&mut self.admin)?;
                m.server_cpu = cpu_before.zip(cpu_after).map(|(b, a)| (a - b).max(0.0));
                m.server_cmd_us = command_usec(&stats_before, &stats_after, s.top_commands());
                match s.op {
                    Op::Vote => {
                        self.votes_cast += hi - lo;
                        self.check(&format!("{} (round {})", s.id(), round + 1))?;
                    }
                    Op::Campaign { vote_id } => {
                        let side = usize::from(s.flow != Flow::Redvote);
                        self.campaign_votes[side] += hi - lo;
                        if vote_id {
                            self.campaign_id_votes += hi - lo;
                        }
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
            // The ceilings' full runs due after this round: run j of each
            // after round (j + 1) x rounds / (runs + 1), the last after the
            // last round at the latest.
            if let Ok(plans) = &mut ceiling_plans {
                for plan in plans.iter_mut() {
                    while plan.runs_made() < ceiling_runs
                        && ceiling_due(plan.runs_made(), ceiling_runs, rounds) <= round
                    {
                        self.ceiling_run(plan, url)
                            .with_context(|| format!("after round {}", round + 1))?;
                    }
                }
            }
        }
        let ceilings = match ceiling_plans {
            Ok(plans) => plans.iter().map(|plan| plan.summary()).collect(),
            Err(reason) => Ceiling::all_skipped(&reason, tasks, ops, campaign_ops),
        };
        let rows = scenarios
            .iter()
            .zip(totals)
            .map(|(s, m)| Row::new(s, &self.ctx, m))
            .collect();
        self.check_pages_agree()?;
        let campaign = CampaignChecks {
            redvote: self.check_campaign(0)?,
            seed: self.check_campaign(1)?,
            vote_ids: self.check_vote_ids(temp.is_some())?,
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
        Ok((rows, ceilings, checks))
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
        if s.pipeline > 1 {
            // Every vote of a pipeline waits for the whole pipeline: each
            // records its time.
            let mut i = lo;
            while i < hi {
                let end = (i + s.pipeline).min(hi);
                let inputs: Vec<_> = (i..end).map(|k| ctx.input(base, k)).collect();
                let t = Instant::now();
                m.retries += ops_pipelined(ctx, con, s, &inputs)?;
                let took = t.elapsed();
                for _ in i..end {
                    m.record(took);
                }
                i = end;
            }
            m.elapsed = start.elapsed();
            return Ok(m);
        }
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
        namespaces.push(ceiling_campaign(&prefix).namespace().to_string());
        for ns in namespaces {
            keys.extend(scan_keys(&mut self.admin, &ns)?);
        }
        for chunk in keys.chunks(1000) {
            redis::cmd("UNLINK").arg(chunk).exec(&mut self.admin)?;
        }
        Ok(())
    }
}
