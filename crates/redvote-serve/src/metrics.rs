//! `/metrics`: Prometheus counters, histograms and gauges (prometheus-client,
//! rendered in the OpenMetrics text format Prometheus scrapes):
//!
//! - `redvote_http_requests_total{route, method, status}`: requests answered;
//! - `redvote_http_request_duration_seconds{route, method, status}`: their
//!   latency;
//! - `redvote_votes_total{system, result, code}`: votes by outcome
//!   (`accepted`, `replayed`, `refused` with the refusal's code);
//! - `redvote_redis_calls_total{script, outcome}` and
//!   `redvote_redis_call_duration_seconds{script}`: the script calls the
//!   `/v1` routes make (retries included), and the admin page's reads of
//!   plain commands under a name of their own (`campaign_registry`,
//!   `deny_lists`, `board_options`, `key_lookup`, `keys`, `audit_read`,
//!   `audit_write`, `display_names`, `campaign_offset`, and
//!   `fold_state`, the buffered campaigns' reads: see
//!   `AppState::with_redis`), `outcome` `ok`, `refused` (a
//!   script's refusal), `unavailable` (Redis unreachable, busy, out of
//!   memory, timed out) or `error`;
//! - `redvote_redis_errors_total{code}`: their failures by code (a
//!   script's `REDVOTE_*` code, a Redis error code of [`REDIS_CODES`],
//!   `IO`, `TIMEOUT`, `NOT_REPLICATED`, `REPLY`, `CONFIG` or `OTHER`);
//! - `redvote_folds_total`, `redvote_votes_folded_total`: the fold calls
//!   of buffered campaigns the service made (its background folder, the
//!   fold route, the folds before a resent configure or void) and the
//!   votes they wrote to the boards;
//! - `redvote_fold_lag_seconds`: the age of a buffered campaign's oldest
//!   buffered vote each time the background folder reached it with votes
//!   buffered (histogram);
//! - `redvote_process_resident_memory_bytes`, `redvote_process_open_fds`
//!   (Linux: read from /proc/self at each scrape; absent elsewhere).
//!
//! Every label takes its value from a bounded set, never from the request
//! as sent: `route` is the route's template
//! (`/v1/campaigns/{campaign}/votes`, `unmatched` for a path no route
//! takes), `method` one of [`METHODS`] or `other`, `status` the class
//! (`2xx` .. `5xx`), `script` a built-in script's name or one of the admin
//! reads', `code` a known
//! code. prometheus-client needs no upkeep task.

use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

use super::AppState;

/// The methods counted by name; any other is `other`.
pub const METHODS: [&str; 7] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/// The Redis error codes counted by name; any other is `OTHER`.
pub const REDIS_CODES: [&str; 12] = [
    "OOM",
    "BUSY",
    "LOADING",
    "TRYAGAIN",
    "MASTERDOWN",
    "CLUSTERDOWN",
    "READONLY",
    "NOREPLICAS",
    "NOSCRIPT",
    "NOPERM",
    "MOVED",
    "ASK",
];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: String,
    method: &'static str,
    status: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    script: &'static str,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ScriptLabels {
    script: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ErrorLabels {
    code: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct VoteLabels {
    system: &'static str,
    result: &'static str,
    code: String,
}

type Latencies<L> = Family<L, Histogram, fn() -> Histogram>;

/// The service's metrics and their registry.
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Latencies<RequestLabels>,
    votes: Family<VoteLabels, Counter>,
    calls: Family<CallLabels, Counter>,
    call_latency: Latencies<ScriptLabels>,
    errors: Family<ErrorLabels, Counter>,
    folds: Counter,
    votes_folded: Counter,
    fold_lag: Histogram,
    /// Linux: resident memory and open fds, read at each scrape.
    process: Option<(Gauge, Gauge)>,
}

/// Which system a vote went to.
#[derive(Clone, Copy, Debug)]
pub enum System {
    /// The article site.
    Site,
    /// A campaign.
    Campaign,
}

fn latency_histogram() -> Histogram {
    // 0.25 ms .. about 8 s
    Histogram::new(exponential_buckets(0.00025, 2.0, 16))
}

impl Metrics {
    /// Empty metrics, registered.
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("redvote");
        let requests = Family::<RequestLabels, Counter>::default();
        let latency: Latencies<_> = Family::new_with_constructor(latency_histogram);
        let votes = Family::<VoteLabels, Counter>::default();
        let calls = Family::<CallLabels, Counter>::default();
        let call_latency: Latencies<_> = Family::new_with_constructor(latency_histogram);
        let errors = Family::<ErrorLabels, Counter>::default();
        registry.register(
            "http_requests",
            "HTTP requests answered, by route template, method and status class",
            requests.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "HTTP request latency, by route template, method and status class",
            latency.clone(),
        );
        registry.register(
            "votes",
            "Votes by system, result (accepted, replayed, refused) and refusal code",
            votes.clone(),
        );
        registry.register(
            "redis_calls",
            "Script calls to Redis, by script and outcome (ok, refused, unavailable, error)",
            calls.clone(),
        );
        registry.register(
            "redis_call_duration_seconds",
            "Script call latency (retries included), by script",
            call_latency.clone(),
        );
        registry.register(
            "redis_errors",
            "Failed script calls, by code (REDVOTE_*, a Redis error code, IO, TIMEOUT, OTHER, ...)",
            errors.clone(),
        );
        let (folds, votes_folded) = (Counter::default(), Counter::default());
        // 1 ms .. about 65 s: a fold_ms is 10 ms .. 60 s
        let fold_lag = Histogram::new(exponential_buckets(0.001, 2.0, 17));
        registry.register(
            "folds",
            "Fold calls of buffered campaigns (background, the fold route, before a resent call)",
            folds.clone(),
        );
        registry.register(
            "votes_folded",
            "Buffered votes the fold calls wrote to the boards",
            votes_folded.clone(),
        );
        registry.register(
            "fold_lag_seconds",
            "Age of a buffered campaign's oldest buffered vote when the background folder reached it",
            fold_lag.clone(),
        );
        let process = process_stats().map(|_| {
            let (memory, fds) = (Gauge::default(), Gauge::default());
            registry.register(
                "process_resident_memory_bytes",
                "Resident memory of the process, bytes",
                memory.clone(),
            );
            registry.register(
                "process_open_fds",
                "Open file descriptors of the process",
                fds.clone(),
            );
            (memory, fds)
        });
        Metrics {
            registry,
            requests,
            latency,
            votes,
            calls,
            call_latency,
            errors,
            folds,
            votes_folded,
            fold_lag,
            process,
        }
    }

    /// Count a script call of `script` that took `seconds`, by its outcome.
    pub fn call<T>(&self, script: &'static str, seconds: f64, result: &redvote::Result<T>) {
        self.call_latency
            .get_or_create(&ScriptLabels { script })
            .observe(seconds);
        let outcome = match result {
            Ok(_) => "ok",
            Err(err) => {
                let (outcome, code) = classify(err);
                self.errors.get_or_create(&ErrorLabels { code }).inc();
                outcome
            }
        };
        self.calls
            .get_or_create(&CallLabels { script, outcome })
            .inc();
    }

    /// Count a vote's outcome: `Ok(replayed)` or the refusal's code.
    pub fn vote(&self, system: System, outcome: Result<bool, &str>) {
        let system = match system {
            System::Site => "site",
            System::Campaign => "campaign",
        };
        let (result, code) = match outcome {
            Ok(false) => ("accepted", String::new()),
            Ok(true) => ("replayed", String::new()),
            Err(code) => ("refused", code.to_string()),
        };
        self.votes
            .get_or_create(&VoteLabels {
                system,
                result,
                code,
            })
            .inc();
    }

    /// Count a fold call that wrote `votes` buffered votes to the boards.
    pub fn fold(&self, votes: u64) {
        self.folds.inc();
        self.votes_folded.inc_by(votes);
    }

    /// Note the age of a buffered campaign's oldest buffered vote.
    pub fn fold_lag(&self, seconds: f64) {
        self.fold_lag.observe(seconds);
    }

    /// The text exposition.
    fn render(&self) -> String {
        if let (Some((memory, fds)), Some((rss, open))) = (&self.process, process_stats()) {
            memory.set(rss);
            fds.set(open);
        }
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)
            .expect("writing to a String cannot fail");
        out
    }
}

/// A failed call's outcome and code label (both from bounded sets).
fn classify(err: &redvote::Error) -> (&'static str, &'static str) {
    use redvote::Error;
    match err {
        Error::Script { code, .. } => ("refused", code.as_str()),
        Error::RateLimited(_) => ("refused", redvote::Code::RateLimited.as_str()),
        Error::Redis(e) => {
            let code = match e.code() {
                Some(c) => REDIS_CODES.iter().find(|k| **k == c).copied(),
                None if e.is_timeout() => Some("TIMEOUT"),
                None if e.is_io_error() || e.is_connection_dropped() => Some("IO"),
                None => None,
            };
            let code = code.unwrap_or("OTHER");
            let unavailable = e.is_io_error()
                || e.is_timeout()
                || e.is_connection_dropped()
                || e.is_connection_refusal()
                || matches!(
                    code,
                    "OOM" | "BUSY" | "LOADING" | "TRYAGAIN" | "MASTERDOWN" | "CLUSTERDOWN"
                );
            (if unavailable { "unavailable" } else { "error" }, code)
        }
        Error::Timeout { .. } => ("unavailable", "TIMEOUT"),
        Error::NotReplicated { .. } => ("unavailable", "NOT_REPLICATED"),
        Error::MayHaveApplied { source } => ("unavailable", classify(source).1),
        Error::Reply { .. } => ("error", "REPLY"),
        Error::Config(_) => ("error", "CONFIG"),
    }
}

/// Resident memory (bytes: `VmRSS` of /proc/self/status) and open file
/// descriptors (/proc/self/fd) of this process; None off Linux.
fn process_stats() -> Option<(i64, i64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: i64 = line.split_whitespace().nth(1)?.parse().ok()?;
    let fds = std::fs::read_dir("/proc/self/fd").ok()?.count() as i64;
    Some((kib * 1024, fds))
}

/// The `method` label: a known method's name, else `other`.
fn method_label(method: &axum::http::Method) -> &'static str {
    METHODS
        .iter()
        .find(|m| **m == method.as_str())
        .copied()
        .unwrap_or("other")
}

/// The `status` label: the status class.
fn status_label(status: StatusCode) -> &'static str {
    match status.as_u16() {
        100..=199 => "1xx",
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        _ => "5xx",
    }
}

/// Middleware: count and time every request by its route template, method
/// and status class.
pub async fn track(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |m| m.as_str())
        .to_string();
    let method = method_label(req.method());
    let start = Instant::now();
    let response = next.run(req).await;
    let labels = RequestLabels {
        route,
        method,
        status: status_label(response.status()),
    };
    let m = &state.metrics;
    m.latency
        .get_or_create(&labels)
        .observe(start.elapsed().as_secs_f64());
    m.requests.get_or_create(&labels).inc();
    response
}

/// `GET /metrics`.
#[utoipa::path(
    get,
    path = "/metrics",
    tag = "operations",
    responses((
        status = 200,
        description = "Prometheus metrics (OpenMetrics text)",
        body = String,
        content_type = "application/openmetrics-text"
    ))
)]
pub async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        state.metrics.render(),
    )
}
