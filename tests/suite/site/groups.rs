//! Groups: adding and removing in one call, refusals writing nothing, and
//! group pages ordered and cached for 60 seconds (membership changes drop
//! the cache at once).

use redvote::{Code, GroupChange, Order, Site};

use super::ids;
use crate::support::{self, del, exists, refused, set, smembers, ttl, zscore, VOTE_SCORE};

#[test]
fn groups_add_and_remove_in_one_call() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();
    site.post("alice", "A", "http://a").run(&mut con).unwrap();
    site.post("bob", "B", "http://b").run(&mut con).unwrap();

    let change = site
        .groups("1", &["programming", "rust", "news"], &[])
        .run(&mut con)
        .unwrap();
    assert_eq!(
        change,
        GroupChange {
            added: 3,
            removed: 0
        }
    );
    let change = site
        .groups(
            "article:1",
            &["rust", "databases"],
            &["news", "programming", "never-joined"],
        )
        .run(&mut con)
        .unwrap();
    assert_eq!(
        change,
        GroupChange {
            added: 1,
            removed: 2
        }
    );
    assert_eq!(smembers(&mut con, "group:rust"), set(["article:1"]));
    assert_eq!(smembers(&mut con, "group:databases"), set(["article:1"]));
    assert!(!exists(&mut con, "group:news"));
    assert!(!exists(&mut con, "group:programming"));
    assert!(!exists(&mut con, "group:never-joined"));

    let change = site.groups("2", &["rust"], &[]).run(&mut con).unwrap();
    assert_eq!(
        change,
        GroupChange {
            added: 1,
            removed: 0
        }
    );
    assert_eq!(
        smembers(&mut con, "group:rust"),
        set(["article:1", "article:2"])
    );

    // Refusals write nothing.
    let digest = support::digest(&mut con);
    refused(
        site.groups("3", &["rust"], &[]).run(&mut con),
        Code::UnknownArticle,
    );
    for bad in ["a:b", "a{b}", "a b", "", "a*", "a,b"] {
        let detail = refused(
            site.groups("1", &["ok", bad], &[]).run(&mut con),
            Code::InvalidGroup,
        );
        assert!(detail.contains(&format!("\"{bad}\"")), "{detail}");
        refused(
            site.groups("1", &[], &[bad]).run(&mut con),
            Code::InvalidGroup,
        );
        refused(
            site.group_page(bad, Order::Score, 1, None).run(&mut con),
            Code::InvalidGroup,
        );
    }
    refused(
        site.groups("1", &["x"], &["x"]).run(&mut con),
        Code::InvalidGroup,
    );
    refused(
        site.groups("1:x", &["x"], &[]).run(&mut con),
        Code::InvalidId,
    );
    assert_eq!(support::digest(&mut con), digest);
}

/// Site layout 1 (asked for before the first post: a new site starts at
/// 2, whose group pages read the boards, site::layout2).
#[test]
fn group_pages_are_ordered_and_cached_for_60_seconds() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();
    support::site_at_layout_1(&mut con, "");
    let t0 = support::server_time(&mut con) - 1000;
    for i in 0..4u64 {
        site.import("poster", &format!("T{i}"), "http://l", t0 as u64 + i)
            .run(&mut con)
            .unwrap();
    }
    for id in ["1", "2", "3"] {
        site.groups(id, &["g"], &[]).run(&mut con).unwrap();
    }
    site.groups("4", &["other"], &[]).run(&mut con).unwrap();
    site.vote("u1", "1").run(&mut con).unwrap();
    // scores: 1 -> t0 + 864, 3 -> t0 + 2 + 432, 2 -> t0 + 1 + 432

    let page = site
        .group_page("g", Order::Score, 1, None)
        .with_scores()
        .run(&mut con)
        .unwrap();
    assert_eq!(page.group.as_deref(), Some("g"));
    assert_eq!(
        (page.order, page.page, page.per_page, page.total),
        (Order::Score, 1, 25, 3)
    );
    assert_eq!(ids(&page), ["1", "3", "2"]);
    let scores: Vec<Option<f64>> = page.articles.iter().map(|a| a.score).collect();
    assert_eq!(
        scores,
        [
            Some((t0 + 2 * VOTE_SCORE) as f64),
            Some((t0 + 2 + VOTE_SCORE) as f64),
            Some((t0 + 1 + VOTE_SCORE) as f64)
        ]
    );
    assert_eq!(page.articles[0].votes, 2);
    assert_eq!(page.articles[0].title, "T0");
    // The cache holds the order's own scores.
    assert_eq!(
        zscore(&mut con, "score:g", "article:1"),
        Some((t0 + 2 * VOTE_SCORE) as f64)
    );
    let left = ttl(&mut con, "score:g");
    assert!((1..=60).contains(&left), "score:g TTL {left}");

    let page = site
        .group_page("g", Order::Time, 1, None)
        .run(&mut con)
        .unwrap();
    assert_eq!(ids(&page), ["3", "2", "1"]);
    assert_eq!(
        zscore(&mut con, "time:g", "article:3"),
        Some((t0 + 2) as f64)
    );
    let left = ttl(&mut con, "time:g");
    assert!((1..=60).contains(&left), "time:g TTL {left}");

    let page = site
        .group_page("g", Order::Score, 2, Some(2))
        .run(&mut con)
        .unwrap();
    assert_eq!((page.per_page, page.total), (2, 3));
    assert_eq!(ids(&page), ["2"]);

    // Votes reach the group order only when the cache goes: two votes put
    // article 2 (t0 + 1 + 3*432) on top of article 1 (t0 + 2*432).
    site.vote("u1", "2").run(&mut con).unwrap();
    site.vote("u2", "2").run(&mut con).unwrap();
    let cached = site
        .group_page("g", Order::Score, 1, None)
        .with_scores()
        .run(&mut con)
        .unwrap();
    assert_eq!(ids(&cached), ["1", "3", "2"]);
    // ... while each entry's hash and score: value are read live.
    assert_eq!(cached.articles[2].votes, 3);
    assert_eq!(
        cached.articles[2].score,
        Some((t0 + 1 + 3 * VOTE_SCORE) as f64)
    );
    del(&mut con, "score:g"); // what the 60 s expiry does
    let fresh = site
        .group_page("g", Order::Score, 1, None)
        .run(&mut con)
        .unwrap();
    assert_eq!(ids(&fresh), ["2", "1", "3"]);

    // Membership changes show at once: groups drops the group's caches.
    assert!(exists(&mut con, "score:g") && exists(&mut con, "time:g"));
    site.groups("4", &["g"], &[]).run(&mut con).unwrap();
    assert!(!exists(&mut con, "score:g") && !exists(&mut con, "time:g"));
    let page = site
        .group_page("g", Order::Time, 1, None)
        .run(&mut con)
        .unwrap();
    assert_eq!(ids(&page), ["4", "3", "2", "1"]);
    assert_eq!(page.total, 4);
    site.group_page("g", Order::Score, 1, None)
        .run(&mut con)
        .unwrap();
    site.groups("2", &[], &["g"]).run(&mut con).unwrap();
    let page = site
        .group_page("g", Order::Score, 1, None)
        .run(&mut con)
        .unwrap();
    assert_eq!(ids(&page), ["1", "4", "3"]);
    let page = site
        .group_page("g", Order::Time, 1, None)
        .run(&mut con)
        .unwrap();
    assert_eq!(ids(&page), ["4", "3", "1"]);

    // A call that changes nothing keeps the cache.
    site.groups("1", &["g"], &["nothing"])
        .run(&mut con)
        .unwrap();
    assert!(exists(&mut con, "score:g"));

    // A group nobody joined is an empty page.
    let page = site
        .group_page("empty", Order::Score, 1, None)
        .run(&mut con)
        .unwrap();
    assert_eq!((page.total, page.articles.len()), (0, 0));
}
