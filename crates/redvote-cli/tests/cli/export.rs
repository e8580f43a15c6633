//! `redvote campaign NAME export` and `stats`: docs/export.md's lines run
//! in order (the CLI's, then the curl ones against a service of the
//! test's own); exports to stdout and to a file, CSV and JSON lines; a
//! pipe closed early; the statistics as CSV and JSON; malformed command
//! lines exit 2 with one line; a Redis that cannot be reached exits 1.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::readme::{doc, sh, sh_commands, WORKSPACE};
use crate::support::{self, redvote};

/// A working directory of the test's own under the server's, with
/// `docs/` linked to the workspace's (the lines name `docs/...`).
fn workdir(server: &support::TempServer) -> PathBuf {
    let dir = server.dir().join("work");
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join("docs");
    if !link.exists() {
        std::os::unix::fs::symlink(Path::new(WORKSPACE).join("docs"), &link).unwrap();
    }
    dir
}

/// Run `line` with sh in `dir` against `url`: its output.
fn run(line: &str, dir: &Path, url: &str) -> std::process::Output {
    sh(line, dir)
        .env("REDVOTE_URL", url)
        .env("REDVOTE_ADMIN_TOKEN", "export-admin")
        .output()
        .expect("run sh")
}

#[test]
fn the_export_chapter_runs_in_order() {
    let server = support::server();
    let dir = workdir(&server);
    let text = doc("docs/export.md");
    let lines = sh_commands(text, &["redvote "]);
    assert!(
        lines.len() >= 8,
        "docs/export.md lost its CLI lines: {lines:?}"
    );
    let mut outputs = BTreeMap::new();
    for line in &lines {
        let out = run(line, &dir, &server.url());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{line}: {out:?}");
        assert!(!stderr.contains("panicked"), "{line}: {stderr}");
        outputs.insert(line.clone(), String::from_utf8(out.stdout).unwrap());
    }
    let find = |part: &str| {
        outputs
            .iter()
            .find(|(l, _)| l.contains(part))
            .unwrap_or_else(|| panic!("no line with {part}"))
            .1
            .clone()
    };
    let plain = outputs
        .iter()
        .find(|(l, _)| l.ends_with("export male-stars"))
        .unwrap()
        .1;
    let rows: Vec<&str> = plain.lines().collect();
    assert_eq!(rows[0], "rank,option,name,shown");
    assert!(rows.len() >= 4, "{plain}");
    assert!(rows[1].starts_with("1,"), "{plain}");
    let summary = find("--output male-stars.jsonl");
    assert!(summary.starts_with("exported "), "{summary}");
    let jsonl = std::fs::read_to_string(dir.join("male-stars.jsonl")).unwrap();
    assert_eq!(jsonl.lines().count(), rows.len() - 1);
    for line in jsonl.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        assert!(v["rank"].is_u64() && v["shown"].is_string() && v["real"].is_string());
    }
    assert!(!dir.join("male-stars.jsonl.partial").exists());
    assert_eq!(find("| head -1"), "rank,option,name,real\n");
    let stats = find("--by day --csv");
    assert!(stats.starts_with("period,start,votes,amount,voided,voided_amount,participants,ch:app,dev:mobile,dev:pc\n"), "{stats}");
    let votes: u64 = stats
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(votes, 2, "two votes named male-stars: {stats}");
    let json: Value = serde_json::from_str(&find("--by hour --from")).unwrap();
    assert_eq!(json["buckets"].as_array().unwrap().len(), 24);
    assert_eq!(json["buckets"][0]["period"], "hour:2026-03-17T00");

    // the curl lines, against a service of the test's own
    let client = redvote::Client::open(&server.url()).unwrap();
    let sites = BTreeMap::from([("default".to_string(), redvote::Site::default())]);
    let options = redvote_serve::Options {
        listen: "127.0.0.1:0".parse().unwrap(),
        admin_token: Some("export-admin".into()),
        ..Default::default()
    };
    let service = redvote_serve::Background::start(client, sites, options).unwrap();
    let base = format!("http://{}", service.addr());
    let curls = sh_commands(text, &["curl "]);
    assert!(curls.len() >= 4, "docs/export.md lost its curl lines");
    for line in curls {
        assert!(line.starts_with("curl -fsS "), "{line}");
        let cmd = line.replace("http://127.0.0.1:8080", &base);
        let out = run(&cmd, &dir, &server.url());
        assert!(out.status.success(), "{cmd}: {out:?}");
        let body = String::from_utf8(out.stdout).unwrap();
        if cmd.contains("format=jsonl") {
            assert_eq!(body.lines().count(), rows.len() - 1, "{body}");
        } else if cmd.contains("format=csv") {
            assert!(body.starts_with("period,start,votes"), "{body}");
        } else if cmd.contains("/stats") {
            let v: Value = serde_json::from_str(&body).unwrap();
            assert_eq!(v["buckets"].as_array().unwrap().len(), 24);
        }
    }
    let csv = std::fs::read_to_string(dir.join("male-stars.csv")).unwrap();
    assert!(
        csv.starts_with("rank,option,name,shown,real,real_rank\n"),
        "{csv}"
    );
    service.stop().unwrap();
}

/// A board of `n` options with distinct scores, imported by the CLI.
fn big_board(server: &support::TempServer, n: usize) -> PathBuf {
    let dir = workdir(server);
    // configure takes at most 1000 options a call
    let ids: Vec<String> = (0..n).map(|i| format!("o{i:05}")).collect();
    for chunk in ids.chunks(1000) {
        let part: serde_json::Map<String, Value> = chunk
            .iter()
            .map(|o| (o.clone(), serde_json::json!({})))
            .collect();
        let doc = serde_json::json!({"boards": {"b": {"periods": ["total"], "options": part}}});
        let file = dir.join("settings.json");
        std::fs::write(&file, doc.to_string()).unwrap();
        let out = redvote(
            Some(&server.url()),
            &["campaign", "big", "configure", file.to_str().unwrap()],
        );
        assert!(out.status.success(), "{out:?}");
    }
    let csv: String = (0..n)
        .map(|i| format!("o{i:05},{}\n", (i + 1) * 3))
        .collect();
    let file = dir.join("big.csv");
    std::fs::write(&file, csv).unwrap();
    let out = redvote(
        Some(&server.url()),
        &["campaign", "big", "import", "b", file.to_str().unwrap()],
    );
    assert!(out.status.success(), "{out:?}");
    dir
}

#[test]
fn exports_to_stdout_and_files_and_a_pipe_closed_early() {
    let server = support::server();
    let n = 6000;
    let dir = big_board(&server, n);
    let url = server.url();
    for (format, header) in [("csv", Some("rank,option,name,shown")), ("jsonl", None)] {
        let out = redvote(
            Some(&url),
            &["campaign", "big", "export", "b", "--format", format],
        );
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        if let Some(h) = header {
            assert_eq!(lines.remove(0), h);
            assert_eq!(lines[0], format!("1,o{:05},,{}.00", n - 1, n * 3));
        } else {
            let v: Value = serde_json::from_str(lines[0]).unwrap();
            assert_eq!(v["option"], format!("o{:05}", n - 1));
        }
        assert_eq!(lines.len(), n);
        let file = dir.join(format!("out.{format}"));
        let out = redvote(
            Some(&url),
            &[
                "--json",
                "campaign",
                "big",
                "export",
                "b",
                "--format",
                format,
                "--output",
                file.to_str().unwrap(),
            ],
        );
        assert!(out.status.success(), "{out:?}");
        let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(summary["rows"], n);
        assert_eq!(summary["batches"], n / 100);
        assert_eq!(summary["moved"], false);
        assert_eq!(summary["period"], "total");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    }
    // `| head -1`: the export stops quietly, exit 0, no panic
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "set -o pipefail; {} --url {url} campaign big export b | head -1",
            env!("CARGO_BIN_EXE_redvote")
        ))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "rank,option,name,shown\n"
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn stats_as_csv_json_and_lines() {
    let server = support::server();
    let url = server.url();
    let dir = workdir(&server);
    let settings = dir.join("s.json");
    std::fs::write(
        &settings,
        r#"{"boards": {"b": {"periods": ["total"], "options": {"x": {"weight": 2}}}}}"#,
    )
    .unwrap();
    let ok = |args: &[&str]| {
        let out = redvote(Some(&url), args);
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    ok(&["campaign", "st", "configure", settings.to_str().unwrap()]);
    for user in ["u1", "u2", "u3"] {
        ok(&[
            "campaign",
            "st",
            "vote",
            "--user",
            user,
            "--channel",
            "web",
            "b:x",
        ]);
    }
    let csv = ok(&["campaign", "st", "stats", "b", "--csv"]);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("period,start,votes,amount,voided,voided_amount,participants,ch:web")
    );
    let sums = lines.fold((0, 0), |(v, a), l| {
        let f: Vec<u64> = l.split(',').skip(2).map(|x| x.parse().unwrap()).collect();
        (v + f[0], a + f[1])
    });
    assert_eq!(sums, (3, 6));
    let json: Value = serde_json::from_str(&ok(&[
        "--json", "campaign", "st", "stats", "b", "--by", "day",
    ]))
    .unwrap();
    assert_eq!(json["by"], "day");
    let buckets = json["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), 30, "the last 30 days, today included");
    assert_eq!(buckets.last().unwrap()["votes"], 3);
    assert_eq!(buckets.last().unwrap()["channels"]["web"], 3);
    let human = ok(&[
        "campaign", "st", "stats", "b", "--from", "0", "--to", "7200",
    ]);
    assert_eq!(
        human,
        "hour:1970-01-01T00  votes 0  amount 0  voided 0  participants 0\n\
         hour:1970-01-01T01  votes 0  amount 0  voided 0  participants 0\n"
    );
}

#[test]
fn bad_command_lines_exit_2_and_an_unreachable_redis_1() {
    let server = support::server();
    let url = server.url();
    for args in [
        &["campaign", "c", "export", "b", "--kind", "bogus"][..],
        &["campaign", "c", "export", "b", "--format", "xml"],
        &["campaign", "c", "export", "b", "--period", "fortnight"],
        &["campaign", "c", "export", "b", "--period", "day:2026-02-30"],
        &["campaign", "c", "export"],
        &["campaign", "c", "stats", "b", "--by", "week"],
        &["campaign", "c", "stats", "b", "--from", "yesterday"],
        &["campaign", "c", "stats", "b", "--csv", "--color"],
    ] {
        let out = redvote(Some(&url), args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("redvote: "), "{stderr}");
    }
    // a refusal of the script: exit 1, one line
    let out = redvote(Some(&url), &["campaign", "nope", "export", "b"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("REDVOTE_UNKNOWN_CAMPAIGN"), "{stderr}");
    // Redis down
    for args in [
        &["--timeout", "1", "campaign", "c", "export", "b"][..],
        &["--timeout", "1", "campaign", "c", "stats", "b"],
    ] {
        let out = redvote(Some("redis://127.0.0.1:1"), args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("cannot connect to Redis at redis://127.0.0.1:1"),
            "{stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
    // nothing left behind by a failed export to a file
    let dir = workdir(&server);
    let file = dir.join("never.csv");
    let out = redvote(
        Some(&url),
        &[
            "campaign",
            "nope",
            "export",
            "b",
            "--output",
            file.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(!file.exists() && !dir.join("never.csv.partial").exists());
}
