//! redvote's service: the article site and the campaigns as a versioned
//! JSON API over HTTP (axum), for the business backends of seed 002, with
//! an admin page, Prometheus metrics and an OpenAPI document. The `redvote`
//! CLI runs it as `redvote serve`; an embedder runs [`run`], starts a
//! [`Background`] beside a program of its own, or mounts
//! [`app`] in a router of its own.
//!
//! [`run`] connects to Redis through the [`redvote::Client`] it is given
//! (its timeouts, retries and wait for replicas), binds
//! [`Options::listen`] and prints `listening on ADDR` as the first line of
//! stdout (ADDR is the bound address: port 0 takes any free port); logs go
//! through `tracing` (install a subscriber, e.g. [`logs`]; the Redis URL is
//! only ever redacted). When `shutdown` resolves (the CLI passes
//! [`signal`]: SIGTERM or Ctrl-C) it stops accepting, lets open requests
//! finish for at most [`Options::drain_timeout`] and returns (an error
//! when the drain ran out). Long-lived responses (the admin page's SSE)
//! end on [`AppState::shutdown`]. Beside the routes it folds every
//! buffered campaign of the campaign registry in the background
//! ([`fold_in_background`], docs/hot-campaigns.md), until shutdown starts.
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! use std::collections::BTreeMap;
//! let client = redvote::Client::open(&std::env::var("REDVOTE_URL")?)?;
//! let sites = BTreeMap::from([("default".to_string(), redvote::Site::default())]);
//! redvote_serve::run(&client, sites, &redvote_serve::Options::default(), redvote_serve::signal()).await
//! # }
//! ```
//!
//! Layout:
//! - `lib.rs` (here): options, state, the router and its layers, startup
//!   and shutdown;
//! - `background.rs`: [`Background`], the service on a thread and a
//!   runtime of its own beside the caller's program (tests, benchmarks,
//!   embedders);
//! - `site.rs`, `campaign.rs`: the `/v1` handlers of each system;
//! - `problem.rs`: RFC 9457 errors and the status of every code;
//! - `extract.rs`: JSON, query and path extractors answering problems, the
//!   `Idempotency-Key` header;
//! - `admin.rs` (and `admin/`): the admin page, the live top over SSE;
//! - `export.rs`, `stats.rs`: a board's period as CSV or JSON lines,
//!   streamed in batches, and its vote statistics (JSON or CSV);
//! - `campaigns.rs`: the campaign list (the campaign registry) and the
//!   settings read-back for the admin page;
//! - `auth.rs`: the admin and API bearer tokens, the team keys' scopes;
//! - `keys.rs`: the team keys' store and `/v1/keys`; `audit.rs`: the audit
//!   log's writer and read; `void.rs`: voiding votes (docs/teams.md);
//! - `health.rs`: `/healthz`, `/readyz`, `/openapi.json`;
//! - `fold.rs`: buffered campaigns: the background folder, the fold
//!   routes, the resend of a call refused `REDVOTE_UNFOLDED`;
//! - `metrics.rs`: `/metrics` and the request metrics middleware;
//! - `openapi.rs`: the OpenAPI document's shared parts and rules.

// Handlers fail with a `Problem` (about 180 bytes), made at most once per
// refused request and turned into a response at once: boxing it would add
// an allocation to every refusal and save nothing.
#![allow(clippy::result_large_err)]

mod admin;
pub mod audit;
mod auth;
mod background;
mod campaign;
pub mod campaigns;
pub mod export;
mod extract;
mod fold;
mod health;
pub mod keys;
mod metrics;
mod openapi;
mod problem;
mod site;
mod stats;
mod void;

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
use redvote::client::redact;
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

pub use background::Background;
pub use fold::in_background as fold_in_background;

use auth::{Token, Tokens};
use metrics::Metrics;
use problem::Problem;

/// How the service listens, authenticates and bounds its requests (the
/// CLI's `redvote serve` flags; [`Options::default`] gives their defaults).
#[derive(Debug, Clone)]
pub struct Options {
    /// Address to listen on (port 0: any free port).
    pub listen: SocketAddr,
    /// Bearer token of the admin routes (settings, import, limit resets,
    /// reindex, rerank); without one they answer 403.
    pub admin_token: Option<String>,
    /// Bearer token every other /v1 route then requires (the admin token is
    /// accepted too); without one they are open to whoever reaches the
    /// service (the backends in front of it).
    pub api_token: Option<String>,
    /// How long open requests may take to finish once shutdown starts.
    pub drain_timeout: Duration,
    /// How long a request may take before it is answered 503.
    pub request_timeout: Duration,
    /// Largest request body, bytes.
    pub body_limit: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            admin_token: None,
            api_token: None,
            drain_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            body_limit: 1 << 20,
        }
    }
}

/// How logs are written by [`logs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    /// One human-readable line per event.
    Text,
    /// One JSON object per event.
    Json,
}

/// What every handler shares: the Redis connection, the sites, the
/// tokens, the metrics. Made by [`AppState::new`], given to [`app`].
#[derive(Clone)]
pub struct AppState {
    /// The API's connection (retried per the client's policy, reconnects
    /// by itself).
    con: redvote::AsyncConnection,
    /// How long `/readyz` waits for Redis (the client's response timeout).
    timeout: Duration,
    /// How long a request may take ([`Options::request_timeout`]): the
    /// deadline of each batch of a streamed export too.
    request_timeout: Duration,
    /// Site name -> site.
    sites: Arc<BTreeMap<String, Site>>,
    tokens: Arc<Tokens>,
    metrics: Arc<Metrics>,
    /// The OpenAPI document, serialized once.
    openapi: Bytes,
    /// Becomes true when shutdown starts: a long-lived response (an SSE
    /// stream) must end then, or it holds the drain to its limit.
    pub shutdown: watch::Receiver<bool>,
    /// What [`AppState::shutdown`] listens to.
    stop: Arc<watch::Sender<bool>>,
    /// Wakes the background folder to read the registry again (a settings
    /// PUT may have made a campaign buffered).
    fold_wake: Arc<tokio::sync::Notify>,
}

impl AppState {
    /// Connect through `client` and prepare the state of a service that
    /// serves `sites` (name -> site; at least one) with the tokens of
    /// `options`. An empty token is refused (it would make `Authorization:
    /// Bearer ` a key).
    pub async fn new(
        client: &redvote::Client,
        sites: BTreeMap<String, Site>,
        options: &Options,
    ) -> Result<AppState> {
        let tokens = Tokens {
            admin: token(options.admin_token.as_deref(), "the admin token")?,
            api: token(options.api_token.as_deref(), "the API token")?,
        };
        if sites.is_empty() {
            bail!("the service needs at least one site");
        }
        let con = client
            .connect_async()
            .await
            .with_context(|| format!("cannot connect to Redis at {}", redact(client.url())))?;
        let (stop, shutdown) = watch::channel(false);
        Ok(AppState {
            con,
            timeout: client.response_timeout(),
            request_timeout: options.request_timeout,
            sites: Arc::new(sites),
            tokens: Arc::new(tokens),
            metrics: Arc::new(Metrics::new()),
            openapi: Bytes::from(serde_json::to_vec(&openapi_document())?),
            shutdown,
            stop: Arc::new(stop),
            fold_wake: Arc::new(tokio::sync::Notify::new()),
        })
    }

    /// Run `call` through the connection (its retry policy), counted and
    /// timed in the Redis metrics by its script.
    pub(crate) async fn run<T: redvote::reply::Reply>(
        &self,
        call: &redvote::Call<T>,
    ) -> redvote::Result<T> {
        let start = std::time::Instant::now();
        let result = self.con.run(call).await;
        let seconds = start.elapsed().as_secs_f64();
        self.metrics.call(call.script().name(), seconds, &result);
        result.map_err(|e| in_api_words(e, call.script().name()))
    }

    /// Read `page` through the connection, counted as its script call.
    pub(crate) async fn page(&self, page: &redvote::PageCall) -> redvote::Result<redvote::Page> {
        let start = std::time::Instant::now();
        let result = self.con.page(page).await;
        let seconds = start.elapsed().as_secs_f64();
        self.metrics
            .call(page.ids().script().name(), seconds, &result);
        result.map_err(|e| in_api_words(e, page.ids().script().name()))
    }

    /// Commands of the service's own (`send`, as
    /// [`redvote::AsyncConnection::with_redis`]: the retry policy, a broken
    /// connection replaced; `idempotent`: whether `send` may be resent
    /// after an unknown outcome), counted and timed in the Redis metrics
    /// under `label`, a name from the fixed set the metrics document
    /// (`campaign_registry`, `deny_lists`, `board_options`, `key_lookup`,
    /// `keys`, `audit_read`, `audit_write`, `display_names`,
    /// `campaign_offset`, `fold_state`), never from the request.
    pub(crate) async fn with_redis<T, F>(
        &self,
        label: &'static str,
        idempotent: bool,
        send: impl Fn(redvote::AsyncRedis) -> F,
    ) -> redvote::Result<T>
    where
        F: std::future::Future<Output = redvote::Result<T>>,
    {
        let start = std::time::Instant::now();
        let result = self.con.with_redis(idempotent, send).await;
        let seconds = start.elapsed().as_secs_f64();
        self.metrics.call(label, seconds, &result);
        result
    }

    /// Tell long-lived responses (SSE streams) to end: shutdown started.
    pub fn begin_shutdown(&self) {
        let _ = self.stop.send(true);
    }

    /// The served site names, for a message.
    fn site_names(&self) -> String {
        self.sites.keys().cloned().collect::<Vec<_>>().join(", ")
    }
}

/// A script's refusal with its detail as the HTTP API answers it (no
/// argument list: [`problem::api_words`]); other errors as they are.
fn in_api_words(err: redvote::Error, script: &str) -> redvote::Error {
    match err {
        redvote::Error::Script { code, detail } => redvote::Error::Script {
            code,
            detail: problem::api_words(code, &detail, script),
        },
        other => other,
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
        .merge(export::routes())
        .merge(stats::routes())
        .merge(admin::routes())
        .merge(keys::routes())
        .merge(void::routes())
        .merge(fold::routes())
}

/// The OpenAPI document the service serves (`/openapi.json`).
pub fn openapi_document() -> utoipa::openapi::OpenApi {
    openapi::finish(api().into_openapi())
}

/// The whole service as a router: every route, its fallback and layers
/// (request ids, tracing, compression, metrics, problem bodies, the
/// request timeout and body limit of `options`). Tests drive it in-process
/// (`tower::ServiceExt::oneshot`); [`run`] serves it.
pub fn app(state: AppState, options: &Options) -> Router {
    let (router, _) = api().split_for_parts();
    layers(router, &state, options).with_state(state)
}

/// A configured token: `None` when absent; an empty one is refused.
fn token(secret: Option<&str>, what: &str) -> Result<Option<Token>> {
    match secret {
        None => Ok(None),
        Some(s) if s.trim().is_empty() => bail!("{what} must not be empty"),
        Some(s) => Ok(Some(Token::new(s))),
    }
}

/// Install a `tracing` subscriber writing to stderr in `format` (level:
/// `RUST_LOG`, default info). Call once per process.
pub fn logs(format: LogFormat) {
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

/// Serve `sites` through `client` until `shutdown` resolves, then drain:
/// see the crate documentation. Prints `listening on ADDR` on stdout once
/// bound.
pub async fn run(
    client: &redvote::Client,
    sites: BTreeMap<String, Site>,
    options: &Options,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let state = AppState::new(client, sites, options).await?;
    let listener = tokio::net::TcpListener::bind(options.listen)
        .await
        .with_context(|| format!("cannot listen on {}", options.listen))?;
    let addr = listener.local_addr()?;
    println!("listening on {addr}");
    std::io::stdout().flush()?;
    serve(listener, state, options, shutdown).await
}

/// [`run`] on a listener already bound (e.g. to port 0, its address read
/// by the caller, as [`Background`] does); prints nothing.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    options: &Options,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let addr = listener.local_addr()?;
    let names = state.site_names();
    let (admin, api_token) = (state.tokens.admin.is_some(), state.tokens.api.is_some());
    info!(%addr, sites = %names, admin_routes = admin, api_token, "listening");
    let mut started = state.shutdown.clone();
    let stopper = state.clone();
    let folding = state.clone();
    let folder = tokio::spawn(fold::in_background(state.clone()));
    let app = app(state, options);
    let server = axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown.await;
            info!("shutting down: draining open requests");
            stopper.begin_shutdown();
        })
        .into_future();
    let drain = options.drain_timeout;
    let limit = async move {
        let _ = started.wait_for(|s| *s).await;
        tokio::time::sleep(drain).await;
    };
    let outcome = tokio::select! {
        done = server => done.context("the server failed").map(|()| info!("stopped")),
        () = limit => {
            warn!(seconds = drain.as_secs_f64(), "drain timeout: closing the requests still open");
            Err(anyhow::anyhow!("requests were still open after the drain timeout ({} s)", drain.as_secs_f64()))
        }
    };
    // the folder ends as shutdown starts (also when the server failed
    // before it did): a fold in flight is atomic, dropped or done
    folding.begin_shutdown();
    let _ = folder.await;
    outcome
}

/// Resolves on SIGTERM or Ctrl-C: the `shutdown` of [`run`] in a process.
pub async fn signal() {
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
fn layers(router: Router<AppState>, state: &AppState, options: &Options) -> Router<AppState> {
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
    let timeout = options.request_timeout;
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
            .layer(RequestBodyLimitLayer::new(options.body_limit))
            .layer(DefaultBodyLimit::max(options.body_limit)),
    )
}

/// A path no route takes.
async fn not_found() -> Problem {
    problem::for_status(StatusCode::NOT_FOUND)
}

/// Middleware: an error response that is not a problem already (axum's
/// 405, tower-http's 413 and timeout) becomes one, with its status; a 503
/// tells a write's outcome, never a read's ([`problem::for_method`]).
async fn problems(req: Request, next: Next) -> Response {
    let method = req.method().clone();
    let response = problem::for_method(&method, next.run(req).await);
    let status = response.status();
    if (status.is_client_error() || status.is_server_error()) && !problem::is_problem(&response) {
        let mut replaced = problem::for_status(status).into_response();
        // keep what axum said about the allowed methods
        if let Some(allow) = response.headers().get(header::ALLOW) {
            replaced.headers_mut().insert(header::ALLOW, allow.clone());
        }
        return replaced;
    }
    response
}
