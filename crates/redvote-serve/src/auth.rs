//! Bearer tokens: the admin token (configure, import, reset limits,
//! reindex, rerank, site settings) and the optional API token (every other
//! `/v1` route), as extractors a handler takes.
//!
//! A token is kept as its SHA-256 digest and a presented token is hashed
//! and compared with `subtle`'s constant-time equality, so neither the
//! comparison's time nor the token's length tells an attacker anything.
//! Without an admin token the admin routes answer 403
//! `REDVOTE_ADMIN_DISABLED` to everyone: they are never open by default.
//! Without an API token the other routes are open (the service sits behind
//! the business backends, which say who the user is).

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

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

/// Proof that the request carries the admin token.
pub struct Admin;

impl FromRequestParts<AppState> for Admin {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Problem> {
        let Some(token) = &state.tokens.admin else {
            return Err(Problem::new(
                StatusCode::FORBIDDEN,
                codes::ADMIN_DISABLED,
                "admin routes are off: the service was started without --admin-token",
            ));
        };
        match bearer(parts) {
            Some(given) if token.matches(given) => Ok(Admin),
            Some(_) => Err(unauthorized("not the admin token")),
            None => Err(unauthorized("this route needs the admin token")),
        }
    }
}

/// Proof that the request may use the API: the API token when one is set
/// (the admin token is accepted too), anything otherwise.
pub struct Api;

impl FromRequestParts<AppState> for Api {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Problem> {
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

#[cfg(test)]
mod tests {
    use super::Token;

    #[test]
    fn tokens_match_exactly() {
        let t = Token::new("s3cret");
        assert!(t.matches("s3cret"));
        assert!(!t.matches("s3cre") && !t.matches("s3cret ") && !t.matches(""));
    }
}
