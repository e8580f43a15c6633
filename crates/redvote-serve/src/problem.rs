//! [`Problem`]: every error the service answers, as an RFC 9457
//! `application/problem+json` body carrying the `REDVOTE_*` code, and the
//! one mapping from a library [`redvote::Error`] to an HTTP status.
//!
//! The status mapping (docs/service.md): a request serde cannot read
//! (malformed JSON, a missing or mistyped field or parameter) is 400; a
//! value the scripts refuse (`INVALID_*`, `USAGE`, `OUT_OF_RANGE`) is 422;
//! `UNKNOWN_*` is 404; `DENIED` is 403; `VOTING_CLOSED`, `CAMPAIGN_CLOSED`,
//! `CONFIG_LOCKED` and `VOTE_ID_REUSED` are 409 (a state conflict: the
//! campaign still exists, 410 would say it is gone); `RATE_LIMITED` is 429
//! with `Retry-After` (none when the refusal's `retry_after` is -1: no vote
//! passes again within the campaign); Redis unreachable, busy or out of
//! memory, and the request timeout, are 503 with `Retry-After:`
//! [`RETRY_AFTER_UNAVAILABLE`]; `INTERNAL` or a reply the driver does not
//! understand is 500. A 503 of a write (any method but GET, HEAD and
//! OPTIONS) whose outcome is unknown says `may_have_applied: true`; a
//! read's never carries `may_have_applied` ([`for_method`]).

use std::collections::BTreeMap;

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use redvote::{Code, Error};
use serde::Serialize;
use utoipa::ToSchema;

/// The codes the service itself answers with, beside the scripts' [`Code`]s.
pub mod codes {
    /// 400: a request serde cannot read (malformed JSON, a missing or mistyped field or parameter).
    pub const BAD_REQUEST: &str = "REDVOTE_BAD_REQUEST";
    /// 401: no bearer token, or not the right one.
    pub const UNAUTHORIZED: &str = "REDVOTE_UNAUTHORIZED";
    /// 403: an admin endpoint while the service has no admin token.
    pub const ADMIN_DISABLED: &str = "REDVOTE_ADMIN_DISABLED";
    /// 403: a team key outside its campaign pattern or role, or on a
    /// route only the operator's tokens take (docs/teams.md).
    pub const FORBIDDEN: &str = "REDVOTE_FORBIDDEN";
    /// 409: a team key of this name exists.
    pub const KEY_EXISTS: &str = "REDVOTE_KEY_EXISTS";
    /// 409: the most team keys there may be exist already.
    pub const TOO_MANY_KEYS: &str = "REDVOTE_TOO_MANY_KEYS";
    /// 404: no team key of this name.
    pub const UNKNOWN_KEY: &str = "REDVOTE_UNKNOWN_KEY";
    /// 404: a site name the service was not started with.
    pub const UNKNOWN_SITE: &str = "REDVOTE_UNKNOWN_SITE";
    /// 404: no such route.
    pub const NOT_FOUND: &str = "REDVOTE_NOT_FOUND";
    /// 405: the route exists, not with this method.
    pub const METHOD_NOT_ALLOWED: &str = "REDVOTE_METHOD_NOT_ALLOWED";
    /// 413: a body over the service's limit.
    pub const TOO_LARGE: &str = "REDVOTE_TOO_LARGE";
    /// 415: a body that is not `application/json`.
    pub const UNSUPPORTED_MEDIA_TYPE: &str = "REDVOTE_UNSUPPORTED_MEDIA_TYPE";
    /// 503: Redis cannot be reached (or is loading, busy, failing over).
    pub const UNAVAILABLE: &str = "REDVOTE_UNAVAILABLE";
    /// 503: Redis refused the write: used memory is over `maxmemory`
    /// (`OOM command not allowed`; nothing was applied).
    pub const OUT_OF_MEMORY: &str = "REDVOTE_OUT_OF_MEMORY";
    /// 503: the request took longer than the service's request timeout.
    pub const TIMEOUT: &str = "REDVOTE_TIMEOUT";
}

/// An RFC 9457 problem: what went wrong, with the stable `REDVOTE_*` code.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Problem {
    /// A URI naming the kind of problem: `urn:redvote:<code>` (the code in
    /// lower case, without `REDVOTE_`).
    #[serde(rename = "type")]
    pub kind: String,
    /// The HTTP status' reason phrase.
    pub title: String,
    /// The HTTP status.
    #[schema(minimum = 400, maximum = 599)]
    pub status: u16,
    /// What was refused and why, naming the offending value.
    pub detail: String,
    /// The stable code: a script's (`REDVOTE_UNKNOWN_BOARD`, ...) or the
    /// service's own (`REDVOTE_BAD_REQUEST`, `REDVOTE_UNAUTHORIZED`,
    /// `REDVOTE_ADMIN_DISABLED`, `REDVOTE_UNKNOWN_SITE`, `REDVOTE_NOT_FOUND`,
    /// `REDVOTE_METHOD_NOT_ALLOWED`, `REDVOTE_TOO_LARGE`,
    /// `REDVOTE_UNSUPPORTED_MEDIA_TYPE`, `REDVOTE_UNAVAILABLE`,
    /// `REDVOTE_OUT_OF_MEMORY`, `REDVOTE_TIMEOUT`).
    #[schema(pattern = "^REDVOTE_[A-Z_]+$")]
    pub code: String,
    /// 429 only: seconds until a vote would pass (also the `Retry-After`
    /// header); -1 when none passes again within the campaign (no
    /// `Retry-After` then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<i64>,
    /// 429 only: the rate-limit rule that refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// 429 only: votes each rule still allows the voter now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remaining: Option<BTreeMap<String, i64>>,
    /// 503 of a write only: true when the call may have been applied
    /// although no answer came (a vote: retry it with the same
    /// `Idempotency-Key`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub may_have_applied: Option<bool>,
    /// The detail to answer instead when the request only reads (GET,
    /// HEAD, OPTIONS): without the advice about a write's outcome.
    #[serde(skip)]
    #[schema(ignore)]
    read_detail: Option<String>,
}

/// The `Retry-After` of every 503, in seconds: Redis restarting, failing
/// over, loading or freeing memory, or a request cut by the timeout.
pub const RETRY_AFTER_UNAVAILABLE: i64 = 1;

/// What a 503 of a write whose outcome is unknown adds to its detail.
const MAY_HAVE_APPLIED: &str =
    "; it may have been applied (a vote: retry with the same Idempotency-Key)";

impl Problem {
    /// A problem with `status`, `code` and `detail`.
    pub fn new(status: StatusCode, code: &str, detail: impl Into<String>) -> Self {
        let name = code.strip_prefix("REDVOTE_").unwrap_or(code);
        Problem {
            kind: format!(
                "urn:redvote:{}",
                name.to_ascii_lowercase().replace('_', "-")
            ),
            title: status.canonical_reason().unwrap_or("Error").to_string(),
            status: status.as_u16(),
            detail: detail.into(),
            code: code.to_string(),
            retry_after: None,
            rule: None,
            remaining: None,
            may_have_applied: None,
            read_detail: None,
        }
    }

    /// 503 `code`: `detail`, and the write's outcome; `read_detail` is
    /// answered to a read instead.
    fn unavailable(code: &str, detail: String, read_detail: String, unknown: bool) -> Self {
        let detail = if unknown {
            detail + MAY_HAVE_APPLIED
        } else {
            detail
        };
        let mut p = Problem::new(StatusCode::SERVICE_UNAVAILABLE, code, detail);
        p.may_have_applied = Some(unknown);
        p.read_detail = Some(read_detail);
        p
    }

    /// 400: the request does not parse.
    pub fn bad_request(detail: impl Into<String>) -> Self {
        Problem::new(StatusCode::BAD_REQUEST, codes::BAD_REQUEST, detail)
    }

    /// 422 with one of the scripts' codes, for a check the service makes
    /// before calling (a campaign name, an empty `Idempotency-Key`).
    pub fn invalid(code: Code, detail: impl Into<String>) -> Self {
        Problem::new(StatusCode::UNPROCESSABLE_ENTITY, code.as_str(), detail)
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }
}

/// The status of a script's refusal code.
pub fn status_of(code: Code) -> StatusCode {
    match code {
        Code::UnknownArticle
        | Code::UnknownCampaign
        | Code::UnknownBoard
        | Code::UnknownOption
        | Code::UnknownVote => StatusCode::NOT_FOUND,
        Code::Denied => StatusCode::FORBIDDEN,
        // a state conflict: the vote's record keeps nothing to subtract
        // (NOT_VOIDABLE), as a closed campaign or a locked setting
        Code::VotingClosed
        | Code::CampaignClosed
        | Code::ConfigLocked
        | Code::VoteIdReused
        | Code::NotVoidable
        // a removal step from a cursor the removal did not hand out last
        | Code::InvalidCursor
        // a buffered campaign's votes to fold before the call
        | Code::Unfolded
        // a campaign's stored layout this redvote cannot use (docs/versions.md)
        | Code::LayoutVersion => StatusCode::CONFLICT,
        Code::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        Code::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        Code::Usage
        | Code::InvalidUser
        | Code::InvalidVoteId
        | Code::InvalidId
        | Code::InvalidText
        | Code::InvalidNumber
        | Code::InvalidVote
        | Code::InvalidOrder
        | Code::InvalidGroup
        | Code::InvalidConfig
        | Code::InvalidName
        | Code::InvalidPeriod
        | Code::OutOfRange => StatusCode::UNPROCESSABLE_ENTITY,
    }
}

/// Whether a Redis error means Redis cannot serve now (503) rather than a
/// defect (500): the connection failed or timed out, or the server is
/// loading, busy, failing over or out of memory.
fn unavailable(err: &redis::RedisError) -> bool {
    err.is_io_error()
        || err.is_timeout()
        || err.is_connection_dropped()
        || err.is_connection_refusal()
        || matches!(
            err.code(),
            Some("LOADING" | "BUSY" | "TRYAGAIN" | "MASTERDOWN" | "CLUSTERDOWN" | "OOM")
        )
}

impl From<Error> for Problem {
    fn from(err: Error) -> Self {
        match err {
            Error::Script { code, detail } => Problem::new(status_of(code), code.as_str(), detail),
            Error::RateLimited(refusal) => {
                let mut p = Problem::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    Code::RateLimited.as_str(),
                    refusal.to_string(),
                );
                p.retry_after = Some(refusal.retry_after);
                p.rule = Some(refusal.rule);
                p.remaining = Some(refusal.remaining);
                p
            }
            Error::Redis(ref e) if e.code() == Some("OOM") => {
                let detail =
                    "Redis is out of memory (used memory is over maxmemory): nothing was applied";
                Problem::unavailable(codes::OUT_OF_MEMORY, detail.into(), detail.into(), false)
            }
            Error::Redis(ref e) if unavailable(e) => {
                let detail = format!("Redis is unavailable: {e}");
                Problem::unavailable(
                    codes::UNAVAILABLE,
                    detail.clone(),
                    detail,
                    err.may_have_applied(),
                )
            }
            Error::Redis(e) => Problem::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                Code::Internal.as_str(),
                format!("redis: {e}"),
            ),
            Error::Timeout {
                deadline_ms, sent, ..
            } => Problem::unavailable(
                codes::UNAVAILABLE,
                format!("Redis is unavailable: {err}"),
                format!("Redis is unavailable: no answer within the deadline of {deadline_ms} ms"),
                sent,
            ),
            Error::MayHaveApplied { ref source } => Problem::unavailable(
                codes::UNAVAILABLE,
                format!("Redis is unavailable: {source}"),
                format!("Redis is unavailable: {source}"),
                true,
            ),
            Error::NotReplicated { .. } => {
                Problem::unavailable(codes::UNAVAILABLE, err.to_string(), err.to_string(), true)
            }
            Error::Reply { .. } | Error::Config(_) => Problem::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                Code::Internal.as_str(),
                err.to_string(),
            ),
        }
    }
}

/// A script's refusal `detail` as the HTTP API answers it, chosen by its
/// code alone: the script's own detail, already in the API's words (it
/// names the campaign, board, option or article, not their keys:
/// docs/errors.md), but for a usage refusal, whose detail speaks of the
/// script's argument list, the route's limits instead. `script` is the
/// script's name.
pub fn api_words(code: Code, detail: &str, script: &str) -> String {
    match code {
        Code::Usage => usage(script),
        _ => detail.to_string(),
    }
}

/// The characters a name may not hold, in words (as the scripts' details
/// spell them).
pub const NAME_RULE_CHARACTERS: &str =
    "colons, braces, asterisks, question marks, square brackets, backslashes, commas";

/// A script's usage refusal in the API's words: the request's lists and
/// their limits (the HTTP API's parameter names), never its arguments.
fn usage(script: &str) -> String {
    use redvote::caps;
    let limits = match script {
        // a vote within the count is refused for its work (a batch on
        // boards keeping many periods, or first ties: docs/campaigns.md)
        "campaign_vote" => format!(
            "votes: 1..{} pairs, as many as one call's bounded work allows on their boards",
            caps::VOTE_PAIRS
        ),
        "campaign_top" => format!("boards: 1..{} names", caps::TOP_BOARDS),
        "campaign_standing" => format!("members: 1..{} names", caps::STANDING_MEMBERS),
        "campaign_participants" => format!("options: 0..{} names", caps::PARTICIPANT_OPTIONS),
        "campaign_import" => format!("the body: 1..{} options, each once", caps::IMPORT_PAIRS),
        "campaign_limits" | "campaign_limits_reset" => {
            format!("pairs: 0..{} board:option pairs", caps::VOTE_PAIRS)
        }
        // the service sends its arguments in form: only the cursor is the caller's
        "campaign_reindex" => {
            return "cursor must be \"0\" or the next of the previous answer".to_string()
        }
        "groups" => format!("add and remove: 1..{} groups in all", caps::GROUPS),
        "campaign_configure" => "the settings document is too large".to_string(),
        _ => "the request does not have the form this route takes (see /openapi.json)".to_string(),
    };
    format!("the request is outside this route's limits: {limits}")
}

/// The `application/problem+json` media type.
pub const PROBLEM_JSON: &str = "application/problem+json";

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let status = self.status();
        let retry_after = match self.retry_after {
            Some(s) => Some(s).filter(|s| *s >= 0),
            None if status == StatusCode::SERVICE_UNAVAILABLE => Some(RETRY_AFTER_UNAVAILABLE),
            None => None,
        };
        let body = serde_json::to_vec(&self).expect("a problem serializes");
        let extension = self.may_have_applied.is_some().then_some(self);
        let mut response = (status, body).into_response();
        if let Some(problem) = extension {
            // for_method: a read answers read_detail
            response.extensions_mut().insert(problem);
        }
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
        if let Some(seconds) = retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if status == StatusCode::UNAUTHORIZED {
            headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// `response` as the request's `method` must have it: a read's 503
/// (GET, HEAD, OPTIONS) without `may_have_applied` and the advice about a
/// write's outcome; a write cut by the request timeout (tower-http's
/// bodyless 503) with `may_have_applied: true`, as it may have been sent.
pub fn for_method(method: &axum::http::Method, response: Response) -> Response {
    let read = method.is_safe();
    if response.status() == StatusCode::SERVICE_UNAVAILABLE && !is_problem(&response) {
        let mut p = for_status(StatusCode::SERVICE_UNAVAILABLE);
        if !read {
            p.detail.push_str(MAY_HAVE_APPLIED);
            p.may_have_applied = Some(true);
        }
        return p.into_response();
    }
    match response.extensions().get::<Problem>() {
        Some(p) if read => {
            let mut p = p.clone();
            p.may_have_applied = None;
            if let Some(detail) = p.read_detail.take() {
                p.detail = detail;
            }
            p.into_response()
        }
        _ => response,
    }
}

/// Whether `response` is a problem already.
pub fn is_problem(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes() == PROBLEM_JSON.as_bytes())
}

/// A problem for a bodyless error response a layer made (tower-http's
/// timeout and body limit, axum's 404 and 405): the same status, as
/// problem+json.
pub fn for_status(status: StatusCode) -> Problem {
    let (code, detail) = match status {
        StatusCode::NOT_FOUND => (codes::NOT_FOUND, "no such route"),
        StatusCode::METHOD_NOT_ALLOWED => (
            codes::METHOD_NOT_ALLOWED,
            "the route does not take this method",
        ),
        StatusCode::PAYLOAD_TOO_LARGE => (codes::TOO_LARGE, "the body is over the size limit"),
        StatusCode::SERVICE_UNAVAILABLE | StatusCode::REQUEST_TIMEOUT => (
            codes::TIMEOUT,
            "the request took longer than the request timeout",
        ),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => (
            codes::UNSUPPORTED_MEDIA_TYPE,
            "the body must be application/json",
        ),
        s if s.is_client_error() => (codes::BAD_REQUEST, "the request was refused"),
        _ => (Code::Internal.as_str(), "the request failed"),
    };
    Problem::new(status, code, detail)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every script code has its status, as the table of docs/service.md says.
    #[test]
    fn every_code_maps_to_its_status() {
        for code in Code::ALL {
            let status = status_of(code).as_u16();
            let name = code.as_str();
            let want = if name.contains("_UNKNOWN_") {
                404
            } else if code == Code::InvalidCursor {
                // the removal's progress, not the cursor's form: a state conflict
                409
            } else if name.contains("_INVALID_")
                || name.ends_with("USAGE")
                || name.ends_with("OUT_OF_RANGE")
            {
                422
            } else {
                match code {
                    Code::Denied => 403,
                    Code::RateLimited => 429,
                    Code::Internal => 500,
                    _ => 409,
                }
            };
            assert_eq!(status, want, "{name}");
        }
    }

    /// A script's detail passes as the script wrote it (already in the
    /// API's words); a usage refusal becomes the route's limits, never the
    /// script's argument list.
    #[test]
    fn script_details_pass_through_but_usage() {
        let detail = "board \"b\" has no option \"o\"";
        assert_eq!(
            api_words(Code::UnknownOption, detail, "campaign_vote"),
            detail
        );
        let usage = api_words(
            Code::Usage,
            "campaign_vote takes 1 key, the campaign root \"<ns>campaign\"",
            "campaign_vote",
        );
        assert!(!usage.contains("key") && usage.contains("votes"), "{usage}");
        let cursor = api_words(
            Code::Usage,
            "cursor must be \"0\" or one campaign_reindex returned, got \"zz\"",
            "campaign_reindex",
        );
        assert!(!cursor.contains("campaign_reindex"), "{cursor}");
    }

    #[test]
    fn a_problem_names_its_code() {
        let p = Problem::from(Error::Script {
            code: Code::UnknownBoard,
            detail: "board x".into(),
        });
        assert_eq!((p.status, p.code.as_str()), (404, "REDVOTE_UNKNOWN_BOARD"));
        assert_eq!(p.kind, "urn:redvote:unknown-board");
        assert_eq!(p.title, "Not Found");
    }
}
