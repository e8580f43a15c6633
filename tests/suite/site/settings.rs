//! Settings: defaults, validation (all or nothing), vote_score locked once an
//! article exists, and the window setting moving the cutoff of new votes.

use redvote::{Code, Config, ConfigUpdate, Site};

use crate::support::stored_time;
use crate::support::{self, expiretime, refused, refused_unchanged, zscore};

#[test]
fn settings_defaults_validation_and_the_vote_score_lock() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();

    let defaults = Config {
        vote_score: 432,
        window: 604800,
        page_size: 25,
        rankings: vec![],
    };
    assert_eq!(site.config().run(&mut con).unwrap(), defaults);
    assert_eq!(
        support::digest(&mut con),
        "0".repeat(40),
        "reading writes nothing"
    );

    // Out-of-range values are refused, all or nothing.
    let bad = [
        (
            ConfigUpdate {
                page_size: Some(0),
                ..Default::default()
            },
            "\"0\"",
        ),
        (
            ConfigUpdate {
                page_size: Some(101),
                ..Default::default()
            },
            "\"101\"",
        ),
        (
            ConfigUpdate {
                window: Some(1),
                ..Default::default()
            },
            "\"1\"",
        ),
        (
            ConfigUpdate {
                vote_score: Some(0),
                ..Default::default()
            },
            "\"0\"",
        ),
        (
            ConfigUpdate {
                page_size: Some(10),
                window: Some(59),
                ..Default::default()
            },
            "\"59\"",
        ),
    ];
    for (update, named) in bad {
        let detail = refused(site.configure(&update).run(&mut con), Code::InvalidConfig);
        assert!(detail.contains(named), "{detail} should name {named}");
    }
    assert_eq!(support::digest(&mut con), "0".repeat(40));
    assert_eq!(site.config().run(&mut con).unwrap(), defaults);

    // On an empty site vote_score may change, and posts use it.
    let config = site
        .configure(&ConfigUpdate {
            vote_score: Some(100),
            window: Some(3600),
            ..Default::default()
        })
        .run(&mut con)
        .unwrap();
    assert_eq!(
        config,
        Config {
            vote_score: 100,
            window: 3600,
            ..defaults.clone()
        }
    );
    let id = site.post("alice", "A", "http://a").run(&mut con).unwrap();
    let t = stored_time(&mut con, &site, id);
    assert_eq!(
        zscore(&mut con, "score:", "article:1"),
        Some((t + 100) as f64)
    );
    assert_eq!(expiretime(&mut con, "voted:1"), t + 3600 + 1);
    let outcome = site.downvote("bob", "1").run(&mut con).unwrap();
    assert_eq!(outcome.score, Some(t as f64));
    let outcome = site.vote("carol", "1").run(&mut con).unwrap();
    assert_eq!(outcome.score, Some((t + 100) as f64));

    // Once an article exists it is locked (the same value is still fine).
    let digest = support::digest(&mut con);
    let detail = refused(
        site.configure(&ConfigUpdate {
            vote_score: Some(432),
            ..Default::default()
        })
        .run(&mut con),
        Code::ConfigLocked,
    );
    assert!(detail.contains("vote_score"), "{detail}");
    assert_eq!(support::digest(&mut con), digest);
    let config = site
        .configure(&ConfigUpdate {
            vote_score: Some(100),
            page_size: Some(50),
            ..Default::default()
        })
        .run(&mut con)
        .unwrap();
    assert_eq!((config.vote_score, config.page_size), (100, 50));
    assert_eq!(site.config().run(&mut con).unwrap(), config);
}

#[test]
fn the_window_setting_moves_the_cutoff_of_new_votes_and_only_shrinks_once_posted() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();
    let t = support::server_time(&mut con) - 1000;
    site.import("alice", "A", "http://a", t as u64)
        .run(&mut con)
        .unwrap();

    let short = ConfigUpdate {
        window: Some(600),
        ..Default::default()
    };
    site.configure(&short).run(&mut con).unwrap();
    let digest = support::digest(&mut con);
    let detail = refused(site.vote("bob", "1").run(&mut con), Code::VotingClosed);
    assert_eq!(detail, format!("voting on article 1 closed at {}", t + 600));
    assert_eq!(support::digest(&mut con), digest);

    // A longer window would reopen the article to voters whose voted:ID
    // set already expired: refused once articles exist, nothing written.
    let long = ConfigUpdate {
        window: Some(2000),
        ..Default::default()
    };
    refused_unchanged(&mut con, "a longer window", Code::ConfigLocked, |con| {
        site.configure(&long).run(con)
    });
    refused(site.vote("bob", "1").run(&mut con), Code::VotingClosed);

    // Set before posting, a window applies from the publish time on; the
    // downvoters' set outlives its last second.
    let other = Site::new("{w}:");
    other.configure(&long).run(&mut con).unwrap();
    other
        .import("alice", "A", "http://a", t as u64)
        .run(&mut con)
        .unwrap();
    let outcome = other.downvote("bob", "1").run(&mut con).unwrap();
    assert!(outcome.changed);
    assert_eq!(outcome.score, Some(t as f64));
    assert_eq!(expiretime(&mut con, "{w}:downvoted:1"), t + 2000 + 1);
}
