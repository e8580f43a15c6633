//! The CLI against a stalled server: `--timeout` bounds the command.

use std::time::{Duration, Instant};

use redvote::{Client, Retry, Site};

use crate::support::{self, redvote};

/// (e) A server that stops answering: every path fails within its timeout
/// and says the outcome is unknown.
#[test]
fn a_sigstopped_server_fails_calls_within_the_timeout() {
    let server = support::server();
    let site = Site::default();
    let client = Client::open(&server.url())
        .unwrap()
        .timeouts(Duration::from_millis(500), Duration::from_millis(500))
        .retry(Retry::never());
    let mut con = client.connect().unwrap();
    let id = con.run(&site.post("p", "t", "https://e.x")).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let acon = rt.block_on(client.connect_async()).unwrap();
    server.signal("-STOP");
    // the bound is generous (2-core CI machines): the point is "no hang"
    let bound = Duration::from_secs(5);
    let start = Instant::now();
    let err = con.run(&site.vote("u", id.to_string())).unwrap_err();
    assert!(start.elapsed() < bound, "sync: {:?}", start.elapsed());
    assert!(err.may_have_applied(), "{err}");
    let start = Instant::now();
    let err = rt
        .block_on(acon.run(&site.vote("u", id.to_string())))
        .unwrap_err();
    assert!(start.elapsed() < bound, "async: {:?}", start.elapsed());
    assert!(err.may_have_applied(), "{err}");
    let start = Instant::now();
    let out = redvote(
        Some(&server.url()),
        &[
            "--timeout",
            "0.5",
            "--retries",
            "0",
            "vote",
            "--user",
            "u",
            &id.to_string(),
        ],
    );
    assert!(start.elapsed() < bound, "cli: {:?}", start.elapsed());
    assert_eq!(out.status.code(), Some(1));
    // a new connection to a stopped server: the vote was never sent
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("no answer within --timeout 0.5 s"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    server.signal("-CONT");
    // the connection recovers by itself once the server answers again
    let mut con = client.retry(Retry::default()).connect().unwrap();
    let o = con.run(&site.vote("u", id.to_string())).unwrap();
    assert_eq!(o.votes, 2);
}
