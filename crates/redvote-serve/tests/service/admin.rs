//! What the admin page needs beside the API of part A: the campaign list,
//! the settings read back in the configure shape, the assets, and the live
//! top over SSE (its events and its auth; its end on SIGTERM is a process
//! test: crates/redvote-cli/tests/serve/admin.rs).

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};

use super::{Service, ADMIN};
use redvote_testing as support;
use redvote_testing::http::Events;

fn spring() -> Value {
    serde_json::from_str(include_str!("../../../../docs/spring2026.json")).unwrap()
}

/// The campaign list pages through SCAN; settings read back as configured.
#[test]
fn campaigns_are_listed_and_settings_read_back() {
    let server = support::server();
    let svc = Service::start(&server);
    for name in ["spring", "autumn"] {
        svc.admin(
            Method::PUT,
            &format!("/v1/campaigns/{name}/settings"),
            spring(),
        )
        .ok(200);
    }
    // every step is small; the union over the steps is every campaign
    let (mut names, mut cursor) = (Vec::new(), "0".to_string());
    for _ in 0..1000 {
        let page = svc
            .request(
                Method::GET,
                &format!("/v1/campaigns?count=1&cursor={cursor}"),
                Some(ADMIN),
            )
            .send()
            .ok(200);
        names.extend(
            page["campaigns"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap().to_string()),
        );
        cursor = page["next"].as_str().unwrap().to_string();
        if cursor == "0" {
            break;
        }
    }
    names.sort();
    names.dedup();
    assert_eq!(names, ["autumn", "spring"]);
    svc.get("/v1/campaigns")
        .problem(401, "REDVOTE_UNAUTHORIZED");
    // not a cursor; a cluster's NODE-CURSOR on a single server
    for cursor in ["x", "1-5", "-5", "99999999999999999999999"] {
        svc.request(
            Method::GET,
            &format!("/v1/campaigns?cursor={cursor}"),
            Some(ADMIN),
        )
        .send()
        .problem(422, "REDVOTE_USAGE");
    }

    let got = svc
        .request(Method::GET, "/v1/campaigns/spring/settings", Some(ADMIN))
        .send()
        .ok(200);
    let want = spring();
    assert_eq!(got["offset"], want["offset"]);
    assert_eq!(got["limits"], want["limits"]);
    assert!(got.get("deny").is_none(), "deny lists are not read back");
    for (board, spec) in want["boards"].as_object().unwrap() {
        let b = &got["boards"][board];
        for field in ["periods", "ties", "carry", "decimals"] {
            if !spec[field].is_null() {
                assert_eq!(b[field], spec[field], "{board}.{field}");
            }
        }
        for (option, o) in spec["options"].as_object().unwrap() {
            let weight = o.get("weight").cloned().unwrap_or(json!(1));
            assert_eq!(b["options"][option]["weight"], weight, "{board}/{option}");
        }
    }
    // what was read back configures the same campaign again
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", got)
        .ok(200);
    svc.request(Method::GET, "/v1/campaigns/nope/settings", Some(ADMIN))
        .send()
        .problem(404, "REDVOTE_UNKNOWN_CAMPAIGN");
    svc.get("/v1/campaigns/spring/settings")
        .problem(401, "REDVOTE_UNAUTHORIZED");
}

/// The page and its assets are served from the binary.
#[test]
fn the_admin_page_is_served() {
    let server = support::server();
    let svc = Service::start(&server);
    let page = svc.get("/admin");
    assert_eq!(page.status, 200);
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    assert!(page.text.contains("/admin/admin.js"));
    let js = svc.get("/admin/admin.js");
    assert_eq!(js.status, 200);
    assert!(js.text.contains("EventSource"));
    assert_eq!(svc.get("/admin/admin.css").status, 200);
}

/// `user` votes for `option` on the board `male-stars` of `spring`.
fn cast(svc: &Service, user: &str, option: &str) {
    svc.vote("spring", user, "male-stars", option).ok(200);
}

/// One event at once, one per change, none without a change; the token as
/// a query parameter when the API token is set.
#[test]
fn the_live_top_streams_changes() {
    let server = support::server();
    let svc = Service::with_options(&server, |o| {
        o.admin_token = Some(ADMIN.into());
        o.api_token = Some("api-tok".into());
    });
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", spring())
        .ok(200);
    let url = |q: &str| {
        format!(
            "{}/v1/campaigns/spring/boards/male-stars/top/stream?n=3{q}",
            svc.base
        )
    };
    assert_eq!(Events::open(&url("")).err().unwrap().0, 401);
    assert_eq!(
        Events::open(&url("&access_token=wrong")).err().unwrap().0,
        401
    );
    let missing = format!(
        "{}/v1/campaigns/spring/boards/nope/top/stream?access_token=api-tok",
        svc.base
    );
    assert_eq!(Events::open(&missing).err().unwrap().0, 404);

    let events = Events::open(&url("&access_token=api-tok")).unwrap();
    let (name, first) = events
        .next(Duration::from_secs(5))
        .expect("an event at once");
    assert_eq!(name, "top");
    assert_eq!(first["board"], "male-stars");
    assert_eq!(first["size"], 0);
    assert!(
        events.next(Duration::from_millis(1500)).is_none(),
        "no change, no event"
    );

    let api = |user: &str, option: &str| {
        svc.request(Method::POST, "/v1/campaigns/spring/votes", Some("api-tok"))
            .json(json!({"user": user, "votes": [{"board": "male-stars", "option": option}]}))
            .send()
            .ok(200);
    };
    api("u1", "yyqx");
    // the top and the participants are two reads: an event may show the
    // participants of a vote whose score the next event shows
    let deadline = Instant::now() + Duration::from_secs(5);
    let after = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let (name, e) = events.next(left).expect("an event after a vote");
        assert_eq!(name, "top", "{e}");
        if e["size"] == 1 {
            break e;
        }
    };
    assert_eq!(after["entries"][0]["member"], "yyqx", "{after}");
    assert_eq!(after["entries"][0]["participants"], 1);
    assert_eq!(after["participants"], 1);
    let _ = cast; // (the helper for services without an API token)
}
