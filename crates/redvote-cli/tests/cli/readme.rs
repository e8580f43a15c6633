//! README.md's promises: its `redis-cli` examples run as written (against a
//! server of the test's own) and its CLI synopsis matches the binary.

use std::process::Command;

use redis::Commands;

use crate::support;
use crate::support::readme::{sh, sh_commands, README};

/// The `redis-cli ...` and `redvote ...` lines of README's sh blocks, in
/// order, but for those that name a deployment with `--url` (the TLS,
/// Sentinel and cluster tests run those against servers of their kind).
fn redis_cli_lines() -> Vec<String> {
    sh_commands(README, &["redis-cli ", "redvote "])
        .into_iter()
        .filter(|line| !line.contains("--url "))
        .collect()
}

#[test]
fn readme_redis_cli_examples_run() {
    let server = support::server();
    let mut con = support::con(&server);
    let lines = redis_cli_lines();
    assert!(
        lines.len() >= 8,
        "README lost its redis-cli examples: {lines:?}"
    );

    for line in &lines {
        let cmd = line.replace("redis-cli ", &format!("redis-cli -p {} ", server.port()));
        let out = sh(&cmd, env!("CARGO_MANIFEST_DIR").as_ref())
            .env("REDVOTE_URL", server.url())
            .output()
            .expect("run sh");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{cmd}: {out:?}");
        if line.contains(" 1:x") {
            assert!(
                stdout.starts_with("REDVOTE_INVALID_ID ") && stdout.contains("\"1:x\""),
                "{cmd} should be refused: {stdout}"
            );
        } else {
            assert!(
                !stdout.contains("REDVOTE_") && !stdout.contains("ERR"),
                "{cmd}: {stdout}"
            );
        }
    }

    // What the examples did, as README describes it: article 1 with the
    // poster's and two more upvotes (one by EVALSHA), one downvote, two groups.
    let votes: i64 = con.hget("article:1", "votes").unwrap();
    let downvotes: i64 = con.hget("article:1", "downvotes").unwrap();
    let time: f64 = con.zscore("time:", "article:1").unwrap();
    let score: f64 = con.zscore("score:", "article:1").unwrap();
    assert_eq!((votes, downvotes), (3, 1));
    assert_eq!(score, time + 432.0 * 2.0);
    let voters: Vec<String> = con.smembers("voted:1").unwrap();
    assert_eq!(voters.len(), 3);
    assert!(con
        .sismember::<_, _, bool>("group:redis", "article:1")
        .unwrap());
    assert!(con
        .sismember::<_, _, bool>("group:lua", "article:1")
        .unwrap());
}

/// README's CLI synopsis: the text block that starts with `redvote [--url`.
fn synopsis() -> &'static str {
    let start = README
        .find("redvote [--url")
        .expect("README has a CLI synopsis");
    let end = README[start..]
        .find("```")
        .expect("synopsis block is closed");
    &README[start..start + end]
}

#[test]
fn readme_cli_synopsis_lists_every_subcommand() {
    let out = Command::new(env!("CARGO_BIN_EXE_redvote"))
        .arg("--help")
        .output()
        .expect("run redvote --help");
    let help = String::from_utf8_lossy(&out.stdout);
    for command in [
        "post", "import", "vote", "downvote", "unvote", "article", "articles", "group", "config",
        "rerank", "campaign", "scripts", "load", "demo", "serve",
    ] {
        assert!(
            help.lines()
                .any(|l| l.trim_start().starts_with(&format!("{command} "))),
            "redvote --help lacks {command}"
        );
        let synopsis_words: Vec<&str> = synopsis()
            .split(|c: char| !c.is_ascii_alphanumeric())
            .collect();
        assert!(
            synopsis_words.contains(&command),
            "README synopsis lacks {command}"
        );
    }
}
