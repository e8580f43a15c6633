//! The service as an operator sees it from outside the process: the
//! `listening on ADDR` line, the OpenAPI document printed without a
//! server, and shutdown on SIGTERM within the drain limit (the exit code
//! says whether the drain was cut). Health, metrics, the layers and Redis
//! going away are tested in-process: crates/redvote-serve/tests/service.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::Service;
use redvote_testing as support;

/// The first line of stdout names the bound address (port 0: a free
/// port), where the service answers.
#[test]
fn the_first_line_is_listening_on_the_bound_address() {
    let server = support::server();
    let svc = Service::with(&server, &[], &[]);
    let addr: std::net::SocketAddr = svc
        .base
        .strip_prefix("http://")
        .unwrap()
        .parse()
        .expect("listening on IP:PORT");
    assert!(addr.ip().is_loopback(), "{addr}");
    assert_ne!(addr.port(), 0, "the bound port, not the asked one");
    assert_eq!(svc.get("/healthz").status, 200);
}

/// `redvote serve --print-openapi`: the served document, without a server.
#[test]
fn print_openapi_prints_the_served_document() {
    let server = support::server();
    let svc = Service::start(&server);
    let doc = svc.get("/openapi.json").ok(200);
    // the same document without a server
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_redvote"))
        .args(["serve", "--print-openapi"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed, doc);
    assert_eq!(
        printed,
        serde_json::to_value(redvote_serve::openapi_document()).unwrap(),
        "the library's document"
    );
}

/// SIGTERM: the process stops accepting, finishes the request in flight,
/// and exits 0 well within the drain limit.
#[test]
fn sigterm_finishes_requests_in_flight_and_exits_0() {
    let server = support::server();
    let mut svc = Service::with(&server, &["--drain-timeout", "10", "--timeout", "30"], &[]);
    svc.get("/v1/sites/default/articles").ok(200);

    // a request held in flight: Redis paused (SIGSTOP) under it
    let stop = |sig: &str| {
        let s = std::process::Command::new("kill")
            .args([&format!("-{sig}"), &server.pid().to_string()])
            .status()
            .unwrap();
        assert!(s.success());
    };
    stop("STOP");
    let url = format!("{}/v1/sites/default/articles", svc.base);
    let in_flight =
        std::thread::spawn(move || reqwest::blocking::get(url).map(|r| r.status().as_u16()));
    reaches_redis(&server);
    svc.signal("TERM");
    // a wrong exit would come at once: time for it to show
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        svc.wait_exit(Duration::ZERO).is_none(),
        "exited with a request in flight"
    );
    stop("CONT");
    assert_eq!(
        in_flight.join().unwrap().unwrap(),
        200,
        "the request in flight was answered"
    );
    // exit 0: the drain ended before its limit, not cut by it
    let status = svc
        .wait_exit(support::PATIENCE)
        .expect("exited after the drain");
    assert!(status.success(), "{status}");
}

/// Wait until the request the service is serving waits on the stopped
/// `server` (its bytes sent there, unread).
fn reaches_redis(server: &support::TempServer) {
    support::wait_until("the request reached Redis", support::PATIENCE, || {
        server.unread_bytes() > 0
    });
}

/// A request that outlasts --drain-timeout is cut, and the exit says so.
#[test]
fn the_drain_is_bounded() {
    let server = support::server();
    let mut svc = Service::with(&server, &["--drain-timeout", "1", "--timeout", "30"], &[]);
    let kill = |sig: &str| {
        std::process::Command::new("kill")
            .args([&format!("-{sig}"), &server.pid().to_string()])
            .status()
            .unwrap()
    };
    assert!(kill("STOP").success());
    let url = format!("{}/v1/sites/default/articles", svc.base);
    let in_flight =
        std::thread::spawn(move || reqwest::blocking::get(url).map(|r| r.status().as_u16()));
    reaches_redis(&server);
    let start = Instant::now();
    svc.signal("TERM");
    let status = svc
        .wait_exit(support::PATIENCE)
        .expect("exited at the drain limit");
    let took = start.elapsed();
    assert!(kill("CONT").success());
    assert_eq!(status.code(), Some(1), "a cut drain is a failure exit");
    // at the 1 s limit, with a loaded machine's slack: long before the
    // request's own 30 s timeout
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(11),
        "{took:?}"
    );
    assert!(
        in_flight.join().unwrap().is_err(),
        "the connection was closed unanswered"
    );
}
