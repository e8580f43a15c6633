//! Bearer tokens: admin routes refused without the admin token (or with a
//! wrong one), off without one configured; the API token, when set,
//! required by every other /v1 route. (An empty token refused on the
//! command line: crates/redvote-cli/tests/serve/auth.rs.)

use reqwest::Method;
use serde_json::{json, Value};

use super::{Service, ADMIN};
use redvote_testing as support;

/// Every admin route, with a body it accepts.
fn admin_routes() -> Vec<(Method, &'static str, Value)> {
    vec![
        (
            Method::PUT,
            "/v1/campaigns/c/settings",
            json!({"boards": {"b": {"options": {"o": {}}}}}),
        ),
        (
            Method::PUT,
            "/v1/campaigns/c/boards/b/import",
            json!({"o": 3}),
        ),
        (
            Method::POST,
            "/v1/campaigns/c/limits/reset",
            json!({"user": "u"}),
        ),
        (Method::POST, "/v1/campaigns/c/boards/b/reindex", json!({})),
        (
            Method::PATCH,
            "/v1/sites/default/config",
            json!({"page_size": 10}),
        ),
        (Method::POST, "/v1/sites/default/rerank", json!({})),
    ]
}

#[test]
fn admin_routes_need_the_admin_token() {
    let server = support::server();
    let mut con = support::con(&server);
    let svc = Service::start(&server);
    for (method, path, body) in admin_routes() {
        let before = support::digest(&mut con);
        let none = svc.json(method.clone(), path, body.clone());
        none.problem(401, "REDVOTE_UNAUTHORIZED");
        assert_eq!(none.header("www-authenticate"), Some("Bearer"), "{path}");
        let wrong = svc
            .request(method.clone(), path, Some("admin-secret-tokeN"))
            .json(body.clone())
            .send();
        wrong.problem(401, "REDVOTE_UNAUTHORIZED");
        let basic = svc
            .request(method.clone(), path, None)
            .header("authorization", &format!("Basic {ADMIN}"))
            .json(body.clone())
            .send();
        basic.problem(401, "REDVOTE_UNAUTHORIZED");
        assert_eq!(
            support::digest(&mut con),
            before,
            "{path}: refused, yet it wrote"
        );
        // with the token: in order, each route does its work
        let ok = svc.admin(method.clone(), path, body);
        assert_eq!(ok.status, 200, "{method} {path}: {}", ok.text);
    }
}

#[test]
fn admin_routes_are_off_without_an_admin_token() {
    let server = support::server();
    let svc = Service::with_options(&server, |_| {});
    for (method, path, body) in admin_routes() {
        svc.request(method.clone(), path, Some(ADMIN))
            .json(body.clone())
            .send()
            .problem(403, "REDVOTE_ADMIN_DISABLED");
        svc.json(method, path, body)
            .problem(403, "REDVOTE_ADMIN_DISABLED");
    }
    // the other routes stay open
    svc.get("/v1/sites/default/articles").ok(200);
}

#[test]
fn the_api_token_guards_every_other_v1_route() {
    let server = support::server();
    let svc = Service::with_options(&server, |o| {
        o.admin_token = Some(ADMIN.into());
        o.api_token = Some("api-token".into());
    });
    let paths = [
        "/v1/sites",
        "/v1/sites/default/articles",
        "/v1/sites/default/config",
        "/v1/campaigns/c/top?boards=b",
        "/v1/campaigns/c/limits?user=u",
    ];
    for path in paths {
        let none = svc.get(path);
        none.problem(401, "REDVOTE_UNAUTHORIZED");
        assert_eq!(none.header("www-authenticate"), Some("Bearer"));
        svc.request(Method::GET, path, Some("api-tokeN"))
            .send()
            .problem(401, "REDVOTE_UNAUTHORIZED");
        let with = svc.request(Method::GET, path, Some("api-token")).send();
        assert_ne!(with.status, 401, "{path}: {}", with.text);
        let admin = svc.request(Method::GET, path, Some(ADMIN)).send();
        assert_eq!(
            admin.status, with.status,
            "{path}: the admin token is accepted too"
        );
    }
    svc.request(Method::POST, "/v1/campaigns/c/votes", None)
        .json(json!({"user": "u", "votes": [{"board": "b", "option": "o"}]}))
        .send()
        .problem(401, "REDVOTE_UNAUTHORIZED");
    // the API token is not the admin token
    svc.request(Method::PUT, "/v1/campaigns/c/settings", Some("api-token"))
        .json(json!({}))
        .send()
        .problem(401, "REDVOTE_UNAUTHORIZED");
    svc.admin(
        Method::PUT,
        "/v1/campaigns/c/settings",
        json!({"boards": {"b": {"options": {"o": {}}}}}),
    )
    .ok(200);
    // operations routes stay open
    for path in ["/healthz", "/readyz", "/metrics", "/openapi.json"] {
        assert_eq!(svc.get(path).status, 200, "{path}");
    }
}
