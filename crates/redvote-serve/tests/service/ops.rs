//! The service as an operator sees it: health and readiness, the OpenAPI
//! document, metrics, request ids, compression, the body limit, unknown
//! routes, Redis going away (503) and coming back, and the request
//! timeout. (Shutdown on SIGTERM within the drain limit, and the exit
//! codes, are process tests: crates/redvote-cli/tests/serve/ops.rs.)

use std::io::Read;
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};

use super::{Service, ADMIN};
use redvote_testing as support;

#[test]
fn healthz_and_readyz_answer() {
    let server = support::server();
    let mut con = support::con(&server);
    let svc = Service::start(&server);
    assert_eq!(svc.get("/healthz").ok(200), json!({"status": "ok"}));
    let n = redvote::scripts::all().len();
    redis::cmd("SCRIPT").arg("FLUSH").exec(&mut con).unwrap();
    let ready = svc.get("/readyz").ok(200);
    assert_eq!(
        ready,
        json!({"status": "ready", "scripts": n, "loaded": n, "warnings": []}),
        "loads what is missing"
    );
    let ready = svc.get("/readyz").ok(200);
    assert_eq!(ready["loaded"], 0);
}

/// Every route is in /openapi.json, every error response there is a
/// problem, and the caps are the library's.
#[test]
fn openapi_lists_every_route() {
    let server = support::server();
    let svc = Service::start(&server);
    let doc = svc.get("/openapi.json").ok(200);
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1."));
    let mut routes: Vec<String> = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            routes.push(format!("{} {path}", method.to_uppercase()));
            for (status, response) in op["responses"].as_object().unwrap() {
                if status.as_str() >= "400" {
                    let schema = &response["content"]["application/problem+json"]["schema"]["$ref"];
                    assert_eq!(
                        schema, "#/components/schemas/Problem",
                        "{method} {path} {status}"
                    );
                }
            }
            if path.starts_with("/v1/") {
                for status in ["400", "401", "500", "503"] {
                    assert!(
                        op["responses"][status].is_object(),
                        "{method} {path} lacks {status}"
                    );
                }
            }
        }
    }
    routes.sort();
    let want = [
        "DELETE /v1/keys/{name}",
        "GET /healthz",
        "GET /metrics",
        "GET /openapi.json",
        "GET /readyz",
        "GET /v1/campaigns",
        "GET /v1/campaigns/{campaign}/audit",
        "GET /v1/campaigns/{campaign}/boards/{board}/around/{member}",
        "GET /v1/campaigns/{campaign}/boards/{board}/export",
        "GET /v1/campaigns/{campaign}/boards/{board}/options",
        "GET /v1/campaigns/{campaign}/boards/{board}/participants",
        "GET /v1/campaigns/{campaign}/boards/{board}/standing",
        "GET /v1/campaigns/{campaign}/boards/{board}/stats",
        "GET /v1/campaigns/{campaign}/boards/{board}/top/stream",
        "GET /v1/campaigns/{campaign}/deny",
        "GET /v1/campaigns/{campaign}/fold",
        "GET /v1/campaigns/{campaign}/limits",
        "GET /v1/campaigns/{campaign}/settings",
        "GET /v1/campaigns/{campaign}/top",
        "GET /v1/keys",
        "GET /v1/sites",
        "GET /v1/sites/{site}/articles",
        "GET /v1/sites/{site}/articles/{id}",
        "GET /v1/sites/{site}/config",
        "GET /v1/sites/{site}/groups/{group}/articles",
        "PATCH /v1/sites/{site}/config",
        "POST /v1/campaigns/{campaign}/boards/{board}/reindex",
        "POST /v1/campaigns/{campaign}/boards/{board}/top/ticket",
        "POST /v1/campaigns/{campaign}/fold",
        "POST /v1/campaigns/{campaign}/limits/reset",
        "POST /v1/campaigns/{campaign}/votes",
        "POST /v1/campaigns/{campaign}/votes/void",
        "POST /v1/campaigns/{campaign}/votes/{vote_id}/void",
        "POST /v1/keys",
        "POST /v1/sites/{site}/articles",
        "POST /v1/sites/{site}/articles/{id}/groups",
        "POST /v1/sites/{site}/rerank",
        "PUT /v1/campaigns/{campaign}/boards/{board}/import",
        "PUT /v1/campaigns/{campaign}/settings",
        "PUT /v1/sites/{site}/articles/{id}/vote",
    ];
    assert_eq!(routes, want);
    let votes = &doc["paths"]["/v1/campaigns/{campaign}/votes"]["post"];
    assert!(votes["responses"]["429"].is_object());
    let top = &doc["paths"]["/v1/campaigns/{campaign}/top"]["get"]["parameters"];
    let per_page = top
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "per_page")
        .unwrap();
    assert_eq!(per_page["schema"]["maximum"], redvote::caps::PER_PAGE);
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["admin_token"]["scheme"], "bearer");
    assert_eq!(schemes["api_token"]["scheme"], "bearer");
    // the same document without a server (`redvote serve --print-openapi`
    // prints it: crates/redvote-cli/tests/serve/ops.rs)
    let printed: Value = serde_json::to_value(redvote_serve::openapi_document()).unwrap();
    assert_eq!(printed, doc);
}

/// A line of the metrics text and its value.
fn metric(text: &str, name_and_labels: &str) -> f64 {
    text.lines()
        .find_map(|l| {
            l.strip_prefix(name_and_labels)
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(0.0)
}

#[test]
fn metrics_count_requests_latencies_and_votes() {
    let server = support::server();
    let svc = Service::start(&server);
    let settings = json!({"deny": {"users": ["bad"]}, "boards": {"b": {"options": {"o": {}}}}});
    svc.admin(Method::PUT, "/v1/campaigns/c/settings", settings)
        .ok(200);
    let vote = |user: &str| {
        svc.json(
            Method::POST,
            "/v1/campaigns/c/votes",
            json!({"user": user, "votes": [{"board": "b", "option": "o"}]}),
        )
    };
    vote("u").ok(200);
    vote("u").ok(200);
    vote("bad").problem(403, "REDVOTE_DENIED");
    let text = svc.get("/metrics").text;
    let route = r#"route="/v1/campaigns/{campaign}/votes",method="POST""#;
    assert_eq!(
        metric(
            &text,
            &format!("redvote_http_requests_total{{{route},status=\"2xx\"}}")
        ),
        2.0,
        "{text}"
    );
    assert_eq!(
        metric(
            &text,
            &format!("redvote_http_requests_total{{{route},status=\"4xx\"}}")
        ),
        1.0
    );
    let count = |class: &str| {
        metric(
            &text,
            &format!("redvote_http_request_duration_seconds_count{{{route},status=\"{class}\"}}"),
        )
    };
    assert_eq!(count("2xx") + count("4xx"), 3.0);
    assert_eq!(
        metric(
            &text,
            r#"redvote_votes_total{system="campaign",result="accepted",code=""}"#
        ),
        2.0
    );
    assert_eq!(
        metric(
            &text,
            r#"redvote_votes_total{system="campaign",result="refused",code="REDVOTE_DENIED"}"#
        ),
        1.0
    );
    assert!(text.contains("redvote_http_request_duration_seconds_bucket{"));
}

#[test]
fn request_ids_compression_and_problems_for_the_layers() {
    let server = support::server();
    let svc = Service::with_options(&server, |o| {
        o.admin_token = Some(ADMIN.into());
        o.body_limit = 1024;
    });
    // a request id is made, or the caller's is kept
    let made = svc.get("/healthz");
    assert_eq!(
        made.header("x-request-id").map(str::len),
        Some(36),
        "a UUID"
    );
    let kept = svc
        .request(Method::GET, "/healthz", None)
        .header("x-request-id", "abc-123")
        .send();
    assert_eq!(kept.header("x-request-id"), Some("abc-123"));

    // gzip when asked (the client here does not decode it)
    let raw = reqwest::blocking::Client::new()
        .get(format!("{}/openapi.json", svc.base))
        .header("accept-encoding", "gzip")
        .send()
        .unwrap();
    assert_eq!(raw.headers()["content-encoding"], "gzip");
    let mut bytes = Vec::new();
    raw.take(2).read_to_end(&mut bytes).unwrap();
    assert_eq!(bytes, [0x1f, 0x8b], "gzip magic");

    // layers' refusals are problems too
    svc.get("/v2/nothing").problem(404, "REDVOTE_NOT_FOUND");
    let put = svc.json(Method::DELETE, "/v1/campaigns/c/votes", json!({}));
    put.problem(405, "REDVOTE_METHOD_NOT_ALLOWED");
    assert_eq!(put.header("allow"), Some("POST"));
    let big = json!({"user": "u", "title": "x".repeat(2000), "link": "https://e.x"});
    svc.json(Method::POST, "/v1/sites/default/articles", big)
        .problem(413, "REDVOTE_TOO_LARGE");
}

/// Redis stopped: API calls are 503 and /readyz says so, /healthz not;
/// Redis back on the same port: the service recovers by itself.
#[test]
fn redis_down_is_503_and_the_service_recovers() {
    let mut server = support::server();
    let svc = Service::with_setup(&server, |s| {
        s.options.admin_token = Some(ADMIN.into());
        s.retries = 1;
        s.timeout = Duration::from_secs(1);
    });
    svc.admin(
        Method::PUT,
        "/v1/campaigns/c/settings",
        json!({"boards": {"b": {"options": {"o": {}}}}}),
    )
    .ok(200);
    let vote = json!({"user": "u", "votes": [{"board": "b", "option": "o"}]});
    svc.json(Method::POST, "/v1/campaigns/c/votes", vote.clone())
        .ok(200);

    server.kill().unwrap();
    let down = svc.json(Method::POST, "/v1/campaigns/c/votes", vote.clone());
    assert!(down.problem(503, "REDVOTE_UNAVAILABLE").contains("Redis"));
    svc.get("/v1/campaigns/c/top?boards=b")
        .problem(503, "REDVOTE_UNAVAILABLE");
    svc.get("/v1/sites/default/articles")
        .problem(503, "REDVOTE_UNAVAILABLE");
    svc.get("/readyz").problem(503, "REDVOTE_UNAVAILABLE");
    assert_eq!(svc.get("/healthz").status, 200);

    server.restart().unwrap();
    // the data is gone (no persistence): the campaign is unknown now, which
    // proves the call reached the new server
    svc.json(Method::POST, "/v1/campaigns/c/votes", vote)
        .problem(404, "REDVOTE_UNKNOWN_CAMPAIGN");
    assert_eq!(svc.get("/readyz").ok(200)["status"], "ready");
}

/// A request that outlasts --request-timeout is answered 503
/// `REDVOTE_TIMEOUT`, in time.
#[test]
fn a_request_over_the_request_timeout_is_503() {
    let server = support::server();
    let svc = Service::with_setup(&server, |s| {
        s.options.request_timeout = Duration::from_millis(500);
        s.timeout = Duration::from_secs(30);
    });
    let signal = |sig: &str| {
        std::process::Command::new("kill")
            .args([&format!("-{sig}"), &server.pid().to_string()])
            .status()
            .unwrap()
    };
    assert!(signal("STOP").success());
    let start = Instant::now();
    let reply = svc.get("/v1/sites/default/config");
    let took = start.elapsed();
    assert!(signal("CONT").success());
    reply.problem(503, "REDVOTE_TIMEOUT");
    // the 500 ms request timeout, with a loaded machine's slack: long
    // before the client's own 30 s
    assert!(took < Duration::from_secs(10), "{took:?}");
    svc.get("/v1/sites/default/config").ok(200);
}

/// The harness's own promise: dropping the [`Service`] ends the service
/// (its shutdown resolves, `serve` returns, the listener closes).
#[test]
fn dropping_the_service_stops_it() {
    let server = support::server();
    let svc = Service::start(&server);
    assert_eq!(svc.get("/healthz").status, 200);
    let base = svc.base.clone();
    let start = Instant::now();
    drop(svc);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert!(
        reqwest::blocking::get(format!("{base}/healthz")).is_err(),
        "still answering after the drop"
    );
}
