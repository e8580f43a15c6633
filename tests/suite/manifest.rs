//! `lua/manifest.json` against a real server: the SHA1 that
//! `redis-cli -x SCRIPT LOAD < lua/<op>.lua` answers (the form README and
//! docs/redis-cli.md show) is the manifest's and the driver's (`redvote
//! scripts` prints the driver's), for every script; and the form that
//! drops the file's last newline, `SCRIPT LOAD "$(cat lua/<op>.lua)"`,
//! gets another SHA1, which is why the docs do not show it.

use crate::support;
use crate::support::readme::{doc, sh, sh_commands};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `(name, file, sha1)` of every script of the committed manifest.
fn manifest() -> Vec<(String, String, String)> {
    let m: serde_json::Value = serde_json::from_str(redvote::scripts::MANIFEST).unwrap();
    m["scripts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let field = |k: &str| s[k].as_str().unwrap().to_string();
            (field("name"), field("file"), field("sha1"))
        })
        .collect()
}

fn redis_cli(port: u16, line: &str) -> String {
    let cmd = line.replace("redis-cli ", &format!("redis-cli -p {port} "));
    let out = sh(&cmd, ROOT.as_ref()).output().expect("run sh");
    assert!(out.status.success(), "{cmd}: {out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn script_load_from_stdin_answers_the_manifest_sha1() {
    let server = support::server();
    let scripts = manifest();
    assert_eq!(scripts.len(), redvote::scripts::all().len());
    for (name, file, sha1) in &scripts {
        let loaded = redis_cli(server.port(), &format!("redis-cli -x SCRIPT LOAD < {file}"));
        assert_eq!(&loaded, sha1, "{file}: SCRIPT LOAD answers another SHA1");
        let driver = redvote::scripts::get(name).unwrap().sha1();
        assert_eq!(driver, sha1, "{name}: the driver embeds another script");
    }
    let (_, file, sha1) = &scripts[0];
    let cat = redis_cli(
        server.port(),
        &format!("redis-cli SCRIPT LOAD \"$(cat {file})\""),
    );
    assert_ne!(
        &cat, sha1,
        "$(cat) drops the last newline, so its SHA1 differs"
    );
}

/// docs/manifest.md: its `redis-cli` lines answer the manifest's SHA1, and
/// the entry it shows is the manifest's, as committed.
#[test]
fn the_manifest_chapter_is_current() {
    let text = doc("docs/manifest.md");
    let server = support::server();
    let lines = sh_commands(text, &["redis-cli "]);
    assert!(
        !lines.is_empty(),
        "docs/manifest.md shows no redis-cli line"
    );
    let scripts = manifest();
    for line in &lines {
        let file = line.rsplit(' ').next().unwrap();
        let (_, _, sha1) = scripts.iter().find(|(_, f, _)| f == file).unwrap();
        assert_eq!(&redis_cli(server.port(), line), sha1, "{line}");
    }
    let start = text.find("```json\n").expect("a json block") + 8;
    let end = start + text[start..].find("```").unwrap();
    let shown: serde_json::Value = serde_json::from_str(&text[start..end]).unwrap();
    let m: serde_json::Value = serde_json::from_str(redvote::scripts::MANIFEST).unwrap();
    let entry = m["scripts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == shown["name"])
        .expect("the entry shown is a script's");
    assert_eq!(
        &shown, entry,
        "docs/manifest.md shows a stale entry: copy it from lua/manifest.json"
    );
}

/// docs/manifest.md, "Use from any language": the bash example reads the
/// manifest alone (SHA1, file, fixed ARGV names, error codes) and votes;
/// the first call loads the script after NOSCRIPT, so does one after
/// `SCRIPT FLUSH`; a refusal exits 1 naming its code and writes nothing.
#[test]
fn the_any_language_example_votes() {
    assert!(
        std::process::Command::new("jq")
            .arg("--version")
            .output()
            .is_ok(),
        "jq was not found on PATH; install it (Debian/Ubuntu: `sudo apt-get install -y jq`; \
         tests/run does)"
    );
    let text = doc("docs/manifest.md");
    let start = text.find("## Use from any language").expect("the section");
    let block = &text[start..];
    let block = &block[block.find("```bash\n").expect("a bash block") + 8..];
    let block = &block[..block.find("```").unwrap()];

    let server = support::server();
    let mut con = support::con(&server);
    let c = redvote::Campaign::new("spring2026");
    let board = redvote::campaign::BoardSettings::new(&[redvote::Period::Total])
        .with_options(&["yyqx", "wjk"]);
    c.configure(&redvote::CampaignSettings::new().with_board("male-stars", board))
        .run(&mut con)
        .unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new("bash")
            .args(["-c", block, "vote.sh"])
            .args(args)
            .current_dir(ROOT)
            .env("REDVOTE_PORT", server.port().to_string())
            .output()
            .unwrap()
    };
    for (n, user) in ["user:1", "user:2"].iter().enumerate() {
        let _: () = redis::cmd("SCRIPT").arg("FLUSH").query(&mut con).unwrap();
        let out = run(&["spring2026", user, "male-stars", "yyqx"]);
        assert!(out.status.success(), "{out:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            stdout.lines().collect::<Vec<_>>(),
            ["male-stars", "yyqx", "total", &format!("{}.00", n + 1)]
        );
    }
    let before = support::digest(&mut con);
    let out = run(&["spring2026", "user:3", "male-stars", "nope"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with("refused: REDVOTE_UNKNOWN_OPTION"),
        "{stderr}"
    );
    assert_eq!(support::digest(&mut con), before);
}
