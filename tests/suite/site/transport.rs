//! Transport: calls survive SCRIPT FLUSH (NOSCRIPT recovery, sync, async and
//! through a ConnectionManager), a stopped server is a Redis error, and the
//! async API gives the sync API's results.

use redvote::{Code, Error, Order, Site, Vote, VoteOutcome};

use super::{ids, stored_time};
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
/// the EVAL fallback, so no call fails (issue: "NOSCRIPT is retried once").
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
        .vote("user:2", &id.to_string())
        .run_async(&mut manager)
        .await
        .unwrap();
    assert!(outcome.changed);
    assert_eq!(outcome.votes, 2);
}
