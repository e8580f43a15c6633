//! The `replicas` section: what `Client::wait_for_replicas(1, 1 s)` costs.
//! A master and one replica (throwaway servers on free loopback ports,
//! persistence off), `tasks` tokio tasks on 2 worker threads voting campaign
//! votes with vote ids, three ways:
//!
//! * `no wait`: one shared [`redvote::AsyncConnection`], no WAIT;
//! * `wait 1`: the same with `wait_for_replicas(1, 1 s)` (each vote's
//!   EVALSHA and `WAIT 1 1000` in one round trip), on one connection
//!   (`async_connections(1)`);
//! * `wait 1, N connections`: the wait, on an AsyncConnection that spreads
//!   its calls over N connections (`Client::async_connections`; 8 is the
//!   default with a wait). A WAIT holds the connection it is sent on until
//!   the replica acknowledges, so the calls queued behind it on that
//!   connection wait too; this row shows what spreading them buys.
//!
//! The modes alternate in `rounds` rounds (a slow spell of the machine hits
//! all of them); each row gives the median, min and max votes/s and the
//! master's CPU (INFO cpu, user + sys) per vote. After the votes, the
//! replica must hold every acknowledged vote (checked: the section fails
//! otherwise).

use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use redvote::{Campaign, CampaignSettings, Client, Voter};
use redvote_testing::TempServer;
use serde::Serialize;

use crate::measure::server_cpu;

/// What the section runs.
#[derive(Debug, Clone)]
pub(super) struct ReplicaPlan {
    pub tasks: u64,
    /// Votes of each mode in each round.
    pub votes: u64,
    pub rounds: u64,
    /// Connections of the spread row.
    pub connections: usize,
}

/// One mode: its votes/s over the rounds and the master's CPU per vote.
#[derive(Debug, Clone, Serialize)]
pub(super) struct ReplicaRow {
    pub mode: String,
    pub wait: bool,
    pub connections: usize,
    pub tasks: u64,
    pub votes_per_round: u64,
    pub rounds: u64,
    /// Median, min and max over the rounds.
    pub votes_per_sec: f64,
    pub votes_per_sec_min: f64,
    pub votes_per_sec_max: f64,
    /// The master's CPU (user + sys) per vote, microseconds (median).
    pub master_cpu_us_per_vote: f64,
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// `votes` campaign votes on `c` (rounded up to a multiple of `tasks`) by
/// `tasks` tasks sharing `con`: how many, and the seconds they took.
fn vote(
    rt: &tokio::runtime::Runtime,
    con: &redvote::AsyncConnection,
    c: &Campaign,
    tasks: u64,
    votes: u64,
    tag: &str,
) -> Result<(u64, f64)> {
    let per_task = votes.div_ceil(tasks);
    let started = Instant::now();
    rt.block_on(async {
        let handles: Vec<_> = (0..tasks)
            .map(|t| {
                let (con, c, tag) = (con.clone(), c.clone(), tag.to_string());
                tokio::spawn(async move {
                    for n in 0..per_task {
                        let (user, id) = (format!("u{t}-{n}"), format!("{tag}-{t}-{n}"));
                        con.run(&c.vote_by(&Voter::new(&user).id(&id), &[("stars", "a")]))
                            .await?;
                    }
                    anyhow::Ok(())
                })
            })
            .collect();
        for h in handles {
            h.await??;
        }
        anyhow::Ok(())
    })?;
    Ok((per_task * tasks, started.elapsed().as_secs_f64()))
}

/// The real total of option `a` on the server at `server`.
fn total(server: &TempServer, c: &Campaign) -> Result<u64> {
    let score: Option<f64> = redis::cmd("ZSCORE")
        .arg(format!("{}b:stars:real:total", c.namespace()))
        .arg("a")
        .query(&mut server.client().get_connection()?)?;
    Ok(score.unwrap_or(0.0) as u64)
}

/// The section: every mode, `plan.rounds` alternated rounds.
pub(super) fn run_replicas(plan: &ReplicaPlan) -> Result<Vec<ReplicaRow>> {
    let master = TempServer::start_with(&[]).context("the master")?;
    let replica = TempServer::start_with(&["--replicaof", "127.0.0.1", &master.port().to_string()])
        .context("the replica")?;
    // a replica's first sync waits 5 s for more replicas by default
    redis::cmd("CONFIG")
        .arg("SET")
        .arg("repl-diskless-sync-delay")
        .arg("0")
        .exec(&mut master.client().get_connection()?)?;
    let synced = Instant::now();
    loop {
        let info: String = redis::cmd("INFO")
            .arg("replication")
            .query(&mut replica.client().get_connection()?)?;
        if info.contains("master_link_status:up") {
            break;
        }
        ensure!(
            synced.elapsed() < Duration::from_secs(20),
            "the replica never synced"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let plain =
        Client::open(&master.url())?.timeouts(Duration::from_secs(5), Duration::from_secs(30));
    let waited = plain.clone().wait_for_replicas(1, Duration::from_secs(1));
    let c = Campaign::new("replicas");
    let settings: CampaignSettings = serde_json::from_str(
        r#"{"boards": {"stars": {"periods": ["day", "total"], "options": {"a": {}}}}}"#,
    )?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let modes: Vec<(String, bool, usize, Client)> = vec![
        ("no wait".into(), false, 1, plain.clone()),
        (
            "wait 1".into(),
            true,
            1,
            waited.clone().async_connections(1),
        ),
        (
            format!("wait 1, {} connections", plan.connections),
            true,
            plan.connections,
            waited.clone().async_connections(plan.connections),
        ),
    ];
    let modes: Vec<(String, bool, usize, redvote::AsyncConnection)> = modes
        .into_iter()
        .map(|(mode, wait, n, client)| Ok((mode, wait, n, rt.block_on(client.connect_async())?)))
        .collect::<Result<_>>()?;
    rt.block_on(modes[0].3.run(&c.configure(&settings)))?;
    // the script cache, and the first WAIT (warm-up, not counted)
    let (mut acked, _) = vote(&rt, &modes[1].3, &c, plan.tasks.min(4), 4, "warmup")?;
    let mut rates: Vec<Vec<f64>> = vec![Vec::new(); modes.len()];
    let mut cpus: Vec<Vec<f64>> = vec![Vec::new(); modes.len()];
    let mut master_con = master.client().get_connection()?;
    for round in 0..plan.rounds {
        for (i, (_, _, _, con)) in modes.iter().enumerate() {
            let cpu0 = server_cpu(&mut master_con)?.context("INFO cpu")?;
            let (votes, seconds) = vote(
                &rt,
                con,
                &c,
                plan.tasks,
                plan.votes,
                &format!("r{round}m{i}"),
            )?;
            let cpu1 = server_cpu(&mut master_con)?.context("INFO cpu")?;
            acked += votes;
            rates[i].push(votes as f64 / seconds);
            cpus[i].push((cpu1 - cpu0) * 1e6 / votes as f64);
        }
    }
    // every acknowledged vote on the master, and (the last ones were waited
    // for) on the replica
    ensure!(total(&master, &c)? == acked, "the master lost votes");
    let waited_at = Instant::now();
    while total(&replica, &c)? != acked {
        ensure!(
            waited_at.elapsed() < Duration::from_secs(5),
            "the replica lacks votes: {} of {acked}",
            total(&replica, &c)?
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(modes
        .iter()
        .zip(rates.into_iter().zip(cpus))
        .map(|((mode, wait, connections, _), (rates, cpus))| ReplicaRow {
            mode: mode.clone(),
            wait: *wait,
            connections: *connections,
            tasks: plan.tasks,
            votes_per_round: plan.votes.div_ceil(plan.tasks) * plan.tasks,
            rounds: plan.rounds,
            votes_per_sec_min: rates.iter().copied().fold(f64::INFINITY, f64::min),
            votes_per_sec_max: rates.iter().copied().fold(0.0, f64::max),
            votes_per_sec: median(rates),
            master_cpu_us_per_vote: median(cpus),
        })
        .collect())
}

/// The section as a table, each row's ratio to the first (no wait).
pub(super) fn write_replicas(out: &mut impl Write, rows: &[ReplicaRow]) -> Result<()> {
    let Some(first) = rows.first() else {
        return Ok(());
    };
    writeln!(
        out,
        "\nreplicas: campaign votes with ids on a master with one replica, {} tasks, {} rounds \
         of {} votes a mode (median, min-max)",
        first.tasks, first.rounds, first.votes_per_round
    )?;
    writeln!(
        out,
        "{:<26} {:>10} {:>17} {:>19} {:>8}",
        "mode", "votes/s", "min-max", "master cpu us/vote", "ratio"
    )?;
    for r in rows {
        writeln!(
            out,
            "{:<26} {:>10.0} {:>8.0}-{:<8.0} {:>19.1} {:>7.2}x",
            r.mode,
            r.votes_per_sec,
            r.votes_per_sec_min,
            r.votes_per_sec_max,
            r.master_cpu_us_per_vote,
            r.votes_per_sec / first.votes_per_sec
        )?;
    }
    Ok(())
}
