//! Buffered campaigns from the command line (docs/hot-campaigns.md): `fold`
//! once and `--all`, a vote and a page telling how far the boards are
//! folded, the settings' mode, and every command whose call a full buffer
//! refuses (REDVOTE_UNFOLDED) folding it first, then succeeding.

use redis::Commands;
use redvote::{Campaign, Code, Mode};
use serde_json::Value;

use crate::support::{self, real_total, redvote, refused_unchanged, scratch, unchanged};

/// The test campaign's settings: one board `B` of options `x` (weight 2)
/// and `y`, buffered, its votes folded only on demand within the test
/// (fold_ms at its most, a minute), with a vote log for the range voids.
const SETTINGS: &str = r#"{"mode": "buffered", "fold_ms": 60000, "vote_log": 100000,
  "boards": {"B": {"periods": ["total", "day"], "options": {"x": {"weight": 2}, "y": {}}}}}"#;

/// More buffered votes than one call folds (campaign_fold takes at most
/// 1000, fewer when they do not fit its bound of work).
const MANY: usize = 1200;

/// Run `redvote --url URL ARGS`, require exit 0, return stdout.
fn ok(url: &str, args: &[&str]) -> String {
    let out = redvote(Some(url), args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The same with `--json`, parsed.
fn json(url: &str, args: &[&str]) -> Value {
    let out = ok(url, &[&["--json"], args].concat());
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

/// `campaign NAME ...`.
fn c<'a>(name: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    [&["campaign", name], rest].concat()
}

/// Campaign `name` configured with [`SETTINGS`] through the CLI.
fn configured(url: &str, name: &str) -> Campaign {
    let file = scratch("buffered").join(format!("{name}.json"));
    std::fs::write(&file, SETTINGS).unwrap();
    ok(url, &c(name, &["configure", file.to_str().unwrap()]));
    Campaign::new(name)
}

/// Append `n` one-pair votes for `B:x` (users `bulk:1`...) to the
/// campaign's buffers as campaign_vote writes them: a line each in the
/// option's list `<ns>buf:B:x`, its `<ns>bufs` member when it had none,
/// the root's `buffered`, and its `fold_due` when nothing was buffered.
fn buffer_votes(con: &mut redis::Connection, c: &Campaign, n: usize) {
    let (s, us): (u64, u64) = redis::cmd("TIME").query(con).unwrap();
    let ms = s * 1000 + us / 1000;
    let ns = c.namespace();
    let mut pipe = redis::pipe();
    for i in 1..=n {
        pipe.rpush(
            format!("{ns}buf:B:x"),
            format!("1\t{ms}\t0\t{s}\tbulk:{i}\t\t\t2"),
        )
        .ignore();
    }
    pipe.cmd("ZADD")
        .arg(format!("{ns}bufs"))
        .arg("NX")
        .arg(ms * 64)
        .arg("B:x")
        .ignore();
    pipe.hincr(c.root_key(), "buffered", n).ignore();
    pipe.hset_nx(c.root_key(), "fold_due", ms + 60000).ignore();
    pipe.atomic().query::<()>(con).unwrap();
}

/// The pairs buffered (the root's `buffered`).
fn buffered(con: &mut redis::Connection, c: &Campaign) -> u64 {
    let n: Option<u64> = con.hget(c.root_key(), "buffered").unwrap();
    n.unwrap_or(0)
}

#[test]
fn fold_tells_what_it_folded_and_all_drains_the_buffer() {
    let server = support::server();
    let url = server.url();
    let u = url.as_str();
    let mut con = support::con(&server);
    let camp = configured(u, "hot");

    let settings = json(u, &c("hot", &["settings"]));
    assert_eq!(settings["mode"], "buffered", "{settings}");
    assert_eq!(settings["fold_ms"], 60000, "{settings}");

    // a buffered vote answers no scores: how far the boards are folded
    let human = ok(u, &c("hot", &["vote", "--user", "u1", "B:x", "B:y"]));
    let lines: Vec<&str> = human.lines().collect();
    assert_eq!(lines.len(), 2, "{human}");
    for (line, pair) in lines.iter().zip(["B:x", "B:y"]) {
        assert!(
            line.starts_with(&format!("{pair}  accepted, buffered; boards ")),
            "{human}"
        );
    }
    let v = json(u, &c("hot", &["vote", "--user", "u2", "B:x"]));
    let ballot = &v["ballots"][0];
    assert_eq!(ballot["shown"], serde_json::json!([]), "{v}");
    assert!(ballot["folded"].is_u64(), "{v}");
    ok(u, &c("hot", &["vote", "--user", "u3", "B:y"]));
    assert_eq!(buffered(&mut con, &camp), 4, "a pair each");
    assert_eq!(
        real_total(&mut con, &camp, "B", "x"),
        0,
        "on the boards before a fold"
    );
    // the check reports them (docs/cli.md's JSON table): not a violation
    let report = json(u, &c("hot", &["check"]));
    assert_eq!(report["violations"], serde_json::json!([]), "{report}");
    let buffer = &report["buffer"];
    assert_eq!(
        (&buffer["pairs"], &buffer["options"]),
        (&4.into(), &2.into()),
        "{report}"
    );
    assert!(
        buffer["fold_lag_ms"].as_u64().is_some_and(|ms| ms < 60000),
        "{report}"
    );

    // one call of --max 1: the oldest pair (u1's B:x)
    let one = json(u, &c("hot", &["fold", "--max", "1"]));
    let counts = |v: &Value| ["folded", "left", "calls", "overflow"].map(|k| v[k].as_u64());
    assert_eq!(counts(&one), [Some(1), Some(3), Some(1), Some(0)], "{one}");
    let (now, _): (u64, u64) = redis::cmd("TIME").query(&mut con).unwrap();
    let until = one["until"].as_u64().unwrap();
    assert!(
        until <= now * 1000 + 1000 && until > (now - 60) * 1000,
        "{one}"
    );
    assert_eq!(real_total(&mut con, &camp, "B", "x"), 1);

    // the page tells how far it is folded
    let page = ok(u, &c("hot", &["top", "B"]));
    assert!(
        page.lines().next().unwrap().contains("; folded up to "),
        "{page}"
    );
    let top = json(u, &c("hot", &["top", "B"]));
    assert!(top["boards"][0]["folded"].is_u64(), "{top}");
    // and so do a member's standing (a last line) and neighbourhood
    let standing = ok(u, &c("hot", &["standing", "B", "x", "y"]));
    let lines: Vec<&str> = standing.lines().collect();
    assert_eq!(lines.len(), 3, "{standing}");
    assert!(lines[0].starts_with("x  rank 1  "), "{standing}");
    assert!(lines[1].starts_with("y  rank -  "), "y is not folded yet");
    assert!(lines[2].starts_with("B folded up to "), "{standing}");
    let standing = json(u, &c("hot", &["standing", "B", "x", "y"]));
    for s in standing["standings"].as_array().unwrap() {
        assert_eq!(s["folded"], top["boards"][0]["folded"], "{standing}");
    }
    let around = ok(u, &c("hot", &["around", "B", "x"]));
    assert!(
        around
            .lines()
            .next()
            .unwrap()
            .starts_with("x: rank 1, percentile 0.00, page 1 of 1 (1 members; folded up to "),
        "{around}"
    );
    let around = json(u, &c("hot", &["around", "B", "x"]));
    assert_eq!(around["folded"], top["boards"][0]["folded"], "{around}");

    // --all: the rest, in words
    let human = ok(u, &c("hot", &["fold", "--all"]));
    assert!(
        human.starts_with("folded 3 vote(s) in 1 call(s), 0 left; boards folded up to "),
        "{human}"
    );
    assert_eq!(buffered(&mut con, &camp), 0);
    assert_eq!(real_total(&mut con, &camp, "B", "x"), 2);
    assert_eq!(real_total(&mut con, &camp, "B", "y"), 2);

    // more than one call folds: --all sends as many as it takes
    buffer_votes(&mut con, &camp, MANY);
    let all = json(u, &c("hot", &["fold", "--all", "--max", "500"]));
    assert_eq!(all["folded"], MANY, "{all}");
    assert_eq!(all["left"], 0, "{all}");
    assert!(all["calls"].as_u64().unwrap() >= 3, "{all}");
    assert_eq!(buffered(&mut con, &camp), 0);
    assert_eq!(real_total(&mut con, &camp, "B", "x"), 2 + MANY as u64);

    // nothing buffered: a fold folds nothing, and says so
    let none = json(u, &c("hot", &["fold"]));
    assert_eq!(
        counts(&none),
        [Some(0), Some(0), Some(1), Some(0)],
        "{none}"
    );
    let report = ok(u, &c("hot", &["check"]));
    assert!(report.contains("0 invariant violations"), "{report}");
}

#[test]
fn fold_all_gives_up_at_its_deadline() {
    let server = support::server();
    let url = server.url();
    let mut con = support::con(&server);
    let camp = configured(&url, "late");
    buffer_votes(&mut con, &camp, MANY);
    // a deadline shorter than one call: the first call, then the refusal
    let out = redvote(
        Some(&url),
        &c("late", &["fold", "--all", "--within", "0.000001"]),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("still buffered after"), "{stderr}");
    let left = buffered(&mut con, &camp);
    assert!(
        left > 0 && left < MANY as u64,
        "one call folded: {left} left"
    );
}

#[test]
fn calls_refused_unfolded_fold_the_buffer_first() {
    let server = support::server();
    let url = server.url();
    let u = url.as_str();
    let mut con = support::con(&server);
    let camp = configured(u, "full");
    let voted = ok(
        u,
        &c(
            "full",
            &["vote", "--user", "voter", "--vote-id", "v1", "B:y"],
        ),
    );
    assert!(voted.contains("accepted, buffered"), "{voted}");
    buffer_votes(&mut con, &camp, MANY);

    // the script alone refuses, writing nothing: the buffer is too long
    let settings = redvote::CampaignSettings {
        fold_ms: Some(100),
        ..Default::default()
    };
    refused_unchanged(&mut con, "configure", Code::Unfolded, |con| {
        camp.configure(&settings).run(con)
    });
    // the CLI folds it all, then configures
    let file = scratch("buffered").join("fold_ms.json");
    std::fs::write(&file, r#"{"fold_ms": 100}"#).unwrap();
    ok(u, &c("full", &["configure", file.to_str().unwrap()]));
    assert_eq!(buffered(&mut con, &camp), 0);
    assert_eq!(real_total(&mut con, &camp, "B", "x"), MANY as u64);
    let shown: f64 = con
        .zscore(format!("{}b:B:shown:total", camp.namespace()), "x")
        .unwrap();
    assert_eq!(shown, 2.0 * MANY as f64, "each folded vote with its weight");
    let stored = json(u, &c("full", &["settings"]));
    assert_eq!(stored["fold_ms"], 100, "{stored}");

    // void by id, behind a full buffer
    buffer_votes(&mut con, &camp, MANY);
    let voided = json(u, &c("full", &["void", "v1"]));
    assert_eq!(voided["already"], false, "{voided}");
    assert_eq!(real_total(&mut con, &camp, "B", "y"), 0);
    assert_eq!(buffered(&mut con, &camp), 0);

    // void a range, behind a full buffer: a vote still buffered is voided
    ok(u, &c("full", &["vote", "--user", "ranged", "B:x"]));
    buffer_votes(&mut con, &camp, MANY);
    let (now, _): (u64, u64) = redis::cmd("TIME").query(&mut con).unwrap();
    let (from, to) = ((now - 3600).to_string(), (now + 3600).to_string());
    let range = &["void", "--user", "ranged", "--from", &from, "--to", &to];
    let voided = json(u, &c("full", range));
    assert_eq!(voided["voided"], 1, "{voided}");
    assert_eq!(buffered(&mut con, &camp), 0);
    // three full buffers folded, the ranged vote folded and voided
    assert_eq!(real_total(&mut con, &camp, "B", "x"), 3 * MANY as u64);

    // remove-options, behind a full buffer
    buffer_votes(&mut con, &camp, MANY);
    ok(u, &c("full", &["remove-options", "B", "y"]));
    assert_eq!(buffered(&mut con, &camp), 0);
    let report = ok(u, &c("full", &["check"]));
    assert!(report.contains("0 invariant violations"), "{report}");
    let mode = json(u, &c("full", &["settings"]));
    assert_eq!(mode["mode"], serde_json::to_value(Mode::Buffered).unwrap());
}

#[test]
fn fold_refusals_exit_non_zero_and_write_nothing() {
    let server = support::server();
    let url = server.url();
    let mut con = support::con(&server);
    let camp = configured(&url, "bad");
    buffer_votes(&mut con, &camp, 3);
    #[rustfmt::skip]
    let cases: &[(&[&str], i32, &str)] = &[
        (&["campaign", "nope", "fold"], 1, "REDVOTE_UNKNOWN_CAMPAIGN"),
        (&["campaign", "bad", "fold", "--max", "0"], 2, "0 is not in 1..=1000"),
        (&["campaign", "bad", "fold", "--max", "1001"], 2, "1001 is not in 1..=1000"),
        (&["campaign", "bad", "fold", "--max", "x"], 2, "'x'"),
        (&["campaign", "bad", "fold", "--within", "5"], 2, "--all"),
        (&["campaign", "bad", "fold", "--all", "--within", "0"], 2, "not a number of seconds"),
        (&["campaign", "a}b", "fold"], 2, "a campaign name is"),
    ];
    for (args, code, names) in cases {
        let out = unchanged(&mut con, &format!("{args:?}"), |_| {
            redvote(Some(&url), args)
        });
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(*code), "{args:?}: {stderr}");
        assert!(stderr.contains(names), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // a line no script wrote: the fold refuses it, naming the option's
    // buffer and the entry
    let buf = format!("{}buf:B:x", camp.namespace());
    let _: () = con.lpush(&buf, "not a vote").unwrap();
    let out = unchanged(&mut con, "corrupt buffer", |_| {
        redvote(Some(&url), &["--json", "campaign", "bad", "fold"])
    });
    assert_eq!(out.status.code(), Some(1));
    let err: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["error"]["code"], "REDVOTE_INVALID_CONFIG", "{err}");
    let message = err["error"]["message"].as_str().unwrap();
    assert!(message.contains(&format!("{buf} entry 0")), "{message}");
}

/// docs/cli.md, "Folding a buffered campaign": its lines in order on an
/// empty server; the vote is on the board after the fold, not before.
#[test]
fn the_cli_chapter_fold_example_runs() {
    use crate::support::readme::{section, sh, sh_commands, WORKSPACE};
    let server = support::server();
    let lines = sh_commands(
        section("### Folding a buffered campaign"),
        &["redvote ", "echo "],
    );
    assert_eq!(lines.len(), 6, "{lines:?}");
    let mut pages = Vec::new();
    for line in &lines {
        let out = sh(line, WORKSPACE.as_ref())
            .env("REDVOTE_URL", server.url())
            .output()
            .unwrap();
        assert!(out.status.success(), "{line}: {out:?}");
        if line.contains(" top ") {
            pages.push(String::from_utf8(out.stdout).unwrap());
        }
    }
    assert!(
        pages[0].starts_with("male-stars total (0 members; folded up to "),
        "{}",
        pages[0]
    );
    assert!(
        pages[1].starts_with("male-stars total (1 members; folded up to "),
        "{}",
        pages[1]
    );
    assert!(pages[1].contains(". yyqx "), "{}", pages[1]);
}
