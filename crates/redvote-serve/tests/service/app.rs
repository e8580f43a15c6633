//! The service as a library without any socket: [`redvote_serve::app`]
//! driven request by request with `tower::ServiceExt::oneshot`, against a
//! real `redis-server` (the state's connection is real; only the listener
//! is left out), and [`redvote_serve::AppState::new`]'s own refusals.

use std::collections::BTreeMap;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use redvote_serve::{app, AppState, Options};
use serde_json::{json, Value};
use tower::ServiceExt;

use super::ADMIN;

/// The state of a service on `server`: the site `default`, `options`.
async fn state(server: &redvote_testing::TempServer, options: &Options) -> AppState {
    let client = redvote::Client::open(&server.url()).unwrap();
    let sites = BTreeMap::from([("default".to_string(), redvote::Site::default())]);
    AppState::new(&client, sites, options)
        .await
        .expect("the service's state")
}

/// One request through the router: (status, content type, JSON body).
async fn call(router: axum::Router, request: Request<Body>) -> (StatusCode, String, Value) {
    let response = router.oneshot(request).await.unwrap();
    let status = response.status();
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    (
        status,
        content_type,
        serde_json::from_slice(&bytes).unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn healthz_answers_without_a_listener() {
    let server = redvote_testing::server();
    let options = Options::default();
    let router = app(state(&server, &options).await, &options);
    let request = Request::get("/healthz").body(Body::empty()).unwrap();
    let (status, content_type, body) = call(router, request).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(content_type, "application/json");
    assert_eq!(body, json!({"status": "ok"}));
}

/// Problems from the router's fallback, from the auth check and from a
/// script's refusal (a call that reached Redis), without a listener.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn problems_answer_without_a_listener() {
    let server = redvote_testing::server();
    let options = Options {
        admin_token: Some(ADMIN.into()),
        ..Options::default()
    };
    let router = app(state(&server, &options).await, &options);

    let request = Request::get("/v2/nothing").body(Body::empty()).unwrap();
    let (status, content_type, body) = call(router.clone(), request).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(content_type, "application/problem+json");
    assert_eq!(body["status"], 404);
    assert_eq!(body["code"], "REDVOTE_NOT_FOUND");

    let request = Request::put("/v1/campaigns/c/settings")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(r#"{"boards": {"b": {"options": {"o": {}}}}}"#))
        .unwrap();
    let (status, content_type, body) = call(router.clone(), request).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(content_type, "application/problem+json");
    assert_eq!(body["code"], "REDVOTE_UNAUTHORIZED");

    let request = Request::post("/v1/campaigns/nope/votes")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(
            r#"{"user": "u", "votes": [{"board": "b", "option": "o"}]}"#,
        ))
        .unwrap();
    let (status, content_type, body) = call(router, request).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(content_type, "application/problem+json");
    assert_eq!(body["code"], "REDVOTE_UNKNOWN_CAMPAIGN");
    assert!(body["detail"].as_str().unwrap().contains("nope"), "{body}");
}

/// The library refuses what the command line refuses: an empty token
/// (it would make `Authorization: Bearer ` a key) and no site at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_state_refuses_empty_tokens_and_no_sites() {
    let server = redvote_testing::server();
    let client = redvote::Client::open(&server.url()).unwrap();
    let sites = || BTreeMap::from([("default".to_string(), redvote::Site::default())]);
    for options in [
        Options {
            admin_token: Some(" ".into()),
            ..Options::default()
        },
        Options {
            api_token: Some(String::new()),
            ..Options::default()
        },
    ] {
        let err = AppState::new(&client, sites(), &options)
            .await
            .err()
            .expect("an empty token is refused");
        assert!(err.to_string().contains("must not be empty"), "{err}");
    }
    let err = AppState::new(&client, BTreeMap::new(), &Options::default())
        .await
        .err()
        .expect("no site is refused");
    assert!(err.to_string().contains("at least one site"), "{err}");
}
