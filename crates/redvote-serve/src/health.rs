//! `GET /healthz` (the process answers), `GET /readyz` (Redis answers
//! PING and holds every script: `SCRIPT EXISTS`, then `SCRIPT LOAD` of the
//! missing ones) and `GET /openapi.json`.
//!
//! The readiness probe goes through the shared connection and the
//! client's retry policy and deadline, like every `/v1` call: a connection
//! that broke is replaced by the probe itself, so the first probe after
//! Redis is back answers 200.

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use serde::Serialize;
use utoipa::ToSchema;

use super::extract::Json;
use super::problem::{codes, Problem};
use super::AppState;

/// The process is up.
#[derive(Serialize, ToSchema)]
pub struct Health {
    /// `ok`.
    pub status: String,
}

/// The process answers (it does not look at Redis).
#[utoipa::path(
    get,
    path = "/healthz",
    tag = "operations",
    responses((status = 200, description = "The process is up", body = Health))
)]
pub async fn healthz() -> Json<Health> {
    Json(Health {
        status: "ok".to_string(),
    })
}

/// Redis is reachable and holds the scripts.
#[derive(Serialize, ToSchema)]
pub struct Ready {
    /// `ready`.
    pub status: String,
    /// Scripts the service runs (all present now).
    pub scripts: usize,
    /// How many of them this probe had to load (after a restart or a
    /// `SCRIPT FLUSH`).
    pub loaded: usize,
}

/// Redis answers PING and holds every script (the missing ones are loaded).
#[utoipa::path(
    get,
    path = "/readyz",
    tag = "operations",
    responses(
        (status = 200, description = "Ready to serve", body = Ready),
        (status = 503, description = "Redis is unreachable, or a script cannot be loaded (REDVOTE_UNAVAILABLE)"),
    )
)]
pub async fn readyz(State(state): State<AppState>) -> Result<Json<Ready>, Problem> {
    probe(&state).await.map(Json).map_err(|err| {
        Problem::new(
            StatusCode::SERVICE_UNAVAILABLE,
            codes::UNAVAILABLE,
            format!("not ready: {err}"),
        )
    })
}

async fn probe(state: &AppState) -> Result<Ready, String> {
    tokio::time::timeout(state.timeout, check(state))
        .await
        .map_err(|_| format!("no answer within {:?}", state.timeout))?
}

/// PING, and every script cached (loaded when not), through the service's
/// own connection (a cluster's: on every primary) and its retry policy: a
/// connection that broke (a restart, `CLIENT KILL`, an idle timeout) is
/// replaced by this probe itself, not left for a `/v1` call to notice.
async fn check(state: &AppState) -> Result<Ready, String> {
    state
        .con
        .with_redis(true, |con| async move { Ok(check_on(con).await?) })
        .await
        .map_err(|e| e.to_string())
}

async fn check_on(mut con: redvote::AsyncRedis) -> redis::RedisResult<Ready> {
    redis::cmd("PING").query_async::<()>(&mut con).await?;
    let scripts = redvote::scripts::all();
    let mut exists = redis::cmd("SCRIPT");
    exists.arg("EXISTS");
    for s in scripts {
        exists.arg(s.sha1());
    }
    let present: Vec<bool> = exists.query_async(&mut con).await?;
    let mut loaded = 0;
    for (s, present) in scripts.iter().zip(present) {
        if !present {
            s.script().load_async(&mut con).await?;
            loaded += 1;
        }
    }
    Ok(Ready {
        status: "ready".to_string(),
        scripts: scripts.len(),
        loaded,
    })
}

/// The OpenAPI 3.1 document of this service.
#[utoipa::path(
    get,
    path = "/openapi.json",
    tag = "operations",
    responses((status = 200, description = "This document", content_type = "application/json", body = Object))
)]
pub async fn openapi(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/json")],
        state.openapi.clone(),
    )
}
