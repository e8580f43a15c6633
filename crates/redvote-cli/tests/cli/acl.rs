//! docs/connecting.md's least-privilege line, applied as written (its key
//! patterns included), lets every command of docs/cli.md's table run: the
//! campaign's with `spring2026`, the site's with `--prefix '{site1}:'`, and
//! `keys` with the operator's `~{redvote}:*` added, as the chapter says.

use crate::support::readme::{doc, WORKSPACE};
use crate::support::{con, redvote, scratch, server};

/// The chapter's `ACL SETUSER redvote ...` line, password set, as words.
fn acl_line() -> Vec<String> {
    doc("docs/connecting.md")
        .lines()
        .find(|l| l.starts_with("ACL SETUSER redvote "))
        .expect("docs/connecting.md has an ACL SETUSER redvote line")
        .split_whitespace()
        .map(|w| {
            if w == ">CHANGE-ME" {
                ">pw".into()
            } else {
                w.to_string()
            }
        })
        .collect()
}

fn setuser(con: &mut redis::Connection, extra: &[&str]) {
    let mut cmd = redis::cmd("ACL");
    for word in acl_line().iter().skip(1) {
        cmd.arg(word);
    }
    cmd.arg(extra).query::<()>(con).unwrap();
}

/// Run `redvote ARGS` as the ACL user; fail naming the command.
fn ok(url: &str, args: &[&str]) {
    let out = redvote(Some(url), args);
    assert!(
        out.status.success(),
        "`redvote {}` as the ACL line's user: {}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_acl_line_runs_every_documented_command() {
    let server = server();
    let mut admin = con(&server);
    setuser(&mut admin, &[]);
    let url = format!("redis://redvote:pw@127.0.0.1:{}/", server.port());
    let settings = format!("{WORKSPACE}/docs/spring2026.json");
    let import = format!("{WORKSPACE}/docs/spring2026-initial.csv");
    let now: u64 = redis::cmd("TIME")
        .query::<(u64, u64)>(&mut admin)
        .unwrap()
        .0;
    let (from, to) = ((now - 3600).to_string(), (now + 3600).to_string());
    // the same campaign buffered: its votes, folds and the calls that fold
    // first touch the options' buffers <ns>buf:B:O and <ns>bufs
    let buffered = scratch("acl").join("buffered.json");
    std::fs::write(&buffered, r#"{"mode": "buffered"}"#).unwrap();
    let buffered = buffered.to_str().unwrap();
    fn c<'a>(rest: &[&'a str]) -> Vec<&'a str> {
        [&["campaign", "spring2026"], rest].concat()
    }
    for args in [
        c(&["configure", &settings]),
        c(&["settings"]),
        c(&[
            "vote",
            "--user",
            "user:1",
            "--vote-id",
            "r1",
            "male-stars:yyqx",
        ]),
        c(&[
            "vote",
            "--user",
            "user:2",
            "male-stars:wjk",
            "female-stars:zly",
        ]),
        c(&["import", "male-stars", &import]),
        c(&["top", "male-stars", "female-stars", "--period", "total"]),
        c(&["standing", "male-stars", "yyqx"]),
        c(&["around", "male-stars", "yyqx"]),
        c(&["participants", "male-stars"]),
        c(&["export", "male-stars"]),
        c(&["stats", "male-stars"]),
        c(&["limits", "--user", "user:1"]),
        c(&["reset-limits", "--user", "user:1"]),
        c(&["void", "r1"]),
        c(&["void", "--user", "user:2", "--from", &from, "--to", &to]),
        c(&["reindex", "male-stars"]),
        c(&["upgrade"]),
        c(&["remove-options", "male-stars"]),
        c(&["audit"]),
        c(&["check"]),
        c(&["configure", buffered]),
        c(&[
            "vote",
            "--user",
            "user:3",
            "--vote-id",
            "r2",
            "male-stars:yyqx",
        ]),
        c(&["top", "male-stars"]),
        c(&["check"]),
        c(&["void", "r2"]),
        c(&["vote", "--user", "user:4", "male-stars:wjk"]),
        c(&["fold", "--max", "1"]),
        c(&["vote", "--user", "user:5", "male-stars:wjk"]),
        c(&["fold", "--all"]),
        vec!["campaigns"],
        vec!["campaigns", "register", "spring2026"],
        vec!["campaigns", "register", "--scan"],
        vec!["scripts"],
        vec!["load"],
    ] {
        ok(&url, &args);
    }
    fn site<'a>(rest: &[&'a str]) -> Vec<&'a str> {
        [&["--prefix", "{site1}:"], rest].concat()
    }
    for args in [
        site(&[
            "post",
            "--user",
            "u1",
            "--title",
            "T",
            "--link",
            "https://e.com/",
        ]),
        site(&["vote", "--user", "u2", "1"]),
        site(&["downvote", "--user", "u3", "1"]),
        site(&["unvote", "--user", "u3", "1"]),
        site(&["article", "1", "--user", "u2"]),
        site(&["articles"]),
        site(&["group", "add", "1", "g"]),
        site(&["group", "articles", "g"]),
        site(&["group", "remove", "1", "g"]),
        site(&["config"]),
        site(&["config", "--page-size", "20"]),
        site(&["rerank"]),
        site(&["upgrade"]),
        site(&["check"]),
    ] {
        ok(&url, &args);
    }
    // team keys are the operator's: the line does not reach them, the
    // chapter's one extra pattern does
    let out = redvote(Some(&url), &["keys", "list"]);
    assert!(!out.status.success(), "keys list without ~{{redvote}}:*");
    setuser(&mut admin, &["~{redvote}:*"]);
    for args in [
        vec![
            "keys",
            "add",
            "t1",
            "--campaigns",
            "spring*",
            "--role",
            "read",
        ],
        vec!["keys", "list"],
        vec!["keys", "revoke", "t1"],
    ] {
        ok(&url, &args);
    }
}
