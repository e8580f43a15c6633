//! `GET /openapi.json`: the OpenAPI 3.1 document, generated from the code.
//!
//! Each handler's `#[utoipa::path]` states its route, parameters, body,
//! success response and the error statuses particular to it; the request
//! and response types derive `ToSchema` (the library's own with its
//! `openapi` feature). [`finish`] then applies the rules every route
//! shares, so that no route can forget them:
//!
//! - every response of status 400 or above has the [`Problem`] body as
//!   `application/problem+json`;
//! - every `/v1` operation may answer 400 (a request serde cannot read),
//!   401 (no or a wrong token), 500 and 503 (Redis unavailable); an admin
//!   operation 403 (admin routes off); one with a body 413 and 415;
//! - the page and batch sizes are the library's caps (`redvote::caps`),
//!   not numbers repeated here.

use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::Operation;
use utoipa::openapi::schema::{Object, Schema, Type};
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::{ContentBuilder, OpenApi, Ref, RefOr, ResponseBuilder};
use utoipa::{Modify, ToSchema};

use super::problem::{Problem, PROBLEM_JSON};

/// The document's fixed parts; the routes add their paths.
#[derive(utoipa::OpenApi)]
#[openapi(
    info(
        title = "redvote",
        description = "Atomic voting and ranking on Redis: the article site and the campaign \
            leaderboards as a JSON API. Errors are RFC 9457 problems carrying a REDVOTE_* code."
    ),
    tags(
        (name = "site", description = "The article site (Redis in Action, chapter 1)"),
        (name = "campaign", description = "Campaign leaderboards (seed 002)"),
        (name = "operations", description = "Health, readiness, metrics and this document"),
    ),
    components(schemas(Problem)),
    modifiers(&Security)
)]
pub struct ApiDoc;

struct Security;

impl Modify for Security {
    fn modify(&self, doc: &mut OpenApi) {
        let components = doc.components.get_or_insert_with(Default::default);
        let bearer = |description: &str| {
            let mut http = Http::new(HttpAuthScheme::Bearer);
            http.description = Some(description.to_string());
            SecurityScheme::Http(http)
        };
        components.add_security_scheme(
            "admin_token",
            bearer("--admin-token / REDVOTE_ADMIN_TOKEN: the admin routes (settings, imports, limit resets, reindex, rerank). Without one they answer 403."),
        );
        components.add_security_scheme(
            "api_token",
            bearer("--api-token / REDVOTE_API_TOKEN: every other /v1 route, when the service has one (the admin token is accepted too)."),
        );
    }
}

/// Apply the rules every route shares (see the module documentation).
pub fn finish(mut doc: OpenApi) -> OpenApi {
    doc.info.version = env!("CARGO_PKG_VERSION").to_string();
    for (path, item) in doc.paths.paths.iter_mut() {
        let v1 = path.starts_with("/v1/");
        for op in [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.patch,
            &mut item.delete,
        ]
        .into_iter()
        .flatten()
        {
            if v1 {
                shared_errors(op);
            }
            caps(op);
            for (status, response) in op.responses.responses.iter_mut() {
                let RefOr::T(response) = response else {
                    continue;
                };
                if status.as_str() >= "400" && response.content.is_empty() {
                    let content = ContentBuilder::new()
                        .schema(Some(Ref::from_schema_name(Problem::name())))
                        .build();
                    response
                        .content
                        .insert(PROBLEM_JSON.to_string(), content.into());
                }
                if status == "401" {
                    response.headers.insert(
                        "www-authenticate".to_string(),
                        HeaderBuilder::new()
                            .schema(Some(Object::with_type(Type::String)))
                            .description(Some("Bearer"))
                            .build()
                            .into(),
                    );
                }
            }
        }
    }
    component_caps(&mut doc);
    doc
}

/// The error statuses every `/v1` operation may answer, unless it states
/// them itself.
fn shared_errors(op: &mut Operation) {
    let admin = op
        .security
        .iter()
        .flatten()
        .any(|s| serde_json::to_string(s).is_ok_and(|j| j.contains("admin_token")));
    let body = op.request_body.is_some();
    let mut add = vec![
        ("400", "A request serde cannot read: malformed JSON, a missing or mistyped parameter (REDVOTE_BAD_REQUEST)"),
        ("401", "No bearer token, or not the right one (REDVOTE_UNAUTHORIZED)"),
        ("500", "A script failure or a reply the driver does not understand (REDVOTE_INTERNAL)"),
        ("503", "Redis is unavailable (REDVOTE_UNAVAILABLE), or the request timed out (REDVOTE_TIMEOUT)"),
    ];
    if admin {
        add.push((
            "403",
            "Admin routes are off: no --admin-token (REDVOTE_ADMIN_DISABLED)",
        ));
    }
    if body {
        add.push(("413", "The body is over the size limit (REDVOTE_TOO_LARGE)"));
        add.push((
            "415",
            "The body is not application/json (REDVOTE_UNSUPPORTED_MEDIA_TYPE)",
        ));
    }
    for (status, description) in add {
        op.responses
            .responses
            .entry(status.to_string())
            .or_insert_with(|| {
                ResponseBuilder::new()
                    .description(description)
                    .build()
                    .into()
            });
    }
}

/// The largest value the scripts accept for a query parameter of this name.
fn cap(name: &str) -> Option<f64> {
    use redvote::caps;
    match name {
        "per_page" => Some(caps::PER_PAGE.into()),
        "page" => Some(caps::PAGE.into()),
        "window" => Some(caps::AROUND_WINDOW.into()),
        _ => None,
    }
}

fn caps(op: &mut Operation) {
    for param in op.parameters.iter_mut().flatten() {
        let RefOr::T(param) = param else {
            continue;
        };
        let Some(max) = cap(&param.name) else {
            continue;
        };
        if let Some(RefOr::T(Schema::Object(o))) = &mut param.schema {
            o.maximum = Some(max.into());
        }
    }
}

/// Caps on the body schemas: a vote's cost and pairs.
fn component_caps(doc: &mut OpenApi) {
    use redvote::caps;
    let Some(components) = doc.components.as_mut() else {
        return;
    };
    if let Some(RefOr::T(Schema::Object(vote))) = components.schemas.get_mut("CampaignVote") {
        if let Some(RefOr::T(Schema::Object(cost))) = vote.properties.get_mut("cost") {
            cost.maximum = Some(f64::from(caps::VOTE_COST).into());
        }
        if let Some(RefOr::T(Schema::Array(votes))) = vote.properties.get_mut("votes") {
            votes.min_items = Some(1);
            votes.max_items = Some(caps::VOTE_PAIRS);
        }
    }
}

#[cfg(test)]
mod tests {
    /// The document is complete: every error response has a problem body.
    #[test]
    fn every_error_response_is_a_problem() {
        let doc = super::super::openapi_document();
        let json = serde_json::to_value(&doc).unwrap();
        assert!(json["openapi"].as_str().unwrap().starts_with("3.1"));
        let paths = json["paths"].as_object().unwrap();
        assert!(paths.len() >= 20, "{:?}", paths.keys());
        for (path, item) in paths {
            for (method, op) in item.as_object().unwrap() {
                for (status, response) in op["responses"].as_object().unwrap() {
                    if status.as_str() >= "400" {
                        assert!(
                            response["content"][super::PROBLEM_JSON].is_object(),
                            "{method} {path} {status} has no problem body"
                        );
                    }
                }
            }
        }
    }
}
