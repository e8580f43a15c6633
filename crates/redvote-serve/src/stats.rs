//! `GET /v1/campaigns/{campaign}/boards/{board}/stats`: a board's vote
//! statistics per hour or per day (`Campaign::stats`, one read-only call
//! of `campaign_stats.lua`, O(buckets); docs/statistics.md), as JSON or
//! as CSV (`Stats::to_csv`) for a download.
//!
//! `from` and `to` are Unix seconds or period names (`day:2026-03-17`,
//! `hour:2026-03-17T10`, `week:2026-W12`, `month:2026-03`) read in the
//! campaign's offset: `from` a period's first second, `to` its end, so
//! `from=day:2026-03-01&to=day:2026-03-31` is all of March. A name costs
//! one `HGET` of the campaign's offset first.

use std::time::{SystemTime, UNIX_EPOCH};

use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use redvote::campaign::{Granularity, StatsBucket};
use redvote::{Campaign, Code};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::Api;
use super::campaign::campaign;
use super::extract::{Json, Path, Query};
use super::problem::Problem;
use super::site::clip;
use super::AppState;

/// The statistics route.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(stats))
}

/// What series to read.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct StatsQuery {
    /// hour (default) or day buckets, in the campaign's offset.
    #[serde(default = "hour")]
    #[param(default = "hour")]
    pub by: String,
    /// The first bucket is the one holding this moment: Unix seconds, or
    /// a period name (its first second) in the campaign's offset. Default:
    /// 23 hours (by=hour) or 29 days (by=day) before `to`: 24 hour or 30
    /// day buckets, the one holding `to` included.
    pub from: Option<String>,
    /// The buckets that start before this moment (exclusive): Unix
    /// seconds, or a period name (its end). Default: now. At most 336
    /// hours or 366 days from `from`.
    pub to: Option<String>,
    /// json (default) or csv (`text/csv`, a download).
    #[serde(default = "json")]
    #[param(default = "json")]
    pub format: String,
}

fn hour() -> String {
    "hour".to_string()
}

fn json() -> String {
    "json".to_string()
}

/// A board's statistics series.
#[derive(Serialize, ToSchema)]
pub struct BoardStats {
    /// Board.
    pub board: String,
    /// hour or day.
    pub by: Granularity,
    /// The range read: Unix seconds, `to` exclusive.
    pub from: u64,
    /// End of the range (exclusive).
    pub to: u64,
    /// One bucket an hour or a day, oldest first, empty ones included.
    pub buckets: Vec<StatsBucket>,
}

/// A moment of `from` / `to`: Unix seconds, or a period name (its start,
/// or with `end` its end) at the campaign's offset, read once.
async fn moment(
    state: &AppState,
    c: &Campaign,
    offset: &mut Option<i64>,
    what: &str,
    s: &str,
    end: bool,
) -> Result<u64, Problem> {
    if !s.is_empty() && s.len() <= 12 && s.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse().map_err(|_| bad(what, s));
    }
    if offset.is_none() {
        let root = c.root_key().to_string();
        let stored: Option<String> = state
            .with_redis("campaign_offset", true, |mut con| {
                let root = root.clone();
                async move {
                    Ok(redis::cmd("HGET")
                        .arg(&root)
                        .arg("offset")
                        .query_async(&mut con)
                        .await?)
                }
            })
            .await?;
        *offset = Some(stored.and_then(|o| o.parse().ok()).unwrap_or(0));
    }
    let (_, start, stop) = redvote_check::calendar::parse_period(s, offset.unwrap_or(0))
        .ok_or_else(|| bad(what, s))?;
    let t = if end { stop } else { start };
    u64::try_from(t).map_err(|_| bad(what, s))
}

fn bad(what: &str, s: &str) -> Problem {
    Problem::invalid(
        Code::InvalidNumber,
        format!(
            "{what} must be Unix seconds or a period name (day:2026-03-17, hour:2026-03-17T10, week:2026-W12, month:2026-03), got {:?}",
            clip(s)
        ),
    )
}

/// The time now, Unix seconds.
fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A board's votes per hour or per day: votes (pairs), their weighted
/// amount, those voided since, the campaign's participants of the bucket,
/// votes by channel and by device; as JSON, or as CSV to download.
#[utoipa::path(
    get,
    path = "/v1/campaigns/{campaign}/boards/{board}/stats",
    operation_id = "campaign_stats",
    tag = "campaign",
    params(
        ("campaign" = String, Path, description = "Campaign name (the board name rule)"),
        ("board" = String, Path, description = "Board"),
        StatsQuery
    ),
    responses(
        (status = 200, description = "The series: JSON, or CSV (header period,start,votes,amount,voided,voided_amount,participants, then ch:NAME and dev:NAME columns)",
            content(
                (BoardStats = "application/json"),
                (String = "text/csv"),
            )),
        (status = 404, description = "No such campaign or board"),
        (status = 422, description = "A malformed name or moment, a range that is empty or longer than 336 hours or 366 days, or a by or format not listed"),
    ),
    security((), ("api_token" = []))
)]
async fn stats(
    _: Api,
    State(state): State<AppState>,
    Path((name, board)): Path<(String, String)>,
    Query(q): Query<StatsQuery>,
) -> Result<Response, Problem> {
    let c = campaign(&name)?;
    let by = match q.by.as_str() {
        "hour" => Granularity::Hour,
        "day" => Granularity::Day,
        other => {
            return Err(Problem::invalid(
                Code::Usage,
                format!("by must be hour or day, got {:?}", clip(other)),
            ))
        }
    };
    let csv = match q.format.as_str() {
        "json" => false,
        "csv" => true,
        other => {
            return Err(Problem::invalid(
                Code::Usage,
                format!("format must be json or csv, got {:?}", clip(other)),
            ))
        }
    };
    let mut offset = None;
    let to = match &q.to {
        Some(t) => moment(&state, &c, &mut offset, "to", t, true).await?,
        None => now(),
    };
    let from = match &q.from {
        Some(f) => moment(&state, &c, &mut offset, "from", f, false).await?,
        None => to.saturating_sub(match by {
            // 24 hour buckets (30 day buckets), the one of `to` included
            Granularity::Hour => 23 * 3600,
            Granularity::Day => 29 * 86400,
        }),
    };
    let series = state.run(&c.stats(&board, by, from, to)).await?;
    if csv {
        let mut response = (StatusCode::OK, series.to_csv()).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/csv; charset=utf-8"),
        );
        let file = format!(
            "{}-{}-stats-{}.csv",
            super::export::safe(&name),
            super::export::safe(&board),
            by.as_str()
        );
        if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{file}\"")) {
            headers.insert(header::CONTENT_DISPOSITION, v);
        }
        return Ok(response);
    }
    Ok(Json(BoardStats {
        board,
        by,
        from,
        to,
        buckets: series.buckets,
    })
    .into_response())
}
