//! Stored values are not trusted: a corrupt `redvote:config` setting or a
//! key of the wrong type is refused with REDVOTE_INVALID_CONFIG before the
//! first write (Lua's `tonumber` takes nan, inf, 1e400, 0x10, ' 5', 2.5).

use redvote::{Code, Site};

use crate::support::{self, refused_unchanged};

/// (field, corrupt value) planted in `redvote:config`.
#[rustfmt::skip]
const CORRUPT_SETTINGS: &[(&str, &str)] = &[
    ("window", "nan"), ("window", "inf"), ("window", "1e400"), ("window", "0x10"),
    ("window", " 5"), ("window", "2.5"), ("window", "-5"), ("window", "0"),
    ("window", "59"), ("window", "315360001"), ("window", ""),
    ("vote_score", "inf"), ("vote_score", "-inf"), ("vote_score", " 5"), ("vote_score", "-5"),
    ("vote_score", "0"), ("vote_score", "2.5"), ("vote_score", "0x10"), ("vote_score", "1e3"),
    ("vote_score", "1000001"),
];

#[test]
fn corrupt_settings_are_refused_before_any_write() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();
    site.post("alice", "A", "http://a").run(&mut con).unwrap();
    for (field, value) in CORRUPT_SETTINGS {
        let what = format!("{field} = {value:?}");
        let _: () = redis::cmd("HSET")
            .arg("redvote:config")
            .arg(field)
            .arg(value)
            .query(&mut con)
            .unwrap();
        let detail = refused_unchanged(&mut con, &what, Code::InvalidConfig, |con| {
            site.vote("bob", "1").run(con)
        });
        assert!(detail.contains("redvote:config"), "{what}: {detail}");
        refused_unchanged(&mut con, &what, Code::InvalidConfig, |con| {
            site.post("carol", "C", "http://c").run(con)
        });
        let _: () = redis::cmd("HDEL")
            .arg("redvote:config")
            .arg(field)
            .query(&mut con)
            .unwrap();
    }
    assert!(site.vote("bob", "1").run(&mut con).unwrap().changed);
}

/// Each key a vote writes, planted as a string: the vote is refused before
/// its first write (it used to SREM + HINCRBY, then fail).
#[test]
fn wrong_type_keys_are_refused_before_any_write() {
    for (key, vote) in [
        ("downvoted:1", "down"),
        ("voted:1", "up"),
        ("score:", "up"),
        ("article:1", "up"),
    ] {
        let server = support::server();
        let mut con = support::con(&server);
        let site = Site::default();
        site.post("alice", "A", "http://a").run(&mut con).unwrap();
        // alice's upvote is there to move: a downvote would SREM it first.
        let _: () = redis::cmd("DEL").arg(key).query(&mut con).unwrap();
        let _: () = redis::cmd("SET").arg(key).arg("x").query(&mut con).unwrap();
        let what = format!("{key} a string, {vote}");
        let detail = refused_unchanged(&mut con, &what, Code::InvalidConfig, |con| match vote {
            "down" => site.downvote("alice", "1").run(con),
            _ => site.vote("bob", "1").run(con),
        });
        assert!(detail.contains("WRONGTYPE"), "{what}: {detail}");
    }
}
