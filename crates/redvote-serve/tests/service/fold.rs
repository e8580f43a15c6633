//! Buffered campaigns (`"mode": "buffered"`) over HTTP: the background
//! folder brings accepted votes to the boards with no fold asked for, and
//! the board reads say how far they are folded; the fold routes; a
//! settings PUT, a void and a range void on a buffer larger than one call
//! folds (REDVOTE_UNFOLDED) fold it and succeed; shutdown does not wait
//! for a fold stuck on Redis.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};

use super::{Service, ADMIN};
use redvote_testing::{self as support, eventually, wait_until, PATIENCE};

/// A buffered campaign of one board `b`, options `x` and `y`.
fn buffered(fold_ms: u64) -> Value {
    json!({"mode": "buffered", "fold_ms": fold_ms,
           "boards": {"b": {"options": {"x": {}, "y": {}}}}})
}

/// `name` configured straight through the driver: not in the campaign
/// registry, so the background folder never folds it and only the calls
/// of the test do.
fn unregistered(con: &mut redis::Connection, name: &str, settings: Value) -> redvote::Campaign {
    let c = redvote::Campaign::new(name);
    let settings: redvote::CampaignSettings = serde_json::from_value(settings).unwrap();
    c.configure(&settings).run(con).unwrap();
    c
}

/// The real (one a vote) total of each option of board `b`, from the
/// top, by option.
fn totals(svc: &Service, name: &str) -> (Value, Vec<(String, String)>) {
    let top = svc
        .get(&format!("/v1/campaigns/{name}/top?boards=b&kind=real"))
        .ok(200);
    let mut entries: Vec<(String, String)> = top["boards"][0]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let member = e["member"].as_str().unwrap().to_string();
            (member, e["score"].as_str().unwrap().to_string())
        })
        .collect();
    entries.sort();
    (top, entries)
}

/// The standing and the neighbourhood of option `x` of board `b`.
fn member_reads(svc: &Service, name: &str) -> (Value, Value) {
    let at = format!("/v1/campaigns/{name}/boards/b");
    (
        svc.get(&format!("{at}/standing?members=x")).ok(200),
        svc.get(&format!("{at}/around/x")).ok(200),
    )
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(m, s)| (m.to_string(), s.to_string()))
        .collect()
}

/// A line of the metrics text and its value (0 when absent).
fn metric(text: &str, name_and_labels: &str) -> f64 {
    text.lines()
        .find_map(|l| {
            l.strip_prefix(name_and_labels)
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(0.0)
}

/// `count` well-formed buffered votes for `option` of board `b`, arrived
/// now, by users `bulk0`, `bulk1`, ..., laid out as lib/fold keeps them:
/// the option's list, its place in `<ns>bufs`, the root's count and due
/// time.
fn fill_buffer(con: &mut redis::Connection, c: &redvote::Campaign, option: &str, count: usize) {
    let now = support::server_time(con) as u64;
    let ms = now * 1000;
    let lines: Vec<String> = (0..count)
        .map(|i| format!("1\t{ms}\t0\t{now}\tbulk{i}\t\t\t1"))
        .collect();
    let ns = c.namespace();
    redis::pipe()
        .cmd("RPUSH")
        .arg(format!("{ns}buf:b:{option}"))
        .arg(&lines)
        .ignore()
        .cmd("ZADD")
        .arg(format!("{ns}bufs"))
        .arg("NX")
        .arg(ms * 64)
        .arg(format!("b:{option}"))
        .ignore()
        .cmd("HINCRBY")
        .arg(c.root_key())
        .arg("buffered")
        .arg(count)
        .ignore()
        .cmd("HSETNX")
        .arg(c.root_key())
        .arg("fold_due")
        .arg(ms + 200)
        .ignore()
        .query::<()>(con)
        .unwrap();
}

#[test]
fn a_buffered_campaigns_votes_reach_the_top_without_a_fold() {
    let server = support::server();
    let svc = Service::start(&server);
    svc.admin(Method::PUT, "/v1/campaigns/hot/settings", buffered(100))
        .ok(200);
    let settings = svc
        .request(Method::GET, "/v1/campaigns/hot/settings", Some(ADMIN))
        .send()
        .ok(200);
    assert_eq!(
        (&settings["mode"], &settings["fold_ms"]),
        (&json!("buffered"), &json!(100))
    );

    // one call into an empty buffer: the vote itself never folds it (it
    // only folds a buffer whose oldest vote is fold_ms old), so only the
    // background folder can bring it to the boards
    let voted = svc
        .json(
            Method::POST,
            "/v1/campaigns/hot/votes",
            json!({"user": "u1", "votes": [{"board": "b", "option": "x"}, {"board": "b", "option": "y"}]}),
        )
        .ok(200);
    for ballot in voted["ballots"].as_array().unwrap() {
        assert_eq!(ballot["shown"], json!([]), "{voted}");
        assert!(ballot["folded"].is_u64(), "{voted}");
    }
    let took = wait_until("the buffered vote on the top", PATIENCE, || {
        totals(&svc, "hot").1 == pairs(&[("x", "1"), ("y", "1")])
    });
    let (top, _) = totals(&svc, "hot");
    assert!(top["boards"][0]["folded"].is_u64(), "{top}");
    let (standing, around) = member_reads(&svc, "hot");
    assert!(standing["standings"][0]["folded"].is_u64(), "{standing}");
    assert!(around["folded"].is_u64(), "{around}");
    // the buffer is empty: no lag
    let state = eventually("an empty buffer", PATIENCE, || {
        let s = svc
            .request(Method::GET, "/v1/campaigns/hot/fold", Some(ADMIN))
            .send()
            .ok(200);
        (s["buffered"] == 0).then_some(s)
    });
    assert_eq!(
        (&state["mode"], &state["lag_ms"], &state["oldest"]),
        (&json!("buffered"), &json!(0), &Value::Null)
    );
    let text = svc.get("/metrics").text;
    assert!(
        metric(&text, "redvote_votes_folded_total ") >= 1.0,
        "{text}"
    );
    assert!(metric(&text, "redvote_folds_total ") >= 1.0, "{text}");
    assert!(
        metric(&text, "redvote_fold_lag_seconds_count ") >= 1.0,
        "{text}"
    );
    eprintln!("a buffered vote reached the top {took:?} after it was accepted (fold_ms 100)");

    // an immediate campaign answers as before: scores, no `folded`
    svc.admin(
        Method::PUT,
        "/v1/campaigns/now/settings",
        json!({"boards": {"b": {"options": {"x": {}}}}}),
    )
    .ok(200);
    let voted = svc.vote("now", "u1", "b", "x").ok(200);
    assert!(voted["ballots"][0].get("folded").is_none(), "{voted}");
    assert_eq!(voted["ballots"][0]["shown"][0]["score"], "1.00");
    let (top, _) = totals(&svc, "now");
    assert!(top["boards"][0].get("folded").is_none(), "{top}");
    let (standing, around) = member_reads(&svc, "now");
    assert!(
        standing["standings"][0].get("folded").is_none(),
        "{standing}"
    );
    assert!(around.get("folded").is_none(), "{around}");
}

#[test]
fn the_fold_route_folds_what_is_buffered() {
    let server = support::server();
    let mut con = support::con(&server);
    unregistered(&mut con, "cold", buffered(60_000));
    let svc = Service::start(&server);
    for (user, option) in [("u1", "x"), ("u2", "x"), ("u3", "y")] {
        svc.vote("cold", user, "b", option).ok(200);
    }
    // accepted, not on the boards
    assert_eq!(totals(&svc, "cold").1, pairs(&[]));
    let state = svc
        .request(Method::GET, "/v1/campaigns/cold/fold", Some(ADMIN))
        .send()
        .ok(200);
    assert_eq!(state["buffered"], 3, "{state}");
    assert!(
        state["oldest"].as_u64().unwrap() <= state["now"].as_u64().unwrap(),
        "{state}"
    );

    let fold = |body: Option<Value>| {
        let req = svc.request(Method::POST, "/v1/campaigns/cold/fold", Some(ADMIN));
        match body {
            Some(b) => req.json(b).send(),
            None => req.send(),
        }
    };
    let first = fold(Some(json!({"max": 2}))).ok(200);
    assert_eq!(
        (&first["folded"], &first["left"]),
        (&json!(2), &json!(1)),
        "{first}"
    );
    assert_eq!(totals(&svc, "cold").1, pairs(&[("x", "2")]));
    // no body: everything left
    let rest = fold(None).ok(200);
    assert_eq!(
        (&rest["folded"], &rest["left"], &rest["overflow"]),
        (&json!(1), &json!(0), &json!(0)),
        "{rest}"
    );
    assert_eq!(totals(&svc, "cold").1, pairs(&[("x", "2"), ("y", "1")]));
    for body in [json!({}), Value::Null] {
        let done = fold(Some(body)).ok(200);
        assert_eq!((&done["folded"], &done["left"]), (&json!(0), &json!(0)));
    }

    // refusals: a max out of range, an unknown campaign, no admin token
    let digest = support::digest(&mut con);
    fold(Some(json!({"max": 0}))).problem(422, "REDVOTE_INVALID_NUMBER");
    fold(Some(json!({"max": 2, "extra": 1}))).problem(400, "REDVOTE_BAD_REQUEST");
    svc.request(Method::POST, "/v1/campaigns/nowhere/fold", Some(ADMIN))
        .send()
        .problem(404, "REDVOTE_UNKNOWN_CAMPAIGN");
    svc.request(Method::GET, "/v1/campaigns/nowhere/fold", Some(ADMIN))
        .send()
        .problem(404, "REDVOTE_UNKNOWN_CAMPAIGN");
    svc.request(Method::POST, "/v1/campaigns/cold/fold", None)
        .send()
        .problem(401, "REDVOTE_UNAUTHORIZED");
    assert_eq!(support::digest(&mut con), digest);
}

#[test]
fn configure_and_the_voids_fold_a_buffer_too_large_for_one_call() {
    let server = support::server();
    let mut con = support::con(&server);
    let mut settings = buffered(60_000);
    settings["vote_log"] = json!(100);
    let c = unregistered(&mut con, "big", settings);
    let svc = Service::start(&server);
    svc.request(Method::POST, "/v1/campaigns/big/votes", None)
        .header("Idempotency-Key", "k1")
        .json(json!({"user": "u0", "votes": [{"board": "b", "option": "y"}]}))
        .send()
        .ok(200);
    svc.vote("big", "u9", "b", "y").ok(200);
    fill_buffer(&mut con, &c, "x", 1500);
    // the script alone refuses: more than one call folds, nothing written
    let digest = support::digest(&mut con);
    let settings: redvote::CampaignSettings =
        serde_json::from_value(json!({"fold_ms": 5000})).unwrap();
    let refused = c.configure(&settings).run(&mut con).unwrap_err();
    assert_eq!(refused.code(), Some(redvote::Code::Unfolded), "{refused}");
    assert_eq!(support::digest(&mut con), digest);

    // the route folds and sends the settings again
    svc.admin(
        Method::PUT,
        "/v1/campaigns/big/settings",
        json!({"fold_ms": 5000}),
    )
    .ok(200);
    let buf: u64 = redis::cmd("ZCARD")
        .arg(format!("{}bufs", c.namespace()))
        .query(&mut con)
        .unwrap();
    assert_eq!(buf, 0);
    assert_eq!(totals(&svc, "big").1, pairs(&[("x", "1500"), ("y", "2")]));
    let settings = svc
        .request(Method::GET, "/v1/campaigns/big/settings", Some(ADMIN))
        .send()
        .ok(200);
    assert_eq!(settings["fold_ms"], 5000);

    // a void, the same
    fill_buffer(&mut con, &c, "x", 1500);
    let voided = svc
        .admin(Method::POST, "/v1/campaigns/big/votes/k1/void", json!({}))
        .ok(200);
    assert_eq!(voided["already"], false, "{voided}");
    assert_eq!(totals(&svc, "big").1, pairs(&[("x", "3000"), ("y", "1")]));

    // and a range void
    fill_buffer(&mut con, &c, "x", 1500);
    let to = support::server_time(&mut con) + 3600;
    let step = svc
        .admin(
            Method::POST,
            "/v1/campaigns/big/votes/void",
            json!({"user": "u9", "from": 0, "to": to}),
        )
        .ok(200);
    assert_eq!(
        (&step["voided"], &step["next"]),
        (&json!(1), &json!("0")),
        "{step}"
    );
    assert_eq!(totals(&svc, "big").1, pairs(&[("x", "4500")]));
}

#[test]
fn shutdown_with_the_folder_running_ends_promptly() {
    let server = support::server();
    let mut con = support::con(&server);
    let svc = Service::start(&server);
    svc.admin(Method::PUT, "/v1/campaigns/hot/settings", buffered(10))
        .ok(200);
    svc.vote("hot", "u1", "b", "x").ok(200);
    wait_until("the folder folded the vote", PATIENCE, || {
        totals(&svc, "hot").1 == pairs(&[("x", "1")])
    });
    // Redis stops answering: the folder's next read (every 10 ms) waits
    // for the client's timeout (5 s, 3 retries) unless shutdown drops it
    let _: () = redis::cmd("CLIENT")
        .arg("PAUSE")
        .arg(20_000)
        .arg("ALL")
        .query(&mut con)
        .unwrap();
    let reads = || {
        metric(
            &svc.get("/metrics").text,
            "redvote_redis_calls_total{script=\"fold_state\",outcome=\"ok\"} ",
        )
    };
    let mut last = (reads(), Instant::now());
    wait_until("the folder waits on the paused Redis", PATIENCE, || {
        let now = reads();
        if now != last.0 {
            last = (now, Instant::now());
        }
        last.1.elapsed() >= Duration::from_millis(200)
    });
    let start = Instant::now();
    svc.stop().expect("the service stops cleanly");
    let took = start.elapsed();
    assert!(took < Duration::from_secs(3), "stopping took {took:?}");
}
