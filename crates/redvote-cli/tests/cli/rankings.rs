//! `redvote rerank`: rankings switched on later are backfilled.

use redis::Connection;
use redvote::{ConfigUpdate, Order, Ranking, Site};

use crate::support::{self, best, exists, hget, hot, stored_time, zscore};

/// Switching rankings on after articles exist: `rerank` (batch by batch,
/// and through the CLI) writes every article's hot:/best: entry exactly as a
/// vote would, and is idempotent.
#[test]
fn rerank_backfills_rankings_switched_on_later() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();
    for i in 1..=7 {
        site.post(&format!("user:{i}"), "t", "https://x")
            .run(&mut con)
            .unwrap();
    }
    site.vote("user:9", "3").run(&mut con).unwrap();
    site.downvote("user:9", "5").run(&mut con).unwrap();
    site.downvote("user:8", "5").run(&mut con).unwrap();
    site.configure(&ConfigUpdate {
        rankings: Some(vec![Ranking::Hot, Ranking::Best]),
        ..Default::default()
    })
    .run(&mut con)
    .unwrap();
    assert!(
        !exists(&mut con, "hot:"),
        "switching rankings on ranks nothing by itself"
    );

    // Three batches of 3: 3 + 3 + 1.
    let first = site.rerank(0, 3).run(&mut con).unwrap();
    assert_eq!((first.ranked, first.next), (3, 3));
    let second = site.rerank(first.next, 3).run(&mut con).unwrap();
    assert_eq!((second.ranked, second.next), (3, 6));
    let last = site.rerank(second.next, 3).run(&mut con).unwrap();
    assert_eq!((last.ranked, last.next), (1, 0));
    let check = |con: &mut Connection| {
        for id in 1..=7u64 {
            let member = format!("article:{id}");
            let up: i64 = hget(con, &member, "votes").unwrap().parse().unwrap();
            let down: i64 = hget(con, &member, "downvotes").map_or(0, |d| d.parse().unwrap());
            let time = stored_time(con, &Site::default(), id);
            let h = zscore(con, "hot:", &member).unwrap();
            let b = zscore(con, "best:", &member).unwrap();
            assert!(
                (h - hot(up, down, time)).abs() <= 1e-12 * h.abs(),
                "{member} hot {h}"
            );
            assert!((b - best(up, down)).abs() <= 1e-12, "{member} best {b}");
        }
    };
    check(&mut con);
    let before = support::digest(&mut con);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_redvote"))
        .args(["--url", &server.url(), "rerank", "--batch", "2"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ranked 7 article(s)\n"
    );
    assert_eq!(support::digest(&mut con), before, "rerank is idempotent");
    check(&mut con);
    let page = site.page(Order::Best, 1, None).run(&mut con).unwrap();
    assert_eq!(page.articles.len(), 7);
    assert_eq!(
        page.articles[0].id, "3",
        "the only article with two upvotes ranks best"
    );
    assert_eq!(page.articles[6].id, "5", "the downvoted one ranks last");
}

/// `redvote upgrade`: a site moves to data layout 2 in batches; its group
/// pages then read the kept boards (a vote shows at once); upgrading again
/// does nothing; a layout this version does not know is refused.
#[test]
fn upgrade_moves_the_site_to_layout_2() {
    let server = support::server();
    let url = server.url();
    let u = Some(url.as_str());
    let mut con = support::con(&server);
    let site = Site::default();
    // layout 1 asked for before the first post (a new site starts at 2)
    support::site_at_layout_1(&mut con, "");
    for i in 1..=4 {
        site.post(&format!("user:{i}"), "t", "https://x")
            .run(&mut con)
            .unwrap();
    }
    site.groups("1", &["g"], &[]).run(&mut con).unwrap();
    site.groups("2", &["g"], &[]).run(&mut con).unwrap();
    let run = |args: &[&str]| {
        let out = support::redvote(u, args);
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let out = run(&["upgrade", "--batch", "1"]);
    assert!(out.starts_with("site data layout 1 -> 2 in "), "{out}");
    assert_eq!(
        hget(&mut con, "redvote:config", "layout").as_deref(),
        Some("2")
    );
    site.vote("user:9", "1").run(&mut con).unwrap();
    let page = site.group_page("g", Order::Score, 1, None);
    let page = page.run(&mut con).unwrap();
    let ids: Vec<&str> = page.articles.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, ["1", "2"]);
    let again: serde_json::Value = serde_json::from_str(&run(&["--json", "upgrade"])).unwrap();
    assert_eq!(again, serde_json::json!({"from": 2, "to": 2, "calls": 1}));
    redis::cmd("HSET")
        .arg("redvote:config")
        .arg("layout")
        .arg("3")
        .exec(&mut con)
        .unwrap();
    let out = support::redvote(u, &["upgrade"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("REDVOTE_LAYOUT_VERSION"), "{err}");
}
