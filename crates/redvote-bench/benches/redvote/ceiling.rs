//! The redis-benchmark ceilings: the server's own speed for the same
//! scripts with a minimal C client. Each run is a FULL `redis-benchmark` run
//! of as many requests as the bench's row (not a slice: a run cut into
//! slices pays its connection setup and ramp every slice, which put the
//! ceiling about 10 % low); `--ceiling-runs` runs of each (default 3),
//! spread over the interleaved rounds (after rounds evenly apart), so a slow
//! spell of the machine does not decide a ceiling; the ceiling is the
//! median run's rate:
//!
//! * `vote_tasks`: `-c <tasks>` (`-P 1`, one request in flight per
//!   connection), `--ops` article votes;
//! * `vote_pipe16`: `-c 1 -P 16`, `--ops` article votes: one connection, 16
//!   requests a pipeline, beside the bench's `vote_redvote_pipe16`;
//! * `campaign_pipe16`: `-c 1 -P 16`, `--campaign-ops` campaign votes,
//!   beside `campaign_redvote_pipe16`.
//!
//! Each on targets of its own, so the checked ones stay as they are: the
//! article votes on the site `<prefix>ceiling:`, which holds as many
//! articles as the bench's (so its rankings have the same size and
//! encoding), each run on one article of its own (redis-benchmark's command
//! line cannot vary the article: its article's voter set and hash stay hot,
//! where the bench's votes spread over all articles), the campaign votes on
//! `{<prefix>c:bench-ceiling}:`, configured as
//! the campaign section's (every option voted once at setup, so its boards
//! hold as many members as the section's; redis-benchmark's votes all go to
//! `opt1`: its command line cannot vary the option). The command is the
//! library's own call (`Site::vote`, `Campaign::vote`: its script SHA1, key
//! and arguments) with the user `bench:<run>:__rand_int__`.

use anyhow::{ensure, Context, Result};
use redis::{Commands, ConnectionAddr};
use redvote::{Campaign, Site};
use redvote_testing::TempServer;
use serde::Serialize;

use super::campaign::{campaign_settings, CAMPAIGN_BOARD};
use super::checks::zset_sum;
use super::measure::{command_stats, command_usec, round, server_cpu};
use super::Bench;

/// The ceiling's own site, beside the bench's: `<prefix>ceiling:`.
pub(super) fn ceiling_site(prefix: &str) -> Site {
    Site::new(format!("{prefix}ceiling:"))
}

/// The ceiling's own campaign: `{<prefix>c:bench-ceiling}:`.
pub(super) fn ceiling_campaign(prefix: &str) -> Campaign {
    Campaign::with_namespace(format!("{{{prefix}c:bench-ceiling}}:"))
}

/// The ceilings' ids, in the report's order.
pub(super) const CEILING_IDS: [&str; 3] = ["vote_tasks", "vote_pipe16", "campaign_pipe16"];

/// One ceiling: the redis-benchmark runs to make, and their figures.
pub(super) struct CeilingPlan {
    id: &'static str,
    op: &'static str,
    clients: usize,
    pipeline: u64,
    requests: u64,
    /// `-h host -p port` (or `-s path`, `--dbnum n`).
    target: Vec<String>,
    /// `EVALSHA <sha> 1 <key> <args>`, the user `bench:<run>:__rand_int__`.
    command: Vec<String>,
    counts: Counts,
    /// The runs made so far.
    runs: Vec<RunFigures>,
}

/// One run's figures.
struct RunFigures {
    rps: f64,
    p50_ms: f64,
    p99_ms: f64,
    server_cpu: Option<f64>,
    cmd_us: u64,
}

/// Where a run's votes are counted, for its check.
enum Counts {
    /// Run k votes on article `ids[k]` of `site` (its `votes`, the poster's
    /// included).
    Article { site: Site, ids: Vec<u64> },
    /// The campaign's `real:total` board of `CAMPAIGN_BOARD` (the setup's
    /// votes and every run's included).
    Campaign { key: String, setup: u64 },
}

#[derive(Serialize)]
pub(super) struct Ceiling {
    pub(super) id: &'static str,
    pub(super) op: &'static str,
    pub(super) ran: bool,
    pub(super) skipped: Option<String>,
    pub(super) command: Option<String>,
    pub(super) clients: usize,
    pub(super) pipeline: u64,
    /// Requests of each run.
    pub(super) requests: u64,
    /// Full runs made.
    pub(super) runs: usize,
    /// Each run's requests/s (null: a run within a millisecond).
    pub(super) runs_ops_per_sec: Vec<Option<f64>>,
    /// The median run's requests/s.
    pub(super) ops_per_sec: Option<f64>,
    pub(super) p50_us: Option<f64>,
    pub(super) p99_us: Option<f64>,
    pub(super) server_cpu_us_per_op: Option<f64>,
    /// EVALSHA usec (INFO commandstats) per request.
    pub(super) server_cmd_us_per_op: Option<f64>,
}

impl Ceiling {
    /// Every ceiling, not run, and why.
    pub(super) fn all_skipped(
        reason: &str,
        tasks: usize,
        ops: u64,
        campaign_ops: u64,
    ) -> Vec<Ceiling> {
        CEILING_IDS
            .iter()
            .map(|&id| {
                let (op, clients, pipeline, requests) = shape(id, tasks, ops, campaign_ops);
                Ceiling {
                    id,
                    op,
                    ran: false,
                    skipped: Some(reason.to_string()),
                    command: None,
                    clients,
                    pipeline,
                    requests,
                    runs: 0,
                    runs_ops_per_sec: Vec::new(),
                    ops_per_sec: None,
                    p50_us: None,
                    p99_us: None,
                    server_cpu_us_per_op: None,
                    server_cmd_us_per_op: None,
                }
            })
            .collect()
    }
}

/// A ceiling's op, clients, pipeline and requests (a whole number of
/// pipelines: redis-benchmark sends whole pipelines, 512 requests for `-n
/// 500 -P 16`).
fn shape(id: &str, tasks: usize, ops: u64, campaign_ops: u64) -> (&'static str, usize, u64, u64) {
    let p = super::PIPELINE;
    match id {
        "vote_tasks" => ("vote", tasks, 1, ops),
        "vote_pipe16" => ("vote", 1, p, ops.div_ceil(p) * p),
        _ => ("campaign", 1, p, campaign_ops.div_ceil(p) * p),
    }
}

impl Bench {
    /// Get the ceilings ready: redis-benchmark's address options, the
    /// ceiling's site (an article per article ceiling and run) and campaign
    /// (configured, every option voted once), the scripts loaded.
    /// `Ok(Err(reason))` when they cannot run.
    pub(super) fn ceiling_setup(
        &mut self,
        tasks: usize,
        ops: u64,
        campaign_ops: u64,
        runs: usize,
        temp: &Option<TempServer>,
    ) -> Result<std::result::Result<Vec<CeilingPlan>, String>> {
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
        redvote::scripts::load_all(&mut self.admin)?;
        let prefix = self.ctx.site.prefix().to_string();
        let site = ceiling_site(&prefix);
        let campaign = ceiling_campaign(&prefix);
        campaign
            .configure(&campaign_settings(&self.ctx.campaign.options))
            .run(&mut self.admin)
            .context("configuring the ceiling's campaign")?;
        for option in &self.ctx.campaign.options {
            campaign
                .vote("setup", &[(CAMPAIGN_BOARD, option)])
                .run(&mut self.admin)?;
        }
        let setup = self.ctx.campaign.options.len() as u64;
        // As many articles as the bench's site (at least one per article
        // run), so the ceiling's rankings have the same size and encoding
        // (a zset of more than 128 members is a skiplist, not a listpack);
        // each article run votes on one of them.
        let articles = self.ctx.articles.len().max(2 * runs);
        let mut posted = Vec::with_capacity(articles);
        let calls: Vec<_> = (0..articles)
            .map(|i| {
                site.post(
                    &format!("author:ceiling{i}"),
                    &format!("Ceiling article {i}"),
                    &format!("https://example.com/ceiling/{i}"),
                )
            })
            .collect();
        for chunk in calls.chunks(super::PIPELINE as usize) {
            let mut pipe = redis::pipe();
            for call in chunk {
                call.add_to(&mut pipe);
            }
            let replies: Vec<redis::Value> = pipe.query(&mut self.admin)?;
            for (call, reply) in chunk.iter().zip(replies) {
                posted.push(call.decode(reply)?);
            }
        }
        let mut plans = Vec::new();
        for (k, &id) in CEILING_IDS.iter().enumerate() {
            let (op, clients, pipeline, requests) = shape(id, tasks, ops, campaign_ops);
            // The user: ceiling_run makes it unique to the run
            // (`bench:<ceiling>.<run>:__rand_int__`).
            let user = format!("bench:{k}:__rand_int__");
            let (command, counts) = if op == "vote" {
                let ids = posted[k * runs..(k + 1) * runs].to_vec();
                // The article: ceiling_run puts the run's own.
                let call = site.vote(&user, ids[0].to_string());
                let command = invocation(call.script().sha1(), call.key(), call.args());
                (
                    command,
                    Counts::Article {
                        site: site.clone(),
                        ids,
                    },
                )
            } else {
                let call = campaign.vote(&user, &[(CAMPAIGN_BOARD, "opt1")]);
                let command = invocation(call.script().sha1(), call.key(), call.args());
                let key = format!("{}b:{CAMPAIGN_BOARD}:real:total", campaign.namespace());
                (command, Counts::Campaign { key, setup })
            };
            plans.push(CeilingPlan {
                id,
                op,
                clients,
                pipeline,
                requests,
                target: target.clone(),
                command,
                counts,
                runs: Vec::new(),
            });
        }
        Ok(Ok(plans))
    }

    /// One full redis-benchmark run of `plan` (its next one): its rate and
    /// latencies and the server's time meanwhile go into `plan.runs`, once
    /// its requests are checked to be real votes.
    pub(super) fn ceiling_run(&mut self, plan: &mut CeilingPlan, url: &str) -> Result<()> {
        let run = plan.runs.len();
        let k = CEILING_IDS
            .iter()
            .position(|&id| id == plan.id)
            .unwrap_or(0);
        // Users unique to the run: redis-benchmark seeds its random numbers
        // from the clock and its pid, and two runs can draw the same users.
        let mut command = plan.command.clone();
        for arg in &mut command {
            if arg.contains("__rand_int__") {
                *arg = format!("bench:{k}.{run}:__rand_int__");
            }
        }
        if let Counts::Article { ids, .. } = &plan.counts {
            // EVALSHA sha 1 key user article up: the run's own article.
            command[5] = ids[run].to_string();
        }
        let mut cmd = std::process::Command::new("redis-benchmark");
        cmd.args(&plan.target)
            .args(["-c", &plan.clients.to_string()])
            .args(["-n", &plan.requests.to_string()])
            .args(["-P", &plan.pipeline.to_string()])
            .args(["-r", "1000000000", "-q", "--csv"])
            .args(&command)
            .stdin(std::process::Stdio::null());
        let cpu_before = server_cpu(&mut self.admin)?;
        let stats_before = command_stats(&mut self.admin)?;
        let out = cmd.output().context("cannot run redis-benchmark")?;
        let stats_after = command_stats(&mut self.admin)?;
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
        let requests = plan.requests;
        match &plan.counts {
            Counts::Article { site, ids } => {
                // Random users may collide (12-digit numbers): allow 1%.
                let votes: u64 = self
                    .admin
                    .hget(format!("{}{}", site.root_key(), ids[run]), "votes")?;
                let counted = votes.saturating_sub(1);
                ensure!(
                    counted <= requests && counted + requests / 100 >= requests,
                    "redis-benchmark ({} run {}) sent {requests} votes but its article counted \
                     {counted}",
                    plan.id,
                    run + 1
                );
            }
            Counts::Campaign { key, setup } => {
                // No rule limits the campaign: every vote counts.
                let total = zset_sum(&mut self.admin, key)?;
                let want = setup + requests * (run as u64 + 1);
                ensure!(
                    (total - want as f64).abs() < 0.5,
                    "redis-benchmark ({} run {}) sent {requests} campaign votes but {key} sums \
                     to {total}, want {want} ({setup} from the setup)",
                    plan.id,
                    run + 1
                );
            }
        }
        plan.runs.push(RunFigures {
            rps,
            p50_ms,
            p99_ms,
            server_cpu: cpu_before.zip(cpu_after).map(|(b, a)| (a - b).max(0.0)),
            cmd_us: command_usec(&stats_before, &stats_after, &["evalsha", "eval"]),
        });
        Ok(())
    }
}

impl CeilingPlan {
    /// Full runs made so far.
    pub(super) fn runs_made(&self) -> usize {
        self.runs.len()
    }

    /// The ceiling from its runs: the median run's rate (runs within a
    /// millisecond, which redis-benchmark reports as `inf`, left out) and
    /// p50, the highest p99, the server's time over all the requests.
    pub(super) fn summary(&self) -> Ceiling {
        let median = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied()
        };
        let rates: Vec<f64> = self
            .runs
            .iter()
            .map(|r| r.rps)
            .filter(|r| r.is_finite())
            .collect();
        let all = self.requests * self.runs.len() as u64;
        let ran = !self.runs.is_empty();
        let cpu: Option<f64> = self.runs.iter().map(|r| r.server_cpu).sum();
        Ceiling {
            id: self.id,
            op: self.op,
            ran,
            skipped: None,
            command: Some(format!(
                "redis-benchmark {} -c {} -n {} -P {} -r 1000000000 -q --csv {}",
                self.target.join(" "),
                self.clients,
                self.requests,
                self.pipeline,
                self.command
                    .iter()
                    .enumerate()
                    .map(|(i, a)| {
                        if i == 5 && matches!(self.counts, Counts::Article { .. }) {
                            "<run's article>".to_string()
                        } else if a.is_empty() {
                            "\"\"".to_string()
                        } else if a.contains("__rand_int__") {
                            "bench:<ceiling>.<run>:__rand_int__".to_string()
                        } else {
                            a.clone()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            )),
            clients: self.clients,
            pipeline: self.pipeline,
            requests: self.requests,
            runs: self.runs.len(),
            runs_ops_per_sec: self
                .runs
                .iter()
                .map(|r| r.rps.is_finite().then(|| round(r.rps, 1)))
                .collect(),
            ops_per_sec: median(rates).map(|r| round(r, 1)),
            p50_us: median(self.runs.iter().map(|r| r.p50_ms * 1000.0).collect()),
            p99_us: self.runs.iter().map(|r| r.p99_ms * 1000.0).reduce(f64::max),
            server_cpu_us_per_op: cpu.filter(|_| ran).map(|c| round(c * 1e6 / all as f64, 1)),
            server_cmd_us_per_op: ran.then(|| {
                round(
                    self.runs.iter().map(|r| r.cmd_us).sum::<u64>() as f64 / all as f64,
                    1,
                )
            }),
        }
    }
}

/// `EVALSHA <sha> 1 <key> <args>...`, as redis-benchmark's arguments.
fn invocation(sha: &str, key: &str, args: &[String]) -> Vec<String> {
    let mut command = vec![
        "EVALSHA".to_string(),
        sha.to_string(),
        "1".into(),
        key.into(),
    ];
    command.extend(args.iter().cloned());
    command
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
