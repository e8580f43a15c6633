//! Plain Redis reads the tests check state with (one command each, panicking
//! on a Redis error), and literals for the sets and maps they compare with.

use std::collections::{BTreeMap, BTreeSet};

use redis::Connection;

/// `HGETALL key`.
pub fn hgetall(con: &mut Connection, key: &str) -> BTreeMap<String, String> {
    redis::cmd("HGETALL").arg(key).query(con).unwrap()
}

/// `HGET key field` (None: no such field).
pub fn hget(con: &mut Connection, key: &str, field: &str) -> Option<String> {
    redis::cmd("HGET").arg(key).arg(field).query(con).unwrap()
}

/// A member's score as a number (the article site's scores).
pub fn zscore(con: &mut Connection, key: &str, member: &str) -> Option<f64> {
    redis::cmd("ZSCORE")
        .arg(key)
        .arg(member)
        .query(con)
        .unwrap()
}

/// A member's score as Redis prints it (campaign boards, whose exact
/// decimals the tests compare as text).
pub fn zscore_text(con: &mut Connection, key: &str, member: &str) -> Option<String> {
    redis::cmd("ZSCORE")
        .arg(key)
        .arg(member)
        .query(con)
        .unwrap()
}

/// `SMEMBERS key`.
pub fn smembers(con: &mut Connection, key: &str) -> BTreeSet<String> {
    redis::cmd("SMEMBERS").arg(key).query(con).unwrap()
}

/// `SCARD key`.
pub fn scard(con: &mut Connection, key: &str) -> i64 {
    redis::cmd("SCARD").arg(key).query(con).unwrap()
}

/// `EXISTS key`.
pub fn exists(con: &mut Connection, key: &str) -> bool {
    redis::cmd("EXISTS").arg(key).query::<i64>(con).unwrap() == 1
}

/// `TTL key` (-1: no expiry, -2: no key).
pub fn ttl(con: &mut Connection, key: &str) -> i64 {
    redis::cmd("TTL").arg(key).query(con).unwrap()
}

/// `EXPIRETIME` (Redis 7): the absolute Unix second a key expires at, -1
/// without a TTL, -2 when the key does not exist.
pub fn expiretime(con: &mut Connection, key: &str) -> i64 {
    redis::cmd("EXPIRETIME").arg(key).query(con).unwrap()
}

/// `KEYS pattern`.
pub fn keys(con: &mut Connection, pattern: &str) -> BTreeSet<String> {
    redis::cmd("KEYS").arg(pattern).query(con).unwrap()
}

/// `DEL key`.
pub fn del(con: &mut Connection, key: &str) {
    redis::cmd("DEL").arg(key).query::<i64>(con).unwrap();
}

/// `DBSIZE`.
pub fn dbsize(con: &mut Connection) -> usize {
    redis::cmd("DBSIZE").query(con).unwrap()
}

/// Whether `SCRIPT EXISTS` knows the script with this SHA1.
pub fn script_exists(con: &mut Connection, sha: &str) -> bool {
    let found: Vec<i64> = redis::cmd("SCRIPT")
        .arg("EXISTS")
        .arg(sha)
        .query(con)
        .unwrap();
    found == [1]
}

/// A set literal.
pub fn set<const N: usize>(items: [&str; N]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// A map literal.
pub fn map<const N: usize>(items: [(&str, &str); N]) -> BTreeMap<String, String> {
    items
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The publish time the server stored for an article of `site`.
pub fn stored_time(con: &mut Connection, site: &redvote::Site, id: u64) -> i64 {
    let raw = hget(con, &format!("{}article:{id}", site.prefix()), "time").unwrap();
    raw.parse().unwrap()
}

/// Every key whose name starts with `prefix`, without the prefix, to its
/// type, content and expiry (`EXPIRETIME`: -1 kept), as text: two data
/// sets built by different scripts compare equal key for key. Hash fields
/// named in `ignore` as (key, field) are left out: a key ending in `:`
/// stands for every key it starts. Zsets, hashes, sets, strings (and so
/// HyperLogLogs, byte for byte) and streams (entries without their IDs,
/// which hold the clock) are compared by content, anything else by type.
pub fn keyspace(
    con: &mut Connection,
    prefix: &str,
    ignore: &[(&str, &str)],
) -> BTreeMap<String, String> {
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}*"))
        .query(con)
        .unwrap();
    let mut out = BTreeMap::new();
    for key in keys {
        let short = key[prefix.len()..].to_string();
        let kind: String = redis::cmd("TYPE").arg(&key).query(con).unwrap();
        let content = match kind.as_str() {
            "zset" => {
                let v: Vec<(String, String)> = redis::cmd("ZRANGE")
                    .arg(&key)
                    .arg(0)
                    .arg(-1)
                    .arg("WITHSCORES")
                    .query(con)
                    .unwrap();
                format!("{v:?}")
            }
            "hash" => {
                let mut v = hgetall(con, &key);
                for (k, field) in ignore {
                    let hit = short == *k || (k.ends_with(':') && short.starts_with(k));
                    if hit {
                        v.remove(*field);
                    }
                }
                format!("{v:?}")
            }
            "set" => format!("{:?}", smembers(con, &key)),
            "string" => {
                let v: redis::Value = redis::cmd("GET").arg(&key).query(con).unwrap();
                format!("{v:?}")
            }
            "stream" => {
                let v: Vec<(String, Vec<String>)> = redis::cmd("XRANGE")
                    .arg(&key)
                    .arg("-")
                    .arg("+")
                    .query(con)
                    .unwrap();
                let entries: Vec<&Vec<String>> = v.iter().map(|(_, fields)| fields).collect();
                format!("{entries:?}")
            }
            other => other.to_string(),
        };
        let expires: i64 = redis::cmd("EXPIRETIME").arg(&key).query(con).unwrap();
        out.insert(short, format!("{kind} {content} expires {expires}"));
    }
    out
}
