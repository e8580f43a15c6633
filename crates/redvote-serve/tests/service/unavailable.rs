//! What a 503 tells. A write cut by the request timeout says it may have
//! been applied (it was); a read that fails never does; every 503 carries
//! `Retry-After`; Redis out of memory is a 503 with its own code, not a
//! 500.

use std::time::Duration;

use reqwest::Method;
use serde_json::Value;

use super::{Service, ADMIN};
use redvote_testing as support;

fn spring() -> Value {
    serde_json::from_str(include_str!("../../../../docs/spring2026.json")).unwrap()
}

/// The service with a 300 ms request timeout (the client's own deadline
/// is longer), `spring` configured.
fn slow_service(server: &redvote_testing::TempServer) -> Service {
    let svc = Service::with_options(server, |o| {
        o.admin_token = Some(ADMIN.into());
        o.request_timeout = Duration::from_millis(300);
    });
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", spring())
        .ok(200);
    // every script cached: the vote is one EVALSHA (a NOSCRIPT after the
    // timeout would leave no one to send the EVAL)
    svc.get("/readyz").ok(200);
    svc
}

/// Redis busy for `seconds` (DEBUG SLEEP on a connection of its own), from
/// the moment this returns: the server has read the command.
fn stall(server: &redvote_testing::TempServer, seconds: f64) -> redvote_testing::Started {
    server.start_command(&["DEBUG", "SLEEP", &seconds.to_string()])
}

#[track_caller]
fn retry_after(reply: &super::Reply) -> u64 {
    let value = reply
        .header("retry-after")
        .unwrap_or_else(|| panic!("a 503 without Retry-After: {}", reply.text));
    let seconds: u64 = value.parse().unwrap();
    assert!((1..=10).contains(&seconds), "{seconds}");
    seconds
}

#[test]
fn a_vote_cut_by_the_request_timeout_may_have_applied() {
    let server = support::server();
    let svc = slow_service(&server);
    let sleeper = stall(&server, 1.5);
    let reply = svc.vote("spring", "ann", "male-stars", "wjk");
    reply.problem(503, "REDVOTE_TIMEOUT");
    assert_eq!(reply.body["may_have_applied"], true, "{}", reply.text);
    assert!(reply.text.contains("Idempotency-Key"), "{}", reply.text);
    retry_after(&reply);
    assert_eq!(sleeper.reply(), "+OK");
    // it was applied: the board counts it
    let top = svc
        .get("/v1/campaigns/spring/top?boards=male-stars&kind=real")
        .ok(200);
    assert!(top.to_string().contains("wjk"), "{top}");
}

#[test]
fn a_read_that_fails_does_not_say_it_may_have_applied() {
    let server = support::server();
    let svc = slow_service(&server);
    let sleeper = stall(&server, 1.0);
    let reply = svc.get("/v1/campaigns/spring/top?boards=male-stars");
    reply.problem(503, "REDVOTE_TIMEOUT");
    assert!(
        reply.body.get("may_have_applied").is_none(),
        "{}",
        reply.text
    );
    assert!(!reply.text.contains("applied"), "{}", reply.text);
    retry_after(&reply);
    assert_eq!(sleeper.reply(), "+OK");

    // Redis gone: a read's 503 says so, and nothing about applying
    drop(svc);
    let svc = Service::with_setup(&server, |s| {
        s.timeout = Duration::from_millis(200);
        s.retries = 0;
    });
    drop(server);
    let reply = svc.get("/v1/sites/default/articles");
    reply.problem(503, "REDVOTE_UNAVAILABLE");
    assert!(
        reply.body.get("may_have_applied").is_none(),
        "{}",
        reply.text
    );
    assert!(!reply.text.contains("applied"), "{}", reply.text);
    retry_after(&reply);
    let ready = svc.get("/readyz");
    ready.problem(503, "REDVOTE_UNAVAILABLE");
    retry_after(&ready);
}

#[test]
fn out_of_memory_is_503_with_retry_after() {
    let server = support::server();
    let mut con = support::con(&server);
    let svc = Service::start(&server);
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", spring())
        .ok(200);
    for (k, v) in [("maxmemory-policy", "noeviction"), ("maxmemory", "1")] {
        redis::cmd("CONFIG")
            .arg("SET")
            .arg(k)
            .arg(v)
            .exec(&mut con)
            .unwrap();
    }
    let reply = svc.vote("spring", "ann", "male-stars", "wjk");
    reply.problem(503, "REDVOTE_OUT_OF_MEMORY");
    retry_after(&reply);
    assert_eq!(reply.body["may_have_applied"], false, "{}", reply.text);
}
