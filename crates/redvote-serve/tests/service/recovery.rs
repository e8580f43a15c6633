//! After the Redis connection drops (a restart, `CLIENT KILL`, an idle
//! timeout), every route recovers by itself: the first probe (or read)
//! after the drop answers 200, without waiting for a `/v1` call to replace
//! the broken connection.

use reqwest::Method;

use super::{Service, ADMIN};
use redvote_testing as support;

/// Kill every normal client connection of `server` (the service's).
fn kill_clients(server: &redvote_testing::TempServer) {
    let mut con = support::con(server);
    let _: i64 = redis::cmd("CLIENT")
        .arg("KILL")
        .arg("TYPE")
        .arg("normal")
        .arg("SKIPME")
        .arg("yes")
        .query(&mut con)
        .unwrap();
}

#[test]
fn readyz_recovers_after_client_kill() {
    let server = support::server();
    let svc = Service::start(&server);
    svc.get("/readyz").ok(200);
    for round in 0..3 {
        kill_clients(&server);
        let ready = svc.get("/readyz");
        assert_eq!(ready.status, 200, "round {round}: {}", ready.text);
    }
}

#[test]
fn reads_recover_after_client_kill() {
    let server = support::server();
    let svc = Service::start(&server);
    svc.admin(
        Method::PUT,
        "/v1/campaigns/fall/settings",
        serde_json::from_str(include_str!("../../../../docs/spring2026.json")).unwrap(),
    )
    .ok(200);
    kill_clients(&server);
    let settings = svc
        .request(Method::GET, "/v1/campaigns/fall/settings", Some(ADMIN))
        .send();
    assert_eq!(settings.status, 200, "settings: {}", settings.text);
    kill_clients(&server);
    let list = svc
        .request(Method::GET, "/v1/campaigns", Some(ADMIN))
        .send();
    assert_eq!(list.status, 200, "list: {}", list.text);
}
