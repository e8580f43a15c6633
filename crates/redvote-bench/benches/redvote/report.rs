//! The report: the object `--json` prints (its fields are documented in the
//! module above), the ratios with their targets, the human table, and the
//! server's version and address as the report names them.

use std::io::{self, Write};

use anyhow::Result;
use redis::ConnectionAddr;
use redvote::campaign::LimitRule;
use serde::Serialize;

use super::ceiling::Ceiling;
use super::checks::Checks;
use super::limits::{describe_rule, LIMITS_TARGET};
use super::measure::{round, Row};
use super::scaling::{
    Scaling, Target as ScalingTarget, FLAT_TARGET, MAX_CALL_TARGET_US, QUERIES, SCALING_TIES,
    TIES_TARGET,
};

#[derive(Serialize)]
pub(super) struct Report {
    pub(super) redis_version: String,
    pub(super) ping_p50_us: u64,
    pub(super) server: String,
    pub(super) throwaway: bool,
    pub(super) prefix: String,
    pub(super) articles: u64,
    pub(super) ops: u64,
    pub(super) pages: u64,
    pub(super) tasks: u64,
    pub(super) threads: u64,
    pub(super) dedicated: bool,
    pub(super) rounds: u64,
    pub(super) seconds: f64,
    pub(super) campaign: CampaignInfo,
    pub(super) limits: LimitsInfo,
    pub(super) rows: Vec<Row>,
    pub(super) ceilings: Vec<Ceiling>,
    pub(super) ratios: Vec<Ratio>,
    pub(super) checks: Checks,
    pub(super) serve: super::serve::Serve,
    pub(super) scaling: Scaling,
}

/// The campaign section's setup, for the report.
#[derive(Serialize)]
pub(super) struct CampaignInfo {
    pub(super) ops: u64,
    pub(super) redvote_namespace: String,
    pub(super) seed_namespace: String,
    pub(super) board: &'static str,
    pub(super) options: usize,
    pub(super) weight: u32,
    pub(super) carry: &'static str,
    pub(super) offset: &'static str,
    pub(super) periods: Vec<&'static str>,
    pub(super) writes_per_vote: usize,
}

/// The rate-limit section's setup, for the report.
#[derive(Serialize)]
pub(super) struct LimitsInfo {
    pub(super) ops: u64,
    pub(super) board: &'static str,
    pub(super) options: usize,
    pub(super) weight: u32,
    pub(super) offset: &'static str,
    pub(super) periods: Vec<&'static str>,
    pub(super) channels: Vec<&'static str>,
    pub(super) devices: Vec<&'static str>,
    pub(super) target: f64,
    pub(super) campaigns: Vec<LimitsCampaign>,
}

/// One campaign of the rate-limit section.
#[derive(Serialize)]
pub(super) struct LimitsCampaign {
    pub(super) rules: usize,
    pub(super) namespace: String,
    pub(super) limits: Vec<LimitRule>,
}

#[derive(Serialize)]
pub(super) struct Ratio {
    id: &'static str,
    label: String,
    value: Option<f64>,
    /// `at_least`: higher is better, `target` is a minimum (throughput
    /// ratios); `at_most`: lower is better, `target` is a maximum (costs).
    goal: &'static str,
    target: Option<f64>,
    pass: Option<bool>,
    /// A ratio of two 1-connection rows: its value at other round trips,
    /// from the model (see `MODEL_RTTS_US`); null on the others.
    projected: Option<Vec<Projection>>,
}

/// A ratio at round trip `rtt_us`, by the model.
#[derive(Serialize)]
pub(super) struct Projection {
    rtt_us: f64,
    value: f64,
}

/// The round trips (µs) the 1-connection ratios are projected at: a fast
/// LAN, a typical one (or another zone of a cloud region), a slow link.
pub(super) const MODEL_RTTS_US: [f64; 3] = [50.0, 200.0, 1000.0];

/// The model's text, for the report and the README.
pub(super) const MODEL: &str = "time per op = round trips x RTT + client + server, where RTT \
    is the PING round trip, server the time the server spends in the op's own commands (INFO \
    commandstats) and client the rest of the measured wall time per op (building requests, \
    parsing replies, the bench's checks); client and server do not depend on the network, \
    round trips x RTT does";

/// Where a ratio's numerator or denominator comes from.
#[derive(Clone, Copy)]
enum Of<'a> {
    /// A row's ops/s.
    Rps(&'a str),
    /// A row's server CPU per op (INFO cpu).
    Cpu(&'a str),
    /// A ceiling's ops/s.
    Ceiling(&'a str),
}

/// Throughput ratios, with the targets redvote is meant to meet, and the
/// 1-connection ones projected at other round trips by the model (the
/// rows' `client_us_per_op` must be set).
pub(super) fn ratios(rows: &[Row], ceilings: &[Ceiling]) -> Vec<Ratio> {
    let row = |id: &str| rows.iter().find(|r| r.id == id);
    let ceiling = |id: &str| ceilings.iter().find(|c| c.id == id);
    let value_of = |of: Of| match of {
        Of::Rps(id) => row(id).map(|r| r.ops_per_sec),
        Of::Cpu(id) => row(id).and_then(|r| r.server_cpu_us_per_op),
        Of::Ceiling(id) => ceiling(id).and_then(|c| c.ops_per_sec),
    };
    let tasks = rows.iter().map(|r| r.tasks).max().unwrap_or(1);
    let shared = rows
        .iter()
        .any(|r| r.id == "vote_redvote_tasks" && r.shared);
    let clients = ceiling("vote_tasks").map_or(tasks, |c| c.clients);
    let make = |id: &'static str,
                label: String,
                num: Of,
                den: Of,
                goal: &'static str,
                target: Option<f64>| {
        let value = match (value_of(num), value_of(den)) {
            (Some(n), Some(d)) if d > 0.0 => Some(round(n / d, 3)),
            _ => None,
        };
        let pass = match (value, target) {
            (Some(v), Some(t)) if goal == "at_most" => Some(v <= t),
            (Some(v), Some(t)) => Some(v >= t),
            _ => None,
        };
        // ops/s(num) / ops/s(den) = time(den) / time(num), at any RTT.
        let projected = match (num, den) {
            (Of::Rps(n), Of::Rps(d)) => row(n).zip(row(d)).and_then(|(n, d)| {
                MODEL_RTTS_US
                    .iter()
                    .map(|&rtt| {
                        let (tn, td) = (n.projected_us(rtt)?, d.projected_us(rtt)?);
                        (tn > 0.0).then(|| Projection {
                            rtt_us: rtt,
                            value: round(td / tn, 2),
                        })
                    })
                    .collect::<Option<Vec<_>>>()
            }),
            _ => None,
        };
        Ratio {
            id,
            label,
            value,
            goal,
            target,
            pass,
            projected,
        }
    };
    // Throughput ratios: higher is better.
    let ratio = |id, label, num, den, target| make(id, label, num, den, "at_least", target);
    // Costs: lower is better.
    let cost = |id, label, num, den, target| make(id, label, num, den, "at_most", target);
    use Of::{Ceiling as Bench, Cpu, Rps};
    vec![
        ratio(
            "vote_redvote_over_seeds_1",
            "vote (c)/(a), 1 connection".into(),
            Rps("vote_redvote_1"),
            Rps("vote_seeds_1"),
            Some(3.0),
        ),
        ratio(
            "vote_redvote_over_watch_1",
            "vote (c)/(b), 1 connection".into(),
            Rps("vote_redvote_1"),
            Rps("vote_watch_1"),
            None,
        ),
        ratio(
            "vote_redvote_over_seeds_tasks",
            format!("vote (c)/(a), {tasks} tasks"),
            Rps("vote_redvote_tasks"),
            Rps("vote_seeds_tasks"),
            None,
        ),
        ratio(
            "vote_redvote_over_watch_tasks",
            format!("vote (c)/(b), {tasks} tasks"),
            Rps("vote_redvote_tasks"),
            Rps("vote_watch_tasks"),
            None,
        ),
        ratio(
            "page_redvote_over_seeds_1",
            "page redvote/seeds, 1 connection".into(),
            Rps("page_redvote_1"),
            Rps("page_seeds_1"),
            Some(10.0),
        ),
        ratio(
            "page_redvote_over_seeds_tasks",
            format!("page redvote/seeds, {tasks} tasks"),
            Rps("page_redvote_tasks"),
            Rps("page_seeds_tasks"),
            None,
        ),
        ratio(
            "vote_redvote_tasks_over_redis_benchmark",
            format!(
                "vote (c) {tasks} tasks, {} / redis-benchmark -c {clients}",
                if shared { "1 shared conn" } else { "own conns" },
            ),
            Rps("vote_redvote_tasks"),
            Bench("vote_tasks"),
            Some(0.8),
        ),
        ratio(
            "vote_redvote_own_over_redis_benchmark",
            format!("vote (c) {tasks} tasks, own conns / redis-benchmark -c {clients}"),
            Rps("vote_redvote_own"),
            Bench("vote_tasks"),
            Some(0.8),
        ),
        ratio(
            "vote_redvote_pipe16_over_redis_benchmark_p16",
            "vote (c) 1 conn, pipelines of 16 / redis-benchmark -c 1 -P 16".into(),
            Rps("vote_redvote_pipe16"),
            Bench("vote_pipe16"),
            Some(0.8),
        ),
        ratio(
            "vote_redvote_pipe16_hot_over_redis_benchmark_p16",
            "vote (c) 1 conn, pipelines of 16, 1 article / redis-benchmark -c 1 -P 16".into(),
            Rps("vote_redvote_pipe16_hot"),
            Bench("vote_pipe16"),
            Some(0.8),
        ),
        ratio(
            "vote_redvote_pipe16_over_1",
            "vote (c) 1 conn, pipelines of 16 / one at a time".into(),
            Rps("vote_redvote_pipe16"),
            Rps("vote_redvote_1"),
            None,
        ),
        ratio(
            "campaign_redvote_over_seeds_1",
            "campaign (c)/(a) 16 concurrent, 1 connection".into(),
            Rps("campaign_redvote_1"),
            Rps("campaign_seeds_1"),
            Some(3.0),
        ),
        ratio(
            "campaign_redvote_over_seeds_sequential_1",
            "campaign (c)/(a) 16 sequential, 1 connection".into(),
            Rps("campaign_redvote_1"),
            Rps("campaign_seeds_sequential_1"),
            None,
        ),
        ratio(
            "campaign_redvote_over_seeds_tasks",
            format!("campaign (c)/(a) 16 concurrent, {tasks} tasks"),
            Rps("campaign_redvote_tasks"),
            Rps("campaign_seeds_tasks"),
            None,
        ),
        ratio(
            "campaign_redvote_pipe16_over_redis_benchmark_p16",
            "campaign (c) 1 conn, pipelines of 16 / redis-benchmark -c 1 -P 16".into(),
            Rps("campaign_redvote_pipe16"),
            Bench("campaign_pipe16"),
            Some(0.8),
        ),
        // The vote id's cost: the same campaign vote without an id over
        // with one (ops/s), the server's CPU per vote with it over without.
        cost(
            "campaign_id_over_plain_1",
            "campaign cost vote id/none, 1 connection".into(),
            Rps("campaign_redvote_1"),
            Rps("campaign_redvote_id_1"),
            None,
        ),
        cost(
            "campaign_id_over_plain_tasks",
            format!("campaign cost vote id/none, {tasks} tasks"),
            Rps("campaign_redvote_tasks"),
            Rps("campaign_redvote_id_tasks"),
            None,
        ),
        cost(
            "campaign_id_over_plain_server_cpu",
            format!("campaign srv µs/op vote id/none, {tasks} tasks"),
            Cpu("campaign_redvote_id_tasks"),
            Cpu("campaign_redvote_tasks"),
            None,
        ),
        // The limits' cost: how much slower the vote gets with the rules,
        // ops/s without them over ops/s with them.
        cost(
            "limits_4_over_0_1",
            "limits cost 4 rules/0, 1 connection".into(),
            Rps("limits_rules0_1"),
            Rps("limits_rules4_1"),
            Some(LIMITS_TARGET),
        ),
        cost(
            "limits_8_over_0_1",
            "limits cost 8 rules/0, 1 connection".into(),
            Rps("limits_rules0_1"),
            Rps("limits_rules8_1"),
            None,
        ),
        cost(
            "limits_4_over_0_tasks",
            format!("limits cost 4 rules/0, {tasks} tasks"),
            Rps("limits_rules0_tasks"),
            Rps("limits_rules4_tasks"),
            Some(LIMITS_TARGET),
        ),
        cost(
            "limits_8_over_0_tasks",
            format!("limits cost 8 rules/0, {tasks} tasks"),
            Rps("limits_rules0_tasks"),
            Rps("limits_rules8_tasks"),
            None,
        ),
        // The server's side of it: its CPU per vote with the rules over
        // without (the tasks' rows, where the server is busy).
        cost(
            "limits_4_over_0_server_cpu",
            format!("limits srv µs/op 4 rules/0, {tasks} tasks"),
            Cpu("limits_rules4_tasks"),
            Cpu("limits_rules0_tasks"),
            None,
        ),
        cost(
            "limits_8_over_0_server_cpu",
            format!("limits srv µs/op 8 rules/0, {tasks} tasks"),
            Cpu("limits_rules8_tasks"),
            Cpu("limits_rules0_tasks"),
            None,
        ),
    ]
}

/// The human report: the table, the notes, the ratios and the checks.
pub(super) fn write_human<W: Write>(out: &mut W, r: &Report) -> io::Result<()> {
    let place = if r.throwaway {
        "throwaway server"
    } else {
        "server"
    };
    writeln!(
        out,
        "redvote bench: redis {} ({place} {}, PING round trip p50 {} µs), prefix {:?}",
        r.redis_version, r.server, r.ping_p50_us, r.prefix
    )?;
    writeln!(
        out,
        "{} articles; {} votes and {} page reads per scenario in {} interleaved rounds; {} tasks on {} tokio thread(s)",
        r.articles, r.ops, r.pages, r.rounds, r.tasks, r.threads
    )?;
    writeln!(out)?;
    let line = |out: &mut W,
                label: &str,
                tasks: String,
                conns: String,
                ops: String,
                rps: f64,
                p50: String,
                p99: String,
                rt: String,
                retries: String,
                cpu: Option<f64>,
                cmd: Option<f64>| {
        let cpu = cpu.map_or("-".to_string(), |c| format!("{c:.0}"));
        let cmd = cmd.map_or("-".to_string(), |c| format!("{c:.0}"));
        writeln!(
            out,
            "{label:<31} {tasks:>5} {conns:>8} {ops:>7} {rps:>8.0} {p50:>7} {p99:>7} {rt:>5} {retries:>7} {cpu:>9} {cmd:>9}"
        )
    };
    writeln!(
        out,
        "{:<31} {:>5} {:>8} {:>7} {:>8} {:>7} {:>7} {:>5} {:>7} {:>9} {:>9}",
        "scenario",
        "tasks",
        "conns",
        "ops",
        "ops/s",
        "p50 µs",
        "p99 µs",
        "RT/op",
        "retries",
        "srv µs/op",
        "cmd µs/op"
    )?;
    for (i, row) in r.rows.iter().enumerate() {
        if row.op == "campaign" && r.rows.get(i.wrapping_sub(1)).map(|p| p.op) != Some("campaign") {
            let c = &r.campaign;
            writeln!(
                out,
                "-- campaign vote: board {:?}, {} options of weight {}, periods {} at {}, \
                 carry {}: {} writes a vote",
                c.board,
                c.options,
                c.weight,
                c.periods.join("/"),
                c.offset,
                c.carry,
                c.writes_per_vote
            )?;
        }
        if row.op == "limits" && r.rows.get(i.wrapping_sub(1)).map(|p| p.op) != Some("limits") {
            let l = &r.limits;
            writeln!(
                out,
                "-- rate limits: 3 campaigns identical but for their limits: board {:?}, {} \
                 options of weight {}, periods {} at {}; new users, channel {}, device {}",
                l.board,
                l.options,
                l.weight,
                l.periods.join("/"),
                l.offset,
                l.channels.join("|"),
                l.devices.join("|")
            )?;
        }
        line(
            out,
            row.label,
            row.tasks.to_string(),
            row.connections_text(),
            row.ops.to_string(),
            row.ops_per_sec,
            row.p50_us.to_string(),
            row.p99_us.to_string(),
            trim_float(row.round_trips_per_op),
            row.retries.to_string(),
            row.server_cpu_us_per_op,
            Some(row.server_cmd_us_per_op),
        )?;
    }
    writeln!(
        out,
        "-- ceilings: redis-benchmark on the same EVALSHA, full runs spread over the rounds, \
         the median run's ops/s"
    )?;
    for c in &r.ceilings {
        let label = format!("ceiling {} redis-benchmark", c.op);
        let conns = if c.pipeline > 1 {
            format!("{} pipe{}", c.clients, c.pipeline)
        } else {
            format!("{} own", c.clients)
        };
        match (c.ops_per_sec, c.p50_us, c.p99_us) {
            (Some(rps), Some(p50), Some(p99)) => line(
                out,
                &label,
                c.clients.to_string(),
                conns,
                c.requests.to_string(),
                rps,
                format!("{p50:.0}"),
                format!("{p99:.0}"),
                trim_float(1.0 / c.pipeline as f64),
                "-".to_string(),
                c.server_cpu_us_per_op,
                c.server_cmd_us_per_op,
            ),
            _ => writeln!(
                out,
                "{label:<31} skipped: {}",
                c.skipped
                    .as_deref()
                    .unwrap_or("no rate (a run within a millisecond)")
            ),
        }?;
    }
    writeln!(out)?;
    let how = if r.dedicated {
        "every task has its own connection in every scenario (--dedicated)"
    } else {
        "(a), (c) and the page reads share one multiplexed connection (a redis-rs \
         backend's way); (b) has one connection per task (WATCH is per connection)"
    };
    writeln!(
        out,
        "conns: 1 sync = one redis::Connection, ops in sequence; with tasks, {how}."
    )?;
    writeln!(
        out,
        "RT/op: round trips per op (retried WATCH attempts included; a pipeline of 16 is 1/16 \
         a vote); srv µs/op: the server's CPU time (INFO cpu) per op, network I/O included; cmd \
         µs/op: the server's time in the op's own commands (INFO commandstats usec), command \
         execution only. pipe16 = one sync connection, the votes sent 16 at a time as one \
         pipeline of Call::add_to (p50/p99: a pipeline's time); \"1 article\": all on one \
         article, as redis-benchmark votes (its article's keys stay hot in the server's \
         caches, where the other rows' votes spread over all articles)."
    )?;
    writeln!(
        out,
        "campaign: {} votes per scenario. (a) seed = the seed's one command per write, keys \
         computed client-side: 5 ZINCRBY real + 5 ZINCRBY shown + 4 ZINCRBY carry + 2 PFADD; \
         \"16 concurrent\" sends them all at once (the seed's parallel goroutines: join_all on a \
         multiplexed connection, pipelined on the wire, so RT/op 1; 1 async = one such \
         connection, votes in sequence), \"16 sequential\" one after the other on a sync \
         connection. (c) = one EVALSHA of campaign_vote.lua (atomic).",
        r.campaign.ops
    )?;
    let srv = |id: &str| {
        r.rows
            .iter()
            .find(|row| row.id == id)
            .and_then(|row| row.server_cpu_us_per_op)
            .map_or("-".to_string(), |c| format!("{c:.0}"))
    };
    writeln!(
        out,
        "vote id: (c) + id = the same EVALSHA on the same campaign with a new vote id \
         (bench:<user number>) on every vote, still 1 round trip: the script also GETs \
         <ns>vid:<id> (absent) and SETs it to the request and reply as JSON, EX vote_id_ttl \
         (86400). srv µs a vote without / with id: {} / {} at 1 connection, {} / {} with the \
         tasks.",
        srv("campaign_redvote_1"),
        srv("campaign_redvote_id_1"),
        srv("campaign_redvote_tasks"),
        srv("campaign_redvote_id_tasks"),
    )?;
    let rules_of = |n: usize| {
        r.limits
            .campaigns
            .iter()
            .find(|c| c.rules == n)
            .map(|c| &c.limits[..])
            .unwrap_or_default()
    };
    let (four, eight) = (rules_of(4), rules_of(8));
    let extra: Vec<String> = eight
        .iter()
        .filter(|x| !four.contains(x))
        .map(describe_rule)
        .collect();
    writeln!(
        out,
        "limits: {} votes per scenario, one EVALSHA of campaign_vote.lua each, every one by a \
         new user (so no rule may refuse: a refusal fails the bench). 4 rules: {}; 8 rules: \
         those + {}.",
        r.limits.ops,
        four.iter()
            .map(describe_rule)
            .collect::<Vec<_>>()
            .join(", "),
        extra.join(", ")
    )?;
    for c in &r.ceilings {
        if let Some(command) = &c.command {
            let runs: Vec<String> = c
                .runs_ops_per_sec
                .iter()
                .map(|r| r.map_or("inf".to_string(), |r| format!("{r:.0}")))
                .collect();
            writeln!(
                out,
                "ceiling {}: {} full runs of {command} (ops/s {})",
                c.id,
                c.runs,
                runs.join(", ")
            )?;
        }
    }
    writeln!(
        out,
        "ceiling campaign: its own campaign, configured as the section's, every option voted \
         once first; redis-benchmark votes opt1 only (its command line cannot vary the option)."
    )?;
    writeln!(out)?;
    write_model(out, r)?;
    writeln!(out)?;
    writeln!(
        out,
        "ratios (throughput: redvote's ops/s over the other's; costs: ops/s without the vote \
         id or the rules over ops/s with them, srv µs/op with them over without), measured at \
         this RTT ({} µs); 1-connection ratios also at other RTTs by the model above:",
        r.ping_p50_us
    )?;
    let width = r
        .ratios
        .iter()
        .map(|x| x.label.chars().count())
        .max()
        .unwrap_or(0);
    for x in &r.ratios {
        let value = x.value.map_or("-".to_string(), |v| format!("{v:.2}x"));
        let sign = if x.goal == "at_most" { "<=" } else { ">=" };
        let verdict = match (x.target, x.pass) {
            (Some(t), Some(true)) => format!("target {sign} {}x  PASS", trim_float(t)),
            (Some(t), Some(false)) if x.goal == "at_most" => {
                format!("target {sign} {}x  ABOVE TARGET", trim_float(t))
            }
            (Some(t), Some(false)) => format!("target {sign} {}x  BELOW TARGET", trim_float(t)),
            (Some(t), None) => format!("target {sign} {}x  not measured", trim_float(t)),
            (None, _) => String::new(),
        };
        let pad = width - x.label.chars().count();
        let model = match &x.projected {
            Some(p) => format!(
                "  [at RTT {}]",
                p.iter()
                    .map(|p| format!("{} ms {:.2}x", trim_float(p.rtt_us / 1000.0), p.value))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => String::new(),
        };
        let text = format!(
            "  {}{:pad$}  {:>7}   {verdict:<27}{model}",
            x.label, "", value
        );
        writeln!(out, "{}", text.trim_end())?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "checks: OK: {} articles hold {} votes = {} posts + {} votes cast; every article's \
         votes == |voted:ID| and score == time + 432 x votes",
        r.checks.articles, r.checks.votes_found, r.checks.articles, r.checks.votes_cast
    )?;
    for (who, c) in [
        ("redvote", &r.checks.campaign.redvote),
        ("seed", &r.checks.campaign.seed),
    ] {
        writeln!(
            out,
            "checks: OK: campaign {who}: {} votes; real total {}, shown total {} (= {} x real); \
             every period kind's real boards sum to the votes, shown to weight + carry; {} \
             boards; {} participants (HyperLogLog)",
            c.votes,
            trim_float(c.real_total),
            trim_float(c.shown_total),
            r.campaign.weight,
            c.boards,
            c.participants
        )?;
    }
    let v = &r.checks.campaign.vote_ids;
    let digest = match v.digest_keys {
        Some(keys) => format!("DEBUG DIGEST-VALUE of the namespace's {keys} keys unchanged"),
        None => "DEBUG DIGEST not compared (--url)".to_string(),
    };
    writeln!(
        out,
        "checks: OK: campaign vote ids: {} votes with an id, {} vid: records (SCAN); replaying \
         {} answered the recorded ballots marked replay and changed nothing (totals, records, \
         TTL {} s; {digest})",
        v.votes, v.records, v.replayed, v.ttl
    )?;
    for c in &r.checks.limits {
        let counters = match &c.day_counters {
            Some(sums) if !sums.is_empty() => format!(
                "; day counters {}",
                sums.iter()
                    .map(|(rule, n)| format!("{rule} {n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Some(_) => String::new(),
            None => "; day counters not compared (the day changed)".to_string(),
        };
        writeln!(
            out,
            "checks: OK: limits {} rules: {} votes, every one passed; real total {}, shown total \
             {}, day boards likewise; {} counter keys, {} B a voter (MEMORY USAGE){counters}",
            c.rules,
            c.votes,
            trim_float(c.real_total),
            trim_float(c.shown_total),
            c.counters,
            c.bytes_per_voter
        )?;
    }
    writeln!(out)?;
    write_serve(out, &r.serve)?;
    writeln!(out)?;
    write_scaling(out, &r.scaling)?;
    writeln!(out, "total {:.1} s", r.seconds)
}

/// The serve section: HTTP through `redvote serve` against the library.
fn write_serve<W: Write>(out: &mut W, s: &super::serve::Serve) -> io::Result<()> {
    if let Some(why) = &s.skipped {
        return writeln!(out, "serve: skipped: {why}");
    }
    writeln!(
        out,
        "serve: campaign vote (campaign {}, {}) through HTTP against the library, {} votes each, \
         {} tasks, {} interleaved rounds",
        s.campaign, s.namespace, s.ops, s.tasks, s.rounds
    )?;
    for (label, side) in [
        ("serve http (POST votes, keep-alive)", &s.http),
        ("serve library (AsyncConnection::run)", &s.library),
    ] {
        if let Some(d) = side {
            writeln!(
                out,
                "{label:<38} {:>6} ops {:>8.0} ops/s  p50 {} µs  p99 {} µs",
                d.ops, d.ops_per_sec, d.p50_us, d.p99_us
            )?;
        }
    }
    let ratio = s.ratio.map_or("-".to_string(), |r| format!("{r:.2}x"));
    let met = match s.met {
        Some(true) => "met",
        Some(false) => "missed",
        None => "not measured",
    };
    writeln!(
        out,
        "serve ratio, http / library ops/s: {ratio} (target >= {}x: {met})",
        s.target
    )?;
    writeln!(
        out,
        "checks: OK: serve: {} votes found on the board's real total",
        s.votes_found
    )
}

/// The scaling section: a row per read and tie rule, a column per size
/// (median / max µs of a call on the server), then its growth and its
/// ratio to the competition rule at the largest size, with the targets.
pub(super) fn write_scaling<W: Write>(out: &mut W, s: &Scaling) -> io::Result<()> {
    if !s.ran {
        return writeln!(
            out,
            "scaling: skipped: {}",
            s.skipped.as_deref().unwrap_or("not run")
        );
    }
    writeln!(
        out,
        "scaling: campaign reads, one board per tie rule and size on a server of its own; {}; \
         pages and windows of {}; up to {} calls a cell within {} ms",
        s.scores, s.per_page, s.calls, s.budget_ms
    )?;
    writeln!(
        out,
        "server µs per call (INFO commandstats around each call), median / max single call \
         (means in the JSON); growth = median at {} over {}; vs comp. = median over competition's at {}",
        s.sizes.last().copied().unwrap_or(0),
        s.sizes.first().copied().unwrap_or(0),
        s.sizes.last().copied().unwrap_or(0)
    )?;
    let mut header = format!("{:<24} {:<12}", "read", "ties");
    for size in &s.sizes {
        header.push_str(&format!(" {:>17}", size));
    }
    header.push_str(&format!(" {:>14} {:>14}", "growth", "vs comp."));
    writeln!(out, "{}", header.trim_end())?;
    let target = |id: String| s.targets.iter().find(|t| t.id == id);
    let verdict = |t: Option<&ScalingTarget>| match t {
        Some(t) => match t.value {
            Some(v) => format!("{v:.2}x {}", if t.pass { "ok" } else { "HIGH" }),
            None => "- HIGH".to_string(),
        },
        None => String::new(),
    };
    for q in QUERIES {
        for t in SCALING_TIES {
            let mut line = format!("{:<24} {:<12}", q.label(), t.as_str());
            for &size in &s.sizes {
                let text = match s.cell(q, t, size) {
                    Some(c) if c.skipped.is_some() => "skipped".to_string(),
                    Some(c) => format!(
                        "{} / {}{}",
                        c.p50_us.unwrap_or(0),
                        c.max_us.unwrap_or(0),
                        if c.over_budget { "*" } else { "" }
                    ),
                    None => "-".to_string(),
                };
                line.push_str(&format!(" {text:>17}"));
            }
            line.push_str(&format!(
                " {:>14} {:>14}",
                verdict(target(format!("flat_{}_{}", q.id(), t.as_str()))),
                verdict(target(format!("vs_competition_{}_{}", q.id(), t.as_str())))
            ));
            writeln!(out, "{}", line.trim_end())?;
        }
    }
    let skipped: Vec<String> = s
        .cells
        .iter()
        .filter_map(|c| {
            let why = c.skipped.as_ref()?;
            Some(format!("{} {} at {}: {why}", c.query, c.ties, c.size))
        })
        .collect();
    if s.cells.iter().any(|c| c.over_budget && c.skipped.is_none()) {
        writeln!(
            out,
            "*: fewer calls than {}: the cell ran out of its {} ms",
            s.calls, s.budget_ms
        )?;
    }
    for line in &skipped {
        writeln!(out, "skipped: {line}")?;
    }
    let failed = |kind: &str| {
        s.targets
            .iter()
            .filter(|t| t.kind == kind && !t.pass)
            .count()
    };
    let all = |kind: &str| s.targets.iter().filter(|t| t.kind == kind).count();
    let max = target("max_call_us".into());
    writeln!(
        out,
        "scaling targets: flat (growth <= {FLAT_TARGET}x): {} of {} met; every rule within \
         {TIES_TARGET}x of competition: {} of {} met; longest single call {} µs (target <= {} \
         µs{}): {}",
        all("flat") - failed("flat"),
        all("flat"),
        all("vs_competition") - failed("vs_competition"),
        all("vs_competition"),
        s.max_call_us.map_or("-".to_string(), |m| m.to_string()),
        MAX_CALL_TARGET_US,
        if skipped.is_empty() {
            ""
        } else {
            ", skipped cells count as over"
        },
        if max.is_some_and(|t| t.pass) {
            "met"
        } else {
            "MISSED"
        }
    )?;
    let mut builds: Vec<String> = Vec::new();
    for &size in &s.sizes {
        let of: Vec<_> = s.builds.iter().filter(|b| b.size == size).collect();
        if let Some(b) = of.first() {
            builds.push(format!(
                "{} boards of {size} in {:.1} s ({} configure + {} import calls each)",
                of.len(),
                of.iter().map(|b| b.seconds).sum::<f64>(),
                b.configure_calls,
                b.import_calls
            ));
        }
    }
    for r in &s.reindex {
        writeln!(
            out,
            "scaling reindex of the {} board of {}: {} calls of 100 members, server µs per call median {} / max {}, {:.1} s",
            r.ties, r.size, r.calls, r.p50_us, r.max_us, r.seconds
        )?;
    }
    writeln!(
        out,
        "scaling built {} (configure 1000 options a call, import 500, 16 calls a pipeline); \
         section {:.1} s",
        builds.join(", "),
        s.seconds
    )?;
    Ok(())
}

/// The model: each 1-connection row's parts (round trips, server, client,
/// wall time per op) and its time per op at the model's round trips.
fn write_model<W: Write>(out: &mut W, r: &Report) -> io::Result<()> {
    writeln!(
        out,
        "model (1-connection rows, measured RTT = PING p50 {} µs): {MODEL}.",
        r.ping_p50_us
    )?;
    let mut header = format!(
        "{:<31} {:>5} {:>9} {:>9} {:>9}",
        "scenario", "RT/op", "server µs", "client µs", "wall µs"
    );
    for rtt in MODEL_RTTS_US {
        header.push_str(&format!(
            " {:>11}",
            format!("@{} ms µs", trim_float(rtt / 1000.0))
        ));
    }
    writeln!(out, "{header}")?;
    for row in r.rows.iter().filter(|row| row.sequential()) {
        let mut text = format!(
            "{:<31} {:>5} {:>9.0} {:>9} {:>9.0}",
            row.label,
            trim_float(row.round_trips_per_op),
            row.server_cmd_us_per_op,
            row.client_us_per_op
                .map_or("-".to_string(), |c| format!("{c:.0}")),
            row.wall_us_per_op
        );
        for rtt in MODEL_RTTS_US {
            let t = row
                .projected_us(rtt)
                .map_or("-".to_string(), |t| format!("{t:.0}"));
            text.push_str(&format!(" {t:>11}"));
        }
        writeln!(out, "{text}")?;
    }
    Ok(())
}

/// `redis_version` from INFO server.
pub(super) fn redis_version(con: &mut redis::Connection) -> Result<String> {
    let info: String = redis::cmd("INFO").arg("server").query(con)?;
    Ok(info
        .lines()
        .find_map(|l| l.strip_prefix("redis_version:"))
        .unwrap_or("unknown")
        .trim()
        .to_string())
}

/// `host:port` or the socket path, for the report (never the credentials).
pub(super) fn server_name(client: &redis::Client) -> String {
    match client.get_connection_info().addr() {
        ConnectionAddr::Tcp(host, port) => format!("{host}:{port}"),
        ConnectionAddr::TcpTls { host, port, .. } => format!("{host}:{port} (tls)"),
        ConnectionAddr::Unix(path) => path.display().to_string(),
        #[allow(unreachable_patterns)]
        _ => "?".to_string(),
    }
}

/// `4`, `26`, `4.02`: no trailing zeros.
fn trim_float(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
