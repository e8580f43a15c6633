//! The admin page's live top over SSE as the process ends: on SIGTERM
//! the open streams end and the process exits 0 within the drain limit.
//! The campaign list, the settings read back, the assets and the
//! stream's events and auth are tested in-process:
//! crates/redvote-serve/tests/service/admin.rs.

use std::time::Duration;

use reqwest::Method;
use serde_json::Value;

use super::{Service, ADMIN};
use redvote_testing as support;
use redvote_testing::http::Events;

fn spring() -> Value {
    serde_json::from_str(include_str!("../../../../docs/spring2026.json")).unwrap()
}

/// `user` votes for `option` on the board `male-stars` of `spring`.
fn cast(svc: &Service, user: &str, option: &str) {
    svc.vote("spring", user, "male-stars", option).ok(200);
}

/// SIGTERM with a stream open: the stream ends and the process exits 0
/// well within the drain limit.
#[test]
fn sigterm_ends_open_streams_within_the_drain() {
    let server = support::server();
    let mut svc = Service::with(
        &server,
        &["--admin-token", ADMIN, "--drain-timeout", "5"],
        &[],
    );
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", spring())
        .ok(200);
    cast(&svc, "u1", "yyqx");
    let events = Events::open(&format!(
        "{}/v1/campaigns/spring/boards/male-stars/top/stream",
        svc.base
    ))
    .unwrap();
    events
        .next(Duration::from_secs(5))
        .expect("the first event");
    svc.signal("TERM");
    // exit 0: the stream ended, it did not hold the drain to its 5 s limit
    let status = svc
        .wait_exit(support::PATIENCE)
        .expect("exited with a stream open");
    assert!(status.success(), "{status}: the drain was not cut");
    assert!(events.ends(Duration::from_secs(2)), "the stream ended");
}
