//! `--json`: every command prints one object with named fields (docs/cli.md
//! "JSON output"): no bare integers, no arrays of pairs, `replay` always
//! there; an error is one JSON object on stderr, the exit code unchanged.

use redvote::Campaign;
use redvote_testing::readme::spring_settings;
use serde_json::{json, Value};

use crate::support::{self, redvote};

/// `redvote --json ARGS...` that succeeds: its stdout, which must be one
/// JSON object.
fn object(url: &str, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = redvote(Some(url), &all);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}"));
    assert!(v.is_object(), "{args:?} printed {v}, not an object");
    v
}

/// `redvote --json ARGS...` that fails: exit `code`, nothing on stdout,
/// and stderr one line, one JSON object `{"error": {...}}`.
fn error(url: &str, args: &[&str], code: i32) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = redvote(Some(url), &all);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{args:?}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    let v: Value =
        serde_json::from_str(&stderr).unwrap_or_else(|e| panic!("{args:?}: {e}: {stderr}"));
    let e = &v["error"];
    assert!(e["message"].is_string(), "{v}");
    assert!(e["may_have_applied"].is_boolean(), "{v}");
    assert!(e["code"].is_string() || e["code"].is_null(), "{v}");
    v["error"].clone()
}

#[test]
fn every_command_prints_an_object() {
    let server = support::server();
    let url = server.url();
    let u = url.as_str();
    Campaign::new("spring2026")
        .configure(&spring_settings())
        .run(&mut support::con(&server))
        .unwrap();

    assert_eq!(
        object(
            u,
            &[
                "post",
                "--user",
                "u",
                "--title",
                "t",
                "--link",
                "https://e.x"
            ]
        ),
        json!({"id": "1"})
    );
    assert_eq!(
        object(
            u,
            &[
                "import",
                "--user",
                "u",
                "--title",
                "t",
                "--link",
                "https://e.x",
                "--time",
                "1"
            ]
        ),
        json!({"id": "2"})
    );
    assert_eq!(object(u, &["vote", "--user", "v", "1"])["votes"], 2);
    assert_eq!(object(u, &["article", "1"])["id"], "1");
    let page = object(u, &["articles"]);
    assert_eq!(
        (
            page["total"].as_u64(),
            page["articles"].as_array().map(Vec::len)
        ),
        (Some(2), Some(2))
    );
    assert_eq!(object(u, &["group", "add", "1", "g"])["added"], 1);
    assert_eq!(
        object(u, &["group", "articles", "g"])["articles"][0]["id"],
        "1"
    );
    assert_eq!(object(u, &["config"])["vote_score"], 432);
    assert_eq!(
        object(u, &["config", "--rankings", "hot"])["rankings"],
        json!(["hot"])
    );
    assert_eq!(object(u, &["rerank"]), json!({"ranked": 2}));
    let scripts = object(u, &["scripts"]);
    assert_eq!(
        scripts["scripts"].as_array().map(Vec::len),
        Some(redvote::scripts::all().len())
    );
    assert!(scripts["scripts"][0]["sha1"].is_string());
    assert!(object(u, &["load"])["scripts"].is_array());
    assert!(object(u, &["check"])["violations"].is_array());

    let c = ["campaign", "spring2026"];
    let with = |rest: &[&'static str]| -> Vec<&'static str> {
        let mut all = c.to_vec();
        all.extend_from_slice(rest);
        all
    };
    let ballots = object(
        u,
        &with(&["vote", "--user", "u1", "--vote-id", "k1", "stars:wjk"]),
    );
    assert_eq!(ballots["ballots"][0]["replay"], false, "{ballots}");
    let again = object(
        u,
        &with(&["vote", "--user", "u1", "--vote-id", "k1", "stars:wjk"]),
    );
    assert_eq!(again["ballots"][0]["replay"], true, "{again}");
    assert!(object(u, &with(&["limits", "--user", "u1"]))["limits"].is_array());
    let reset = object(u, &with(&["reset-limits", "--user", "u1"]));
    assert!(reset["reset"].is_u64(), "{reset}");
    let top = object(u, &with(&["top", "stars"]));
    assert_eq!(top["boards"][0]["entries"][0]["member"], "wjk");
    let standing = object(u, &with(&["standing", "stars", "wjk"]));
    assert_eq!(standing["standings"][0]["rank"], 1);
    assert_eq!(object(u, &with(&["around", "stars", "wjk"]))["rank"], 1);
    assert_eq!(
        object(u, &with(&["participants", "stars", "wjk"])),
        json!({"campaign": 1, "options": [
            {"option": "wjk", "participants": 1}
        ]})
    );
    assert!(object(u, &with(&["settings"]))["boards"].is_object());
    assert!(object(u, &with(&["check"]))["violations"].is_array());

    // the campaign registry: configured by the driver alone, spring2026 is
    // found by the scan
    assert_eq!(object(u, &["campaigns"]), json!({"campaigns": []}));
    let scan = object(u, &["campaigns", "register", "--scan"]);
    assert_eq!(
        (&scan["found"], &scan["registered"]),
        (&json!(1), &json!(1)),
        "{scan}"
    );
    assert!(
        scan["primaries"].is_u64() && scan["scan_steps"].is_u64(),
        "{scan}"
    );
    assert_eq!(
        object(u, &["campaigns", "register", "autumn"]),
        json!({"registered": 1})
    );
    assert_eq!(
        object(u, &["campaigns"]),
        json!({"campaigns": ["spring2026", "autumn"]})
    );
}

#[test]
fn errors_are_one_json_object_on_stderr() {
    let server = support::server();
    let url = server.url();
    let u = url.as_str();
    // a script's refusal: its code, exit 1
    let e = error(u, &["campaign", "nope", "top", "stars"], 1);
    assert_eq!(e["code"], "REDVOTE_UNKNOWN_CAMPAIGN");
    assert_eq!(e["may_have_applied"], false);
    // a malformed command line: exit 2
    let e = error(u, &["campaign", "bad name", "top", "stars"], 2);
    assert_eq!(e["code"], "REDVOTE_USAGE");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("a campaign name is"),
        "{e}"
    );
    let e = error(u, &["bogus"], 2);
    assert_eq!(e["code"], "REDVOTE_USAGE");
    // applied, not replicated: may have applied
    let e = error(
        u,
        &[
            "--wait-replicas",
            "1",
            "--wait-timeout",
            "0.1",
            "post",
            "--user",
            "u",
            "--title",
            "t",
            "--link",
            "https://e.x",
        ],
        1,
    );
    assert_eq!(e["code"], "REDVOTE_NOT_REPLICATED");
    assert_eq!(e["may_have_applied"], true);
    // the CLI's own refusal: no code
    let e = error(
        u,
        &["campaign", "c", "configure", "/nonexistent/file.json"],
        1,
    );
    assert!(e["code"].is_null(), "{e}");
    // nothing listens: never sent
    let e = error("redis://127.0.0.1:1", &["articles"], 1);
    assert_eq!(e["may_have_applied"], false);
}
