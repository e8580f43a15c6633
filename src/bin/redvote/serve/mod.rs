//! `redvote serve`: the article site and the campaigns as a versioned JSON
//! API over HTTP (feature `serve`), for the business backends of seed 002.
//!
//! Startup connects to Redis (the binary's `--url`, `--timeout` and
//! `--retries`), binds `--listen` and prints `listening on ADDR` as the
//! first line of stdout (ADDR is the bound address: `--listen
//! 127.0.0.1:0` takes any free port); logs go to stderr (`tracing`, text or
//! JSON; the Redis URL only ever redacted). SIGTERM or Ctrl-C stops
//! accepting, lets open requests finish for at most `--drain-timeout`
//! seconds and exits 0 (1 when the drain ran out). Long-lived responses
//! (part B's SSE) end on [`AppState::shutdown`].
//!
//! Layout:
//! - `mod.rs` (here): options, state, the router and its layers, startup
//!   and shutdown;
//! - `site.rs`, `campaign.rs`: the `/v1` handlers of each system;
//! - `problem.rs`: RFC 9457 errors and the status of every code;
//! - `extract.rs`: JSON, query and path extractors answering problems, the
//!   `Idempotency-Key` header;
//! - `admin.rs` (and `admin/`): the admin page, the campaign list and
//!   settings read-back, the live top over SSE;
//! - `auth.rs`: the admin and API bearer tokens;
//! - `health.rs`: `/healthz`, `/readyz`, `/openapi.json`;
//! - `metrics.rs`: `/metrics` and the request metrics middleware;
//! - `openapi.rs`: the OpenAPI document's shared parts and rules.

// Handlers fail with a `Problem` (about 180 bytes), made at most once per
// refused request and turned into a response at once: boxing it would add
// an allocation to every refusal and save nothing.
#![allow(clippy::result_large_err)]

mod admin;
mod auth;
mod campaign;
mod extract;
mod health;
mod metrics;
mod openapi;
mod problem;
mod site;

use std::collections::BTreeMap;
use std::future::IntoFuture;
use std::io::{IsTerminal, Write};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::{header, HeaderName, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use clap::{Args, ValueEnum};
use redvote::Site;
use tokio::sync::watch;
use tower::ServiceBuilder;
use tower_http::compression::CompressionLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::sensitive_headers::SetSensitiveRequestHeadersLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use tracing::{info, warn, Level};
use utoipa::OpenApi as _;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::{redact, seconds, Global};
use auth::{Token, Tokens};
use metrics::Metrics;
use problem::{Problem, PROBLEM_JSON};

/// `redvote serve`'s options (beside the global `--url`, `--prefix`,
/// `--timeout` and `--retries`).
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on (port 0: any free port); the bound address is
    /// printed first on stdout as "listening on ADDR"
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// A site the API serves, NAME=PREFIX (repeatable; NAME follows the
    /// board name rule, PREFIX is its key prefix). Default: one site
    /// "default" with the global --prefix (the seeds' layout: "")
    #[arg(long = "site", value_name = "NAME=PREFIX", value_parser = site_arg)]
    sites: Vec<(String, String)>,
    /// Bearer token of the admin routes (settings, import, limit resets,
    /// reindex, rerank); without one they answer 403. Prefer the
    /// environment variable: a command line is visible to other users
    #[arg(long, env = "REDVOTE_ADMIN_TOKEN", hide_env_values = true)]
    admin_token: Option<String>,
    /// Bearer token every other /v1 route then requires (the admin token
    /// is accepted too); without one they are open to whoever reaches the
    /// service (the backends in front of it)
    #[arg(long, env = "REDVOTE_API_TOKEN", hide_env_values = true)]
    api_token: Option<String>,
    /// Seconds open requests may take to finish after SIGTERM / Ctrl-C
    #[arg(long, default_value_t = 10.0, value_parser = seconds)]
    drain_timeout: f64,
    /// Seconds a request may take before it is answered 503
    #[arg(long, default_value_t = 30.0, value_parser = seconds)]
    request_timeout: f64,
    /// Largest request body, bytes
    #[arg(long, default_value_t = 1 << 20)]
    body_limit: usize,
    /// Print the OpenAPI document (JSON) and exit, without Redis
    #[arg(long)]
    print_openapi: bool,
    /// Log format on stderr (level: RUST_LOG, default info)
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
}

/// How logs are written.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum LogFormat {
    /// One human-readable line per event.
    Text,
    /// One JSON object per event.
    Json,
}

/// A `--site NAME=PREFIX`.
fn site_arg(s: &str) -> Result<(String, String), String> {
    let (name, prefix) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?} is not NAME=PREFIX"))?;
    if !redvote::is_valid_name(name) {
        return Err(format!(
            "site name {name:?}: 1..64 bytes, none of : {{ }} * ? [ ] \\ , spaces or control characters"
        ));
    }
    Ok((name.to_string(), prefix.to_string()))
}

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    /// The API's connection (retried per --retries, reconnects by itself).
    con: redvote::AsyncConnection,
    /// Connect and response timeout (--timeout).
    timeout: Duration,
    /// Site name -> site.
    sites: Arc<BTreeMap<String, Site>>,
    tokens: Arc<Tokens>,
    metrics: Arc<Metrics>,
    /// The OpenAPI document, serialized once.
    openapi: Bytes,
    /// Becomes true when shutdown starts: a long-lived response (an SSE
    /// stream) must end then, or it holds the drain to its limit.
    pub shutdown: watch::Receiver<bool>,
}

impl AppState {
    /// The served site names, for a message.
    fn site_names(&self) -> String {
        self.sites.keys().cloned().collect::<Vec<_>>().join(", ")
    }
}

/// Every route, with its OpenAPI description.
fn api() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(openapi::ApiDoc::openapi())
        .routes(routes!(health::healthz))
        .routes(routes!(health::readyz))
        .routes(routes!(health::openapi))
        .routes(routes!(metrics::metrics))
        .merge(site::routes())
        .merge(campaign::routes())
        .merge(admin::routes())
}

/// The OpenAPI document the service serves.
pub fn openapi_document() -> utoipa::openapi::OpenApi {
    openapi::finish(api().into_openapi())
}

/// `redvote serve`.
pub fn run(g: &Global, args: &ServeArgs) -> Result<()> {
    if args.print_openapi {
        println!("{}", serde_json::to_string_pretty(&openapi_document())?);
        return Ok(());
    }
    let tokens = Tokens {
        admin: token(args.admin_token.as_deref(), "--admin-token")?,
        api: token(args.api_token.as_deref(), "--api-token")?,
    };
    let mut sites = BTreeMap::new();
    for (name, prefix) in &args.sites {
        if sites
            .insert(name.clone(), Site::new(prefix.clone()))
            .is_some()
        {
            bail!("--site {name} is given twice");
        }
    }
    if sites.is_empty() {
        sites.insert("default".to_string(), g.site());
    }
    logs(args.log_format);
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the tokio runtime")?
        .block_on(serve(g, args, tokens, sites))
}

/// A configured token: `None` when absent; an empty one is refused (it
/// would make `Authorization: Bearer ` a key).
fn token(secret: Option<&str>, option: &str) -> Result<Option<Token>> {
    match secret {
        None => Ok(None),
        Some(s) if s.trim().is_empty() => bail!("{option} must not be empty"),
        Some(s) => Ok(Some(Token::new(s))),
    }
}

fn logs(format: LogFormat) {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
}

async fn serve(
    g: &Global,
    args: &ServeArgs,
    tokens: Tokens,
    sites: BTreeMap<String, Site>,
) -> Result<()> {
    let url = g.url();
    let timeout = Duration::from_secs_f64(g.timeout);
    let client = crate::client(url, g)?;
    let con = client
        .connect_async()
        .await
        .with_context(|| format!("cannot connect to Redis at {}", redact(url)))?;

    let (router, doc) = api().split_for_parts();
    let doc = openapi::finish(doc);
    let (stop, shutdown) = watch::channel(false);
    let state = AppState {
        con,
        timeout,
        sites: Arc::new(sites),
        tokens: Arc::new(tokens),
        metrics: Arc::new(Metrics::new()),
        openapi: Bytes::from(serde_json::to_vec(&doc)?),
        shutdown: shutdown.clone(),
    };
    let names = state.site_names();
    let (admin, api_token) = (state.tokens.admin.is_some(), state.tokens.api.is_some());
    let app = layers(router, &state, args).with_state(state);

    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let addr = listener.local_addr()?;
    println!("listening on {addr}");
    std::io::stdout().flush()?;
    info!(%addr, redis = %redact(url), sites = %names, admin_routes = admin, api_token, "listening");

    let server = axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            signal().await;
            info!("shutting down: draining open requests");
            let _ = stop.send(true);
        })
        .into_future();
    let drain = Duration::from_secs_f64(args.drain_timeout);
    let mut started = shutdown;
    let limit = async move {
        let _ = started.wait_for(|s| *s).await;
        tokio::time::sleep(drain).await;
    };
    tokio::select! {
        done = server => {
            done.context("the server failed")?;
            info!("stopped");
            Ok(())
        }
        () = limit => {
            warn!(seconds = args.drain_timeout, "drain timeout: closing the requests still open");
            bail!("requests were still open after --drain-timeout {} s", args.drain_timeout)
        }
    }
}

/// SIGTERM or Ctrl-C.
async fn signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}

/// The router with its fallback and layers: request id (set and
/// propagated as `x-request-id`), tracing, the Authorization header marked
/// sensitive, compression, metrics, problem bodies for the layers' own
/// refusals, the request timeout and the body limit.
fn layers(router: Router<AppState>, state: &AppState, args: &ServeArgs) -> Router<AppState> {
    let request_id = HeaderName::from_static("x-request-id");
    let trace = TraceLayer::new_for_http()
        .make_span_with(|req: &Request| {
            let route = req
                .extensions()
                .get::<axum::extract::MatchedPath>()
                .map_or("unmatched", |m| m.as_str());
            let id = req
                .headers()
                .get("x-request-id")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            tracing::info_span!("request", method = %req.method(), route, request_id = id)
        })
        .on_response(DefaultOnResponse::new().level(Level::INFO));
    let timeout = Duration::from_secs_f64(args.request_timeout);
    router.fallback(not_found).layer(
        ServiceBuilder::new()
            .layer(SetRequestIdLayer::new(request_id.clone(), MakeRequestUuid))
            .layer(SetSensitiveRequestHeadersLayer::new([
                header::AUTHORIZATION,
            ]))
            .layer(trace)
            .layer(PropagateRequestIdLayer::new(request_id))
            .layer(CompressionLayer::new())
            .layer(axum::middleware::from_fn_with_state(
                state.clone(),
                metrics::track,
            ))
            .layer(axum::middleware::from_fn(problems))
            .layer(TimeoutLayer::with_status_code(
                StatusCode::SERVICE_UNAVAILABLE,
                timeout,
            ))
            .layer(RequestBodyLimitLayer::new(args.body_limit))
            .layer(DefaultBodyLimit::max(args.body_limit)),
    )
}

/// A path no route takes.
async fn not_found() -> Problem {
    problem::for_status(StatusCode::NOT_FOUND)
}

/// Middleware: an error response that is not a problem already (axum's
/// 405, tower-http's 413 and timeout) becomes one, with its status.
async fn problems(req: Request, next: Next) -> Response {
    let response = next.run(req).await;
    let status = response.status();
    let is_problem = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes() == PROBLEM_JSON.as_bytes());
    if (status.is_client_error() || status.is_server_error()) && !is_problem {
        let mut replaced = problem::for_status(status).into_response();
        // keep what axum said about the allowed methods
        if let Some(allow) = response.headers().get(header::ALLOW) {
            replaced.headers_mut().insert(header::ALLOW, allow.clone());
        }
        return replaced;
    }
    response
}
