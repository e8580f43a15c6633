//! `/metrics`: Prometheus counters and histograms (prometheus-client,
//! rendered in the OpenMetrics text format Prometheus scrapes):
//!
//! - `redvote_http_requests_total{route, method, status}`: requests answered;
//! - `redvote_http_request_duration_seconds{route, method}`: their latency;
//! - `redvote_votes_total{system, result, code}`: votes by outcome
//!   (`accepted`, `replayed`, `refused` with the refusal's code).
//!
//! `route` is the route's template (`/v1/campaigns/{campaign}/votes`),
//! never the raw path, so the label set stays bounded; `unmatched` for a
//! path no route takes. prometheus-client needs no upkeep task.

use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

use super::AppState;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: String,
    method: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: String,
    method: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct VoteLabels {
    system: &'static str,
    result: &'static str,
    code: String,
}

type Latencies = Family<RouteLabels, Histogram, fn() -> Histogram>;

/// The service's metrics and their registry.
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Latencies,
    votes: Family<VoteLabels, Counter>,
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
        let latency: Latencies = Family::new_with_constructor(latency_histogram);
        let votes = Family::<VoteLabels, Counter>::default();
        registry.register(
            "http_requests",
            "HTTP requests answered, by route template, method and status",
            requests.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "HTTP request latency, by route template and method",
            latency.clone(),
        );
        registry.register(
            "votes",
            "Votes by system, result (accepted, replayed, refused) and refusal code",
            votes.clone(),
        );
        Metrics {
            registry,
            requests,
            latency,
            votes,
        }
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

    /// The text exposition.
    fn render(&self) -> String {
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)
            .expect("writing to a String cannot fail");
        out
    }
}

/// Middleware: count and time every request by its route template.
pub async fn track(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |m| m.as_str())
        .to_string();
    let method = req.method().to_string();
    let start = Instant::now();
    let response = next.run(req).await;
    let m = &state.metrics;
    m.latency
        .get_or_create(&RouteLabels {
            route: route.clone(),
            method: method.clone(),
        })
        .observe(start.elapsed().as_secs_f64());
    m.requests
        .get_or_create(&RequestLabels {
            route,
            method,
            status: response.status().as_u16(),
        })
        .inc();
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
