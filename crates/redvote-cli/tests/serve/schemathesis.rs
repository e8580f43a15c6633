//! schemathesis (PyPI) against the service's own `/openapi.json`: a
//! bounded, seeded run (`--seed`, `--max-examples`, every phase: examples,
//! coverage, fuzzing, stateful; every check, on every route, the SSE
//! stream included) that must find no 5xx, no status code, content type
//! or header the document does not declare, no body or event that
//! violates its schema, no request the schema calls invalid accepted and
//! none it calls valid refused. The site `default` holds a few articles
//! and keeps every order (hot and best too), the campaign `spring` (the
//! README's, rate limits off, its board `male-stars` keeping every
//! period) some votes, and the run's path parameters `site`, `campaign`
//! and `board` are pinned to them, so that the generated queries and
//! bodies reach the scripts instead of 404s; the site's settings change
//! on a site of their own, `scratch`.
//!
//! schemathesis is not a Rust dependency. The executable is, in order:
//! `REDVOTE_SCHEMATHESIS`, else `schemathesis` on PATH, else the venv the
//! setup script (`.ci/run`) makes, `$HOME/.cache/redvote/venv/bin/
//! schemathesis` (no PATH change needed). Without any the test fails,
//! saying how to install it: it is never skipped.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};

use super::Service;
use redvote_testing as support;

/// The one token of the run: admin and API alike.
const TOKEN: &str = "schemathesis-token";

/// The version `.ci/run` installs.
const VERSION: &str = "4.32.5";

/// The seed of every run (a failure reproduces with it).
const SEED: &str = "20260522";

/// The checks: every one this version has (`all`), among them
/// `positive_data_acceptance` (what the document says is valid is
/// accepted: 2xx, or a documented 404 for an unknown entity) and
/// `negative_data_rejection` (what it says is invalid is a 4xx).
const CHECKS: &str = "all";

/// The run's configuration: the pinned path parameters; the SSE stream
/// ends after `seconds` (one second a case); and the routes whose bodies
/// have rules between fields that JSON Schema cannot state (a campaign's
/// `end` after its `start`, a period a board keeps among its settings; an
/// import amount with at most the board's decimals; a group both added
/// and removed, or more than 100 changes in all) may answer a schema-valid
/// body 422 with the rule's code and detail. Every other route accepts
/// what its schema calls valid.
const CONFIG: &str = r#"
[parameters]
"path.site" = "default"
"path.campaign" = "spring"
"path.board" = "male-stars"
"query.seconds" = 1

# the site's settings change on a site of their own: the pages of
# `default` keep every order
[[operations]]
include-path-regex = "^/v1/sites/\\{site\\}/(config|rerank)$"
parameters = { "path.site" = "scratch" }

[[operations]]
include-path = "/v1/campaigns/{campaign}/settings"
include-method = "PUT"
checks.positive_data_acceptance.expected-statuses = ["2xx", "404", "409", "422"]

[[operations]]
include-path = "/v1/campaigns/{campaign}/boards/{board}/import"
checks.positive_data_acceptance.expected-statuses = ["2xx", "404", "409", "422"]

[[operations]]
include-path = "/v1/sites/{site}/articles/{id}/groups"
checks.positive_data_acceptance.expected-statuses = ["2xx", "404", "409", "422"]

# a statistics range that is empty (to before from) or longer than 336
# hours or 366 days: a rule between two parameters
[[operations]]
include-path = "/v1/campaigns/{campaign}/boards/{board}/stats"
checks.positive_data_acceptance.expected-statuses = ["2xx", "404", "422"]
"#;

/// The whole run's limit: the run (about 2,500 cases, one worker) takes
/// 75-100 s on 2 cores shared with other builds.
const LIMIT: Duration = Duration::from_secs(240);

/// The venv `.ci/run` installs schemathesis into.
fn venv() -> Option<std::path::PathBuf> {
    let home = std::env::var_os("HOME")?;
    Some(std::path::Path::new(&home).join(".cache/redvote/venv/bin/schemathesis"))
}

/// The schemathesis executable: `REDVOTE_SCHEMATHESIS`, else
/// `schemathesis` on PATH, else the setup script's venv; each candidate
/// must answer `--version`. Fails (never skips) when none does.
fn schemathesis() -> String {
    let mut tried = Vec::new();
    let candidates = match std::env::var("REDVOTE_SCHEMATHESIS") {
        // named explicitly: that one or a failure, not a fallback
        Ok(bin) => vec![bin],
        Err(_) => std::iter::once("schemathesis".to_string())
            .chain(venv().map(|p| p.display().to_string()))
            .collect(),
    };
    for bin in candidates {
        match Command::new(&bin).arg("--version").output() {
            Ok(out) if out.status.success() => return bin,
            other => tried.push(format!("{bin:?}: {other:?}")),
        }
    }
    panic!(
        "schemathesis not found (tried {}). Install it: \
         python3 -m venv ~/.cache/redvote/venv && \
         ~/.cache/redvote/venv/bin/pip install schemathesis=={VERSION} \
         (.ci/run does this; the test finds that venv by itself), or set \
         REDVOTE_SCHEMATHESIS to the executable",
        tried.join("; ")
    )
}

/// The README's campaign without its rate limits, its board `male-stars`
/// keeping every period.
fn spring_without_limits() -> Value {
    let mut spring: Value =
        serde_json::from_str(include_str!("../../../../docs/spring2026.json")).unwrap();
    spring.as_object_mut().unwrap().remove("limits");
    // every period, so that any well-formed period reads
    spring["boards"]["male-stars"]["periods"] = json!(["hour", "day", "week", "month", "total"]);
    spring
}

#[test]
fn schemathesis_finds_nothing_against_openapi_json() {
    let bin = schemathesis();
    let server = support::server();
    let svc = Service::with(
        &server,
        &[
            "--admin-token",
            TOKEN,
            "--api-token",
            TOKEN,
            "--site",
            "default=",
            "--site",
            "scratch={scratch}:",
        ],
        &[],
    );

    // data for the pinned path parameters to reach
    for i in 0..5 {
        svc.request(Method::POST, "/v1/sites/default/articles", Some(TOKEN))
            .json(json!({"user": format!("u{i}"), "title": format!("t{i}"), "link": "http://x"}))
            .send()
            .ok(201);
    }
    // every order, so that order=hot and order=best read
    svc.request(Method::PATCH, "/v1/sites/default/config", Some(TOKEN))
        .json(json!({"rankings": ["hot", "best"]}))
        .send()
        .ok(200);
    svc.request(Method::PUT, "/v1/campaigns/spring/settings", Some(TOKEN))
        .json(spring_without_limits())
        .send()
        .ok(200);
    svc.request(
        Method::PUT,
        "/v1/campaigns/spring/boards/male-stars/import",
        Some(TOKEN),
    )
    .json(json!({"yyqx": 10}))
    .send()
    .ok(200);

    let dir = std::env::temp_dir().join(format!("redvote-schemathesis-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("schemathesis.toml");
    std::fs::write(&config, CONFIG).unwrap();

    let start = Instant::now();
    let mut child = Command::new(&bin)
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        .arg("--config-file")
        .arg(&config)
        .args([
            "run",
            &format!("{}/openapi.json", svc.base),
            "-H",
            &format!("Authorization: Bearer {TOKEN}"),
            "--seed",
            SEED,
            "--max-examples",
            "25",
            "--checks",
            CHECKS,
            // one worker: hypothesis' lambda-source cache is not safe
            // across threads ("AST constructor recursion depth mismatch")
            "--workers",
            "1",
            "--request-timeout",
            "10",
            "--generation-database",
            "none",
            // ASCII strings: the scripts' lengths are bytes, JSON
            // Schema's characters; the two agree on ASCII
            "--generation-codec",
            "ascii",
            "--no-color",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start schemathesis");
    // read stderr on a thread, stdout here, then wait (bounded by LIMIT
    // through a watchdog that kills the run)
    let mut stderr = child.stderr.take().unwrap();
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let pid = child.id();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if done_rx.recv_timeout(LIMIT).is_err() {
            let _ = Command::new("kill").arg(pid.to_string()).status();
            true
        } else {
            false
        }
    });
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let status = child.wait().unwrap();
    let _ = done_tx.send(());
    let killed = watchdog.join().unwrap();
    let err = err.join().unwrap();
    let _ = std::fs::remove_dir_all(&dir);

    assert!(
        !killed,
        "schemathesis ran over {LIMIT:?} and was killed:\n{out}\n{err}"
    );
    assert!(
        status.success(),
        "schemathesis {status} in {:?} (seed {SEED}):\n{out}\n{err}",
        start.elapsed()
    );
    eprintln!(
        "schemathesis passed in {:?}: {}",
        start.elapsed(),
        out.lines()
            .filter(|l| l.contains("generated") || l.contains("Test cases"))
            .collect::<Vec<_>>()
            .join(" ")
    );
}
