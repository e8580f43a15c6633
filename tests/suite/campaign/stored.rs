//! Stored settings are parsed strictly by every script that reads them:
//! Lua's `tonumber` takes `nan`, `inf`, `1e400`, `0x10` and `' 5'`, so a
//! corrupt board `decimals` once failed in `string.format` after writing,
//! and a wrong-shape `limits` or a non-numeric `offset`/`keep_*` answered
//! REDVOTE_INTERNAL. Each planted corruption must be refused with
//! REDVOTE_INVALID_CONFIG naming the field, with nothing written, by every
//! call that reads it.

use redis::Connection;
use redvote::campaign::Voter;
use redvote::{Campaign, Code, Neighbourhood, Paging, View};
use serde_json::json;

use crate::support::{self, discard, hget, raw, refused_unchanged, utc, CampaignCall, DAY};

const VOTE: CampaignCall = |c, con| discard(c.vote("alice", &[("B", "x")]).run(con));
const TOP: CampaignCall =
    |c, con| discard(c.top(&["B"], &View::shown("day"), Paging::top(10)).run(con));
const STANDING: CampaignCall =
    |c, con| discard(c.standing("B", &View::shown("day"), &["x"]).run(con));
const AROUND: CampaignCall = |c, con| {
    discard(
        c.around("B", &View::shown("day"), "x", Neighbourhood::new(3, 10))
            .run(con),
    )
};
const LIMITS: CampaignCall =
    |c, con| discard(c.limits(&Voter::new("alice"), &[("B", "x")]).run(con));

/// The calls that read a setting, by name.
type Readers<'a> = &'a [(&'a str, CampaignCall)];

const NUMBERS: &[&str] = &[
    "nan", "inf", "-inf", "1e400", "0x10", " 5", "5 ", "-1", "2.5", "x", "",
];

fn campaign(con: &mut Connection) -> Campaign {
    // In 2040: boards and counters must not expire (by the server's clock)
    // while the digest is compared.
    let t0 = utc((2040, 3, 13), (12, 0, 0));
    let c = Campaign::new("stored");
    let doc = json!({
        "offset": "+08:00",
        "start": t0 - DAY,
        "end": t0 + DAY,
        "limits": [
            {"name": "day", "by": ["user"], "window": "day", "limit": 100, "extra": {"partner": 5}},
            {"name": "smooth", "by": ["user", "option"], "rolling": {"limit": 100, "per": 60}}
        ],
        "boards": {"B": {
            "periods": ["hour", "day", "total"], "carry": "0.1", "decimals": 2,
            "retention": {"hour": 3600, "day": 86400},
            "options": {"x": {"weight": 2}, "y": {}}
        }}
    });
    raw(con, "campaign_configure", c.root_key(), &[&doc.to_string()]).unwrap();
    let c = c.at(t0);
    c.vote("bob", &[("B", "x"), ("B", "y")]).run(con).unwrap();
    c
}

#[test]
fn corrupt_stored_settings_are_refused_by_every_reader_before_any_write() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con);
    let ns = c.namespace().to_string();
    let root = c.root_key().to_string();
    let board = format!("{ns}board:B");
    let weights = format!("{ns}weights:B");
    let boards: &[(&str, CampaignCall)] = &[
        ("vote", VOTE),
        ("top", TOP),
        ("standing", STANDING),
        ("around", AROUND),
    ];
    let everyone: &[(&str, CampaignCall)] = &[
        ("vote", VOTE),
        ("top", TOP),
        ("standing", STANDING),
        ("around", AROUND),
        ("limits", LIMITS),
    ];
    let vote_limits: &[(&str, CampaignCall)] = &[("vote", VOTE), ("limits", LIMITS)];
    let mut cases: Vec<(String, &str, String, Readers)> = Vec::new();
    for v in NUMBERS {
        for field in ["decimals", "carry", "keep_hour", "keep_day", "keep_week"] {
            cases.push((board.clone(), field, v.to_string(), boards));
        }
        cases.push((weights.clone(), "x", v.to_string(), &[("vote", VOTE)]));
        cases.push((root.clone(), "offset", v.to_string(), everyone));
        cases.push((root.clone(), "start", v.to_string(), &[("vote", VOTE)]));
        cases.push((root.clone(), "end", v.to_string(), vote_limits));
    }
    for v in ["7", "1.5", "0.1234567", "1.1", "-0.1", ".5", "0."] {
        cases.push((board.clone(), "carry", v.to_string(), boards));
    }
    for v in ["7", "+1", "1.0"] {
        cases.push((board.clone(), "decimals", v.to_string(), boards));
    }
    cases.push((board.clone(), "keep_hour", "315360001".into(), boards));
    cases.push((weights.clone(), "x", "0".into(), &[("vote", VOTE)]));
    cases.push((weights.clone(), "x", "1000001".into(), &[("vote", VOTE)]));
    for v in ["50460", "-50460", "30", "99999999999999999999"] {
        cases.push((root.clone(), "offset", v.to_string(), everyone));
    }
    for v in [
        "",
        "x",
        "hour,,day",
        ",total",
        "total,",
        "total,total",
        "year",
        "Day",
    ] {
        cases.push((board.clone(), "periods", v.to_string(), boards));
    }
    for v in ["", "x", "Dense", "competition "] {
        cases.push((board.clone(), "ties", v.to_string(), boards));
    }
    for v in [
        "{}",
        "[1]",
        r#"[{"name":1}]"#,
        "x",
        "null",
        r#"{"name":"d","by":["user"],"window":"day","limit":5}"#,
        r#"[{"name":"d","by":["user"],"window":"day"}]"#,
        r#"[{"name":"d","by":["user"],"window":"day","limit":2.5}]"#,
        r#"[{"name":"d","by":["user"],"window":"day","limit":0}]"#,
        r#"[{"name":"d","by":["user"],"window":"day","limit":1e400}]"#,
        r#"[{"name":"d","by":["user"],"window":"year","limit":5}]"#,
        r#"[{"name":"d","by":[],"window":"day","limit":5}]"#,
        r#"[{"name":"d","by":["planet"],"window":"day","limit":5}]"#,
        r#"[{"name":"d","by":"user","window":"day","limit":5}]"#,
        r#"[{"name":"a:b","by":["user"],"window":"day","limit":5}]"#,
        r#"[{"name":"d","by":["user"],"window":"day","limit":5,"extra":{"p":-1}}]"#,
        r#"[{"name":"d","by":["user"],"window":"day","limit":5,"extra":[5]}]"#,
        r#"[{"name":"d","by":["user"],"window":"day","limit":5,"extra":5}]"#,
        r#"[{"name":"r","by":["user"],"rolling":true,"limit":5,"per":0,"burst":5}]"#,
        r#"[{"name":"r","by":["user"],"rolling":true,"limit":5,"per":60}]"#,
        r#"[{"name":"r","by":["user"],"rolling":true,"limit":5,"per":60,"burst":0.5}]"#,
        r#"[{"name":"r","by":["user"],"rolling":1,"limit":5,"per":60,"burst":5}]"#,
    ] {
        cases.push((root.clone(), "limits", v.to_string(), vote_limits));
    }
    // alice's day counter (lua/src/lib/limits.lua, layout 3: her field
    // "5:alice" in the day's bucket rlb:day:day:2040-03-13:N, N her bucket)
    let hex: String = redis::cmd("EVAL")
        .arg("return redis.sha1hex(ARGV[1])")
        .arg(0)
        .arg("alice")
        .query(&mut con)
        .unwrap();
    let n = u64::from_str_radix(&hex[..8], 16).unwrap() % 256;
    let bucket = format!("{ns}rlb:day:day:2040-03-13:{n}");
    for v in NUMBERS.iter().chain(&["1:5", "9007199254740992"]) {
        cases.push((bucket.clone(), "5:alice", v.to_string(), vote_limits));
    }
    // the voter's hash (the rolling rule's state, and its expiry)
    let counters = format!("{ns}rlu:alice");
    for v in NUMBERS.iter().chain(&["0", "253402300801"]) {
        cases.push((counters.clone(), "@", v.to_string(), vote_limits));
    }
    for (key, field, value, calls) in cases {
        let saved = hget(&mut con, &key, field);
        redis::cmd("HSET")
            .arg(&key)
            .arg(field)
            .arg(&value)
            .query::<i64>(&mut con)
            .unwrap();
        for (op, call) in calls {
            let what = format!("{op} with {key} {field} = {value:?}");
            let detail =
                refused_unchanged(&mut con, &what, Code::InvalidConfig, |con| call(&c, con));
            assert!(
                detail.contains(field),
                "{what}: the detail names the field: {detail}"
            );
            assert!(
                detail.contains(&key),
                "{what}: the detail names the key: {detail}"
            );
        }
        match saved {
            Some(v) => redis::cmd("HSET")
                .arg(&key)
                .arg(field)
                .arg(v)
                .query::<i64>(&mut con)
                .unwrap(),
            None => redis::cmd("HDEL")
                .arg(&key)
                .arg(field)
                .query::<i64>(&mut con)
                .unwrap(),
        };
    }
    // restored: every call answers again
    for (_, call) in everyone {
        call(&c, &mut con).unwrap();
    }
}

/// Import and participants read every key they write before the first
/// write: a key of the wrong type, a sequence counter that is not one or a
/// string that is not a HyperLogLog is refused with nothing written. Found
/// by the fuzz test: an import wrote the boards before failing on
/// `periods:B` or a "first" side key, and answered REDVOTE_INTERNAL on a
/// corrupt `seq`; participants cached one count (PFCOUNT writes) before
/// failing on the next HyperLogLog.
#[test]
fn writers_refuse_keys_of_the_wrong_type_before_any_write() {
    let import: CampaignCall = |c, con| discard(c.import("B", &[("x", "20"), ("y", "1")]).run(con));
    let participants: CampaignCall = |c, con| discard(c.participants("B", &["x", "y"]).run(con));
    // (call, key under the namespace, planted: a type, or a plain string)
    #[rustfmt::skip]
    let vote: CampaignCall = |c, con| discard(c.vote("bob", &[("B", "x"), ("B", "y")]).run(con));
    let configure: CampaignCall = |c, con| {
        let doc = json!({"boards": {"B": {"options": {"z": {}}}, "C": {}}});
        discard(c.configure(&serde_json::from_value(doc).unwrap()).run(con))
    };
    let remove: CampaignCall = |c, con| {
        let doc = json!({"boards": {"B": {"remove": ["y"]}}});
        discard(c.configure(&serde_json::from_value(doc).unwrap()).run(con))
    };
    // (the steps of a removal: "step" cases configure the removal first)
    let step: CampaignCall = |c, con| discard(c.remove_step("B", "0", 500).run(con));
    #[rustfmt::skip]
    let cases: &[(&str, CampaignCall, &str, &str)] = &[
        // the vote (found by the fuzz test: it wrote, then failed)
        ("vote", vote, "b:B:real:total", "string"),
        ("vote", vote, "b:B:real:day:2040-03-13", "set"),
        ("vote", vote, "f:B:real:total", "string"),
        ("vote", vote, "periods:B", "string"),
        ("vote", vote, "seq", "not a counter"),
        ("vote", vote, "hll", "set"),
        ("vote", vote, "hll:B:y", "not a HyperLogLog"),
        // configure, and the removal of an option
        ("configure", configure, "boards", "string"),
        ("configure", configure, "board:B", "set"),
        ("configure", configure, "weights:B", "string"),
        ("remove", remove, "initial:B", "string"),
        ("remove", remove, "removing:B", "string"),
        ("step", step, "b:B:shown:total", "string"),
        ("step", step, "f:B:real:day:2040-03-13", "set"),
        ("step", step, "o:B:real:total", "string"),
        ("step", step, "periods:B", "string"),
        ("step", step, "removing:B", "string"),
        ("import", import, "periods:B", "string"),
        ("import", import, "f:B:shown:total", "string"),
        ("import", import, "seq", "not a counter"),
        ("participants", participants, "hll:B:y", "set"),
        ("participants", participants, "hll:B:y", "not a HyperLogLog"),
    ];
    let t0 = utc((2040, 3, 13), (12, 0, 0));
    for (what, call, key, planted) in cases {
        let server = support::server();
        let mut con = support::con(&server);
        let c = Campaign::new("typed");
        let doc = json!({"boards": {"B": {
            "periods": ["day", "total"], "ties": "first", "options": {"x": {}, "y": {}}
        }}});
        raw(
            &mut con,
            "campaign_configure",
            c.root_key(),
            &[&doc.to_string()],
        )
        .unwrap();
        let c = c.at(t0);
        // Both HyperLogLogs hold a count not yet cached: PFCOUNT would write.
        c.vote("alice", &[("B", "x"), ("B", "y")])
            .run(&mut con)
            .unwrap();
        if *what == "step" {
            remove(&c, &mut con).unwrap();
        }
        let key = format!("{}{key}", c.namespace());
        support::del(&mut con, &key);
        let cmd = match *planted {
            "string" | "not a counter" | "not a HyperLogLog" => {
                redis::cmd("SET").arg(&key).arg("x").clone()
            }
            _ => redis::cmd("SADD").arg(&key).arg("x").clone(),
        };
        cmd.query::<()>(&mut con).unwrap();
        let what = format!("{what} with {key} {planted}");
        refused_unchanged(&mut con, &what, Code::InvalidConfig, |con| call(&c, con));
    }
}
