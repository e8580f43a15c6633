//! `redis+sentinel://` against a real Sentinel deployment: one master, one
//! replica (`--replicaof`) and three sentinels (`redis-server CONF
//! --sentinel`, quorum 2), all on free loopback ports, persistence off.
//! Ten voters vote campaign votes with vote ids through the sentinels while
//! the master fails over: by `SENTINEL FAILOVER` (the old master lives on
//! and is demoted), and by `kill -9` with `wait_for_replicas(1, 1 s)`.
//! Afterwards, on the new master, every acknowledged vote is there once: an
//! option's total is at least its acknowledged votes and at most those plus
//! the votes whose call failed (which may or may not have been applied).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use redvote::campaign::Voter;
use redvote::{Campaign, CampaignSettings, Client, Period, Retry};

use crate::support::sentinel::{query, strs, wait_for, Deployment, MASTER};
use crate::support::tls::certs;
use crate::support::voters::{self, Ballots, Vote};
use crate::support::TempServer;
use crate::support::{board, boards, real_total, wait_until, PATIENCE};

const VOTERS: usize = 10;

fn settings() -> CampaignSettings {
    let options = (0..VOTERS)
        .map(|i| {
            (
                format!("o{i}"),
                redvote::campaign::OptionSettings::weighted(1),
            )
        })
        .collect();
    boards([("B", board(&[Period::Total], options))])
}

/// A retry generous enough to ride out a failover: 60 sends, 100 ms apart
/// doubling up to 500 ms.
pub(crate) fn failover_retry() -> Retry {
    Retry {
        max_delay: Duration::from_millis(500),
        ..Retry::new(60, Duration::from_millis(100))
    }
}

/// `SENTINEL FAILOVER`, asked again until a sentinel takes it: on a busy
/// machine a sentinel may not yet count the replica as good
/// (`NOGOODSLAVE`), or its `OK` may come after the read timeout, when a
/// second ask answers `INPROG` (the failover is under way).
pub(crate) fn request_failover(d: &Deployment) {
    wait_for("a sentinel to start the failover", 60, || {
        let asked = redis::Client::open(format!("redis://127.0.0.1:{}", d.sentinels[0].port))
            .and_then(|client| client.get_connection_with_timeout(Duration::from_secs(2)))
            .and_then(|mut con| {
                con.set_read_timeout(Some(Duration::from_secs(5)))?;
                redis::cmd("SENTINEL")
                    .arg("FAILOVER")
                    .arg(MASTER)
                    .query::<String>(&mut con)
            });
        match asked {
            Ok(reply) => reply == "OK",
            Err(err) => err.to_string().contains("INPROG"),
        }
    });
}

/// Per voter: votes acknowledged, and votes whose call failed.
#[derive(Default)]
struct Tally {
    acked: AtomicU64,
    failed: AtomicU64,
}

/// On the master the sentinels name: each option's total against its
/// voter's tally. Answers the votes acknowledged, failed, and counted.
fn check_totals(d: &Deployment, c: &Campaign, tallies: &[Tally], run: &str) -> (u64, u64, u64) {
    let port = d.plain(d.master_port().expect("a sentinel names the master"));
    let mut con = redis::Client::open(format!("redis://127.0.0.1:{port}"))
        .unwrap()
        .get_connection()
        .unwrap();
    let (mut acked_all, mut failed_all, mut counted_all) = (0, 0, 0);
    let mut problems = Vec::new();
    for (i, t) in tallies.iter().enumerate() {
        let (acked, failed) = (
            t.acked.load(Ordering::SeqCst),
            t.failed.load(Ordering::SeqCst),
        );
        let counted = real_total(&mut con, c, "B", &format!("o{i}"));
        if counted < acked || counted > acked + failed {
            problems.push(format!(
                "o{i}: {counted} counted, {acked} acknowledged, {failed} failed"
            ));
        }
        acked_all += acked;
        failed_all += failed;
        counted_all += counted;
    }
    eprintln!(
        "{run}: {acked_all} acknowledged, {failed_all} failed, {counted_all} counted on the new master (port {port})"
    );
    assert!(
        problems.is_empty(),
        "{run}: acknowledged votes lost or votes counted twice: {problems:?}"
    );
    assert!(acked_all > 0, "{run}: no vote was acknowledged");
    // the retry policy is sized to ride out the failover: a vote that
    // failed for good means a failure classified wrongly (as final)
    assert_eq!(
        failed_all, 0,
        "{run}: votes failed (see their errors above)"
    );
    (acked_all, failed_all, counted_all)
}

/// The sum of the options' totals on the server at `port`.
fn total_on(port: u16, c: &Campaign) -> u64 {
    let mut con = redis::Client::open(format!("redis://127.0.0.1:{port}"))
        .unwrap()
        .get_connection()
        .unwrap();
    (0..VOTERS)
        .map(|i| real_total(&mut con, c, "B", &format!("o{i}")))
        .sum()
}

fn acked(tallies: &[Tally]) -> u64 {
    tallies.iter().map(|t| t.acked.load(Ordering::SeqCst)).sum()
}

/// The sentinel tests' voters: voter `i` votes for option `o{i}`, as a new
/// user each time (`u{i}-{n}`, vote id `r{i}-{n}`), `pace` apart, once a
/// vote (the driver's retry rides out the failover), counting into
/// `tallies[i]`, which the test reads while they vote.
#[derive(Clone)]
struct Counted {
    campaign: Campaign,
    stop: Arc<AtomicBool>,
    tallies: Arc<Vec<Tally>>,
    pace: Duration,
}

impl Ballots for Counted {
    type Tally = ();

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    fn pace(&self) -> Duration {
        self.pace
    }

    fn vote(&self, i: u64, n: u64) -> Vote {
        let id = format!("r{i}-{n}");
        let option = format!("o{i}");
        let call = self
            .campaign
            .vote_by(&Voter::new(format!("u{i}-{n}")).id(&id), &[("B", &option)]);
        Vote {
            voter: i,
            call,
            option: "",
            id,
        }
    }

    fn settle(
        &self,
        _: &mut (),
        vote: &Vote,
        result: redvote::Result<Vec<redvote::Ballot>>,
        _: Instant,
    ) -> bool {
        let tally = &self.tallies[vote.voter as usize];
        match result {
            Ok(_) => tally.acked.fetch_add(1, Ordering::SeqCst),
            Err(err) => {
                eprintln!("voter {}: vote {} failed: {err}", vote.voter, vote.id);
                tally.failed.fetch_add(1, Ordering::SeqCst)
            }
        };
        true
    }
}

/// `tasks` voters as tokio tasks on one `AsyncConnection` of `client`, and
/// `threads` voters with a sync `Connection` each (see [`Counted`]), voting
/// until `stop`; their tallies, and the voters to join (on `rt`).
fn start_voters(
    rt: &tokio::runtime::Runtime,
    client: &Client,
    c: &Campaign,
    (tasks, threads): (u64, u64),
    pace: Duration,
    stop: &Arc<AtomicBool>,
) -> (Arc<Vec<Tally>>, voters::Voters<()>) {
    let tallies: Arc<Vec<Tally>> =
        Arc::new((0..tasks + threads).map(|_| Tally::default()).collect());
    let counted = Counted {
        campaign: c.clone(),
        stop: stop.clone(),
        tallies: tallies.clone(),
        pace,
    };
    let voters = voters::start(rt, client, tasks, threads, Duration::ZERO, &counted);
    (tallies, voters)
}

/// A runtime for the voters' join (and async voters).
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// `SENTINEL FAILOVER` while 10 tokio tasks vote on one `AsyncConnection`
/// with `wait_for_replicas(1, 1 s)`. The old master lives on, and accepts
/// writes until Sentinel demotes it (about 10 s later): only WAIT tells
/// that it lost its replica, and the driver then asks the sentinels again.
/// The new master has no replica either until the old one is demoted and
/// syncs from it: until then every vote is applied but not acknowledged
/// (NotReplicated), and retried with its vote id.
///
/// The response timeout is longer than 10 WAITs: a WAIT blocks the
/// connection it is sent on, so WAITs that share one of the
/// AsyncConnection's connections (8 with a wait) wait one after the other
/// while no replica answers.
#[test]
fn async_votes_ride_out_a_sentinel_failover() {
    let started = Instant::now();
    let d = Deployment::start();
    let client = Client::open(&d.url())
        .unwrap()
        .timeouts(Duration::from_millis(500), Duration::from_secs(15))
        .retry(failover_retry())
        .wait_for_replicas(1, Duration::from_secs(1));
    let c = Campaign::new("failover");
    let rt = runtime();
    client
        .connect()
        .expect("connect through the sentinels")
        .run(&c.configure(&settings()))
        .unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let (tallies, voters) =
        start_voters(&rt, &client, &c, (VOTERS as u64, 0), Duration::ZERO, &stop);

    wait_until("votes acknowledged before the failover", PATIENCE, || {
        acked(&tallies) >= VOTERS as u64
    });
    let before = acked(&tallies);
    request_failover(&d);
    let promoted = d.wait_promoted();
    let at_promotion = total_on(d.replica.port(), &c);
    // the voters move to the new master before the old one is demoted
    let moved = wait_for("votes reach the new master", 60, || {
        total_on(d.replica.port(), &c) > at_promotion
    });
    let old_role: Option<String> = query(d.master.port(), redis::cmd("INFO").arg("replication"));
    assert!(
        old_role.is_some_and(|info| info.contains("role:master")),
        "the voters stayed on the old master until Sentinel demoted it"
    );
    let demoted = wait_for("the old master is made a replica", 60, || {
        query::<String>(d.master.port(), redis::cmd("INFO").arg("replication"))
            .is_some_and(|info| info.contains("role:slave"))
    });
    let at_demotion = acked(&tallies);
    let resumed = wait_until("votes are acknowledged again", PATIENCE, || {
        acked(&tallies) > at_demotion + VOTERS as u64
    });
    std::thread::sleep(Duration::from_millis(500));
    stop.store(true, Ordering::SeqCst);
    voters.join(&rt);
    eprintln!(
        "SENTINEL FAILOVER: promoted in {promoted:?}; votes on the new master {moved:?} later; \
         old master demoted {demoted:?} after that; acknowledged again {resumed:?} later"
    );
    assert!(
        acked(&tallies) > before,
        "no vote acknowledged after the failover"
    );
    check_totals(&d, &c, &tallies, "SENTINEL FAILOVER");
    eprintln!("SENTINEL FAILOVER test took {:?}", started.elapsed());
}

/// `kill -9` of the master while 10 threads vote, each on its own sync
/// `Connection` with `wait_for_replicas(1, 1 s)`: the sentinels promote the
/// replica, and a new replica of it is started (without one, WAIT 1 cannot
/// be met). Every acknowledged vote is on the new master.
#[test]
fn sync_votes_waited_for_survive_a_killed_master() {
    let started = Instant::now();
    let mut d = Deployment::start();
    let client = Client::open(&d.url())
        .unwrap()
        .timeouts(Duration::from_millis(500), Duration::from_secs(2))
        .retry(failover_retry())
        .wait_for_replicas(1, Duration::from_secs(1));
    let c = Campaign::new("killed");
    client
        .connect()
        .expect("connect through the sentinels")
        .run(&c.configure(&settings()))
        .unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let rt = runtime();
    let (tallies, voters) =
        start_voters(&rt, &client, &c, (0, VOTERS as u64), Duration::ZERO, &stop);

    wait_until("votes acknowledged before the kill", PATIENCE, || {
        acked(&tallies) >= VOTERS as u64
    });
    d.master.kill().unwrap();
    let promoted = d.wait_promoted();
    let new_replica = TempServer::start_with(
        &strs(&["--replicaof", "127.0.0.1", &d.replica.port().to_string()])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    )
    .unwrap_or_else(|e| panic!("new replica: {e}"));
    let at_replica = acked(&tallies);
    let resumed = wait_until("votes are acknowledged again", PATIENCE, || {
        acked(&tallies) > at_replica
    });
    std::thread::sleep(Duration::from_millis(500));
    stop.store(true, Ordering::SeqCst);
    voters.join(&rt);
    eprintln!(
        "kill -9: promoted in {promoted:?}; acknowledged again {resumed:?} after a new replica started"
    );
    check_totals(&d, &c, &tallies, "kill -9");
    drop(new_replica);
    eprintln!("kill -9 test took {:?}", started.elapsed());
}

/// A master that lost its replicas under `min-replicas-to-write 1` refuses
/// a vote before the script runs (`NOREPLICAS`): nothing is written, the
/// error is not "may have applied", and the vote is retried (through the
/// sentinels again, on a Sentinel URL) until the policy gives up.
#[test]
fn noreplicas_is_refused_before_the_script_runs_and_retried() {
    let server = TempServer::start_with(&["--min-replicas-to-write", "1"])
        .unwrap_or_else(|e| panic!("redis-server: {e}"));
    let mut raw = server.client().get_connection().unwrap();
    let c = Campaign::new("noreplicas");
    // configure while writes are allowed
    redis::cmd("CONFIG")
        .arg("SET")
        .arg("min-replicas-to-write")
        .arg("0")
        .query::<()>(&mut raw)
        .unwrap();
    c.configure(&settings()).run(&mut raw).unwrap();
    redis::cmd("CONFIG")
        .arg("SET")
        .arg("min-replicas-to-write")
        .arg("1")
        .query::<()>(&mut raw)
        .unwrap();
    let before = crate::support::digest(&mut raw);
    let client = Client::open(&server.url())
        .unwrap()
        .retry(Retry::new(3, Duration::from_millis(50)));
    let mut con = client.connect().unwrap();
    let started = Instant::now();
    let err = con
        .run(&c.vote("u1", &[("B", "o1")]))
        .expect_err("a vote without good replicas");
    assert!(err.to_string().contains("NOREPLICAS"), "{err}");
    assert!(!err.may_have_applied(), "refused before it ran: {err}");
    // 3 sends: 50 + 100 ms of waiting in between
    assert!(
        started.elapsed() >= Duration::from_millis(150),
        "not retried"
    );
    assert_eq!(
        crate::support::digest(&mut raw),
        before,
        "the refused vote wrote"
    );
}

/// `rediss+sentinel://`: the sentinels, the master and the replica on TLS
/// ports (replicating over TLS), the client given the test CA; 4 threads
/// vote with `wait_for_replicas(1, 1 s)` through a `SENTINEL FAILOVER`.
#[test]
fn rediss_sentinel_votes_over_tls_through_a_failover() {
    let started = Instant::now();
    let certs = certs();
    let d = Deployment::start_tls(Some(&certs));
    let client = Client::open_tls(&d.url(), &certs.tls("ca.pem", false))
        .unwrap()
        .timeouts(Duration::from_millis(500), Duration::from_secs(2))
        .retry(failover_retry())
        .wait_for_replicas(1, Duration::from_secs(1));
    let c = Campaign::new("tls-failover");
    client
        .connect()
        .expect("connect through the sentinels over TLS")
        .run(&c.configure(&settings()))
        .unwrap();
    // a wrong CA is refused at the sentinels already
    let wrong = Client::open_tls(&d.url(), &certs.tls("other-ca.pem", false))
        .unwrap()
        .retry(Retry::never());
    let err = wrong.connect().err().expect("connected with a wrong CA");
    assert!(err.to_string().contains("UnknownIssuer"), "{err}");

    let stop = Arc::new(AtomicBool::new(false));
    let rt = runtime();
    let (tallies, voters) = start_voters(&rt, &client, &c, (0, 4), Duration::ZERO, &stop);
    wait_until("votes acknowledged over TLS", PATIENCE, || {
        acked(&tallies) >= 4
    });
    request_failover(&d);
    let promoted = d.wait_promoted();
    let demoted = wait_for("the old master is made a replica", 60, || {
        query::<String>(d.master.port(), redis::cmd("INFO").arg("replication"))
            .is_some_and(|info| info.contains("role:slave"))
    });
    let at_demotion = acked(&tallies);
    let resumed = wait_until("votes are acknowledged again", PATIENCE, || {
        acked(&tallies) > at_demotion + 4
    });
    stop.store(true, Ordering::SeqCst);
    voters.join(&rt);
    eprintln!(
        "rediss+sentinel: promoted in {promoted:?}, old master demoted {demoted:?} later, \
         acknowledged again {resumed:?} later"
    );
    check_totals(&d, &c, &tallies, "rediss+sentinel SENTINEL FAILOVER");
    eprintln!("rediss+sentinel test took {:?}", started.elapsed());
}

/// Without `wait_for_replicas`, `SENTINEL FAILOVER` loses acknowledged
/// votes: the old master takes writes until Sentinel demotes it (about
/// 10 s), with no error to the client, and drops them when it resyncs from
/// the new master (docs/connecting.md, "Sentinel"). What holds even so: no vote is
/// counted twice (vote ids), and the voters end up on the new master
/// (`READONLY` from the demoted one makes them ask the sentinels again).
#[test]
fn without_wait_a_failover_counts_no_vote_twice() {
    let d = Deployment::start();
    let client = Client::open(&d.url())
        .unwrap()
        .timeouts(Duration::from_millis(500), Duration::from_secs(2))
        .retry(failover_retry());
    let c = Campaign::new("nowait");
    client
        .connect()
        .unwrap()
        .run(&c.configure(&settings()))
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let rt = runtime();
    let (tallies, voters) = start_voters(&rt, &client, &c, (0, 4), Duration::from_millis(2), &stop);
    wait_until("votes acknowledged before the failover", PATIENCE, || {
        acked(&tallies) >= 4
    });
    request_failover(&d);
    d.wait_promoted();
    wait_for("the old master is made a replica", 60, || {
        query::<String>(d.master.port(), redis::cmd("INFO").arg("replication"))
            .is_some_and(|info| info.contains("role:slave"))
    });
    let at_demotion = total_on(d.replica.port(), &c);
    wait_for("the voters write to the new master", 60, || {
        total_on(d.replica.port(), &c) > at_demotion + 4
    });
    stop.store(true, Ordering::SeqCst);
    voters.join(&rt);
    let mut con = redis::Client::open(d.replica.url())
        .unwrap()
        .get_connection()
        .unwrap();
    let mut lost = 0;
    for (i, t) in tallies.iter().enumerate() {
        let (acked, failed) = (
            t.acked.load(Ordering::SeqCst),
            t.failed.load(Ordering::SeqCst),
        );
        let counted = real_total(&mut con, &c, "B", &format!("o{i}"));
        assert!(
            counted <= acked + failed,
            "o{i}: {counted} counted, more than {acked} acknowledged + {failed} failed"
        );
        lost += acked.saturating_sub(counted);
    }
    eprintln!(
        "without WAIT: {lost} of {} acknowledged votes lost in the failover",
        acked(&tallies)
    );
}
