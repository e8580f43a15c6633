//! The smoke test: what the binary does when run without `--bench`, i.e. by
//! `cargo test` (`test = true` on the `[[bench]]`, the criterion convention).
//!
//! Every scenario runs, on a throwaway server (`REDVOTE_URL` is ignored), at
//! the size of `--ops 200`: 200 votes, 20 page reads, 50 campaign votes and
//! 50 rate-limited votes per scenario, in one round, the ceilings' 200 (or
//! 208, whole pipelines) and 64 requests when `redis-benchmark` is on PATH,
//! and the scaling section on boards of 100 and 1000 options, 3 calls a
//! cell. The bench's own consistency checks run as in a full run (any
//! failure is an error, a wrong read of a scaling board among them); then
//! the report must be complete:
//!
//! * `checks.ok`, and the checks' counts agree with the rows: the votes found
//!   are the posts plus the vote rows' ops, each campaign side's and each
//!   rate-limit campaign's votes are its rows' ops (redvote's include the
//!   votes with a vote id); the vote ids' votes and `vid:` records are the
//!   `vote_id` rows' ops, one was replayed, and the DEBUG digests were
//!   compared (the server is a throwaway one);
//! * every row of the module doc, in order, each with all its ops run,
//!   `ops_per_sec > 0` and `p99_us >= p50_us`;
//! * every ratio of the module doc, in order (among them the ones the README
//!   reports), each with a value, except the ones over redis-benchmark when
//!   it did not run (then the ceiling's `skipped` says why) and the
//!   server-CPU ones (INFO cpu can round a tiny slice to nothing); the
//!   ratios of two 1-connection rows each with its 3 projections, the
//!   others with none;
//! * the three ceilings, each run 3 times with its requests, a rate and
//!   server time, or skipped with a reason;
//! * the model's parts: a PING round trip, every row's server and wall time
//!   per op, the client time on exactly the 1-connection rows;
//! * the scaling section: run, its 8 boards built, its 32 cells (4 reads x
//!   4 tie rules x 2 sizes) measured (none skipped), its 29 targets
//!   evaluated;
//! * the serve section: run (the service in-process, `redvote_serve`), its
//!   HTTP and library sides each with the campaign section's 50 votes, a
//!   rate, p50/p99 and the ratio, both sides' 100 votes found on the board;
//! * the text report names every row and every ratio, prints the eight
//!   `checks: OK` lines, the model, the serve lines and the scaling table;
//! * the ir section (4 calls a side) has its 6 rows, first ties at both
//!   board sizes and the campaign vote's floor (more commands than the
//!   seed's 16, below the vote itself), and `tools/vote_phases.sh markers` finds every line of the
//!   vote it cuts its copies at;
//! * the hot section (40 votes a row, 0.3 s loads): every CPU, load and
//!   memory row measured.
//!
//! The figures themselves are not asserted (a 200-vote run on a shared
//! machine measures noise). Failures go to stderr, with the text report, and
//! the exit code is 1.
//!
//! libtest's arguments, which `cargo test` forwards, are honoured as far as
//! they concern the one test, `bench_smoke`: `--list` lists it, a name filter
//! it does not match (`--exact`: equal to), `--skip` of a part of its name or
//! `--ignored` skip it; the other options are accepted and ignored.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Parser;
use serde_json::Value;

use super::report::write_human;
use super::{one_line, run, BenchArgs};

/// The test's name, for libtest's `--list` and filters.
const NAME: &str = "bench_smoke";

/// The smoke run's options: `--ops 200`, on a throwaway server, and the
/// scaling section on boards of 100 and 1000 options, 3 calls a cell.
const SMOKE_ARGS: [&str; 7] = [
    "redvote-bench-smoke",
    "--ops",
    "200",
    "--scaling",
    "100,1000",
    "--scaling-calls",
    "3",
];

/// Every row, in the report's order (the module doc's list).
const ROW_IDS: [&str; 28] = [
    "vote_seeds_1",
    "vote_seeds_tasks",
    "vote_watch_1",
    "vote_watch_tasks",
    "vote_redvote_1",
    "vote_redvote_tasks",
    "vote_redvote_own",
    "vote_redvote_pipe16",
    "vote_redvote_pipe16_hot",
    "page_seeds_1",
    "page_redvote_1",
    "page_seeds_tasks",
    "page_redvote_tasks",
    "campaign_seeds_sequential_1",
    "campaign_seeds_1",
    "campaign_seeds_tasks",
    "campaign_redvote_1",
    "campaign_redvote_tasks",
    "campaign_redvote_own",
    "campaign_redvote_pipe16",
    "campaign_redvote_id_1",
    "campaign_redvote_id_tasks",
    "limits_rules0_1",
    "limits_rules4_1",
    "limits_rules8_1",
    "limits_rules0_tasks",
    "limits_rules4_tasks",
    "limits_rules8_tasks",
];

/// Every ratio, in the report's order (the module doc's list).
const RATIO_IDS: [&str; 24] = [
    "vote_redvote_over_seeds_1",
    "vote_redvote_over_watch_1",
    "vote_redvote_over_seeds_tasks",
    "vote_redvote_over_watch_tasks",
    "page_redvote_over_seeds_1",
    "page_redvote_over_seeds_tasks",
    "vote_redvote_tasks_over_redis_benchmark",
    "vote_redvote_own_over_redis_benchmark",
    "vote_redvote_pipe16_over_redis_benchmark_p16",
    "vote_redvote_pipe16_hot_over_redis_benchmark_p16",
    "vote_redvote_pipe16_over_1",
    "campaign_redvote_over_seeds_1",
    "campaign_redvote_over_seeds_sequential_1",
    "campaign_redvote_over_seeds_tasks",
    "campaign_redvote_pipe16_over_redis_benchmark_p16",
    "campaign_id_over_plain_1",
    "campaign_id_over_plain_tasks",
    "campaign_id_over_plain_server_cpu",
    "limits_4_over_0_1",
    "limits_8_over_0_1",
    "limits_4_over_0_tasks",
    "limits_8_over_0_tasks",
    "limits_4_over_0_server_cpu",
    "limits_8_over_0_server_cpu",
];

/// The 1-connection ratios, which carry the model's projections.
const PROJECTED_IDS: [&str; 8] = [
    "vote_redvote_over_seeds_1",
    "vote_redvote_over_watch_1",
    "page_redvote_over_seeds_1",
    "campaign_redvote_over_seeds_1",
    "campaign_redvote_over_seeds_sequential_1",
    "campaign_id_over_plain_1",
    "limits_4_over_0_1",
    "limits_8_over_0_1",
];

/// The scaling section's sizes in the smoke run (`SMOKE_ARGS`).
const SCALING_SIZES: [u64; 2] = [100, 1000];

/// Run the smoke test (or list it, or skip it, as libtest's arguments say).
pub(super) fn main() -> ExitCode {
    let args = TestArgs::parse(
        std::env::args_os()
            .skip(1)
            .map(|a| a.to_string_lossy().into()),
    );
    if args.help {
        println!(
            "Without --bench (as `cargo test` runs it) this binary is the benchmark's smoke \
             test, `{NAME}`: every scenario at --ops 200 on a throwaway server and the scaling \
             section at 100 and 1000 options, the report and its checks asserted.\nThe benchmark itself: cargo bench -p redvote-bench -- \
             --help"
        );
        return ExitCode::SUCCESS;
    }
    if args.list {
        if !args.ignored_only {
            println!("{NAME}: test");
        }
        return ExitCode::SUCCESS;
    }
    if !args.selects(NAME) {
        println!("{NAME}: filtered out");
        return ExitCode::SUCCESS;
    }
    let started = Instant::now();
    println!(
        "{NAME}: every scenario at --ops 200 on a throwaway server, scaling at 100 and 1000 ..."
    );
    match smoke() {
        Ok(summary) => {
            println!(
                "{NAME}: ok: {summary} ({:.1} s)",
                started.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("{NAME}: FAILED: {}", one_line(&err));
            ExitCode::FAILURE
        }
    }
}

/// The small run and its assertions; a one-line summary when they pass.
fn smoke() -> Result<String> {
    let mut args = BenchArgs::try_parse_from(SMOKE_ARGS).context("the smoke run's options")?;
    args.url = None; // always a throwaway server, whatever REDVOTE_URL says
    let report = run(&args).context("the bench")?;
    let mut text = Vec::new();
    write_human(&mut text, &report)?;
    let text = String::from_utf8(text).context("the text report is not UTF-8")?;
    let json = serde_json::to_value(&report)?;
    let mut problems = problems(&json, &text);
    // the cluster section, tiny: 1 and 3 masters, 6 campaigns, 40 votes
    let plan = crate::cluster::ClusterPlan {
        masters: vec![1, 3],
        campaigns: 6,
        tasks: 4,
        votes: 40,
    };
    let rows = crate::cluster::run_cluster(&plan).context("the cluster section")?;
    let mut table = Vec::new();
    crate::cluster::write_cluster(&mut table, &rows)?;
    let table = String::from_utf8(table)?;
    if rows.len() != 2
        || rows
            .iter()
            .any(|r| r.votes != 40 || r.votes_per_sec.is_nan() || r.votes_per_sec <= 0.0)
        || !table.contains("cpu us/vote")
    {
        problems.push(format!("the cluster section: {rows:?}\n{table}"));
    }
    // the replicas section, tiny: 3 modes, 2 rounds of 40 votes (it fails
    // by itself if the replica lacks an acknowledged vote)
    let plan = crate::replicas::ReplicaPlan {
        tasks: 4,
        votes: 40,
        rounds: 2,
        connections: 2,
    };
    let rows = crate::replicas::run_replicas(&plan).context("the replicas section")?;
    let mut table = Vec::new();
    crate::replicas::write_replicas(&mut table, &rows)?;
    let table = String::from_utf8(table)?;
    if rows.len() != 3
        || rows.iter().map(|r| r.wait).collect::<Vec<_>>() != [false, true, true]
        || rows.iter().any(|r| {
            r.votes_per_round != 40
                || r.votes_per_sec.is_nan()
                || r.votes_per_sec <= 0.0
                || r.votes_per_sec_min > r.votes_per_sec
                || r.votes_per_sec > r.votes_per_sec_max
        })
        || !table.contains("wait 1, 2 connections")
    {
        problems.push(format!("the replicas section: {rows:?}\n{table}"));
    }
    // the scale section, tiny: every operation runs (3 calls, 1 for the
    // slow ones) on a data set of a few hundred keys
    let plan = crate::scale::ScalePlan {
        articles: 500,
        group: 100,
        options: 1000,
        hours: 24,
        users: 50,
        calls: 3,
        ir: true,
    };
    let scale = crate::scale::run_scale(&plan).context("the scale section")?;
    let mut table = Vec::new();
    crate::scale::write_scale(&mut table, &scale)?;
    let table = String::from_utf8(table)?;
    if scale.ops.len() != crate::scale::SCALE_OPS
        || scale.build.len() != 8
        || scale.period_boards != 2 * 24 + 2
        || scale
            .ops
            .iter()
            .any(|r| r.calls == 0 || r.max_ms < r.p99_ms || r.ir.is_none_or(|ir| ir == 0))
        || !table.contains("ms bound")
    {
        problems.push(format!("the scale section:\n{table}"));
    }
    // the ir section, tiny (under callgrind: valgrind is required, the
    // section fails naming how to install it): every row measured, and
    // first ties at both board sizes, their memory above the floor's and
    // the floor above competition's; the vote's floor below the vote, of
    // more commands than the seed's
    let ir = crate::ir::run_ir(4).context("the ir section")?;
    let mut table = Vec::new();
    crate::ir::write_ir(&mut table, &ir)?;
    let table = String::from_utf8(table)?;
    if ir.rows.len() != 6
        || ir.rows.iter().any(|r| r.ir == 0 || r.against_ir == 0)
        || ir.batch_call_ir == 0
        || ir.first_by_size.len() != 2
        || ir.first_by_size.iter().any(|f| {
            f.competition_ir == 0
                || f.first_ir == 0
                || f.competition_bytes == 0
                || f.floor_bytes <= f.competition_bytes
                || f.first_bytes <= f.floor_bytes
        })
        || ir.vote_floor.commands <= 16.0
        || ir.vote_floor.bare_ir == 0
        || ir.vote_floor.floor_ir >= ir.rows[1].ir
        || !table.contains("| target |")
        || !table.contains("The floor of the campaign vote")
    {
        problems.push(format!("the ir section:\n{table}"));
    }
    // the hot section, tiny: every row measured, the loads voted
    let hot = crate::hot::run_hot(40, 0.3).context("the hot section")?;
    let table = crate::hot::tables(&hot);
    if !hot.complete() || !table.contains("| vs seed pipelined |") {
        problems.push(format!("the hot section:\n{table}"));
    }
    // tools/vote_phases.sh still finds every line of the vote it cuts at
    let tool = concat!(env!("CARGO_MANIFEST_DIR"), "/tools/vote_phases.sh");
    let markers = std::process::Command::new("bash")
        .args([tool, "markers"])
        .output()
        .context("running tools/vote_phases.sh markers")?;
    if !markers.status.success() {
        problems.push(format!(
            "tools/vote_phases.sh markers: {}",
            String::from_utf8_lossy(&markers.stderr)
        ));
    }
    if problems.is_empty() {
        Ok(format!(
            "{} scenarios, {} ratios, 3 ceilings, serve, 32 scaling cells, cluster 1 and 3 \
             masters, replicas (3 modes), scale ({} operations), ir ({} rows, the vote's floor, first ties at {} board sizes), \
             hot ({} rows), vote_phases.sh's markers, checks OK, text report of {} lines",
            ROW_IDS.len(),
            RATIO_IDS.len(),
            scale.ops.len(),
            ir.rows.len(),
            ir.first_by_size.len(),
            hot.rows(),
            text.lines().count()
        ))
    } else {
        eprintln!("{text}");
        for p in &problems {
            eprintln!("{NAME}: {p}");
        }
        anyhow::bail!("{} problem(s) in the report (above)", problems.len())
    }
}

/// What is missing or wrong in the report (`json`, its `--json` object, and
/// `text`, its table): nothing when it is complete.
fn problems(json: &Value, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut want = |ok: bool, what: String| {
        if !ok {
            out.push(what);
        }
    };
    let checks = &json["checks"];
    want(checks["ok"] == true, format!("checks not ok: {checks}"));

    // Rows: all of them, in order, all ops run, measured.
    let rows = json["rows"].as_array().cloned().unwrap_or_default();
    let ids: Vec<&str> = rows.iter().filter_map(|r| r["id"].as_str()).collect();
    want(ids == ROW_IDS, format!("rows {ids:?}, want {ROW_IDS:?}"));
    let sum_ops = |keep: &dyn Fn(&Value) -> bool| -> u64 {
        rows.iter()
            .filter(|r| keep(r))
            .filter_map(|r| r["ops"].as_u64())
            .sum()
    };
    for row in &rows {
        let planned = match row["op"].as_str() {
            Some("vote") => &json["ops"],
            Some("page") => &json["pages"],
            Some("campaign") => &json["campaign"]["ops"],
            Some("limits") => &json["limits"]["ops"],
            _ => &Value::Null,
        };
        want(
            row["ops"].as_u64().is_some() && row["ops"] == *planned,
            format!("row ran {} ops, want {planned}: {row}", row["ops"]),
        );
        let rps = row["ops_per_sec"].as_f64().unwrap_or(0.0);
        want(rps > 0.0, format!("row without throughput: {row}"));
        let (p50, p99) = (row["p50_us"].as_f64(), row["p99_us"].as_f64());
        want(
            matches!((p50, p99), (Some(a), Some(b)) if b >= a),
            format!("row p99 below p50 (or missing): {row}"),
        );
        want(
            row["label"].as_str().is_some_and(|l| text.contains(l)),
            format!("text report lacks row {}", row["label"]),
        );
    }

    // The checks' counts against the rows.
    let is = |op: &'static str| move |r: &Value| r["op"] == op;
    let votes_cast = sum_ops(&is("vote"));
    want(
        checks["votes_cast"] == votes_cast,
        format!(
            "checks.votes_cast {}, vote rows ran {votes_cast}",
            checks["votes_cast"]
        ),
    );
    let found = checks["articles"].as_u64().unwrap_or(0) + votes_cast;
    want(
        checks["votes_found"] == found,
        format!(
            "checks.votes_found {}, want posts + votes = {found}",
            checks["votes_found"]
        ),
    );
    for side in ["redvote", "seed"] {
        let cast =
            sum_ops(&|r| r["op"] == "campaign" && (r["flow"] == "redvote") == (side == "redvote"));
        let got = &checks["campaign"][side]["votes"];
        want(
            *got == cast,
            format!("checks.campaign.{side}.votes {got}, its rows ran {cast}"),
        );
    }
    let with_id = sum_ops(&|r| r["vote_id"] == true);
    let ids = &checks["campaign"]["vote_ids"];
    want(
        with_id > 0 && ids["votes"] == with_id && ids["records"] == with_id,
        format!("checks.campaign.vote_ids {ids}, want votes and records = the id rows' {with_id}"),
    );
    want(
        ids["replay"] == true && ids["replayed"].is_string() && ids["digest_keys"].is_u64(),
        format!("checks.campaign.vote_ids: no replay checked with its digests: {ids}"),
    );
    let limits = checks["limits"].as_array().cloned().unwrap_or_default();
    want(
        limits.len() == 3,
        format!("checks.limits: {limits:?}, want 0, 4, 8 rules"),
    );
    for c in &limits {
        let cast = sum_ops(&|r| r["op"] == "limits" && r["rules"] == c["rules"]);
        want(
            c["votes"] == cast,
            format!(
                "checks.limits {} rules: votes {}, its rows ran {cast}",
                c["rules"], c["votes"]
            ),
        );
    }
    want(
        text.matches("checks: OK").count() == 8,
        "text report lacks a `checks: OK` line (want 8)".to_string(),
    );

    // The ceilings ran, or say why not.
    let ceilings = json["ceilings"].as_array().cloned().unwrap_or_default();
    let ids: Vec<&str> = ceilings.iter().filter_map(|c| c["id"].as_str()).collect();
    want(
        ids == ["vote_tasks", "vote_pipe16", "campaign_pipe16"],
        format!("ceilings {ids:?}"),
    );
    let ran = ceilings.iter().all(|c| c["ran"] == true);
    for c in &ceilings {
        let planned = match c["op"].as_str() {
            Some("campaign") => json["campaign"]["ops"].as_u64(),
            _ => json["ops"].as_u64(),
        }
        .unwrap_or(0);
        let pipeline = c["pipeline"].as_u64().unwrap_or(0).max(1);
        want(
            c["ran"] == true || c["skipped"].is_string(),
            format!("ceiling neither ran nor says why: {c}"),
        );
        want(
            c["ran"] != true
                || (c["requests"] == planned.div_ceil(pipeline) * pipeline
                    && c["runs"] == 3
                    && c["runs_ops_per_sec"].as_array().map_or(0, |r| r.len()) == 3
                    && c["ops_per_sec"].is_number()
                    && c["server_cmd_us_per_op"].is_number()),
            format!(
                "ceiling ran, but not 3 runs of {planned} requests (whole pipelines) with a \
                 rate: {c}"
            ),
        );
    }

    // The model: every 1-connection row has its parts, every 1-connection
    // ratio its projections at the three RTTs.
    want(
        json["ping_p50_us"].as_u64().is_some_and(|p| p > 0),
        "no PING round trip".to_string(),
    );
    for row in &rows {
        let sequential = row["concurrent"] == false && row["pipeline"] == 1;
        want(
            row["server_cmd_us_per_op"].is_number()
                && row["wall_us_per_op"].is_number()
                && row["client_us_per_op"].is_number() == sequential,
            format!("row without the model's parts: {row}"),
        );
    }
    want(
        text.contains("model (1-connection rows"),
        "text report lacks the model".to_string(),
    );

    // Ratios: all of them, in order, each measured unless it cannot be.
    let ratios = json["ratios"].as_array().cloned().unwrap_or_default();
    let ids: Vec<&str> = ratios.iter().filter_map(|r| r["id"].as_str()).collect();
    want(
        ids == RATIO_IDS,
        format!("ratios {ids:?}, want {RATIO_IDS:?}"),
    );
    for r in &ratios {
        let id = r["id"].as_str().unwrap_or_default();
        let optional =
            id.ends_with("_server_cpu") || (id.contains("_over_redis_benchmark") && !ran);
        want(
            optional || r["value"].is_number(),
            format!("ratio without a value: {r}"),
        );
        let projected = r["projected"].as_array().map_or(0, |p| p.len());
        let want_projected = if PROJECTED_IDS.contains(&id) { 3 } else { 0 };
        want(
            projected == want_projected
                && r["projected"]
                    .as_array()
                    .is_none_or(|p| p.iter().all(|x| x["value"].is_number())),
            format!("ratio with {projected} projections, want {want_projected}: {r}"),
        );
        want(
            r["label"].as_str().is_some_and(|l| text.contains(l)),
            format!("text report lacks ratio {}", r["label"]),
        );
    }
    serve_problems(&json["serve"], text, &mut out);
    scaling_problems(&json["scaling"], text, &mut out);
    out
}

/// What is missing or wrong in the serve section: it ran (the service
/// in-process, never skipped), both sides
/// cast the campaign section's 50 votes, with a rate, latencies and a ratio,
/// both sides' votes were found, and the text report prints it.
fn serve_problems(s: &Value, text: &str, out: &mut Vec<String>) {
    let mut want = |ok: bool, what: String| {
        if !ok {
            out.push(what);
        }
    };
    want(
        s["skipped"].is_null(),
        format!("serve did not run: {}", s["skipped"]),
    );
    for side in ["http", "library"] {
        let d = &s[side];
        want(
            d["ops"] == 50
                && d["ops_per_sec"].as_f64().is_some_and(|r| r > 0.0)
                && d["p99_us"].as_u64() >= d["p50_us"].as_u64()
                && d["p50_us"].as_u64().is_some_and(|p| p > 0),
            format!("serve {side} not measured: {d}"),
        );
    }
    want(
        s["ratio"].as_f64().is_some_and(|r| r > 0.0) && s["met"].is_boolean(),
        format!("serve ratio missing: {}", s["ratio"]),
    );
    want(
        s["votes_found"] == 100,
        format!("serve found {} votes, want 100", s["votes_found"]),
    );
    for label in [
        "serve http",
        "serve library",
        "serve ratio, http / library ops/s",
    ] {
        want(
            text.contains(label),
            format!("text report lacks serve's {label:?}"),
        );
    }
}

/// What is missing or wrong in the scaling section: every cell of every
/// read, tie rule and size measured (none skipped at these sizes), every
/// target evaluated, the table printed.
fn scaling_problems(s: &Value, text: &str, out: &mut Vec<String>) {
    let mut want = |ok: bool, what: String| {
        if !ok {
            out.push(what);
        }
    };
    want(
        s["ran"] == true,
        format!("scaling did not run: {}", s["skipped"]),
    );
    want(
        s["sizes"] == serde_json::json!(SCALING_SIZES),
        format!("scaling sizes {}, want {SCALING_SIZES:?}", s["sizes"]),
    );
    let builds = s["builds"].as_array().map_or(0, |b| b.len());
    want(
        builds == 4 * SCALING_SIZES.len(),
        format!("scaling built {builds} boards"),
    );
    // the dense and first boards of every size reindexed from scratch,
    // at least ceil(size / 100) calls each, and printed
    let reindex = s["reindex"].as_array().cloned().unwrap_or_default();
    want(
        reindex.len() == 2 * SCALING_SIZES.len(),
        format!(
            "scaling reindexed {} boards, want {}",
            reindex.len(),
            2 * SCALING_SIZES.len()
        ),
    );
    for r in &reindex {
        let size = r["size"].as_u64().unwrap_or(0);
        want(
            r["calls"].as_u64().is_some_and(|c| c >= size.div_ceil(100))
                && r["max_us"].as_u64() >= r["p50_us"].as_u64()
                && text.contains(&format!(
                    "scaling reindex of the {} board of {size}:",
                    r["ties"].as_str().unwrap_or("?")
                )),
            format!("scaling reindex entry wrong or not printed: {r}"),
        );
    }
    let cells = s["cells"].as_array().cloned().unwrap_or_default();
    want(
        cells.len() == 4 * 4 * SCALING_SIZES.len(),
        format!("scaling has {} cells, want 32", cells.len()),
    );
    for c in &cells {
        let (p50, max) = (c["p50_us"].as_u64(), c["max_us"].as_u64());
        want(
            c["skipped"].is_null()
                && c["calls"].as_u64().is_some_and(|n| n >= 1)
                && c["us_per_call"].is_number()
                && matches!((p50, max), (Some(a), Some(b)) if a <= b),
            format!("scaling cell not measured: {c}"),
        );
    }
    let targets = s["targets"].as_array().cloned().unwrap_or_default();
    want(
        targets.len() == 16 + 12 + 1,
        format!("scaling has {} targets, want 29", targets.len()),
    );
    for t in &targets {
        want(
            t["value"].is_number() && t["pass"].is_boolean(),
            format!("scaling target not evaluated: {t}"),
        );
    }
    for label in [
        "top, middle page",
        "standing, middle member",
        "standing, last member",
        "around, middle member",
        "scaling targets:",
    ] {
        want(
            text.contains(label),
            format!("text report lacks scaling's {label:?}"),
        );
    }
}

/// The libtest arguments that concern the one test.
#[derive(Default)]
struct TestArgs {
    help: bool,
    list: bool,
    ignored_only: bool,
    exact: bool,
    filters: Vec<String>,
    skips: Vec<String>,
}

impl TestArgs {
    fn parse(args: impl Iterator<Item = String>) -> TestArgs {
        let mut t = TestArgs::default();
        let mut args = args.peekable();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "-h" | "--help" => t.help = true,
                "--list" => t.list = true,
                "--ignored" => t.ignored_only = true,
                "--exact" => t.exact = true,
                "--skip" => t.skips.extend(args.next()),
                // libtest options that take a value: skip it.
                "--test-threads" | "--format" | "--color" | "--logfile" | "--shuffle-seed"
                | "-Z" => {
                    args.next();
                }
                a if a.starts_with("--skip=") => t.skips.push(a["--skip=".len()..].into()),
                a if a.starts_with('-') => {}
                _ => t.filters.push(arg),
            }
        }
        t
    }

    /// Whether the test `name` runs.
    fn selects(&self, name: &str) -> bool {
        let matches = |f: &String| {
            if self.exact {
                name == f
            } else {
                name.contains(f.as_str())
            }
        };
        !self.ignored_only
            && (self.filters.is_empty() || self.filters.iter().any(matches))
            && !self.skips.iter().any(matches)
    }
}
