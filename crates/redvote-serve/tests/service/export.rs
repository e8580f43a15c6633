//! Export and statistics over HTTP: `GET .../boards/{board}/export` equals
//! the rank model under every tie rule, in CSV and JSON lines; a board
//! written while the download is read stays well-formed (and `strict`
//! ends it abnormally); refusals; every script call of a 50,000-option
//! export is short on the server's SLOWLOG; `GET .../boards/{board}/stats`
//! counts the votes cast, as JSON and CSV.

use std::collections::BTreeMap;
use std::io::Read;
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};

use super::Service;
use redvote::{Campaign, CampaignSettings};
use redvote_testing as support;

/// A board `b` of `n` options `o00000`.. under `ties`, imported with the
/// scores `score(i)` in option order (500 a call), on a fresh campaign
/// `name`.
fn board(
    con: &mut redis::Connection,
    name: &str,
    ties: &str,
    n: usize,
    score: impl Fn(usize) -> u64,
) -> Campaign {
    let c = Campaign::new(name);
    let ids: Vec<String> = (0..n).map(|i| format!("o{i:05}")).collect();
    for chunk in ids.chunks(1000) {
        let options: BTreeMap<&str, Value> =
            chunk.iter().map(|o| (o.as_str(), json!({}))).collect();
        let settings: CampaignSettings = serde_json::from_value(json!({
            "boards": {"b": {"periods": ["total"], "ties": ties, "decimals": 0, "options": options}}
        }))
        .unwrap();
        c.configure(&settings).run(con).unwrap();
    }
    let amounts: Vec<String> = (0..n).map(|i| score(i).to_string()).collect();
    for (ids, amounts) in ids.chunks(500).zip(amounts.chunks(500)) {
        let pairs: Vec<(&str, &str)> = ids
            .iter()
            .zip(amounts)
            .map(|(o, a)| (o.as_str(), a.as_str()))
            .collect();
        let mut left = &pairs[..];
        while !left.is_empty() {
            left = c.import("b", left).run(con).unwrap().rest_of(left);
        }
    }
    c
}

/// The model's rank of every option of `scores` (in import order) under
/// `ties`.
fn model(ties: &str, scores: &[u64]) -> BTreeMap<String, u64> {
    let name = |i: usize| format!("o{i:05}");
    let mut out = BTreeMap::new();
    match ties {
        "competition" => {
            for (i, s) in scores.iter().enumerate() {
                out.insert(name(i), 1 + scores.iter().filter(|t| *t > s).count() as u64);
            }
        }
        "dense" => {
            let distinct: std::collections::BTreeSet<u64> = scores.iter().copied().collect();
            for (i, s) in scores.iter().enumerate() {
                out.insert(
                    name(i),
                    1 + distinct.iter().filter(|t| *t > s).count() as u64,
                );
            }
        }
        "first" => {
            // by score, then who reached it first: the import order
            let mut order: Vec<usize> = (0..scores.len()).collect();
            order.sort_by_key(|&i| (std::cmp::Reverse(scores[i]), i));
            for (rank, i) in order.into_iter().enumerate() {
                out.insert(name(i), rank as u64 + 1);
            }
        }
        _ => unreachable!(),
    }
    out
}

/// CSV text without quoted fields, as rows of fields, after its header.
fn csv_rows(text: &str, header: &str) -> Vec<Vec<String>> {
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(header),
        "{}",
        &text[..text.len().min(200)]
    );
    assert!(text.ends_with('\n'));
    lines
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

#[test]
fn an_export_equals_the_rank_model_under_every_tie_rule() {
    let server = support::server();
    let svc = Service::start(&server);
    let mut con = server.client().get_connection().unwrap();
    let scores: Vec<u64> = (0..1234).map(|i| (i as u64 * 7919) % 50 + 1).collect();
    for ties in ["competition", "dense", "first"] {
        let name = format!("ex-{ties}");
        board(&mut con, &name, ties, scores.len(), |i| scores[i]);
        let want = model(ties, &scores);
        let csv = svc.get(&format!("/v1/campaigns/{name}/boards/b/export"));
        assert_eq!(csv.status, 200, "{}", csv.text);
        assert_eq!(csv.header("content-type"), Some("text/csv; charset=utf-8"));
        assert_eq!(
            csv.header("content-disposition"),
            Some(format!("attachment; filename=\"{name}-b-shown-total.csv\"").as_str())
        );
        let rows = csv_rows(&csv.text, "rank,option,name,shown");
        assert_eq!(rows.len(), 1234);
        let mut got = BTreeMap::new();
        let mut last = (0u64, u64::MAX);
        for r in &rows {
            let (rank, score): (u64, u64) = (r[0].parse().unwrap(), r[3].parse().unwrap());
            assert!(
                rank >= last.0 && score <= last.1,
                "{ties}: out of order at {r:?}"
            );
            last = (rank, score);
            assert_eq!(score, scores[r[1][1..].parse::<usize>().unwrap()]);
            assert_eq!(r[2], "", "no display name");
            got.insert(r[1].clone(), rank);
        }
        assert_eq!(got, want, "{ties}: the CSV's ranks");
        // the same as JSON lines
        let jsonl = svc.get(&format!(
            "/v1/campaigns/{name}/boards/b/export?format=jsonl&period=total&kind=shown"
        ));
        assert_eq!(jsonl.status, 200);
        assert_eq!(jsonl.header("content-type"), Some("application/x-ndjson"));
        let lines: Vec<Value> = jsonl
            .text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 1234);
        let got: BTreeMap<String, u64> = lines
            .iter()
            .map(|v| {
                (
                    v["option"].as_str().unwrap().to_string(),
                    v["rank"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(got, want, "{ties}: the JSON lines' ranks");
        assert_eq!(lines[0]["name"], Value::Null);
        assert!(lines[0]["shown"].is_string() && lines[0].get("real").is_none());
    }
}

#[test]
fn both_kinds_display_names_and_a_named_period() {
    let server = support::server();
    let svc = Service::start(&server);
    let settings = json!({"boards": {"stars": {"periods": ["day", "total"], "options": {
        "a": {"weight": 3, "data": {"name": "Ann, \"the first\""}},
        "b": {"data": {"name": "Bo"}},
        "c": {}
    }}}});
    svc.admin(Method::PUT, "/v1/campaigns/both/settings", settings)
        .ok(200);
    svc.admin(
        Method::PUT,
        "/v1/campaigns/both/boards/stars/import",
        json!({"c": 10}),
    )
    .ok(200);
    for (user, option) in [("u1", "a"), ("u2", "b"), ("u3", "b")] {
        svc.vote("both", user, "stars", option).ok(200);
    }
    let r = svc.get("/v1/campaigns/both/boards/stars/export?kind=both&period=total");
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.text,
        "rank,option,name,shown,real,real_rank\n\
         1,c,,10.00,0,\n\
         2,a,\"Ann, \"\"the first\"\"\",3.00,1,2\n\
         3,b,Bo,2.00,2,1\n"
    );
    let r = svc.get("/v1/campaigns/both/boards/stars/export?kind=real&format=jsonl");
    assert_eq!(
        r.text,
        "{\"rank\":1,\"option\":\"b\",\"name\":\"Bo\",\"real\":\"2\"}\n\
         {\"rank\":2,\"option\":\"a\",\"name\":\"Ann, \\\"the first\\\"\",\"real\":\"1\"}\n"
    );
    // gzip-compressed when asked: the whole stream, to its end
    for format in ["csv", "jsonl"] {
        let r = svc
            .request(
                Method::GET,
                &format!("/v1/campaigns/both/boards/stars/export?format={format}"),
                None,
            )
            .header("accept-encoding", "gzip")
            .send();
        assert_eq!(r.status, 200);
        assert_eq!(r.header("content-encoding"), Some("gzip"));
    }
    // `day` is resolved once, and named in the file name
    let r = svc.get("/v1/campaigns/both/boards/stars/export?period=day&kind=real");
    let file = r.header("content-disposition").unwrap().to_string();
    assert!(
        file.starts_with("attachment; filename=\"both-stars-real-day-20"),
        "{file}"
    );
    // a past day: empty, not an error
    let r = svc.get("/v1/campaigns/both/boards/stars/export?period=day:2020-01-01");
    assert_eq!(
        (r.status, r.text.as_str()),
        (200, "rank,option,name,shown\n")
    );
}

#[test]
fn refusals_are_problems() {
    let server = support::server();
    let svc = Service::start(&server);
    svc.admin(
        Method::PUT,
        "/v1/campaigns/r/settings",
        json!({"boards": {"b": {"periods": ["total"], "options": {"x": {}}}}}),
    )
    .ok(200);
    let base = "/v1/campaigns/r/boards/b";
    for (query, code) in [
        ("export?kind=bogus", "REDVOTE_USAGE"),
        ("export?format=xml", "REDVOTE_USAGE"),
        ("export?period=day:2026-02-30", "REDVOTE_INVALID_PERIOD"),
        ("export?period=fortnight", "REDVOTE_INVALID_PERIOD"),
        ("stats?by=week", "REDVOTE_USAGE"),
        ("stats?format=xml", "REDVOTE_USAGE"),
        ("stats?from=yesterday", "REDVOTE_INVALID_NUMBER"),
        ("stats?from=10&to=5", "REDVOTE_INVALID_NUMBER"),
        ("stats?by=hour&from=0&to=86400000", "REDVOTE_INVALID_NUMBER"),
    ] {
        svc.get(&format!("{base}/{query}")).problem(422, code);
    }
    for query in ["export?color=red", "stats?since=1", "export?strict=maybe"] {
        svc.get(&format!("{base}/{query}"))
            .problem(400, "REDVOTE_BAD_REQUEST");
    }
    svc.get("/v1/campaigns/r/boards/nope/export")
        .problem(404, "REDVOTE_UNKNOWN_BOARD");
    svc.get("/v1/campaigns/nope/boards/b/stats")
        .problem(404, "REDVOTE_UNKNOWN_CAMPAIGN");
}

/// Read the export of `url` slowly: `first` bytes, then `between`, then
/// the rest; the whole text, or the error that ended the transfer.
fn read_with_a_pause(url: &str, first: usize, between: impl FnOnce()) -> Result<String, String> {
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let mut response = client.get(url).send().unwrap();
    assert_eq!(response.status(), 200);
    let mut head = vec![0; first];
    response.read_exact(&mut head).unwrap();
    between();
    let mut rest = Vec::new();
    response.read_to_end(&mut rest).map_err(|e| e.to_string())?;
    head.extend(rest);
    Ok(String::from_utf8(head).unwrap())
}

#[test]
fn a_board_written_during_a_large_export_stays_well_formed_and_every_call_is_short() {
    let server = support::server();
    let svc = Service::start(&server);
    let mut con = server.client().get_connection().unwrap();
    let n = 50_000;
    let c = board(&mut con, "big", "competition", n, |i| {
        (i as u64 * 31) % 1000 + 1
    });
    // every call from now on, in the SLOWLOG
    redis::cmd("CONFIG")
        .arg("SET")
        .arg("slowlog-max-len")
        .arg(100_000)
        .exec(&mut con)
        .unwrap();
    redis::cmd("CONFIG")
        .arg("SET")
        .arg("slowlog-log-slower-than")
        .arg(0)
        .exec(&mut con)
        .unwrap();
    redis::cmd("SLOWLOG").arg("RESET").exec(&mut con).unwrap();
    let url = format!("{}/v1/campaigns/big/boards/b/export", svc.base);
    let start = Instant::now();
    let text = read_with_a_pause(&url, 1, || {}).unwrap();
    let seconds = start.elapsed().as_secs_f64();
    let rows = csv_rows(&text, "rank,option,name,shown");
    assert_eq!(rows.len(), n);
    let mut seen = std::collections::BTreeSet::new();
    for r in &rows {
        assert!(seen.insert(r[1].clone()), "{} twice", r[1]);
    }
    // the server's time of every call: a page of 100 and its names at most
    let entries: Vec<redis::Value> = redis::cmd("SLOWLOG")
        .arg("GET")
        .arg(-1)
        .query(&mut con)
        .unwrap();
    let mut worst = (0i64, String::new());
    let mut calls = 0;
    for e in &entries {
        let redis::Value::Array(fields) = e else {
            continue;
        };
        let micros: i64 = redis::from_redis_value_ref(&fields[2]).unwrap();
        let args: Vec<String> = redis::from_redis_value_ref(&fields[3]).unwrap_or_default();
        calls += 1;
        if micros > worst.0 {
            worst = (micros, args.join(" ").chars().take(80).collect());
        }
    }
    eprintln!(
        "export of {n} rows: {seconds:.2} s ({:.0} rows/s), {calls} calls logged, the slowest {} us: {}",
        n as f64 / seconds,
        worst.0,
        worst.1
    );
    assert!(
        calls >= 1000,
        "{calls} calls: a page of top and one of names a batch"
    );
    assert!(worst.0 < 50_000, "a call of {} us: {}", worst.0, worst.1);

    // written while read: new members before the 40th batch and after
    let mut con2 = server.client().get_connection().unwrap();
    let text = read_with_a_pause(&url, 4096, || {
        let settings: CampaignSettings = serde_json::from_value(json!({
            "boards": {"b": {"options": {"new1": {}, "new2": {}}}}
        }))
        .unwrap();
        c.configure(&settings).run(&mut con2).unwrap();
        c.import("b", &[("new1", "5000"), ("new2", "1")])
            .run(&mut con2)
            .unwrap();
    })
    .unwrap();
    let rows = csv_rows(&text, "rank,option,name,shown");
    assert!(rows.len() >= n && rows.len() <= n + 2, "{}", rows.len());
    for r in &rows {
        assert_eq!(r.len(), 4, "{r:?}");
        r[0].parse::<u64>().unwrap();
        r[3].parse::<u64>().unwrap();
    }
    // strict: a move ends the transfer abnormally
    let strict = format!("{url}?strict=true");
    let ended = read_with_a_pause(&strict, 4096, || {
        c.import("b", &[("new2", "4000")]).run(&mut con2).unwrap();
        let settings: CampaignSettings = serde_json::from_value(json!({
            "boards": {"b": {"options": {"new3": {}}}}
        }))
        .unwrap();
        c.configure(&settings).run(&mut con2).unwrap();
        c.import("b", &[("new3", "4500")]).run(&mut con2).unwrap();
    });
    assert!(ended.is_err(), "a strict export of a moved board completed");
}

#[test]
fn stats_count_the_votes_cast_as_json_and_csv() {
    let server = support::server();
    let svc = Service::start(&server);
    svc.admin(
        Method::PUT,
        "/v1/campaigns/st/settings",
        json!({"boards": {"b": {"periods": ["total"], "options": {"x": {"weight": 2}, "y": {}}}}}),
    )
    .ok(200);
    for (i, option) in ["x", "y", "x", "x", "y"].iter().enumerate() {
        let body = json!({"user": format!("u{i}"), "channel": "app", "device": "pc", "votes": [{"board": "b", "option": option}]});
        svc.json(Method::POST, "/v1/campaigns/st/votes", body)
            .ok(200);
    }
    for by in ["hour", "day"] {
        let s = svc
            .get(&format!("/v1/campaigns/st/boards/b/stats?by={by}"))
            .ok(200);
        assert_eq!(s["board"], "b");
        assert_eq!(s["by"], by);
        let buckets = s["buckets"].as_array().unwrap();
        let votes: u64 = buckets.iter().map(|b| b["votes"].as_u64().unwrap()).sum();
        let amount: u64 = buckets.iter().map(|b| b["amount"].as_u64().unwrap()).sum();
        assert_eq!((votes, amount), (5, 8), "{s}");
        let last = buckets.last().unwrap();
        assert!(last["period"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{by}:")));
        let csv = svc.get(&format!(
            "/v1/campaigns/st/boards/b/stats?by={by}&format=csv"
        ));
        assert_eq!(csv.status, 200);
        assert_eq!(csv.header("content-type"), Some("text/csv; charset=utf-8"));
        assert_eq!(
            csv.header("content-disposition"),
            Some(format!("attachment; filename=\"st-b-stats-{by}.csv\"").as_str())
        );
        let mut lines = csv.text.lines();
        assert_eq!(
            lines.next(),
            Some("period,start,votes,amount,voided,voided_amount,participants,ch:app,dev:pc")
        );
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        assert_eq!(rows.len(), buckets.len());
        let votes: u64 = rows.iter().map(|r| r[2].parse::<u64>().unwrap()).sum();
        let app: u64 = rows.iter().map(|r| r[7].parse::<u64>().unwrap()).sum();
        assert_eq!((votes, app), (5, 5));
    }
    // a named day of the campaign's offset, and Unix seconds
    let s = svc
        .get("/v1/campaigns/st/boards/b/stats?by=day&from=day:2026-03-01&to=day:2026-03-31")
        .ok(200);
    assert_eq!(s["buckets"].as_array().unwrap().len(), 31);
    assert_eq!(s["buckets"][0]["period"], "day:2026-03-01");
    let s = svc
        .get("/v1/campaigns/st/boards/b/stats?from=0&to=3600")
        .ok(200);
    assert_eq!(s["buckets"][0]["period"], "hour:1970-01-01T00");
}
