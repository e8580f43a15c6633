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
//!   not numbers repeated here;
//! - every 503 declares its `Retry-After` header;
//! - every path, query and body value the scripts check has the same rule
//!   as JSON Schema ([`constrain`]: names, users, ids, periods, lists,
//!   numbers' ranges), so that what the document calls valid is accepted
//!   and what it calls invalid is refused with a 4xx. Lengths are the
//!   scripts' byte lengths: JSON Schema counts characters, which are
//!   bytes for ASCII; a non-ASCII name's limit is still 64 bytes;
//! - a Server-Sent Event's `data` is text holding JSON
//!   (`contentMediaType` and `contentSchema`), as on the wire.

use serde_json::{json, Value};
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
        (name = "keys", description = "Team keys: API keys scoped to campaigns and a role (the operator's admin token only; docs/teams.md)"),
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
                if status == "503" {
                    response.headers.insert(
                        "retry-after".to_string(),
                        HeaderBuilder::new()
                            .schema(Some(
                                utoipa::openapi::schema::ObjectBuilder::new()
                                    .schema_type(Type::Integer)
                                    .minimum(Some(0)),
                            ))
                            .description(Some(
                                "Seconds to wait before retrying (always sent with a 503)",
                            ))
                            .build()
                            .into(),
                    );
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
    let mut json = serde_json::to_value(&doc).expect("the document serializes");
    constrain(&mut json);
    exactly_one_of(&mut json, "VoidRangeRequest", "user", "channel");
    serde_json::from_value(json).expect("the constrained document reads back")
}

/// The body schema `schema` takes exactly one of the properties `a` and
/// `b` (the other absent or null): `allOf` of the schema and a `oneOf` of
/// the two cases, so that a document-valid body is never the 422 of
/// "neither" or "both".
fn exactly_one_of(doc: &mut Value, schema: &str, a: &str, b: &str) {
    let Some(slot) = doc["components"]["schemas"].get_mut(schema) else {
        return;
    };
    let case = |given: &str, other: &str| {
        json!({
            "type": "object",
            "required": [given],
            "properties": {given: {"type": "string"}, other: {"type": "null"}},
        })
    };
    let whole = slot.take();
    *slot = json!({"allOf": [whole, {"oneOf": [case(a, b), case(b, a)]}]});
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
        ("400", "A request serde cannot read: malformed JSON, a missing, mistyped or unknown parameter or field (REDVOTE_BAD_REQUEST)"),
        ("401", "No bearer token, or not the right one (REDVOTE_UNAUTHORIZED)"),
        ("500", "A script failure or a reply the driver does not understand (REDVOTE_INTERNAL)"),
        ("503", "Redis is unavailable (REDVOTE_UNAVAILABLE), or the request timed out (REDVOTE_TIMEOUT)"),
    ];
    if admin {
        add.push((
            "403",
            "Admin routes are off: no --admin-token (REDVOTE_ADMIN_DISABLED); or a team key outside its campaigns or role (REDVOTE_FORBIDDEN)",
        ));
    } else {
        add.push((
            "403",
            "A team key outside its campaigns or role (REDVOTE_FORBIDDEN)",
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

/// One character of a name (the board name rule, `redvote::is_valid_name`):
/// no control character, space, `: { } * ? [ ] \ ,`.
const NAME_CHAR: &str = r"[^\x00-\x20\x7f:{}*?\[\]\\,]";

/// A name: 1..64 bytes of [`NAME_CHAR`].
fn name() -> Value {
    json!({"pattern": format!("^{NAME_CHAR}{{1,64}}$"), "minLength": 1, "maxLength": 64})
}

/// A channel or device: a name, or empty for none.
fn optional_name() -> Value {
    json!({"pattern": format!("^{NAME_CHAR}{{0,64}}$"), "maxLength": 64})
}

/// A comma-separated list of `lo..=hi` names (lo 0: also empty).
fn names(lo: usize, hi: usize) -> Value {
    let one = format!("{NAME_CHAR}{{1,64}}");
    let list = format!("{one}(,{one}){{0,{}}}", hi - 1);
    let pattern = if lo == 0 {
        format!("^({list})?$")
    } else {
        format!("^{list}$")
    };
    json!({"pattern": pattern, "minLength": lo.min(1), "maxLength": hi * 65 - 1})
}

/// `board:option` pairs, comma-separated, 0..=hi.
fn pairs(hi: usize) -> Value {
    let one = format!("{NAME_CHAR}{{1,64}}:{NAME_CHAR}{{1,64}}");
    json!({"pattern": format!("^({one}(,{one}){{0,{}}})?$", hi - 1), "maxLength": hi * 130 - 1})
}

/// A user: 1..256 bytes without control characters.
fn user() -> Value {
    json!({"pattern": r"^[^\x00-\x1f\x7f]{1,256}$", "minLength": 1, "maxLength": 256})
}

/// A period selector: the current hour, day, week or month, total, or a
/// named period (`hour:2026-03-17T10`, `day:2026-03-17`, `week:2026-W12`,
/// `month:2026-03`; the 29th to 31st of a month are accepted when they
/// exist, but not spelled here).
fn period() -> Value {
    let y = "(19[7-9][0-9]|2[0-9]{3})";
    let m = "(0[1-9]|1[0-2])";
    let d = "(0[1-9]|1[0-9]|2[0-8])";
    let h = "([01][0-9]|2[0-3])";
    let w = "(0[1-9]|[1-4][0-9]|5[0-2])";
    json!({"pattern": format!(
        "^(hour|day|week|month|total|hour:{y}-{m}-{d}T{h}|day:{y}-{m}-{d}|week:{y}-W{w}|month:{y}-{m})$"
    )})
}

/// A moment of the statistics' range: Unix seconds, or a period's name
/// (as [`period`] spells them) read in the campaign's offset.
fn moment() -> Value {
    let names = period()["pattern"]
        .as_str()
        .unwrap_or_default()
        .replace("hour|day|week|month|total|", "");
    let names = names.trim_start_matches('^').trim_end_matches('$');
    json!({"pattern": format!("^([0-9]{{1,12}}|{names})$"), "minLength": 1})
}

/// An integer range.
fn range(lo: u64, hi: u64) -> Value {
    json!({"minimum": lo, "maximum": hi})
}

/// Merge `patch` into the schema `target` (the string branch of a
/// nullable one is the schema itself in OpenAPI 3.1: `type: [string, null]`).
fn merge(target: &mut Value, patch: &Value) {
    if let (Some(t), Some(p)) = (target.as_object_mut(), patch.as_object()) {
        for (k, v) in p {
            t.insert(k.clone(), v.clone());
        }
    }
}

/// The rule of a path or query parameter, by name.
fn parameter_rule(path: &str, location: &str, param: &str) -> Option<Value> {
    use redvote::caps;
    Some(match (location, param) {
        ("path", "site" | "campaign" | "board" | "member" | "group") => name(),
        ("path", "name") if path.starts_with("/v1/keys/") => name(),
        // a vote id: 1..128 bytes of visible ASCII (inner spaces allowed)
        ("path", "vote_id") => json!({
            "pattern": "^[!-~]([ -~]{0,126}[!-~])?$",
            "minLength": 1,
            "maxLength": 128,
        }),
        ("query", "before") => {
            json!({"pattern": "^[0-9]{1,20}-[0-9]{1,20}$", "minLength": 3, "maxLength": 41})
        }
        ("path", "id") => {
            json!({"pattern": "^(article:)?[1-9][0-9]{0,14}$", "minLength": 1, "maxLength": 23})
        }
        ("query", "period") => period(),
        // the export's and the statistics' own values (422 otherwise)
        ("query", "kind") if path.ends_with("/export") => {
            json!({"enum": ["shown", "real", "both"]})
        }
        ("query", "format") if path.ends_with("/export") => json!({"enum": ["csv", "jsonl"]}),
        ("query", "format") if path.ends_with("/stats") => json!({"enum": ["json", "csv"]}),
        ("query", "by") if path.ends_with("/stats") => json!({"enum": ["hour", "day"]}),
        ("query", "from" | "to") if path.ends_with("/stats") => moment(),
        ("query", "boards") => names(1, caps::TOP_BOARDS),
        ("query", "members") => names(1, caps::STANDING_MEMBERS),
        ("query", "options") => names(0, caps::PARTICIPANT_OPTIONS),
        ("query", "pairs") => pairs(caps::VOTE_PAIRS),
        ("query", "user") => user(),
        ("query", "channel" | "device") => optional_name(),
        // the campaign list's: a previous answer's `next`
        ("query", "cursor") => json!({"pattern": "^[0-9]{1,12}$", "minLength": 1, "maxLength": 12}),
        // a campaign vote's id: 1..128 bytes of visible ASCII (inner
        // spaces allowed); an article vote's is ignored
        ("header", "Idempotency-Key") if path.starts_with("/v1/campaigns/") => json!({
            "pattern": "^[!-~]([ -~]{0,126}[!-~])?$",
            "minLength": 1,
            "maxLength": 128,
        }),
        _ => return None,
    })
}

/// The rule of a body schema's property, by schema and property.
fn property_rule(schema: &str, property: &str) -> Option<Value> {
    use redvote::caps;
    Some(match (schema, property) {
        // a void range's channel must be a channel: no empty "none"
        ("VoidRangeRequest", "channel") => name(),
        (_, "user") => user(),
        ("NewArticle", "title") => {
            json!({"pattern": r"^[^\x00-\x1f\x7f]{1,512}$", "minLength": 1, "maxLength": 512})
        }
        ("NewArticle", "link") => {
            json!({"pattern": r"^[^\x00-\x20\x7f]{1,2048}$", "minLength": 1, "maxLength": 2048})
        }
        (_, "channel" | "device") => optional_name(),
        ("Pair", "board" | "option") => name(),
        ("GroupRequest", "add" | "remove") => {
            let mut items = name();
            merge(&mut items, &json!({"type": "string"}));
            json!({"items": items, "maxItems": caps::GROUPS})
        }
        ("ConfigChange", "vote_score") => range(1, 1_000_000),
        ("ConfigChange", "window") => range(60, 315_360_000),
        ("ConfigChange", "page_size") => range(1, caps::PER_PAGE.into()),
        ("RerankRequest", "start") => range(0, 999_999_999_999),
        ("RerankRequest", "count") => range(1, 1000),
        ("CampaignSettings", "fold_ms") => range(10, 60_000),
        ("CampaignVote", "cost") => range(1, caps::VOTE_COST.into()),
        ("CampaignVote", "votes") => json!({"minItems": 1, "maxItems": caps::VOTE_PAIRS}),
        ("ResetRequest", "pairs") => json!({"maxItems": caps::VOTE_PAIRS}),
        ("ReindexRequest", "cursor") => {
            json!({"pattern": r"^(0|[0-9]{1,15}\|[^|]+\|[0-9]{1,19})$", "minLength": 1})
        }
        ("ReindexRequest", "count") => range(1, 5000),
        ("NewKeyRequest", "name") => name(),
        ("NewKeyRequest", "pattern") => {
            json!({"pattern": r"^[^\x00-\x20\x7f:{}?\[\]\\,]{1,64}$", "minLength": 1, "maxLength": 64})
        }
        ("VoidRangeRequest", "from" | "to") => range(0, 253_402_300_799),
        ("VoidRangeRequest", "count") => range(1, 1000),
        ("VoidRangeRequest", "cursor") => {
            json!({"pattern": "^(0|[0-9]{1,20}-[0-9]{1,20})$", "minLength": 1, "maxLength": 41})
        }
        _ => return None,
    })
}

/// The `data` of a Server-Sent Event as it is on the wire: a line of text
/// holding JSON. An event schema whose `data` is described as the JSON
/// value itself (`$ref: LiveTop`) gets `type: string`,
/// `contentMediaType: application/json` and the value's schema as
/// `contentSchema` (JSON Schema's way to describe encoded content, which
/// OpenAPI 3.2 uses for `text/event-stream` and validators check).
fn event_data_as_text(doc: &mut Value) {
    let mut events = Vec::new();
    if let Some(paths) = doc["paths"].as_object() {
        for item in paths.values() {
            for op in item.as_object().into_iter().flat_map(|o| o.values()) {
                for response in op["responses"]
                    .as_object()
                    .into_iter()
                    .flat_map(|r| r.values())
                {
                    if let Some(r) =
                        response["content"]["text/event-stream"]["schema"]["$ref"].as_str()
                    {
                        events.push(r.trim_start_matches('#').to_string());
                    }
                }
            }
        }
    }
    for pointer in events {
        let Some(event) = doc.pointer_mut(&pointer) else {
            continue;
        };
        let variants: Vec<&mut Value> = if event.get("oneOf").is_some_and(Value::is_array) {
            event["oneOf"]
                .as_array_mut()
                .into_iter()
                .flatten()
                .collect()
        } else {
            vec![event]
        };
        for variant in variants {
            let Some(data) = variant.pointer_mut("/properties/data") else {
                continue;
            };
            if data["type"] == "string" {
                continue;
            }
            let mut content = data.clone();
            let description = content
                .as_object_mut()
                .and_then(|o| o.remove("description"));
            let mut text = json!({
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": content,
            });
            if let Some(description) = description {
                text["description"] = description;
            }
            *data = text;
        }
    }
}

/// Apply [`parameter_rule`] and [`property_rule`] to the document, and
/// the import body's rule (option names, 1..500 of them, amounts).
pub fn constrain(doc: &mut Value) {
    event_data_as_text(doc);
    if let Some(paths) = doc["paths"].as_object_mut() {
        for (path, item) in paths.iter_mut() {
            let Some(item) = item.as_object_mut() else {
                continue;
            };
            for op in item.values_mut() {
                if let Some(params) = op.get_mut("parameters").and_then(Value::as_array_mut) {
                    for p in params {
                        let (Some(location), Some(name)) = (p["in"].as_str(), p["name"].as_str())
                        else {
                            continue;
                        };
                        if let (Some(rule), Some(schema)) =
                            (parameter_rule(path, location, name), p.get_mut("schema"))
                        {
                            merge(schema, &rule);
                        }
                    }
                }
                if path.ends_with("/import") {
                    if let Some(body) =
                        op.pointer_mut("/requestBody/content/application~1json/schema")
                    {
                        let mut names = name();
                        merge(&mut names, &json!({"type": "string"}));
                        merge(
                            body,
                            &json!({
                                "propertyNames": names,
                                "minProperties": 1,
                                "maxProperties": redvote::caps::IMPORT_PAIRS,
                            }),
                        );
                    }
                }
            }
        }
    }
    if let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        for (schema, body) in schemas.iter_mut() {
            if let Some(props) = body.get_mut("properties").and_then(Value::as_object_mut) {
                for (property, value) in props.iter_mut() {
                    if let Some(rule) = property_rule(schema, property) {
                        merge(value, &rule);
                    }
                }
            }
        }
        if let Some(amount) = schemas.get_mut("Amount") {
            if let Some(one_of) = amount.get_mut("oneOf").and_then(Value::as_array_mut) {
                for branch in one_of {
                    match branch["type"].as_str() {
                        Some("string") => {
                            merge(branch, &json!({"pattern": r"^[0-9]{1,15}(\.[0-9]{1,6})?$"}))
                        }
                        Some("number") => merge(branch, &json!({"minimum": 0})),
                        _ => {}
                    }
                }
            }
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
