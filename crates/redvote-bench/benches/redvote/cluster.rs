//! The `cluster` section: aggregate campaign-vote throughput on a Redis
//! Cluster of 1 master against 3 masters (no replicas), many campaigns
//! (their hash-tagged namespaces spread the slots over the masters), `tasks`
//! tokio tasks on 2 worker threads voting through one
//! [`redvote::AsyncConnection`] of a `redis+cluster://` URL, and the
//! servers' CPU per vote (INFO cpu `used_cpu_sys + used_cpu_user` deltas
//! summed over the masters, divided by the votes). Every cluster is started
//! here on free loopback ports (throwaway servers) and killed at the end;
//! one run per size (no repetition: read the figures as one sample). The
//! clusters are `redvote_testing::cluster::Cluster`s, as the tests' are.

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use redvote::{Campaign, CampaignSettings, Client};
use redvote_testing::cluster::Cluster;
use redvote_testing::TempServer;
use serde::Serialize;

use crate::measure::server_cpu;

/// One row: a cluster size and what the votes did on it.
#[derive(Debug, Clone, Serialize)]
pub(super) struct ClusterRow {
    pub masters: usize,
    pub campaigns: usize,
    pub tasks: u64,
    pub votes: u64,
    pub seconds: f64,
    pub votes_per_sec: f64,
    /// Server CPU (user + sys, all masters) per vote, microseconds.
    pub cpu_us_per_vote: f64,
}

/// What the section runs.
#[derive(Debug, Clone)]
pub(super) struct ClusterPlan {
    pub masters: Vec<usize>,
    pub campaigns: usize,
    pub tasks: u64,
    pub votes: u64,
}

fn cpu(nodes: &[TempServer]) -> Result<f64> {
    let mut sum = 0.0;
    for n in nodes {
        sum += server_cpu(&mut n.client().get_connection()?)?.context("INFO cpu")?;
    }
    Ok(sum)
}

fn one(masters: usize, plan: &ClusterPlan) -> Result<ClusterRow> {
    // the harness's cluster: the slots split evenly, no replicas
    let cluster = Cluster::start(masters, 0);
    let (nodes, url) = (&cluster.nodes, cluster.url());
    let client = Client::open(&url)?.timeouts(Duration::from_secs(5), Duration::from_secs(30));
    let settings: CampaignSettings = serde_json::from_str(
        r#"{"boards": {"stars": {"periods": ["day", "total"],
            "options": {"a": {}, "b": {}, "c": {}, "d": {}, "e": {}}}}}"#,
    )?;
    let campaigns: Arc<Vec<Campaign>> = Arc::new(
        (0..plan.campaigns)
            .map(|i| Campaign::new(&format!("cl{i}")))
            .collect(),
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let con = rt.block_on(client.connect_async())?;
    // configure (and load the scripts on every master: the first call of a
    // node answers NOSCRIPT, then EVAL)
    rt.block_on(async {
        for c in campaigns.iter() {
            con.run(&c.configure(&settings)).await?;
            con.run(&c.vote("warmup", &[("stars", "a")])).await?;
        }
        anyhow::Ok(())
    })?;
    let cpu0 = cpu(nodes)?;
    let per_task = plan.votes.div_ceil(plan.tasks);
    let started = Instant::now();
    let acked: u64 = rt.block_on(async {
        let handles: Vec<_> = (0..plan.tasks)
            .map(|t| {
                let (con, campaigns) = (con.clone(), campaigns.clone());
                tokio::spawn(async move {
                    let options = ["a", "b", "c", "d", "e"];
                    for n in 0..per_task {
                        let i = (t * per_task + n) as usize;
                        let c = &campaigns[i % campaigns.len()];
                        let user = format!("u{t}-{n}");
                        con.run(&c.vote(&user, &[("stars", options[i % 5])]))
                            .await?;
                    }
                    anyhow::Ok(per_task)
                })
            })
            .collect();
        let mut sum = 0;
        for h in handles {
            sum += h.await??;
        }
        anyhow::Ok(sum)
    })?;
    let seconds = started.elapsed().as_secs_f64();
    let cpu1 = cpu(nodes)?;
    ensure!(acked == per_task * plan.tasks, "votes lost in the count");
    Ok(ClusterRow {
        masters,
        campaigns: plan.campaigns,
        tasks: plan.tasks,
        votes: acked,
        seconds,
        votes_per_sec: acked as f64 / seconds,
        cpu_us_per_vote: (cpu1 - cpu0) * 1e6 / acked as f64,
    })
}

/// Every size of `plan`, one run each.
pub(super) fn run_cluster(plan: &ClusterPlan) -> Result<Vec<ClusterRow>> {
    plan.masters.iter().map(|&m| one(m, plan)).collect()
}

/// The section as a table, with the throughput ratio of each size to the
/// first.
pub(super) fn write_cluster(out: &mut impl Write, rows: &[ClusterRow]) -> Result<()> {
    writeln!(
        out,
        "\ncluster: campaign votes through redis+cluster:// (one run each, throwaway nodes)"
    )?;
    writeln!(
        out,
        "{:>8} {:>10} {:>6} {:>8} {:>9} {:>10} {:>12} {:>8}",
        "masters", "campaigns", "tasks", "votes", "seconds", "votes/s", "cpu us/vote", "ratio"
    )?;
    let base = rows.first().map_or(1.0, |r| r.votes_per_sec);
    for r in rows {
        writeln!(
            out,
            "{:>8} {:>10} {:>6} {:>8} {:>9.2} {:>10.0} {:>12.1} {:>7.2}x",
            r.masters,
            r.campaigns,
            r.tasks,
            r.votes,
            r.seconds,
            r.votes_per_sec,
            r.cpu_us_per_vote,
            r.votes_per_sec / base
        )?;
    }
    Ok(())
}
