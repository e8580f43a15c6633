//! The serve section: what the HTTP layer of `redvote serve` costs. The
//! campaign section's vote (board `stars`, 5 periods, carry, 100 options:
//! one EVALSHA of `campaign_vote.lua`) on the campaign `bench-serve`
//! (namespace `{c:bench-serve}:`, the service's own for that name), cast
//! two ways on the same redis-server, interleaved in rounds (each round a
//! slice of each side, the order alternating):
//!
//! * **http**: `POST /v1/campaigns/bench-serve/votes` `{user, votes:
//!   [{board, option}]}` to a `redvote serve` the section starts itself, by
//!   `--tasks` tokio tasks sharing one reqwest client whose pool keeps one
//!   keep-alive connection per task (opened before the first slice); each
//!   answer must be 200 with one ballot for the pair;
//! * **library**: [`redvote::AsyncConnection::run`] of
//!   [`Campaign::vote`] by as many tasks sharing one `AsyncConnection`,
//!   which is what each request of the service calls.
//!
//! The service is the `redvote` binary of the same build: cargo builds a
//! package's binaries for its benchmarks and passes their paths as
//! `CARGO_BIN_EXE_<name>` at compile time (read with `option_env!`: a
//! build without the binary, i.e. without the `cli` feature, reports the
//! section skipped; without the `serve` feature the binary refuses
//! `serve` and the section fails). It runs with its defaults (no tokens,
//! INFO logs, its stderr discarded, a tokio worker per core) on
//! `--listen 127.0.0.1:0`, and is killed when the section ends. Every vote
//! is by a new user; afterwards the board's `real:total` must hold exactly
//! both sides' votes, then the campaign's keys are deleted.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, ensure, Context, Result};
use redvote::Campaign;
use serde::Serialize;
use serde_json::{json, Value};

use super::campaign::{campaign_settings, CAMPAIGN_BOARD, CAMPAIGN_OPTIONS};
use super::checks::scan_keys;
use super::measure::{round, Measure};
use super::RESPONSE_TIMEOUT;

/// The section's campaign (the service's namespace `{c:NAME}:`).
pub(super) const SERVE_CAMPAIGN: &str = "bench-serve";
/// "The HTTP layer costs at most 2x": http ops/s over library ops/s.
pub(super) const SERVE_TARGET: f64 = 0.5;

/// The section's figures.
#[derive(Serialize)]
pub(super) struct Serve {
    /// Why the section did not run (else null).
    pub(super) skipped: Option<String>,
    pub(super) campaign: &'static str,
    pub(super) namespace: String,
    /// Votes per side.
    pub(super) ops: u64,
    pub(super) tasks: u64,
    pub(super) rounds: u64,
    pub(super) http: Option<Side>,
    pub(super) library: Option<Side>,
    /// http ops/s / library ops/s.
    pub(super) ratio: Option<f64>,
    pub(super) target: f64,
    pub(super) met: Option<bool>,
    /// Votes found on the board's `real:total` afterwards (both sides').
    pub(super) votes_found: u64,
}

/// One side's throughput and latency.
#[derive(Serialize)]
pub(super) struct Side {
    pub(super) ops: u64,
    pub(super) seconds: f64,
    pub(super) ops_per_sec: f64,
    pub(super) p50_us: u64,
    pub(super) p99_us: u64,
}

impl Side {
    fn new(ops: u64, m: &Measure) -> Side {
        let secs = m.elapsed.as_secs_f64();
        Side {
            ops,
            seconds: round(secs, 3),
            ops_per_sec: round(if secs > 0.0 { ops as f64 / secs } else { 0.0 }, 1),
            p50_us: m.hist.value_at_quantile(0.5),
            p99_us: m.hist.value_at_quantile(0.99),
        }
    }
}

/// `redvote serve`, killed on drop.
struct Service {
    child: Child,
    base: String,
}

impl Service {
    fn start(bin: &str, url: &str) -> Result<Service> {
        let mut cmd = Command::new(bin);
        for var in [
            "REDVOTE_URL",
            "REDVOTE_ADMIN_TOKEN",
            "REDVOTE_API_TOKEN",
            "RUST_LOG",
        ] {
            cmd.env_remove(var);
        }
        let mut child = cmd
            .args(["--url", url, "serve", "--listen", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot start {bin} serve"))?;
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut line)
            .context("reading redvote serve's first line")?;
        match line.trim().strip_prefix("listening on ") {
            Some(addr) => Ok(Service {
                base: format!("http://{addr}"),
                child,
            }),
            None => {
                let _ = child.kill();
                let status = child.wait()?;
                bail!("{bin} serve did not start ({status}): {line:?}")
            }
        }
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Which side a slice runs.
#[derive(Clone, Copy, PartialEq)]
enum Way {
    Http,
    Library,
}

/// Run the section against the server at `url`: `ops` votes a side by
/// `tasks` tasks in `rounds` rounds, on a tokio runtime of `threads`
/// workers (the bench's `--threads`).
pub(super) fn run_serve(
    url: &str,
    ops: u64,
    tasks: usize,
    rounds: u64,
    threads: usize,
) -> Result<Serve> {
    let campaign = Campaign::new(SERVE_CAMPAIGN);
    let mut serve = Serve {
        skipped: None,
        campaign: SERVE_CAMPAIGN,
        namespace: campaign.namespace().to_string(),
        ops,
        tasks: tasks as u64,
        rounds,
        http: None,
        library: None,
        ratio: None,
        target: SERVE_TARGET,
        met: None,
        votes_found: 0,
    };
    let Some(bin) = option_env!("CARGO_BIN_EXE_redvote") else {
        serve.skipped = Some("built without the redvote binary (features cli, serve)".into());
        return Ok(serve);
    };
    let mut admin = super::connect(url)?;
    let ns = campaign.namespace().to_string();
    ensure!(
        scan_keys(&mut admin, &ns)?.is_empty(),
        "the serve section's namespace {ns:?} is in use at {url}"
    );
    let options: Vec<String> = (1..=CAMPAIGN_OPTIONS).map(|i| format!("opt{i}")).collect();
    campaign
        .configure(&campaign_settings(&options))
        .run(&mut admin)
        .context("configuring the serve section's campaign")?;

    let result = measure(bin, url, &campaign, &options, ops, tasks, rounds, threads);
    // count, then delete the campaign's keys whatever happened
    let total_key = format!("{ns}b:{CAMPAIGN_BOARD}:real:total");
    let found: Vec<(String, f64)> = redis::cmd("ZRANGE")
        .arg(&total_key)
        .arg(0)
        .arg(-1)
        .arg("WITHSCORES")
        .query(&mut admin)?;
    for key in scan_keys(&mut admin, &ns)? {
        redis::cmd("UNLINK").arg(key).exec(&mut admin)?;
    }
    let (http, library) = result?;
    serve.votes_found = found.iter().map(|(_, s)| *s).sum::<f64>() as u64;
    ensure!(
        serve.votes_found == 2 * ops,
        "the serve section cast {} votes, {total_key} holds {}",
        2 * ops,
        serve.votes_found
    );
    let (h, l) = (Side::new(ops, &http), Side::new(ops, &library));
    let ratio = if l.ops_per_sec > 0.0 {
        Some(round(h.ops_per_sec / l.ops_per_sec, 3))
    } else {
        None
    };
    serve.met = ratio.map(|r| r >= SERVE_TARGET);
    serve.ratio = ratio;
    serve.http = Some(h);
    serve.library = Some(l);
    Ok(serve)
}

/// The rounds: each side's latencies and summed slice times.
#[allow(clippy::too_many_arguments)]
fn measure(
    bin: &str,
    url: &str,
    campaign: &Campaign,
    options: &[String],
    ops: u64,
    tasks: usize,
    rounds: u64,
    threads: usize,
) -> Result<(Measure, Measure)> {
    let service = Service::start(bin, url)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()?;
    rt.block_on(async {
        let lib = redvote::Client::open(url)?.connect_async().await?;
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(tasks)
            .timeout(RESPONSE_TIMEOUT)
            .build()?;
        let votes_url = format!("{}/v1/campaigns/{SERVE_CAMPAIGN}/votes", service.base);
        // open the keep-alive connections (one per task); the library's is open
        let warm = (0..tasks).map(|_| {
            let http = http.clone();
            let url = format!("{}/healthz", service.base);
            async move { http.get(url).send().await?.error_for_status() }
        });
        for r in futures::future::join_all(warm).await {
            r.context("GET /healthz")?;
        }

        let ctx = Arc::new(Shared {
            http,
            votes_url,
            lib,
            campaign: campaign.clone(),
            options: options.to_vec(),
        });
        let (mut http_m, mut lib_m) = (Measure::new()?, Measure::new()?);
        let mut done = 0;
        for r in 0..rounds {
            let slice = ops * (r + 1) / rounds - done;
            let order = if r % 2 == 0 {
                [Way::Http, Way::Library]
            } else {
                [Way::Library, Way::Http]
            };
            for way in order {
                let m = slice_run(&ctx, way, done, slice, tasks).await?;
                match way {
                    Way::Http => http_m.add(&m)?,
                    Way::Library => lib_m.add(&m)?,
                }
            }
            done += slice;
        }
        Ok((http_m, lib_m))
    })
}

/// What the tasks share.
struct Shared {
    http: reqwest::Client,
    votes_url: String,
    lib: redvote::AsyncConnection,
    campaign: Campaign,
    options: Vec<String>,
}

/// Votes `start .. start + n` of one side by `tasks` tasks.
async fn slice_run(
    ctx: &Arc<Shared>,
    way: Way,
    start: u64,
    n: u64,
    tasks: usize,
) -> Result<Measure> {
    let next = Arc::new(AtomicU64::new(start));
    let end = start + n;
    let began = Instant::now();
    let handles: Vec<_> = (0..tasks)
        .map(|_| {
            let ctx = ctx.clone();
            let next = next.clone();
            tokio::spawn(async move {
                let mut m = Measure::new()?;
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= end {
                        return Ok::<Measure, anyhow::Error>(m);
                    }
                    let t = Instant::now();
                    vote(&ctx, way, i).await?;
                    m.record(t.elapsed());
                }
            })
        })
        .collect();
    let mut total = Measure::new()?;
    for h in handles {
        total.add(&h.await??)?;
    }
    total.elapsed = began.elapsed();
    total.server_cpu = None;
    Ok(total)
}

/// Vote `i` of a side: a new user on an option picked by a fixed hash.
async fn vote(ctx: &Shared, way: Way, i: u64) -> Result<()> {
    let side = if way == Way::Http { "http" } else { "lib" };
    let user = format!("serve:{side}:{i}");
    let option =
        &ctx.options[(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize % ctx.options.len()];
    let ballots = match way {
        Way::Http => {
            let reply = ctx
                .http
                .post(&ctx.votes_url)
                .json(
                    &json!({"user": user, "votes": [{"board": CAMPAIGN_BOARD, "option": option}]}),
                )
                .send()
                .await
                .context("POST votes")?;
            let status = reply.status();
            let body: Value = reply.json().await.context("the vote's JSON answer")?;
            ensure!(status == 200, "POST votes answered {status}: {body}");
            body["ballots"].as_array().map_or(0, |b| {
                b.iter()
                    .filter(|b| b["board"] == CAMPAIGN_BOARD && b["option"] == option.as_str())
                    .count()
            })
        }
        Way::Library => ctx
            .lib
            .run(&ctx.campaign.vote(&user, &[(CAMPAIGN_BOARD, option)]))
            .await
            .context("the library's vote")?
            .iter()
            .filter(|b| b.board == CAMPAIGN_BOARD && b.option == *option)
            .count(),
    };
    ensure!(
        ballots == 1,
        "{side} vote {i} for {option} answered {ballots} ballots"
    );
    Ok(())
}
