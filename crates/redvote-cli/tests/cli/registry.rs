//! `redvote campaigns` (the campaign registry) and `redvote campaigns
//! register --scan`, which registers campaigns made without the registry
//! (the driver's `Campaign::configure`,
//! `redis-cli --eval lua/campaign_configure.lua`), on one server among
//! 300,000 other keys (every SCAN step to the end, no cap) and on every
//! primary of a cluster.

use redvote::client::key_slot;
use redvote::{Campaign, Client};
use serde_json::Value;

use crate::support::cluster::shared;
use crate::support::readme::spring_settings;
use crate::support::{con, redvote, server};

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `redvote --json campaigns`: the names.
fn listed(url: &str) -> Vec<String> {
    let out = redvote(Some(url), &["--json", "campaigns"]);
    assert!(out.status.success(), "{}", text(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["campaigns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

/// A campaign configured the raw way: the configure script alone, as
/// `redis-cli --eval lua/campaign_configure.lua` runs it.
fn raw_configure(con: &mut dyn redis::ConnectionLike, name: &str) {
    Campaign::new(name)
        .configure(&spring_settings())
        .run(con)
        .unwrap();
}

#[test]
fn register_scan_finds_campaigns_made_by_raw_configure() {
    let server = server();
    let url = server.url();
    let mut c = con(&server);
    let _: () = redis::cmd("DEBUG")
        .arg("POPULATE")
        .arg(300_000)
        .query(&mut c)
        .unwrap();
    raw_configure(&mut c, "raw1");
    raw_configure(&mut c, "raw2");
    // a key of the pattern whose name no campaign can have
    let _: () = redis::cmd("HSET")
        .arg("{c:not a name}:campaign")
        .arg("offset")
        .arg("0")
        .query(&mut c)
        .unwrap();
    assert!(listed(&url).is_empty());
    let out = redvote(Some(&url), &["campaigns"]);
    assert!(
        text(&out).contains("no campaigns registered"),
        "{}",
        text(&out)
    );

    // the check sees the campaign and says it is not listed
    let out = redvote(Some(&url), &["campaign", "raw1", "check"]);
    assert!(out.status.success(), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("campaign raw1 exists but is not in the campaign registry"),
        "{stderr}"
    );

    let out = redvote(Some(&url), &["--json", "campaigns", "register", "--scan"]);
    assert!(out.status.success(), "{}", text(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["found"], 2, "{v}");
    assert_eq!(v["registered"], 2, "{v}");
    // 300,002 keys in steps of COUNT 1000: past the 50 steps the admin
    // page used to stop at
    assert!(v["scan_steps"].as_u64().unwrap() > 250, "{v}");
    assert_eq!(listed(&url), ["raw1", "raw2"]);
    // idempotent
    let out = redvote(Some(&url), &["campaigns", "register", "--scan"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("found 2 campaign(s)"), "{}", text(&out));
    assert!(text(&out).contains("registered 0 new"), "{}", text(&out));

    // registered now: the check has nothing to say about it
    let out = redvote(Some(&url), &["campaign", "raw1", "check"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"));

    // configure through the CLI registers; register NAME too
    let out = redvote(
        Some(&url),
        &[
            "campaign",
            "cli1",
            "configure",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/spring2026.json"),
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let out = redvote(Some(&url), &["campaigns", "register", "later", "raw1"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("registered 1 new"), "{}", text(&out));
    assert_eq!(listed(&url), ["raw1", "raw2", "cli1", "later"]);
    // a name the registry would refuse is a malformed command line
    let out = redvote(Some(&url), &["campaigns", "register", "a}b"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn register_scan_reads_every_primary_of_a_cluster() {
    let cluster = shared();
    let url = cluster.url();
    let client = Client::open(&url).unwrap();
    let mut admin = client.connect().unwrap();
    let names: Vec<String> = (0..8).map(|i| format!("rawcluster{i}")).collect();
    for name in &names {
        raw_configure(admin.redis().unwrap(), name);
    }
    let owners: std::collections::BTreeSet<u16> = names
        .iter()
        .map(|n| {
            cluster
                .owner(key_slot(Campaign::new(n).root_key().as_bytes()))
                .port()
        })
        .collect();
    assert_eq!(owners.len(), 3, "the names spread over every primary");
    let out = redvote(Some(&url), &["--json", "campaigns", "register", "--scan"]);
    assert!(out.status.success(), "{}", text(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["primaries"], 3, "{v}");
    let listed = listed(&url);
    for name in &names {
        assert!(listed.contains(name), "{name} not listed: {listed:?}");
    }
}

/// docs/cli.md, "The campaign list": its lines in order on an empty
/// server; both campaigns are listed at the end.
#[test]
fn the_cli_chapter_campaign_list_runs() {
    use crate::support::readme::{section, sh, sh_commands, WORKSPACE};
    let server = server();
    let lines = sh_commands(
        section("### The campaign list"),
        &["redvote ", "redis-cli "],
    );
    assert_eq!(lines.len(), 4, "{lines:?}");
    for line in &lines {
        let cmd = line.replace("redis-cli ", &format!("redis-cli -p {} ", server.port()));
        let out = sh(&cmd, WORKSPACE.as_ref())
            .env("REDVOTE_URL", server.url())
            .output()
            .unwrap();
        assert!(out.status.success(), "{cmd}: {out:?}");
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("REDVOTE_"),
            "{cmd}: {out:?}"
        );
    }
    assert_eq!(listed(&server.url()), ["spring2026", "autumn"]);
}
