//! The redis-benchmark ceiling: the server's own speed for the same vote
//! script with a minimal C client. Its site, its address options, one
//! `redis-benchmark` run per round (its CSV read, its rates folded in), and
//! the check and summary of its votes for the report.

use anyhow::{ensure, Context, Result};
use redis::{Commands, ConnectionAddr};
use redvote::testing::TempServer;
use redvote::Site;
use serde::Serialize;

use super::measure::{round, server_cpu};
use super::Bench;

/// The ceiling's own site, beside the bench's: `<prefix>ceiling:`.
pub(super) fn ceiling_site(prefix: &str) -> Site {
    Site::new(format!("{prefix}ceiling:"))
}

/// The redis-benchmark ceiling while it runs, one slice per round.
pub(super) struct CeilingRun {
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

#[derive(Serialize)]
pub(super) struct Ceiling {
    ran: bool,
    pub(super) skipped: Option<String>,
    pub(super) command: Option<String>,
    pub(super) clients: usize,
    pub(super) requests: u64,
    pub(super) ops_per_sec: Option<f64>,
    pub(super) p50_us: Option<f64>,
    pub(super) p99_us: Option<f64>,
    pub(super) server_cpu_us_per_op: Option<f64>,
}

impl Ceiling {
    pub(super) fn skipped(reason: &str, clients: usize, requests: u64) -> Ceiling {
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

impl Bench {
    /// Get the redis-benchmark ceiling ready: its address options, its own
    /// site `<prefix>ceiling:` (so the checked articles and pages stay as
    /// they are) with one article, the vote script loaded. `Ok(Err(reason))`
    /// when it cannot run.
    pub(super) fn ceiling_start(
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
    pub(super) fn ceiling_slice(&mut self, run: &mut CeilingRun, n: u64, url: &str) -> Result<()> {
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
    pub(super) fn ceiling_finish(&mut self, mut run: CeilingRun) -> Result<Ceiling> {
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
