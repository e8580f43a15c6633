//! The CLI's refusals: a bad argument or a Redis that is down is one line
//! on stderr naming the problem, a non-zero exit, and no write.

use crate::support::{self, populated_site, redvote, unchanged};
use redvote::{Error, Site};

const LONG_TITLE: usize = 513;
#[test]
fn cli_refusals_exit_non_zero_with_a_named_problem_and_change_nothing() {
    let (server, mut con, _site) = populated_site();
    let url = server.url();
    let before = support::digest(&mut con);
    let long_title = "t".repeat(LONG_TITLE);
    // (arguments, exit code, what stderr must name)
    #[rustfmt::skip]
    let cases: &[(&[&str], i32, &str)] = &[
        (&["vote", "--user", "u", "99"], 1, "REDVOTE_UNKNOWN_ARTICLE article 99 does not exist"),
        (&["vote", "--user", "u", "3"], 1, "REDVOTE_VOTING_CLOSED voting on article 3 closed at"),
        (&["vote", "--user", "", "1"], 1, "REDVOTE_INVALID_USER"),
        (&["downvote", "--user", "u", "1:x"], 1, "REDVOTE_INVALID_ID"),
        (&["unvote", "--user", "u", "{a}"], 1, "REDVOTE_INVALID_ID"),
        (&["article", "a{b}"], 1, "REDVOTE_INVALID_ID"),
        (&["post", "--user", "u", "--title", &long_title, "--link", "l"], 1, "REDVOTE_INVALID_TEXT title"),
        (&["post", "--user", "u", "--title", "t", "--link", ""], 1, "REDVOTE_INVALID_TEXT link"),
        (&["articles", "--page", "0"], 1, "REDVOTE_INVALID_NUMBER page"),
        (&["articles", "--page", "-1"], 2, "'-1'"),
        (&["articles", "--page", "x"], 2, "'x'"),
        (&["articles", "--per-page", "101"], 1, "REDVOTE_INVALID_NUMBER per_page"),
        (&["articles", "--order", "votes"], 2, "votes"),
        (&["group", "add", "1", "a:b"], 1, "REDVOTE_INVALID_GROUP"),
        (&["group", "remove", "1", "a b"], 1, "REDVOTE_INVALID_GROUP"),
        (&["group", "add", "99", "g"], 1, "REDVOTE_UNKNOWN_ARTICLE"),
        (&["group", "articles", "{x}"], 1, "REDVOTE_INVALID_GROUP"),
        (&["config", "--page-size", "0"], 1, "REDVOTE_INVALID_CONFIG page_size"),
        (&["config", "--vote-score", "100"], 1, "REDVOTE_CONFIG_LOCKED"),
        (&["config", "--rankings", "cold"], 1, "cold"),
        (&["import", "--user", "u", "--title", "t", "--link", "l", "--time", "-5"], 2, "'-5'"),
        // a malformed pair is a malformed command line, whose hint names
        // the command that takes it
        (&["campaign", "c", "vote", "--user", "u", "stars"], 2, "expected BOARD:OPTION"),
        (&["campaign", "c", "vote", "--user", "u", ":x"], 2, "(see redvote campaign c vote --help)"),
        (&["campaign", "c", "limits", "--user", "u", "b:"], 2, "(see redvote campaign c limits --help)"),
        (&["campaign", "c", "standing"], 2, "(see redvote campaign c standing --help)"),
        (&["--timeout", "3", "group", "add"], 2, "(see redvote group add --help)"),
    ];
    for (args, code, names) in cases {
        let what = format!("{args:?}");
        let out = unchanged(&mut con, &what, |_| redvote(Some(&url), args));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(*code), "{args:?}: {stderr}");
        assert!(
            stderr.contains(names),
            "{args:?}: stderr {stderr:?} should name {names:?}"
        );
        assert!(
            out.stdout.is_empty(),
            "{args:?} printed {:?}",
            String::from_utf8_lossy(&out.stdout)
        );
        if *code == 1 {
            assert_eq!(
                stderr.trim_end().lines().count(),
                1,
                "{args:?}: not one line: {stderr:?}"
            );
        }
    }
    assert_eq!(
        support::digest(&mut con),
        before,
        "a refused CLI call changed the data set"
    );
}

#[test]
fn redis_down_is_a_clear_error() {
    let server = support::server();
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
        let out = redvote(Some(&url), &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with(&format!("redvote: cannot connect to Redis at {url}")),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains("refused"), "{args:?}: {stderr}");
    }
}
