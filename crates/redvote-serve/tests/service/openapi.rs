//! The OpenAPI document is valid (unique operationIds, every `$ref`
//! resolves, every 503 declares `Retry-After`), and the service does what
//! it says: an order the site does not keep is 422, an unknown query
//! parameter is 400 naming it, an integer written `58.0` is 58 and `58.5`
//! is 422, and no error body shows a Redis key name or a script's argument
//! list.

use std::collections::BTreeMap;

use redis::Commands;
use reqwest::Method;
use serde_json::{json, Value};

use super::{Reply, Service, ADMIN};
use redvote_testing as support;

fn spring() -> Value {
    serde_json::from_str(include_str!("../../../../docs/spring2026.json")).unwrap()
}

/// Every `$ref` in `value`, with the JSON path it was found at.
fn refs(value: &Value, at: &str, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if k == "$ref" {
                    if let Some(r) = v.as_str() {
                        out.push((at.to_string(), r.to_string()));
                    }
                }
                refs(v, &format!("{at}/{k}"), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                refs(v, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn operation_ids_are_unique_and_every_ref_resolves() {
    let server = support::server();
    let svc = Service::start(&server);
    let doc = svc.get("/openapi.json").ok(200);

    let mut ids: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let id = op["operationId"]
                .as_str()
                .unwrap_or_else(|| panic!("{method} {path} has no operationId"));
            ids.entry(id.to_string())
                .or_default()
                .push(format!("{method} {path}"));
            // every 503 says when to retry, as the service does
            if let Some(unavailable) = op["responses"].get("503") {
                assert!(
                    unavailable["headers"]["retry-after"]["schema"]["type"] == "integer",
                    "{method} {path}: 503 without Retry-After: {unavailable}"
                );
            }
        }
    }
    let twice: Vec<_> = ids.iter().filter(|(_, ops)| ops.len() > 1).collect();
    assert!(twice.is_empty(), "operationIds used twice: {twice:?}");
    for id in [
        "site_vote",
        "campaign_vote",
        "site_configure",
        "campaign_configure",
    ] {
        assert!(
            ids.contains_key(id),
            "no operationId {id}: {:?}",
            ids.keys()
        );
    }

    let mut found = Vec::new();
    refs(&doc, "", &mut found);
    assert!(found.len() > 20, "{found:?}");
    for (at, r) in found {
        let pointer = r
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("{at}: $ref {r} is not local"));
        assert!(
            doc.pointer(pointer).is_some(),
            "{at}: $ref {r} resolves to nothing"
        );
    }
}

#[test]
fn an_order_the_site_does_not_keep_is_422() {
    let server = support::server();
    let svc = Service::start(&server);
    svc.json(
        Method::POST,
        "/v1/sites/default/articles",
        json!({"user": "u", "title": "t", "link": "http://x"}),
    )
    .ok(201);
    for order in ["hot", "best"] {
        for path in [
            format!("/v1/sites/default/articles?order={order}"),
            format!("/v1/sites/default/groups/g/articles?order={order}"),
        ] {
            let detail = svc.get(&path).problem(422, "REDVOTE_INVALID_ORDER");
            assert!(detail.contains(order), "{detail}");
        }
    }
    svc.admin(
        Method::PATCH,
        "/v1/sites/default/config",
        json!({"rankings": ["hot"]}),
    )
    .ok(200);
    svc.admin(Method::POST, "/v1/sites/default/rerank", json!({}))
        .ok(200);
    let page = svc.get("/v1/sites/default/articles?order=hot").ok(200);
    assert_eq!(page["total"], 1, "{page}");
    svc.get("/v1/sites/default/articles?order=best")
        .problem(422, "REDVOTE_INVALID_ORDER");
    svc.get("/v1/sites/default/articles?order=time").ok(200);
}

#[test]
fn unknown_query_parameters_are_400_naming_them() {
    let server = support::server();
    let svc = Service::start(&server);
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", spring())
        .ok(200);
    for path in [
        "/v1/sites/default/articles?order=score&sort=time",
        "/v1/sites/default/articles/1?sort=time",
        "/v1/sites/default/groups/g/articles?sort=time",
        "/v1/campaigns/spring/top?boards=male-stars&sort=time",
        "/v1/campaigns/spring/boards/male-stars/standing?members=yyqx&sort=time",
        "/v1/campaigns/spring/boards/male-stars/around/yyqx?sort=time",
        "/v1/campaigns/spring/boards/male-stars/participants?sort=time",
        "/v1/campaigns/spring/limits?user=u&sort=time",
        // routes that take no parameter at all
        "/v1/sites?sort=time",
        "/v1/sites/default/config?sort=time",
    ] {
        let detail = svc.get(path).problem(400, "REDVOTE_BAD_REQUEST");
        assert!(detail.contains("sort"), "{path}: {detail}");
    }
    // the admin page's routes, with the admin token (and the stream, open)
    for (method, path) in [
        (Method::GET, "/v1/campaigns?sort=time"),
        (Method::GET, "/v1/campaigns/spring/settings?sort=time"),
        (Method::GET, "/v1/campaigns/spring/deny?sort=time"),
        (
            Method::GET,
            "/v1/campaigns/spring/boards/male-stars/options?sort=time",
        ),
        (
            Method::POST,
            "/v1/campaigns/spring/boards/male-stars/top/ticket?sort=time",
        ),
        (
            Method::GET,
            "/v1/campaigns/spring/boards/male-stars/top/stream?seconds=1&sort=time",
        ),
    ] {
        let detail = svc
            .request(method, path, Some(ADMIN))
            .send()
            .problem(400, "REDVOTE_BAD_REQUEST");
        assert!(detail.contains("sort"), "{path}: {detail}");
    }
    let vote = json!({"user": "u", "votes": [{"board": "male-stars", "option": "yyqx"}]});
    for (method, path, body) in [
        (
            Method::POST,
            "/v1/campaigns/spring/votes?dry_run=1",
            vote.clone(),
        ),
        (
            Method::POST,
            "/v1/sites/default/articles?dry_run=1",
            json!({"user": "u", "title": "t", "link": "http://x"}),
        ),
        (
            Method::PUT,
            "/v1/sites/default/articles/1/vote?dry_run=1",
            json!({"user": "u", "vote": "up"}),
        ),
        (
            Method::PATCH,
            "/v1/sites/default/config?dry_run=1",
            json!({"page_size": 5}),
        ),
        (
            Method::PUT,
            "/v1/campaigns/spring/settings?dry_run=1",
            spring(),
        ),
        (
            Method::PUT,
            "/v1/campaigns/spring/boards/male-stars/import?dry_run=1",
            json!({"yyqx": 1}),
        ),
    ] {
        let reply = svc.request(method, path, Some(ADMIN)).json(body).send();
        let detail = reply.problem(400, "REDVOTE_BAD_REQUEST");
        assert!(detail.contains("dry_run"), "{path}: {detail}");
    }
    // nothing was written: the vote did not count
    let top = svc
        .get("/v1/campaigns/spring/top?boards=male-stars&kind=real")
        .ok(200);
    assert_eq!(top["boards"][0]["size"], 0, "{top}");
    // the known ones still read
    svc.get("/v1/campaigns/spring/top?boards=male-stars&per_page=5")
        .ok(200);
}

#[test]
fn integers_written_with_a_zero_fraction_are_integers() {
    let server = support::server();
    let svc = Service::start(&server);
    let mut settings = spring();
    settings.as_object_mut().unwrap().remove("limits");
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", settings)
        .ok(200);

    let vote = |cost: Value| {
        svc.json(
            Method::POST,
            "/v1/campaigns/spring/votes",
            json!({"user": "u1", "cost": cost, "votes": [{"board": "male-stars", "option": "wy"}]}),
        )
    };
    vote(json!(58.0)).ok(200);
    vote(json!(1e2)).ok(200);
    let detail = vote(json!(58.5)).problem(422, "REDVOTE_INVALID_NUMBER");
    assert!(
        detail.contains("cost") && detail.contains("58.5"),
        "{detail}"
    );

    let config = svc
        .admin(
            Method::PATCH,
            "/v1/sites/default/config",
            json!({"page_size": 20.0, "window": 3600.0}),
        )
        .ok(200);
    assert_eq!(
        (config["page_size"].clone(), config["window"].clone()),
        (json!(20), json!(3600))
    );
    let detail = svc
        .admin(
            Method::PATCH,
            "/v1/sites/default/config",
            json!({"page_size": 20.5}),
        )
        .problem(422, "REDVOTE_INVALID_NUMBER");
    assert!(detail.contains("page_size"), "{detail}");
    svc.admin(
        Method::POST,
        "/v1/sites/default/rerank",
        json!({"start": 0.0, "count": 10.0}),
    )
    .ok(200);
    // still a type error where a string belongs
    svc.json(
        Method::POST,
        "/v1/campaigns/spring/votes",
        json!({"user": 1.0, "votes": [{"board": "male-stars", "option": "wy"}]}),
    )
    .problem(400, "REDVOTE_BAD_REQUEST");
}

/// The refusal `reply` is a problem with `status` and `code` whose body
/// names no key and no script argument.
#[track_caller]
fn clean(reply: Reply, status: u16, code: &str) -> String {
    let detail = reply.problem(status, code);
    // every text of the body (the JSON's own braces aside)
    let texts: Vec<&str> = reply
        .body
        .as_object()
        .unwrap()
        .iter()
        // (`type` is the code's URN: urn:redvote:campaign-closed)
        .filter(|(k, _)| *k != "type")
        .filter_map(|(_, v)| v.as_str())
        .collect();
    let leaks = [
        "{",
        "}",
        ":campaign",
        "KEYS",
        "ARGV",
        "weights:",
        "<prefix>",
    ];
    for text in texts {
        for leak in leaks {
            assert!(
                !text.contains(leak),
                "{code}: the body shows {leak:?}: {}",
                reply.text
            );
        }
    }
    detail
}

#[test]
fn error_bodies_never_show_key_names_or_script_arguments() {
    let server = support::server();
    let svc = Service::with_setup(&server, |s| {
        s.options.admin_token = Some(ADMIN.into());
        s.sites = BTreeMap::from([
            ("default".to_string(), redvote::Site::default()),
            ("blue".to_string(), redvote::Site::new("{blue}:")),
        ]);
    });
    let mut settings = spring();
    settings["limits"] =
        json!([{"name": "once", "by": ["user"], "window": "campaign", "limit": 1}]);
    svc.admin(Method::PUT, "/v1/campaigns/c/settings", settings)
        .ok(200);

    // the article site, under both layouts
    for site in ["default", "blue"] {
        let base = format!("/v1/sites/{site}");
        let post = |body: Value| svc.json(Method::POST, &format!("{base}/articles"), body);
        post(json!({"user": "u", "title": "t", "link": "http://x"})).ok(201);
        clean(
            post(json!({"user": "", "title": "t", "link": "http://x"})),
            422,
            "REDVOTE_INVALID_USER",
        );
        clean(
            post(json!({"user": "u", "title": "", "link": "http://x"})),
            422,
            "REDVOTE_INVALID_TEXT",
        );
        let vote = |id: &str| {
            svc.json(
                Method::PUT,
                &format!("{base}/articles/{id}/vote"),
                json!({"user": "v", "vote": "up"}),
            )
        };
        clean(vote("1:x"), 422, "REDVOTE_INVALID_ID");
        let detail = clean(vote("99"), 404, "REDVOTE_UNKNOWN_ARTICLE");
        // the article, not its key (`article:99`, `{blue}:article:99`)
        assert!(
            detail.contains("99") && !detail.contains("article:"),
            "{detail}"
        );
        clean(
            svc.get(&format!("{base}/articles?per_page=0")),
            422,
            "REDVOTE_INVALID_NUMBER",
        );
        clean(
            svc.get(&format!("{base}/articles?order=hot")),
            422,
            "REDVOTE_INVALID_ORDER",
        );
        clean(
            svc.json(
                Method::POST,
                &format!("{base}/articles/1/groups"),
                json!({"add": ["a b"]}),
            ),
            422,
            "REDVOTE_INVALID_GROUP",
        );
        let many: Vec<String> = (0..101).map(|i| format!("g{i}")).collect();
        clean(
            svc.json(
                Method::POST,
                &format!("{base}/articles/1/groups"),
                json!({ "add": many }),
            ),
            422,
            "REDVOTE_USAGE",
        );
        clean(
            svc.admin(
                Method::PATCH,
                &format!("{base}/config"),
                json!({"window": 1}),
            ),
            422,
            "REDVOTE_INVALID_CONFIG",
        );
        let detail = clean(
            svc.admin(
                Method::PATCH,
                &format!("{base}/config"),
                json!({"vote_score": 1}),
            ),
            409,
            "REDVOTE_CONFIG_LOCKED",
        );
        assert!(detail.contains("vote_score"), "{detail}");
        // an article posted long ago: its window has closed
        let prefix = if site == "blue" { "{blue}:" } else { "" };
        let mut con = support::con(&server);
        let _: () = con
            .hset(format!("{prefix}article:1"), "time", 1000)
            .unwrap();
        clean(vote("1"), 409, "REDVOTE_VOTING_CLOSED");
    }

    // campaigns
    let vote = |campaign: &str, user: &str, board: &str, option: &str| {
        svc.vote(campaign, user, board, option)
    };
    clean(
        vote("nope", "u", "male-stars", "yyqx"),
        404,
        "REDVOTE_UNKNOWN_CAMPAIGN",
    );
    clean(vote("c", "u", "nope", "yyqx"), 404, "REDVOTE_UNKNOWN_BOARD");
    let detail = clean(
        vote("c", "u", "male-stars", "nope"),
        404,
        "REDVOTE_UNKNOWN_OPTION",
    );
    assert!(
        detail.contains("male-stars") && detail.contains("nope"),
        "{detail}"
    );
    clean(
        vote("c", "", "male-stars", "yyqx"),
        422,
        "REDVOTE_INVALID_USER",
    );
    clean(vote("c", "u", "a b", "yyqx"), 422, "REDVOTE_INVALID_NAME");
    clean(
        vote("c", "user:banned", "male-stars", "yyqx"),
        403,
        "REDVOTE_DENIED",
    );
    vote("c", "u1", "male-stars", "yyqx").ok(200);
    clean(
        vote("c", "u1", "male-stars", "yyqx"),
        429,
        "REDVOTE_RATE_LIMITED",
    );
    let pairs: Vec<Value> = (0..51)
        .map(|_| json!({"board": "male-stars", "option": "yyqx"}))
        .collect();
    clean(
        svc.json(
            Method::POST,
            "/v1/campaigns/c/votes",
            json!({"user": "u2", "votes": pairs}),
        ),
        422,
        "REDVOTE_USAGE",
    );
    let keyed = |key: &str, option: &str| {
        svc.request(Method::POST, "/v1/campaigns/c/votes", None)
            .header("Idempotency-Key", key)
            .json(json!({"user": "u3", "votes": [{"board": "male-stars", "option": option}]}))
            .send()
    };
    clean(
        keyed(&"k".repeat(129), "yyqx"),
        422,
        "REDVOTE_INVALID_VOTE_ID",
    );
    keyed("k1", "wjk").ok(200);
    clean(keyed("k1", "wy"), 409, "REDVOTE_VOTE_ID_REUSED");
    clean(
        svc.get("/v1/campaigns/c/top?boards=male-stars&period=fortnight"),
        422,
        "REDVOTE_INVALID_PERIOD",
    );
    let boards = vec!["male-stars"; 21].join(",");
    clean(
        svc.get(&format!("/v1/campaigns/c/top?boards={boards}")),
        422,
        "REDVOTE_USAGE",
    );
    clean(
        svc.admin(
            Method::PUT,
            "/v1/campaigns/c/boards/male-stars/import",
            json!({"yyqx": "x"}),
        ),
        422,
        "REDVOTE_INVALID_NUMBER",
    );
    clean(
        svc.admin(
            Method::PUT,
            "/v1/campaigns/c/boards/male-stars/import",
            json!({"yyqx": "30000000000000"}),
        ),
        422,
        "REDVOTE_OUT_OF_RANGE",
    );
    clean(
        svc.admin(
            Method::POST,
            "/v1/campaigns/c/boards/male-stars/reindex",
            json!({"cursor": "zz"}),
        ),
        422,
        "REDVOTE_USAGE",
    );
    clean(
        svc.admin(
            Method::PUT,
            "/v1/campaigns/c/settings",
            json!({"start": 1_772_323_200u64, "end": 1_769_904_000u64}),
        ),
        422,
        "REDVOTE_INVALID_CONFIG",
    );
    svc.admin(
        Method::PUT,
        "/v1/campaigns/c/settings",
        json!({"start": 1_577_836_800u64, "end": 1_580_515_200u64}),
    )
    .ok(200);
    clean(
        vote("c", "u4", "male-stars", "yyqx"),
        409,
        "REDVOTE_CAMPAIGN_CLOSED",
    );
}
