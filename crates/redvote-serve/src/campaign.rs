//! `/v1/campaigns/{campaign}/...`: the campaign leaderboards over HTTP:
//! settings (admin), votes (one or a batch, exactly once with an
//! `Idempotency-Key`), imports (admin), the top of several boards, the
//! standing of several members, the neighbourhood of one, participants,
//! rate-limit peeks and resets (admin), reindexing (admin).
//!
//! A campaign is named in the path; the name must be a valid name (the
//! board name rule, `redvote::is_valid_name`) so that it can only ever
//! address its own namespace `{c:<name>}:`. Lists in query strings are
//! comma-separated: names cannot hold a comma (nor a colon, which splits
//! a `board:option` pair).

use std::collections::BTreeMap;

use axum::extract::State;
use redvote::campaign::{
    Around, Ballot, Configured, Entry, Imported, LimitLeft, Reindexed, Standing,
};
use redvote::{Campaign, CampaignSettings, Code, Kind, Neighbourhood, Paging, View, Voter};
use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::RefOr;
use utoipa::{IntoParams, PartialSchema, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::audit::{self, Action, Change};
use super::auth::{Admin, Api};
use super::extract::{IdempotencyKey, Json, JsonNulls, NoQuery, Path, Query};
use super::metrics::System;
use super::problem::Problem;
use super::site::clip;
use super::AppState;

/// The campaign routes.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(configure))
        .routes(routes!(vote))
        .routes(routes!(import))
        .routes(routes!(top))
        .routes(routes!(standing))
        .routes(routes!(around))
        .routes(routes!(participants))
        .routes(routes!(limits))
        .routes(routes!(reset_limits))
        .routes(routes!(reindex))
}

/// The campaign `name`, or 422 when it is not a valid name.
pub(super) fn campaign(name: &str) -> Result<Campaign, Problem> {
    if !redvote::is_valid_name(name) {
        return Err(Problem::invalid(
            Code::InvalidName,
            format!(
                "campaign name {:?}: 1..64 bytes, none of {}, spaces or control characters",
                clip(name),
                super::problem::NAME_RULE_CHARACTERS
            ),
        ));
    }
    Ok(Campaign::new(name))
}

/// A comma-separated list of names.
fn list(s: &str) -> Vec<&str> {
    s.split(',').collect()
}

/// `board:option` pairs, comma-separated.
fn pairs(s: Option<&str>) -> Result<Vec<(&str, &str)>, Problem> {
    let Some(s) = s.filter(|s| !s.is_empty()) else {
        return Ok(Vec::new());
    };
    s.split(',')
        .map(|p| {
            p.split_once(':').ok_or_else(|| {
                Problem::bad_request(format!("pairs: {:?} is not board:option", clip(p)))
            })
        })
        .collect()
}

const CAMPAIGN: &str = "Campaign name (the board name rule)";

/// The end a cleared end is stored as (9999-12-31T23:59:59Z, the last
/// time the configure script takes): no vote is ever at or after it.
pub(crate) const NO_END: u64 = 253_402_300_799;

/// Admin: create or update the campaign, its boards, options, limits and
/// deny lists. The body is the JSON `redvote campaign NAME configure FILE`
/// takes; absent fields stay as they are (`mode`, `fold_ms`: a buffered
/// campaign, folded in the background every `fold_ms`). A buffered
/// campaign's buffer is folded first; when it holds more than one call
/// folds (REDVOTE_UNFOLDED), the route folds it and sends the settings
/// once more. Then registers the campaign in
/// the campaign list (`GET /v1/campaigns`). A board's `remove` deletes the
/// options at once and leaves their period board entries pending: the
/// route then runs the bounded cleanup steps (`campaign_remove`, 100 units
/// a call) to the end before it answers.
#[utoipa::path(
    put,
    path = "/v1/campaigns/{campaign}/settings",
    operation_id = "campaign_configure",
    tag = "campaign",
    params(("campaign" = String, Path, description = CAMPAIGN)),
    request_body = CampaignSettings,
    responses(
        (status = 200, description = "What the settings touched", body = Configured),
        (status = 404, description = "An option to remove that does not exist"),
        (status = 422, description = "A setting the script refuses (REDVOTE_INVALID_CONFIG, REDVOTE_INVALID_NAME, ...)"),
    ),
    security(("admin_token" = []))
)]
async fn configure(
    admin: Admin,
    _: NoQuery,
    State(state): State<AppState>,
    Path(name): Path<String>,
    JsonNulls(mut settings, nulls): JsonNulls<CampaignSettings>,
) -> Result<Json<Configured>, Problem> {
    let c = campaign(&name)?;
    // "start": null / "end": null clear a date: stored as the bounds that
    // refuse nothing (0, and the last second of year 9999), which the
    // settings read answers as absent again
    if nulls.iter().any(|n| n == "start") {
        settings.start = Some(0);
    }
    if nulls.iter().any(|n| n == "end") {
        settings.end = Some(NO_END);
    }
    // the audit log's before and after: the stored settings (null: none)
    let before = stored(&state, &c).await;
    // a buffered campaign's votes are folded first, in the same call, or
    // by the route when more are buffered than that call folds
    let configured = super::fold::run_folding(&state, &c, &c.configure(&settings)).await?;
    let after = stored(&state, &c).await;
    let change = Change {
        who: &admin.who,
        action: Action::Configure,
        what: serde_json::to_value(&settings).unwrap_or_default(),
        before,
        after,
    };
    audit::note(&state, &c, change).await;
    // The campaign list (GET /v1/campaigns) reads the campaign registry,
    // which the configure script cannot write (another cluster slot): one
    // more call, idempotent, after every successful configure.
    if let Some(register) = c.register() {
        state.run(&register).await.map_err(|err| {
            let mut p = Problem::from(err);
            p.detail = format!(
                "the settings were applied, but the campaign is not yet listed \
                 (registering it failed: {}); send the settings again (without \
                 option removals) to list it",
                p.detail
            );
            if p.may_have_applied.is_some() {
                p.may_have_applied = Some(true);
            }
            p
        })?;
    }
    // the background folder reads the registry again (now that it lists
    // the campaign): it may be buffered now
    state.fold_wake.notify_one();
    for (board, spec) in &settings.boards {
        if !spec.remove.is_empty() {
            finish_removal(&state, &c, board).await?;
        }
    }
    Ok(Json(configured))
}

/// Units of work (period boards x options) of each cleanup call of a
/// removal: a few milliseconds at most.
const REMOVE_BATCH: u32 = 100;

/// Runs the steps of `board`'s pending option removal (`campaign_remove`)
/// until it is complete; each call is short, and others run between them.
async fn finish_removal(state: &AppState, c: &Campaign, board: &str) -> Result<(), Problem> {
    let mut cursor = "0".to_string();
    loop {
        let step = match state
            .run(&c.remove_step(board, &cursor, REMOVE_BATCH))
            .await
        {
            // another driver moved the removal on: go on from where it stands
            Err(err) if err.code() == Some(redvote::Code::InvalidCursor) => {
                cursor = "0".to_string();
                continue;
            }
            step => step,
        };
        let step = step.map_err(|err| {
            let mut p = Problem::from(err);
            p.detail = format!(
                "the settings were applied and the options removed, but the cleanup of \
                     their period boards stopped ({}); reads skip them meanwhile: run \
                     redvote campaign {} remove-options {board} to finish it",
                p.detail,
                c.name().unwrap_or("NAME")
            );
            if p.may_have_applied.is_some() {
                p.may_have_applied = Some(true);
            }
            p
        })?;
        if step.is_done() {
            return Ok(());
        }
        cursor = step.next;
    }
}

/// The campaign's stored settings as JSON, for the audit log (null when
/// it has none or the read fails: the audit entry says so rather than
/// failing the change).
async fn stored(state: &AppState, c: &Campaign) -> serde_json::Value {
    match state.run(&c.settings()).await {
        Ok(s) => serde_json::to_value(s).unwrap_or_default(),
        Err(_) => serde_json::Value::Null,
    }
}

/// One (board, option) pair.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Pair {
    /// Board.
    pub board: String,
    /// Option.
    pub option: String,
}

/// A vote: who votes, through which channel and device, for which pairs.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CampaignVote {
    /// The voter (1..256 bytes), as the calling backend knows it.
    pub user: String,
    /// Traffic source (a partner channel may have extra allowance).
    #[serde(default)]
    pub channel: Option<String>,
    /// Device type (pc, mobile, ...), for rules counted by device.
    #[serde(default)]
    pub device: Option<String>,
    /// What the vote spends of each rate limit (1..1000, default 1).
    #[serde(default = "one")]
    #[schema(minimum = 1, default = 1)]
    pub cost: u32,
    /// The pairs voted for, all or nothing (1..50).
    pub votes: Vec<Pair>,
}

fn one() -> u32 {
    1
}

/// What a vote did.
#[derive(Serialize, ToSchema)]
pub struct VoteResult {
    /// Per pair: the option's new shown score in every period its board
    /// keeps; on a buffered campaign `shown` is empty and `folded` is the
    /// Unix ms before which every accepted vote was on the boards (this
    /// one reaches them with the next fold).
    pub ballots: Vec<Ballot>,
    /// True when the `Idempotency-Key` had already been applied: nothing
    /// was written now, and `ballots` are the first run's answer.
    pub replay: bool,
}

/// Vote for one or more (board, option) pairs, all or nothing, after the
/// campaign's rate limits and deny lists. With an `Idempotency-Key` the
/// vote counts once: sent again with the same key and arguments it writes
/// nothing and answers the first outcome with `replay: true`; the same key
/// with other arguments is 409 `REDVOTE_VOTE_ID_REUSED`.
#[utoipa::path(
    post,
    path = "/v1/campaigns/{campaign}/votes",
    operation_id = "campaign_vote",
    tag = "campaign",
    params(
        ("campaign" = String, Path, description = CAMPAIGN),
        ("Idempotency-Key" = Option<String>, Header, description = "The vote id, 1..128 bytes: the vote counts once (remembered for the campaign's vote_id_ttl, default a day)"),
    ),
    request_body = CampaignVote,
    responses(
        (status = 200, description = "Counted (or replayed)", body = VoteResult),
        (status = 403, description = "The user or channel is denied (REDVOTE_DENIED)"),
        (status = 404, description = "No such campaign, board or option"),
        (status = 409, description = "The campaign is closed, or the Idempotency-Key was used for another vote"),
        (status = 422, description = "A malformed user, name, cost or Idempotency-Key, or too many pairs"),
        (status = 429, description = "A rate limit refused the vote: retry after Retry-After seconds (absent: not within the campaign)",
            headers(("retry-after" = Option<i64>, description = "Seconds until a vote would pass"))),
    ),
    security((), ("api_token" = []))
)]
async fn vote(
    _: Api,
    _: NoQuery,
    State(state): State<AppState>,
    Path(name): Path<String>,
    IdempotencyKey(key): IdempotencyKey,
    Json(body): Json<CampaignVote>,
) -> Result<Json<VoteResult>, Problem> {
    let outcome = async {
        let c = campaign(&name)?;
        let voter = Voter {
            user: body.user.clone(),
            channel: body.channel.clone(),
            device: body.device.clone(),
            cost: body.cost,
            id: key.clone(),
        };
        let pairs: Vec<(&str, &str)> = body
            .votes
            .iter()
            .map(|p| (p.board.as_str(), p.option.as_str()))
            .collect();
        let ballots = state.run(&c.vote_by(&voter, &pairs)).await?;
        let replay = ballots.iter().any(|b| b.replay);
        Ok::<_, Problem>(VoteResult { ballots, replay })
    }
    .await;
    state.metrics.vote(
        System::Campaign,
        outcome
            .as_ref()
            .map(|v| v.replay)
            .map_err(|p| p.code.as_str()),
    );
    Ok(Json(outcome?))
}

/// Imported votes of one option: a non-negative decimal, as a JSON number
/// or a string (`"12.5"`) with at most the board's decimals.
#[derive(Deserialize)]
#[serde(untagged)]
pub enum Amount {
    /// `"12.5"`.
    Text(String),
    /// `12.5`.
    Number(serde_json::Number),
}

impl Amount {
    fn as_text(&self) -> String {
        match self {
            Amount::Text(s) => s.clone(),
            Amount::Number(n) => n.to_string(),
        }
    }
}

impl PartialSchema for Amount {
    fn schema() -> RefOr<Schema> {
        OneOfBuilder::new()
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .description(Some("A decimal: digits, optionally . and digits")),
            )
            .item(ObjectBuilder::new().schema_type(Type::Number))
            .description(Some(
                "Imported votes: a non-negative decimal with at most the board's decimals",
            ))
            .into()
    }
}

impl ToSchema for Amount {}

/// Admin: set the imported (starting) shown votes of options of a board,
/// in one atomic call (1..500 options; `{"option": votes}`, the CLI's JSON
/// import file). Idempotent: importing the same amounts again changes
/// nothing.
#[utoipa::path(
    put,
    path = "/v1/campaigns/{campaign}/boards/{board}/import",
    tag = "campaign",
    params(
        ("campaign" = String, Path, description = CAMPAIGN),
        ("board" = String, Path, description = "Board"),
    ),
    request_body(content = BTreeMap<String, Amount>, description = "Option -> imported votes"),
    responses(
        (status = 200, description = "How many options changed", body = Imported),
        (status = 404, description = "No such campaign, board or option"),
        (status = 422, description = "A malformed amount or name, or no option or more than 500"),
    ),
    security(("admin_token" = []))
)]
async fn import(
    admin: Admin,
    _: NoQuery,
    State(state): State<AppState>,
    Path((name, board)): Path<(String, String)>,
    Json(votes): Json<BTreeMap<String, Amount>>,
) -> Result<Json<Imported>, Problem> {
    let c = campaign(&name)?;
    let amounts: Vec<(&str, String)> = votes
        .iter()
        .map(|(o, a)| (o.as_str(), a.as_text()))
        .collect();
    let pairs: Vec<(&str, &str)> = amounts.iter().map(|(o, a)| (*o, a.as_str())).collect();
    // one call's work is bounded: send what it left until none is (the
    // first call always: the script judges an empty body too)
    let mut left = &pairs[..];
    let mut imported = Imported {
        changed: 0,
        unchanged: 0,
        rest: 0,
    };
    loop {
        let step = state.run(&c.import(&board, left)).await?;
        left = step.rest_of(left);
        imported = imported.and(step);
        if left.is_empty() {
            break;
        }
    }
    let what: BTreeMap<&str, &str> = pairs.iter().copied().collect();
    let change = Change {
        who: &admin.who,
        action: Action::Import,
        what: serde_json::json!({ "board": board, "votes": what }),
        before: serde_json::Value::Null,
        after: serde_json::to_value(imported).unwrap_or_default(),
    };
    audit::note(&state, &c, change).await;
    Ok(Json(imported))
}

/// Which boards (or board) to read, and how.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct TopQuery {
    /// Boards, comma-separated (1..20).
    pub boards: String,
    /// shown (weighted, imported, carried: default) or real (one per vote).
    #[serde(default)]
    #[param(inline)]
    pub kind: Kind,
    /// hour, day, week, month (the current one), total (default), or a
    /// named period such as day:2026-03-17.
    #[serde(default = "total")]
    #[param(default = "total")]
    pub period: String,
    /// Page number, from 1.
    #[serde(default = "first_page")]
    #[param(minimum = 1, default = 1)]
    pub page: u32,
    /// Entries per page (1..100, default 10).
    #[serde(default = "ten")]
    #[param(minimum = 1, default = 10)]
    pub per_page: u32,
}

fn total() -> String {
    "total".to_string()
}

fn first_page() -> u32 {
    1
}

fn ten() -> u32 {
    10
}

/// One board's page.
#[derive(Serialize, ToSchema)]
pub struct BoardTop {
    /// Board.
    pub board: String,
    /// The period read (`day:2026-03-17`, `total`, ...).
    pub period: String,
    /// Members on the board.
    pub size: u64,
    /// Pages at this page size.
    pub pages: u64,
    /// Whether a page follows this one.
    pub has_next: bool,
    /// This page, best first.
    pub entries: Vec<Entry>,
    /// A buffered campaign's board: the Unix ms before which every
    /// accepted vote is on it (later ones wait for the next fold); absent
    /// on an immediate campaign.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folded: Option<u64>,
}

/// A page of each asked board.
#[derive(Serialize, ToSchema)]
pub struct Top {
    /// The kind read.
    pub kind: Kind,
    /// This page's number, from 1.
    pub page: u32,
    /// Entries per page.
    pub per_page: u32,
    /// One page per asked board, in the asked order.
    pub boards: Vec<BoardTop>,
}

/// The same page of several boards in one call.
#[utoipa::path(
    get,
    path = "/v1/campaigns/{campaign}/top",
    tag = "campaign",
    params(("campaign" = String, Path, description = CAMPAIGN), TopQuery),
    responses(
        (status = 200, description = "The pages", body = Top),
        (status = 404, description = "No such campaign or board"),
        (status = 422, description = "A malformed name or period, a page or page size out of range, or more than 20 boards"),
    ),
    security((), ("api_token" = []))
)]
async fn top(
    _: Api,
    State(state): State<AppState>,
    Path(name): Path<String>,
    Query(q): Query<TopQuery>,
) -> Result<Json<Top>, Problem> {
    let c = campaign(&name)?;
    let view = View::new(q.kind, q.period.clone());
    let call = c.top(&list(&q.boards), &view, Paging::new(q.page, q.per_page));
    let pages = state.run(&call).await?;
    let per_page = u64::from(q.per_page.max(1));
    let boards = pages
        .into_iter()
        .map(|p| BoardTop {
            pages: p.size.div_ceil(per_page),
            has_next: u64::from(q.page) * per_page < p.size,
            board: p.board,
            period: p.period,
            size: p.size,
            entries: p.entries,
            folded: p.folded,
        })
        .collect();
    Ok(Json(Top {
        kind: q.kind,
        page: q.page,
        per_page: q.per_page,
        boards,
    }))
}

/// Which view of a board to read.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct StandingQuery {
    /// Members, comma-separated (1..100).
    pub members: String,
    /// shown (default) or real.
    #[serde(default)]
    #[param(inline)]
    pub kind: Kind,
    /// hour, day, week, month, total (default), or a named period.
    #[serde(default = "total")]
    #[param(default = "total")]
    pub period: String,
}

/// Where members stand.
#[derive(Serialize, ToSchema)]
pub struct Standings {
    /// Board.
    pub board: String,
    /// One per asked member, in the asked order.
    pub standings: Vec<Standing>,
}

/// Rank, score, the member ahead and the gap, and last period's rank and
/// score, of several members of a board.
#[utoipa::path(
    get,
    path = "/v1/campaigns/{campaign}/boards/{board}/standing",
    tag = "campaign",
    params(
        ("campaign" = String, Path, description = CAMPAIGN),
        ("board" = String, Path, description = "Board"),
        StandingQuery
    ),
    responses(
        (status = 200, description = "The standings (rank null: not on the board)", body = Standings),
        (status = 404, description = "No such campaign or board"),
        (status = 422, description = "A malformed name or period, or more than 100 members"),
    ),
    security((), ("api_token" = []))
)]
async fn standing(
    _: Api,
    State(state): State<AppState>,
    Path((name, board)): Path<(String, String)>,
    Query(q): Query<StandingQuery>,
) -> Result<Json<Standings>, Problem> {
    let c = campaign(&name)?;
    let view = View::new(q.kind, q.period);
    let standings = state
        .run(&c.standing(&board, &view, &list(&q.members)))
        .await?;
    Ok(Json(Standings { board, standings }))
}

/// The neighbourhood to read.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct AroundQuery {
    /// shown (default) or real.
    #[serde(default)]
    #[param(inline)]
    pub kind: Kind,
    /// hour, day, week, month, total (default), or a named period.
    #[serde(default = "total")]
    #[param(default = "total")]
    pub period: String,
    /// Members in the window, the member included (1..101, default 5).
    #[serde(default = "five")]
    #[param(minimum = 1, default = 5)]
    pub window: u32,
    /// The page size the member's page is counted in (1..100, default 10).
    #[serde(default = "ten")]
    #[param(minimum = 1, default = 10)]
    pub per_page: u32,
}

fn five() -> u32 {
    5
}

/// The members around one member of a board: its rank, percentile and
/// page, and the board's size and page count.
#[utoipa::path(
    get,
    path = "/v1/campaigns/{campaign}/boards/{board}/around/{member}",
    tag = "campaign",
    params(
        ("campaign" = String, Path, description = CAMPAIGN),
        ("board" = String, Path, description = "Board"),
        ("member" = String, Path, description = "The member (option)"),
        AroundQuery
    ),
    responses(
        (status = 200, description = "The neighbourhood (rank null: not on the board)", body = Around),
        (status = 404, description = "No such campaign or board"),
        (status = 422, description = "A malformed name or period, or a window or page size out of range"),
    ),
    security((), ("api_token" = []))
)]
async fn around(
    _: Api,
    State(state): State<AppState>,
    Path((name, board, member)): Path<(String, String, String)>,
    Query(q): Query<AroundQuery>,
) -> Result<Json<Around>, Problem> {
    let c = campaign(&name)?;
    let view = View::new(q.kind, q.period);
    let near = Neighbourhood::new(q.window, q.per_page);
    Ok(Json(
        state.run(&c.around(&board, &view, &member, near)).await?,
    ))
}

/// Whose participants to count.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ParticipantsQuery {
    /// Options, comma-separated (0..100).
    pub options: Option<String>,
}

/// One option's participants.
#[derive(Serialize, ToSchema)]
pub struct OptionParticipants {
    /// The option.
    pub option: String,
    /// Its unique voters (HyperLogLog: about 0.81% standard error).
    pub participants: u64,
}

/// Unique participants.
#[derive(Serialize, ToSchema)]
pub struct ParticipantCounts {
    /// Unique voters of the whole campaign.
    pub campaign: u64,
    /// Of each asked option, in the asked order.
    pub options: Vec<OptionParticipants>,
}

/// Unique participants of the campaign and of options of a board.
#[utoipa::path(
    get,
    path = "/v1/campaigns/{campaign}/boards/{board}/participants",
    tag = "campaign",
    params(
        ("campaign" = String, Path, description = CAMPAIGN),
        ("board" = String, Path, description = "Board"),
        ParticipantsQuery
    ),
    responses(
        (status = 200, description = "The counts", body = ParticipantCounts),
        (status = 404, description = "No such campaign, board or option"),
        (status = 422, description = "A malformed name, or more than 100 options"),
    ),
    security((), ("api_token" = []))
)]
async fn participants(
    _: Api,
    State(state): State<AppState>,
    Path((name, board)): Path<(String, String)>,
    Query(q): Query<ParticipantsQuery>,
) -> Result<Json<ParticipantCounts>, Problem> {
    let c = campaign(&name)?;
    let options = q
        .options
        .as_deref()
        .filter(|s| !s.is_empty())
        .map(list)
        .unwrap_or_default();
    let p = state.run(&c.participants(&board, &options)).await?;
    Ok(Json(ParticipantCounts {
        campaign: p.campaign,
        options: p
            .options
            .into_iter()
            .map(|(option, participants)| OptionParticipants {
                option,
                participants,
            })
            .collect(),
    }))
}

/// Whose limits to look at.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LimitsQuery {
    /// The voter.
    pub user: String,
    /// Traffic source.
    pub channel: Option<String>,
    /// Device type.
    pub device: Option<String>,
    /// board:option pairs, comma-separated, for rules that count per option
    /// (without them those rules are left out).
    pub pairs: Option<String>,
}

/// What each rate limit leaves a voter.
#[derive(Serialize, ToSchema)]
pub struct Limits {
    /// One entry per counter, in rule order.
    pub limits: Vec<LimitLeft>,
}

/// How many votes each rate limit leaves a voter now; spends nothing.
#[utoipa::path(
    get,
    path = "/v1/campaigns/{campaign}/limits",
    tag = "campaign",
    params(("campaign" = String, Path, description = CAMPAIGN), LimitsQuery),
    responses(
        (status = 200, description = "What each counter leaves (reset_in -1: never within the campaign)", body = Limits),
        (status = 404, description = "No such campaign"),
        (status = 422, description = "A malformed user or name"),
    ),
    security((), ("api_token" = []))
)]
async fn limits(
    _: Api,
    State(state): State<AppState>,
    Path(name): Path<String>,
    Query(q): Query<LimitsQuery>,
) -> Result<Json<Limits>, Problem> {
    let c = campaign(&name)?;
    let voter = Voter {
        channel: q.channel.clone(),
        device: q.device.clone(),
        ..Voter::new(&q.user)
    };
    let pairs = pairs(q.pairs.as_deref())?;
    let limits = state.run(&c.limits(&voter, &pairs)).await?;
    Ok(Json(Limits { limits }))
}

/// Whose counters to reset.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResetRequest {
    /// The voter.
    pub user: String,
    /// Traffic source.
    #[serde(default)]
    pub channel: Option<String>,
    /// Device type.
    #[serde(default)]
    pub device: Option<String>,
    /// Pairs, for per-user rules that also count per option.
    #[serde(default)]
    pub pairs: Vec<Pair>,
}

/// How many counters a reset deleted.
#[derive(Serialize, ToSchema)]
pub struct Reset {
    /// Counters deleted.
    pub reset: u64,
}

/// Admin: delete a voter's counters of every rule that counts per user.
#[utoipa::path(
    post,
    path = "/v1/campaigns/{campaign}/limits/reset",
    tag = "campaign",
    params(("campaign" = String, Path, description = CAMPAIGN)),
    request_body = ResetRequest,
    responses(
        (status = 200, description = "Counters deleted", body = Reset),
        (status = 404, description = "No such campaign"),
        (status = 422, description = "A malformed user or name"),
    ),
    security(("admin_token" = []))
)]
async fn reset_limits(
    admin: Admin,
    _: NoQuery,
    State(state): State<AppState>,
    Path(name): Path<String>,
    Json(body): Json<ResetRequest>,
) -> Result<Json<Reset>, Problem> {
    let c = campaign(&name)?;
    let voter = Voter {
        channel: body.channel.clone(),
        device: body.device.clone(),
        ..Voter::new(&body.user)
    };
    let pairs: Vec<(&str, &str)> = body
        .pairs
        .iter()
        .map(|p| (p.board.as_str(), p.option.as_str()))
        .collect();
    let reset = state.run(&c.reset_limits(&voter, &pairs)).await?;
    let change = Change {
        who: &admin.who,
        action: Action::LimitsReset,
        what: serde_json::json!({
            "user": body.user,
            "channel": body.channel,
            "device": body.device,
            "pairs": pairs,
        }),
        before: serde_json::Value::Null,
        after: serde_json::json!({ "reset": reset }),
    };
    audit::note(&state, &c, change).await;
    Ok(Json(Reset { reset }))
}

/// One step of a reindex.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReindexRequest {
    /// "0" first, then the previous answer's `next`.
    #[serde(default = "zero")]
    #[schema(default = "0")]
    pub cursor: String,
    /// Members in this step (1..5000, default 100).
    #[serde(default = "hundred")]
    #[schema(default = 100)]
    pub count: u32,
}

/// A cursor's first value, `"0"` (serde's default of the paged routes).
pub(crate) fn zero() -> String {
    "0".to_string()
}

/// A step's default size, 100 (serde's default of the paged routes).
pub(crate) fn hundred() -> u32 {
    100
}

/// Admin: one step of building the keys that make a dense or first
/// board's ranks O(log N); call again with `next` until it is "0".
#[utoipa::path(
    post,
    path = "/v1/campaigns/{campaign}/boards/{board}/reindex",
    tag = "campaign",
    params(
        ("campaign" = String, Path, description = CAMPAIGN),
        ("board" = String, Path, description = "Board"),
    ),
    request_body = ReindexRequest,
    responses(
        (status = 200, description = "What the step did, and the next cursor (\"0\": done)", body = Reindexed),
        (status = 404, description = "No such campaign or board"),
        (status = 422, description = "A malformed cursor or name, or a count out of range"),
    ),
    security(("admin_token" = []))
)]
async fn reindex(
    admin: Admin,
    _: NoQuery,
    State(state): State<AppState>,
    Path((name, board)): Path<(String, String)>,
    Json(body): Json<ReindexRequest>,
) -> Result<Json<Reindexed>, Problem> {
    let c = campaign(&name)?;
    let step = state
        .run(&c.reindex(&board, &body.cursor, body.count))
        .await?;
    // one audit entry a reindex, by the step that finishes it (as the
    // CLI's one entry a run): a step each would fill the capped log
    if step.is_done() {
        let change = Change {
            who: &admin.who,
            action: Action::Reindex,
            what: serde_json::json!({ "board": board, "count": body.count }),
            before: serde_json::Value::Null,
            after: serde_json::to_value(&step).unwrap_or_default(),
        };
        audit::note(&state, &c, change).await;
    }
    Ok(Json(step))
}
