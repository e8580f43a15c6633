//! The `redvote` binary end to end: exit codes, human and `--json` output,
//! against a server of the test's own.

use std::process::Command;

use redis::Commands;
use serde_json::Value;

use crate::support::{self, redvote, script_exists};

/// Run, require exit 0, return stdout.
fn ok(url: Option<&str>, args: &[&str]) -> String {
    let out = redvote(url, args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

fn json(url: Option<&str>, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = ok(url, &all);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {out}"))
}

#[test]
fn full_flow_in_human_and_json_output() {
    let server = support::server();
    let url = server.url();
    let u = Some(url.as_str());
    let mut con = support::con(&server);

    assert_eq!(
        ok(
            u,
            &[
                "post",
                "--user",
                "user:1",
                "--title",
                "First",
                "--link",
                "https://a.example"
            ]
        ),
        "1\n"
    );
    assert_eq!(
        json(
            u,
            &[
                "post",
                "--user",
                "user:2",
                "--title",
                "Second",
                "--link",
                "https://b.example"
            ]
        ),
        serde_json::json!({"id": "2"})
    );

    let v = json(u, &["vote", "--user", "user:3", "2"]);
    assert_eq!(v["changed"], true);
    assert_eq!(v["previous"], "none");
    assert_eq!(v["vote"], "up");
    assert_eq!(v["votes"], 2);
    let again = json(u, &["vote", "--user", "user:3", "article:2"]);
    assert_eq!(again["changed"], false, "a repeated vote is not counted");
    assert_eq!(again["votes"], 2);
    let human = ok(u, &["downvote", "--user", "user:3", "2"]);
    assert!(human.starts_with("vote down (was up)"), "{human}");
    let down = json(u, &["article", "2", "--user", "user:3"]);
    assert_eq!(down["votes"], 1);
    assert_eq!(down["downvotes"], 1);
    assert_eq!(down["user_vote"], "down");
    let un = json(u, &["unvote", "--user", "user:3", "2"]);
    assert_eq!(
        (un["votes"].as_i64(), un["downvotes"].as_i64()),
        (Some(1), Some(0))
    );
    json(u, &["vote", "--user", "user:3", "2"]);

    // An article: the seed's fields, id as a string, score = time + 432 x net votes.
    let a = json(u, &["article", "2"]);
    for field in ["id", "title", "link", "poster", "time", "votes", "score"] {
        assert!(a.get(field).is_some(), "article lacks {field}: {a}");
    }
    assert_eq!(a["id"], "2");
    assert_eq!(a["title"], "Second");
    assert_eq!(a["poster"], "user:2");
    assert_eq!(a["rank"], 1);
    let time: f64 = con.zscore("time:", "article:2").unwrap();
    assert_eq!(a["time"].as_f64(), Some(time));
    assert_eq!(a["score"].as_f64(), Some(time + 2.0 * 432.0));

    // Pages are objects; their articles best first.
    let page = json(u, &["articles"]);
    assert_eq!(
        (&page["order"], &page["page"], &page["total"]),
        (&Value::from("score"), &Value::from(1), &Value::from(2))
    );
    let page = &page["articles"];
    let ids: Vec<&str> = page
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["2", "1"]);
    // Scores only with --scores (one ZMSCORE more for Redis).
    assert!(page[0]["score"].is_null());
    let scored = &json(u, &["articles", "--scores"])["articles"];
    assert_eq!(scored[0]["score"].as_f64(), Some(time + 2.0 * 432.0));
    assert!(ok(u, &["articles", "--scores"]).contains("(score "));
    let page = json(
        u,
        &[
            "articles",
            "--order",
            "time",
            "--per-page",
            "1",
            "--page",
            "2",
        ],
    )["articles"]
        .clone();
    assert_eq!(page.as_array().unwrap().len(), 1);
    assert_eq!(
        page[0]["id"], "1",
        "oldest on page 2 of 1-per-page by time (equal times sort by member, highest first)"
    );
    assert!(ok(u, &["articles"]).starts_with("page 1 of 1 (2 articles, by score)"));

    // Groups.
    let g = json(u, &["group", "add", "1", "redis", "lua"]);
    assert_eq!(g["added"], 2);
    let ga = json(u, &["group", "articles", "redis"]);
    assert_eq!(ga["group"], "redis");
    let ga = &ga["articles"];
    assert_eq!(ga.as_array().unwrap().len(), 1);
    assert_eq!(ga[0]["id"], "1");
    let g = json(u, &["group", "remove", "1", "lua"]);
    assert_eq!(g["removed"], 1);
    assert!(!con
        .sismember::<_, _, bool>("group:lua", "article:1")
        .unwrap());
    assert_eq!(
        json(u, &["group", "articles", "lua"])["articles"]
            .as_array()
            .unwrap()
            .len(),
        0
    );

    // Settings.
    let c = json(u, &["config"]);
    assert_eq!(c["vote_score"], 432);
    assert_eq!(c["window"], 604800);
    let c = json(u, &["config", "--page-size", "1", "--rankings", "hot,best"]);
    assert_eq!(c["page_size"], 1);
    assert_eq!(c["rankings"], serde_json::json!(["hot", "best"]));
    assert_eq!(
        json(u, &["articles"])["articles"].as_array().unwrap().len(),
        1,
        "page_size 1 applies to every client"
    );
    assert!(ok(u, &["config"]).contains("page_size 1\n"));
}

#[test]
fn scripts_and_load_give_the_evalsha_names() {
    let listed = ok(None, &["scripts"]);
    let rows: Vec<(&str, &str)> = listed
        .lines()
        .map(|l| l.split_once('\t').unwrap())
        .collect();
    let expected: Vec<(&str, &str)> = redvote::scripts::all()
        .iter()
        .map(|s| (s.name(), s.sha1()))
        .collect();
    assert_eq!(rows, expected);
    assert!(rows.iter().any(|(n, _)| *n == "vote"));

    let server = support::server();
    let mut con = support::con(&server);
    let loaded = json(Some(&server.url()), &["load"]);
    assert_eq!(loaded["scripts"].as_array().unwrap().len(), expected.len());
    for s in redvote::scripts::all() {
        assert!(script_exists(&mut con, s.sha1()), "{} not loaded", s.name());
    }
    // redis-cli EVALSHA works with a listed SHA once loaded.
    let vote_sha = rows.iter().find(|(n, _)| *n == "vote").unwrap().1;
    redvote::Site::default()
        .post("user:1", "t", "https://x")
        .run(&mut con)
        .unwrap();
    let reply: redis::Value = redis::cmd("EVALSHA")
        .arg(vote_sha)
        .arg(1)
        .arg("article:")
        .arg("user:2")
        .arg("1")
        .query(&mut con)
        .unwrap();
    assert!(
        matches!(reply, redis::Value::Array(ref items) if items.len() == 6),
        "{reply:?}"
    );
}

#[test]
fn prefix_and_env_url() {
    let server = support::server();
    let mut con = support::con(&server);
    let out = Command::new(env!("CARGO_BIN_EXE_redvote"))
        .env("REDVOTE_URL", server.url())
        .args([
            "--prefix",
            "{s1}:",
            "post",
            "--user",
            "u",
            "--title",
            "t",
            "--link",
            "https://x",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let keys: Vec<String> = con.keys("*").unwrap();
    assert!(!keys.is_empty());
    assert!(keys.iter().all(|k| k.starts_with("{s1}:")), "{keys:?}");
    let members: Vec<String> = con.zrange("{s1}:score:", 0, -1).unwrap();
    assert_eq!(
        members,
        ["article:1"],
        "members carry no prefix, as in the seeds"
    );
}

#[test]
fn demo_runs_on_its_own_throwaway_server() {
    let human = ok(None, &["demo"]);
    assert!(
        human.starts_with("started a throwaway redis-server at redis://127.0.0.1:"),
        "{human}"
    );
    assert!(human.contains("front page:"), "{human}");
    let page = json(None, &["demo"]);
    let articles = page["articles"].as_array().unwrap();
    assert_eq!(articles.len(), 5);
    let scores: Vec<f64> = articles
        .iter()
        .map(|a| a["score"].as_f64().unwrap())
        .collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "front page not best first: {scores:?}"
    );
    assert_eq!(articles[0]["votes"], 12);
    assert_eq!(articles[0]["downvotes"], 1);
}

/// `redvote campaign ...` end to end: settings file, JSON import, votes with
/// a channel and device, every query in --json, a rate-limit refusal's exit
/// code and message, option removal.
#[test]
fn campaign_commands_end_to_end() {
    let server = support::server();
    let url = server.url();
    let u = Some(url.as_str());
    let mut con = support::con(&server);
    let dir = support::scratch("settings");
    let settings = dir.join("settings.json");
    std::fs::write(
        &settings,
        r#"{"offset": "+08:00",
            "limits": [{"name": "per-user", "by": ["user"], "window": "campaign", "limit": 2}],
            "boards": {"stars": {"periods": ["day", "total"],
                                 "options": {"a": {"weight": 3}, "b": {}, "c": {}}}}}"#,
    )
    .unwrap();
    let initial = dir.join("initial.json");
    std::fs::write(&initial, r#"{"a": 10, "b": "20.5"}"#).unwrap();
    let (s, i) = (settings.to_str().unwrap(), initial.to_str().unwrap());

    let done = json(u, &["campaign", "spring", "configure", s]);
    assert_eq!(
        (done["boards"].as_u64(), done["options"].as_u64()),
        (Some(1), Some(3))
    );
    let imported = json(u, &["campaign", "spring", "import", "stars", i]);
    assert_eq!(imported["changed"], 2);
    let again = json(u, &["campaign", "spring", "import", "stars", i]);
    assert_eq!(
        (again["changed"].as_u64(), again["unchanged"].as_u64()),
        (Some(0), Some(2))
    );

    let ballots = json(
        u,
        &[
            "campaign",
            "spring",
            "vote",
            "--user",
            "u1",
            "--channel",
            "web",
            "--device",
            "pc",
            "stars:a",
            "stars:c",
        ],
    );
    let ballots = &ballots["ballots"];
    assert_eq!(ballots.as_array().unwrap().len(), 2);
    assert_eq!(ballots[0]["replay"], false, "replay is always there");
    let total = ballots[0]["shown"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        total,
        serde_json::json!({"period": "total", "score": "13.00"})
    );

    // The campaign-wide limit of 2 is spent: the next vote is refused, names
    // the rule, exits 1 and writes nothing.
    let before = support::digest(&mut con);
    let out = redvote(
        u,
        &["campaign", "spring", "vote", "--user", "u1", "stars:b"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("redvote: REDVOTE_RATE_LIMITED rule per-user refused the vote for the rest of the campaign"), "{stderr}");
    assert_eq!(support::digest(&mut con), before, "the refused vote wrote");
    let left = json(u, &["campaign", "spring", "limits", "--user", "u1"]);
    assert_eq!(left["limits"][0]["remaining"], 0);
    let reset = json(u, &["campaign", "spring", "reset-limits", "--user", "u1"]);
    assert!(reset["reset"].as_u64().is_some(), "{reset}");
    json(
        u,
        &["campaign", "spring", "vote", "--user", "u1", "stars:b"],
    );

    let top = json(u, &["campaign", "spring", "top", "stars"]);
    let entries: Vec<(String, String, u64)> = top["boards"][0]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["member"].as_str().unwrap().into(),
                e["score"].as_str().unwrap().into(),
                e["rank"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        entries,
        [
            ("b".into(), "21.50".into(), 1),
            ("a".into(), "13.00".into(), 2),
            ("c".into(), "1.00".into(), 3)
        ]
    );
    let real = json(
        u,
        &[
            "campaign", "spring", "top", "stars", "--kind", "real", "--period", "day",
        ],
    );
    assert_eq!(real["boards"][0]["size"], 3);
    let standing = &json(u, &["campaign", "spring", "standing", "stars", "a"])["standings"];
    assert_eq!(
        (
            standing[0]["rank"].as_u64(),
            standing[0]["ahead"].as_str(),
            standing[0]["gap"].as_str()
        ),
        (Some(2), Some("b"), Some("8.50"))
    );
    // an immediate campaign's reads are on the boards: no `folded`
    assert!(standing[0].get("folded").is_none(), "{standing}");
    let around = json(
        u,
        &[
            "campaign", "spring", "around", "stars", "c", "--window", "2",
        ],
    );
    assert_eq!(around["rank"], 3);
    assert_eq!(around["percentile"], "0.00");
    assert_eq!(around["window"].as_array().unwrap().len(), 2);
    assert!(around.get("folded").is_none(), "{around}");
    let people = json(
        u,
        &["campaign", "spring", "participants", "stars", "a", "b"],
    );
    assert_eq!(people["campaign"], 1);
    assert_eq!(
        people["options"],
        serde_json::json!([
            {"option": "a", "participants": 1},
            {"option": "b", "participants": 1}
        ])
    );

    let removed = json(
        u,
        &[
            "campaign",
            "spring",
            "remove-options",
            "stars",
            "c",
            "--batch",
            "1",
        ],
    );
    assert_eq!(removed["options"], 0);
    assert!(removed["entries"].as_u64().unwrap() > 0, "{removed}");
    assert!(removed["calls"].as_u64().unwrap() > 1, "{removed}");
    // nothing pending: the cleanup alone answers done in one call
    let again = json(u, &["campaign", "spring", "remove-options", "stars"]);
    assert_eq!(again["entries"], 0);
    assert_eq!(again["calls"], 1);
    let top = json(u, &["campaign", "spring", "top", "stars"]);
    assert_eq!(top["boards"][0]["size"], 2);
    let out = redvote(
        u,
        &["campaign", "spring", "vote", "--user", "u2", "stars:c"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("REDVOTE_UNKNOWN_OPTION"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A scratch directory of the test's own, removed at the end.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        Scratch(support::scratch(name))
    }

    /// Write `text` to `name` in the directory; its path.
    fn file(&self, name: &str, text: &str) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Campaign "imp" with board "stars" (total only) and options o1..o600.
fn import_campaign(con: &mut redis::Connection) {
    let names: Vec<String> = (1..=600).map(|i| format!("o{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let board =
        redvote::campaign::BoardSettings::new(&[redvote::Period::Total]).with_options(&names);
    support::setup(con, "imp", support::boards([("stars", board)]));
}

/// `option,votes` rows o1..o600 with votes = i, each line passed through `edit`.
fn import_csv(edit: impl Fn(usize, String) -> String) -> String {
    (1..=600).map(|i| edit(i, format!("o{i},{i}\n"))).collect()
}

/// The shown total of `option` on "stars".
fn imported_total(con: &mut redis::Connection, option: &str) -> Option<String> {
    redis::cmd("ZSCORE")
        .arg("{c:imp}:b:stars:shown:total")
        .arg(option)
        .query(con)
        .unwrap()
}

/// The whole file is checked before the first batch: a bad row 551 of 600
/// (past the first batch of 500) is refused by line number, with every other
/// bad row, and nothing is written.
#[test]
fn campaign_import_checks_the_whole_file_first() {
    let server = support::server();
    let url = server.url();
    let u = Some(url.as_str());
    let mut con = support::con(&server);
    import_campaign(&mut con);
    let dir = Scratch::new("import-check");
    let before = support::digest(&mut con);

    let bad = dir.file(
        "bad551.csv",
        &import_csv(|i, line| if i == 551 { "o551,12x\n".into() } else { line }),
    );
    let out = redvote(u, &["campaign", "imp", "import", "stars", &bad]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("line 551"), "{stderr}");
    assert!(stderr.contains("nothing imported"), "{stderr}");
    assert_eq!(support::digest(&mut con), before, "a refused import wrote");

    // Many bad rows: the first few by line, then a count; names, numbers
    // and duplicates as the script checks them.
    let many = dir.file(
        "many.csv",
        &import_csv(|i, line| match i {
            3 => "o3,-1\n".into(),
            7 => "o:7,7\n".into(),
            9 => "o9,1.\n".into(),
            10 => "o1,10\n".into(),
            11 => "o11\n".into(),
            12..=20 => format!("o{i},{i}x\n"),
            _ => line,
        }),
    );
    let out = redvote(u, &["campaign", "imp", "import", "stars", &many]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    for line in ["line 3:", "line 7:", "line 9:", "line 10:", "line 11:"] {
        assert!(stderr.contains(line), "{line} not named: {stderr}");
    }
    assert!(stderr.contains("14 bad row(s)"), "{stderr}");
    assert!(stderr.contains("and 9 more"), "{stderr}");
    assert_eq!(support::digest(&mut con), before, "a refused import wrote");
}

/// Only the documented header `option,votes` is a header: any other first
/// line is data, checked like the rest.
#[test]
fn campaign_import_header_is_only_the_documented_one() {
    let server = support::server();
    let url = server.url();
    let u = Some(url.as_str());
    let mut con = support::con(&server);
    import_campaign(&mut con);
    let dir = Scratch::new("import-header");
    let before = support::digest(&mut con);

    let headless = dir.file("headless.csv", "wjk,12x\no1,5\n");
    let out = redvote(u, &["campaign", "imp", "import", "stars", &headless]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("line 1:"), "{stderr}");
    assert!(stderr.contains("12x"), "{stderr}");
    assert_eq!(support::digest(&mut con), before, "a refused import wrote");

    let headed = dir.file("headed.csv", "option,votes\no1,5\no2,7.5\n");
    let done = json(u, &["campaign", "imp", "import", "stars", &headed]);
    assert_eq!(done["changed"], 2);
    assert_eq!(imported_total(&mut con, "o1").as_deref(), Some("5"));
    assert_eq!(imported_total(&mut con, "o2").as_deref(), Some("7.5"));
}

/// A batch refused by the server (an option the board lacks, at row 551)
/// after the first batch went in: the error says how many rows were
/// imported and that rerunning is safe; the rerun with the row fixed gives
/// the right totals.
#[test]
fn campaign_import_refused_batch_says_what_was_imported() {
    let server = support::server();
    let url = server.url();
    let u = Some(url.as_str());
    let mut con = support::con(&server);
    import_campaign(&mut con);
    let dir = Scratch::new("import-batch");

    let unknown = dir.file(
        "unknown.csv",
        &import_csv(|i, line| {
            if i == 551 {
                "nosuch,551\n".into()
            } else {
                line
            }
        }),
    );
    let out = redvote(u, &["campaign", "imp", "import", "stars", &unknown]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("500 rows imported"), "{stderr}");
    assert!(stderr.contains("rerun"), "{stderr}");
    assert!(stderr.contains("REDVOTE_UNKNOWN_OPTION"), "{stderr}");
    assert_eq!(imported_total(&mut con, "o500").as_deref(), Some("500"));
    assert_eq!(imported_total(&mut con, "o501"), None, "batch 2 is atomic");

    let fixed = dir.file("fixed.csv", &import_csv(|_, line| line));
    let done = json(u, &["campaign", "imp", "import", "stars", &fixed]);
    assert_eq!(
        (done["changed"].as_u64(), done["unchanged"].as_u64()),
        (Some(100), Some(500))
    );
    for i in [1, 500, 501, 551, 600] {
        assert_eq!(
            imported_total(&mut con, &format!("o{i}")),
            Some(i.to_string()),
            "o{i}"
        );
    }
}

/// A password in `--url` never reaches stderr: not on a refused login (the
/// CLI names the URL it could not connect to), not on a failing command
/// after a good login, not from the demo; nor does `--help` show it.
#[test]
fn url_password_is_never_printed() {
    let server = support::server();
    let mut con = support::con(&server);
    redis::cmd("CONFIG")
        .arg("SET")
        .arg("requirepass")
        .arg("secret")
        .query::<()>(&mut con)
        .unwrap();
    let port = server.port();
    let wrong = format!("redis://:wrongpass@127.0.0.1:{port}");
    let right = format!("redis://:secret@127.0.0.1:{port}");
    let named = format!("redis://default:secret@127.0.0.1:{port}");
    let checks: [(&str, &str, &[&str]); 4] = [
        (&wrong, "wrongpass", &["articles"]),
        (&wrong, "wrongpass", &["demo"]),
        (&right, "secret", &["article", "1:x"]),
        (&named, "secret", &["campaign", "nosuch", "top", "stars"]),
    ];
    for (url, password, args) in checks {
        let out = redvote(Some(url), args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(!stderr.is_empty(), "{args:?}: no message");
        assert!(
            !stderr.contains(password) && !stdout.contains(password),
            "{args:?} printed the password: {stderr}{stdout}"
        );
    }
    // The URL is still named, with the password hidden.
    let out = redvote(Some(&wrong), &["articles"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("redis://:***@127.0.0.1:{port}")),
        "{stderr}"
    );
    // --help shows REDVOTE_URL's name, never its value.
    let out = Command::new(env!("CARGO_BIN_EXE_redvote"))
        .env("REDVOTE_URL", &right)
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stdout).contains("secret"));
}

/// A command line clap rejects: exactly one line on stderr, `redvote: ...`
/// with what is wrong, exit 2; `--help` and `--version` keep clap's output
/// and exit 0.
#[test]
fn usage_errors_are_one_line_and_exit_2() {
    let cases: [(&[&str], &str); 6] = [
        (&["bogus"], "unrecognized subcommand 'bogus'"),
        (&["post", "--user", "u"], "--title <TITLE>, --link <LINK>"),
        (
            &["articles", "--page", "x"],
            "invalid value 'x' for '--page <PAGE>'",
        ),
        (
            &["articles", "--order", "nope"],
            "expected one of score, time, hot, best",
        ),
        (&["campaign", "spring", "vote", "--user", "u"], "<PAIRS>"),
        (&["group"], "redvote group --help"),
    ];
    for (args, says) in cases {
        let out = redvote(None, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("redvote: "), "{args:?}: {stderr}");
        assert!(!stderr.contains("error:"), "{args:?}: {stderr}");
        assert!(
            stderr.contains(says),
            "{args:?} should say {says}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    for args in [&["--help"][..], &["campaign", "--help"], &["--version"]] {
        let out = redvote(None, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(out.stderr.is_empty(), "{args:?}");
        assert!(!out.stdout.is_empty(), "{args:?}");
    }
}

/// `campaign NAME reindex BOARD`: a board whose tie rule became dense after
/// votes is indexed in batches; an unknown board exits 1 naming it.
#[test]
fn campaign_reindex_indexes_a_board_in_batches() {
    let server = support::server();
    let url = server.url();
    let u = Some(url.as_str());
    let mut con = support::con(&server);
    let c = redvote::Campaign::new("re");
    let board = redvote::campaign::BoardSettings::new(&[redvote::Period::Total])
        .with_options(&["a", "b", "c", "d", "e"]);
    let settings = redvote::campaign::CampaignSettings::new().with_board("stars", board);
    c.configure(&settings).run(&mut con).unwrap();
    for (n, option) in ["a", "b", "b", "c", "d", "d", "e"].iter().enumerate() {
        c.vote(&format!("u{n}"), &[("stars", option)])
            .run(&mut con)
            .unwrap();
    }
    let dense = redvote::campaign::BoardSettings::default().with_ties(redvote::Ties::Dense);
    let switch = redvote::campaign::CampaignSettings::new().with_board("stars", dense);
    c.configure(&switch).run(&mut con).unwrap();
    let flag = |con: &mut redis::Connection| -> Option<String> {
        con.hget("{c:re}:board:stars", "indexed").unwrap()
    };
    assert_eq!(flag(&mut con).as_deref(), Some("0"));

    let out = ok(u, &["campaign", "re", "reindex", "stars", "--batch", "2"]);
    assert_eq!(
        out.trim(),
        // (small zsets come whole from ZSCAN: --batch is a hint)
        "board stars indexed: 10 member(s) of 2 period board(s) in 2 call(s)"
    );
    assert_eq!(flag(&mut con).as_deref(), Some("1"));
    let scores: Vec<String> = con.zrange("{c:re}:d:stars:real:total", 0, -1).unwrap();
    assert_eq!(scores, vec!["1", "2"]);
    let done = json(u, &["campaign", "re", "reindex", "stars"]);
    assert_eq!(
        (done["members"].as_u64(), done["calls"].as_u64()),
        (Some(0), Some(1))
    );

    let out = redvote(u, &["campaign", "re", "reindex", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("board \"nope\" is not configured"), "{err}");
}

/// `campaign NAME upgrade`: a campaign configured by redvote 0.5 (no
/// layout field: layout 1) moves to layout 3 in one call; again, nothing
/// to do; a campaign of a newer layout exits 1 naming both layouts, and an
/// unknown campaign exits 1.
#[test]
fn campaign_upgrade_moves_the_layout_forward() {
    let server = support::server();
    let url = server.url();
    let u = Some(url.as_str());
    let mut con = support::con(&server);
    let c = redvote::Campaign::new("up");
    let board =
        redvote::campaign::BoardSettings::new(&[redvote::Period::Total]).with_options(&["a"]);
    let settings = redvote::campaign::CampaignSettings::new().with_board("b", board);
    c.configure(&settings).run(&mut con).unwrap();
    let _: () = con.hdel("{c:up}:campaign", "layout").unwrap();

    let out = ok(u, &["campaign", "up", "upgrade"]);
    assert_eq!(out.trim(), "data layout 1 -> 3 in 1 call(s)");
    let layout: Option<String> = con.hget("{c:up}:campaign", "layout").unwrap();
    assert_eq!(layout.as_deref(), Some("3"));
    let again = json(u, &["campaign", "up", "upgrade"]);
    assert_eq!(
        (again["from"].as_u64(), again["to"].as_u64()),
        (Some(3), Some(3))
    );

    // (layout 4 is a buffered campaign's: the newest this version knows)
    let _: () = con.hset("{c:up}:campaign", "layout", "5").unwrap();
    let out = redvote(u, &["campaign", "up", "upgrade"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("REDVOTE_LAYOUT_VERSION") && err.contains("layout 5") && err.contains("1..4"),
        "{err}"
    );
    let out = redvote(u, &["campaign", "nope", "upgrade"]);
    assert_eq!(out.status.code(), Some(1));
}

/// A reader that stops early (`redvote scripts | head -1`) is not an
/// error: the command exits 0 quietly instead of panicking with "Broken
/// pipe" (exit 101). The pipe is closed before the command writes, every
/// time.
#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    for _ in 0..5 {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_redvote"))
            .arg("scripts")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run redvote scripts");
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}
