//! The bad-input catalogue: every refusal, through the driver, the raw script
//! (what `redis-cli --eval` sends) and the CLI, leaves the data set exactly as
//! it was (`DEBUG DIGEST` before and after) and names the problem.

mod common;

use std::process::{Command, Output};

use redvote::{Code, ConfigUpdate, Error, Order, Site, Vote};

/// A server holding a small site: 3 articles (one too old to vote on),
/// votes both ways, groups, a cached group page and a setting.
fn populated() -> (redvote::TempServer, redis::Connection, Site) {
    let server = common::server();
    let mut con = common::con(&server);
    let site = Site::default();
    let now = common::server_time(&mut con) as u64;
    site.post("user:1", "one", "https://example.com/1")
        .run(&mut con)
        .unwrap();
    site.post("user:2", "two", "https://example.com/2")
        .run(&mut con)
        .unwrap();
    site.import("user:3", "old", "https://example.com/3", now - 8 * 86400)
        .run(&mut con)
        .unwrap();
    site.vote("user:9", "1").run(&mut con).unwrap();
    site.downvote("user:8", "2").run(&mut con).unwrap();
    site.groups("1", &["redis"], &[]).run(&mut con).unwrap();
    site.group_page("redis", Order::Score, 1, None)
        .run(&mut con)
        .unwrap();
    site.configure(&ConfigUpdate {
        page_size: Some(20),
        ..Default::default()
    })
    .run(&mut con)
    .unwrap();
    (server, con, site)
}

/// Forget the success value: only the refusal matters here.
fn ok<T>(r: redvote::Result<T>) -> redvote::Result<()> {
    r.map(|_| ())
}

fn assert_refused<T: std::fmt::Debug>(result: redvote::Result<T>, code: Code, names: &str) {
    match result {
        Err(Error::Script { code: got, detail }) => {
            assert_eq!(got, code, "detail: {detail}");
            assert!(
                detail.contains(names),
                "{code} detail {detail:?} should name {names:?}"
            );
        }
        other => panic!("expected {code}, got {other:?}"),
    }
}

const LONG_USER: usize = 257;
const LONG_TITLE: usize = 513;
const LONG_LINK: usize = 2049;
const LONG_GROUP: usize = 65;

#[test]
fn driver_refusals_change_nothing() {
    let (_server, mut con, site) = populated();
    let before = common::digest(&mut con);
    let long = |n: usize| "x".repeat(n);
    let mut cases: Vec<(String, Code, &str, redvote::Result<()>)> = Vec::new();
    let mut check = |name: &str, code: Code, names: &'static str, r: redvote::Result<()>| {
        cases.push((name.to_string(), code, names, r));
    };

    // unknown article, closed window
    check(
        "vote unknown",
        Code::UnknownArticle,
        "article:99",
        ok(site.vote("u", "99").run(&mut con)),
    );
    check(
        "article unknown",
        Code::UnknownArticle,
        "article:99",
        ok(site.article("99", None).run(&mut con)),
    );
    check(
        "groups unknown",
        Code::UnknownArticle,
        "article:99",
        ok(site.groups("99", &["g"], &[]).run(&mut con)),
    );
    check(
        "vote closed",
        Code::VotingClosed,
        "article:3",
        ok(site.vote("u", "3").run(&mut con)),
    );
    check(
        "unvote closed",
        Code::VotingClosed,
        "article:3",
        ok(site.unvote("user:3", "3").run(&mut con)),
    );
    // users
    check(
        "post empty user",
        Code::InvalidUser,
        "user",
        ok(site.post("", "t", "l").run(&mut con)),
    );
    check(
        "vote empty user",
        Code::InvalidUser,
        "user",
        ok(site.vote("", "1").run(&mut con)),
    );
    check(
        "vote long user",
        Code::InvalidUser,
        "256",
        ok(site.vote(&long(LONG_USER), "1").run(&mut con)),
    );
    check(
        "vote control user",
        Code::InvalidUser,
        "control",
        ok(site.vote("a\nb", "1").run(&mut con)),
    );
    check(
        "article empty user",
        Code::InvalidUser,
        "user",
        ok(site.article("1", Some("")).run(&mut con)),
    );
    // text
    check(
        "empty title",
        Code::InvalidText,
        "title",
        ok(site.post("u", "", "l").run(&mut con)),
    );
    check(
        "long title",
        Code::InvalidText,
        "512",
        ok(site.post("u", &long(LONG_TITLE), "l").run(&mut con)),
    );
    check(
        "long link",
        Code::InvalidText,
        "2048",
        ok(site.post("u", "t", &long(LONG_LINK)).run(&mut con)),
    );
    check(
        "link with space",
        Code::InvalidText,
        "link",
        ok(site.post("u", "t", "a b").run(&mut con)),
    );
    // key-like and malformed ids
    for id in [
        "1:x",
        "{a}",
        "a{b}",
        "",
        " 1",
        "01",
        "-1",
        "1.0",
        "article:",
        "article:1:x",
        "x",
        "1 2",
        "9999999999999999",
    ] {
        check(
            &format!("vote id {id:?}"),
            Code::InvalidId,
            "article",
            ok(site.vote("u", id).run(&mut con)),
        );
        check(
            &format!("groups id {id:?}"),
            Code::InvalidId,
            "article",
            ok(site.groups(id, &["g"], &[]).run(&mut con)),
        );
        check(
            &format!("article id {id:?}"),
            Code::InvalidId,
            "article",
            ok(site.article(id, None).run(&mut con)),
        );
    }
    // groups
    let long_group = long(LONG_GROUP);
    for group in ["a:b", "a{b}", "{a}", "a b", "", "a*", "a,b", "a\tb"] {
        check(
            &format!("add group {group:?}"),
            Code::InvalidGroup,
            "group",
            ok(site.groups("1", &["fine", group], &[]).run(&mut con)),
        );
        check(
            &format!("group page {group:?}"),
            Code::InvalidGroup,
            "group",
            ok(site.group_page(group, Order::Score, 1, None).run(&mut con)),
        );
    }
    check(
        "long group",
        Code::InvalidGroup,
        "64",
        ok(site.groups("1", &[&long_group], &[]).run(&mut con)),
    );
    check(
        "add and remove",
        Code::InvalidGroup,
        "both",
        ok(site.groups("1", &["g"], &["g"]).run(&mut con)),
    );
    let many: Vec<String> = (0..101).map(|i| format!("g{i}")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    check(
        "101 groups",
        Code::Usage,
        "100",
        ok(site.groups("1", &many, &[]).run(&mut con)),
    );
    // numbers
    check(
        "page 0",
        Code::InvalidNumber,
        "page",
        ok(site.page(Order::Score, 0, None).run(&mut con)),
    );
    check(
        "page huge",
        Code::InvalidNumber,
        "page",
        ok(site.page(Order::Time, 1_000_001, None).run(&mut con)),
    );
    check(
        "per page 0",
        Code::InvalidNumber,
        "per_page",
        ok(site.page(Order::Score, 1, Some(0)).run(&mut con)),
    );
    check(
        "per page 101",
        Code::InvalidNumber,
        "per_page",
        ok(site.page(Order::Score, 1, Some(101)).run(&mut con)),
    );
    check(
        "group page 0",
        Code::InvalidNumber,
        "page",
        ok(site
            .group_page("redis", Order::Score, 0, None)
            .run(&mut con)),
    );
    check(
        "group per page 101",
        Code::InvalidNumber,
        "per_page",
        ok(site
            .group_page("redis", Order::Score, 1, Some(101))
            .run(&mut con)),
    );
    // settings
    check(
        "page_size 0",
        Code::InvalidConfig,
        "page_size",
        ok(site
            .configure(&ConfigUpdate {
                page_size: Some(0),
                ..Default::default()
            })
            .run(&mut con)),
    );
    check(
        "window 1",
        Code::InvalidConfig,
        "window",
        ok(site
            .configure(&ConfigUpdate {
                window: Some(1),
                ..Default::default()
            })
            .run(&mut con)),
    );
    check(
        "vote_score locked",
        Code::ConfigLocked,
        "vote_score",
        ok(site
            .configure(&ConfigUpdate {
                vote_score: Some(100),
                window: Some(3600),
                ..Default::default()
            })
            .run(&mut con)),
    );

    for (name, code, names, result) in cases {
        eprintln!("case: {name}");
        assert_refused(result, code, names);
    }
    assert_eq!(
        common::digest(&mut con),
        before,
        "a refused call changed the data set"
    );
    // Nothing was voted by the refusals: a valid vote still works afterwards.
    assert!(
        site.set_vote("u", "1", Vote::Up)
            .run(&mut con)
            .unwrap()
            .changed
    );
}

/// What `redis-cli --eval` can send that the typed driver cannot: malformed
/// numbers, unknown words, wrong arity, a wrong key.
#[test]
fn raw_script_arguments_are_validated() {
    let (_server, mut con, _site) = populated();
    let before = common::digest(&mut con);
    let raw = |name: &str,
               key: &str,
               args: &[&str],
               con: &mut redis::Connection|
     -> redvote::Result<redis::Value> {
        let script = redvote::scripts::get(name).unwrap().script();
        let mut inv = script.prepare_invoke();
        inv.key(key);
        for a in args {
            inv.arg(*a);
        }
        inv.invoke::<redis::Value>(con).map_err(Error::from)
    };
    let cases: Vec<(&str, &str, Vec<&str>, Code, &str)> = vec![
        (
            "page",
            "article:",
            vec!["score", "-1"],
            Code::InvalidNumber,
            "\"-1\"",
        ),
        (
            "page",
            "article:",
            vec!["score", "1.5"],
            Code::InvalidNumber,
            "1.5",
        ),
        (
            "page",
            "article:",
            vec!["score", "1e3"],
            Code::InvalidNumber,
            "1e3",
        ),
        (
            "page",
            "article:",
            vec!["score", "0x10"],
            Code::InvalidNumber,
            "0x10",
        ),
        (
            "page",
            "article:",
            vec!["score", " 1"],
            Code::InvalidNumber,
            "page",
        ),
        (
            "page",
            "article:",
            vec!["score", "1", "-5"],
            Code::InvalidNumber,
            "per_page",
        ),
        (
            "page",
            "article:",
            vec!["score", "1", "abc"],
            Code::InvalidNumber,
            "abc",
        ),
        (
            "page",
            "article:",
            vec!["votes", "1"],
            Code::InvalidOrder,
            "votes",
        ),
        ("page", "article:", vec!["score"], Code::Usage, "page"),
        (
            "group_page",
            "article:",
            vec!["redis", "score", "nan"],
            Code::InvalidNumber,
            "nan",
        ),
        (
            "post",
            "article:",
            vec!["u", "t", "https://x", "-5"],
            Code::InvalidNumber,
            "time",
        ),
        (
            "post",
            "article:",
            vec!["u", "t", "https://x", "1.5"],
            Code::InvalidNumber,
            "time",
        ),
        (
            "post",
            "article:",
            vec!["u", "t", "https://x", "inf"],
            Code::InvalidNumber,
            "time",
        ),
        ("post", "article:", vec!["u", "t"], Code::Usage, "post"),
        (
            "post",
            "score:",
            vec!["u", "t", "l"],
            Code::Usage,
            "article:",
        ),
        (
            "vote",
            "article:",
            vec!["u", "1", "sideways"],
            Code::InvalidVote,
            "sideways",
        ),
        (
            "vote",
            "article:",
            vec!["u", "1", "UP"],
            Code::InvalidVote,
            "UP",
        ),
        (
            "groups",
            "article:",
            vec!["1", "redis"],
            Code::InvalidGroup,
            "+NAME",
        ),
        ("groups", "article:", vec!["1"], Code::Usage, "groups"),
        (
            "configure",
            "article:",
            vec!["colour", "red"],
            Code::InvalidConfig,
            "colour",
        ),
        (
            "configure",
            "article:",
            vec!["page_size", "-1"],
            Code::InvalidConfig,
            "page_size",
        ),
        (
            "configure",
            "article:",
            vec!["page_size", "1e1"],
            Code::InvalidConfig,
            "page_size",
        ),
        (
            "configure",
            "article:",
            vec!["rankings", "hot,cold"],
            Code::InvalidConfig,
            "rankings",
        ),
        (
            "configure",
            "article:",
            vec!["window"],
            Code::Usage,
            "pairs",
        ),
    ];
    for (name, key, args, code, names) in cases {
        let result = raw(name, key, &args, &mut con);
        assert_refused(result, code, names);
    }
    assert_eq!(
        common::digest(&mut con),
        before,
        "a refused call changed the data set"
    );
}

fn cli(url: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_redvote"))
        .arg("--url")
        .arg(url)
        .args(args)
        .output()
        .expect("run redvote")
}

#[test]
fn cli_refusals_exit_non_zero_with_a_named_problem_and_change_nothing() {
    let (server, mut con, _site) = populated();
    let url = server.url();
    let before = common::digest(&mut con);
    let long_title = "t".repeat(LONG_TITLE);
    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        (
            vec!["vote", "--user", "u", "99"],
            1,
            "REDVOTE_UNKNOWN_ARTICLE article:99",
        ),
        (
            vec!["vote", "--user", "u", "3"],
            1,
            "REDVOTE_VOTING_CLOSED article:3",
        ),
        (vec!["vote", "--user", "", "1"], 1, "REDVOTE_INVALID_USER"),
        (
            vec!["downvote", "--user", "u", "1:x"],
            1,
            "REDVOTE_INVALID_ID",
        ),
        (
            vec!["unvote", "--user", "u", "{a}"],
            1,
            "REDVOTE_INVALID_ID",
        ),
        (vec!["article", "a{b}"], 1, "REDVOTE_INVALID_ID"),
        (
            vec!["post", "--user", "u", "--title", &long_title, "--link", "l"],
            1,
            "REDVOTE_INVALID_TEXT title",
        ),
        (
            vec!["post", "--user", "u", "--title", "t", "--link", ""],
            1,
            "REDVOTE_INVALID_TEXT link",
        ),
        (
            vec!["articles", "--page", "0"],
            1,
            "REDVOTE_INVALID_NUMBER page",
        ),
        (vec!["articles", "--page", "-1"], 2, "'-1'"),
        (vec!["articles", "--page", "x"], 2, "'x'"),
        (
            vec!["articles", "--per-page", "101"],
            1,
            "REDVOTE_INVALID_NUMBER per_page",
        ),
        (vec!["articles", "--order", "votes"], 2, "votes"),
        (vec!["group", "add", "1", "a:b"], 1, "REDVOTE_INVALID_GROUP"),
        (
            vec!["group", "remove", "1", "a b"],
            1,
            "REDVOTE_INVALID_GROUP",
        ),
        (
            vec!["group", "add", "99", "g"],
            1,
            "REDVOTE_UNKNOWN_ARTICLE",
        ),
        (vec!["group", "articles", "{x}"], 1, "REDVOTE_INVALID_GROUP"),
        (
            vec!["config", "--page-size", "0"],
            1,
            "REDVOTE_INVALID_CONFIG page_size",
        ),
        (
            vec!["config", "--vote-score", "100"],
            1,
            "REDVOTE_CONFIG_LOCKED",
        ),
        (vec!["config", "--rankings", "cold"], 1, "cold"),
        (
            vec![
                "import", "--user", "u", "--title", "t", "--link", "l", "--time", "-5",
            ],
            2,
            "'-5'",
        ),
    ];
    for (args, code, names) in cases {
        let out = cli(&url, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(
            stderr.contains(names),
            "{args:?}: stderr {stderr:?} should name {names:?}"
        );
        assert!(
            out.stdout.is_empty(),
            "{args:?} printed {:?}",
            String::from_utf8_lossy(&out.stdout)
        );
        if code == 1 {
            assert_eq!(
                stderr.trim_end().lines().count(),
                1,
                "{args:?}: not one line: {stderr:?}"
            );
        }
    }
    assert_eq!(
        common::digest(&mut con),
        before,
        "a refused CLI call changed the data set"
    );
}

#[test]
fn redis_down_is_a_clear_error() {
    let server = common::server();
    let url = server.url();
    drop(server);
    // Driver
    let client = redis::Client::open(url.as_str()).unwrap();
    match client.get_connection() {
        Err(e) => assert!(e.is_connection_refusal(), "{e}"),
        Ok(mut con) => {
            let err = Site::default().vote("u", "1").run(&mut con).unwrap_err();
            assert!(matches!(err, Error::Redis(_)), "{err:?}");
        }
    }
    // CLI, for every command that talks to Redis
    for args in [
        vec!["articles"],
        vec!["vote", "--user", "u", "1"],
        vec!["post", "--user", "u", "--title", "t", "--link", "l"],
        vec!["load"],
        vec!["demo"],
    ] {
        let out = cli(&url, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with(&format!("redvote: cannot connect to Redis at {url}")),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains("refused"), "{args:?}: {stderr}");
    }
}
