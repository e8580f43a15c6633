//! The driver under a `CLIENT KILL` storm (every connection but the
//! killer's dropped every 5 ms, for 3 s), with a retry policy of 5 sends:
//! a campaign vote without a vote id is not idempotent, so the driver never
//! resends it once it may have been applied (docs/connecting.md, "Retries
//! and vote ids"), and a vote with an id is resent until acknowledged and
//! counts once. Each vote is a user of its own, and the campaign keeps a
//! vote log, so every vote's fate is read back one by one: an acknowledged
//! vote is applied exactly once, a failure that is not "may have applied"
//! applied nothing, one that is applied at most once; the board's total is
//! the log's. (The language packages' clients resend any call after a lost
//! connection: there, such votes counted 2-4 times.) Run with
//! `--nocapture` for the figures.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use redis::Connection;
use redvote::campaign::Voter;
use redvote::{Ballot, Campaign, Client, Period, Retry};

use crate::support::{self, board, boards, options, real_total, TempServer, PATIENCE};

/// How long the storm lasts: the voters vote until it ends.
const STORM: Duration = Duration::from_secs(3);

/// How often the killer drops every other connection.
const KILL_EVERY: Duration = Duration::from_millis(5);

/// Votes without an id go to option `x`, votes with one to `y`.
fn storm_campaign(con: &mut Connection, name: &str) -> Campaign {
    let settings = boards([("B", board(&[Period::Total], options([("x", 1), ("y", 1)])))]);
    support::setup(con, name, settings.with_vote_log(1_000_000))
}

/// The policy under test: 5 sends, 1 ms apart doubling.
fn client(server: &TempServer) -> Client {
    Client::open(&server.url())
        .unwrap()
        .retry(Retry::new(5, Duration::from_millis(1)))
}

/// A thread that drops every other client of `server` every [`KILL_EVERY`]
/// until `stop`; it answers how many connections it dropped.
fn killer(server: &TempServer, stop: &Arc<AtomicBool>) -> thread::JoinHandle<u64> {
    let (stop, mut con) = (stop.clone(), support::con(server));
    thread::spawn(move || {
        let mut kills = 0;
        while !stop.load(Ordering::Relaxed) {
            let n: u64 = redis::cmd("CLIENT")
                .arg(&["KILL", "TYPE", "normal", "SKIPME", "yes"][..])
                .query(&mut con)
                .unwrap();
            kills += n;
            thread::sleep(KILL_EVERY);
        }
        kills
    })
}

/// What one voter saw. Users are named after the vote: `n{voter}-{k}`
/// without an id, `i{voter}-{k}` with one.
#[derive(Default)]
struct Seen {
    /// Votes without an id acknowledged.
    acked: Vec<String>,
    /// Votes without an id that failed, "may have applied".
    unknown: Vec<String>,
    /// Votes without an id that failed, not "may have applied".
    refused: Vec<String>,
    /// Votes with an id, each acknowledged in the end.
    with_id: Vec<String>,
    /// Votes with an id answered as a replay (applied by an earlier send).
    replays: u64,
    /// Sends of a vote with an id that failed (then sent again).
    id_failures: u64,
}

impl Seen {
    fn add(&mut self, other: Seen) {
        self.acked.extend(other.acked);
        self.unknown.extend(other.unknown);
        self.refused.extend(other.refused);
        self.with_id.extend(other.with_id);
        self.replays += other.replays;
        self.id_failures += other.id_failures;
    }

    /// Settle vote `user` without an id.
    fn without_id(&mut self, user: String, result: redvote::Result<Vec<Ballot>>) {
        match result {
            Ok(_) => self.acked.push(user),
            Err(e) if e.may_have_applied() => self.unknown.push(user),
            Err(_) => self.refused.push(user),
        }
    }

    /// Settle one send of vote `user` with an id; true once acknowledged.
    fn with_id(&mut self, user: &str, result: redvote::Result<Vec<Ballot>>) -> bool {
        match result {
            Ok(ballots) => {
                self.replays += u64::from(ballots[0].replay);
                self.with_id.push(user.to_string());
                true
            }
            Err(_) => {
                self.id_failures += 1;
                false
            }
        }
    }
}

/// The calls voter `v` makes for its `k`th votes: one without an id (a user
/// of its own, option `x`), one with (option `y`, the id its user's name).
fn calls(c: &Campaign, v: usize, k: u64) -> [(String, redvote::Call<Vec<Ballot>>); 2] {
    let (plain, keyed) = (format!("n{v}-{k}"), format!("i{v}-{k}"));
    let without = c.vote(&plain, &[("B", "x")]);
    let with = c.vote_by(&Voter::new(&keyed).id(&keyed), &[("B", "y")]);
    [(plain, without), (keyed, with)]
}

/// Every user of the campaign's vote log, with the times it is there.
fn logged(con: &mut Connection, c: &Campaign) -> HashMap<String, u32> {
    let entries: Vec<(String, Vec<String>)> = redis::cmd("XRANGE")
        .arg(format!("{}log", c.namespace()))
        .arg("-")
        .arg("+")
        .query(con)
        .unwrap();
    let mut users = HashMap::new();
    for (_, fields) in entries {
        let user = fields
            .chunks(2)
            .find(|kv| kv[0] == "u")
            .map(|kv| kv[1].clone())
            .expect("a log entry names its user");
        *users.entry(user).or_insert(0) += 1;
    }
    users
}

/// Every vote's fate against the log and the board; prints the figures.
fn assert_each_vote_once(con: &mut Connection, c: &Campaign, seen: &Seen, kills: u64, run: &str) {
    let log = logged(con, c);
    let times = |user: &str| log.get(user).copied().unwrap_or(0);
    let twice: Vec<_> = log.iter().filter(|(_, &n)| n > 1).collect();
    assert!(
        twice.is_empty(),
        "{run}: {} votes applied more than once, e.g. {:?}",
        twice.len(),
        &twice[..twice.len().min(5)]
    );
    for user in &seen.acked {
        assert_eq!(times(user), 1, "{run}: acknowledged vote of {user}");
    }
    for user in &seen.refused {
        assert_eq!(
            times(user),
            0,
            "{run}: {user}'s vote failed, not may-have-applied, yet applied"
        );
    }
    for user in &seen.with_id {
        assert_eq!(times(user), 1, "{run}: vote with id {user}");
    }
    let applied_unknown = seen.unknown.iter().filter(|u| times(u) == 1).count() as u64;
    let x = real_total(con, c, "B", "x");
    let acked = seen.acked.len() as u64;
    assert_eq!(x, acked + applied_unknown, "{run}: board x against the log");
    assert_eq!(
        real_total(con, c, "B", "y"),
        seen.with_id.len() as u64,
        "{run}: board y: each vote with an id once"
    );
    assert_eq!(
        log.len() as u64,
        x + seen.with_id.len() as u64,
        "{run}: no vote in the log but these"
    );
    println!(
        "{run}: {kills} connections killed; without ids: {acked} acknowledged, {} failed ({} may \
         have applied, {applied_unknown} of them applied; {} not), board {x} = {acked} + \
         {applied_unknown}; with ids: {} acknowledged, each applied once, {} answered as \
         replays, {} failed sends sent again",
        seen.unknown.len() + seen.refused.len(),
        seen.unknown.len(),
        seen.refused.len(),
        seen.with_id.len(),
        seen.replays,
        seen.id_failures,
    );
    assert!(kills > 0, "{run}: the storm killed no connection");
    assert!(acked > 0, "{run}: no vote without an id acknowledged");
}

/// Send a vote with an id until it is acknowledged (the same id each time).
fn until_acknowledged(
    seen: &mut Seen,
    user: &str,
    mut send: impl FnMut() -> redvote::Result<Vec<Ballot>>,
) {
    let started = Instant::now();
    while !seen.with_id(user, send()) {
        assert!(
            started.elapsed() < PATIENCE,
            "vote {user} never acknowledged"
        );
    }
}

/// 4 threads, each with its own retrying sync `Connection` (it reconnects
/// by itself), vote through the storm.
#[test]
fn sync_votes_without_ids_are_never_resent_and_with_ids_count_once() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = storm_campaign(&mut con, "storm-sync");
    let client = client(&server);
    let stop = Arc::new(AtomicBool::new(false));
    let kill = killer(&server, &stop);
    let voters: Vec<_> = (0..4)
        .map(|v| {
            let (client, c, stop) = (client.clone(), c.clone(), stop.clone());
            thread::spawn(move || {
                let mut con = client.connect().unwrap();
                let mut seen = Seen::default();
                for k in 0.. {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let [(plain, without), (keyed, with)] = calls(&c, v, k);
                    seen.without_id(plain, con.run(&without));
                    until_acknowledged(&mut seen, &keyed, || con.run(&with));
                }
                seen
            })
        })
        .collect();
    // the storm's length: the assertions hold for any
    thread::sleep(STORM);
    stop.store(true, Ordering::Relaxed);
    let mut seen = Seen::default();
    for v in voters {
        seen.add(v.join().unwrap());
    }
    let kills = kill.join().unwrap();
    // the storm dropped the first connection too
    let mut con = support::con(&server);
    assert_each_vote_once(&mut con, &c, &seen, kills, "sync storm");
}

/// 8 tokio tasks share one retrying `AsyncConnection` (redis-rs's
/// reconnecting `ConnectionManager`) through the storm.
#[test]
fn async_votes_without_ids_are_never_resent_and_with_ids_count_once() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = storm_campaign(&mut con, "storm-async");
    let client = client(&server);
    let stop = Arc::new(AtomicBool::new(false));
    let kill = killer(&server, &stop);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let seen = rt.block_on(async {
        let acon = client.connect_async().await.unwrap();
        let tasks: Vec<_> = (0..8)
            .map(|v| {
                let (acon, c, stop) = (acon.clone(), c.clone(), stop.clone());
                tokio::spawn(async move {
                    let mut seen = Seen::default();
                    for k in 0.. {
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                        let [(plain, without), (keyed, with)] = calls(&c, v, k);
                        seen.without_id(plain, acon.run(&without).await);
                        let started = Instant::now();
                        while !seen.with_id(&keyed, acon.run(&with).await) {
                            assert!(
                                started.elapsed() < PATIENCE,
                                "vote {keyed} never acknowledged"
                            );
                        }
                    }
                    seen
                })
            })
            .collect();
        // the storm's length: the assertions hold for any
        tokio::time::sleep(STORM).await;
        stop.store(true, Ordering::Relaxed);
        let mut seen = Seen::default();
        for t in tasks {
            seen.add(t.await.unwrap());
        }
        seen
    });
    let kills = kill.join().unwrap();
    // the storm dropped the first connection too
    let mut con = support::con(&server);
    assert_each_vote_once(&mut con, &c, &seen, kills, "async storm");
}
