//! Bearer tokens: the admin token (configure, import, reset limits,
//! reindex, rerank, site settings, key management) and the optional API
//! token (every other `/v1` route), the operator's; and the team keys
//! (`rvk_...`, docs/teams.md), scoped to campaigns and a role: as
//! extractors a handler takes ([`Admin`], [`Api`], [`Operator`], and
//! [`Reader`] for the live-top ticket and [`Lister`] for the campaign
//! list, which every role may use on its own campaigns). An
//! extractor runs before the handler reads its body: a refusal writes
//! nothing.
//!
//! A token is kept as its SHA-256 digest and a presented token is hashed
//! and compared with `subtle`'s constant-time equality, so neither the
//! comparison's time nor the token's length tells an attacker anything.
//! Without an admin token the admin routes answer 403
//! `REDVOTE_ADMIN_DISABLED` to everyone: they are never open by default.
//! Without an API token the other routes are open (the service sits behind
//! the business backends, which say who the user is).
//!
//! A stream ticket ([`Ticket`]) opens one board's live top
//! (`.../top/stream?ticket=`) for [`TICKET_SECONDS`] without putting a
//! token in a URL: `expiry.mac`, where `mac` is HMAC-SHA-256 over the
//! campaign, the board and the expiry, keyed with a key derived from the
//! admin token. Nothing is stored: a ticket is checked by recomputing its
//! mac, so every instance started with the same admin token accepts the
//! tickets of the others (behind a load balancer), and changing the admin
//! token voids them all.

use axum::extract::{FromRequestParts, RawPathParams};
use axum::http::request::Parts;
use axum::http::{header, Method, StatusCode};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::keys::{self, Role};
use super::problem::{codes, Problem};
use super::AppState;

/// A configured token, as its digest.
#[derive(Clone)]
pub struct Token([u8; 32]);

impl Token {
    /// The token `secret` (non-empty: checked by the command line).
    pub fn new(secret: &str) -> Self {
        Token(Sha256::digest(secret.as_bytes()).into())
    }

    /// The key of the stream tickets: derived from the token (its digest
    /// under a label of its own), never the digest itself.
    fn ticket_key(&self) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(b"redvote stream ticket key v1\0");
        h.update(self.0);
        h.finalize().into()
    }

    /// Whether `presented` is this token, in constant time.
    pub(super) fn matches(&self, presented: &str) -> bool {
        let digest: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        digest.ct_eq(&self.0).into()
    }
}

/// The tokens the service was started with.
#[derive(Clone, Default)]
pub struct Tokens {
    /// Required by the admin routes; `None`: admin routes are off.
    pub admin: Option<Token>,
    /// Required by every other `/v1` route when set.
    pub api: Option<Token>,
}

/// The bearer token of a request, if it has one.
fn bearer(parts: &Parts) -> Option<&str> {
    let value = parts.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

fn unauthorized(what: &str) -> Problem {
    Problem::new(
        StatusCode::UNAUTHORIZED,
        codes::UNAUTHORIZED,
        format!("{what}: send Authorization: Bearer <token>"),
    )
}

/// Proof that the request may administer what it addresses: the admin
/// token (`who` is `operator`), or a team key of role admin whose pattern
/// matches the route's campaign (`who` is the key's name).
pub struct Admin {
    /// Who asks, for the audit log.
    pub who: String,
}

/// The route's `{campaign}`, if it has one.
async fn route_campaign(parts: &mut Parts, state: &AppState) -> Option<String> {
    let params = RawPathParams::from_request_parts(parts, state).await.ok()?;
    params
        .iter()
        .find(|(name, _)| *name == "campaign")
        .map(|(_, value)| value.to_string())
}

/// The team key whose token `given` is (a [`keys::PREFIX`] token), checked
/// against the route's campaign and the role `need`: its name, 401 when
/// no key has this token (unknown or revoked: the lookup is made on every
/// request, nothing is cached), 403 outside its pattern or role.
async fn team_key(
    parts: &mut Parts,
    state: &AppState,
    given: &str,
    need: Role,
) -> Result<String, Problem> {
    let key = lookup(state, given).await?;
    let forbidden = |detail: String| Problem::new(StatusCode::FORBIDDEN, codes::FORBIDDEN, detail);
    let Some(campaign) = route_campaign(parts, state).await else {
        return Err(forbidden(format!(
            "key {:?} ({} on campaigns {}) may only use campaign routes and the campaign list: site routes and key management take the operator's tokens",
            key.name,
            key.role.as_str(),
            key.pattern
        )));
    };
    if !keys::pattern_matches(&key.pattern, &campaign) {
        return Err(forbidden(format!(
            "key {:?} may only touch campaigns matching {}, not {:?}",
            key.name,
            key.pattern,
            super::site::clip(&campaign)
        )));
    }
    if key.role < need {
        return Err(forbidden(format!(
            "key {:?} may only {} on campaigns matching {}: this route needs the {} role",
            key.name,
            key.role.may(),
            key.pattern,
            need.as_str()
        )));
    }
    Ok(key.name)
}

/// The team key whose token `given` is: 401 when no key has this token
/// (unknown or revoked: the lookup is made on every request, nothing is
/// cached).
async fn lookup(state: &AppState, given: &str) -> Result<keys::KeyInfo, Problem> {
    let token = given.to_string();
    let found = state
        .with_redis("key_lookup", true, |mut con| {
            let token = token.clone();
            async move {
                keys::lookup_async(&mut con, &token)
                    .await
                    .map_err(|e| match e {
                        keys::KeyError::Redis(e) => e,
                        other => redvote::Error::Config(other.to_string()),
                    })
            }
        })
        .await?;
    let Some((key, _)) = found else {
        return Err(unauthorized("an unknown or revoked team key"));
    };
    Ok(key)
}

/// Whether `given` is a team key's token (by its prefix: no operator
/// token is looked up in Redis).
fn is_team(given: &str) -> bool {
    given.starts_with(keys::PREFIX)
}

impl FromRequestParts<AppState> for Admin {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Problem> {
        if let Some(given) = bearer(parts).filter(|g| is_team(g)) {
            let given = given.to_string();
            let who = team_key(parts, state, &given, Role::Admin).await?;
            return Ok(Admin { who });
        }
        let Some(token) = &state.tokens.admin else {
            return Err(Problem::new(
                StatusCode::FORBIDDEN,
                codes::ADMIN_DISABLED,
                "admin routes are off: the service was started without --admin-token",
            ));
        };
        match bearer(parts) {
            Some(given) if token.matches(given) => Ok(Admin {
                who: keys::OPERATOR.to_string(),
            }),
            Some(_) => Err(unauthorized("not the admin token")),
            None => Err(unauthorized("this route needs the admin token")),
        }
    }
}

/// Proof that the request may use the API: the API token when one is set
/// (the admin token is accepted too), anything otherwise; a team key
/// whose pattern matches the route's campaign, of role read for a GET and
/// vote for a write.
pub struct Api;

impl FromRequestParts<AppState> for Api {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Problem> {
        if let Some(given) = bearer(parts).filter(|g| is_team(g)) {
            let given = given.to_string();
            let need = if parts.method == Method::GET || parts.method == Method::HEAD {
                Role::Read
            } else {
                Role::Vote
            };
            team_key(parts, state, &given, need).await?;
            return Ok(Api);
        }
        let Some(token) = &state.tokens.api else {
            return Ok(Api);
        };
        let admin = state.tokens.admin.as_ref();
        match bearer(parts) {
            Some(given) if token.matches(given) || admin.is_some_and(|a| a.matches(given)) => {
                Ok(Api)
            }
            Some(_) => Err(unauthorized("not the API token")),
            None => Err(unauthorized("this service needs the API token")),
        }
    }
}

/// Proof that the request may read a campaign's live top through a
/// stream ticket (`POST .../top/ticket`): the admin token, or a team key
/// of any role (read is enough: the stream is a read) whose pattern
/// matches the route's campaign.
pub struct Reader;

impl FromRequestParts<AppState> for Reader {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Problem> {
        if let Some(given) = bearer(parts).filter(|g| is_team(g)) {
            let given = given.to_string();
            team_key(parts, state, &given, Role::Read).await?;
            return Ok(Reader);
        }
        Admin::from_request_parts(parts, state)
            .await
            .map(|_| Reader)
    }
}

/// Who lists the campaigns (`GET /v1/campaigns`): the operator (the admin
/// token: every campaign), or a team key of any role, which sees only the
/// campaigns its pattern matches.
pub enum Lister {
    /// The admin token.
    Operator,
    /// A team key: its pattern.
    Team(String),
}

impl FromRequestParts<AppState> for Lister {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Problem> {
        if let Some(given) = bearer(parts).filter(|g| is_team(g)) {
            let key = lookup(state, given).await?;
            return Ok(Lister::Team(key.pattern));
        }
        Admin::from_request_parts(parts, state)
            .await
            .map(|_| Lister::Operator)
    }
}

/// Proof that the request carries the operator's admin token itself: key
/// management. A team key, whatever its role, is 403.
pub struct Operator;

impl FromRequestParts<AppState> for Operator {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Problem> {
        if let Some(given) = bearer(parts).filter(|g| is_team(g)) {
            // 401 when unknown; a known key, whatever its role, is 403
            let key = lookup(state, given).await?;
            return Err(Problem::new(
                StatusCode::FORBIDDEN,
                codes::FORBIDDEN,
                format!(
                    "key {:?} ({} on campaigns {}) may not manage keys: key management takes the operator's admin token",
                    key.name,
                    key.role.as_str(),
                    key.pattern
                ),
            ));
        }
        Admin::from_request_parts(parts, state)
            .await
            .map(|_| Operator)
    }
}

/// How long a stream ticket opens its board's stream, in seconds.
pub const TICKET_SECONDS: u64 = 60;

/// Stream tickets: minted and checked with the admin token's ticket key.
pub(super) struct Ticket;

/// HMAC-SHA-256 (RFC 2104) of `parts`, each prefixed with its length so
/// that no two different lists hash alike.
fn hmac(key: &[u8; 32], parts: &[&[u8]]) -> [u8; 32] {
    let mut block = [0u8; 64];
    block[..32].copy_from_slice(key);
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let mut inner = Sha256::new();
    inner.update(pad(0x36));
    for p in parts {
        inner.update((p.len() as u64).to_be_bytes());
        inner.update(p);
    }
    let inner: [u8; 32] = inner.finalize().into();
    let mut outer = Sha256::new();
    outer.update(pad(0x5c));
    outer.update(inner);
    outer.finalize().into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Ticket {
    /// A ticket for `campaign`/`board` that expires at `expiry` (Unix
    /// seconds).
    pub(super) fn mint(admin: &Token, campaign: &str, board: &str, expiry: u64) -> String {
        let mac = hmac(
            &admin.ticket_key(),
            &[campaign.as_bytes(), board.as_bytes(), &expiry.to_be_bytes()],
        );
        format!("{expiry}.{}", hex(&mac))
    }

    /// Whether `ticket` was minted for `campaign`/`board` with this admin
    /// token and is still valid at `now` (Unix seconds); the mac is
    /// compared in constant time.
    pub(super) fn check(
        admin: &Token,
        ticket: &str,
        campaign: &str,
        board: &str,
        now: u64,
    ) -> bool {
        let Some((expiry, _)) = ticket.split_once('.') else {
            return false;
        };
        let Ok(expiry) = expiry.parse::<u64>() else {
            return false;
        };
        // expired, or from further ahead than a ticket can be
        if expiry < now || expiry > now.saturating_add(TICKET_SECONDS + 5) {
            return false;
        }
        let want = Ticket::mint(admin, campaign, board, expiry);
        want.len() == ticket.len() && bool::from(want.as_bytes().ct_eq(ticket.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::{Ticket, Token, TICKET_SECONDS};

    #[test]
    fn tickets_open_their_board_until_they_expire() {
        let admin = Token::new("adm");
        let t = Ticket::mint(&admin, "spring", "stars", 1000 + TICKET_SECONDS);
        assert!(Ticket::check(&admin, &t, "spring", "stars", 1000));
        assert!(Ticket::check(
            &admin,
            &t,
            "spring",
            "stars",
            1000 + TICKET_SECONDS
        ));
        assert!(!Ticket::check(
            &admin,
            &t,
            "spring",
            "stars",
            1001 + TICKET_SECONDS
        ));
        assert!(!Ticket::check(&admin, &t, "spring", "other", 1000));
        assert!(!Ticket::check(&admin, &t, "sprin", "gstars", 1000));
        assert!(!Ticket::check(
            &Token::new("adm2"),
            &t,
            "spring",
            "stars",
            1000
        ));
        let (_, mac) = t.split_once('.').unwrap();
        let later = format!("{}.{mac}", 1001 + TICKET_SECONDS);
        assert!(!Ticket::check(&admin, &later, "spring", "stars", 1000));
        for bad in ["", ".", "x.y", "1060", "1060.", "1060.00"] {
            assert!(
                !Ticket::check(&admin, bad, "spring", "stars", 1000),
                "{bad}"
            );
        }
    }

    #[test]
    fn tokens_match_exactly() {
        let t = Token::new("s3cret");
        assert!(t.matches("s3cret"));
        assert!(!t.matches("s3cre") && !t.matches("s3cret ") && !t.matches(""));
    }
}
