//! No metrics label takes its value from the request as sent. 2,000
//! requests with made-up methods and paths leave `/metrics` with the same
//! bounded set of series; the Redis and process metrics are there.

use reqwest::Method;
use serde_json::Value;

use super::Service;
use redvote_testing as support;

/// The series of an OpenMetrics text (its sample lines).
fn series(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect()
}

/// Every value of label `name` in `text`.
fn values<'t>(text: &'t str, name: &str) -> Vec<&'t str> {
    let key = format!("{name}=\"");
    text.match_indices(&key)
        .map(|(i, _)| {
            let rest = &text[i + key.len()..];
            &rest[..rest.find('"').unwrap()]
        })
        .collect()
}

#[test]
fn made_up_methods_and_paths_do_not_grow_the_metrics() {
    let server = support::server();
    let svc = Service::start(&server);
    let spring: Value =
        serde_json::from_str(include_str!("../../../../docs/spring2026.json")).unwrap();
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", spring)
        .ok(200);
    svc.vote("spring", "ann", "male-stars", "wjk").ok(200);
    svc.get("/v1/sites/default/articles").ok(200);
    let before = svc.get("/metrics").text;
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for i in 0..2000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let method = Method::from_bytes(format!("M{seed:X}").as_bytes()).unwrap();
        let path = match i % 4 {
            0 => format!("/v1/campaigns/c{seed:x}/votes"),
            1 => format!("/nowhere/{seed:x}"),
            2 => "/v1/sites".to_string(),
            _ => "/healthz".to_string(),
        };
        let reply = svc.request(method, &path, None).send();
        assert!(reply.status >= 400, "{}", reply.status);
    }
    let after = svc.get("/metrics").text;
    let (n0, n1) = (series(&before).len(), series(&after).len());
    assert!(
        n1 <= n0 + 200 && after.len() < 200_000,
        "{n0} -> {n1} series, {} bytes",
        after.len()
    );
    for method in values(&after, "method") {
        assert!(
            ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "other"].contains(&method),
            "method {method:?}"
        );
    }
    for status in values(&after, "status") {
        assert!(
            ["1xx", "2xx", "3xx", "4xx", "5xx"].contains(&status),
            "status {status:?}"
        );
    }
    let mut routes = values(&after, "route");
    routes.sort();
    routes.dedup();
    assert!(routes.len() <= 40, "{routes:?}");
    for route in routes {
        assert!(
            route == "unmatched"
                || !route.contains("nowhere") && !route.contains("/v1/campaigns/c"),
            "route {route:?}"
        );
    }
    // latency per route, method and status class
    assert!(after.contains(
        "redvote_http_request_duration_seconds_count{route=\"/v1/campaigns/{campaign}/votes\",method=\"POST\",status=\"2xx\"}"
    ), "{after}");
    // the Redis calls, by script and outcome, and their errors by code
    assert!(
        after.contains("redvote_redis_calls_total{script=\"campaign_vote\",outcome=\"ok\"} 1")
            || after.contains("redvote_redis_calls_total{script=\"vote\",outcome=\"ok\"}"),
        "{after}"
    );
    assert!(after.contains("redvote_redis_call_duration_seconds_count{script="));
    if cfg!(target_os = "linux") {
        assert!(after.contains("redvote_process_resident_memory_bytes "));
        assert!(after.contains("redvote_process_open_fds "));
    }
}

/// A refused vote counts as a refused call with the script's code.
#[test]
fn refused_calls_count_by_code() {
    let server = support::server();
    let svc = Service::start(&server);
    svc.vote("nope", "ann", "b", "o")
        .problem(404, "REDVOTE_UNKNOWN_CAMPAIGN");
    let text = svc.get("/metrics").text;
    assert!(
        text.contains("redvote_redis_errors_total{code=\"REDVOTE_UNKNOWN_CAMPAIGN\"} 1"),
        "{text}"
    );
    assert!(text.contains("outcome=\"refused\""), "{text}");
}

/// The admin page's Redis reads count in the Redis metrics too: its
/// scripts (settings, participants) by script, its plain commands (the
/// campaign list, the deny lists, a board's options) under their names.
#[test]
fn the_admin_pages_reads_are_in_the_redis_metrics() {
    let server = support::server();
    let svc = Service::start(&server);
    let spring: Value =
        serde_json::from_str(include_str!("../../../../docs/spring2026.json")).unwrap();
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", spring)
        .ok(200);
    for path in [
        "/v1/campaigns",
        "/v1/campaigns/spring/settings",
        "/v1/campaigns/spring/deny",
        "/v1/campaigns/spring/boards/male-stars/options",
    ] {
        svc.request(Method::GET, path, Some(super::ADMIN))
            .send()
            .ok(200);
    }
    let text = svc.get("/metrics").text;
    for script in [
        "campaign_registry",
        "campaign_settings",
        "deny_lists",
        "board_options",
    ] {
        let line = format!("redvote_redis_calls_total{{script=\"{script}\",outcome=\"ok\"}}");
        assert!(text.contains(&line), "{line} missing:\n{text}");
    }
}
