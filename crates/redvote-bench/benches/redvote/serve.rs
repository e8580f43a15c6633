//! The serve section: what the HTTP layer of `redvote serve` costs. The
//! campaign section's vote (board `stars`, 5 periods, carry, 100 options:
//! one EVALSHA of `campaign_vote.lua`) on the campaign `bench-serve`
//! (namespace `{c:bench-serve}:`, the service's own for that name), cast
//! two ways on the same redis-server, interleaved in rounds (each round a
//! slice of each side, the order alternating):
//!
//! * **http**: `POST /v1/campaigns/bench-serve/votes` `{user, votes:
//!   [{board, option}]}` to the service the section starts itself, by
//!   `--tasks` tokio tasks sharing one reqwest client whose pool keeps one
//!   keep-alive connection per task (opened before the first slice); each
//!   answer must be 200 with one ballot for the pair;
//! * **library**: [`redvote::AsyncConnection::run`] of
//!   [`Campaign::vote`] by as many tasks sharing one `AsyncConnection`,
//!   which is what each request of the service calls.
//!
//! The service is the `redvote-serve` library of the same build, started
//! in this process as `redvote serve` runs it: a
//! [`redvote_serve::Background`] with its defaults (no tokens, the
//! `redvote` CLI's client settings, INFO logs written to /dev/null, a
//! tokio worker per core) on a runtime and a thread of its own, apart from
//! the clients' runtime, listening on `127.0.0.1:0`; the section ends it
//! (its shutdown, then the thread joined). Every vote is by a new user; afterwards the board's
//! `real:total` must hold exactly both sides' votes, then the campaign's
//! keys are deleted. `skipped` stays in the report (null: the section
//! always runs).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
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

/// The service, in-process as `redvote serve` runs it; stopped on drop
/// (its shutdown sent, its thread joined).
struct Service {
    base: String,
    _service: redvote_serve::Background,
}

impl Service {
    /// `redvote serve --url URL --listen 127.0.0.1:0` with its defaults:
    /// the site `default` (prefix ""), no tokens, the CLI's client (5 s
    /// timeouts, 3 retries), INFO logs (to /dev/null), a tokio worker per
    /// core.
    fn start(url: &str) -> Result<Service> {
        let client = redvote::Client::open(url)?
            .timeouts(Duration::from_secs(5), Duration::from_secs(5))
            .retry(redvote::Retry::new(4, Duration::from_millis(100)));
        let sites = BTreeMap::from([("default".to_string(), redvote::Site::new(""))]);
        let options = redvote_serve::Options {
            listen: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
            ..Default::default()
        };
        let logs = tracing::Dispatch::new(
            tracing_subscriber::fmt()
                .with_max_level(tracing::Level::INFO)
                .with_ansi(false)
                .with_writer(|| {
                    std::fs::OpenOptions::new()
                        .write(true)
                        .open("/dev/null")
                        .map(|f| Box::new(f) as Box<dyn std::io::Write>)
                        .unwrap_or_else(|_| Box::new(std::io::sink()))
                })
                .finish(),
        );
        let worker_logs = logs.clone();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .on_thread_start(move || {
                // the workers' default for their lifetime
                std::mem::forget(tracing::dispatcher::set_default(&worker_logs));
            })
            .build()
            .context("the service's tokio runtime")?;
        // the thread that drives the service logs where this one does
        let _logs = tracing::dispatcher::set_default(&logs);
        let service = redvote_serve::Background::start_on(runtime, client, sites, options)
            .context("the service did not start")?;
        Ok(Service {
            base: format!("http://{}", service.addr()),
            _service: service,
        })
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

    let result = measure(url, &campaign, &options, ops, tasks, rounds, threads);
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
    url: &str,
    campaign: &Campaign,
    options: &[String],
    ops: u64,
    tasks: usize,
    rounds: u64,
    threads: usize,
) -> Result<(Measure, Measure)> {
    let service = Service::start(url)?;
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
