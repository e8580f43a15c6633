//! Every call ends within its deadline (`Client::deadline`), on every
//! topology, against real servers that stall: a stopped (SIGSTOP) or killed
//! standalone server, a stalled sentinel, a stalled Sentinel master, a
//! stalled cluster primary, and a slot left half migrated
//! (`CLUSTER SETSLOT MIGRATING/IMPORTING` with a key moved). Each sync and
//! async call (and `connect`) must return within the deadline plus
//! [`MARGIN`]; the measured times are printed (`--nocapture`).

use std::time::{Duration, Instant};

use redvote::{Client, Error, Retry, Site};
use redvote_testing::cluster::Cluster;
use redvote_testing::sentinel::Deployment;
use redvote_testing::TempServer;

/// What a call may take beyond its deadline: a sync step capped at what
/// remained, the scheduler, process start-up of nothing (library calls).
const MARGIN: Duration = Duration::from_secs(1);

/// A retry policy that would outlast any deadline here (on main, before
/// deadlines, it made a call to a stalled node run for minutes).
fn many() -> Retry {
    Retry::new(50, Duration::from_millis(50))
}

/// Run `f`, print how long it took, and check it ended within `deadline`
/// plus the margin.
fn within<T>(what: &str, deadline: Duration, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    let took = start.elapsed();
    eprintln!("deadline {deadline:?}: {what} returned after {took:?}");
    assert!(
        took <= deadline + MARGIN,
        "{what} took {took:?}, past its deadline {deadline:?} + {MARGIN:?}"
    );
    out
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Sync and async, on a connection made before the fault (`con`, `acon`)
/// and on a fresh one (`client.connect()`): an idempotent vote and a
/// non-idempotent post each end within the deadline. Answers the errors
/// (Ok calls are allowed: a fault the client rides out).
fn every_call(
    label: &str,
    client: &Client,
    con: &mut redvote::Connection,
    rt: &tokio::runtime::Runtime,
    acon: &redvote::AsyncConnection,
    site: &Site,
) -> Vec<Error> {
    let d = client.call_deadline();
    let mut errors = Vec::new();
    let mut keep = |r: redvote::Result<()>| {
        if let Err(e) = r {
            errors.push(e);
        }
    };
    keep(within(&format!("{label}: sync vote"), d, || {
        con.run(&site.vote("user:2", "1")).map(|_| ())
    }));
    keep(within(&format!("{label}: sync post"), d, || {
        con.run(&site.post("user:3", "t", "https://e.x"))
            .map(|_| ())
    }));
    keep(within(
        &format!("{label}: sync connect + vote"),
        d + d,
        || {
            let mut fresh = within(&format!("{label}: sync connect"), d, || client.connect())?;
            within(&format!("{label}: sync vote, new connection"), d, || {
                fresh.run(&site.vote("user:4", "1")).map(|_| ())
            })
        },
    ));
    keep(within(&format!("{label}: async vote"), d, || {
        rt.block_on(acon.run(&site.vote("user:5", "1"))).map(|_| ())
    }));
    keep(within(&format!("{label}: async post"), d, || {
        rt.block_on(acon.run(&site.post("user:6", "t", "https://e.x")))
            .map(|_| ())
    }));
    keep(within(&format!("{label}: async connect"), d, || {
        rt.block_on(client.connect_async()).map(|_| ())
    }));
    for e in &errors {
        eprintln!("{label}: {e}");
    }
    errors
}

/// Item 4: a stopped (SIGSTOP) server, then a killed one, with a retry
/// policy that would go on for long: every call ends at its deadline,
/// with `Error::Timeout`; the post "may have applied" once it was sent.
#[test]
fn a_stopped_standalone_server_fails_calls_within_the_deadline() {
    let mut server = TempServer::start().unwrap();
    let deadline = Duration::from_millis(800);
    let client = Client::open(&server.url())
        .unwrap()
        .timeouts(Duration::from_secs(5), Duration::from_secs(5))
        .retry(many())
        .deadline(deadline);
    let site = Site::default();
    let mut con = client.connect().unwrap();
    con.run(&site.post("user:1", "t", "https://e.x")).unwrap();
    let rt = runtime();
    let acon = rt.block_on(client.connect_async()).unwrap();
    server.signal("-STOP");
    let errors = every_call("stopped server", &client, &mut con, &rt, &acon, &site);
    assert_eq!(errors.len(), 6, "every call fails: {errors:?}");
    assert!(
        errors.iter().all(|e| matches!(e, Error::Timeout { .. })),
        "{errors:?}"
    );
    // the post was sent: it may have been applied
    assert!(errors[1].may_have_applied(), "{}", errors[1]);
    server.signal("-CONT");
    server.kill().unwrap();
    let errors = every_call("killed server", &client, &mut con, &rt, &acon, &site);
    assert_eq!(errors.len(), 6, "every call fails: {errors:?}");
    for e in &errors {
        assert!(matches!(e, Error::Timeout { .. }), "{e}");
    }
    // refused connections only: nothing was sent
    assert!(!errors[2].may_have_applied(), "{}", errors[2]);
}

/// The PID of the server listening on `port` (`INFO server`).
fn pid_on(port: u16) -> String {
    let info: String = redvote_testing::sentinel::query(port, redis::cmd("INFO").arg("server"))
        .expect("INFO server");
    info.lines()
        .find_map(|l| l.strip_prefix("process_id:"))
        .expect("process_id")
        .trim()
        .to_string()
}

fn signal(pid: &str, sig: &str) {
    let ok = std::process::Command::new("kill")
        .args([sig, pid])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig} {pid}");
}

/// Item 1: the first sentinel listed stalls: calls still find the master
/// (through the others) within the deadline; then the master stalls:
/// calls end at the deadline until the sentinels promote the replica,
/// then they succeed on it.
#[test]
fn a_stalled_sentinel_or_master_bounds_every_call() {
    let d = Deployment::start();
    let deadline = Duration::from_secs(2);
    let client = Client::open(&d.url())
        .unwrap()
        .timeouts(Duration::from_secs(5), Duration::from_secs(5))
        .retry(many())
        .deadline(deadline);
    let site = Site::new("{dl}:");
    let mut con = client.connect().unwrap();
    con.run(&site.post("user:1", "t", "https://e.x")).unwrap();
    let rt = runtime();
    let acon = rt.block_on(client.connect_async()).unwrap();

    let first = pid_on(d.sentinels[0].port);
    signal(&first, "-STOP");
    let errors = every_call("stalled sentinel", &client, &mut con, &rt, &acon, &site);
    signal(&first, "-CONT");
    assert!(errors.is_empty(), "the other sentinels answer: {errors:?}");

    d.master.signal("-STOP");
    let errors = every_call("stalled master", &client, &mut con, &rt, &acon, &site);
    for e in &errors {
        assert!(matches!(e, Error::Timeout { .. }), "{e}");
    }
    d.wait_promoted();
    let errors = every_call("after the failover", &client, &mut con, &rt, &acon, &site);
    d.master.signal("-CONT");
    assert!(errors.is_empty(), "the new master answers: {errors:?}");
}

/// Items 2 and 3, on a cluster of three primaries: a slot left half
/// migrated (a key of it moved, `MIGRATING`/`IMPORTING` left in place),
/// then a stalled primary: every call ends within its deadline.
#[test]
fn a_stuck_migration_or_a_stalled_primary_bounds_every_call() {
    let cluster = Cluster::start(3, 0);
    let deadline = Duration::from_secs(1);
    let client = Client::open(&cluster.url())
        .unwrap()
        .timeouts(Duration::from_secs(5), Duration::from_secs(5))
        .retry(many())
        .deadline(deadline);
    let site = Site::new("{dl}:");
    let mut con = client.connect().unwrap();
    con.run(&site.post("user:1", "t", "https://e.x")).unwrap();
    let rt = runtime();
    let acon = rt.block_on(client.connect_async()).unwrap();

    let slot = redvote::client::key_slot(b"{dl}:");
    let owner = cluster.owner(slot);
    let target = cluster
        .masters()
        .into_iter()
        .find(|m| m.port() != owner.port())
        .unwrap();
    let id = |n: &TempServer| redvote_testing::cluster::node_id(n);
    let mut to = redvote_testing::cluster::con(target);
    let mut from = redvote_testing::cluster::con(owner);
    redis::cmd("CLUSTER")
        .arg("SETSLOT")
        .arg(slot)
        .arg("IMPORTING")
        .arg(id(owner))
        .exec(&mut to)
        .unwrap();
    redis::cmd("CLUSTER")
        .arg("SETSLOT")
        .arg(slot)
        .arg("MIGRATING")
        .arg(id(target))
        .exec(&mut from)
        .unwrap();
    redis::cmd("MIGRATE")
        .arg("127.0.0.1")
        .arg(target.port())
        .arg("")
        .arg(0)
        .arg(5000)
        .arg("KEYS")
        .arg("{dl}:article:1")
        .exec(&mut from)
        .unwrap();
    let errors = every_call("stuck migration", &client, &mut con, &rt, &acon, &site);
    eprintln!("stuck migration: {} of 6 calls failed", errors.len());
    // the slot goes back to its owner
    for n in [&mut from, &mut to] {
        redis::cmd("CLUSTER")
            .arg("SETSLOT")
            .arg(slot)
            .arg("NODE")
            .arg(id(owner))
            .exec(n)
            .unwrap();
    }

    owner.signal("-STOP");
    let errors = every_call("stalled primary", &client, &mut con, &rt, &acon, &site);
    owner.signal("-CONT");
    assert!(!errors.is_empty(), "the slot's primary is stalled");
    for e in &errors {
        assert!(matches!(e, Error::Timeout { .. }), "{e}");
    }
}
