//! Buffered campaigns (settings `"mode": "buffered"`,
//! docs/hot-campaigns.md) in the service: a vote is accepted into the
//! campaign's buffer and reaches the boards when a fold writes it. Here:
//!
//! - [`in_background`]: the background folder [`serve`](crate::serve)
//!   runs beside the routes. It finds the campaigns in the campaign
//!   registry (again every [`REFRESH`], and at once after a settings
//!   PUT), and every `fold_ms` of each buffered one reads its buffer's
//!   state and folds what it holds (calls of at most 1000 votes, at most
//!   [`TICK_VOTES`] a tick, each tick bounded by the request timeout). It
//!   ends when shutdown starts: a fold is atomic, so one dropped in flight
//!   either wrote or did not. Several instances may fold the same
//!   campaign: a fold never writes a vote twice.
//! - [`run_folding`]: configure and the voids fold a buffered campaign's
//!   buffer in their own call, and refuse `REDVOTE_UNFOLDED` when it holds
//!   more than one call folds: the routes then fold and send once more.
//! - `POST /v1/campaigns/{campaign}/fold` (fold now) and `GET` of the same
//!   path (the mode, how many votes wait and how old the oldest is: the
//!   back office's fold lag).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use axum::extract::State;
use redvote::campaign::Folded;
use redvote::reply::Reply;
use redvote::{Call, Campaign, Code, Mode};
use serde::{Deserialize, Serialize};
use tracing::{info, warn};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::Admin;
use super::campaign::campaign;
use super::extract::{Json, NoQuery, OptionalJson, Path};
use super::problem::Problem;
use super::AppState;

/// The most votes one fold call takes (`campaign_fold`'s cap).
const FOLD_CALL: u32 = redvote::caps::FOLD_VOTES;

/// The most votes the background folder folds of one campaign in one
/// tick: a backlog drains over several ticks, others' ticks between them.
pub(crate) const TICK_VOTES: u64 = 20_000;

/// The most votes folded before a call refused `REDVOTE_UNFOLDED` is sent
/// again (votes keep arriving meanwhile: the fold must end somewhere).
const BEFORE_RESEND: u64 = 100_000;

/// How often the folder reads the campaign registry for campaigns to fold.
pub(crate) const REFRESH: Duration = Duration::from_secs(3);

/// How long a campaign whose state or fold failed waits before the
/// folder tries it again (at least).
const AFTER_FAILURE: Duration = Duration::from_secs(1);

/// The fold routes.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(fold_state, fold_now))
}

/// A campaign's mode and buffer: the votes waiting to be folded, and
/// how old the oldest is.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FoldState {
    /// How the campaign's votes reach its boards.
    pub mode: Mode,
    /// How old (ms) the oldest buffered vote grows before a vote folds
    /// the buffer (buffered campaigns; the default 200 when not set).
    pub fold_ms: u64,
    /// Votes accepted and not yet on the boards.
    pub buffered: u64,
    /// The Unix ms the oldest buffered vote arrived (null: none buffered).
    pub oldest: Option<u64>,
    /// How old the oldest buffered vote is, ms (0: all votes are on the
    /// boards): the fold lag.
    pub lag_ms: u64,
    /// The server's Unix ms when this was read.
    pub now: u64,
}

/// The buffer's state of campaign `c` (None: no such campaign) in one
/// atomic read of its slot: its mode, fold_ms and buffered pairs (root
/// hash), the option whose buffer holds the oldest vote (`<ns>bufs`, its
/// score the arrival ms x 64, lib/fold), and the server's time. O(1).
pub(crate) async fn read_state(
    state: &AppState,
    c: &Campaign,
) -> redvote::Result<Option<FoldState>> {
    let root = c.root_key().to_string();
    let buf = format!("{}bufs", c.namespace());
    type Stored = (
        bool,
        (Option<String>, Option<String>, Option<u64>),
        Vec<(String, f64)>,
        (u64, u64),
    );
    let (exists, (mode, fold_ms, buffered), oldest, (secs, micros)): Stored = state
        .with_redis("fold_state", true, |mut con| {
            let (root, buf) = (root.clone(), buf.clone());
            async move {
                Ok(redis::pipe()
                    .atomic()
                    .exists(&root)
                    .cmd("HMGET")
                    .arg(&root)
                    .arg("mode")
                    .arg("fold_ms")
                    .arg("buffered")
                    .cmd("ZRANGE")
                    .arg(&buf)
                    .arg(0)
                    .arg(0)
                    .arg("WITHSCORES")
                    .cmd("TIME")
                    .query_async(&mut con)
                    .await?)
            }
        })
        .await?;
    if !exists {
        return Ok(None);
    }
    let now = secs * 1000 + micros / 1000;
    let buffered = buffered.unwrap_or(0);
    let oldest = oldest.first().map(|(_, score)| (*score / 64.0) as u64);
    Ok(Some(FoldState {
        mode: if mode.as_deref() == Some("buffered") {
            Mode::Buffered
        } else {
            Mode::Immediate
        },
        fold_ms: fold_ms
            .and_then(|f| f.parse().ok())
            .unwrap_or(redvote::campaign::FOLD_MS_DEFAULT),
        buffered,
        lag_ms: oldest.map_or(0, |at| now.saturating_sub(at)),
        oldest: oldest.filter(|_| buffered > 0),
        now,
    }))
}

/// Fold campaign `c`'s buffer in calls of at most 1000 votes until it is
/// empty, `max` votes are folded or the request timeout has passed: what
/// the calls did together (`left` and `until` as the last one answered). Each call is counted in the
/// fold metrics.
pub(crate) async fn drain(state: &AppState, c: &Campaign, max: u64) -> redvote::Result<Folded> {
    let mut total = Folded {
        folded: 0,
        left: 0,
        until: 0,
        overflow: 0,
    };
    // every call is bounded by the client's timeouts; the calls together by
    // the request timeout (votes may arrive as fast as folds take them)
    let deadline = Instant::now() + state.request_timeout;
    loop {
        let call = u32::try_from(max - total.folded).map_or(FOLD_CALL, |m| m.min(FOLD_CALL));
        let step = state.run(&c.fold(call)).await?;
        state.metrics.fold(step.folded);
        total.folded += step.folded;
        total.overflow += step.overflow;
        total.left = step.left;
        total.until = step.until;
        // folded 0: an immediate campaign (a fold always takes one vote)
        if step.left == 0 || step.folded == 0 || total.folded >= max || Instant::now() >= deadline {
            return Ok(total);
        }
    }
}

/// Run `call` (a configure, a void) on campaign `c`; when it refuses
/// `REDVOTE_UNFOLDED` (the buffer holds more than its own call folds),
/// fold the buffer and send it once more: nothing was written by the
/// refused call, so sending it again is the same request.
pub(crate) async fn run_folding<T: Reply>(
    state: &AppState,
    c: &Campaign,
    call: &Call<T>,
) -> redvote::Result<T> {
    match state.run(call).await {
        Err(err) if err.code() == Some(Code::Unfolded) => {
            drain(state, c, BEFORE_RESEND).await?;
            state.run(call).await
        }
        done => done,
    }
}

/// What to fold now.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FoldRequest {
    /// The most votes to fold (1..1000000; default: all that are
    /// buffered), oldest first, in calls of at most 1000.
    #[serde(default)]
    #[schema(minimum = 1, maximum = 1_000_000)]
    pub max: Option<u64>,
}

/// Admin: a campaign's mode and buffer: how many votes wait to be folded
/// and how old the oldest is (the fold lag; 0: all votes are on the
/// boards). One atomic read, O(1). On an immediate campaign nothing is
/// ever buffered.
#[utoipa::path(
    get,
    path = "/v1/campaigns/{campaign}/fold",
    operation_id = "campaign_fold_state",
    tag = "campaign",
    params(("campaign" = String, Path, description = "Campaign name (the board name rule)")),
    responses(
        (status = 200, description = "The buffer's state", body = FoldState),
        (status = 404, description = "No such campaign"),
        (status = 422, description = "A malformed campaign name"),
    ),
    security(("admin_token" = []))
)]
async fn fold_state(
    _: Admin,
    _: NoQuery,
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<FoldState>, Problem> {
    let c = campaign(&name)?;
    match read_state(&state, &c).await? {
        Some(s) => Ok(Json(s)),
        None => Err(super::admin::unknown_campaign(&name)),
    }
}

/// Admin: fold a buffered campaign's buffered votes into its boards now,
/// oldest first, in atomic calls of at most 1000 votes (`campaign_fold`),
/// until none is left or `max` are folded. The service folds every
/// buffered campaign in the background anyway (every `fold_ms`); this is
/// for a read that must see every vote accepted so far. On an immediate
/// campaign it folds nothing. The body is optional.
#[utoipa::path(
    post,
    path = "/v1/campaigns/{campaign}/fold",
    operation_id = "campaign_fold",
    tag = "campaign",
    params(("campaign" = String, Path, description = "Campaign name (the board name rule)")),
    request_body(content = Option<FoldRequest>, description = "Optional: the most votes to fold"),
    responses(
        (status = 200, description = "Votes folded, votes left, the Unix ms before which every accepted vote is on the boards (until), entries left out beyond the exact range (overflow)", body = Folded),
        (status = 404, description = "No such campaign"),
        (status = 422, description = "A malformed campaign name, or max out of range"),
    ),
    security(("admin_token" = []))
)]
async fn fold_now(
    _: Admin,
    _: NoQuery,
    State(state): State<AppState>,
    Path(name): Path<String>,
    OptionalJson(body): OptionalJson<FoldRequest>,
) -> Result<Json<Folded>, Problem> {
    let c = campaign(&name)?;
    let max = body.max.unwrap_or(1_000_000);
    if !(1..=1_000_000).contains(&max) {
        return Err(Problem::invalid(Code::InvalidNumber, "max: 1..1000000"));
    }
    Ok(Json(drain(&state, &c, max).await?))
}

/// The folder's plan for one buffered campaign.
struct Plan {
    /// Its fold_ms, the time between two ticks.
    every: Duration,
    /// Its next tick.
    next: Instant,
    /// Whether its last tick failed (a failure is logged once, then its
    /// end).
    failing: bool,
}

/// The background folder (see the module's documentation): runs until
/// shutdown starts ([`AppState::begin_shutdown`](crate::AppState::begin_shutdown)).
/// [`serve`](crate::serve) runs it; an embedder that mounts
/// [`app`](crate::app) in a server of its own spawns it beside.
pub async fn in_background(state: AppState) {
    let mut stop = state.shutdown.clone();
    tokio::select! {
        _ = stop.wait_for(|s| *s) => {}
        () = fold_forever(&state) => {}
    }
}

/// The folder's loop: refresh the plans, tick the campaigns that are
/// due, sleep until the next is (or a settings PUT wakes it).
async fn fold_forever(state: &AppState) {
    let mut plans: BTreeMap<String, Plan> = BTreeMap::new();
    let mut refresh_at = Instant::now();
    loop {
        if Instant::now() >= refresh_at {
            refresh(state, &mut plans).await;
            refresh_at = Instant::now() + REFRESH;
        }
        let mut gone = Vec::new();
        for (name, plan) in plans.iter_mut().filter(|(_, p)| p.next <= Instant::now()) {
            if !tick(state, name, plan).await {
                gone.push(name.clone());
            }
        }
        for name in gone {
            plans.remove(&name);
        }
        let next = plans
            .values()
            .map(|p| p.next)
            .min()
            .map_or(refresh_at, |n| n.min(refresh_at));
        tokio::select! {
            () = tokio::time::sleep_until(next.into()) => {}
            () = state.fold_wake.notified() => refresh_at = Instant::now(),
        }
    }
}

/// Find the buffered campaigns among the registry's, and plan a tick of
/// each new one now; campaigns no longer buffered leave the plan. A
/// failed read keeps the plans as they are.
async fn refresh(state: &AppState, plans: &mut BTreeMap<String, Plan>) {
    let names = match buffered_campaigns(state).await {
        Ok(names) => names,
        Err(err) => {
            warn!(error = %err, "fold: cannot read the campaign registry");
            return;
        }
    };
    plans.retain(|name, _| names.contains(name));
    for name in names {
        plans.entry(name).or_insert_with(|| Plan {
            every: Duration::from_millis(redvote::campaign::FOLD_MS_DEFAULT),
            next: Instant::now(),
            failing: false,
        });
    }
}

/// The registry's campaigns whose mode is buffered: pages of 1000 names,
/// each page's modes in one pipeline (`HGET <root> mode`).
async fn buffered_campaigns(state: &AppState) -> redvote::Result<Vec<String>> {
    let mut cursor = "0".to_string();
    let mut buffered = Vec::new();
    loop {
        let page = state
            .with_redis("campaign_registry", true, |mut con| {
                let cursor = cursor.clone();
                async move { crate::campaigns::list_all_campaigns(&mut con, &cursor, 1000).await }
            })
            .await?;
        if page.names.is_empty() {
            return Ok(buffered);
        }
        let roots: Vec<String> = page
            .names
            .iter()
            .map(|n| Campaign::new(n).root_key().to_string())
            .collect();
        let modes: Vec<Option<String>> = state
            .with_redis("fold_state", true, |mut con| {
                let roots = roots.clone();
                async move {
                    let mut pipe = redis::pipe();
                    for root in &roots {
                        pipe.hget(root, "mode");
                    }
                    Ok(pipe.query_async(&mut con).await?)
                }
            })
            .await?;
        buffered.extend(
            page.names
                .into_iter()
                .zip(modes)
                .filter(|(_, m)| m.as_deref() == Some("buffered"))
                .map(|(n, _)| n),
        );
        if page.next == "0" {
            return Ok(buffered);
        }
        cursor = page.next;
    }
}

/// One tick of campaign `name`: read its state (its fold_ms again), fold
/// what is buffered (at most [`TICK_VOTES`], within the request timeout)
/// and plan the next tick. False when the campaign is no longer buffered
/// (or gone): it leaves the plans.
async fn tick(state: &AppState, name: &str, plan: &mut Plan) -> bool {
    let c = Campaign::new(name);
    let work = async {
        let Some(s) = read_state(state, &c).await? else {
            return Ok(None);
        };
        if s.mode != Mode::Buffered {
            return Ok(None);
        }
        if s.buffered > 0 {
            state.metrics.fold_lag(s.lag_ms as f64 / 1000.0);
            drain(state, &c, TICK_VOTES).await?;
        }
        Ok::<_, redvote::Error>(Some(s.fold_ms))
    };
    let outcome = tokio::time::timeout(state.request_timeout, work).await;
    let now = Instant::now();
    match outcome {
        Ok(Ok(None)) => return false,
        Ok(Ok(Some(fold_ms))) => {
            plan.every = Duration::from_millis(fold_ms);
            plan.next = now + plan.every;
            if plan.failing {
                info!(campaign = name, "fold: folding again");
                plan.failing = false;
            }
        }
        Ok(Err(err)) => failed(name, plan, now, &err),
        Err(_) => failed(name, plan, now, &"the request timeout passed"),
    }
    true
}

/// A tick that failed: logged once (until one succeeds), retried after
/// [`AFTER_FAILURE`] at the soonest.
fn failed(name: &str, plan: &mut Plan, now: Instant, err: &dyn std::fmt::Display) {
    if !plan.failing {
        warn!(campaign = name, error = %err, "fold: the background fold failed; retrying");
        plan.failing = true;
    }
    plan.next = now + plan.every.max(AFTER_FAILURE);
}
