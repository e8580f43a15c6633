//! Measurement: each scenario's latencies in an HDR histogram (µs), its
//! retries, wall time and the server's CPU time (INFO cpu), summed over the
//! slices and tasks, and the row a scenario's measurements make in the
//! report.

use std::collections::HashMap;
use std::time::Duration;

use anyhow::Result;
use hdrhistogram::Histogram;
use serde::Serialize;

use super::scenario::{Ctx, Scenario};

/// Latencies (µs) and retries of one scenario, its wall time and the
/// server's CPU time (user + sys seconds) meanwhile.
pub(super) struct Measure {
    pub(super) hist: Histogram<u64>,
    pub(super) retries: u64,
    pub(super) elapsed: Duration,
    pub(super) server_cpu: Option<f64>,
    /// Microseconds the server spent in the scenario's own commands (INFO
    /// commandstats, `Scenario::top_commands`).
    pub(super) server_cmd_us: u64,
}

impl Measure {
    pub(super) fn new() -> Result<Measure> {
        Ok(Measure {
            hist: Histogram::new_with_bounds(1, 3_600_000_000, 3)?,
            retries: 0,
            elapsed: Duration::ZERO,
            server_cpu: Some(0.0),
            server_cmd_us: 0,
        })
    }

    pub(super) fn record(&mut self, latency: Duration) {
        let us = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        self.hist.saturating_record(us.max(1));
    }

    /// Fold in another slice's (or task's) latencies, retries, wall time
    /// and server CPU.
    pub(super) fn add(&mut self, other: &Measure) -> Result<()> {
        self.hist.add(&other.hist)?;
        self.retries += other.retries;
        self.elapsed += other.elapsed;
        self.server_cpu = self.server_cpu.zip(other.server_cpu).map(|(a, b)| a + b);
        self.server_cmd_us += other.server_cmd_us;
        Ok(())
    }
}

#[derive(Serialize)]
pub(super) struct Row {
    pub(super) id: String,
    pub(super) op: &'static str,
    flow: &'static str,
    /// Rate-limit rules each vote checks (rate-limit rows only, else null).
    rules: Option<usize>,
    /// Every vote carries a vote id (the `campaign_redvote_id_*` rows).
    vote_id: bool,
    pub(super) label: &'static str,
    pub(super) tasks: usize,
    concurrent: bool,
    connections: usize,
    pub(super) shared: bool,
    client: &'static str,
    /// Ops sent together in one pipeline (1: one after the other).
    pub(super) pipeline: u64,
    pub(super) ops: u64,
    seconds: f64,
    pub(super) ops_per_sec: f64,
    pub(super) p50_us: u64,
    pub(super) p99_us: u64,
    max_us: u64,
    mean_us: f64,
    pub(super) round_trips_per_op: f64,
    commands_per_op: f64,
    pub(super) retries: u64,
    pub(super) server_cpu_us_per_op: Option<f64>,
    /// The server's time in the op's own commands (INFO commandstats usec
    /// deltas): command execution only, no network I/O.
    pub(super) server_cmd_us_per_op: f64,
    /// Wall time per op: seconds / ops.
    pub(super) wall_us_per_op: f64,
    /// 1-connection rows (one op at a time, not pipelined): what is left of
    /// `wall_us_per_op` after `round_trips_per_op` x the PING round trip
    /// and `server_cmd_us_per_op`: the client's own time (building
    /// requests, parsing replies, the bench's checks). None on the others.
    pub(super) client_us_per_op: Option<f64>,
}

impl Row {
    pub(super) fn new(s: &Scenario, ctx: &Ctx, m: Measure) -> Row {
        let seconds = m.elapsed.as_secs_f64();
        Row {
            id: s.id(),
            op: s.op_name(),
            flow: s.flow_name(),
            rules: s.rules(),
            vote_id: s.vote_id(),
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
            pipeline: s.pipeline,
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
            server_cmd_us_per_op: round(m.server_cmd_us as f64 / s.ops as f64, 1),
            wall_us_per_op: round(seconds * 1e6 / s.ops as f64, 1),
            client_us_per_op: None,
        }
    }

    pub(super) fn connections_text(&self) -> String {
        match (self.concurrent, self.shared) {
            (false, _) if self.pipeline > 1 => format!("1 pipe{}", self.pipeline),
            (false, _) => format!("1 {}", self.client),
            (true, true) => "1 shared".to_string(),
            (true, false) => format!("{} own", self.tasks),
        }
    }
}

/// The server process's CPU time so far (`used_cpu_user + used_cpu_sys` of
/// INFO cpu), seconds; None if INFO does not tell.
pub(super) fn server_cpu(con: &mut redis::Connection) -> Result<Option<f64>> {
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

/// Per command (`cmdstat_<name>` of INFO commandstats, e.g. `evalsha`,
/// `client|list`): calls and microseconds so far. A command a script or
/// EXEC runs is counted both in its own line and in the caller's time.
pub(super) type CommandStats = HashMap<String, (u64, u64)>;

/// INFO commandstats, parsed.
pub(super) fn command_stats(con: &mut redis::Connection) -> Result<CommandStats> {
    let info: String = redis::cmd("INFO").arg("commandstats").query(con)?;
    let mut stats = CommandStats::new();
    for line in info.lines() {
        let Some((name, fields)) = line
            .strip_prefix("cmdstat_")
            .and_then(|l| l.split_once(':'))
        else {
            continue;
        };
        let field = |key: &str| {
            fields
                .split(',')
                .find_map(|f| f.strip_prefix(key)?.strip_prefix('=')?.parse::<u64>().ok())
        };
        if let (Some(calls), Some(usec)) = (field("calls"), field("usec")) {
            stats.insert(name.to_string(), (calls, usec));
        }
    }
    Ok(stats)
}

/// Microseconds the server spent in `commands` (top-level ones: never a
/// command that also runs inside another of the list) between two
/// snapshots.
pub(super) fn command_usec(before: &CommandStats, after: &CommandStats, commands: &[&str]) -> u64 {
    commands
        .iter()
        .map(|c| {
            let b = before.get(*c).map_or(0, |x| x.1);
            let a = after.get(*c).map_or(0, |x| x.1);
            a.saturating_sub(b)
        })
        .sum()
}

impl Row {
    /// A 1-connection row the RTT model applies to: one op at a time on
    /// one connection.
    pub(super) fn sequential(&self) -> bool {
        !self.concurrent && self.pipeline == 1
    }

    /// Fill `client_us_per_op` from the PING round trip `rtt_us`.
    pub(super) fn set_client(&mut self, rtt_us: f64) {
        if self.sequential() {
            self.client_us_per_op = Some(round(
                self.wall_us_per_op - self.round_trips_per_op * rtt_us - self.server_cmd_us_per_op,
                1,
            ));
        }
    }

    /// The model's time per op at round trip `rtt_us`: round trips x RTT +
    /// client + server (1-connection rows only).
    pub(super) fn projected_us(&self, rtt_us: f64) -> Option<f64> {
        Some(self.round_trips_per_op * rtt_us + self.client_us_per_op? + self.server_cmd_us_per_op)
    }
}

pub(super) fn round(x: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (x * scale).round() / scale
}
