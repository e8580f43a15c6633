//! What the admin page needs beside the API of part A: the campaign list,
//! the settings read back in the configure shape, the assets, and the live
//! top over SSE (its events and its auth; its end on SIGTERM is a process
//! test: crates/redvote-cli/tests/serve/admin.rs).

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};

use super::{Service, ADMIN};
use redvote_testing as support;
use redvote_testing::http::Events;

fn spring() -> Value {
    serde_json::from_str(include_str!("../../../../docs/spring2026.json")).unwrap()
}

/// The campaign list pages through SCAN; settings read back as configured.
#[test]
fn campaigns_are_listed_and_settings_read_back() {
    let server = support::server();
    let svc = Service::start(&server);
    for name in ["spring", "autumn"] {
        svc.admin(
            Method::PUT,
            &format!("/v1/campaigns/{name}/settings"),
            spring(),
        )
        .ok(200);
    }
    // every step is small; the union over the steps is every campaign
    let (mut names, mut cursor) = (Vec::new(), "0".to_string());
    for _ in 0..1000 {
        let page = svc
            .request(
                Method::GET,
                &format!("/v1/campaigns?count=1&cursor={cursor}"),
                Some(ADMIN),
            )
            .send()
            .ok(200);
        names.extend(
            page["campaigns"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap().to_string()),
        );
        cursor = page["next"].as_str().unwrap().to_string();
        if cursor == "0" {
            break;
        }
    }
    names.sort();
    names.dedup();
    assert_eq!(names, ["autumn", "spring"]);
    svc.get("/v1/campaigns")
        .problem(401, "REDVOTE_UNAUTHORIZED");
    // not a cursor; a cluster's NODE-CURSOR on a single server
    for cursor in ["x", "1-5", "-5", "99999999999999999999999"] {
        svc.request(
            Method::GET,
            &format!("/v1/campaigns?cursor={cursor}"),
            Some(ADMIN),
        )
        .send()
        .problem(422, "REDVOTE_USAGE");
    }

    let got = svc
        .request(Method::GET, "/v1/campaigns/spring/settings", Some(ADMIN))
        .send()
        .ok(200);
    let want = spring();
    assert_eq!(got["offset"], want["offset"]);
    assert_eq!(got["limits"], want["limits"]);
    assert!(got.get("deny").is_none(), "deny lists are not read back");
    for (board, spec) in want["boards"].as_object().unwrap() {
        let b = &got["boards"][board];
        for field in ["periods", "ties", "carry", "decimals"] {
            if !spec[field].is_null() {
                assert_eq!(b[field], spec[field], "{board}.{field}");
            }
        }
        for (option, o) in spec["options"].as_object().unwrap() {
            let weight = o.get("weight").cloned().unwrap_or(json!(1));
            assert_eq!(b["options"][option]["weight"], weight, "{board}/{option}");
        }
    }
    // what was read back configures the same campaign again
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", got)
        .ok(200);
    svc.request(Method::GET, "/v1/campaigns/nope/settings", Some(ADMIN))
        .send()
        .problem(404, "REDVOTE_UNKNOWN_CAMPAIGN");
    svc.get("/v1/campaigns/spring/settings")
        .problem(401, "REDVOTE_UNAUTHORIZED");
}

/// The page and its assets are served from the binary.
#[test]
fn the_admin_page_is_served() {
    let server = support::server();
    let svc = Service::start(&server);
    let page = svc.get("/admin");
    assert_eq!(page.status, 200);
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    assert!(page.text.contains("/admin/admin.js"));
    let js = svc.get("/admin/admin.js");
    assert_eq!(js.status, 200);
    assert!(js.text.contains("EventSource"));
    assert_eq!(svc.get("/admin/admin.css").status, 200);
}

/// `user` votes for `option` on the board `male-stars` of `spring`.
fn cast(svc: &Service, user: &str, option: &str) {
    svc.vote("spring", user, "male-stars", option).ok(200);
}

/// One event at once, one per change, none without a change; with the API
/// token set, the stream takes the token as a header or a ticket, never a
/// token in the URL.
#[test]
fn the_live_top_streams_changes() {
    let server = support::server();
    let svc = Service::with_options(&server, |o| {
        o.admin_token = Some(ADMIN.into());
        o.api_token = Some("api-tok".into());
    });
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", spring())
        .ok(200);
    let url = |q: &str| {
        format!(
            "{}/v1/campaigns/spring/boards/male-stars/top/stream?n=3{q}",
            svc.base
        )
    };
    assert_eq!(Events::open(&url("")).err().unwrap().0, 401);
    // tokens in the URL are not read (a proxy may log URLs): access_token
    // is not a parameter of the stream (400, as any unknown one)
    for token in ["api-tok", ADMIN] {
        let (status, body) = Events::open(&url(&format!("&access_token={token}")))
            .err()
            .unwrap();
        assert_eq!(status, 400, "{token}: {body}");
        assert!(body.contains("access_token"), "{body}");
    }
    let mine = ticket(&svc, "spring", "male-stars");
    assert_eq!(mine["required"], true);
    let missing = format!(
        "{}/v1/campaigns/spring/boards/nope/top/stream?ticket={}",
        svc.base,
        ticket(&svc, "spring", "nope")["ticket"].as_str().unwrap()
    );
    assert_eq!(Events::open(&missing).err().unwrap().0, 404);

    let events = Events::open(&url(&format!(
        "&ticket={}",
        mine["ticket"].as_str().unwrap()
    )))
    .unwrap();
    let (name, first) = events
        .next(Duration::from_secs(5))
        .expect("an event at once");
    assert_eq!(name, "top");
    assert_eq!(first["board"], "male-stars");
    assert_eq!(first["size"], 0);
    assert!(
        events.next(Duration::from_millis(1500)).is_none(),
        "no change, no event"
    );

    let api = |user: &str, option: &str| {
        svc.request(Method::POST, "/v1/campaigns/spring/votes", Some("api-tok"))
            .json(json!({"user": user, "votes": [{"board": "male-stars", "option": option}]}))
            .send()
            .ok(200);
    };
    api("u1", "yyqx");
    // the top and the participants are two reads: an event may show the
    // participants of a vote whose score the next event shows
    let deadline = Instant::now() + Duration::from_secs(5);
    let after = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let (name, e) = events.next(left).expect("an event after a vote");
        assert_eq!(name, "top", "{e}");
        if e["size"] == 1 {
            break e;
        }
    };
    assert_eq!(after["entries"][0]["member"], "yyqx", "{after}");
    assert_eq!(after["entries"][0]["participants"], 1);
    assert_eq!(after["participants"], 1);
}

/// `POST .../top/ticket` of `campaign`/`board` with the admin token.
fn ticket(svc: &Service, campaign: &str, board: &str) -> Value {
    svc.request(
        Method::POST,
        &format!("/v1/campaigns/{campaign}/boards/{board}/top/ticket"),
        Some(ADMIN),
    )
    .send()
    .ok(200)
}

/// A stream ticket: issued for the admin token only, opens the stream of
/// its own campaign and board, and nothing once expired or altered.
#[test]
fn stream_tickets_open_their_board_only() {
    let server = support::server();
    let svc = Service::with_options(&server, |o| {
        o.admin_token = Some(ADMIN.into());
        o.api_token = Some("api-tok".into());
    });
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", spring())
        .ok(200);
    svc.admin(Method::PUT, "/v1/campaigns/autumn/settings", spring())
        .ok(200);
    let path = "/v1/campaigns/spring/boards/male-stars/top/ticket";
    // the admin token only: not the API token, not none
    svc.request(Method::POST, path, None)
        .send()
        .problem(401, "REDVOTE_UNAUTHORIZED");
    svc.request(Method::POST, path, Some("api-tok"))
        .send()
        .problem(401, "REDVOTE_UNAUTHORIZED");
    svc.request(
        Method::POST,
        "/v1/campaigns/no:pe/boards/x/top/ticket",
        Some(ADMIN),
    )
    .send()
    .problem(422, "REDVOTE_INVALID_NAME");
    let reply = svc.request(Method::POST, path, Some(ADMIN)).send();
    assert_eq!(reply.header("cache-control"), Some("no-store"));
    let t = reply.ok(200);
    assert_eq!(t["expires_in"], 60);
    let ticket = t["ticket"].as_str().unwrap().to_string();
    assert!(!ticket.contains(ADMIN) && !ticket.contains("api-tok"));

    let stream = |campaign: &str, board: &str, ticket: &str| {
        Events::open(&format!(
            "{}/v1/campaigns/{campaign}/boards/{board}/top/stream?ticket={ticket}",
            svc.base
        ))
    };
    let events = stream("spring", "male-stars", &ticket).expect("its own board");
    assert_eq!(events.next(Duration::from_secs(5)).unwrap().0, "top");
    // the same ticket again (EventSource reconnects with the same URL)
    assert!(stream("spring", "male-stars", &ticket).is_ok());
    // another board, another campaign
    let other = stream("spring", "female-stars", &ticket).err().unwrap();
    assert_eq!(other.0, 401, "{}", other.1);
    assert!(other.1.contains("REDVOTE_UNAUTHORIZED"), "{}", other.1);
    assert_eq!(
        stream("autumn", "male-stars", &ticket).err().unwrap().0,
        401
    );
    // forged: another expiry under the same mac, a changed mac, nonsense
    let (expiry, mac) = ticket.split_once('.').unwrap();
    let expiry: u64 = expiry.parse().unwrap();
    let mut flipped = mac.to_string();
    let last = if flipped.ends_with('0') { "1" } else { "0" };
    flipped.replace_range(mac.len() - 1.., last);
    for forged in [
        format!("{}.{mac}", expiry - 61),
        format!("{}.{mac}", expiry + 1),
        format!("{expiry}.{flipped}"),
        format!("{expiry}.{}", "0".repeat(64)),
        "api-tok".to_string(),
        String::new(),
    ] {
        assert_eq!(
            stream("spring", "male-stars", &forged).err().unwrap().0,
            401,
            "{forged}"
        );
    }
    // a ticket of another service (another admin token) is forged here
    let other_server = support::server();
    let elsewhere = Service::with_options(&other_server, |o| {
        o.admin_token = Some("another-admin".into());
        o.api_token = Some("api-tok".into());
    });
    let foreign = elsewhere
        .request(Method::POST, path, Some("another-admin"))
        .send()
        .ok(200);
    assert_eq!(
        stream("spring", "male-stars", foreign["ticket"].as_str().unwrap())
            .err()
            .unwrap()
            .0,
        401
    );
}

/// Without an API token the stream needs nothing at all (the page then
/// sends nothing); a ticket says it is not required; a bad ticket that is
/// sent is still refused. Without an admin token no ticket is issued.
#[test]
fn an_open_stream_needs_no_token_in_its_url() {
    let server = support::server();
    let svc = Service::start(&server);
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", spring())
        .ok(200);
    cast(&svc, "u1", "yyqx");
    let url = format!(
        "{}/v1/campaigns/spring/boards/male-stars/top/stream",
        svc.base
    );
    let events = Events::open(&url).expect("open without a token");
    let (_, top) = events.next(Duration::from_secs(5)).unwrap();
    assert_eq!(top["entries"][0]["member"], "yyqx");
    let t = ticket(&svc, "spring", "male-stars");
    assert_eq!(t["required"], false);
    assert!(Events::open(&format!("{url}?ticket={}", t["ticket"].as_str().unwrap())).is_ok());
    assert_eq!(
        Events::open(&format!("{url}?ticket=1.00")).err().unwrap().0,
        401
    );

    let open = Service::with_options(&server, |_| {});
    open.request(
        Method::POST,
        "/v1/campaigns/spring/boards/male-stars/top/ticket",
        Some(ADMIN),
    )
    .send()
    .problem(403, "REDVOTE_ADMIN_DISABLED");
}

/// The stream's 200 is described as `text/event-stream` with a schema,
/// and every `$ref` of the document resolves.
#[test]
fn the_stream_is_described_as_events() {
    let server = support::server();
    let svc = Service::start(&server);
    let doc = svc.get("/openapi.json").ok(200);
    let ok = &doc["paths"]["/v1/campaigns/{campaign}/boards/{board}/top/stream"]["get"]
        ["responses"]["200"]["content"];
    let schema = &ok["text/event-stream"]["schema"];
    assert_eq!(schema["$ref"], "#/components/schemas/TopEvent", "{ok}");
    let ticket = &doc["paths"]["/v1/campaigns/{campaign}/boards/{board}/top/ticket"]["post"];
    assert!(ticket["security"].to_string().contains("admin_token"));
    let params =
        &doc["paths"]["/v1/campaigns/{campaign}/boards/{board}/top/stream"]["get"]["parameters"];
    let names: Vec<&str> = params
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"ticket") && !names.contains(&"access_token"),
        "{names:?}"
    );
    let schemas = &doc["components"]["schemas"];
    // an event as its fields, its data a string of JSON (as schemathesis
    // and OpenAPI 3.2's itemSchema read text/event-stream)
    let kinds = schemas["TopEvent"]["oneOf"].as_array().unwrap();
    let top = &kinds[0]["properties"];
    assert_eq!(top["event"]["enum"], json!(["top"]));
    assert_eq!(top["data"]["type"], "string");
    assert_eq!(
        top["data"]["contentSchema"]["$ref"],
        "#/components/schemas/LiveTop"
    );
    assert_eq!(
        kinds[1]["properties"]["data"]["contentSchema"]["$ref"],
        "#/components/schemas/Problem"
    );
    for name in ["TopEvent", "LiveTop", "LiveEntry", "StreamTicket"] {
        assert!(schemas[name].is_object(), "{name} is not in the components");
    }
    fn refs<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    match (k.as_str(), v) {
                        ("$ref", Value::String(r)) => out.push(r),
                        _ => refs(v, out),
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }
    let mut all = Vec::new();
    refs(&doc, &mut all);
    for r in all {
        let name = r.strip_prefix("#/components/schemas/").unwrap_or(r);
        assert!(schemas[name].is_object(), "{r} does not resolve");
    }
}

/// The back office's reads: the deny lists and a board's options with
/// their display data (which the settings read leaves out); admin only,
/// names checked, 404 for what does not exist.
#[test]
fn deny_lists_and_display_data_are_read_back() {
    let server = support::server();
    let svc = Service::start(&server);
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", spring())
        .ok(200);
    let deny = svc
        .request(Method::GET, "/v1/campaigns/spring/deny", Some(ADMIN))
        .send()
        .ok(200);
    assert_eq!(deny, json!({"users": ["user:banned"], "channels": []}));
    svc.admin(
        Method::PUT,
        "/v1/campaigns/spring/settings",
        json!({"deny": {"users": ["b", "a"], "channels": ["spam"]}}),
    )
    .ok(200);
    let deny = svc
        .request(Method::GET, "/v1/campaigns/spring/deny", Some(ADMIN))
        .send()
        .ok(200);
    assert_eq!(deny, json!({"users": ["a", "b"], "channels": ["spam"]}));

    let got = svc
        .request(
            Method::GET,
            "/v1/campaigns/spring/boards/male-stars/options",
            Some(ADMIN),
        )
        .send()
        .ok(200);
    assert_eq!(
        got,
        json!({"board": "male-stars", "options": [
            {"option": "wjk", "weight": 1, "data": {"name": "Karry Wang"}},
            {"option": "wy", "weight": 1, "data": {"name": "Roy Wang"}},
            {"option": "yyqx", "weight": 2, "data": {"name": "Jackson Yee", "picture": "https://example.com/yyqx.jpg"}},
        ]})
    );
    // an option without data, a board without options
    svc.admin(
        Method::PUT,
        "/v1/campaigns/spring/settings",
        json!({"boards": {"empty": {"periods": ["total"]}, "male-stars": {"options": {"new": {"weight": 3}}}}}),
    )
    .ok(200);
    let got = svc
        .request(
            Method::GET,
            "/v1/campaigns/spring/boards/male-stars/options",
            Some(ADMIN),
        )
        .send()
        .ok(200);
    assert_eq!(
        got["options"][0],
        json!({"option": "new", "weight": 3, "data": {}})
    );
    let got = svc
        .request(
            Method::GET,
            "/v1/campaigns/spring/boards/empty/options",
            Some(ADMIN),
        )
        .send()
        .ok(200);
    assert_eq!(got, json!({"board": "empty", "options": []}));

    // admin only
    for path in [
        "/v1/campaigns/spring/deny",
        "/v1/campaigns/spring/boards/male-stars/options",
    ] {
        svc.get(path).problem(401, "REDVOTE_UNAUTHORIZED");
        svc.request(Method::GET, path, Some("wrong"))
            .send()
            .problem(401, "REDVOTE_UNAUTHORIZED");
    }
    // what does not exist; malformed names
    for (path, status, code) in [
        ("/v1/campaigns/nope/deny", 404, "REDVOTE_UNKNOWN_CAMPAIGN"),
        (
            "/v1/campaigns/nope/boards/male-stars/options",
            404,
            "REDVOTE_UNKNOWN_CAMPAIGN",
        ),
        (
            "/v1/campaigns/spring/boards/nope/options",
            404,
            "REDVOTE_UNKNOWN_BOARD",
        ),
        ("/v1/campaigns/no%20pe/deny", 422, "REDVOTE_INVALID_NAME"),
        (
            "/v1/campaigns/spring/boards/no%20pe/options",
            422,
            "REDVOTE_INVALID_NAME",
        ),
        (
            "/v1/campaigns/spring/boards/a:b/options",
            422,
            "REDVOTE_INVALID_NAME",
        ),
    ] {
        svc.request(Method::GET, path, Some(ADMIN))
            .send()
            .problem(status, code);
    }
    // reads only: nothing changed by any of them
    let mut con = support::con(&server);
    let before = support::digest(&mut con);
    svc.request(Method::GET, "/v1/campaigns/spring/deny", Some(ADMIN))
        .send()
        .ok(200);
    svc.request(
        Method::GET,
        "/v1/campaigns/spring/boards/male-stars/options",
        Some(ADMIN),
    )
    .send()
    .ok(200);
    assert_eq!(support::digest(&mut con), before);
}

/// Start and end are cleared with `null` (the page's empty date fields):
/// the settings read leaves them out again and votes are taken at any
/// time; an absent field leaves the stored date as it is.
#[test]
fn start_and_end_are_cleared_with_null() {
    let server = support::server();
    let svc = Service::start(&server);
    let path = "/v1/campaigns/gala/settings";
    let board = json!({"b": {"options": {"o": {}}}});
    // a window that closed long ago: votes refused
    svc.admin(
        Method::PUT,
        path,
        json!({"start": 1_000_000, "end": 2_000_000, "boards": board}),
    )
    .ok(200);
    let vote = || {
        svc.request(Method::POST, "/v1/campaigns/gala/votes", Some(ADMIN))
            .json(json!({"user": "u1", "votes": [{"board": "b", "option": "o"}]}))
            .send()
    };
    assert_eq!(vote().status, 409, "a vote after the end");
    // absent: left as it is
    svc.admin(Method::PUT, path, json!({"vote_id_ttl": 60}))
        .ok(200);
    let got = svc.request(Method::GET, path, Some(ADMIN)).send().ok(200);
    assert_eq!(
        (got["start"].clone(), got["end"].clone()),
        (json!(1_000_000), json!(2_000_000))
    );
    // null: cleared
    svc.admin(Method::PUT, path, json!({"end": null})).ok(200);
    let got = svc.request(Method::GET, path, Some(ADMIN)).send().ok(200);
    assert_eq!(got["start"], 1_000_000, "{got}");
    assert!(got.get("end").is_none(), "{got}");
    vote().ok(200);
    svc.admin(Method::PUT, path, json!({"start": null, "end": null}))
        .ok(200);
    let got = svc.request(Method::GET, path, Some(ADMIN)).send().ok(200);
    assert!(
        got.get("start").is_none() && got.get("end").is_none(),
        "{got}"
    );
    vote().ok(200);
    // and set again
    svc.admin(Method::PUT, path, json!({"end": 2_000_000}))
        .ok(200);
    assert_eq!(vote().status, 409);
}
