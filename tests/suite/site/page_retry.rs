//! A page read through the retrying connections (`Connection::page`,
//! `AsyncConnection::page`) is retried as one by the client's policy, its
//! script call and its read of the hashes alike, against real servers:
//! - after `CLIENT KILL` of its connection, the page is read on a new one
//!   (with `Retry::never` the read fails, its outcome unknown);
//! - when the server drops the connection in the second round trip (the
//!   `MULTI`/`EXEC` reply is over `client-output-buffer-limit`), both round
//!   trips are sent again, as often as the policy says (counted with
//!   `INFO commandstats`), and the page is read once the limit is lifted.

use std::thread;
use std::time::Duration;

use redvote::{Client, Order, PageCall, Retry, Site};

use crate::support;

/// A hash field of 50 000 bytes: three of them are a reply over the
/// limit that [`limit_replies`] sets.
const BODY: usize = 50_000;

/// A site of 3 articles, article:3 with the most votes, each with a
/// [`BODY`]-byte `body` field; the page by score.
fn site_of_three(con: &mut redis::Connection) -> (Site, PageCall) {
    let site = Site::new("{pages}:");
    for i in 1..=3 {
        let id = site
            .post(&format!("u{i}"), &format!("t{i}"), "https://e.x")
            .run(con)
            .unwrap();
        for v in 0..i {
            site.vote(&format!("v{v}"), id.to_string())
                .run(con)
                .unwrap();
        }
        let _: () = redis::cmd("HSET")
            .arg(format!("{}article:{id}", site.prefix()))
            .arg("body")
            .arg("x".repeat(BODY))
            .query(con)
            .unwrap();
    }
    let page = site.page(Order::Score, 1, None);
    (site, page)
}

/// The ids of a page's articles, in order, after checking their bodies.
fn ids(page: &redvote::Page) -> Vec<String> {
    for a in &page.articles {
        assert_eq!(a.extra.get("body").map(String::len), Some(BODY), "{}", a.id);
    }
    page.articles.iter().map(|a| a.id.clone()).collect()
}

/// Kill every other normal client; how many were killed.
fn kill_others(admin: &mut redis::Connection) -> i64 {
    redis::cmd("CLIENT")
        .arg(&["KILL", "TYPE", "normal", "SKIPME", "yes"][..])
        .query(admin)
        .unwrap()
}

/// How many times `command` ran (`INFO commandstats`).
fn calls(admin: &mut redis::Connection, command: &str) -> u64 {
    let info: String = redis::cmd("INFO").arg("commandstats").query(admin).unwrap();
    let prefix = format!("cmdstat_{command}:calls=");
    info.lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .and_then(|rest| rest.split(',').next())
        .map_or(0, |n| n.parse().unwrap())
}

/// The script calls and the transactions run so far.
fn sends(admin: &mut redis::Connection) -> (u64, u64) {
    (calls(admin, "evalsha"), calls(admin, "exec"))
}

/// Connections accepted so far.
fn connections(admin: &mut redis::Connection) -> u64 {
    let info: String = redis::cmd("INFO").arg("stats").query(admin).unwrap();
    info.lines()
        .find_map(|l| l.strip_prefix("total_connections_received:"))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// Normal clients whose pending replies pass 64 kB are dropped by the
/// server (a page of the three bodies is; a script's reply, which may take
/// a 16 kB block, is not), or (`false`) no longer.
fn limit_replies(admin: &mut redis::Connection, on: bool) {
    let limit = if on {
        "normal 65536 0 0"
    } else {
        "normal 0 0 0"
    };
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("client-output-buffer-limit")
        .arg(limit)
        .query(admin)
        .unwrap();
}

/// A thread that lifts the reply limit as soon as one more transaction
/// than `exec` ran (the first attempt's, which the server then drops).
fn lift_after_one_exec(server: &support::TempServer, exec: u64) -> thread::JoinHandle<()> {
    let mut admin = support::con(server);
    thread::spawn(move || {
        support::wait_until("an EXEC came", support::PATIENCE, || {
            calls(&mut admin, "exec") != exec
        });
        limit_replies(&mut admin, false);
    })
}

#[test]
fn a_page_is_read_again_after_its_connection_was_killed() {
    let server = support::server();
    let mut admin = support::con(&server);
    let (_, page) = site_of_three(&mut admin);
    let client = Client::open(&server.url()).unwrap();
    let mut once = client.clone().retry(Retry::never()).connect().unwrap();
    let retry = Retry::new(3, Duration::from_millis(20));
    let mut retried = client.retry(retry).connect().unwrap();
    assert_eq!(ids(&retried.page(&page).unwrap()), ["3", "2", "1"]);
    assert_eq!(ids(&once.page(&page).unwrap()), ["3", "2", "1"]);

    let before = connections(&mut admin);
    assert_eq!(kill_others(&mut admin), 2);
    let err = once.page(&page).unwrap_err();
    assert!(err.may_have_applied(), "a lost connection: {err}");
    assert_eq!(ids(&retried.page(&page).unwrap()), ["3", "2", "1"]);
    assert_eq!(
        connections(&mut admin),
        before + 1,
        "the retry's connection"
    );
    // and the one that was not retried connects again for its next page
    assert_eq!(ids(&once.page(&page).unwrap()), ["3", "2", "1"]);
}

#[test]
fn both_round_trips_are_sent_again_when_the_second_fails() {
    let server = support::server();
    let mut admin = support::con(&server);
    let (_, page) = site_of_three(&mut admin);
    let client = Client::open(&server.url()).unwrap();
    let mut once = client.clone().retry(Retry::never()).connect().unwrap();
    let mut thrice = client
        .clone()
        .retry(Retry::new(3, Duration::from_millis(10)))
        .connect()
        .unwrap();
    // the script is cached: every send below is one EVALSHA
    assert_eq!(ids(&thrice.page(&page).unwrap()), ["3", "2", "1"]);

    limit_replies(&mut admin, true);
    let (evalsha, exec) = sends(&mut admin);
    let err = thrice.page(&page).unwrap_err();
    assert!(err.may_have_applied(), "{err}");
    assert_eq!(
        sends(&mut admin),
        (evalsha + 3, exec + 3),
        "3 sends of the whole page"
    );
    let err = once.page(&page).unwrap_err();
    assert!(err.may_have_applied(), "{err}");
    assert_eq!(sends(&mut admin), (evalsha + 4, exec + 4), "1 send");

    // the limit lifted after the first attempt: the second reads the page
    let (evalsha, exec) = sends(&mut admin);
    let lift = lift_after_one_exec(&server, exec);
    let mut twice = client
        .retry(Retry::new(2, Duration::from_millis(500)))
        .connect()
        .unwrap();
    assert_eq!(ids(&twice.page(&page).unwrap()), ["3", "2", "1"]);
    lift.join().unwrap();
    assert_eq!(sends(&mut admin), (evalsha + 2, exec + 2));
}

#[tokio::test]
async fn the_async_page_is_retried_alike() {
    let server = support::server();
    let mut admin = support::con(&server);
    let (_, page) = site_of_three(&mut admin);
    let client = Client::open(&server.url()).unwrap();
    let retried = client
        .clone()
        .retry(Retry::new(3, Duration::from_millis(10)))
        .connect_async()
        .await
        .unwrap();
    let once = client
        .clone()
        .retry(Retry::never())
        .connect_async()
        .await
        .unwrap();
    assert_eq!(ids(&retried.page(&page).await.unwrap()), ["3", "2", "1"]);
    assert_eq!(ids(&once.page(&page).await.unwrap()), ["3", "2", "1"]);

    // a killed connection: replaced, the page read on the new one
    assert_eq!(kill_others(&mut admin), 2);
    assert!(once.page(&page).await.is_err());
    assert_eq!(ids(&retried.page(&page).await.unwrap()), ["3", "2", "1"]);

    // dropped in the second round trip: the whole page, 3 times
    limit_replies(&mut admin, true);
    let (evalsha, exec) = sends(&mut admin);
    let err = retried.page(&page).await.unwrap_err();
    assert!(err.may_have_applied(), "{err}");
    assert_eq!(sends(&mut admin), (evalsha + 3, exec + 3));

    // lifted after the first attempt: read by the second
    let (evalsha, exec) = sends(&mut admin);
    let lift = lift_after_one_exec(&server, exec);
    let twice = client
        .retry(Retry::new(2, Duration::from_millis(500)))
        .connect_async()
        .await
        .unwrap();
    assert_eq!(ids(&twice.page(&page).await.unwrap()), ["3", "2", "1"]);
    lift.join().unwrap();
    assert_eq!(sends(&mut admin), (evalsha + 2, exec + 2));
    // the killed one reads again too
    assert_eq!(ids(&once.page(&page).await.unwrap()), ["3", "2", "1"]);
}
