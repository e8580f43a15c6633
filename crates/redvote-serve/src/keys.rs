//! Team keys (docs/teams.md): API keys with a campaign pattern and a role,
//! stored hashed in Redis, managed by the operator (`redvote keys ...`,
//! `GET/POST/DELETE /v1/keys`).
//!
//! Storage, in one hash tag (`{redvote}`, no campaign's):
//! - [`KEYS`] (`{redvote}:keys`), a hash: key name -> JSON
//!   [`KeyRecord`] `{sha256, pattern, role, created}`;
//! - [`TOKENS`] (`{redvote}:keys:tokens`), a hash: the token's SHA-256
//!   (hex) -> key name.
//!
//! Both are written together by one small script (`ADD`, `REVOKE`),
//! so a key is never half added or half revoked; the token itself is never
//! stored. A token is [`PREFIX`] and 32 random bytes in base64url (47
//! characters): the prefix tells a team key from the operator's tokens
//! without a Redis read. At most [`MAX_KEYS`] keys, so that the list is one
//! bounded read.
//!
//! The functions here take a redis-rs connection, sync (the CLI) or async
//! (the service), and send the same scripts: one mechanism for both.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::sync::LazyLock;
use subtle::ConstantTimeEq;
use utoipa::ToSchema;

/// Key name -> JSON [`KeyRecord`].
pub const KEYS: &str = "{redvote}:keys";
/// Token SHA-256 (hex) -> key name.
pub const TOKENS: &str = "{redvote}:keys:tokens";
/// What every team token starts with.
pub const PREFIX: &str = "rvk_";
/// The most keys there may be.
pub const MAX_KEYS: u64 = 1000;
/// The name the audit log gives the operator's admin token.
pub const OPERATOR: &str = "operator";

/// What a key may do on the campaigns its pattern matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The GET routes of a campaign (top, standing, around, participants,
    /// limits peeks).
    Read,
    /// Read, and vote (`POST .../votes`).
    Vote,
    /// Everything on the campaign: vote, settings, import, limit resets,
    /// reindex, void, the audit log, the admin page's reads and tickets.
    Admin,
}

impl Role {
    /// `read`, `vote` or `admin`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Read => "read",
            Role::Vote => "vote",
            Role::Admin => "admin",
        }
    }

    /// What the role may do, in words (for a 403's detail).
    pub fn may(self) -> &'static str {
        match self {
            Role::Read => "read (GET routes)",
            Role::Vote => "read and vote",
            Role::Admin => "read, vote and administer",
        }
    }
}

impl std::str::FromStr for Role {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "read" => Ok(Role::Read),
            "vote" => Ok(Role::Vote),
            "admin" => Ok(Role::Admin),
            _ => Err(format!("{s:?} is not a role: read, vote or admin")),
        }
    }
}

/// A key as stored (never the token: its SHA-256).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KeyRecord {
    /// SHA-256 of the token, hex.
    pub sha256: String,
    /// Campaign pattern ([`pattern_matches`]).
    pub pattern: String,
    /// Role.
    pub role: Role,
    /// Unix seconds of its creation.
    pub created: u64,
}

/// A key as listed: its name, pattern, role and creation (no token, no
/// hash).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct KeyInfo {
    /// Key name (the board name rule; not `operator`).
    pub name: String,
    /// Campaign pattern: a campaign name where `*` stands for any run of
    /// characters (`*`, `spring-*`, `spring2026`).
    pub pattern: String,
    /// Role.
    pub role: Role,
    /// Unix seconds of its creation.
    pub created: u64,
}

/// A key just made, with its token (shown once).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct NewKey {
    /// The key.
    #[serde(flatten)]
    pub key: KeyInfo,
    /// The bearer token: shown this once, stored only as its SHA-256.
    pub token: String,
}

/// Whether `name` may name a key: the board name rule, not `operator`.
pub fn valid_name(name: &str) -> bool {
    redvote::is_valid_name(name) && name != OPERATOR
}

/// Whether `pattern` is a campaign pattern: 1..64 bytes of the board name
/// rule's characters and `*`.
pub fn valid_pattern(pattern: &str) -> bool {
    !pattern.is_empty() && pattern.len() <= 64 && redvote::is_valid_name(&pattern.replace('*', "x"))
}

/// Whether `pattern` matches the campaign `name` (`*`: any run of
/// characters, the empty one too). O(len(pattern) x len(name)) at worst,
/// both at most 64 bytes.
pub fn pattern_matches(pattern: &str, name: &str) -> bool {
    let (p, n) = (pattern.as_bytes(), name.as_bytes());
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && p[i] == b'*' {
            star = Some((i, j));
            i += 1;
        } else if i < p.len() && p[i] == n[j] {
            i += 1;
            j += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&b| b == b'*')
}

/// SHA-256 of `token`, hex.
pub fn digest(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether two hex digests are equal, in constant time.
pub fn same_digest(a: &str, b: &str) -> bool {
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

/// A new token: [`PREFIX`] and 32 bytes of the OS's random source, in
/// base64url without padding.
pub fn new_token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(format!("{PREFIX}{}", base64url(&bytes)))
}

fn base64url(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..=chunk.len() {
            out.push(A[((n >> (18 - 6 * k)) & 63) as usize] as char);
        }
    }
    out
}

/// Add a key: KEYS[1] = [`KEYS`], KEYS[2] = [`TOKENS`]; ARGV name, sha256,
/// record JSON, [`MAX_KEYS`]. Answers 1 (added), 0 (the name exists) or
/// -1 (full). O(1).
const ADD: &str = r"
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then return -1 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
return 1
";

/// Revoke a key: KEYS as [`ADD`]; ARGV name. Answers the removed record
/// (JSON) or false. O(1).
const REVOKE: &str = r"
local record = redis.call('HGET', KEYS[1], ARGV[1])
if not record then return false end
local sha = cjson.decode(record)['sha256']
redis.call('HDEL', KEYS[1], ARGV[1])
if redis.call('HGET', KEYS[2], sha) == ARGV[1] then redis.call('HDEL', KEYS[2], sha) end
return record
";

/// Look a token up: KEYS as [`ADD`]; ARGV sha256. Answers `{name,
/// record}` or false. O(1), no writes.
const LOOKUP: &str = r"#!lua flags=no-writes
local name = redis.call('HGET', KEYS[2], ARGV[1])
if not name then return false end
local record = redis.call('HGET', KEYS[1], name)
if not record then return false end
return {name, record}
";

/// A store operation's failure.
#[derive(Debug)]
pub enum KeyError {
    /// A key of this name exists.
    Exists,
    /// [`MAX_KEYS`] keys exist.
    Full,
    /// No key of this name.
    Unknown,
    /// A malformed name or pattern.
    Invalid(String),
    /// Redis failed, or answered what no script of ours answers.
    Redis(redvote::Error),
}

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyError::Exists => write!(f, "a key of this name exists: revoke it first"),
            KeyError::Full => write!(f, "there are {MAX_KEYS} keys already: revoke one first"),
            KeyError::Unknown => write!(f, "no key of this name"),
            KeyError::Invalid(detail) => write!(f, "{detail}"),
            KeyError::Redis(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for KeyError {}

impl From<redis::RedisError> for KeyError {
    fn from(e: redis::RedisError) -> Self {
        KeyError::Redis(e.into())
    }
}

fn unexpected(what: &str) -> KeyError {
    KeyError::Redis(redvote::Error::Config(format!(
        "the key store answered an unexpected {what}"
    )))
}

static ADD_SCRIPT: LazyLock<redis::Script> = LazyLock::new(|| redis::Script::new(ADD));
static REVOKE_SCRIPT: LazyLock<redis::Script> = LazyLock::new(|| redis::Script::new(REVOKE));
static LOOKUP_SCRIPT: LazyLock<redis::Script> = LazyLock::new(|| redis::Script::new(LOOKUP));

/// A key [`add`] makes, and the invocation that stores it.
fn adding(
    name: &str,
    pattern: &str,
    role: Role,
    created: u64,
) -> Result<(redis::ScriptInvocation<'static>, NewKey), KeyError> {
    if !valid_name(name) {
        return Err(KeyError::Invalid(format!(
            "key name {name:?}: 1..64 bytes, none of : {{ }} * ? [ ] \\ , spaces or control characters, not {OPERATOR:?}"
        )));
    }
    if !valid_pattern(pattern) {
        return Err(KeyError::Invalid(format!(
            "pattern {pattern:?}: a campaign name where * stands for any characters (*, spring-*, spring2026), 1..64 bytes"
        )));
    }
    let token = new_token()
        .map_err(|e| KeyError::Redis(redvote::Error::Config(format!("no random bytes: {e}"))))?;
    let record = KeyRecord {
        sha256: digest(&token),
        pattern: pattern.to_string(),
        role,
        created,
    };
    let json = serde_json::to_string(&record).expect("a record serializes");
    let mut inv = ADD_SCRIPT.prepare_invoke();
    inv.key(KEYS)
        .key(TOKENS)
        .arg(name)
        .arg(&record.sha256)
        .arg(json)
        .arg(MAX_KEYS);
    let key = NewKey {
        key: KeyInfo {
            name: name.to_string(),
            pattern: pattern.to_string(),
            role,
            created,
        },
        token,
    };
    Ok((inv, key))
}

fn added(reply: redis::Value) -> Result<(), KeyError> {
    match reply {
        redis::Value::Int(1) => Ok(()),
        redis::Value::Int(0) => Err(KeyError::Exists),
        redis::Value::Int(-1) => Err(KeyError::Full),
        _ => Err(unexpected("add reply")),
    }
}

fn revoking(name: &str) -> redis::ScriptInvocation<'static> {
    let mut inv = REVOKE_SCRIPT.prepare_invoke();
    inv.key(KEYS).key(TOKENS).arg(name);
    inv
}

fn bytes(v: &redis::Value) -> Option<&[u8]> {
    match v {
        redis::Value::BulkString(b) => Some(b),
        redis::Value::SimpleString(s) => Some(s.as_bytes()),
        _ => None,
    }
}

fn info(name: &[u8], record: &[u8]) -> Result<(KeyInfo, KeyRecord), KeyError> {
    let name = String::from_utf8(name.to_vec()).map_err(|_| unexpected("key name"))?;
    let record: KeyRecord = serde_json::from_slice(record).map_err(|_| unexpected("key record"))?;
    Ok((
        KeyInfo {
            name,
            pattern: record.pattern.clone(),
            role: record.role,
            created: record.created,
        },
        record,
    ))
}

fn revoked(name: &str, reply: redis::Value) -> Result<KeyInfo, KeyError> {
    match &reply {
        redis::Value::Nil | redis::Value::Boolean(false) => Err(KeyError::Unknown),
        v => {
            let record = bytes(v).ok_or_else(|| unexpected("revoke reply"))?;
            Ok(info(name.as_bytes(), record)?.0)
        }
    }
}

fn listing() -> redis::Cmd {
    let mut cmd = redis::cmd("HGETALL");
    cmd.arg(KEYS);
    cmd
}

fn listed(reply: redis::Value) -> Result<Vec<KeyInfo>, KeyError> {
    let pairs: Vec<(redis::Value, redis::Value)> = match reply {
        redis::Value::Array(items) => {
            let mut it = items.into_iter();
            let mut pairs = Vec::new();
            while let (Some(a), Some(b)) = (it.next(), it.next()) {
                pairs.push((a, b));
            }
            pairs
        }
        redis::Value::Map(pairs) => pairs,
        redis::Value::Nil => Vec::new(),
        _ => return Err(unexpected("list reply")),
    };
    let mut keys = pairs
        .iter()
        .map(|(n, r)| {
            let (n, r) = (
                bytes(n).ok_or_else(|| unexpected("key name"))?,
                bytes(r).ok_or_else(|| unexpected("key record"))?,
            );
            Ok(info(n, r)?.0)
        })
        .collect::<Result<Vec<_>, KeyError>>()?;
    keys.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(keys)
}

fn looking_up(token: &str) -> (redis::ScriptInvocation<'static>, String) {
    let sha = digest(token);
    let mut inv = LOOKUP_SCRIPT.prepare_invoke();
    inv.key(KEYS).key(TOKENS).arg(&sha);
    (inv, sha)
}

fn found(sha: &str, reply: redis::Value) -> Result<Option<(KeyInfo, KeyRecord)>, KeyError> {
    match reply {
        redis::Value::Nil | redis::Value::Boolean(false) => Ok(None),
        redis::Value::Array(items) if items.len() == 2 => {
            let (n, r) = (
                bytes(&items[0]).ok_or_else(|| unexpected("lookup reply"))?,
                bytes(&items[1]).ok_or_else(|| unexpected("lookup reply"))?,
            );
            let (key, record) = info(n, r)?;
            // the hash found the name; the record's digest must be this
            // token's too (compared in constant time)
            Ok(same_digest(&record.sha256, sha).then_some((key, record)))
        }
        _ => Err(unexpected("lookup reply")),
    }
}

/// Add the key `name` (a campaign `pattern`, a `role`, made at `created`,
/// Unix seconds): answers it with its token, which is shown this once.
pub fn add(
    con: &mut dyn redis::ConnectionLike,
    name: &str,
    pattern: &str,
    role: Role,
    created: u64,
) -> Result<NewKey, KeyError> {
    let (inv, key) = adding(name, pattern, role, created)?;
    added(inv.invoke(con)?)?;
    Ok(key)
}

/// [`add`], async.
pub async fn add_async<C: redis::aio::ConnectionLike + Send>(
    con: &mut C,
    name: &str,
    pattern: &str,
    role: Role,
    created: u64,
) -> Result<NewKey, KeyError> {
    let (inv, key) = adding(name, pattern, role, created)?;
    added(inv.invoke_async(con).await?)?;
    Ok(key)
}

/// Every key, by name (at most [`MAX_KEYS`]).
pub fn list(con: &mut dyn redis::ConnectionLike) -> Result<Vec<KeyInfo>, KeyError> {
    listed(con.req_command(&listing())?)
}

/// [`list`], async.
pub async fn list_async<C: redis::aio::ConnectionLike + Send>(
    con: &mut C,
) -> Result<Vec<KeyInfo>, KeyError> {
    listed(listing().query_async(con).await?)
}

/// Revoke the key `name`: answers what it was.
pub fn revoke(con: &mut dyn redis::ConnectionLike, name: &str) -> Result<KeyInfo, KeyError> {
    revoked(name, revoking(name).invoke(con)?)
}

/// [`revoke`], async.
pub async fn revoke_async<C: redis::aio::ConnectionLike + Send>(
    con: &mut C,
    name: &str,
) -> Result<KeyInfo, KeyError> {
    revoked(name, revoking(name).invoke_async(con).await?)
}

/// The key whose token is `token`, if any (one read-only script call,
/// O(1)).
pub async fn lookup_async<C: redis::aio::ConnectionLike + Send>(
    con: &mut C,
    token: &str,
) -> Result<Option<(KeyInfo, KeyRecord)>, KeyError> {
    let (inv, sha) = looking_up(token);
    found(&sha, inv.invoke_async(con).await?)
}

#[cfg(test)]
mod tests {
    use super::{base64url, pattern_matches, valid_pattern};

    #[test]
    fn patterns_match_as_globs() {
        assert!(pattern_matches("*", "spring"));
        assert!(pattern_matches("spring-*", "spring-2026"));
        assert!(pattern_matches("spring-*", "spring-"));
        assert!(!pattern_matches("spring-*", "spring"));
        assert!(!pattern_matches("spring-*", "autumn-2026"));
        assert!(pattern_matches("spring2026", "spring2026"));
        assert!(!pattern_matches("spring2026", "spring20266"));
        assert!(pattern_matches("*-2026", "spring-2026"));
        assert!(pattern_matches("a*b*c", "axxbyyc"));
        assert!(!pattern_matches("a*b*c", "axxbyy"));
        for ok in ["*", "spring-*", "a", "*x*"] {
            assert!(valid_pattern(ok), "{ok}");
        }
        for bad in ["", "a:b", "a b", "a?", "{c}", &"x".repeat(65)] {
            assert!(!valid_pattern(bad), "{bad}");
        }
    }

    #[test]
    fn tokens_are_base64url() {
        assert_eq!(base64url(b"\xfb\xff"), "-_8");
        assert_eq!(base64url(b"foobar"), "Zm9vYmFy");
        let t = super::new_token().unwrap();
        assert!(t.starts_with(super::PREFIX) && t.len() == 4 + 43, "{t}");
    }
}

// ---- the HTTP routes (the operator's admin token only) ----

use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::Operator;
use super::extract::{Json, NoQuery, Path};
use super::problem::{codes, Problem};
use super::AppState;

/// The key management routes.
pub(crate) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_keys, add_key))
        .routes(routes!(revoke_key))
}

impl From<KeyError> for Problem {
    fn from(e: KeyError) -> Self {
        match e {
            KeyError::Exists => {
                Problem::new(StatusCode::CONFLICT, codes::KEY_EXISTS, e.to_string())
            }
            KeyError::Full => {
                Problem::new(StatusCode::CONFLICT, codes::TOO_MANY_KEYS, e.to_string())
            }
            KeyError::Unknown => {
                Problem::new(StatusCode::NOT_FOUND, codes::UNKNOWN_KEY, e.to_string())
            }
            KeyError::Invalid(detail) => Problem::invalid(redvote::Code::InvalidName, detail),
            KeyError::Redis(e) => e.into(),
        }
    }
}

/// Runs `f` on the service's connection through its retry policy
/// (`idempotent`: may be resent after an unknown outcome), with the key
/// store's refusals as they are.
async fn with_store<T, F>(
    state: &AppState,
    idempotent: bool,
    f: impl Fn(redvote::AsyncRedis) -> F,
) -> Result<T, Problem>
where
    F: std::future::Future<Output = Result<T, KeyError>>,
{
    // a refusal (exists, unknown, ...) is carried through the retry policy
    // as Ok(Err(..)): only Redis errors are retried
    let outcome = state
        .with_redis("keys", idempotent, |con| {
            let fut = f(con);
            async move {
                match fut.await {
                    Ok(v) => Ok(Ok(v)),
                    Err(KeyError::Redis(e)) => Err(e),
                    Err(other) => Ok(Err(other)),
                }
            }
        })
        .await?;
    outcome.map_err(Problem::from)
}

/// Every team key.
#[derive(Serialize, ToSchema)]
pub struct KeyList {
    /// The keys, by name (never their tokens).
    pub keys: Vec<KeyInfo>,
}

/// Operator: every team key, by name: its pattern, role and creation
/// (never a token). At most 1000 keys: one bounded read.
#[utoipa::path(
    get,
    path = "/v1/keys",
    operation_id = "keys_list",
    tag = "keys",
    responses((status = 200, description = "The keys", body = KeyList)),
    security(("admin_token" = []))
)]
async fn list_keys(
    _: Operator,
    _: NoQuery,
    State(state): State<AppState>,
) -> Result<Json<KeyList>, Problem> {
    let keys = with_store(
        &state,
        true,
        |mut con| async move { list_async(&mut con).await },
    )
    .await?;
    Ok(Json(KeyList { keys }))
}

/// A key to make.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewKeyRequest {
    /// Key name (the board name rule; not `operator`): what the audit log
    /// records as who.
    pub name: String,
    /// Campaign pattern: a campaign name where `*` stands for any run of
    /// characters (`*`, `spring-*`, `spring2026`).
    pub pattern: String,
    /// read, vote or admin.
    pub role: Role,
}

/// Operator: make a team key; the answer holds its token, shown this once
/// (stored only as its SHA-256).
#[utoipa::path(
    post,
    path = "/v1/keys",
    operation_id = "keys_add",
    tag = "keys",
    request_body = NewKeyRequest,
    responses(
        (status = 201, description = "The key and its token (shown once)", body = NewKey),
        (status = 409, description = "A key of this name exists (REDVOTE_KEY_EXISTS), or 1000 keys do (REDVOTE_TOO_MANY_KEYS)"),
        (status = 422, description = "A malformed name or pattern (REDVOTE_INVALID_NAME)"),
    ),
    security(("admin_token" = []))
)]
async fn add_key(
    _: Operator,
    _: NoQuery,
    State(state): State<AppState>,
    Json(body): Json<NewKeyRequest>,
) -> Result<
    (
        StatusCode,
        [(axum::http::HeaderName, &'static str); 1],
        Json<NewKey>,
    ),
    Problem,
> {
    let created = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (name, pattern, role) = (body.name, body.pattern, body.role);
    // not resent after an unknown outcome: a second send would answer
    // "exists" for a key whose token was lost
    let key = with_store(&state, false, |mut con| {
        let (name, pattern) = (name.clone(), pattern.clone());
        async move { add_async(&mut con, &name, &pattern, role, created).await }
    })
    .await?;
    Ok((
        StatusCode::CREATED,
        [(axum::http::header::CACHE_CONTROL, "no-store")],
        Json(key),
    ))
}

/// Operator: revoke a team key: its token is refused (401) from the next
/// request on. Answers the key revoked.
#[utoipa::path(
    delete,
    path = "/v1/keys/{name}",
    operation_id = "keys_revoke",
    tag = "keys",
    params(("name" = String, Path, description = "Key name")),
    responses(
        (status = 200, description = "The key revoked", body = KeyInfo),
        (status = 404, description = "No key of this name (REDVOTE_UNKNOWN_KEY)"),
        (status = 422, description = "A malformed key name"),
    ),
    security(("admin_token" = []))
)]
async fn revoke_key(
    _: Operator,
    _: NoQuery,
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<KeyInfo>, Problem> {
    if !valid_name(&name) {
        return Err(KeyError::Invalid(format!(
            "key name {:?}: the board name rule",
            super::site::clip(&name)
        ))
        .into());
    }
    let key = with_store(&state, true, |mut con| {
        let name = name.clone();
        async move { revoke_async(&mut con, &name).await }
    })
    .await?;
    Ok(Json(key))
}
