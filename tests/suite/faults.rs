//! Fault injection against real servers, each bounded in time:
//! - kill -9 of a server with `appendonly yes, appendfsync always` during a
//!   storm of 20 threads mixing article votes and campaign votes with ids:
//!   after the restart every acknowledged vote is there, each unacknowledged
//!   campaign vote counts 0 or 1 times, and the invariants hold;
//! - `CLIENT KILL` storms while 8 threads vote with ids through the
//!   retrying `Connection`: totals exact, no vote lost or doubled;
//! - a replica's `DEBUG DIGEST` equals its master's after a mixed workload
//!   with carry, rate limits and expiries;
//! - a SIGSTOPped server: calls (sync, async, CLI) fail within the timeout,
//!   saying the outcome is unknown;
//! - `BUSY` (a long script elsewhere): the call is retried until it runs,
//!   even a non-idempotent one, since it never ran.
//!
//! (The `SCRIPT FLUSH` storm is `site::transport`.) Each test prints its
//! figures with `--nocapture`.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use crate::support::TempServer;
use redis::Connection;
use redvote::campaign::{DenyLists, Dimension, LimitRule, Rolling, Voter, Window};
use redvote::{Campaign, Client, Error, Period, Retry, Site};

use crate::support::{self, board, boards, options, real_total};

/// A campaign with two boards (day + total, carry on one) and no limits.
fn storm_campaign(con: &mut Connection) -> Campaign {
    let mut s = boards([
        (
            "A",
            board(&[Period::Day, Period::Total], options([("x", 2), ("y", 1)])),
        ),
        ("B", board(&[Period::Total], options([("x", 1), ("y", 1)]))),
    ]);
    s.boards.get_mut("A").unwrap().carry = Some("0.5".to_string());
    support::setup(con, "storm", s)
}

/// `redvote check` of the default site and the campaign `c` finds nothing.
fn assert_checks_pass(con: &mut Connection, c: &Campaign) {
    let site = redvote_check::check_site(con, &Site::default()).unwrap();
    assert!(site.is_clean(), "{site}");
    let campaign = redvote_check::check_campaign(con, c).unwrap();
    assert!(campaign.is_clean(), "{campaign}");
}

/// (a) kill -9 with every write fsynced: nothing acknowledged is lost.
#[test]
fn kill_9_with_appendfsync_always_loses_no_acknowledged_vote() {
    let mut server = TempServer::start_with(&["--appendonly", "yes", "--appendfsync", "always"])
        .unwrap_or_else(|e| panic!("cannot start redis-server: {e}"));
    let mut con = support::con(&server);
    let site = Site::default();
    let articles: Vec<u64> = (0..4)
        .map(|i| {
            site.post("poster", &format!("t{i}"), "https://example.com")
                .run(&mut con)
                .unwrap()
        })
        .collect();
    let c = storm_campaign(&mut con);
    let url = server.url();
    let stop = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    for t in 0..20 {
        let (url, stop, site, c, articles) = (
            url.clone(),
            stop.clone(),
            site.clone(),
            c.clone(),
            articles.clone(),
        );
        threads.push(thread::spawn(move || {
            // no retry: a failure is the end of this thread's storm
            let client = Client::open(&url)
                .unwrap()
                .timeouts(Duration::from_secs(2), Duration::from_secs(2))
                .retry(Retry::never());
            let mut con = client.connect().unwrap();
            let (mut articles_acked, mut ids_acked, mut ids_failed) = (vec![], vec![], vec![]);
            for n in 0.. {
                if stop.load(Ordering::Relaxed) && n % 2 == 0 {
                    break;
                }
                if t % 2 == 0 {
                    let user = format!("t{t}:u{n}");
                    let id = articles[n % articles.len()];
                    match con.run(&site.vote(&user, id.to_string())) {
                        Ok(_) => articles_acked.push((user, id)),
                        Err(_) => break,
                    }
                } else {
                    let id = format!("t{t}:v{n}");
                    let voter = Voter::new("u").id(&id);
                    let pair = [("A", "x"), ("B", "y")][n % 2];
                    match con.run(&c.vote_by(&voter, &[pair])) {
                        Ok(b) => {
                            assert!(!b[0].replay);
                            ids_acked.push(id)
                        }
                        Err(e) => {
                            assert!(
                                e.may_have_applied() || !matches!(e, Error::Script { .. }),
                                "{e}"
                            );
                            ids_failed.push(id);
                            break;
                        }
                    }
                }
            }
            (articles_acked, ids_acked, ids_failed)
        }));
    }
    // let the storm run, then kill -9 in the middle of it (the pause is
    // the storm's length, not a wait: what follows holds for any length)
    support::wait_until("the storm wrote 200 keys", support::PATIENCE, || {
        support::dbsize(&mut con) >= 200
    });
    thread::sleep(Duration::from_millis(300));
    server.kill().unwrap();
    stop.store(true, Ordering::Relaxed);
    let (mut articles_acked, mut ids_acked, mut ids_failed) = (vec![], BTreeSet::new(), vec![]);
    for t in threads {
        let (a, i, f) = t.join().unwrap();
        articles_acked.extend(a);
        ids_acked.extend(i);
        ids_failed.extend(f);
    }
    server.restart().unwrap();
    let mut con = support::con(&server);
    // every acknowledged article vote is in its voter set
    for (user, id) in &articles_acked {
        let member: bool = redis::cmd("SISMEMBER")
            .arg(format!("voted:{id}"))
            .arg(user)
            .query(&mut con)
            .unwrap();
        assert!(member, "acknowledged vote of {user} on article {id} lost");
    }
    assert_checks_pass(&mut con, &c);
    // every acknowledged campaign vote is recorded; each record is one vote
    let recorded = support::keys(&mut con, &format!("{}vid:*", c.namespace()));
    let recorded: BTreeSet<String> = recorded
        .iter()
        .map(|k| k.rsplit_once("vid:").unwrap().1.to_string())
        .collect();
    let lost: Vec<_> = ids_acked.difference(&recorded).collect();
    assert!(
        lost.is_empty(),
        "acknowledged campaign votes lost: {lost:?}"
    );
    let extra = recorded.len() - ids_acked.len();
    assert!(
        extra <= ids_failed.len(),
        "{extra} unacknowledged applied of {}",
        ids_failed.len()
    );
    let applied = real_total(&mut con, &c, "A", "x") + real_total(&mut con, &c, "B", "y");
    assert_eq!(
        applied as usize,
        recorded.len(),
        "one real vote per recorded id"
    );
    // a second restart (AOF replay again) changes nothing
    let before = support::digest(&mut con);
    server.restart().unwrap();
    let mut con = support::con(&server);
    assert_eq!(support::digest(&mut con), before);
    println!(
        "kill -9: {} article votes and {} campaign votes acknowledged, all present after restart; \
         {} campaign votes unacknowledged, {extra} of them applied",
        articles_acked.len(),
        ids_acked.len(),
        ids_failed.len()
    );
}

/// A thread that kills every other client of `server` every 3 ms until
/// `stop`; it returns how many connections it killed.
fn kill_clients(server: &TempServer, stop: &Arc<AtomicBool>) -> thread::JoinHandle<i64> {
    let (stop, mut con) = (stop.clone(), support::con(server));
    thread::spawn(move || {
        let mut kills = 0;
        while !stop.load(Ordering::Relaxed) {
            let n: i64 = redis::cmd("CLIENT")
                .arg(&["KILL", "TYPE", "normal", "SKIPME", "yes"][..])
                .query(&mut con)
                .unwrap();
            kills += n;
            thread::sleep(Duration::from_millis(3));
        }
        kills
    })
}

/// A connection that retries up to 50 times, 1 ms apart at first.
fn storm_connection(url: &str) -> redvote::Connection {
    let retry = Retry::new(50, Duration::from_millis(1));
    Client::open(url).unwrap().retry(retry).connect().unwrap()
}

/// (c) `CLIENT KILL` every few ms while threads vote with ids: the retrying
/// connection gets every vote through, and none counts twice.
#[test]
fn client_kill_storms_neither_lose_nor_double_votes_with_ids() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = storm_campaign(&mut con);
    let url = server.url();
    let stop = Arc::new(AtomicBool::new(false));
    let killer = kill_clients(&server, &stop);
    const THREADS: usize = 8;
    const VOTES: usize = 150;
    let voters: Vec<_> = (0..THREADS)
        .map(|t| {
            let (url, c) = (url.clone(), c.clone());
            thread::spawn(move || {
                let mut con = storm_connection(&url);
                let mut replays = 0;
                for n in 0..VOTES {
                    let id = format!("t{t}:v{n}");
                    let voter = Voter::new("u").id(&id);
                    let ballots = con
                        .run(&c.vote_by(&voter, &[("A", "x")]))
                        .unwrap_or_else(|e| panic!("vote {id} failed after retries: {e}"));
                    replays += usize::from(ballots[0].replay);
                }
                replays
            })
        })
        .collect();
    // and one thread without ids: its votes are never resent after an
    // unknown outcome, so each one counts 0 or 1 times, and a vote that
    // failed says it may have been applied
    let blind = {
        let (url, c) = (url.clone(), c.clone());
        thread::spawn(move || {
            let mut con = storm_connection(&url);
            let (mut acked, mut unknown) = (0, 0);
            for _ in 0..VOTES {
                match con.run(&c.vote("u", &[("B", "y")])) {
                    Ok(_) => acked += 1,
                    Err(e) => {
                        assert!(e.may_have_applied(), "{e}");
                        unknown += 1;
                    }
                }
            }
            (acked, unknown)
        })
    };
    let replays: usize = voters.into_iter().map(|t| t.join().unwrap()).sum();
    let (acked, unknown) = blind.join().unwrap();
    stop.store(true, Ordering::Relaxed);
    let kills = killer.join().unwrap();
    let mut con = support::con(&server);
    assert_eq!(real_total(&mut con, &c, "A", "x"), (THREADS * VOTES) as u64);
    assert_checks_pass(&mut con, &c);
    let counted = real_total(&mut con, &c, "B", "y");
    assert!(
        (acked..=acked + unknown).contains(&counted),
        "without ids: {acked} acknowledged, {unknown} unknown, {counted} counted"
    );
    assert!(kills > 0, "the storm killed no connection");
    println!(
        "CLIENT KILL storm: {} votes with ids, {kills} connections killed, {replays} answered as \
         replays (applied, reply lost, retried), total exact; without ids: {acked} acknowledged, \
         {unknown} failed with an unknown outcome, {counted} counted",
        THREADS * VOTES
    );
}

/// The same storm on the async path: 20 tokio tasks sharing one
/// `AsyncConnection` (redis-rs's reconnecting `ConnectionManager`).
#[test]
fn client_kill_storms_on_the_async_connection_stay_exact() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = storm_campaign(&mut con);
    let stop = Arc::new(AtomicBool::new(false));
    let killer = kill_clients(&server, &stop);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let client = Client::open(&server.url())
        .unwrap()
        .retry(Retry::new(50, Duration::from_millis(2)));
    const TASKS: usize = 20;
    const VOTES: usize = 50;
    let replays: usize = rt.block_on(async {
        let acon = client.connect_async().await.unwrap();
        let tasks: Vec<_> = (0..TASKS)
            .map(|t| {
                let (acon, c) = (acon.clone(), c.clone());
                tokio::spawn(async move {
                    let mut replays = 0;
                    for n in 0..VOTES {
                        let id = format!("a{t}:v{n}");
                        let voter = Voter::new("u").id(&id);
                        let ballots = acon
                            .run(&c.vote_by(&voter, &[("B", "x")]))
                            .await
                            .unwrap_or_else(|e| panic!("vote {id} failed after retries: {e}"));
                        replays += usize::from(ballots[0].replay);
                    }
                    replays
                })
            })
            .collect();
        let mut sum = 0;
        for t in tasks {
            sum += t.await.unwrap();
        }
        sum
    });
    stop.store(true, Ordering::Relaxed);
    let kills = killer.join().unwrap();
    let mut con = support::con(&server);
    assert_eq!(real_total(&mut con, &c, "B", "x"), (TASKS * VOTES) as u64);
    println!(
        "async CLIENT KILL storm: {} votes with ids, {kills} connections killed, {replays} replays, \
         total exact",
        TASKS * VOTES
    );
}

/// (d) A replica ends up with its master's data set, byte for byte.
#[test]
fn a_replica_digest_equals_its_masters_after_a_mixed_workload() {
    let master = support::server();
    let port = master.port().to_string();
    let replica = TempServer::start_with(&["--replicaof", "127.0.0.1", &port])
        .unwrap_or_else(|e| panic!("cannot start redis-server: {e}"));
    let mut con = support::con(&master);
    let site = Site::default();
    let mut articles = vec![];
    for i in 0..5 {
        articles.push(
            site.post("p", &format!("t{i}"), "https://e.x")
                .run(&mut con)
                .unwrap(),
        );
    }
    let mut s = boards([
        (
            "A",
            board(
                &[Period::Hour, Period::Day, Period::Total],
                options([("x", 3), ("y", 1)]),
            ),
        ),
        ("B", board(&[Period::Total], options([("x", 1), ("y", 1)]))),
    ]);
    let a = s.boards.get_mut("A").unwrap();
    a.carry = Some("0.25".to_string());
    a.retention = [(Period::Hour, 1)].into();
    s.limits = Some(vec![
        LimitRule::fixed("per-second", &[Dimension::User], Window::Second, 1000),
        LimitRule::fixed("once", &[Dimension::Device], Window::Campaign, 1000),
        LimitRule::rolling("smooth", &[Dimension::User], Rolling::new(1000, 1)),
    ]);
    s.deny = Some(DenyLists {
        users: Some(vec!["banned".to_string()]),
        channels: None,
    });
    let c = support::setup(&mut con, "rep", s);
    for n in 0..300 {
        let user = format!("u{}", n % 37);
        let article = articles[n % articles.len()].to_string();
        match n % 4 {
            0 => drop(site.vote(&user, &article).run(&mut con).unwrap()),
            1 => drop(site.downvote(&user, &article).run(&mut con).unwrap()),
            _ => {
                let id = format!("v{n}");
                let voter = Voter::new(&user).device("pc").id(&id);
                c.vote_by(&voter, &[("A", "x"), ("B", ["x", "y"][n % 2])])
                    .run(&mut con)
                    .unwrap();
            }
        }
    }
    // refusals too (nothing to replicate)
    assert!(c.vote("banned", &[("A", "x")]).run(&mut con).is_err());
    let mut rcon = support::con(&replica);
    let deadline = Instant::now() + support::PATIENCE;
    loop {
        let offset = |con: &mut Connection| -> Option<i64> {
            let info: String = redis::cmd("INFO").arg("replication").query(con).ok()?;
            let field = |name: &str| {
                info.lines()
                    .find_map(|l| l.strip_prefix(name))
                    .map(|v| v.trim().to_string())
            };
            if field("role:")? == "slave" && field("master_link_status:")? != "up" {
                return None;
            }
            field(if field("role:")? == "slave" {
                "slave_repl_offset:"
            } else {
                "master_repl_offset:"
            })?
            .parse()
            .ok()
        };
        let (m, r) = (offset(&mut con), offset(&mut rcon));
        if let (Some(m), Some(r)) = (m, r) {
            let (dm, dr) = (support::digest(&mut con), support::digest(&mut rcon));
            if m == r && dm == dr {
                assert_ne!(dm, "0".repeat(40));
                assert_checks_pass(&mut rcon, &c);
                println!("replica: digest {dm} equal at offset {m}");
                break;
            }
        }
        assert!(
            Instant::now() < deadline,
            "the replica never matched its master"
        );
        thread::sleep(Duration::from_millis(50));
    }
}

/// `BUSY`: another client's long script blocks the server; our call never
/// ran, so it is retried (even a post) and lands once.
#[test]
fn busy_is_retried_until_the_call_runs_once() {
    let server = TempServer::start_with(&["--busy-reply-threshold", "50"])
        .unwrap_or_else(|e| panic!("cannot start redis-server: {e}"));
    let site = Site::default();
    let busy_for = |ms: u64| {
        let mut con = support::con(&server);
        thread::spawn(move || {
            let script = "local t = redis.call('TIME') local stop = t[1] * 1000000 + t[2] + ARGV[1] * 1000 \
                          repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] >= stop return 1";
            // a script ended by SCRIPT KILL answers an error
            let _: redis::RedisResult<i64> = redis::cmd("EVAL")
                .arg(script)
                .arg(0)
                .arg(ms)
                .query(&mut con);
        })
    };
    let mut raw = support::con(&server);
    // without retries, BUSY is the answer (the script runs until killed)
    let mut once = Client::open(&server.url())
        .unwrap()
        .retry(Retry::never())
        .connect()
        .unwrap();
    let blocker = busy_for(60_000);
    wait_busy(&mut raw);
    let err = once.run(&site.post("p", "t", "https://e.x")).unwrap_err();
    assert!(
        matches!(&err, Error::Redis(e) if e.code() == Some("BUSY")),
        "{err}"
    );
    assert!(!err.may_have_applied());
    let _: () = redis::cmd("SCRIPT").arg("KILL").query(&mut raw).unwrap();
    blocker.join().unwrap();
    assert_eq!(
        support::keys(&mut raw, "article*"),
        BTreeSet::new(),
        "a BUSY post wrote"
    );
    // with a policy of 10 sends, 50 ms apart doubling (9 s of waits in
    // all), it goes through once the 1.5 s script ends: BUSY replies past
    // wait_busy's own one were the post's
    let mut con = Client::open(&server.url())
        .unwrap()
        .retry(Retry::new(10, Duration::from_millis(50)))
        .connect()
        .unwrap();
    let refused = busy_count(&mut raw);
    let blocker = busy_for(1500);
    wait_busy(&mut raw);
    let id = con.run(&site.post("p", "t2", "https://e.x")).unwrap();
    blocker.join().unwrap();
    assert_eq!(id, 1, "exactly one article was posted");
    assert!(
        busy_count(&mut raw) > refused + 1,
        "the post never met BUSY (the script ended before it was sent)"
    );
    assert_eq!(
        support::keys(&mut raw, "article:[0-9]*"),
        support::set(["article:1"])
    );
}

/// Wait until `con`'s PING is answered BUSY (a script runs past the
/// threshold): one BUSY reply.
fn wait_busy(con: &mut Connection) {
    support::wait_until("the server answers BUSY", support::PATIENCE, || {
        let answer = redis::cmd("PING").query::<String>(con);
        matches!(&answer, Err(e) if e.code() == Some("BUSY"))
    });
}

/// The BUSY error replies the server sent so far (INFO errorstats).
fn busy_count(con: &mut Connection) -> u64 {
    let info: String = redis::cmd("INFO").arg("errorstats").query(con).unwrap();
    info.lines()
        .find_map(|l| l.strip_prefix("errorstat_BUSY:count="))
        .map_or(0, |n| n.trim().parse().unwrap())
}
