//! The article site over HTTP: every route's happy path, every refusal's
//! status and code, refusals that write nothing, several sites.

use std::collections::BTreeMap;

use redis::Commands;
use reqwest::Method;
use serde_json::json;

use super::{Service, ADMIN};
use redvote_testing::{self as support, digest};

/// Every site route, one after the other, as a backend would use them.
#[test]
fn site_routes_post_vote_read_page_group_and_configure() {
    let server = support::server();
    let svc = Service::start(&server);

    assert_eq!(svc.get("/v1/sites").ok(200), json!({"sites": ["default"]}));

    let posted = svc.json(
        Method::POST,
        "/v1/sites/default/articles",
        json!({"user": "user:1", "title": "Redis in Action", "link": "https://example.com/1"}),
    );
    assert_eq!(posted.status, 201, "{}", posted.text);
    assert_eq!(
        posted.header("location"),
        Some("/v1/sites/default/articles/1")
    );
    assert_eq!(posted.body, json!({"id": "1"}));
    for n in 2..=3 {
        svc.json(
            Method::POST,
            "/v1/sites/default/articles",
            json!({"user": "user:1", "title": format!("t{n}"), "link": "https://example.com/x"}),
        )
        .ok(201);
    }

    // one vote endpoint: up, down, none; a repeat changes nothing
    let vote = |user: &str, id: &str, v: &str| {
        svc.request(
            Method::PUT,
            &format!("/v1/sites/default/articles/{id}/vote"),
            None,
        )
        .header("Idempotency-Key", "ignored-for-article-votes")
        .json(json!({"user": user, "vote": v}))
        .send()
    };
    let up = vote("user:2", "1", "up").ok(200);
    assert_eq!(
        (up["changed"].clone(), up["votes"].clone()),
        (json!(true), json!(2))
    );
    let again = vote("user:2", "1", "up").ok(200);
    assert_eq!(again["changed"], false);
    let down = vote("user:2", "article:1", "down").ok(200);
    assert_eq!(
        (down["previous"].clone(), down["vote"].clone()),
        (json!("up"), json!("down"))
    );
    assert_eq!(
        (down["votes"].clone(), down["downvotes"].clone()),
        (json!(1), json!(1))
    );
    let none = vote("user:2", "1", "none").ok(200);
    assert_eq!(
        (none["vote"].clone(), none["downvotes"].clone()),
        (json!("none"), json!(0))
    );
    vote("user:3", "2", "up").ok(200);
    vote("user:4", "2", "up").ok(200);

    let a = svc.get("/v1/sites/default/articles/2?user=user:3").ok(200);
    assert_eq!(a["id"], "2");
    assert_eq!(a["votes"], 3);
    assert_eq!(a["rank"], 1);
    assert_eq!(a["user_vote"], "up");
    assert!(a["score"].as_f64().unwrap() > 0.0);

    // pages: totals, has_next, every order
    let p1 = svc.get("/v1/sites/default/articles?per_page=2").ok(200);
    assert_eq!(
        (p1["total"].clone(), p1["pages"].clone()),
        (json!(3), json!(2))
    );
    assert_eq!(p1["has_next"], true);
    let ids: Vec<&str> = p1["articles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["2", "3"], "score order: 3 votes, then the newest");
    assert!(
        p1["articles"][0]["score"].is_null(),
        "scores only when asked"
    );
    let p2 = svc
        .get("/v1/sites/default/articles?per_page=2&page=2&scores=true")
        .ok(200);
    assert_eq!(p2["has_next"], false);
    assert_eq!(p2["articles"].as_array().unwrap().len(), 1);
    assert!(p2["articles"][0]["score"].as_f64().is_some());
    let by_time = svc.get("/v1/sites/default/articles?order=time").ok(200);
    assert_eq!(by_time["order"], "time");
    assert_eq!(by_time["articles"][0]["id"], "3");

    // hot and best once configured (admin), after a rerank (admin)
    let config = svc
        .admin(
            Method::PATCH,
            "/v1/sites/default/config",
            json!({"rankings": ["hot", "best"], "page_size": 2}),
        )
        .ok(200);
    assert_eq!(config["rankings"], json!(["hot", "best"]));
    assert_eq!(config["page_size"], 2);
    let reranked = svc
        .admin(
            Method::POST,
            "/v1/sites/default/rerank",
            json!({"start": 0, "count": 10}),
        )
        .ok(200);
    assert_eq!(reranked, json!({"ranked": 3, "next": 0}));
    for order in ["hot", "best", "score"] {
        let page = svc
            .get(&format!("/v1/sites/default/articles?order={order}"))
            .ok(200);
        assert_eq!(page["per_page"], 2, "the site's page_size");
        assert_eq!(page["total"], 3, "{order}");
    }
    assert_eq!(svc.get("/v1/sites/default/config").ok(200), config);

    // groups and group pages
    let joined = svc
        .json(
            Method::POST,
            "/v1/sites/default/articles/1/groups",
            json!({"add": ["redis", "lua"]}),
        )
        .ok(200);
    assert_eq!(joined, json!({"added": 2, "removed": 0}));
    svc.json(
        Method::POST,
        "/v1/sites/default/articles/2/groups",
        json!({"add": ["redis"]}),
    )
    .ok(200);
    let g = svc
        .get("/v1/sites/default/groups/redis/articles?per_page=1")
        .ok(200);
    assert_eq!(
        (g["group"].clone(), g["total"].clone()),
        (json!("redis"), json!(2))
    );
    assert_eq!(g["has_next"], true);
    let left = svc
        .json(
            Method::POST,
            "/v1/sites/default/articles/1/groups",
            json!({"remove": ["lua"]}),
        )
        .ok(200);
    assert_eq!(left, json!({"added": 0, "removed": 1}));

    // what the API wrote is the seeds' layout
    let mut con = support::con(&server);
    let voted: Vec<String> = con.smembers("voted:2").unwrap();
    assert_eq!(voted.len(), 3);
    assert!(con
        .sismember::<_, _, bool>("group:redis", "article:1")
        .unwrap());
}

/// Every refusal of the site's routes: its status, its code, a detail.
#[test]
fn site_refusals_have_their_status_and_code() {
    let server = support::server();
    let mut con = support::con(&server);
    let svc = Service::start(&server);
    let now = support::server_time(&mut con) as u64;
    let site = redvote::Site::default();
    site.post("user:1", "new", "https://e.x/1")
        .run(&mut con)
        .unwrap();
    site.import("user:1", "old", "https://e.x/2", now - 8 * 86400)
        .run(&mut con)
        .unwrap();

    let vote = |id: &str, body: serde_json::Value| {
        svc.json(
            Method::PUT,
            &format!("/v1/sites/default/articles/{id}/vote"),
            body,
        )
    };
    let ok = json!({"user": "u", "vote": "up"});
    assert!(vote("99", ok.clone())
        .problem(404, "REDVOTE_UNKNOWN_ARTICLE")
        .contains("article 99"));
    vote("1:x", ok.clone()).problem(422, "REDVOTE_INVALID_ID");
    assert!(vote("2", ok.clone())
        .problem(409, "REDVOTE_VOTING_CLOSED")
        .contains("article 2"));
    vote("1", json!({"user": "", "vote": "up"})).problem(422, "REDVOTE_INVALID_USER");
    vote("1", json!({"user": "u", "vote": "sideways"})).problem(400, "REDVOTE_BAD_REQUEST");
    vote("1", json!({"user": "u"})).problem(400, "REDVOTE_BAD_REQUEST");
    vote("1", json!({"user": "u", "vote": "up", "extra": 1})).problem(400, "REDVOTE_BAD_REQUEST");
    svc.request(Method::PUT, "/v1/sites/default/articles/1/vote", None)
        .body("application/json", "{\"user\": ")
        .send()
        .problem(400, "REDVOTE_BAD_REQUEST");
    // an array is not the object the schema asks for (serde would read it
    // as the fields in order)
    svc.request(Method::PUT, "/v1/sites/default/articles/1/vote", None)
        .body("application/json", " [\"u\", \"up\"]")
        .send()
        .problem(400, "REDVOTE_BAD_REQUEST");
    // the field path is named
    assert!(vote("1", json!({"user": "u", "vote": 7}))
        .problem(400, "REDVOTE_BAD_REQUEST")
        .contains("vote"));
    svc.request(Method::PUT, "/v1/sites/default/articles/1/vote", None)
        .body("text/plain", "user=u")
        .send()
        .problem(415, "REDVOTE_UNSUPPORTED_MEDIA_TYPE");

    svc.get("/v1/sites/nope/articles")
        .problem(404, "REDVOTE_UNKNOWN_SITE");
    svc.get("/v1/sites/default/articles/99")
        .problem(404, "REDVOTE_UNKNOWN_ARTICLE");
    svc.get("/v1/sites/default/articles?per_page=101")
        .problem(422, "REDVOTE_INVALID_NUMBER");
    svc.get("/v1/sites/default/articles?page=0")
        .problem(422, "REDVOTE_INVALID_NUMBER");
    svc.get("/v1/sites/default/articles?page=x")
        .problem(400, "REDVOTE_BAD_REQUEST");
    svc.get("/v1/sites/default/articles?order=random")
        .problem(400, "REDVOTE_BAD_REQUEST");
    svc.get("/v1/sites/default/groups/a%3Ab/articles")
        .problem(422, "REDVOTE_INVALID_GROUP");
    svc.json(
        Method::POST,
        "/v1/sites/default/articles",
        json!({"user": "u", "title": "", "link": "https://e.x"}),
    )
    .problem(422, "REDVOTE_INVALID_TEXT");
    svc.json(
        Method::POST,
        "/v1/sites/default/articles/1/groups",
        json!({}),
    )
    .problem(422, "REDVOTE_USAGE");
    svc.admin(
        Method::PATCH,
        "/v1/sites/default/config",
        json!({"page_size": 0}),
    )
    .problem(422, "REDVOTE_INVALID_CONFIG");
    svc.admin(
        Method::PATCH,
        "/v1/sites/default/config",
        json!({"vote_score": 100}),
    )
    .problem(409, "REDVOTE_CONFIG_LOCKED");
    svc.admin(
        Method::POST,
        "/v1/sites/default/rerank",
        json!({"count": 0}),
    )
    .problem(422, "REDVOTE_INVALID_NUMBER");
}

/// A refused call writes nothing: `DEBUG DIGEST` before and after.
#[test]
fn refused_site_calls_write_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    let svc = Service::start(&server);
    let now = support::server_time(&mut con) as u64;
    let site = redvote::Site::default();
    site.post("user:1", "new", "https://e.x/1")
        .run(&mut con)
        .unwrap();
    site.import("user:1", "old", "https://e.x/2", now - 8 * 86400)
        .run(&mut con)
        .unwrap();
    site.groups("1", &["g"], &[]).run(&mut con).unwrap();

    let cases: [(&str, Method, &str, serde_json::Value, u16); 6] = [
        (
            "unknown article",
            Method::PUT,
            "/v1/sites/default/articles/9/vote",
            json!({"user": "u", "vote": "up"}),
            404,
        ),
        (
            "closed",
            Method::PUT,
            "/v1/sites/default/articles/2/vote",
            json!({"user": "u", "vote": "down"}),
            409,
        ),
        (
            "bad user",
            Method::PUT,
            "/v1/sites/default/articles/1/vote",
            json!({"user": "a\u{1}b", "vote": "up"}),
            422,
        ),
        (
            "bad group",
            Method::POST,
            "/v1/sites/default/articles/1/groups",
            json!({"add": ["ok", "x*"]}),
            422,
        ),
        (
            "bad link",
            Method::POST,
            "/v1/sites/default/articles",
            json!({"user": "u", "title": "t", "link": ""}),
            422,
        ),
        (
            "bad config",
            Method::PATCH,
            "/v1/sites/default/config",
            json!({"page_size": 5, "window": 1}),
            422,
        ),
    ];
    for (what, method, path, body, status) in cases {
        let before = digest(&mut con);
        let reply = svc.request(method, path, Some(ADMIN)).json(body).send();
        assert_eq!(reply.status, status, "{what}: {}", reply.text);
        assert_eq!(digest(&mut con), before, "{what}: the refusal wrote");
    }
}

/// `--site NAME=PREFIX` (here the sites given to the service): each site
/// under its own prefix, no other name. (A bad `--site` refused on the
/// command line: crates/redvote-cli/tests/serve/site.rs.)
#[test]
fn sites_map_names_to_prefixes() {
    let server = support::server();
    let svc = Service::with_setup(&server, |s| {
        s.sites = BTreeMap::from([
            ("blue".to_string(), redvote::Site::new("{blue}:")),
            ("seeds".to_string(), redvote::Site::new("")),
        ]);
    });
    assert_eq!(
        svc.get("/v1/sites").ok(200),
        json!({"sites": ["blue", "seeds"]})
    );
    let post = json!({"user": "u", "title": "t", "link": "https://e.x"});
    svc.json(Method::POST, "/v1/sites/blue/articles", post.clone())
        .ok(201);
    svc.json(Method::POST, "/v1/sites/blue/articles", post.clone())
        .ok(201);
    svc.json(Method::POST, "/v1/sites/seeds/articles", post)
        .ok(201);
    svc.get("/v1/sites/default/articles")
        .problem(404, "REDVOTE_UNKNOWN_SITE");
    let mut con = support::con(&server);
    let blue: u64 = con.get("{blue}:article:").unwrap();
    let seeds: u64 = con.get("article:").unwrap();
    assert_eq!((blue, seeds), (2, 1));
    assert_eq!(svc.get("/v1/sites/blue/articles").ok(200)["total"], 2);
}
