//! The audit log (docs/teams.md): an entry for each admin change, with
//! who (a team key's name or `operator`), when, what, before and after;
//! read newest first in pages; the stream capped; a refused change writes
//! none.

use reqwest::Method;
use serde_json::{json, Value};

use super::teams::teams_service;
use super::ADMIN;
use redvote_testing as support;

fn entries(svc: &super::Service, c: &str, query: &str) -> Value {
    svc.request(
        Method::GET,
        &format!("/v1/campaigns/{c}/audit{query}"),
        Some(ADMIN),
    )
    .send()
    .ok(200)
}

#[test]
fn every_admin_change_is_audited_with_who_before_and_after() {
    let server = support::server();
    let (svc, tokens) = teams_service(&server);
    let a = tokens[2].1.clone();
    let c = "spring-a";
    let as_a = |method: Method, path: String, body: Value| {
        svc.request(method, &path, Some(&a)).json(body).send()
    };
    // the harness's configure, by the operator
    let first = entries(&svc, c, "");
    assert_eq!(first["entries"].as_array().unwrap().len(), 1);
    let e = &first["entries"][0];
    assert_eq!(e["who"], "operator");
    assert_eq!(e["action"], "configure");
    assert_eq!(
        e["before"],
        Value::Null,
        "a new campaign has no settings before"
    );
    assert_eq!(
        e["after"]["boards"]["b"]["options"]["o"]["weight"], 1,
        "{e}"
    );
    assert!(e["when"].as_u64().unwrap() > 1_700_000_000_000);

    // configure by key a: a weight changes
    as_a(
        Method::PUT,
        format!("/v1/campaigns/{c}/settings"),
        json!({"boards": {"b": {"options": {"o": {"weight": 3}}}}}),
    )
    .ok(200);
    as_a(
        Method::PUT,
        format!("/v1/campaigns/{c}/boards/b/import"),
        json!({"o": 5}),
    )
    .ok(200);
    as_a(
        Method::POST,
        format!("/v1/campaigns/{c}/limits/reset"),
        json!({"user": "u1"}),
    )
    .ok(200);
    as_a(
        Method::POST,
        format!("/v1/campaigns/{c}/boards/b/reindex"),
        json!({}),
    )
    .ok(200);
    // a vote with an id, then voided; a second void is not a change
    svc.request(Method::POST, &format!("/v1/campaigns/{c}/votes"), Some(&a))
        .header("idempotency-key", "vote-1")
        .json(json!({"user": "u9", "channel": "app", "votes": [{"board": "b", "option": "p"}]}))
        .send()
        .ok(200);
    let voided = as_a(
        Method::POST,
        format!("/v1/campaigns/{c}/votes/vote-1/void"),
        json!(null),
    )
    .ok(200);
    assert_eq!(voided["already"], false);
    let again = as_a(
        Method::POST,
        format!("/v1/campaigns/{c}/votes/vote-1/void"),
        json!(null),
    )
    .ok(200);
    assert_eq!(again["already"], true);
    // a range: the log's votes of u8
    for _ in 0..2 {
        svc.request(Method::POST, &format!("/v1/campaigns/{c}/votes"), Some(&a))
            .json(json!({"user": "u8", "votes": [{"board": "b", "option": "o"}]}))
            .send()
            .ok(200);
    }
    let step = as_a(
        Method::POST,
        format!("/v1/campaigns/{c}/votes/void"),
        json!({"user": "u8", "from": 0, "to": 253402300799u64}),
    )
    .ok(200);
    assert_eq!(step["voided"], 2, "{step}");
    assert_eq!(step["next"], "0");

    let log = entries(&svc, c, "?count=100");
    let got: Vec<(&str, &str)> = log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["who"].as_str().unwrap(), e["action"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("a", "void_range"),
            ("a", "void"),
            ("a", "reindex"),
            ("a", "limits_reset"),
            ("a", "import"),
            ("a", "configure"),
            ("operator", "configure"),
        ]
    );
    assert_eq!(log["next"], Value::Null);
    let e = &log["entries"];
    // configure: the settings before and after
    assert_eq!(e[5]["before"]["boards"]["b"]["options"]["o"]["weight"], 1);
    assert_eq!(e[5]["after"]["boards"]["b"]["options"]["o"]["weight"], 3);
    assert_eq!(e[5]["what"]["boards"]["b"]["options"]["o"]["weight"], 3);
    assert_eq!(e[4]["what"], json!({"board": "b", "votes": {"o": "5"}}));
    assert_eq!(e[4]["after"]["changed"], 1, "{}", e[4]);
    assert_eq!(e[3]["what"]["user"], "u1");
    assert_eq!(e[1]["what"], json!({"vote_id": "vote-1"}));
    assert_eq!(e[1]["after"]["already"], false);
    assert_eq!(e[0]["what"]["user"], "u8");
    assert_eq!(e[0]["after"]["voided"], 2);

    // pages: 3 then the rest, by `before`
    let page = entries(&svc, c, "?count=3");
    assert_eq!(page["entries"].as_array().unwrap().len(), 3);
    let next = page["next"].as_str().unwrap().to_string();
    let rest = entries(&svc, c, &format!("?count=100&before={next}"));
    assert_eq!(rest["entries"].as_array().unwrap().len(), 4);
    assert_eq!(rest["entries"][0]["action"], "limits_reset");
    for bad in ["?count=0", "?count=101", "?before=x", "?before=1-2-3"] {
        svc.request(
            Method::GET,
            &format!("/v1/campaigns/{c}/audit{bad}"),
            Some(ADMIN),
        )
        .send()
        .problem(422, "REDVOTE_USAGE");
    }
    // another campaign's log is its own
    let other = entries(&svc, "autumn", "");
    assert_eq!(other["entries"].as_array().unwrap().len(), 1);
}

#[test]
fn a_refused_change_writes_no_entry() {
    let server = support::server();
    let (svc, tokens) = teams_service(&server);
    let before = entries(&svc, "spring-a", "")["entries"].clone();
    // refused by the script (an unknown board): no entry
    svc.admin(
        Method::PUT,
        "/v1/campaigns/spring-a/boards/nope/import",
        json!({"o": 1}),
    )
    .problem(404, "REDVOTE_UNKNOWN_BOARD");
    // refused by the key's role
    svc.request(
        Method::PUT,
        "/v1/campaigns/spring-a/settings",
        Some(&tokens[1].1),
    )
    .json(json!({}))
    .send()
    .problem(403, "REDVOTE_FORBIDDEN");
    assert_eq!(entries(&svc, "spring-a", "")["entries"], before);
}

#[test]
fn the_stream_is_capped() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = redvote::Campaign::new("capped");
    let change = redvote_serve::audit::Change {
        who: "cli:test",
        action: redvote_serve::audit::Action::Reindex,
        what: json!({"n": 1}),
        before: Value::Null,
        after: json!({"x": "y".repeat(100)}),
    };
    for _ in 0..2500 {
        redvote_serve::audit::record(&mut con, &c, &change).unwrap();
    }
    let len: u64 = redis::cmd("XLEN")
        .arg(redvote_serve::audit::key(&c))
        .query(&mut con)
        .unwrap();
    // MAXLEN ~ 1000: whole nodes (100 entries by default) are trimmed
    assert!((1000..1100).contains(&len), "{len}");
    assert_eq!(redvote_serve::audit::key(&c), "{c:capped}:audit");
    // a field over 16 KiB is replaced by its size
    let big = redvote_serve::audit::Change {
        what: json!({"s": "z".repeat(20_000)}),
        ..change
    };
    redvote_serve::audit::record(&mut con, &c, &big).unwrap();
    let read = redvote_serve::audit::read(&mut con, &c, 1, None).unwrap();
    assert_eq!(read[0].what, json!({"truncated": 20_008}));
    assert_eq!(read[0].who, "cli:test");
}

#[test]
fn a_void_range_takes_exactly_one_of_user_and_channel() {
    let server = support::server();
    let mut con = support::con(&server);
    let (svc, _) = teams_service(&server);
    let path = "/v1/campaigns/spring-a/votes/void";
    let before = support::digest(&mut con);
    for body in [
        json!({"from": 0, "to": 10}),
        json!({"user": "u", "channel": "c", "from": 0, "to": 10}),
        json!({"user": null, "channel": null, "from": 0, "to": 10}),
    ] {
        svc.admin(Method::POST, path, body)
            .problem(422, "REDVOTE_USAGE");
    }
    svc.admin(
        Method::POST,
        path,
        json!({"channel": "", "from": 0, "to": 10}),
    )
    .problem(422, "REDVOTE_INVALID_NAME");
    svc.admin(
        Method::POST,
        path,
        json!({"user": "u", "from": 0, "to": 253402300800u64}),
    )
    .problem(422, "REDVOTE_INVALID_NUMBER");
    svc.admin(
        Method::POST,
        path,
        json!({"user": "u", "from": 0, "to": 10, "cursor": "x"}),
    )
    .problem(422, "REDVOTE_INVALID_NUMBER");
    // an empty range voids nothing
    let step = svc
        .admin(
            Method::POST,
            path,
            json!({"user": "u", "channel": null, "from": 10, "to": 10}),
        )
        .ok(200);
    assert_eq!(step, json!({"voided": 0, "others": 0, "next": "0"}));
    // nothing is older than 0-0
    let page = svc
        .request(
            Method::GET,
            "/v1/campaigns/spring-a/audit?before=0-0",
            Some(ADMIN),
        )
        .send()
        .ok(200);
    assert_eq!(page, json!({"entries": [], "next": null}));
    assert_eq!(support::digest(&mut con), before);
}
