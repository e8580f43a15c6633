//! `redvote keys add|list|revoke`, `redvote campaign NAME void` and
//! `redvote campaign NAME audit` (docs/teams.md).

use std::process::Output;

use serde_json::Value;

use crate::support::{self, redvote};

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[track_caller]
fn ok(url: &str, args: &[&str]) -> String {
    let o = redvote(Some(url), args);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{args:?}: {out}{err}");
    out
}

#[track_caller]
fn fails(url: &str, args: &[&str]) -> (i32, String) {
    let o = redvote(Some(url), args);
    let (out, err) = text(&o);
    assert!(!o.status.success(), "{args:?}: {out}{err}");
    (o.status.code().unwrap_or(-1), err)
}

#[test]
fn keys_add_prints_the_token_once_and_list_never() {
    let server = support::server();
    let url = server.url();
    let out = ok(
        &url,
        &[
            "keys",
            "add",
            "team1",
            "--campaigns",
            "spring-*",
            "--role",
            "vote",
        ],
    );
    assert!(
        out.starts_with("key team1 (vote on campaigns spring-*)\ntoken: rvk_"),
        "{out}"
    );
    let token = out
        .lines()
        .find_map(|l| l.strip_prefix("token: "))
        .unwrap()
        .to_string();
    assert_eq!(token.len(), 47);
    let json: Value = serde_json::from_str(&ok(
        &url,
        &[
            "keys",
            "add",
            "team2",
            "--campaigns",
            "*",
            "--role",
            "admin",
            "--json",
        ],
    ))
    .unwrap();
    assert_eq!(json["name"], "team2");
    assert_eq!(json["role"], "admin");
    assert!(json["token"].as_str().unwrap().starts_with("rvk_"));
    let list = ok(&url, &["keys", "list"]);
    let lines: Vec<&str> = list.lines().collect();
    assert_eq!(lines.len(), 2, "{list}");
    assert!(lines[0].starts_with("team1 vote spring-* "), "{list}");
    assert!(lines[1].starts_with("team2 admin * "), "{list}");
    assert!(!list.contains("rvk_"));
    let json: Value = serde_json::from_str(&ok(&url, &["keys", "list", "--json"])).unwrap();
    assert_eq!(json["keys"].as_array().unwrap().len(), 2);
    assert!(json["keys"][0].get("token").is_none());
    assert!(!json.to_string().contains("rvk_"));
    // refusals: the name exists, a bad pattern or name, a bad role
    let (code, err) = fails(
        &url,
        &["keys", "add", "team1", "--campaigns", "*", "--role", "read"],
    );
    assert_eq!(code, 1);
    assert!(err.contains("team1") && err.contains("exists"), "{err}");
    let (_, err) = fails(
        &url,
        &["keys", "add", "t3", "--campaigns", "a b", "--role", "read"],
    );
    assert!(err.contains("pattern"), "{err}");
    let (_, err) = fails(
        &url,
        &[
            "keys",
            "add",
            "operator",
            "--campaigns",
            "*",
            "--role",
            "read",
        ],
    );
    assert!(err.contains("operator"), "{err}");
    let (code, err) = fails(
        &url,
        &["keys", "add", "t3", "--campaigns", "*", "--role", "owner"],
    );
    assert_eq!(code, 2, "{err}");
    // revoke
    assert_eq!(
        ok(&url, &["keys", "revoke", "team1"]),
        "revoked key team1\n"
    );
    let (code, err) = fails(&url, &["keys", "revoke", "team1"]);
    assert_eq!(code, 1);
    assert!(err.contains("no key of this name"), "{err}");
    assert_eq!(ok(&url, &["keys", "list"]).lines().count(), 1);
}

fn configure(url: &str, name: &str) {
    let dir = support::scratch(&format!("teams-{name}"));
    let file = dir.join("settings.json");
    std::fs::write(
        &file,
        r#"{"vote_log": 100, "boards": {"b": {"options": {"o": {}, "p": {}}}}}"#,
    )
    .unwrap();
    ok(
        url,
        &["campaign", name, "configure", file.to_str().unwrap()],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn campaign_void_voids_once_and_says_so_and_the_audit_shows_it() {
    let server = support::server();
    let url = server.url();
    configure(&url, "spr");
    ok(
        &url,
        &[
            "campaign",
            "spr",
            "vote",
            "--user",
            "u1",
            "--vote-id",
            "v1",
            "b:o",
        ],
    );
    let out = ok(&url, &["campaign", "spr", "void", "v1"]);
    assert!(out.starts_with("voided vote v1: "), "{out}");
    let out = ok(&url, &["campaign", "spr", "void", "v1"]);
    assert!(out.starts_with("vote v1 was already voided (at "), "{out}");
    let json: Value =
        serde_json::from_str(&ok(&url, &["campaign", "spr", "void", "v1", "--json"])).unwrap();
    assert_eq!(json["already"], true);
    let (code, err) = fails(&url, &["campaign", "spr", "void", "nope"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("REDVOTE_UNKNOWN_VOTE") || err.contains("unknown"),
        "{err}"
    );
    // a user's votes in a range, through the log
    for _ in 0..3 {
        ok(&url, &["campaign", "spr", "vote", "--user", "u2", "b:p"]);
    }
    let out = ok(
        &url,
        &[
            "campaign",
            "spr",
            "void",
            "--user",
            "u2",
            "--from",
            "0",
            "--to",
            "253402300799",
            "--batch",
            "2",
        ],
    );
    assert!(
        out.starts_with("voided 3 vote(s) of user u2 in [0, 253402300799) in "),
        "{out}"
    );
    let top: Value =
        serde_json::from_str(&ok(&url, &["campaign", "spr", "top", "b", "--json"])).unwrap();
    assert!(!top.to_string().contains("\"p\""), "{top}");
    // neither an id nor a user: clap's usage error
    let (code, _) = fails(&url, &["campaign", "spr", "void"]);
    assert_eq!(code, 2);
    let (code, _) = fails(&url, &["campaign", "spr", "void", "--user", "u2"]);
    assert_eq!(code, 2);

    // the audit: configure, void, void_range, newest first, by cli:USER
    let json: Value =
        serde_json::from_str(&ok(&url, &["campaign", "spr", "audit", "--json"])).unwrap();
    let entries = json["entries"].as_array().unwrap();
    let actions: Vec<&str> = entries
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        ["void_range", "void_range", "void", "configure"],
        "{json}"
    );
    for e in entries {
        assert!(e["who"].as_str().unwrap().starts_with("cli:"), "{e}");
    }
    assert_eq!(entries[2]["what"]["vote_id"], "v1");
    assert_eq!(entries[3]["before"], Value::Null);
    assert_eq!(entries[3]["after"]["vote_log"], 100, "{}", entries[3]);
    let out = ok(&url, &["campaign", "spr", "audit", "--count", "1"]);
    assert_eq!(out.lines().count(), 1);
    assert!(
        out.contains(" cli:") && out.contains(" void_range "),
        "{out}"
    );
    let (code, _) = fails(&url, &["campaign", "spr", "audit", "--count", "0"]);
    assert_eq!(code, 2);
    assert_eq!(
        ok(&url, &["campaign", "other", "audit"]),
        "no audit entries\n"
    );
}

/// docs/teams.md's examples run as written, in order, against a server of
/// the test's own, and print what the chapter says they print.
#[test]
fn the_teams_chapter_examples_run() {
    use crate::support::readme::{doc, sh, sh_commands, WORKSPACE};
    let server = support::server();
    let lines = sh_commands(doc("docs/teams.md"), &["redvote "]);
    assert_eq!(lines.len(), 9, "{lines:?}");
    let mut outs = Vec::new();
    for line in &lines {
        let out = sh(line, WORKSPACE.as_ref())
            .env("REDVOTE_URL", server.url())
            .env("USER", "docs")
            .output()
            .unwrap();
        assert!(out.status.success(), "{line}: {out:?}");
        outs.push(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    assert!(outs[1].contains("token: rvk_"), "{}", outs[1]);
    assert!(
        outs[3].starts_with("backend-spring vote spring* "),
        "{}",
        outs[3]
    );
    assert!(!outs[3].contains("rvk_"));
    assert!(outs[5].starts_with("voided vote order-1: "), "{}", outs[5]);
    assert!(
        outs[6].starts_with("vote order-1 was already voided (at "),
        "{}",
        outs[6]
    );
    let audit: Vec<&str> = outs[7].lines().collect();
    assert_eq!(audit.len(), 2, "{}", outs[7]);
    assert!(audit[0].contains(" cli:docs void "), "{}", outs[7]);
    assert!(audit[1].contains(" cli:docs configure "), "{}", outs[7]);
    assert_eq!(outs[8], "revoked key backend-spring\n");
}
