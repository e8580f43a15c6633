//! The documentation's promises: the `redis-cli` and `redvote` examples of
//! README, docs/redis-cli.md and docs/campaigns.md run as written (each
//! document's lines in order, against a server of the test's own), and the
//! CLI synopsis of docs/cli.md matches the binary.

use std::process::Command;

use redis::Commands;

use crate::support;
use crate::support::readme::{doc, sh, sh_commands, README, WORKSPACE};

/// The `redis-cli ...` and `redvote ...` lines of README's sh blocks, in
/// order, but for those that name a deployment with `--url` (the TLS,
/// Sentinel and cluster tests run those against servers of their kind).
fn redis_cli_lines(text: &str) -> Vec<String> {
    sh_commands(text, &["redis-cli ", "redvote "])
        .into_iter()
        .filter(|line| !line.contains("--url "))
        .collect()
}

/// Run `lines` in order against `server` from the workspace root (where
/// `lua/` and `docs/` are): each succeeds, and prints no refusal but for
/// the one README shows on purpose (the key-like id `1:x`).
fn run_lines(server: &support::TempServer, lines: &[String]) {
    for line in lines {
        let cmd = line.replace("redis-cli ", &format!("redis-cli -p {} ", server.port()));
        let out = sh(&cmd, WORKSPACE.as_ref())
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
}

#[test]
fn readme_redis_cli_examples_run() {
    let server = support::server();
    let mut con = support::con(&server);
    let lines = redis_cli_lines(README);
    assert!(
        lines.len() >= 8,
        "README lost its redis-cli examples: {lines:?}"
    );
    run_lines(&server, &lines);

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

/// The CLI chapter's synopsis: the text block that starts with `redvote [--url`.
fn synopsis() -> &'static str {
    let cli = doc("docs/cli.md");
    let start = cli
        .find("redvote [--url")
        .expect("docs/cli.md has a CLI synopsis");
    let end = cli[start..].find("```").expect("synopsis block is closed");
    &cli[start..start + end]
}

/// docs/redis-cli.md: every script's `redis-cli --eval` form, in an order
/// that runs on an empty server; what the site lines did is there after.
#[test]
fn the_redis_cli_chapter_runs_in_order() {
    let server = support::server();
    let mut con = support::con(&server);
    let lines = redis_cli_lines(doc("docs/redis-cli.md"));
    let scripts = std::fs::read_dir(format!("{WORKSPACE}/lua"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".lua"))
        .count();
    assert!(
        lines.len() >= scripts,
        "docs/redis-cli.md shows {} lines for {scripts} scripts",
        lines.len()
    );
    run_lines(&server, &lines);
    let votes: i64 = con.hget("article:1", "votes").unwrap();
    assert!(votes >= 2, "the chapter's votes did not count: {votes}");
    let boards: Vec<String> = con.smembers("{c:spring2026}:boards").unwrap();
    assert!(
        !boards.is_empty(),
        "the chapter's campaign is not configured"
    );
}

/// docs/campaigns.md's worked example: the CLI and redis-cli lines in order
/// on an empty server, the vote id replayed once.
#[test]
fn the_campaign_worked_example_runs_in_order() {
    let server = support::server();
    let mut con = support::con(&server);
    let lines = redis_cli_lines(doc("docs/campaigns.md"));
    assert!(
        lines.len() >= 10,
        "docs/campaigns.md lost its example: {lines:?}"
    );
    run_lines(&server, &lines);
    let participants: i64 = redis::cmd("PFCOUNT")
        .arg("{c:spring2026}:hll")
        .query(&mut con)
        .unwrap();
    assert_eq!(participants, 4, "users 1 to 4 voted");
}

/// docs/hot-campaigns.md's redis-cli session, in order on an empty server:
/// the page before the fold is empty, the fold writes both votes, and the
/// page after it shows them.
#[test]
fn the_hot_campaigns_example_runs_in_order() {
    let server = support::server();
    let lines = redis_cli_lines(doc("docs/hot-campaigns.md"));
    assert_eq!(lines.len(), 6, "docs/hot-campaigns.md's session: {lines:?}");
    let mut outputs = Vec::new();
    for line in &lines {
        let cmd = line.replace("redis-cli ", &format!("redis-cli -p {} ", server.port()));
        let out = sh(&cmd, WORKSPACE.as_ref()).output().expect("run sh");
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success() && !stdout.contains("REDVOTE_"),
            "{cmd}: {stdout}"
        );
        outputs.push(stdout);
    }
    assert!(
        !outputs[3].contains("yyqx"),
        "before the fold: {}",
        outputs[3]
    );
    assert!(outputs[4].starts_with("2\n0\n"), "the fold: {}", outputs[4]);
    assert!(
        outputs[5].contains("yyqx") && outputs[5].contains("2.00"),
        "after the fold: {}",
        outputs[5]
    );
}

#[test]
fn readme_cli_synopsis_lists_every_subcommand() {
    let out = Command::new(env!("CARGO_BIN_EXE_redvote"))
        .arg("--help")
        .output()
        .expect("run redvote --help");
    let help = String::from_utf8_lossy(&out.stdout);
    for command in [
        "post",
        "import",
        "vote",
        "downvote",
        "unvote",
        "article",
        "articles",
        "group",
        "config",
        "rerank",
        "campaign",
        "campaigns",
        "scripts",
        "load",
        "demo",
        "serve",
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
            "docs/cli.md's synopsis lacks {command}"
        );
    }
}

/// `redvote scripts` prints, for every script, the SHA1 that
/// `lua/manifest.json` names (and `redis-cli -x SCRIPT LOAD < lua/<op>.lua`
/// answers: the driver's suite loads every script so).
#[test]
fn redvote_scripts_prints_the_manifest_sha1s() {
    let out = Command::new(env!("CARGO_BIN_EXE_redvote"))
        .arg("scripts")
        .output()
        .expect("run redvote scripts");
    assert!(out.status.success(), "{out:?}");
    let printed = String::from_utf8(out.stdout).unwrap();
    let manifest: serde_json::Value = serde_json::from_str(redvote::scripts::MANIFEST).unwrap();
    for script in manifest["scripts"].as_array().unwrap() {
        let (name, sha1) = (
            script["name"].as_str().unwrap(),
            script["sha1"].as_str().unwrap(),
        );
        assert!(
            printed.lines().any(|l| {
                let words: Vec<&str> = l.split_whitespace().collect();
                words.contains(&name) && words.contains(&sha1)
            }),
            "redvote scripts does not print {name} {sha1}:\n{printed}"
        );
    }
}
