//! `GET /healthz` (the process answers), `GET /readyz` (Redis answers
//! PING and holds every script: `SCRIPT EXISTS`, then `SCRIPT LOAD` of the
//! missing ones; its `warnings` say when a node's `maxmemory-policy` is not
//! `noeviction`) and `GET /openapi.json`.
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
    /// What does not stop the service but breaks its promises: a
    /// `maxmemory-policy` other than `noeviction` on some node (evictions
    /// lose votes and vote-id records silently), or a policy this user
    /// may not read; the words of `redvote check`. Empty when all is well.
    pub warnings: Vec<String>,
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
        .with_redis(true, check_on)
        .await
        .map_err(|e| e.to_string())
}

async fn check_on(mut con: redvote::AsyncRedis) -> redvote::Result<Ready> {
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
        warnings: eviction_warning(&mut con).await?.into_iter().collect(),
    })
}

/// `redvote check`'s eviction warning ([`redvote_check::eviction_advice`])
/// for the policies of every primary (a single server: its own): `CONFIG
/// GET maxmemory-policy`, else `INFO memory` for a user not granted
/// `CONFIG`. One or two commands a node, each under the probe's deadline.
async fn eviction_warning(con: &mut redvote::AsyncRedis) -> redvote::Result<Option<String>> {
    let nodes: Vec<Option<(String, u16)>> = match con.primaries().await? {
        Some(primaries) => primaries.into_iter().map(Some).collect(),
        None => vec![None],
    };
    let mut policies = Some(Vec::new());
    for node in &nodes {
        let config = ask(con, node, &["CONFIG", "GET", "maxmemory-policy"]).await;
        let found = match redvote_check::maxmemory_policies_in(config.as_ref(), None) {
            Some(found) => Some(found),
            None => {
                let info = ask(con, node, &["INFO", "memory"]).await;
                redvote_check::maxmemory_policies_in(None, info.as_ref())
            }
        };
        // one node whose policy cannot be read makes the whole unknown
        policies = policies.zip(found).map(|(mut all, found)| {
            all.extend(found);
            all
        });
    }
    Ok(redvote_check::eviction_advice(policies))
}

/// `words` sent to `node` (`None`: the connection's own server); its
/// reply, or `None` when refused (a user not granted the command).
async fn ask(
    con: &mut redvote::AsyncRedis,
    node: &Option<(String, u16)>,
    words: &[&str],
) -> Option<redis::Value> {
    let mut cmd = redis::cmd(words[0]);
    for w in &words[1..] {
        cmd.arg(*w);
    }
    match node {
        Some(address) => con.on_node(&cmd, address).await.ok(),
        None => cmd.query_async(con).await.ok(),
    }
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
