//! Campaigns over HTTP: every route's happy path, the Idempotency-Key,
//! 429 with a Retry-After a retry honours, every refusal's status and
//! code, refusals that write nothing.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};

use super::{Service, ADMIN};
use redvote_testing::{self as support, digest};

/// docs/spring2026.json, the README's example campaign.
fn spring() -> Value {
    serde_json::from_str(include_str!("../../../../docs/spring2026.json")).unwrap()
}

fn vote(svc: &Service, campaign: &str, key: Option<&str>, body: Value) -> super::Reply {
    let mut req = svc
        .request(
            Method::POST,
            &format!("/v1/campaigns/{campaign}/votes"),
            None,
        )
        .json(body);
    if let Some(k) = key {
        req = req.header("Idempotency-Key", k);
    }
    req.send()
}

/// Every campaign route, as the seed's backends and admin would use them.
#[test]
fn campaign_routes_configure_vote_import_and_read() {
    let server = support::server();
    let svc = Service::start(&server);

    let configured = svc
        .admin(Method::PUT, "/v1/campaigns/spring/settings", spring())
        .ok(200);
    assert_eq!(configured, json!({"boards": 2, "options": 5}));

    // a batch vote: one call, both boards, weights applied on shown boards
    let done = vote(
        &svc,
        "spring",
        None,
        json!({"user": "u1", "channel": "partner", "device": "pc",
               "votes": [{"board": "male-stars", "option": "yyqx"},
                         {"board": "female-stars", "option": "zly"}]}),
    )
    .ok(200);
    assert_eq!(done["replay"], false);
    let ballots = done["ballots"].as_array().unwrap();
    assert_eq!(ballots.len(), 2);
    assert_eq!(
        (ballots[0]["board"].clone(), ballots[0]["option"].clone()),
        (json!("male-stars"), json!("yyqx"))
    );
    let total = |b: &Value| -> String {
        b["shown"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["period"] == "total")
            .unwrap()["score"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(total(&ballots[0]), "2.00", "weight 2");
    assert_eq!(total(&ballots[1]), "1.00");
    vote(
        &svc,
        "spring",
        None,
        json!({"user": "u2", "votes": [{"board": "male-stars", "option": "wjk"}]}),
    )
    .ok(200);

    // import (admin): numbers and strings
    let imported = svc
        .admin(
            Method::PUT,
            "/v1/campaigns/spring/boards/male-stars/import",
            json!({"wy": 10, "wjk": "0.5"}),
        )
        .ok(200);
    assert_eq!(imported, json!({"changed": 2, "unchanged": 0}));
    let again = svc
        .admin(
            Method::PUT,
            "/v1/campaigns/spring/boards/male-stars/import",
            json!({"wy": 10}),
        )
        .ok(200);
    assert_eq!(again, json!({"changed": 0, "unchanged": 1}), "idempotent");
    // an empty body is the script's to refuse (the route sends at least one call)
    svc.admin(
        Method::PUT,
        "/v1/campaigns/spring/boards/male-stars/import",
        json!({}),
    )
    .problem(422, "REDVOTE_USAGE");

    // top of several boards, paging
    let top = svc
        .get("/v1/campaigns/spring/top?boards=male-stars,female-stars&per_page=2")
        .ok(200);
    assert_eq!(
        (
            top["kind"].clone(),
            top["page"].clone(),
            top["per_page"].clone()
        ),
        (json!("shown"), json!(1), json!(2))
    );
    let male = &top["boards"][0];
    assert_eq!(
        (male["board"].clone(), male["period"].clone()),
        (json!("male-stars"), json!("total"))
    );
    assert_eq!(
        (
            male["size"].clone(),
            male["pages"].clone(),
            male["has_next"].clone()
        ),
        (json!(3), json!(2), json!(true))
    );
    let entries: Vec<(&str, &str)> = male["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["member"].as_str().unwrap(), e["score"].as_str().unwrap()))
        .collect();
    assert_eq!(entries, [("wy", "10.00"), ("yyqx", "2.00")]);
    assert_eq!(top["boards"][1]["board"], "female-stars");
    let page2 = svc
        .get("/v1/campaigns/spring/top?boards=male-stars&per_page=2&page=2")
        .ok(200);
    assert_eq!(page2["boards"][0]["has_next"], false);
    assert_eq!(page2["boards"][0]["entries"][0]["member"], "wjk");
    let real = svc
        .get("/v1/campaigns/spring/top?boards=male-stars&kind=real&period=hour")
        .ok(200);
    assert_eq!(real["kind"], "real");
    assert!(real["boards"][0]["period"]
        .as_str()
        .unwrap()
        .starts_with("hour:"));
    assert_eq!(real["boards"][0]["size"], 2, "real boards: votes only");

    // standing of several members, around one
    let st = svc
        .get("/v1/campaigns/spring/boards/male-stars/standing?members=yyqx,wy,nobody")
        .ok(200);
    assert_eq!(st["board"], "male-stars");
    let s = st["standings"].as_array().unwrap();
    assert_eq!(
        (
            s[0]["member"].clone(),
            s[0]["rank"].clone(),
            s[0]["ahead"].clone()
        ),
        (json!("yyqx"), json!(2), json!("wy"))
    );
    assert_eq!(s[0]["gap"], "8.00");
    assert_eq!(s[1]["rank"], 1);
    assert!(s[2]["rank"].is_null());
    let around = svc
        .get("/v1/campaigns/spring/boards/male-stars/around/yyqx?window=3&per_page=1")
        .ok(200);
    assert_eq!(
        (
            around["rank"].clone(),
            around["page"].clone(),
            around["size"].clone()
        ),
        (json!(2), json!(2), json!(3))
    );
    assert_eq!(around["window"].as_array().unwrap().len(), 3);

    // participants
    let p = svc
        .get("/v1/campaigns/spring/boards/male-stars/participants?options=yyqx,wjk,wy")
        .ok(200);
    assert_eq!(p["campaign"], 2);
    assert_eq!(
        p["options"],
        json!([{"option": "yyqx", "participants": 1}, {"option": "wjk", "participants": 1}, {"option": "wy", "participants": 0}])
    );

    // limits: peek, reset (admin), peek again
    let peek = svc
        .get("/v1/campaigns/spring/limits?user=u1&channel=partner&device=pc&pairs=male-stars:yyqx")
        .ok(200);
    let left = |v: &Value, rule: &str| {
        v["limits"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["rule"] == rule)
            .unwrap()["remaining"]
            .clone()
    };
    assert_eq!(
        left(&peek, "user-minute"),
        8,
        "5 + 5 for the partner channel, a pair spends one"
    );
    assert!(left(&peek, "star-second").as_i64().unwrap() >= 999);
    let reset = svc
        .admin(
            Method::POST,
            "/v1/campaigns/spring/limits/reset",
            json!({"user": "u1", "channel": "partner", "device": "pc"}),
        )
        .ok(200);
    assert!(reset["reset"].as_u64().unwrap() >= 2, "{reset}");
    let peek = svc
        .get("/v1/campaigns/spring/limits?user=u1&channel=partner&device=pc")
        .ok(200);
    assert_eq!(left(&peek, "user-minute"), 10);

    // reindex (admin): one step is enough for a small board
    let step = svc
        .admin(
            Method::POST,
            "/v1/campaigns/spring/boards/female-stars/reindex",
            json!({}),
        )
        .ok(200);
    assert_eq!(step["next"], "0");
}

/// The Idempotency-Key is the vote id: a replay answers the first outcome
/// and writes nothing; the key with other arguments is 409.
#[test]
fn idempotency_key_replays_the_first_outcome() {
    let server = support::server();
    let mut con = support::con(&server);
    let svc = Service::start(&server);
    svc.admin(Method::PUT, "/v1/campaigns/c/settings", spring())
        .ok(200);
    let body = json!({"user": "u1", "votes": [{"board": "male-stars", "option": "yyqx"}]});

    let first = vote(&svc, "c", Some("req-7f3a"), body.clone()).ok(200);
    assert_eq!(first["replay"], false);
    let before = digest(&mut con);
    let replay = vote(&svc, "c", Some("req-7f3a"), body.clone()).ok(200);
    assert_eq!(replay["replay"], true);
    assert_eq!(
        replay["ballots"][0]["shown"], first["ballots"][0]["shown"],
        "the first outcome"
    );
    assert_eq!(digest(&mut con), before, "a replay writes nothing");

    let other = json!({"user": "u1", "votes": [{"board": "male-stars", "option": "wjk"}]});
    vote(&svc, "c", Some("req-7f3a"), other.clone()).problem(409, "REDVOTE_VOTE_ID_REUSED");
    assert_eq!(digest(&mut con), before, "a reused key writes nothing");
    vote(&svc, "c", Some(""), body.clone()).problem(422, "REDVOTE_INVALID_VOTE_ID");
    vote(&svc, "c", Some(&"k".repeat(129)), body.clone()).problem(422, "REDVOTE_INVALID_VOTE_ID");
    assert_eq!(digest(&mut con), before);

    // without a key, each call counts
    let a = vote(&svc, "c", None, body.clone()).ok(200);
    let b = vote(&svc, "c", None, body).ok(200);
    assert_ne!(a["ballots"][0]["shown"], b["ballots"][0]["shown"]);
}

/// 429 carries Retry-After (and the refusal in the problem); a retry after
/// that many seconds passes. A whole-campaign limit has no Retry-After.
#[test]
fn rate_limited_votes_are_429_with_a_retry_after_that_holds() {
    let server = support::server();
    let svc = Service::start(&server);
    let settings = json!({
        "limits": [{"name": "per-second", "by": ["user"], "window": "second", "limit": 1}],
        "boards": {"b": {"options": {"o": {}}}}
    });
    svc.admin(Method::PUT, "/v1/campaigns/fast/settings", settings)
        .ok(200);
    let body = json!({"user": "u", "votes": [{"board": "b", "option": "o"}]});

    // the first vote of a second passes, the next is refused until the
    // second ends (a refusal at a second's edge may see the next one)
    let start = Instant::now();
    let refused = loop {
        let reply = vote(&svc, "fast", None, body.clone());
        if reply.status == 429 {
            break reply;
        }
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert!(start.elapsed() < support::PATIENCE, "never refused");
    };
    refused.problem(429, "REDVOTE_RATE_LIMITED");
    let after: u64 = refused
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .unwrap();
    assert!((0..=1).contains(&after), "{after}");
    assert_eq!(refused.body["retry_after"], after);
    assert_eq!(refused.body["rule"], "per-second");
    assert_eq!(refused.body["remaining"]["per-second"], 0);
    std::thread::sleep(Duration::from_secs(after.max(1)));
    vote(&svc, "fast", None, body.clone()).ok(200);

    // once per campaign: no vote passes again, so no Retry-After
    let once =
        json!({"limits": [{"name": "once", "by": ["user"], "window": "campaign", "limit": 1}]});
    svc.admin(Method::PUT, "/v1/campaigns/fast/settings", once)
        .ok(200);
    vote(
        &svc,
        "fast",
        None,
        json!({"user": "v", "votes": [{"board": "b", "option": "o"}]}),
    )
    .ok(200);
    let never = vote(
        &svc,
        "fast",
        None,
        json!({"user": "v", "votes": [{"board": "b", "option": "o"}]}),
    );
    never.problem(429, "REDVOTE_RATE_LIMITED");
    assert_eq!(never.header("retry-after"), None);
    assert_eq!(never.body["retry_after"], -1);
}

/// Every refusal of the campaign routes: status, code, detail.
#[test]
fn campaign_refusals_have_their_status_and_code() {
    let server = support::server();
    let svc = Service::start(&server);
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", spring())
        .ok(200);
    let closed = json!({"start": 1000, "end": 2000, "boards": {"b": {"options": {"o": {}}}}});
    svc.admin(Method::PUT, "/v1/campaigns/over/settings", closed)
        .ok(200);
    let pair = |b: &str, o: &str| json!({"user": "u", "votes": [{"board": b, "option": o}]});

    // votes
    vote(&svc, "nope", None, pair("b", "o")).problem(404, "REDVOTE_UNKNOWN_CAMPAIGN");
    vote(&svc, "spring", None, pair("nope", "o")).problem(404, "REDVOTE_UNKNOWN_BOARD");
    vote(&svc, "spring", None, pair("male-stars", "nope")).problem(404, "REDVOTE_UNKNOWN_OPTION");
    vote(&svc, "spring", None, pair("male-stars", "a:b")).problem(422, "REDVOTE_INVALID_NAME");
    vote(&svc, "a%3Ab", None, pair("b", "o")).problem(422, "REDVOTE_INVALID_NAME");
    vote(&svc, "over", None, pair("b", "o")).problem(409, "REDVOTE_CAMPAIGN_CLOSED");
    vote(
        &svc,
        "spring",
        None,
        json!({"user": "user:banned", "votes": [{"board": "male-stars", "option": "wy"}]}),
    )
    .problem(403, "REDVOTE_DENIED");
    vote(
        &svc,
        "spring",
        None,
        json!({"user": "", "votes": [{"board": "male-stars", "option": "wy"}]}),
    )
    .problem(422, "REDVOTE_INVALID_USER");
    vote(
        &svc,
        "spring",
        None,
        json!({"user": "u", "cost": 0, "votes": [{"board": "male-stars", "option": "wy"}]}),
    )
    .problem(422, "REDVOTE_INVALID_NUMBER");
    vote(
        &svc,
        "spring",
        None,
        json!({"user": "u", "cost": "x", "votes": []}),
    )
    .problem(400, "REDVOTE_BAD_REQUEST");
    vote(&svc, "spring", None, json!({"votes": []})).problem(400, "REDVOTE_BAD_REQUEST");
    vote(&svc, "spring", None, json!({"user": "u", "votes": []})).problem(422, "REDVOTE_USAGE");
    let many: Vec<Value> = (0..=redvote::caps::VOTE_PAIRS)
        .map(|_| json!({"board": "male-stars", "option": "wy"}))
        .collect();
    vote(&svc, "spring", None, json!({"user": "u", "votes": many})).problem(422, "REDVOTE_USAGE");
    // within the count, but more work than one call may do: 8 pairs of a
    // 3-period board with carry and first ties fit (docs/campaigns.md)
    let heavy: Vec<Value> = (0..9)
        .map(|_| json!({"board": "female-stars", "option": "zly"}))
        .collect();
    let detail = vote(&svc, "spring", None, json!({"user": "u", "votes": heavy}))
        .problem(422, "REDVOTE_USAGE");
    assert!(detail.contains("bounded work"), "{detail}");

    // reads
    svc.get("/v1/campaigns/nope/top?boards=b")
        .problem(404, "REDVOTE_UNKNOWN_CAMPAIGN");
    svc.get("/v1/campaigns/spring/top?boards=nope")
        .problem(404, "REDVOTE_UNKNOWN_BOARD");
    svc.get("/v1/campaigns/spring/top")
        .problem(400, "REDVOTE_BAD_REQUEST");
    svc.get("/v1/campaigns/spring/top?boards=male-stars&per_page=101")
        .problem(422, "REDVOTE_INVALID_NUMBER");
    svc.get("/v1/campaigns/spring/top?boards=male-stars&period=day")
        .problem(422, "REDVOTE_INVALID_PERIOD");
    svc.get("/v1/campaigns/spring/top?boards=male-stars&kind=fake")
        .problem(400, "REDVOTE_BAD_REQUEST");
    let boards = vec!["male-stars"; redvote::caps::TOP_BOARDS + 1].join(",");
    svc.get(&format!("/v1/campaigns/spring/top?boards={boards}"))
        .problem(422, "REDVOTE_USAGE");
    svc.get("/v1/campaigns/spring/boards/male-stars/standing")
        .problem(400, "REDVOTE_BAD_REQUEST");
    svc.get("/v1/campaigns/spring/boards/nope/standing?members=a")
        .problem(404, "REDVOTE_UNKNOWN_BOARD");
    svc.get("/v1/campaigns/spring/boards/male-stars/around/wy?window=102")
        .problem(422, "REDVOTE_INVALID_NUMBER");
    svc.get("/v1/campaigns/spring/boards/male-stars/participants?options=nope")
        .problem(404, "REDVOTE_UNKNOWN_OPTION");
    svc.get("/v1/campaigns/spring/limits?user=u&pairs=male-stars")
        .problem(400, "REDVOTE_BAD_REQUEST");
    svc.get("/v1/campaigns/spring/limits")
        .problem(400, "REDVOTE_BAD_REQUEST");
    svc.get("/v1/campaigns/nope/limits?user=u")
        .problem(404, "REDVOTE_UNKNOWN_CAMPAIGN");

    // admin writes
    svc.admin(
        Method::PUT,
        "/v1/campaigns/spring/settings",
        json!({"offset": "+25:00"}),
    )
    .problem(422, "REDVOTE_INVALID_CONFIG");
    svc.admin(
        Method::PUT,
        "/v1/campaigns/spring/settings",
        json!({"colour": "red"}),
    )
    .problem(400, "REDVOTE_BAD_REQUEST");
    svc.admin(
        Method::PUT,
        "/v1/campaigns/spring/boards/male-stars/import",
        json!({"wy": -1}),
    )
    .problem(422, "REDVOTE_INVALID_NUMBER");
    svc.admin(
        Method::PUT,
        "/v1/campaigns/spring/boards/male-stars/import",
        json!({"nope": 1}),
    )
    .problem(404, "REDVOTE_UNKNOWN_OPTION");
    svc.admin(
        Method::PUT,
        "/v1/campaigns/spring/boards/male-stars/import",
        json!({"wy": [1]}),
    )
    .problem(400, "REDVOTE_BAD_REQUEST");
    svc.admin(
        Method::POST,
        "/v1/campaigns/spring/limits/reset",
        json!({"user": ""}),
    )
    .problem(422, "REDVOTE_INVALID_USER");
    svc.admin(
        Method::POST,
        "/v1/campaigns/spring/boards/male-stars/reindex",
        json!({"cursor": "x"}),
    )
    .problem(422, "REDVOTE_USAGE");
}

/// Refused votes and admin writes leave the data set as it was.
#[test]
fn refused_campaign_calls_write_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    let svc = Service::start(&server);
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", spring())
        .ok(200);
    vote(
        &svc,
        "spring",
        Some("k1"),
        json!({"user": "u", "votes": [{"board": "male-stars", "option": "wy"}]}),
    )
    .ok(200);
    let vote_path = "/v1/campaigns/spring/votes";
    let cases: [(&str, &str, Option<&str>, Value, u16); 6] = [
        (
            "unknown option in a batch",
            vote_path,
            None,
            json!({"user": "u", "votes": [{"board": "male-stars", "option": "wy"}, {"board": "male-stars", "option": "x"}]}),
            404,
        ),
        (
            "bad user",
            vote_path,
            None,
            json!({"user": "a\u{7f}", "votes": [{"board": "male-stars", "option": "wy"}]}),
            422,
        ),
        (
            "denied",
            vote_path,
            None,
            json!({"user": "user:banned", "votes": [{"board": "male-stars", "option": "wy"}]}),
            403,
        ),
        (
            "reused key",
            vote_path,
            Some("k1"),
            json!({"user": "other", "votes": [{"board": "male-stars", "option": "wy"}]}),
            409,
        ),
        (
            "bad settings",
            "/v1/campaigns/spring/settings",
            None,
            json!({"boards": {"male-stars": {"decimals": 9}}}),
            422,
        ),
        (
            "bad import row",
            "/v1/campaigns/spring/boards/male-stars/import",
            None,
            json!({"wy": 5, "yyqx": "1.234"}),
            422,
        ),
    ];
    for (what, path, key, body, status) in cases {
        let method = if path == vote_path {
            Method::POST
        } else {
            Method::PUT
        };
        let before = digest(&mut con);
        let mut req = svc.request(method, path, Some(ADMIN)).json(body);
        if let Some(k) = key {
            req = req.header("Idempotency-Key", k);
        }
        let reply = req.send();
        assert_eq!(reply.status, status, "{what}: {}", reply.text);
        assert_eq!(digest(&mut con), before, "{what}: the refusal wrote");
    }
}

/// Removing options through the settings route: the route runs the
/// bounded cleanup (campaign_remove) to the end before it answers, so the
/// options are gone from every period board and nothing is left pending.
#[test]
fn removing_options_through_the_settings_route_finishes_the_cleanup() {
    let server = support::server();
    let svc = Service::start(&server);
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", spring())
        .ok(200);
    for (user, option) in [("u1", "yyqx"), ("u2", "wjk"), ("u3", "wjk")] {
        vote(
            &svc,
            "spring",
            None,
            json!({"user": user, "votes": [{"board": "male-stars", "option": option}]}),
        )
        .ok(200);
    }
    let mut con = support::con(&server);
    let ns = "{c:spring}:";
    let boards: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{ns}b:male-stars:*"))
        .query(&mut con)
        .unwrap();
    assert!(boards.len() >= 4, "{boards:?}");
    let configured = svc
        .admin(
            Method::PUT,
            "/v1/campaigns/spring/settings",
            json!({"boards": {"male-stars": {"remove": ["wjk"]}}}),
        )
        .ok(200);
    assert_eq!(configured, json!({"boards": 1, "options": 0}));
    for key in &boards {
        let score: Option<String> = redis::cmd("ZSCORE")
            .arg(key)
            .arg("wjk")
            .query(&mut con)
            .unwrap();
        assert_eq!(score, None, "{key}");
    }
    let pending: bool = redis::cmd("EXISTS")
        .arg(format!("{ns}removing:male-stars"))
        .query(&mut con)
        .unwrap();
    assert!(!pending);
    // added again, it starts from nothing
    svc.admin(
        Method::PUT,
        "/v1/campaigns/spring/settings",
        json!({"boards": {"male-stars": {"options": {"wjk": {}}}}}),
    )
    .ok(200);
}
