//! Transport: calls survive SCRIPT FLUSH (NOSCRIPT recovery, sync, async and
//! through a ConnectionManager), a stopped server is a Redis error, and the
//! async API gives the sync API's results.

use redvote::{Code, Error, Order, Site, Vote, VoteOutcome};

use super::ids;
use crate::support::stored_time;
use crate::support::{self, script_exists, VOTE_SCORE};

#[test]
fn calls_survive_a_script_flush() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();
    let post = site.post("alice", "A", "http://a");
    let vote = site.vote("bob", "1");
    let sha = vote.script().sha1().to_string();

    post.run(&mut con).unwrap();
    vote.run(&mut con).unwrap();
    assert!(script_exists(&mut con, &sha));
    redis::cmd("SCRIPT")
        .arg("FLUSH")
        .query::<()>(&mut con)
        .unwrap();
    assert!(!script_exists(&mut con, &sha));
    let outcome = site.vote("carol", "1").run(&mut con).unwrap();
    assert!(outcome.changed);
    assert_eq!(outcome.votes, 3);
    assert!(script_exists(&mut con, &sha));
}

/// A `SCRIPT FLUSH` loop on another connection while calls run: redis-rs
/// reloads once, and a flush between its load and its retry is covered by
/// the EVAL fallback, so no call fails: a NOSCRIPT is retried once.
#[test]
fn calls_survive_a_script_flush_storm() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::Arc;
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();
    site.post("alice", "A", "http://a").run(&mut con).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let flushes = Arc::new(AtomicU64::new(0));
    let flusher = {
        let (stop, flushes) = (stop.clone(), flushes.clone());
        let mut con = support::con(&server);
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                redis::cmd("SCRIPT")
                    .arg("FLUSH")
                    .query::<()>(&mut con)
                    .unwrap();
                flushes.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    let mut failures = Vec::new();
    for i in 0..400 {
        let user = format!("user:{i}");
        let result = match i % 3 {
            0 => site.vote(&user, "1").run(&mut con).map(|_| ()),
            1 => site.article("1", Some(&user)).run(&mut con).map(|_| ()),
            _ => site.page(Order::Score, 1, None).run(&mut con).map(|_| ()),
        };
        if let Err(err) = result {
            failures.push(format!("call {i}: {err}"));
        }
    }
    stop.store(true, Ordering::Relaxed);
    flusher.join().unwrap();
    assert!(flushes.load(Ordering::Relaxed) > 10, "the flusher ran");
    assert!(
        failures.is_empty(),
        "{} calls failed: {failures:?}",
        failures.len()
    );
    let article = site.article("1", None).run(&mut con).unwrap();
    assert_eq!(article.votes, 1 + 134, "every vote counted once");
}

#[tokio::test]
async fn async_calls_survive_a_script_flush() {
    let server = support::server();
    let mut con = support::con(&server);
    let mut acon = support::con_async(&server).await;
    let site = Site::default();
    let sha = site.vote("x", "1").script().sha1().to_string();

    site.post("alice", "A", "http://a")
        .run_async(&mut acon)
        .await
        .unwrap();
    site.vote("bob", "1").run_async(&mut acon).await.unwrap();
    assert!(script_exists(&mut con, &sha));
    redis::cmd("SCRIPT")
        .arg("FLUSH")
        .query_async::<()>(&mut acon)
        .await
        .unwrap();
    assert!(!script_exists(&mut con, &sha));
    let outcome = site.vote("carol", "1").run_async(&mut acon).await.unwrap();
    assert_eq!((outcome.changed, outcome.votes), (true, 3));
    assert!(script_exists(&mut con, &sha));
}

#[test]
fn a_stopped_server_is_a_redis_error() {
    let server = support::server();
    let mut con = support::con(&server);
    let client = server.client();
    let site = Site::default();
    site.post("alice", "A", "http://a").run(&mut con).unwrap();
    drop(server);

    match site.vote("bob", "1").run(&mut con) {
        Err(Error::Redis(_)) => {}
        other => panic!("open connection: expected Error::Redis, got {other:?}"),
    }
    let mut fresh = client.clone();
    match site.post("alice", "B", "http://b").run(&mut fresh) {
        Err(Error::Redis(e)) => assert_eq!(e.code(), None, "{e}"),
        other => panic!("fresh client: expected Error::Redis, got {other:?}"),
    }
}

#[tokio::test]
async fn the_async_api_gives_the_sync_results() {
    let server = support::server();
    let mut con = support::con(&server);
    let mut acon = support::con_async(&server).await;
    let site = Site::default();

    assert_eq!(
        site.post("alice", "A", "http://a")
            .run_async(&mut acon)
            .await
            .unwrap(),
        1
    );
    assert_eq!(site.post("bob", "B", "http://b").run(&mut con).unwrap(), 2);
    let t = stored_time(&mut con, &site, 1);
    let outcome = site.vote("carol", "1").run_async(&mut acon).await.unwrap();
    assert_eq!(
        outcome,
        VoteOutcome {
            changed: true,
            previous: Vote::None,
            vote: Vote::Up,
            score: Some((t + 2 * VOTE_SCORE) as f64),
            votes: 2,
            downvotes: 0,
        }
    );
    site.downvote("carol", "2")
        .run_async(&mut acon)
        .await
        .unwrap();
    site.groups("1", &["g"], &[])
        .run_async(&mut acon)
        .await
        .unwrap();

    let article = site.article("1", Some("carol"));
    assert_eq!(
        article.run_async(&mut acon).await.unwrap(),
        article.run(&mut con).unwrap()
    );
    let page = site.page(Order::Score, 1, None);
    let got = page.run_async(&mut acon).await.unwrap();
    assert_eq!(got, page.run(&mut con).unwrap());
    assert_eq!(ids(&got), ["1", "2"]);
    let group = site.group_page("g", Order::Time, 1, None);
    let got = group.run_async(&mut acon).await.unwrap();
    assert_eq!(got, group.run(&mut con).unwrap());
    assert_eq!(ids(&got), ["1"]);
    assert_eq!(
        site.config().run_async(&mut acon).await.unwrap(),
        site.config().run(&mut con).unwrap()
    );

    let err = site
        .vote("carol", "article:9")
        .run_async(&mut acon)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(Code::UnknownArticle));
}

/// The async API over a `ConnectionManager` (reconnecting), including the
/// NOSCRIPT recovery after `SCRIPT FLUSH`.
#[tokio::test]
async fn connection_manager_runs_calls_and_recovers_from_script_flush() {
    let server = support::server();
    let mut manager = redis::aio::ConnectionManager::new(server.client())
        .await
        .expect("connection manager");
    let site = Site::default();
    let id = site
        .post("user:1", "t", "https://x")
        .run_async(&mut manager)
        .await
        .unwrap();
    let _: () = redis::cmd("SCRIPT")
        .arg("FLUSH")
        .query_async(&mut manager)
        .await
        .unwrap();
    let outcome = site
        .vote("user:2", id.to_string())
        .run_async(&mut manager)
        .await
        .unwrap();
    assert!(outcome.changed);
    assert_eq!(outcome.votes, 2);
}

/// The clients connected to `server` (INFO clients).
fn connected_clients(con: &mut redis::Connection) -> u64 {
    let info: String = redis::cmd("INFO").arg("clients").query(con).unwrap();
    info.lines()
        .find_map(|l| l.strip_prefix("connected_clients:"))
        .and_then(|n| n.trim().parse().ok())
        .expect("connected_clients")
}

/// Wait until `n` clients are connected (the admin's own included).
async fn clients_become(admin: &mut redis::Connection, n: u64, what: &str) {
    let what = format!("{what}: {n} clients connected");
    support::wait_until_async(&what, support::PATIENCE, || {
        let now = connected_clients(admin);
        async move { now == n }
    })
    .await;
}

/// `Client::async_connections(n)`: an AsyncConnection opens `n` connections
/// (8 by default with a wait for replicas, 1 without), its calls take them
/// in turn, and a connection killed under it is replaced on its own while
/// the others go on.
#[tokio::test]
async fn an_async_connection_spreads_its_calls_over_its_connections() {
    let server = support::server();
    let mut admin = support::con(&server);
    let base = connected_clients(&mut admin);
    let client = redvote::Client::open(&server.url()).unwrap();
    // a dropped connection closes on its own, a little later: each count
    // is awaited
    let one = client.connect_async().await.unwrap();
    clients_become(&mut admin, base + 1, "one by default").await;
    drop(one);
    let waited = client
        .clone()
        .wait_for_replicas(1, std::time::Duration::from_millis(10))
        .connect_async()
        .await
        .unwrap();
    clients_become(&mut admin, base + 8, "8 with a wait").await;
    drop(waited);

    let con = client.async_connections(3).connect_async().await.unwrap();
    clients_become(&mut admin, base + 3, "3 connections").await;
    let site = Site::default();
    let id = con.run(&site.post("u0", "t", "https://x")).await.unwrap();
    let votes = |from: usize| {
        let con = con.clone();
        let site = site.clone();
        async move {
            let calls = (from..from + 30).map(|u| {
                let (con, call) = (con.clone(), site.vote(&format!("u{u}"), id.to_string()));
                async move { con.run(&call).await }
            });
            futures::future::join_all(calls).await
        }
    };
    assert!(votes(1).await.iter().all(|r| r.is_ok()));
    // the calls used every connection: each ran commands
    let list: String = redis::cmd("CLIENT").arg("LIST").query(&mut admin).unwrap();
    let mine: Vec<&str> = list
        .lines()
        .filter(|l| !l.contains("cmd=client|list") && !l.contains("cmd=info"))
        .collect();
    assert_eq!(mine.len(), 3, "{list}");
    assert!(mine.iter().all(|l| l.contains("cmd=eval")), "{list}");
    // one killed: the calls (article votes: idempotent, so resent) go on
    let victim = mine[0]
        .split(' ')
        .find_map(|f| f.strip_prefix("id="))
        .unwrap()
        .to_string();
    let _: () = redis::cmd("CLIENT")
        .arg("KILL")
        .arg("ID")
        .arg(&victim)
        .query(&mut admin)
        .unwrap();
    assert!(votes(31).await.iter().all(|r| r.is_ok()));
    assert!(votes(61).await.iter().all(|r| r.is_ok()));
    clients_become(&mut admin, base + 3, "the killed one replaced").await;
    let article = con.run(&site.article(id, None)).await.unwrap();
    assert_eq!(article.votes, 91, "the poster and 90 voters");
}
