//! Least privilege (docs/connecting.md, "Least privilege"): its ACL line lists
//! every command the scripts call; a user created with it runs both systems;
//! a user whose key patterns do not cover a call's key is refused, writing
//! nothing.

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
    let granted: BTreeSet<String> = acl_line()
        .split_whitespace()
        .filter_map(|w| w.strip_prefix('+'))
        .map(str::to_string)
        .collect();
    let missing: Vec<String> = script_commands().difference(&granted).cloned().collect();
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
