//! Least privilege (docs/connecting.md, "Least privilege"): its ACL line lists
//! every command the scripts call and every command the driver and the
//! checker send themselves (`WAIT`, `CLUSTER SLOTS`, `ROLE`, `SCAN`...,
//! found in src/ and crates/redvote-check/src); a user created with it runs
//! both systems, waits for a replica and checks a campaign, on one server
//! with a replica, through Sentinel and on a cluster; a user whose key
//! patterns do not cover a call's key is refused, writing nothing.

use std::collections::BTreeSet;

use redvote::{
    BoardSettings, Campaign, CampaignSettings, Neighbourhood, Order, Paging, Period, Site, View,
    Voter,
};

use crate::support;

/// The chapter that holds the ACL line.
const CONNECTING: &str = include_str!("../../docs/connecting.md");

/// The chapter's `ACL SETUSER redvote ...` line.
fn acl_line() -> &'static str {
    CONNECTING
        .lines()
        .find(|l| l.starts_with("ACL SETUSER redvote "))
        .expect("docs/connecting.md has an ACL SETUSER redvote line")
}

/// Every command name the embedded scripts pass to `rcall`/`redis.call`.
fn script_commands() -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for s in redvote::scripts::all() {
        for call in ["rcall('", "redis.call('", "redis.pcall('"] {
            for (at, _) in s.source().match_indices(call) {
                let rest = &s.source()[at + call.len()..];
                found.insert(rest[..rest.find('\'').unwrap()].to_lowercase());
            }
        }
    }
    found
}

/// Every command the driver (src/) and the checker
/// (crates/redvote-check/src) send themselves, outside test modules, as an
/// ACL rule: `cluster|slots` for `CLUSTER SLOTS`. `SENTINEL` is left out:
/// it goes to the sentinels, not to a data node.
fn driver_commands() -> BTreeSet<String> {
    fn walk(dir: &std::path::Path, files: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                walk(&path, files);
            } else if path.extension().is_some_and(|x| x == "rs") {
                files.push(path);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(&root.join("src"), &mut files);
    walk(&root.join("crates/redvote-check/src"), &mut files);
    let mut found = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let text = text.split("#[cfg(test)]\nmod tests").next().unwrap();
        let words = |quote: &str| -> Vec<String> {
            text.match_indices(quote)
                .map(|(at, _)| {
                    let rest = &text[at + quote.len()..];
                    rest[..rest.find('"').unwrap()].to_string()
                })
                .collect()
        };
        for w in words("cmd(\"") {
            match w.as_str() {
                "SENTINEL" => {}
                "CLUSTER" => {
                    assert!(
                        text.contains("\"SLOTS\""),
                        "{}: CLUSTER but not SLOTS",
                        file.display()
                    );
                    found.insert("cluster|slots".to_string());
                }
                w => {
                    found.insert(w.to_lowercase());
                }
            }
        }
        // the scan commands are passed by name to a helper
        for w in ["SCAN", "SSCAN", "HSCAN", "ZSCAN"] {
            if text.contains(&format!("\"{w}\"")) {
                found.insert(w.to_lowercase());
            }
        }
    }
    found
}

/// The rules the ACL line grants (`+...`).
fn granted() -> BTreeSet<String> {
    acl_line()
        .split_whitespace()
        .filter_map(|w| w.strip_prefix('+'))
        .map(str::to_string)
        .collect()
}

/// The chapter's line with the test's password and key patterns.
fn setuser(con: &mut redis::Connection, user: &str, patterns: &[&str]) {
    let mut cmd = redis::cmd("ACL");
    for word in acl_line().split_whitespace().skip(1) {
        match word {
            "redvote" => cmd.arg(user),
            ">CHANGE-ME" => cmd.arg(">pw"),
            w if w.starts_with('~') => continue,
            w => cmd.arg(w),
        };
    }
    for p in patterns {
        cmd.arg(format!("~{p}"));
    }
    cmd.query::<()>(con).unwrap();
}

#[test]
fn the_acl_line_lists_every_command_the_scripts_call() {
    let missing: Vec<String> = script_commands().difference(&granted()).cloned().collect();
    assert!(
        missing.is_empty(),
        "the ACL line of docs/connecting.md lacks {missing:?}"
    );
}

#[test]
fn a_least_privilege_user_runs_both_systems_and_nothing_else() {
    let server = support::server();
    let mut admin = support::con(&server);
    setuser(&mut admin, "redvote", &["{t}:*", "{c:acl}:*"]);
    setuser(&mut admin, "other", &["{other}:*"]);
    let url = |user: &str| {
        server
            .url()
            .replacen("redis://", &format!("redis://{user}:pw@"), 1)
    };
    let mut con = redis::Client::open(url("redvote"))
        .unwrap()
        .get_connection()
        .unwrap();

    let site = Site::new("{t}:");
    let id = site
        .post("alice", "A", "http://a")
        .run(&mut con)
        .unwrap()
        .to_string();
    site.vote("bob", &id).run(&mut con).unwrap();
    site.downvote("carol", &id).run(&mut con).unwrap();
    site.groups(&id, &["g"], &[]).run(&mut con).unwrap();
    site.group_page("g", Order::Score, 1, None)
        .run(&mut con)
        .unwrap();
    site.page(Order::Time, 1, None).run(&mut con).unwrap();
    site.article(&id, Some("bob")).run(&mut con).unwrap();
    site.config().run(&mut con).unwrap();
    site.rerank(0, 10).run(&mut con).unwrap();

    let campaign = Campaign::new("acl");
    let settings = CampaignSettings::new().with_board(
        "b",
        BoardSettings::new(&[Period::Day, Period::Total])
            .with_ties(redvote::Ties::First)
            .with_options(&["x", "y"]),
    );
    campaign.configure(&settings).run(&mut con).unwrap();
    campaign.import("b", &[("x", "5")]).run(&mut con).unwrap();
    campaign
        .vote("u1", &[("b", "x"), ("b", "y")])
        .run(&mut con)
        .unwrap();
    let view = View::shown("total");
    campaign
        .top(&["b"], &view, Paging::top(10))
        .run(&mut con)
        .unwrap();
    campaign.standing("b", &view, &["y"]).run(&mut con).unwrap();
    campaign
        .around("b", &view, "y", Neighbourhood::new(3, 10))
        .run(&mut con)
        .unwrap();
    campaign.participants("b", &["x"]).run(&mut con).unwrap();
    campaign
        .limits(&Voter::new("u1"), &[])
        .run(&mut con)
        .unwrap();

    // Another user's key patterns do not cover {t}: refused before running.
    let mut other = redis::Client::open(url("other"))
        .unwrap()
        .get_connection()
        .unwrap();
    let before = support::digest(&mut admin);
    let err = site.vote("mallory", &id).run(&mut other).unwrap_err();
    let noperm = redis::ErrorKind::Server(redis::ServerErrorKind::NoPerm);
    assert!(
        matches!(&err, redvote::Error::Redis(e) if e.kind() == noperm),
        "{err}"
    );
    assert_eq!(support::digest(&mut admin), before, "a refused call wrote");
}

#[test]
fn the_acl_line_lists_every_command_the_driver_and_the_checker_send() {
    let driver = driver_commands();
    for needed in [
        "wait",
        "cluster|slots",
        "role",
        "scan",
        "sscan",
        "zscan",
        "hscan",
    ] {
        assert!(
            driver.contains(needed),
            "the scan of src/ misses {needed}: {driver:?}"
        );
    }
    // the checker reads maxmemory-policy with CONFIG GET, else INFO, and
    // warns when neither is granted: not in the line, named beside it
    let driver: BTreeSet<String> = driver
        .into_iter()
        .filter(|c| c != "config" && c != "info")
        .collect();
    assert!(
        CONNECTING.contains("`+info`"),
        "the chapter names the optional +info"
    );
    let missing: Vec<String> = driver.difference(&granted()).cloned().collect();
    assert!(
        missing.is_empty(),
        "the ACL line of docs/connecting.md lacks {missing:?} (sent by the driver or the checker)"
    );

    // and the server takes each as granted: run as the user, none is NOPERM
    let server = support::server();
    let mut admin = support::con(&server);
    setuser(&mut admin, "redvote", &["{c:x}:*"]);
    let url = server.url().replacen("redis://", "redis://redvote:pw@", 1);
    let mut con = redis::Client::open(url).unwrap().get_connection().unwrap();
    for rule in &driver {
        let mut cmd = redis::cmd(rule.split('|').next().unwrap());
        match rule.as_str() {
            "cluster|slots" => cmd.arg("SLOTS"),
            "wait" => cmd.arg(0).arg(10),
            "scan" => cmd.arg(0),
            r if r.ends_with("scan") => cmd.arg("{c:x}:k").arg(0),
            "role" | "ping" | "time" => &mut cmd,
            // keyed reads and writes: their key is covered; the arity
            // may be wrong, the permission is what is asked
            _ => cmd.arg("{c:x}:k"),
        };
        if let Err(e) = cmd.query::<redis::Value>(&mut con) {
            assert!(
                e.kind() != redis::ErrorKind::Server(redis::ServerErrorKind::NoPerm),
                "{rule} as the ACL line's user: {e}"
            );
        }
    }
}

/// A campaign vote through `client` that waits for one replica, then a
/// check of the campaign through the same user (on a cluster, through
/// `node`, a plain connection to the node that holds it): all granted.
fn vote_wait_and_check(client: &redvote::Client, name: &str, node: Option<String>) {
    let campaign = Campaign::new(name);
    let settings = CampaignSettings::new().with_board(
        "b",
        BoardSettings::new(&[Period::Day, Period::Total]).with_options(&["x", "y"]),
    );
    let mut con = client.connect().expect("connect as the ACL line's user");
    con.run(&campaign.configure(&settings)).unwrap();
    con.run(&campaign.vote_by(&Voter::new("u1").id("v1"), &[("b", "x")]))
        .expect("a vote that waits for a replica");
    con.run(&campaign.vote("u2", &[("b", "y")])).unwrap();
    let report = match node {
        None => redvote_check::check_campaign(con.redis().unwrap(), &campaign),
        Some(url) => redvote_check::check_campaign(
            &mut redis::Client::open(url).unwrap().get_connection().unwrap(),
            &campaign,
        ),
    }
    .expect("a check as the ACL line's user");
    assert!(report.is_clean(), "{report}");
    assert!(report.keys_scanned > 0, "{report}");
}

#[test]
fn a_least_privilege_user_waits_for_a_replica_and_checks() {
    let primary = support::server();
    let port = primary.port().to_string();
    let replica = support::TempServer::start_with(&["--replicaof", "127.0.0.1", &port]).unwrap();
    // the line on every node: a replica promoted by a failover serves the
    // same user
    for node in [&primary, &replica] {
        setuser(&mut support::con(node), "redvote", &["{c:aclw}:*"]);
    }
    let url = primary.url().replacen("redis://", "redis://redvote:pw@", 1);
    let client = redvote::Client::open(&url)
        .unwrap()
        .wait_for_replicas(1, std::time::Duration::from_secs(5));
    vote_wait_and_check(&client, "aclw", None);
}

#[test]
fn a_least_privilege_user_runs_on_a_cluster() {
    let cluster = support::cluster::shared();
    for node in &cluster.nodes {
        setuser(&mut support::cluster::con(node), "redvote", &["{c:aclc}:*"]);
    }
    let url = cluster
        .url()
        .replacen("redis+cluster://", "redis+cluster://redvote:pw@", 1);
    let client = redvote::Client::open(&url)
        .unwrap()
        .wait_for_replicas(1, std::time::Duration::from_secs(5));
    let slot = redvote::client::key_slot(Campaign::new("aclc").root_key().as_bytes());
    let node = cluster
        .owner(slot)
        .url()
        .replacen("redis://", "redis://redvote:pw@", 1);
    vote_wait_and_check(&client, "aclc", Some(node));
}

#[test]
fn a_least_privilege_user_runs_through_sentinel() {
    let d = support::sentinel::Deployment::start();
    for node in [&d.master, &d.replica] {
        setuser(&mut support::con(node), "redvote", &["{c:acls}:*"]);
    }
    // the URL's credentials are the master's; the sentinels are reached
    // without them
    let url = d
        .url()
        .replacen("redis+sentinel://", "redis+sentinel://redvote:pw@", 1);
    let client = redvote::Client::open(&url)
        .unwrap()
        .wait_for_replicas(1, std::time::Duration::from_secs(5));
    vote_wait_and_check(&client, "acls", None);
}
