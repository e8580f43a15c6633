//! The size bounds of `campaign_configure`: a document beyond any of them
//! is refused before the first write (it once passed validation and then
//! failed in Lua's `unpack` after writing part of the settings), and a
//! document at every bound at once is accepted and written whole.

use redis::Connection;
use redvote::{Campaign, Code};
use serde_json::{json, Map, Value};

use crate::support::{self, hgetall, raw, refused, refused_unchanged, scard};

/// The bounds the script documents.
const DOC_BYTES: usize = 4 * 1024 * 1024;
const DATA_FIELDS: usize = 100;
const DATA_KEY: usize = 64;
const DATA_VALUE: usize = 2048;
const OPTIONS: usize = 1000;
const BOARDS: usize = 64;
const REMOVE: usize = 1000;
const RULES: usize = 32;
const EXTRA: usize = 32;
const DENY: usize = 10000;

fn configure(con: &mut Connection, c: &Campaign, doc: &Value) -> redvote::Result<redis::Value> {
    raw(con, "campaign_configure", c.root_key(), &[&doc.to_string()])
}

/// `n` display-data fields with keys of `key` bytes and values of `value`.
fn data(n: usize, key: usize, value: usize) -> Value {
    let mut m = Map::new();
    for i in 0..n {
        let k = format!("{i:0>key$}");
        m.insert(k, Value::String("v".repeat(value)));
    }
    Value::Object(m)
}

fn rule(name: &str, extra: usize) -> Value {
    let extra: Map<String, Value> = (0..extra).map(|i| (format!("ch{i}"), json!(1))).collect();
    json!({"name": name, "by": ["user"], "window": "day", "limit": 5, "extra": extra})
}

/// A campaign with a banned user and board B holding option x.
fn banned_campaign(con: &mut Connection) -> Campaign {
    let c = Campaign::new("sizes");
    let doc = json!({
        "deny": {"users": ["user:banned"]},
        "boards": {"B": {"options": {"x": {}}}}
    });
    configure(con, &c, &doc).unwrap();
    c
}

#[test]
fn configure_refuses_huge_option_data_before_any_write() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = banned_campaign(&mut con);
    // Un-ban the user and set 5000 fields of data: once the hash, the deny
    // list and the board were written, then HSET's unpack failed.
    let doc = json!({
        "deny": {"users": []},
        "boards": {"B": {"ties": "dense", "options": {"x": {"data": data(5000, 8, 4)}}}}
    });
    let detail = refused_unchanged(&mut con, "5000 data fields", Code::InvalidConfig, |con| {
        configure(con, &c, &doc)
    });
    assert!(detail.contains("100"), "{detail}");
    refused(
        c.vote("user:banned", &[("B", "x")]).run(&mut con),
        Code::Denied,
    );
}

#[test]
fn configure_refuses_every_size_beyond_its_bound_before_any_write() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = banned_campaign(&mut con);
    let many = |n: usize, f: &dyn Fn(usize) -> String| -> Vec<String> { (0..n).map(f).collect() };
    let options = |n: usize| -> Value {
        Value::Object(
            (0..n)
                .map(|i| (format!("o{i}"), json!({})))
                .collect::<Map<String, Value>>(),
        )
    };
    let boards: Map<String, Value> = (0..=BOARDS).map(|i| (format!("b{i}"), json!({}))).collect();
    let cases: Vec<(&str, Value, Code)> = vec![
        (
            "101 data fields",
            json!({"deny": {"users": []}, "boards": {"B": {"options": {"x": {"data": data(DATA_FIELDS + 1, 4, 4)}}}}}),
            Code::InvalidConfig,
        ),
        (
            "a 65-byte data key",
            json!({"deny": {"users": []}, "boards": {"B": {"options": {"x": {"data": data(1, DATA_KEY + 1, 4)}}}}}),
            Code::InvalidConfig,
        ),
        (
            "a 2049-byte data value",
            json!({"deny": {"users": []}, "boards": {"B": {"options": {"x": {"data": data(1, 4, DATA_VALUE + 1)}}}}}),
            Code::InvalidConfig,
        ),
        (
            "1001 options",
            json!({"deny": {"users": []}, "boards": {"B": {"options": options(OPTIONS + 1)}}}),
            Code::InvalidConfig,
        ),
        (
            "65 boards",
            json!({"deny": {"users": []}, "boards": boards}),
            Code::InvalidConfig,
        ),
        (
            "1001 removals",
            json!({"deny": {"users": []}, "boards": {"B": {"remove": many(REMOVE + 1, &|i| format!("o{i}"))}}}),
            Code::InvalidConfig,
        ),
        (
            "33 rules",
            json!({"deny": {"users": []}, "limits": (0..=RULES).map(|i| rule(&format!("r{i}"), 0)).collect::<Vec<_>>()}),
            Code::InvalidConfig,
        ),
        (
            "33 extra channels",
            json!({"deny": {"users": []}, "limits": [rule("r", EXTRA + 1)]}),
            Code::InvalidConfig,
        ),
        (
            "10001 denied users",
            json!({"deny": {"users": many(DENY + 1, &|i| format!("u{i}"))}}),
            Code::InvalidConfig,
        ),
        (
            "6 periods",
            json!({"deny": {"users": []}, "boards": {"B": {"periods": vec!["total"; 6]}}}),
            Code::InvalidConfig,
        ),
    ];
    for (what, doc, code) in cases {
        refused_unchanged(&mut con, what, code, |con| configure(con, &c, &doc));
    }
    // one byte over the document size: padding after the object
    let doc = json!({"deny": {"users": []}}).to_string();
    let doc = format!("{doc}{}", " ".repeat(DOC_BYTES + 1 - doc.len()));
    refused_unchanged(&mut con, "a document over 4 MiB", Code::Usage, |con| {
        raw(con, "campaign_configure", c.root_key(), &[&doc])
    });
    refused(
        c.vote("user:banned", &[("B", "x")]).run(&mut con),
        Code::Denied,
    );
}

#[test]
fn configure_accepts_a_document_at_every_bound() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = banned_campaign(&mut con);
    let ns = c.namespace().to_string();
    // board b0 with 1000 options first (to remove them all at the end)
    let thousand: Map<String, Value> = (0..REMOVE).map(|o| (format!("o{o}"), json!({}))).collect();
    configure(
        &mut con,
        &c,
        &json!({"boards": {"b0": {"options": thousand}}}),
    )
    .unwrap();
    // 64 boards, 1000 options among them, one option's data at every bound
    let mut boards = Map::new();
    for b in 0..BOARDS {
        let mut options = Map::new();
        let n = if b == 0 {
            OPTIONS - (BOARDS - 1) * 10
        } else {
            10
        };
        for o in 0..n {
            options.insert(format!("o{o}"), json!({"weight": 2}));
        }
        boards.insert(format!("b{b}"), json!({"options": options}));
    }
    boards["b0"]["options"]["o0"] = json!({"data": data(DATA_FIELDS, DATA_KEY, DATA_VALUE)});
    boards["b0"]["periods"] = json!(["total", "day", "week", "month", "hour"]);
    let limits: Vec<Value> = (0..RULES).map(|i| rule(&format!("r{i}"), EXTRA)).collect();
    let users: Vec<String> = (0..DENY).map(|i| format!("user:{i}")).collect();
    let channels: Vec<String> = (0..DENY).map(|i| format!("ch{i}")).collect();
    let doc = json!({
        "limits": limits,
        "deny": {"users": users, "channels": channels},
        "boards": boards,
    });
    let text = doc.to_string();
    // and the document itself exactly at its bound
    let text = format!("{text}{}", " ".repeat(DOC_BYTES - text.len()));
    assert_eq!(text.len(), DOC_BYTES);
    raw(&mut con, "campaign_configure", c.root_key(), &[&text]).unwrap();
    assert_eq!(
        hgetall(&mut con, &format!("{ns}option:b0:o0")).len(),
        DATA_FIELDS
    );
    assert_eq!(hgetall(&mut con, &format!("{ns}weights:b0")).len(), REMOVE);
    assert_eq!(hgetall(&mut con, &format!("{ns}weights:b63")).len(), 10);
    assert_eq!(scard(&mut con, &format!("{ns}boards")), 1 + BOARDS as i64);
    assert_eq!(scard(&mut con, &format!("{ns}deny:users")), DENY as i64);
    assert_eq!(scard(&mut con, &format!("{ns}deny:channels")), DENY as i64);
    // the banned user is no longer on the list; the vote passes
    c.vote("user:banned", &[("B", "x")]).run(&mut con).unwrap();
    // removing 1000 options at once
    let doc = json!({"boards": {"b0": {"remove": (0..REMOVE).map(|i| format!("o{i}")).collect::<Vec<_>>()}}});
    configure(&mut con, &c, &doc).unwrap();
    assert!(hgetall(&mut con, &format!("{ns}weights:b0")).is_empty());
}
