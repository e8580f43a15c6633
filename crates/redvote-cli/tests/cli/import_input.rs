//! Refused input at the command line: `--vote-id ""` is refused (it used to
//! count on every send while the CLI called it idempotent: "it counts
//! once"); an import file whose JSON names an option twice is refused as a
//! CSV one is (it used to keep the last value); an import file larger than
//! the cap is refused before it is read whole (`/dev/zero` used to be read
//! until memory ran out). Every refusal writes nothing.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{self, real_total, redvote, scratch, vote_ids_campaign as campaign, T0};

#[test]
fn an_empty_vote_id_is_refused_and_counts_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con);
    let url = server.url();
    let at = T0.to_string();
    let before = support::digest(&mut con);
    let args = [
        "campaign",
        "ids",
        "--at",
        &at,
        "vote",
        "--user",
        "u9",
        "--vote-id",
        "",
        "B:x",
    ];
    for _ in 0..2 {
        let out = redvote(Some(&url), &args);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.starts_with("redvote: REDVOTE_INVALID_VOTE_ID"), "{err}");
        assert!(!err.contains("counts once"), "{err}");
    }
    assert_eq!(support::digest(&mut con), before, "a refused vote wrote");
    assert_eq!(real_total(&mut con, &c, "B", "x"), 0);
}

#[test]
fn a_json_import_naming_an_option_twice_is_refused() {
    let server = support::server();
    let mut con = support::con(&server);
    campaign(&mut con);
    let url = server.url();
    let dir = scratch("import-json-dup");
    let file = dir.join("dup.json");
    std::fs::write(&file, r#"{"x": 1, "y": 2, "x": 3}"#).unwrap();
    let before = support::digest(&mut con);
    let out = redvote(
        Some(&url),
        &["campaign", "ids", "import", "B", file.to_str().unwrap()],
    );
    let _ = std::fs::remove_dir_all(&dir);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("nothing imported"), "{err}");
    assert!(err.contains("option x again"), "{err}");
    assert_eq!(support::digest(&mut con), before, "a refused import wrote");
}

#[test]
fn an_import_file_over_the_size_cap_is_refused() {
    let server = support::server();
    let mut con = support::con(&server);
    campaign(&mut con);
    let url = server.url();
    let dir = scratch("import-cap");
    // 64 MiB + 1 byte, sparse: no disk used
    let file = dir.join("big.csv");
    std::fs::File::create(&file)
        .unwrap()
        .set_len(64 * 1024 * 1024 + 1)
        .unwrap();
    let before = support::digest(&mut con);
    let out = redvote(
        Some(&url),
        &["campaign", "ids", "import", "B", file.to_str().unwrap()],
    );
    let _ = std::fs::remove_dir_all(&dir);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("larger than 64 MiB"), "{err}");
    assert_eq!(support::digest(&mut con), before, "a refused import wrote");
}

/// `/dev/zero` has no end: the import stops at the cap, within seconds.
#[cfg(unix)]
#[test]
fn an_endless_import_file_stops_at_the_cap() {
    let server = support::server();
    let url = server.url();
    let mut child = Command::new(env!("CARGO_BIN_EXE_redvote"))
        .env_remove("REDVOTE_URL")
        .args(["--url", &url, "campaign", "ids", "import", "B", "/dev/zero"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("import of /dev/zero still running after 30 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("larger than 64 MiB"), "{err}");
}

/// `configure` reads no more than the script takes (4 MiB): `/dev/zero`
/// and a larger file are refused at once, writing nothing.
#[cfg(unix)]
#[test]
fn a_settings_document_over_the_script_bound_is_refused_unread() {
    let server = support::server();
    let mut con = support::con(&server);
    let url = server.url();
    let dir = scratch("configure-cap");
    let big = dir.join("big.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(4 * 1024 * 1024 + 1)
        .unwrap();
    let before = support::digest(&mut con);
    for file in ["/dev/zero", big.to_str().unwrap()] {
        let start = Instant::now();
        let out = redvote(Some(&url), &["campaign", "cap", "configure", file]);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{file}: {err}");
        assert!(
            err.contains("larger than 4 MiB (4194304 bytes), nothing configured"),
            "{file}: {err}"
        );
        // generous: it reads 4 MiB, not until memory runs out
        assert!(start.elapsed() < Duration::from_secs(60), "{file}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        support::digest(&mut con),
        before,
        "a refused configure wrote"
    );
}

/// Votes as docs/campaigns.md says an import file may write them: a JSON
/// string of a decimal (exact where a JSON number would round) and CSV
/// fields with spaces around them, as spreadsheets write `option, votes`.
#[test]
fn an_import_takes_json_strings_and_spaced_csv_fields_as_documented() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con);
    let url = server.url();
    let dir = scratch("import-forms");
    let json = dir.join("votes.json");
    std::fs::write(&json, r#"{"x": "5", "y": 7}"#).unwrap();
    let csv = dir.join("votes.csv");
    std::fs::write(&csv, "option, votes\r\nx , 6\r\n y,8\r\n").unwrap();
    let shown = |con: &mut redis::Connection| {
        let page = c
            .at(T0)
            .top(
                &["B"],
                &redvote::View::shown("total"),
                redvote::Paging::top(5),
            )
            .run(con)
            .unwrap();
        page[0]
            .entries
            .iter()
            .map(|e| (e.member.clone(), e.score.clone()))
            .collect::<Vec<_>>()
    };
    let at = T0.to_string();
    for (file, want) in [
        (&json, [("y", "7.00"), ("x", "5.00")]),
        (&csv, [("y", "8.00"), ("x", "6.00")]),
    ] {
        let out = redvote(
            Some(&url),
            &[
                "campaign",
                "ids",
                "--at",
                &at,
                "import",
                "B",
                file.to_str().unwrap(),
            ],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(m, s)| (m.to_string(), s.to_string()))
            .collect();
        assert_eq!(shown(&mut con), want, "{}", file.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
