//! The request extractors the handlers use: axum's `Json`, `Query` and
//! `Path`, whose refusals become [`Problem`]s (400 for what serde cannot
//! read, 413 and 415 as axum decides), and the `Idempotency-Key` header.
//!
//! A JSON number with a zero fraction (`58.0`, `1e3`) is read as the
//! integer it is wherever an integer belongs (JSON Schema's `integer`
//! includes it); one with a fraction (`58.5`) there is 422
//! `REDVOTE_INVALID_NUMBER` naming the field. Query structs deny unknown
//! parameters (`#[serde(deny_unknown_fields)]`): 400 naming the parameter.
//!
//! Every request body of the API is a JSON object, and `Json` takes
//! nothing else: serde's derived structs also read a JSON array as their
//! fields in order (`[]` filled every field with its default and `PUT
//! settings` with `[null, null]` answered 200, schemathesis found), which
//! the OpenAPI document does not allow.

use axum::body::Bytes;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use serde::de::DeserializeOwned;

use super::problem::{codes, Problem};

/// A JSON body (`Content-Type: application/json`).
pub struct Json<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Json<T> {
    type Rejection = Problem;

    async fn from_request(req: Request, state: &S) -> Result<Self, Problem> {
        let bytes = body(req, state).await?;
        parse(&bytes).map(Json)
    }
}

/// A JSON body as [`Json`] reads it, or `T::default()` when the request
/// has no body at all (no `Content-Type`, nothing sent) or the body is
/// JSON `null` (what the OpenAPI document's optional body allows): the
/// routes whose every field has a default (`POST .../fold`).
pub struct OptionalJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Default> FromRequest<S> for OptionalJson<T> {
    type Rejection = Problem;

    async fn from_request(req: Request, state: &S) -> Result<Self, Problem> {
        if req.headers().get(header::CONTENT_TYPE).is_none() {
            let bytes = Bytes::from_request(req, state)
                .await
                .map_err(|r| Problem::bad_request(r.body_text()))?;
            if bytes.is_empty() {
                return Ok(OptionalJson(T::default()));
            }
            return Err(Problem::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                codes::UNSUPPORTED_MEDIA_TYPE,
                "Expected request with `Content-Type: application/json`",
            ));
        }
        let bytes = body(req, state).await?;
        if bytes.trim_ascii() == b"null" {
            return Ok(OptionalJson(T::default()));
        }
        parse(&bytes).map(OptionalJson)
    }
}

/// A JSON body as [`Json`] reads it, and the names of its top-level
/// members that are `null` (which serde reads as absent): the settings
/// PUT tells "leave the start as it is" (absent) from "no start" (null).
pub struct JsonNulls<T>(pub T, pub Vec<String>);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonNulls<T> {
    type Rejection = Problem;

    async fn from_request(req: Request, state: &S) -> Result<Self, Problem> {
        let bytes = body(req, state).await?;
        let value: T = parse(&bytes)?;
        let nulls = match serde_json::from_slice::<serde_json::Value>(&bytes) {
            Ok(serde_json::Value::Object(map)) => map
                .into_iter()
                .filter(|(_, v)| v.is_null())
                .map(|(k, _)| k)
                .collect(),
            _ => Vec::new(),
        };
        Ok(JsonNulls(value, nulls))
    }
}

/// The body's bytes: `application/json`, within the body limit, not an
/// array.
async fn body<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, Problem> {
    if !json_content_type(&req) {
        return Err(Problem::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            codes::UNSUPPORTED_MEDIA_TYPE,
            "Expected request with `Content-Type: application/json`",
        ));
    }
    let bytes = Bytes::from_request(req, state).await.map_err(|r| {
        let detail = r.body_text();
        match r.status() {
            StatusCode::PAYLOAD_TOO_LARGE => {
                Problem::new(StatusCode::PAYLOAD_TOO_LARGE, codes::TOO_LARGE, detail)
            }
            _ => Problem::bad_request(detail),
        }
    })?;
    // an object, not an array read as the fields in order: checked on
    // the first byte, then one parse (its errors name the field path)
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        return Err(Problem::bad_request("the body must be a JSON object"));
    }
    Ok(bytes)
}

/// The body read as `T` (its errors as problems naming the field).
fn parse<T: DeserializeOwned>(bytes: &Bytes) -> Result<T, Problem> {
    match axum::Json::<T>::from_bytes(bytes) {
        Ok(axum::Json(value)) => Ok(value),
        Err(rejection) if float_for_integer(&rejection.body_text()).is_some() => {
            // JSON Schema's integers include 58.0: read every number
            // with a zero fraction as the integer, then once more
            let mut value: serde_json::Value =
                serde_json::from_slice(bytes).map_err(|_| json_problem(rejection))?;
            integers(&mut value);
            let bytes =
                serde_json::to_vec(&value).map_err(|e| Problem::bad_request(e.to_string()))?;
            axum::Json::<T>::from_bytes(&bytes)
                .map(|axum::Json(value)| value)
                .map_err(json_problem)
        }
        Err(rejection) => Err(json_problem(rejection)),
    }
}

/// Every number with a zero fraction in `value` (`58.0`, `1e3`) as the
/// integer it is, when it fits an `i64` or `u64`.
fn integers(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.is_finite() && f.fract() == 0.0 {
                if (0.0..18_446_744_073_709_551_616.0).contains(&f) {
                    *value = Value::from(f as u64);
                } else if (-9_223_372_036_854_775_808.0..0.0).contains(&f) {
                    *value = Value::from(f as i64);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integers),
        Value::Object(map) => map.values_mut().for_each(integers),
        _ => {}
    }
}

/// When serde's `detail` says a field wants an integer and got a number
/// with a fraction: the field's path (`cost`, `votes[0].x`, or `.` for
/// the body) and the number.
fn float_for_integer(detail: &str) -> Option<(String, String)> {
    let at = detail.find("invalid type: floating point `")?;
    let rest = &detail[at + "invalid type: floating point `".len()..];
    let (number, rest) = rest.split_once('`')?;
    let wanted = rest.strip_prefix(", expected ")?;
    let integer = [
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
    ]
    .iter()
    .any(|t| {
        wanted.starts_with(t) && !wanted[t.len()..].starts_with(|c: char| c.is_alphanumeric())
    });
    if !integer {
        return None;
    }
    // axum: "Failed to deserialize the JSON body into the target type: PATH: invalid type..."
    let before = detail[..at].trim_end().trim_end_matches(':');
    let path = before.rsplit_once(": ").map_or(".", |(_, p)| p).trim();
    let path = if path.is_empty() || path.contains(' ') {
        "."
    } else {
        path
    };
    Some((path.to_string(), number.to_string()))
}

/// `application/json` or `application/*+json` (as axum's `Json` takes).
fn json_content_type(req: &Request) -> bool {
    let Some(value) = req.headers().get(header::CONTENT_TYPE) else {
        return false;
    };
    let Ok(value) = value.to_str() else {
        return false;
    };
    let mime = value
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"))
}

fn json_problem(rejection: JsonRejection) -> Problem {
    let detail = rejection.body_text();
    match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => {
            Problem::new(StatusCode::PAYLOAD_TOO_LARGE, codes::TOO_LARGE, detail)
        }
        StatusCode::UNSUPPORTED_MEDIA_TYPE => Problem::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            codes::UNSUPPORTED_MEDIA_TYPE,
            detail,
        ),
        // a number with a fraction where an integer belongs: a value out
        // of its range (58.5 for a count), as a script refuses one
        _ if float_for_integer(&detail).is_some() => {
            let (path, number) = float_for_integer(&detail).unwrap_or_default();
            Problem::invalid(
                redvote::Code::InvalidNumber,
                format!("{path} must be an integer, got {number}"),
            )
        }
        // syntax errors and data errors (a missing field, a wrong type, an
        // unknown field) alike: the body is not what the schema says
        _ => Problem::bad_request(detail),
    }
}

/// Query parameters.
pub struct Query<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for Query<T> {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Problem> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|q| Query(q.0))
            .map_err(|r: QueryRejection| Problem::bad_request(r.body_text()))
    }
}

/// No query parameters: a route that takes none refuses any (400 naming
/// the first), as a query struct refuses a parameter it does not know.
pub struct NoQuery;

impl<S: Send + Sync> FromRequestParts<S> for NoQuery {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Problem> {
        let query = parts.uri.query().unwrap_or("");
        match query.split('&').find(|p| !p.is_empty()) {
            None => Ok(NoQuery),
            Some(pair) => {
                let name = pair.split('=').next().unwrap_or(pair);
                let name: String = name.chars().take(80).collect();
                Err(Problem::bad_request(format!(
                    "unknown query parameter `{name}`: this route takes none"
                )))
            }
        }
    }
}

/// Path parameters.
pub struct Path<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for Path<T> {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Problem> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|p| Path(p.0))
            .map_err(|r: PathRejection| Problem::bad_request(r.body_text()))
    }
}

/// The `Idempotency-Key` header, when given: a campaign vote's vote id.
pub struct IdempotencyKey(pub Option<String>);

/// The header's name.
pub const IDEMPOTENCY_KEY: &str = "idempotency-key";

impl<S: Send + Sync> FromRequestParts<S> for IdempotencyKey {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Problem> {
        let mut values = parts.headers.get_all(IDEMPOTENCY_KEY).iter();
        let Some(value) = values.next() else {
            return Ok(IdempotencyKey(None));
        };
        if values.next().is_some() {
            return Err(Problem::bad_request("Idempotency-Key is given twice"));
        }
        let key = value
            .to_str()
            .map_err(|_| Problem::bad_request("Idempotency-Key must be visible ASCII"))?;
        if key.is_empty() {
            // the scripts read "" as "no vote id": refuse it rather than
            // count a vote its sender believes idempotent
            return Err(Problem::invalid(
                redvote::Code::InvalidVoteId,
                "Idempotency-Key must not be empty (1..128 bytes)",
            ));
        }
        Ok(IdempotencyKey(Some(key.to_string())))
    }
}

impl<T: serde::Serialize> axum::response::IntoResponse for Json<T> {
    fn into_response(self) -> axum::response::Response {
        axum::Json(self.0).into_response()
    }
}
