//! The audit log (docs/teams.md): every admin change of a campaign, one
//! entry in a capped stream per campaign, `<ns>audit` (`{c:NAME}:audit`,
//! in the campaign's hash tag), written by the service's admin routes and
//! by the CLI's admin commands through [`record`] / [`record_async`]: one
//! writer for both.
//!
//! An entry's fields: `who` (a team key's name, `operator` for the admin
//! token, `cli:USER` for the command line), `when` (Unix milliseconds of
//! the writer's clock), `action` ([`Action`]), `what` (the request, JSON,
//! at most [`FIELD_LIMIT`] bytes), `before` and `after` (JSON or `null`:
//! for configure, the stored settings read just before and just after the
//! change; for the others what the change answered goes in `after`). Each
//! JSON field longer than [`FIELD_LIMIT`] bytes is replaced by
//! `{"truncated": BYTES}`.
//!
//! `XADD ... MAXLEN ~ 1000`: about the last [`MAX_ENTRIES`] entries are
//! kept (Redis trims whole macro nodes, so a few more may stay). The entry
//! is written after the change succeeded, not atomically with it: a crash
//! or a Redis failure between the two loses that entry (the change stays);
//! a refused change writes none.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use super::auth::Admin;
use super::extract::{Json, Path, Query};
use super::problem::Problem;
use super::AppState;

/// About how many entries a campaign's stream keeps (`MAXLEN ~`).
pub const MAX_ENTRIES: u64 = 1000;
/// The most bytes of one JSON field of an entry.
pub const FIELD_LIMIT: usize = 16 * 1024;
/// The most entries one read answers.
pub const MAX_COUNT: u32 = 100;

/// An admin change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Settings (`PUT .../settings`, `campaign NAME configure`).
    Configure,
    /// Imported votes.
    Import,
    /// A user's rate-limit counters reset.
    LimitsReset,
    /// A reindex step.
    Reindex,
    /// The campaign's data layout moved forward (`campaign NAME upgrade`).
    Upgrade,
    /// One vote voided by its id.
    Void,
    /// A step of voiding a user's or channel's votes in a time range.
    VoidRange,
}

impl Action {
    /// Its name in the stream.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Configure => "configure",
            Action::Import => "import",
            Action::LimitsReset => "limits_reset",
            Action::Reindex => "reindex",
            Action::Upgrade => "upgrade",
            Action::Void => "void",
            Action::VoidRange => "void_range",
        }
    }
}

/// One change to record.
#[derive(Debug, Clone)]
pub struct Change<'a> {
    /// Who: a key name, `operator` or `cli:USER`.
    pub who: &'a str,
    /// What kind of change.
    pub action: Action,
    /// The request.
    pub what: Value,
    /// The state before (configure: the settings), or null.
    pub before: Value,
    /// The state after, or what the change answered.
    pub after: Value,
}

/// An entry as read back.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AuditEntry {
    /// The stream entry's id (`MS-SEQ`): the `before` of the next page.
    pub id: String,
    /// Who: a team key's name, `operator`, or `cli:USER`.
    pub who: String,
    /// Unix milliseconds of the writer's clock.
    pub when: u64,
    /// configure, import, limits_reset, reindex, upgrade, void or void_range.
    pub action: String,
    /// The request (JSON; `{"truncated": BYTES}` past 16 KiB).
    #[schema(value_type = Object)]
    pub what: Value,
    /// The state before (configure: the stored settings; else null).
    #[schema(value_type = Option<Object>)]
    pub before: Value,
    /// The state after (configure: the stored settings; else what the
    /// change answered).
    #[schema(value_type = Option<Object>)]
    pub after: Value,
}

/// The stream of `campaign` (a valid name): `{c:NAME}:audit`.
pub fn key(campaign: &redvote::Campaign) -> String {
    format!("{}audit", campaign.namespace())
}

/// `v` as JSON text, or `{"truncated": BYTES}` when longer than
/// [`FIELD_LIMIT`].
fn bounded(v: &Value) -> String {
    let text = v.to_string();
    if text.len() > FIELD_LIMIT {
        serde_json::json!({ "truncated": text.len() }).to_string()
    } else {
        text
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The `XADD` of `change` to the stream of `campaign`.
pub fn command(campaign: &redvote::Campaign, change: &Change<'_>) -> redis::Cmd {
    let mut cmd = redis::cmd("XADD");
    cmd.arg(key(campaign))
        .arg("MAXLEN")
        .arg("~")
        .arg(MAX_ENTRIES)
        .arg("*")
        .arg("who")
        .arg(change.who)
        .arg("when")
        .arg(now_ms())
        .arg("action")
        .arg(change.action.as_str())
        .arg("what")
        .arg(bounded(&change.what))
        .arg("before")
        .arg(bounded(&change.before))
        .arg("after")
        .arg(bounded(&change.after));
    cmd
}

/// Record `change` of `campaign` (sync: the CLI).
pub fn record(
    con: &mut dyn redis::ConnectionLike,
    campaign: &redvote::Campaign,
    change: &Change<'_>,
) -> redis::RedisResult<()> {
    con.req_command(&command(campaign, change)).map(|_| ())
}

/// Record `change` of `campaign` (async: the service).
pub async fn record_async<C: redis::aio::ConnectionLike + Send>(
    con: &mut C,
    campaign: &redvote::Campaign,
    change: &Change<'_>,
) -> redis::RedisResult<()> {
    command(campaign, change)
        .query_async::<redis::Value>(con)
        .await
        .map(|_| ())
}

/// Whether `id` is a stream entry id (`MS-SEQ`).
pub fn valid_id(id: &str) -> bool {
    let Some((ms, seq)) = id.split_once('-') else {
        return false;
    };
    [ms, seq]
        .iter()
        .all(|p| !p.is_empty() && p.len() <= 20 && p.bytes().all(|b| b.is_ascii_digit()))
        && ms.parse::<u64>().is_ok()
        && seq.parse::<u64>().is_ok()
}

/// The read of the newest `count` entries (1..=[`MAX_COUNT`]), or those
/// older than the entry `before`: `XREVRANGE key (before - COUNT count`,
/// O(log N + count).
pub fn reading(campaign: &redvote::Campaign, count: u32, before: Option<&str>) -> redis::Cmd {
    let mut cmd = redis::cmd("XREVRANGE");
    cmd.arg(key(campaign));
    match before {
        Some(id) => cmd.arg(format!("({id}")),
        None => cmd.arg("+"),
    };
    cmd.arg("-").arg("COUNT").arg(count);
    cmd
}

fn text(v: &redis::Value) -> Option<String> {
    match v {
        redis::Value::BulkString(b) => String::from_utf8(b.clone()).ok(),
        redis::Value::SimpleString(s) => Some(s.clone()),
        _ => None,
    }
}

/// The entries of an [`reading`]'s reply, newest first.
pub fn entries(reply: redis::Value) -> Result<Vec<AuditEntry>, String> {
    let redis::Value::Array(items) = reply else {
        return match reply {
            redis::Value::Nil => Ok(Vec::new()),
            redis::Value::ServerError(e) => Err(format!("XREVRANGE was refused: {e}")),
            _ => Err("XREVRANGE answered an unexpected shape".into()),
        };
    };
    items
        .into_iter()
        .map(|item| {
            let redis::Value::Array(pair) = item else {
                return Err("an entry of an unexpected shape".to_string());
            };
            let id = pair.first().and_then(text).ok_or("an entry without id")?;
            let fields: Vec<(String, String)> = match pair.get(1) {
                Some(redis::Value::Array(f)) => f
                    .chunks(2)
                    .filter_map(|c| Some((text(c.first()?)?, text(c.get(1)?)?)))
                    .collect(),
                Some(redis::Value::Map(m)) => m
                    .iter()
                    .filter_map(|(a, b)| Some((text(a)?, text(b)?)))
                    .collect(),
                _ => return Err("an entry without fields".to_string()),
            };
            let get = |name: &str| {
                fields
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v.as_str())
            };
            let json = |name: &str| {
                get(name).map_or(Value::Null, |t| {
                    serde_json::from_str(t).unwrap_or_else(|_| Value::String(t.to_string()))
                })
            };
            Ok(AuditEntry {
                who: get("who").unwrap_or("").to_string(),
                when: get("when").and_then(|w| w.parse().ok()).unwrap_or(0),
                action: get("action").unwrap_or("").to_string(),
                what: json("what"),
                before: json("before"),
                after: json("after"),
                id,
            })
        })
        .collect()
}

/// Read the newest `count` entries of `campaign`, or those older than
/// `before` (sync: the CLI).
pub fn read(
    con: &mut dyn redis::ConnectionLike,
    campaign: &redvote::Campaign,
    count: u32,
    before: Option<&str>,
) -> anyhow::Result<Vec<AuditEntry>> {
    let reply = con.req_command(&reading(campaign, count, before))?;
    entries(reply).map_err(anyhow::Error::msg)
}

#[cfg(test)]
mod tests {
    use super::valid_id;

    #[test]
    fn entry_ids() {
        assert!(valid_id("1700000000000-0"));
        for bad in [
            "",
            "-",
            "1-",
            "-1",
            "1",
            "a-1",
            "1-1-1",
            "+",
            "99999999999999999999-0",
        ] {
            assert!(!valid_id(bad), "{bad}");
        }
    }
}

/// Record `change` of `campaign` for the service, after the change
/// succeeded: a failure is logged (error level) and the request still
/// answers the change's outcome, which stands. Sent once (an `XADD`
/// resent after an unknown outcome could write the entry twice).
pub(crate) async fn note(state: &AppState, campaign: &redvote::Campaign, change: Change<'_>) {
    let result = state
        .with_redis("audit_write", false, |mut con| {
            let change = change.clone();
            let campaign = campaign.clone();
            async move { Ok(record_async(&mut con, &campaign, &change).await?) }
        })
        .await;
    if let Err(err) = result {
        tracing::error!(campaign = %campaign.namespace(), action = change.action.as_str(), who = change.who, error = %err, "the audit entry of an applied change was not written");
    }
}

/// Which entries to read.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct AuditQuery {
    /// Entries to answer, newest first (1..100, default 20).
    #[serde(default = "twenty")]
    #[param(minimum = 1, maximum = 100, default = 20)]
    pub count: u32,
    /// Answer entries older than this entry id (a previous page's last
    /// `id`); absent: the newest.
    pub before: Option<String>,
}

fn twenty() -> u32 {
    20
}

/// A page of the audit log, newest first.
#[derive(Serialize, ToSchema)]
pub struct AuditPage {
    /// The entries, newest first.
    pub entries: Vec<AuditEntry>,
    /// The `before` of the next page; null when this page is the last.
    pub next: Option<String>,
}

/// Admin: the campaign's audit log, newest first: who changed what and
/// when, with the state before and after (configure: the stored
/// settings). About the last 1000 changes are kept. O(log N + count).
#[utoipa::path(
    get,
    path = "/v1/campaigns/{campaign}/audit",
    operation_id = "campaign_audit",
    tag = "campaign",
    params(("campaign" = String, Path, description = "Campaign name (the board name rule)"), AuditQuery),
    responses(
        (status = 200, description = "A page of entries (empty: no change recorded)", body = AuditPage),
        (status = 422, description = "A malformed campaign name or before id, or a count out of range"),
    ),
    security(("admin_token" = []))
)]
pub(crate) async fn audit(
    _: Admin,
    State(state): State<AppState>,
    Path(name): Path<String>,
    Query(q): Query<AuditQuery>,
) -> Result<Json<AuditPage>, Problem> {
    let c = super::campaign::campaign(&name)?;
    if !(1..=MAX_COUNT).contains(&q.count) {
        return Err(Problem::invalid(redvote::Code::Usage, "count: 1..100"));
    }
    if let Some(before) = &q.before {
        if !valid_id(before) {
            return Err(Problem::invalid(
                redvote::Code::Usage,
                "before: an entry id (MS-SEQ) of a previous page",
            ));
        }
    }
    let count = q.count;
    // nothing is older than 0-0 (and XREVRANGE refuses "(0-0")
    if q.before
        .as_deref()
        .is_some_and(|b| b.split('-').all(|p| p.bytes().all(|d| d == b'0')))
    {
        return Ok(Json(AuditPage {
            entries: Vec::new(),
            next: None,
        }));
    }
    let cmd = reading(&c, count, q.before.as_deref());
    let reply = state
        .with_redis("audit_read", true, |mut con| {
            let cmd = cmd.clone();
            async move { Ok(cmd.query_async::<redis::Value>(&mut con).await?) }
        })
        .await?;
    let entries = entries(reply).map_err(|e| Problem::from(redvote::Error::Config(e)))?;
    let next = (entries.len() == count as usize)
        .then(|| entries.last().map(|e| e.id.clone()))
        .flatten();
    Ok(Json(AuditPage { entries, next }))
}
