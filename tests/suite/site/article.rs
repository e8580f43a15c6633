//! Reading: one article (score, rank, the user's vote) and pages in score
//! and time order, split by page size, every field exact, following the
//! page_size setting.

use redvote::{Code, ConfigUpdate, Order, Site, Vote};

use super::{id_strings, ids};
use crate::support::{self, refused, VOTE_SCORE};

#[test]
fn article_reports_score_rank_and_the_users_vote() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();
    let t0 = support::server_time(&mut con) - 1000;
    for i in 0..3u64 {
        let id = site
            .import(
                &format!("poster{i}"),
                &format!("T{i}"),
                "http://l",
                t0 as u64 + i,
            )
            .run(&mut con)
            .unwrap();
        assert_eq!(id, i + 1);
    }
    // article 1: +2 votes, article 3: +1 vote, article 2: none.
    site.vote("u1", "1").run(&mut con).unwrap();
    site.vote("u2", "1").run(&mut con).unwrap();
    site.vote("u1", "3").run(&mut con).unwrap();
    // scores: 1 -> t0 + 3*432, 3 -> t0 + 2 + 2*432, 2 -> t0 + 1 + 432
    let expected = [
        ("1", t0 + 3 * VOTE_SCORE, 1, 3),
        ("2", t0 + 1 + VOTE_SCORE, 3, 1),
        ("3", t0 + 2 + 2 * VOTE_SCORE, 2, 2),
    ];
    for (i, (id, score, rank, votes)) in expected.into_iter().enumerate() {
        let a = site.article(id, None).run(&mut con).unwrap();
        assert_eq!(a.id, id);
        assert_eq!(a.title, format!("T{i}"));
        assert_eq!(a.link, "http://l");
        assert_eq!(a.poster, format!("poster{i}"));
        assert_eq!(a.time, t0 + i as i64);
        assert_eq!(a.votes, votes);
        assert_eq!(a.downvotes, 0);
        assert_eq!(a.score, Some(score as f64));
        assert_eq!(a.rank, Some(rank));
        assert_eq!(a.user_vote, None);
        assert!(a.extra.is_empty());
        let by_member = site
            .article(format!("article:{id}"), None)
            .run(&mut con)
            .unwrap();
        assert_eq!(by_member, a);
    }
    let a = site.article("1", Some("u1")).run(&mut con).unwrap();
    assert_eq!(a.user_vote, Some(Vote::Up));
    let a = site.article("2", Some("u1")).run(&mut con).unwrap();
    assert_eq!(a.user_vote, Some(Vote::None));
    let a = site
        .article("3", Some("never-voted"))
        .run(&mut con)
        .unwrap();
    assert_eq!(a.user_vote, Some(Vote::None));
    let a = site.article("2", Some("poster1")).run(&mut con).unwrap();
    assert_eq!(a.user_vote, Some(Vote::Up));

    let detail = refused(site.article("4", None).run(&mut con), Code::UnknownArticle);
    assert_eq!(detail, "article 4 does not exist");
    refused(
        site.article("article:40", Some("u1")).run(&mut con),
        Code::UnknownArticle,
    );
}

#[test]
fn pages_split_order_and_follow_the_page_size_setting() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();
    let t0 = support::server_time(&mut con) - 10_000;

    // Article i (1..=30) published at t0 + i with i % 3 extra votes.
    let mut model = Vec::new();
    for i in 1..=30u64 {
        let time = t0 + i as i64;
        let id = site
            .import(
                &format!("poster{i}"),
                &format!("Title {i}"),
                &format!("http://x/{i}"),
                time as u64,
            )
            .run(&mut con)
            .unwrap();
        assert_eq!(id, i);
        let extra = (i % 3) as i64;
        for v in 0..extra {
            site.vote(&format!("voter{v}"), id.to_string())
                .run(&mut con)
                .unwrap();
        }
        model.push((id, time, 1 + extra));
    }
    let score_of = |&(_, time, votes): &(u64, i64, i64)| time + VOTE_SCORE * votes;
    let mut by_score = model.clone();
    by_score.sort_by_key(|a| std::cmp::Reverse(score_of(a)));
    let by_score: Vec<u64> = by_score.iter().map(|a| a.0).collect();
    let by_time: Vec<u64> = (1..=30).rev().collect();
    assert_ne!(by_score, by_time);

    // Scores only when asked for (a third of the page's cost to Redis).
    let p1 = site.page(Order::Score, 1, None).with_scores();
    let p1 = p1.run(&mut con).unwrap();
    let p2 = site.page(Order::Score, 2, None).with_scores();
    let p2 = p2.run(&mut con).unwrap();
    let p3 = site.page(Order::Score, 3, None).run(&mut con).unwrap();
    for (n, p) in [(1, &p1), (2, &p2), (3, &p3)] {
        assert_eq!(
            (p.order, p.page, p.per_page, p.total),
            (Order::Score, n, 25, 30)
        );
        assert_eq!(p.group, None);
    }
    assert_eq!(ids(&p1), id_strings(&by_score[..25]));
    assert_eq!(ids(&p2), id_strings(&by_score[25..]));
    assert!(p3.articles.is_empty());

    // Every field of every article, exactly.
    for a in p1.articles.iter().chain(&p2.articles) {
        let i: u64 = a.id.parse().unwrap();
        let (_, time, votes) = model[i as usize - 1];
        assert_eq!(a.title, format!("Title {i}"));
        assert_eq!(a.link, format!("http://x/{i}"));
        assert_eq!(a.poster, format!("poster{i}"));
        assert_eq!(a.time, time);
        assert_eq!(a.votes, votes);
        assert_eq!(a.downvotes, 0);
        assert_eq!(a.score, Some((time + VOTE_SCORE * votes) as f64));
        assert_eq!((a.rank, a.user_vote), (None, None));
    }

    let t1 = site.page(Order::Time, 1, None).with_scores();
    let t1 = t1.run(&mut con).unwrap();
    let t2 = site.page(Order::Time, 2, None).run(&mut con).unwrap();
    assert_eq!(ids(&t1), id_strings(&by_time[..25]));
    assert_eq!(ids(&t2), id_strings(&by_time[25..]));
    // The page's score field is the article's score: value in every order.
    assert_eq!(t1.articles[0].score, Some((t0 + 30 + VOTE_SCORE) as f64));
    // Without scores, the same articles field for field, scores None.
    let plain = site.page(Order::Time, 1, None).run(&mut con).unwrap();
    let unscored: Vec<_> = t1
        .articles
        .iter()
        .map(|a| redvote::Article {
            score: None,
            ..a.clone()
        })
        .collect();
    assert_eq!(plain.articles, unscored);

    let all = site.page(Order::Score, 1, Some(100)).run(&mut con).unwrap();
    assert_eq!((all.per_page, all.total), (100, 30));
    assert_eq!(ids(&all), id_strings(&by_score));
    let tens = site.page(Order::Score, 3, Some(10)).run(&mut con).unwrap();
    assert_eq!((tens.per_page, tens.total), (10, 30));
    assert_eq!(ids(&tens), id_strings(&by_score[20..30]));
    let beyond = site.page(Order::Time, 4, Some(10)).run(&mut con).unwrap();
    assert!(beyond.articles.is_empty());

    // page_size changes the default for everyone.
    let config = site
        .configure(&ConfigUpdate {
            page_size: Some(10),
            ..Default::default()
        })
        .run(&mut con)
        .unwrap();
    assert_eq!(config.page_size, 10);
    let p = site.page(Order::Time, 3, None).run(&mut con).unwrap();
    assert_eq!((p.per_page, p.total), (10, 30));
    assert_eq!(ids(&p), id_strings(&by_time[20..30]));
    let p = site.page(Order::Time, 4, None).run(&mut con).unwrap();
    assert!(p.articles.is_empty());
    // An explicit per_page still wins.
    let p = site.page(Order::Score, 1, Some(25)).run(&mut con).unwrap();
    assert_eq!(ids(&p), id_strings(&by_score[..25]));

    // An empty site has an empty page.
    let other = Site::new("empty:");
    let p = other.page(Order::Score, 1, None).run(&mut con).unwrap();
    assert_eq!((p.total, p.per_page, p.articles.len()), (0, 25, 0));
}

/// A page is two round trips (page.lua names the members, one MULTI/EXEC
/// reads their hashes): the parts work on their own, a wrong-type article
/// is refused as INVALID_CONFIG, extra hash fields are kept, and a member
/// that is not one redvote writes (a space in it) fails the page rather
/// than naming the wrong articles.
#[test]
fn pages_read_hashes_in_a_second_round_trip() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();
    for i in 1..=3 {
        site.post(&format!("p{i}"), "T", "http://t")
            .run(&mut con)
            .unwrap();
    }
    let _: () = redis::cmd("HSET")
        .arg("article:2")
        .arg("flair")
        .arg("new")
        .query(&mut con)
        .unwrap();

    let page = site.page(Order::Time, 1, Some(2));
    let first = page.ids().run(&mut con).unwrap();
    assert_eq!(first.members, ["article:3", "article:2"]);
    assert_eq!((first.total, first.per_page, first.built), (3, 2, false));
    let read = page.finish(&mut con, first).unwrap();
    assert_eq!(read, page.run(&mut con).unwrap());
    assert_eq!(ids(&read), ["3", "2"]);
    assert_eq!(
        read.articles[1].extra.get("flair").map(String::as_str),
        Some("new")
    );
    assert!(read.articles.iter().all(|a| a.score.is_none()));

    // Past the end: no second round trip, no articles.
    let beyond = site.page(Order::Time, 3, Some(2)).run(&mut con).unwrap();
    assert_eq!((beyond.total, beyond.articles.len()), (3, 0));

    // A wrong-type article hash: refused in the second round trip.
    support::del(&mut con, "article:3");
    let _: () = redis::cmd("SET")
        .arg("article:3")
        .arg("x")
        .query(&mut con)
        .unwrap();
    let detail = refused(
        site.page(Order::Time, 1, None).run(&mut con),
        Code::InvalidConfig,
    );
    assert!(detail.contains("WRONGTYPE"), "{detail}");

    // A member with a space cannot be told apart from two: an error.
    let _: () = redis::cmd("ZADD")
        .arg("time:")
        .arg("99999999999")
        .arg("article:1 article:2")
        .query(&mut con)
        .unwrap();
    match site.page(Order::Time, 1, None).run(&mut con) {
        Err(redvote::Error::Reply { script, reason }) => {
            assert_eq!(script, "page");
            assert!(reason.contains("space"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}
