//! Faults under a buffered campaign (`mode` "buffered"): votes with vote
//! ids from several threads while another thread folds
//! (`Campaign::fold` in a loop, its `max` varied so that folds take whole
//! options and parts of one), and the deployment breaks:
//! - `kill -9` of a server with `appendonly yes, appendfsync always`,
//!   restarted on its AOF;
//! - a `CLIENT KILL` storm dropping the voters' and the folder's
//!   connections every few ms;
//! - a `SCRIPT FLUSH` storm (no call may fail there: half its votes have
//!   no id);
//! - a Sentinel failover, votes sent with `wait_for_replicas`.
//!
//! Every vote is sent again with its id until acknowledged (a resend
//! answers a replay, or applies once), so once the buffers are drained
//! each option's real total is exactly the votes sent for it: none lost,
//! none doubled. Each vote has two pairs (boards A and B), and the state
//! is checked for half-applied votes with [`assert_consistent`]: the
//! buffers' lines, the root's `buffered` count and the boards' real totals
//! add up to the pairs accepted: two per vote id record (`<ns>vid:ID`)
//! after a kill, where the record is the only witness of a vote whose
//! reply was lost, and two per vote sent once every vote is acknowledged.
//! After the drain `redvote check` finds nothing on the campaign either.
//! Run with `--nocapture` for the figures.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use redis::Connection;
use redvote::campaign::{CampaignSettings, Mode, Voter};
use redvote::{Ballot, Campaign, Client, Error, Period, Retry};

use crate::sentinel::{failover_retry, request_failover};
use crate::support::sentinel::{query, wait_for, Deployment};
use crate::support::{self, board, boards, options, TempServer, PATIENCE};

/// How old the oldest buffered vote grows before a vote folds: short, so
/// that votes fold too, not only the folder.
const FOLD_MS: u64 = 50;

/// Board A's options, voted in turn.
const A_OPTIONS: [&str; 3] = ["x", "y", "z"];

/// Board B's options, voted in turn.
const B_OPTIONS: [&str; 2] = ["x", "y"];

/// Pairs a vote has: one on board A, one on board B.
const PAIRS: u64 = 2;

/// A buffered campaign: board A (total) with options x, y, z, board B
/// (day and total) with x and y.
fn buffered_campaign(name: &str) -> (Campaign, CampaignSettings) {
    let settings = boards([
        (
            "A",
            board(&[Period::Total], options([("x", 1), ("y", 2), ("z", 1)])),
        ),
        (
            "B",
            board(&[Period::Day, Period::Total], options([("x", 1), ("y", 1)])),
        ),
    ]);
    let settings = CampaignSettings {
        fold_ms: Some(FOLD_MS),
        ..settings.with_mode(Mode::Buffered)
    };
    (Campaign::new(name), settings)
}

/// One vote: its id (also its user: each vote is a user of its own) and
/// its two pairs.
#[derive(Debug, Clone)]
struct Sent {
    id: String,
    pairs: [(&'static str, &'static str); 2],
}

impl Sent {
    /// Voter `t`'s `n`th vote; `prefix` names the test.
    fn new(prefix: &str, t: u64, n: u64) -> Sent {
        Sent {
            id: format!("{prefix}{t}-{n}"),
            pairs: [
                ("A", A_OPTIONS[((t + n) % 3) as usize]),
                ("B", B_OPTIONS[(n % 2) as usize]),
            ],
        }
    }

    /// The vote call, with its id.
    fn call(&self, c: &Campaign) -> redvote::Call<Vec<Ballot>> {
        c.vote_by(&Voter::new(&self.id).id(&self.id), &self.pairs)
    }
}

/// What `sent` should add up to on the boards: "board:option" to real votes.
fn expected(sent: &[Sent]) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for s in sent {
        for (board, option) in s.pairs {
            *out.entry(format!("{board}:{option}")).or_insert(0) += 1;
        }
    }
    out
}

/// Every option's real total on both boards, "board:option" to votes
/// (options without a vote left out).
fn on_boards(con: &mut Connection, c: &Campaign) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for board in ["A", "B"] {
        let totals: Vec<(String, u64)> = redis::cmd("ZRANGE")
            .arg(format!("{}b:{board}:real:total", c.namespace()))
            .arg(0)
            .arg(-1)
            .arg("WITHSCORES")
            .query(con)
            .unwrap();
        for (option, votes) in totals {
            if votes > 0 {
                out.insert(format!("{board}:{option}"), votes);
            }
        }
    }
    out
}

/// The ids of the vote id records (`<ns>vid:ID`): the votes with an id
/// the campaign accepted (a record lives a day, the campaign's default).
fn recorded_ids(con: &mut Connection, c: &Campaign) -> BTreeSet<String> {
    support::keys(con, &format!("{}vid:*", c.namespace()))
        .iter()
        .map(|k| k.rsplit_once("vid:").unwrap().1.to_string())
        .collect()
}

/// What a buffered campaign holds: pairs on the boards and buffered.
#[derive(Debug)]
struct Held {
    on_boards: u64,
    buffered: u64,
}

/// No half-applied vote and no half-done fold: the lines of the buffers
/// (`<ns>buf:B:O`) are the root's `buffered` count, `<ns>bufs` names
/// exactly the buffers that hold lines, and the pairs on the boards (the
/// sum of the real totals) plus those buffered are the `accepted` pairs.
fn assert_consistent(con: &mut Connection, c: &Campaign, accepted: u64, what: &str) -> Held {
    let ns = c.namespace();
    let buffers = support::keys(con, &format!("{ns}buf:*"));
    let mut lines = 0;
    for key in &buffers {
        let n: u64 = redis::cmd("LLEN").arg(key).query(con).unwrap();
        assert!(n > 0, "{what}: {key} is empty, yet a key");
        lines += n;
    }
    let heads: BTreeSet<String> = redis::cmd("ZRANGE")
        .arg(format!("{ns}bufs"))
        .arg(0)
        .arg(-1)
        .query(con)
        .unwrap();
    let named: BTreeSet<String> = heads.iter().map(|h| format!("{ns}buf:{h}")).collect();
    assert_eq!(named, buffers, "{what}: bufs against the buffers");
    let count = support::hget(con, &format!("{ns}campaign"), "buffered")
        .map_or(0, |n| n.parse::<u64>().unwrap());
    assert_eq!(count, lines, "{what}: the root's buffered count");
    let on_boards: u64 = on_boards(con, c).values().sum();
    assert_eq!(
        on_boards + lines,
        accepted,
        "{what}: {on_boards} pairs on the boards + {lines} buffered, {accepted} accepted"
    );
    Held {
        on_boards,
        buffered: lines,
    }
}

/// Fold `c` until nothing is buffered; answers the pairs folded.
fn drain(con: &mut Connection, c: &Campaign) -> u64 {
    let mut folded = 0;
    for _ in 0..1000 {
        let f = c.fold(1000).run(con).unwrap();
        folded += f.folded;
        if f.left == 0 {
            return folded;
        }
        assert!(f.folded > 0, "a fold with {} left folded none", f.left);
    }
    panic!("1000 folds left votes buffered");
}

/// The checks after a drain: nothing buffered, every option's real total
/// is the votes `sent` for it, and `redvote check` finds nothing.
fn assert_drained_exact(con: &mut Connection, c: &Campaign, sent: &[Sent], what: &str) {
    let held = assert_consistent(con, c, PAIRS * sent.len() as u64, what);
    assert_eq!(held.buffered, 0, "{what}: votes still buffered");
    assert!(
        support::hget(con, c.root_key(), "fold_due").is_none(),
        "{what}: fold_due with nothing buffered"
    );
    assert_eq!(on_boards(con, c), expected(sent), "{what}: the boards");
    let report = redvote_check::check_campaign(con, c).unwrap();
    assert!(report.is_clean(), "{what}: {report}");
}

/// The folder: `Campaign::fold` in a loop on `con` until `stop`, `max`
/// varied (1..=97) so that a fold ends in the middle of an option too.
/// Counts the votes folded into `folded`; `until_error`: stop at the
/// first failure (else count it and go on). Answers the failures.
fn folder(
    mut con: redvote::Connection,
    c: Campaign,
    stop: Arc<AtomicBool>,
    folded: Arc<AtomicU64>,
    until_error: bool,
) -> thread::JoinHandle<u64> {
    thread::spawn(move || {
        let mut failures = 0;
        for n in 0u32.. {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            match con.run(&c.fold(1 + n % 97)) {
                Ok(f) => drop(folded.fetch_add(f.folded, Ordering::Relaxed)),
                Err(_) if until_error => break,
                Err(_) => failures += 1,
            }
        }
        failures
    })
}

/// Send `vote` until acknowledged (within [`PATIENCE`]); answers the
/// ballots and the failed sends.
fn until_acknowledged(
    con: &mut redvote::Connection,
    c: &Campaign,
    vote: &Sent,
) -> (Vec<Ballot>, u64) {
    let (started, call) = (Instant::now(), vote.call(c));
    let mut failed = 0;
    loop {
        match con.run(&call) {
            Ok(ballots) => return (ballots, failed),
            Err(e) => {
                failed += 1;
                assert!(
                    started.elapsed() < PATIENCE,
                    "vote {} never acknowledged: {e}",
                    vote.id
                );
            }
        }
    }
}

/// A buffered ballot: both pairs, each answered with the folded time.
fn assert_buffered_ballot(ballots: &[Ballot], vote: &Sent) {
    assert_eq!(ballots.len(), 2, "vote {}", vote.id);
    assert!(
        ballots
            .iter()
            .all(|b| b.folded.is_some() && b.shown.is_empty()),
        "vote {}: not a buffered ballot: {ballots:?}",
        vote.id
    );
}

/// `kill -9` with every write fsynced, during intake and folds: every
/// acknowledged vote is there after the restart (on a board or in a
/// buffer), nothing is half applied, and a vote whose outcome was unknown
/// at the kill, sent again with its id, answers a replay exactly when its
/// record survived. After a drain the boards are the votes sent.
///
/// What this proves is crash safety of the process: `kill -9` leaves the
/// AOF's written but unsynced bytes in the page cache, so
/// `appendfsync always` is not what makes the votes survive here (a power
/// loss would test that); the AOF's tail may end in the middle of a
/// script's `MULTI`/`EXEC`, which Redis drops on load
/// (`aof-load-truncated`).
#[test]
fn kill_9_during_intake_and_folds_loses_and_doubles_no_vote() {
    let mut server = TempServer::start_with(&["--appendonly", "yes", "--appendfsync", "always"])
        .unwrap_or_else(|e| panic!("cannot start redis-server: {e}"));
    let mut con = support::con(&server);
    let (c, settings) = buffered_campaign("kill9");
    c.configure(&settings).run(&mut con).unwrap();
    let client = Client::open(&server.url())
        .unwrap()
        .timeouts(Duration::from_secs(2), Duration::from_secs(2))
        .retry(Retry::never());
    let acked = Arc::new(AtomicU64::new(0));
    let folded = Arc::new(AtomicU64::new(0));
    let voters: Vec<_> = (0..6)
        .map(|t| {
            let (mut con, c, acked) = (client.connect().unwrap(), c.clone(), acked.clone());
            thread::spawn(move || {
                // no retry: the kill ends each voter, its last vote unknown
                let mut done = Vec::new();
                for n in 0.. {
                    let vote = Sent::new("k", t, n);
                    match con.run(&vote.call(&c)) {
                        Ok(ballots) => {
                            assert_buffered_ballot(&ballots, &vote);
                            assert!(!ballots[0].replay, "vote {} replayed", vote.id);
                            done.push(vote);
                            acked.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(e) => {
                            assert!(
                                e.may_have_applied() || !matches!(e, Error::Script { .. }),
                                "vote {}: {e}",
                                vote.id
                            );
                            return (done, vote);
                        }
                    }
                }
                unreachable!()
            })
        })
        .collect();
    let stop = Arc::new(AtomicBool::new(false));
    let fold = folder(
        client.connect().unwrap(),
        c.clone(),
        stop.clone(),
        folded.clone(),
        true,
    );
    support::wait_until("votes acknowledged and folded", PATIENCE, || {
        acked.load(Ordering::Relaxed) >= 400 && folded.load(Ordering::Relaxed) >= 200
    });
    server.kill().unwrap();
    stop.store(true, Ordering::Relaxed);
    let (mut acknowledged, mut unknown) = (Vec::new(), Vec::new());
    for v in voters {
        let (done, last) = v.join().unwrap();
        acknowledged.extend(done);
        unknown.push(last);
    }
    fold.join().unwrap();

    server.restart().unwrap();
    let mut con = support::con(&server);
    let recorded = recorded_ids(&mut con, &c);
    let lost: Vec<&str> = acknowledged
        .iter()
        .map(|v| v.id.as_str())
        .filter(|id| !recorded.contains(*id))
        .collect();
    assert!(lost.is_empty(), "acknowledged votes lost: {lost:?}");
    let unknown_ids: BTreeSet<&str> = unknown.iter().map(|v| v.id.as_str()).collect();
    let stray: Vec<&String> = recorded
        .iter()
        .filter(|id| !unknown_ids.contains(id.as_str()))
        .filter(|id| !acknowledged.iter().any(|v| &&v.id == id))
        .collect();
    assert!(stray.is_empty(), "votes recorded but never sent: {stray:?}");
    let after_restart = assert_consistent(
        &mut con,
        &c,
        PAIRS * recorded.len() as u64,
        "after the restart",
    );

    // the votes whose outcome the kill hid, sent again with their ids
    let mut resend = Client::open(&server.url()).unwrap().connect().unwrap();
    let mut replays = 0;
    for vote in &unknown {
        let ballots = resend.run(&vote.call(&c)).unwrap();
        assert_buffered_ballot(&ballots, vote);
        assert_eq!(
            ballots[0].replay,
            recorded.contains(&vote.id),
            "vote {}: a replay exactly when its record survived",
            vote.id
        );
        replays += u64::from(ballots[0].replay);
    }
    let mut sent = acknowledged;
    sent.extend(unknown.iter().cloned());
    assert_consistent(&mut con, &c, PAIRS * sent.len() as u64, "after the resends");
    let drained = drain(&mut con, &c);
    assert_drained_exact(&mut con, &c, &sent, "kill -9, drained");
    // the AOF replayed again changes nothing
    let before = support::digest(&mut con);
    server.restart().unwrap();
    let mut con = support::con(&server);
    assert_eq!(support::digest(&mut con), before, "a second AOF load");
    println!(
        "buffered kill -9: {} votes acknowledged before the kill ({} pairs folded by the folder); \
         after the restart {} pairs on the boards, {} buffered; {} unknown at the kill, {replays} \
         of them already applied (replays); {drained} pairs folded by the drain; boards exact",
        sent.len() - unknown.len(),
        folded.load(Ordering::Relaxed),
        after_restart.on_boards,
        after_restart.buffered,
        unknown.len(),
    );
}

/// A thread that drops every other client of `server` every 3 ms until
/// `stop`; it answers how many connections it dropped.
fn kill_clients(server: &TempServer, stop: &Arc<AtomicBool>) -> thread::JoinHandle<u64> {
    let (stop, mut con) = (stop.clone(), support::con(server));
    thread::spawn(move || {
        let mut kills = 0;
        while !stop.load(Ordering::Relaxed) {
            let n: u64 = redis::cmd("CLIENT")
                .arg(&["KILL", "TYPE", "normal", "SKIPME", "yes"][..])
                .query(&mut con)
                .unwrap();
            kills += n;
            thread::sleep(Duration::from_millis(3));
        }
        kills
    })
}

/// Every user of the campaign's vote log, with the times it is there.
fn logged(con: &mut Connection, c: &Campaign) -> BTreeMap<String, u32> {
    let entries: Vec<(String, Vec<String>)> = redis::cmd("XRANGE")
        .arg(format!("{}log", c.namespace()))
        .arg("-")
        .arg("+")
        .query(con)
        .unwrap();
    let mut users = BTreeMap::new();
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

/// `CLIENT KILL` every 3 ms while 4 voters (each on a retrying
/// `Connection`, each vote sent again with its id until acknowledged) and
/// a folder (retrying too: a fold is safe to send twice) run: after a
/// drain the boards are the votes, and the vote log (written when a vote
/// is accepted) holds each vote once.
#[test]
fn client_kill_storm_during_intake_and_folds_counts_each_vote_once() {
    const VOTERS: u64 = 4;
    const VOTES: u64 = 120;
    let server = support::server();
    let mut con = support::con(&server);
    let (c, settings) = buffered_campaign("storm");
    c.configure(&settings.with_vote_log(1_000_000))
        .run(&mut con)
        .unwrap();
    let client = Client::open(&server.url())
        .unwrap()
        .retry(Retry::new(5, Duration::from_millis(1)));
    let stop = Arc::new(AtomicBool::new(false));
    let killer = kill_clients(&server, &stop);
    let folded = Arc::new(AtomicU64::new(0));
    let fold = folder(
        client.connect().unwrap(),
        c.clone(),
        stop.clone(),
        folded.clone(),
        false,
    );
    let voters: Vec<_> = (0..VOTERS)
        .map(|t| {
            let (mut con, c) = (client.connect().unwrap(), c.clone());
            thread::spawn(move || {
                let (mut sent, mut replays, mut failed) = (Vec::new(), 0, 0);
                for n in 0..VOTES {
                    let vote = Sent::new("s", t, n);
                    let (ballots, failures) = until_acknowledged(&mut con, &c, &vote);
                    assert_buffered_ballot(&ballots, &vote);
                    replays += u64::from(ballots[0].replay);
                    failed += failures;
                    sent.push(vote);
                }
                (sent, replays, failed)
            })
        })
        .collect();
    let (mut sent, mut replays, mut failed) = (Vec::new(), 0, 0);
    for v in voters {
        let (s, r, f) = v.join().unwrap();
        sent.extend(s);
        replays += r;
        failed += f;
    }
    stop.store(true, Ordering::Relaxed);
    let fold_failures = fold.join().unwrap();
    let kills = killer.join().unwrap();
    let by_folder = folded.load(Ordering::Relaxed);

    let mut con = support::con(&server);
    let log = logged(&mut con, &c);
    let twice: Vec<_> = log.iter().filter(|(_, &n)| n != 1).collect();
    assert!(twice.is_empty(), "votes logged more than once: {twice:?}");
    let users: BTreeSet<&str> = sent.iter().map(|v| v.id.as_str()).collect();
    assert_eq!(
        log.keys().map(String::as_str).collect::<BTreeSet<_>>(),
        users,
        "the log holds every vote"
    );
    assert_eq!(recorded_ids(&mut con, &c).len(), sent.len());
    let drained = drain(&mut con, &c);
    assert_drained_exact(&mut con, &c, &sent, "CLIENT KILL storm, drained");
    assert!(kills > 0, "the storm killed no connection");
    assert!(by_folder > 0, "the folder folded nothing during the storm");
    println!(
        "buffered CLIENT KILL storm: {} votes, {kills} connections killed, {failed} failed sends \
         sent again, {replays} answered as replays; the folder folded {by_folder} pairs ({} \
         folds failed), the drain {drained}; boards exact, each vote logged once",
        sent.len(),
        fold_failures,
    );
}

/// The server's error replies with `code` so far (INFO errorstats).
fn error_count(con: &mut Connection, code: &str) -> u64 {
    let info: String = redis::cmd("INFO").arg("errorstats").query(con).unwrap();
    let prefix = format!("errorstat_{code}:count=");
    info.lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .map_or(0, |n| n.trim().parse().unwrap())
}

/// `SCRIPT FLUSH` in a loop while 3 voters and a folder run, none of them
/// retrying: every call succeeds (`NOSCRIPT` answered, the script sent
/// again with `EVAL` in the same call), votes without an id included, and
/// the drained boards are exactly the votes.
#[test]
fn script_flush_storm_during_intake_and_folds_fails_no_call() {
    const VOTERS: u64 = 3;
    const VOTES: u64 = 150;
    let server = support::server();
    let mut con = support::con(&server);
    let (c, settings) = buffered_campaign("flush");
    c.configure(&settings).run(&mut con).unwrap();
    let noscript_before = error_count(&mut con, "NOSCRIPT");
    let client = Client::open(&server.url()).unwrap().retry(Retry::never());
    let stop = Arc::new(AtomicBool::new(false));
    let flushes = Arc::new(AtomicU64::new(0));
    let flusher = {
        let (stop, flushes, mut con) = (stop.clone(), flushes.clone(), support::con(&server));
        thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                redis::cmd("SCRIPT")
                    .arg("FLUSH")
                    .query::<()>(&mut con)
                    .unwrap();
                flushes.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    let folded = Arc::new(AtomicU64::new(0));
    let fold = folder(
        client.connect().unwrap(),
        c.clone(),
        stop.clone(),
        folded.clone(),
        false,
    );
    let voters: Vec<_> = (0..VOTERS)
        .map(|t| {
            let (mut con, c) = (client.connect().unwrap(), c.clone());
            thread::spawn(move || {
                let (mut sent, mut failures) = (Vec::new(), Vec::new());
                for n in 0..VOTES {
                    let vote = Sent::new("f", t, n);
                    // every other vote without an id: it must not need one
                    let call = if n % 2 == 0 {
                        vote.call(&c)
                    } else {
                        c.vote(&vote.id, &vote.pairs)
                    };
                    match con.run(&call) {
                        Ok(ballots) => assert_buffered_ballot(&ballots, &vote),
                        Err(e) => failures.push(format!("vote {}: {e}", vote.id)),
                    }
                    sent.push(vote);
                }
                (sent, failures)
            })
        })
        .collect();
    let (mut sent, mut failures) = (Vec::new(), Vec::new());
    for v in voters {
        let (s, f) = v.join().unwrap();
        sent.extend(s);
        failures.extend(f);
    }
    stop.store(true, Ordering::Relaxed);
    let fold_failures = fold.join().unwrap();
    flusher.join().unwrap();
    let by_folder = folded.load(Ordering::Relaxed);

    assert!(failures.is_empty(), "calls failed: {failures:?}");
    assert_eq!(fold_failures, 0, "folds failed under SCRIPT FLUSH");
    let mut con = support::con(&server);
    let noscript = error_count(&mut con, "NOSCRIPT") - noscript_before;
    assert!(noscript > 0, "no call met NOSCRIPT: the storm missed them");
    let drained = drain(&mut con, &c);
    assert_drained_exact(&mut con, &c, &sent, "SCRIPT FLUSH storm, drained");
    assert!(by_folder > 0, "the folder folded nothing during the storm");
    println!(
        "buffered SCRIPT FLUSH storm: {} votes and the folder's folds, {} flushes, {noscript} \
         NOSCRIPT answers, no call failed; the folder folded {by_folder} pairs, the drain \
         {drained}; boards exact",
        sent.len(),
        flushes.load(Ordering::Relaxed),
    );
}

/// `SENTINEL FAILOVER` while 4 voters (a sync `Connection` each, through
/// the sentinels, with `wait_for_replicas(1, 1 s)`, each vote sent again
/// with its id until acknowledged) and a folder (the same client) run on a
/// buffered campaign. A vote acknowledged with the wait was on the replica
/// when acknowledged, buffered or folded: on the new master, after a
/// drain, the boards are exactly the votes. The old master takes writes
/// until Sentinel demotes it; those answer `NotReplicated` (no replica
/// acknowledges them) and are sent again, to the new master.
#[test]
fn votes_waited_for_survive_a_sentinel_failover_of_a_buffered_campaign() {
    const VOTERS: u64 = 4;
    let started = Instant::now();
    let d = Deployment::start();
    let client = Client::open(&d.url())
        .unwrap()
        .timeouts(Duration::from_millis(500), Duration::from_secs(2))
        .retry(failover_retry())
        .wait_for_replicas(1, Duration::from_secs(1));
    let (c, settings) = buffered_campaign("failover");
    client
        .connect()
        .expect("connect through the sentinels")
        .run(&c.configure(&settings))
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let acked = Arc::new(AtomicU64::new(0));
    let folded = Arc::new(AtomicU64::new(0));
    let fold = folder(
        client.connect().unwrap(),
        c.clone(),
        stop.clone(),
        folded.clone(),
        false,
    );
    let voters: Vec<_> = (0..VOTERS)
        .map(|t| {
            let (mut con, c) = (client.connect().unwrap(), c.clone());
            let (stop, acked) = (stop.clone(), acked.clone());
            thread::spawn(move || {
                let (mut sent, mut failed) = (Vec::new(), 0);
                for n in 0.. {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let vote = Sent::new("r", t, n);
                    let (ballots, failures) = until_acknowledged(&mut con, &c, &vote);
                    assert_buffered_ballot(&ballots, &vote);
                    failed += failures;
                    sent.push(vote);
                    acked.fetch_add(1, Ordering::Relaxed);
                }
                (sent, failed)
            })
        })
        .collect();
    support::wait_until("votes acknowledged and folded", PATIENCE, || {
        acked.load(Ordering::Relaxed) >= 20 && folded.load(Ordering::Relaxed) > 0
    });
    let before = acked.load(Ordering::Relaxed);
    request_failover(&d);
    let promoted = d.wait_promoted();
    let demoted = wait_for("the old master is made a replica", 60, || {
        query::<String>(d.master.port(), redis::cmd("INFO").arg("replication"))
            .is_some_and(|info| info.contains("role:slave"))
    });
    let (at_demotion, folded_at) = (
        acked.load(Ordering::Relaxed),
        folded.load(Ordering::Relaxed),
    );
    let resumed = support::wait_until("votes acknowledged and folded again", PATIENCE, || {
        acked.load(Ordering::Relaxed) > at_demotion + 20
            && folded.load(Ordering::Relaxed) > folded_at
    });
    stop.store(true, Ordering::Relaxed);
    let (mut sent, mut failed) = (Vec::new(), 0);
    for v in voters {
        let (s, f) = v.join().unwrap();
        sent.extend(s);
        failed += f;
    }
    let fold_failures = fold.join().unwrap();

    let port = d.plain(d.master_port().expect("a sentinel names the master"));
    assert_eq!(port, d.replica.port(), "the replica is the master");
    let mut con = redis::Client::open(format!("redis://127.0.0.1:{port}"))
        .unwrap()
        .get_connection()
        .unwrap();
    let recorded = recorded_ids(&mut con, &c);
    let missing: Vec<&str> = sent
        .iter()
        .map(|v| v.id.as_str())
        .filter(|id| !recorded.contains(*id))
        .collect();
    assert!(missing.is_empty(), "acknowledged votes lost: {missing:?}");
    assert_eq!(recorded.len(), sent.len(), "votes recorded but not sent");
    let drained = drain(&mut con, &c);
    assert_drained_exact(&mut con, &c, &sent, "Sentinel failover, drained");
    println!(
        "buffered SENTINEL FAILOVER: {before} votes before the failover, {} in all; promoted in \
         {promoted:?}, the old master demoted {demoted:?} later, votes and folds again {resumed:?} \
         after that; {failed} failed sends sent again, {fold_failures} folds failed; the folder \
         folded {} pairs, the drain {drained}; boards exact on the new master; {:?} in all",
        sent.len(),
        folded.load(Ordering::Relaxed),
        started.elapsed()
    );
}
