//! Stored values are not trusted: a corrupt `redvote:config` setting or a
//! key of the wrong type is refused with REDVOTE_INVALID_CONFIG before the
//! first write (Lua's `tonumber` takes nan, inf, 1e400, 0x10, ' 5', 2.5).

use redvote::{Code, ConfigUpdate, Order, Ranking, Site};

use crate::support::{self, discard, refused_unchanged};

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

/// Every key a call writes is read before its first write, so a key of the
/// wrong type (or a count or id counter that is not one) is refused with
/// nothing written. Found by the fuzz test: post wrote the article before
/// failing on time:, score:, hot: or best:; vote and rerank wrote score: or
/// hot: before failing on best:; groups added to one group before failing
/// on the next; group_page left its new ordering behind when the page
/// failed; a corrupt `votes` count or id counter answered REDVOTE_INTERNAL;
/// a `votes` of "05" (tonumber takes it, HINCRBY does not) was written to
/// score: before HINCRBY failed.
#[test]
fn keys_of_the_wrong_type_are_refused_before_any_write_by_every_writer() {
    type Call = fn(&Site, &mut redis::Connection) -> redvote::Result<()>;
    let post: Call = |s, c| discard(s.post("carol", "C", "http://c").run(c));
    let vote: Call = |s, c| discard(s.vote("bob", "1").run(c));
    let rerank: Call = |s, c| discard(s.rerank(0, 10).run(c));
    let groups: Call = |s, c| discard(s.groups("1", &["a", "b"], &[]).run(c));
    let group_page: Call = |s, c| discard(s.group_page("g", Order::Score, 1, None).run(c));
    // (what, key, planted: a type, or field=value in the hash, call)
    #[rustfmt::skip]
    let cases: &[(&str, &str, &str, Call)] = &[
        ("post", "time:", "string", post),
        ("post", "score:", "string", post),
        ("post", "hot:", "string", post),
        ("post", "best:", "string", post),
        ("post", "article:2", "string", post),
        ("post", "voted:2", "string", post),
        ("post", "article:", "not a counter", post),
        ("vote", "best:", "string", vote),
        ("vote", "article:1", "votes=x", vote),
        // HINCRBY refuses what tonumber takes: counts must be canonical
        ("vote", "article:1", "votes=05", vote),
        ("vote", "article:1", "downvotes=-0", vote),
        ("vote", "article:1", "time=1e9", vote),
        ("vote", "article:1", "time=nan", vote),
        ("rerank", "best:", "string", rerank),
        ("groups", "group:b", "string", groups),
        ("group_page", "article:1", "string", group_page),
    ];
    for (what, key, planted, call) in cases {
        let server = support::server();
        let mut con = support::con(&server);
        let site = Site::default();
        site.post("alice", "A", "http://a").run(&mut con).unwrap();
        site.groups("1", &["g"], &[]).run(&mut con).unwrap();
        // Rankings switched on after the post: hot: and best: are empty,
        // so rerank has something to write.
        site.configure(&ConfigUpdate {
            rankings: Some(vec![Ranking::Hot, Ranking::Best]),
            ..Default::default()
        })
        .run(&mut con)
        .unwrap();
        let cmd = match (*planted, planted.split_once('=')) {
            ("string", _) => redis::cmd("SET").arg(*key).arg("x").clone(),
            ("not a counter", _) => redis::cmd("SET").arg(*key).arg("1x").clone(),
            (_, Some((field, value))) => redis::cmd("HSET").arg(*key).arg(field).arg(value).clone(),
            _ => unreachable!(),
        };
        if *planted == "string" {
            support::del(&mut con, key);
        }
        cmd.query::<()>(&mut con).unwrap();
        let what = format!("{what} with {key} {planted}");
        let detail =
            refused_unchanged(&mut con, &what, Code::InvalidConfig, |con| call(&site, con));
        let names = if *planted == "string" {
            "WRONGTYPE"
        } else {
            key
        };
        assert!(detail.contains(names), "{what}: {detail}");
    }
}
