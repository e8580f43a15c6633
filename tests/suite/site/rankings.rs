//! The hot and best rankings: their formulas, kept by every vote once
//! switched on, pages and group pages in their order, and `rerank`
//! backfilling articles posted before they were switched on.

use redis::Connection;
use redvote::{ConfigUpdate, Order, Ranking, Site, Vote};

use super::{id_strings, ids};
use crate::support::{self, best, hot, zscore, VOTE_SCORE};

#[track_caller]
fn assert_close(got: f64, want: f64, what: &str) {
    let err = (got - want).abs();
    assert!(
        err <= 1e-12 * want.abs().max(got.abs()),
        "{what}: got {got}, want {want}"
    );
}

#[test]
fn hot_and_best_rankings_follow_their_formulas() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();
    let now = support::server_time(&mut con);

    // Posted before the rankings are on: not ranked until voted on.
    site.post("early", "E", "http://e").run(&mut con).unwrap();
    let config = site
        .configure(&ConfigUpdate {
            rankings: Some(vec![Ranking::Hot, Ranking::Best]),
            ..Default::default()
        })
        .run(&mut con)
        .unwrap();
    assert_eq!(config.rankings, vec![Ranking::Hot, Ranking::Best]);
    assert_eq!(zscore(&mut con, "hot:", "article:1"), None);
    assert_eq!(zscore(&mut con, "best:", "article:1"), None);

    for (i, ago) in [3000, 2000, 1000].into_iter().enumerate() {
        let id = site
            .import(&format!("poster{i}"), "T", "http://t", (now - ago) as u64)
            .run(&mut con)
            .unwrap();
        assert_eq!(id, i as u64 + 2);
    }

    let check = |con: &mut Connection, ids: &[u64]| {
        for id in ids {
            let member = format!("article:{id}");
            let a = site.article(id.to_string(), None).run(con).unwrap();
            assert_eq!(
                a.score,
                Some((a.time + VOTE_SCORE * (a.votes - a.downvotes)) as f64)
            );
            let h = zscore(con, "hot:", &member).unwrap();
            assert_close(
                h,
                hot(a.votes, a.downvotes, a.time),
                &format!("hot {member}"),
            );
            let b = zscore(con, "best:", &member).unwrap();
            assert_close(b, best(a.votes, a.downvotes), &format!("best {member}"));
        }
    };
    check(&mut con, &[2, 3, 4]);

    let script: &[(&str, u64, Vote)] = &[
        ("u1", 1, Vote::Up),
        ("u1", 2, Vote::Up),
        ("u2", 2, Vote::Up),
        ("u3", 2, Vote::Up),
        ("u4", 2, Vote::Down),
        ("u1", 3, Vote::Down),
        ("u2", 3, Vote::Down),
        ("u3", 3, Vote::Down),
        ("u1", 3, Vote::Up),
        ("u1", 3, Vote::Down),
        ("poster2", 4, Vote::None),
        ("u5", 4, Vote::Down),
        ("u5", 4, Vote::None),
    ];
    let mut ranked = vec![2, 3, 4];
    for &(user, id, vote) in script {
        site.set_vote(user, id.to_string(), vote)
            .run(&mut con)
            .unwrap();
        if !ranked.contains(&id) {
            ranked.push(id);
        }
        check(&mut con, &ranked);
    }
    // Final: 1: 2 up (now), 2: 4 up 1 down, 3: 1 up 3 down, 4: 0 up 0 down.
    let counts: Vec<(i64, i64)> = (1..=4)
        .map(|id| {
            let a = site.article(id.to_string(), None).run(&mut con).unwrap();
            (a.votes, a.downvotes)
        })
        .collect();
    assert_eq!(counts, [(2, 0), (4, 1), (1, 3), (0, 0)]);
    assert_eq!(zscore(&mut con, "best:", "article:4"), Some(0.0));

    // Pages in hot and best order follow the formulas' order.
    for order in [Order::Hot, Order::Best] {
        let mut model: Vec<(u64, f64)> = (1..=4u64)
            .map(|id| {
                let a = site.article(id.to_string(), None).run(&mut con).unwrap();
                let value = match order {
                    Order::Hot => hot(a.votes, a.downvotes, a.time),
                    _ => best(a.votes, a.downvotes),
                };
                (id, value)
            })
            .collect();
        model.sort_by(|a, b| b.1.total_cmp(&a.1));
        for pair in model.windows(2) {
            assert!(pair[0].1 - pair[1].1 > 1e-9, "tie in {order}: {model:?}");
        }
        let want: Vec<u64> = model.iter().map(|m| m.0).collect();
        let page = site.page(order, 1, None).run(&mut con).unwrap();
        assert_eq!(page.total, 4);
        assert_eq!(ids(&page), id_strings(&want), "{order}");
        // The group page in that order agrees.
        site.groups(want[0].to_string(), &["g"], &[])
            .run(&mut con)
            .unwrap();
        site.groups(want[3].to_string(), &["g"], &[])
            .run(&mut con)
            .unwrap();
        let group = site.group_page("g", order, 1, None).run(&mut con).unwrap();
        assert_eq!(
            ids(&group),
            id_strings(&[want[0], want[3]]),
            "group {order}"
        );
        site.groups(want[0].to_string(), &[], &["g"])
            .run(&mut con)
            .unwrap();
        site.groups(want[3].to_string(), &[], &["g"])
            .run(&mut con)
            .unwrap();
    }
}
