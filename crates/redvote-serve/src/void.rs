//! Voiding votes over HTTP (admin; docs/statistics.md, docs/teams.md):
//! one vote by its id (`Campaign::void`), or one step of a user's or a
//! channel's votes in a time range (`Campaign::void_range`, campaigns with
//! a vote log). Each applied void is written to the campaign's audit log.
//! On a buffered campaign a void folds the buffer first (a buffered vote
//! is voided once on the boards); when it holds more than that call
//! folds, the route folds and sends the void once more.

use axum::extract::State;
use redvote::campaign::{VoidBy, Voided, VoidedRange};
use redvote::Code;
use serde::Deserialize;
use serde_json::json;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::audit::{self, Action, Change};
use super::auth::Admin;
use super::campaign::{campaign, hundred, zero};
use super::extract::{Json, NoQuery, Path};
use super::fold::run_folding;
use super::problem::Problem;
use super::AppState;

/// The void routes and the audit log's read.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(void))
        .routes(routes!(void_range))
        .routes(routes!(audit::audit))
}

/// Admin: void the vote applied with this vote id (its `Idempotency-Key`)
/// while the id's record lives (the campaign's `vote_id_ttl`): what it
/// added is subtracted from every board, period and carry it touched,
/// atomically, once. A second void answers `already: true` and changes
/// nothing. Rate limits and participants are not given back.
#[utoipa::path(
    post,
    path = "/v1/campaigns/{campaign}/votes/{vote_id}/void",
    operation_id = "campaign_void",
    tag = "campaign",
    params(
        ("campaign" = String, Path, description = "Campaign name (the board name rule)"),
        ("vote_id" = String, Path, description = "The vote's id (its Idempotency-Key), 1..128 bytes"),
    ),
    responses(
        (status = 200, description = "Voided now, or already (already: true)", body = Voided),
        (status = 404, description = "No such campaign, or no record of this vote id (never used, or expired: REDVOTE_UNKNOWN_VOTE)"),
        (status = 409, description = "A record kept before voiding existed: nothing to subtract (REDVOTE_NOT_VOIDABLE)"),
        (status = 422, description = "A malformed campaign name or vote id"),
    ),
    security(("admin_token" = []))
)]
async fn void(
    admin: Admin,
    _: NoQuery,
    State(state): State<AppState>,
    Path((name, vote_id)): Path<(String, String)>,
) -> Result<Json<Voided>, Problem> {
    let c = campaign(&name)?;
    let voided = run_folding(&state, &c, &c.void(&vote_id)).await?;
    if !voided.already {
        let change = Change {
            who: &admin.who,
            action: Action::Void,
            what: json!({ "vote_id": vote_id }),
            before: serde_json::Value::Null,
            after: serde_json::to_value(voided).unwrap_or_default(),
        };
        audit::note(&state, &c, change).await;
    }
    Ok(Json(voided))
}

/// One step of voiding a user's or a channel's votes.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VoidRangeRequest {
    /// The user whose votes to void (exactly one of user and channel).
    #[serde(default)]
    pub user: Option<String>,
    /// The channel whose votes to void.
    #[serde(default)]
    pub channel: Option<String>,
    /// From this Unix second (the server's clock), included.
    pub from: u64,
    /// To this Unix second, excluded.
    pub to: u64,
    /// "0" first, then the previous answer's `next`.
    #[serde(default = "zero")]
    #[schema(default = "0")]
    pub cursor: String,
    /// Log entries read in this step (1..1000, default 100).
    #[serde(default = "hundred")]
    #[schema(default = 100)]
    pub count: u32,
}

/// Admin: one step of voiding every vote of a user or a channel logged
/// in `[from, to)`, in a campaign with a vote log (`vote_log` in its
/// settings; without one the step voids nothing and answers `next` "0");
/// call again with `next` until it is "0". Each step reads at
/// most `count` log entries; a voided vote leaves the log, so none is
/// voided twice. An empty range (`to` not after `from`) voids nothing.
#[utoipa::path(
    post,
    path = "/v1/campaigns/{campaign}/votes/void",
    operation_id = "campaign_void_range",
    tag = "campaign",
    params(("campaign" = String, Path, description = "Campaign name (the board name rule)")),
    request_body = VoidRangeRequest,
    responses(
        (status = 200, description = "What the step voided, and the next cursor (\"0\": done)", body = VoidedRange),
        (status = 404, description = "No such campaign"),
        (status = 422, description = "Neither or both of user and channel, a malformed user, channel or cursor, or a count out of range"),
    ),
    security(("admin_token" = []))
)]
async fn void_range(
    admin: Admin,
    _: NoQuery,
    State(state): State<AppState>,
    Path(name): Path<String>,
    Json(body): Json<VoidRangeRequest>,
) -> Result<Json<VoidedRange>, Problem> {
    let c = campaign(&name)?;
    let (by, value) = match (&body.user, &body.channel) {
        (Some(u), None) => (VoidBy::User, u.as_str()),
        (None, Some(ch)) => (VoidBy::Channel, ch.as_str()),
        _ => {
            return Err(Problem::invalid(
                Code::Usage,
                "exactly one of user and channel",
            ))
        }
    };
    // what the script checks, checked here too: the empty range below
    // answers without it
    let value_ok = match by {
        VoidBy::User => {
            !value.is_empty()
                && value.len() <= 256
                && !value.chars().any(|ch| ch.is_ascii_control())
        }
        VoidBy::Channel => redvote::is_valid_name(value),
    };
    if !value_ok {
        return Err(Problem::invalid(
            if by == VoidBy::User {
                Code::InvalidUser
            } else {
                Code::InvalidName
            },
            format!(
                "{}: {}",
                by.as_str(),
                if by == VoidBy::User {
                    "1..256 bytes without control characters"
                } else {
                    "a channel name (the board name rule)"
                }
            ),
        ));
    }
    const LAST: u64 = 253_402_300_799;
    if body.from > LAST || body.to > LAST {
        return Err(Problem::invalid(
            Code::InvalidNumber,
            format!("from and to: Unix seconds in 0..{LAST}"),
        ));
    }
    if !(1..=1000).contains(&body.count) {
        return Err(Problem::invalid(Code::InvalidNumber, "count: 1..1000"));
    }
    let cursor_ok = body.cursor == "0" || super::audit::valid_id(&body.cursor);
    if !cursor_ok {
        return Err(Problem::invalid(
            Code::InvalidNumber,
            "cursor: \"0\" or the next of a previous step",
        ));
    }
    if body.to <= body.from {
        // an empty range voids nothing (the script would refuse it: the
        // document cannot say "to after from")
        return Ok(Json(VoidedRange {
            voided: 0,
            others: 0,
            next: "0".to_string(),
        }));
    }
    let call = c.void_range(by, value, body.from, body.to, &body.cursor, body.count);
    let step = run_folding(&state, &c, &call).await?;
    if step.voided > 0 {
        let change = Change {
            who: &admin.who,
            action: Action::VoidRange,
            what: json!({
                by.as_str(): value,
                "from": body.from,
                "to": body.to,
                "cursor": body.cursor,
                "count": body.count,
            }),
            before: serde_json::Value::Null,
            after: serde_json::to_value(&step).unwrap_or_default(),
        };
        audit::note(&state, &c, change).await;
    }
    Ok(Json(step))
}
