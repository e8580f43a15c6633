//! Every `Site` operation against a real redis-server: the keys each script
//! writes (exactly the seeds' layout), the vote arithmetic, the voting
//! window, pages and group pages, rankings, settings, prefixes, NOSCRIPT
//! recovery and the error model.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use redis::Connection;
use redvote::{
    Code, Config, ConfigUpdate, Error, GroupChange, Order, Ranking, Site, Vote, VoteOutcome,
};

const WEEK: i64 = 604800;
const VOTE_SCORE: i64 = 432;

// ---- small helpers ---------------------------------------------------------

fn hgetall(con: &mut Connection, key: &str) -> BTreeMap<String, String> {
    redis::cmd("HGETALL").arg(key).query(con).unwrap()
}

fn hget(con: &mut Connection, key: &str, field: &str) -> Option<String> {
    redis::cmd("HGET").arg(key).arg(field).query(con).unwrap()
}

fn zscore(con: &mut Connection, key: &str, member: &str) -> Option<f64> {
    redis::cmd("ZSCORE")
        .arg(key)
        .arg(member)
        .query(con)
        .unwrap()
}

fn zrevrange(con: &mut Connection, key: &str) -> Vec<String> {
    redis::cmd("ZREVRANGE")
        .arg(key)
        .arg(0)
        .arg(-1)
        .query(con)
        .unwrap()
}

fn smembers(con: &mut Connection, key: &str) -> BTreeSet<String> {
    redis::cmd("SMEMBERS").arg(key).query(con).unwrap()
}

fn exists(con: &mut Connection, key: &str) -> bool {
    redis::cmd("EXISTS").arg(key).query::<i64>(con).unwrap() == 1
}

fn ttl(con: &mut Connection, key: &str) -> i64 {
    redis::cmd("TTL").arg(key).query(con).unwrap()
}

/// `EXPIRETIME` (Redis 7): the absolute Unix second a key expires at.
fn expiretime(con: &mut Connection, key: &str) -> i64 {
    redis::cmd("EXPIRETIME").arg(key).query(con).unwrap()
}

fn keys(con: &mut Connection) -> BTreeSet<String> {
    redis::cmd("KEYS").arg("*").query(con).unwrap()
}

fn del(con: &mut Connection, key: &str) {
    redis::cmd("DEL").arg(key).query::<i64>(con).unwrap();
}

fn set<const N: usize>(items: [&str; N]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn ids(page: &redvote::Page) -> Vec<String> {
    page.articles.iter().map(|a| a.id.clone()).collect()
}

fn id_strings(ids: &[u64]) -> Vec<String> {
    ids.iter().map(u64::to_string).collect()
}

/// The refusal code and detail of a call that must fail.
#[track_caller]
fn refused<T: std::fmt::Debug>(result: redvote::Result<T>, want: Code) -> String {
    match result {
        Err(Error::Script { code, detail }) => {
            assert_eq!(code, want, "wrong code (detail: {detail})");
            detail
        }
        other => panic!("expected a {want} refusal, got {other:?}"),
    }
}

/// The publish time the server stored for an article.
fn stored_time(con: &mut Connection, site: &Site, id: u64) -> i64 {
    let raw = hget(con, &format!("{}article:{id}", site.prefix()), "time").unwrap();
    raw.parse().unwrap()
}

// ---- post ------------------------------------------------------------------

#[test]
fn post_allocates_ids_and_writes_the_seed_layout() {
    let server = common::server();
    let mut con = common::con(&server);
    let site = Site::default();

    let before = common::server_time(&mut con);
    let posted: Vec<u64> = ["alice", "bob", "carol"]
        .iter()
        .enumerate()
        .map(|(i, user)| {
            site.post(user, &format!("Title {i}"), &format!("http://x/{i}"))
                .run(&mut con)
                .unwrap()
        })
        .collect();
    let after = common::server_time(&mut con);
    assert_eq!(posted, vec![1, 2, 3]);
    let counter: String = redis::cmd("GET").arg("article:").query(&mut con).unwrap();
    assert_eq!(counter, "3");

    for (i, (id, user)) in posted.iter().zip(["alice", "bob", "carol"]).enumerate() {
        let key = format!("article:{id}");
        let hash = hgetall(&mut con, &key);
        let time: i64 = hash["time"].parse().unwrap();
        assert!(
            (before..=after).contains(&time),
            "time {time} not server time"
        );
        let want: BTreeMap<String, String> = [
            ("title", format!("Title {i}")),
            ("link", format!("http://x/{i}")),
            ("poster", user.to_string()),
            ("time", time.to_string()),
            ("votes", "1".to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        assert_eq!(hash, want);
        assert_eq!(zscore(&mut con, "time:", &key), Some(time as f64));
        assert_eq!(
            zscore(&mut con, "score:", &key),
            Some((time + VOTE_SCORE) as f64)
        );
        let voted = format!("voted:{id}");
        assert_eq!(smembers(&mut con, &voted), set([user]));
        assert_eq!(expiretime(&mut con, &voted), time + WEEK);
        let left = ttl(&mut con, &voted);
        assert!(left > WEEK - 60 && left <= WEEK, "voted TTL {left}");
    }
    // Members carry no prefix, exactly "article:ID"; nothing else was written.
    let mut time_members = zrevrange(&mut con, "time:");
    time_members.sort();
    assert_eq!(time_members, vec!["article:1", "article:2", "article:3"]);
    let mut score_members = zrevrange(&mut con, "score:");
    score_members.sort();
    assert_eq!(score_members, time_members);
    assert_eq!(
        keys(&mut con),
        set([
            "article:",
            "article:1",
            "article:2",
            "article:3",
            "time:",
            "score:",
            "voted:1",
            "voted:2",
            "voted:3"
        ])
    );
}

/// An imported article is byte for byte what the seeds' `post_article`
/// writes at the same time (the seeds run on a second server).
#[test]
fn import_writes_what_the_seeds_write() {
    let ours = common::server();
    let seeds = common::server();
    let mut con = common::con(&ours);
    let mut seed_con = common::con(&seeds);
    let t = common::server_time(&mut con) - 3600;

    let id = Site::default()
        .import(
            "user:83271",
            "Go to statement considered harmful",
            "http://goo.gl/kZUSu",
            t as u64,
        )
        .run(&mut con)
        .unwrap();
    let seed_id = redvote::seed::post_article(
        &mut seed_con,
        "user:83271",
        "Go to statement considered harmful",
        "http://goo.gl/kZUSu",
        t as f64,
    )
    .unwrap();
    assert_eq!(id.to_string(), seed_id);

    assert_eq!(keys(&mut con), keys(&mut seed_con));
    assert_eq!(
        hgetall(&mut con, "article:1"),
        hgetall(&mut seed_con, "article:1")
    );
    for zset in ["time:", "score:"] {
        let a: Vec<(String, f64)> = redis::cmd("ZRANGE")
            .arg(zset)
            .arg(0)
            .arg(-1)
            .arg("WITHSCORES")
            .query(&mut con)
            .unwrap();
        let b: Vec<(String, f64)> = redis::cmd("ZRANGE")
            .arg(zset)
            .arg(0)
            .arg(-1)
            .arg("WITHSCORES")
            .query(&mut seed_con)
            .unwrap();
        assert_eq!(a, b, "{zset}");
    }
    assert_eq!(
        smembers(&mut con, "voted:1"),
        smembers(&mut seed_con, "voted:1")
    );
    // Ours closes a week after the publish time, not a week after the call.
    assert_eq!(expiretime(&mut con, "voted:1"), t + WEEK);
}

// ---- vote ------------------------------------------------------------------

#[test]
fn vote_counts_once_and_a_repeat_changes_nothing() {
    let server = common::server();
    let mut con = common::con(&server);
    let site = Site::default();
    let id = site.post("alice", "A", "http://a").run(&mut con).unwrap();
    let t = stored_time(&mut con, &site, id);

    let first = site.vote("bob", "1").run(&mut con).unwrap();
    assert_eq!(
        first,
        VoteOutcome {
            changed: true,
            previous: Vote::None,
            vote: Vote::Up,
            score: Some((t + 2 * VOTE_SCORE) as f64),
            votes: 2,
            downvotes: 0,
        }
    );
    let digest = common::digest(&mut con);

    // The same vote again, by "N" or "article:N": nothing is written.
    for reference in ["1", "article:1"] {
        let again = site.vote("bob", reference).run(&mut con).unwrap();
        assert_eq!(
            again,
            VoteOutcome {
                changed: false,
                previous: Vote::Up,
                ..first
            }
        );
        assert_eq!(common::digest(&mut con), digest);
    }
    // The poster's own vote is already counted.
    let own = site.vote("alice", "article:1").run(&mut con).unwrap();
    assert!(!own.changed);
    assert_eq!(own.votes, 2);
    assert_eq!(common::digest(&mut con), digest);

    // A third user by "article:1" counts.
    let third = site.vote("carol", "article:1").run(&mut con).unwrap();
    assert!(third.changed);
    assert_eq!(third.votes, 3);
    assert_eq!(third.score, Some((t + 3 * VOTE_SCORE) as f64));

    assert_eq!(hget(&mut con, "article:1", "votes").as_deref(), Some("3"));
    assert_eq!(
        zscore(&mut con, "score:", "article:1"),
        Some((t + 3 * VOTE_SCORE) as f64)
    );
    assert_eq!(
        smembers(&mut con, "voted:1"),
        set(["alice", "bob", "carol"])
    );

    // Unknown articles are refused and nothing is written.
    let digest = common::digest(&mut con);
    for reference in ["2", "article:9"] {
        let detail = refused(
            site.vote("bob", reference).run(&mut con),
            Code::UnknownArticle,
        );
        assert!(detail.contains("article:"), "{detail}");
        refused(
            site.downvote("bob", reference).run(&mut con),
            Code::UnknownArticle,
        );
    }
    assert_eq!(common::digest(&mut con), digest);
}

#[test]
fn voting_closes_a_week_after_the_publish_time() {
    let server = common::server();
    let mut con = common::con(&server);
    let site = Site::default();
    let now = common::server_time(&mut con);

    let closed_at = now - WEEK - 10;
    let old = site
        .import("alice", "Old", "http://old", closed_at as u64)
        .run(&mut con)
        .unwrap();
    let open_at = now - WEEK + 100;
    let recent = site
        .import("alice", "Recent", "http://recent", open_at as u64)
        .run(&mut con)
        .unwrap();

    let digest = common::digest(&mut con);
    let detail = refused(
        site.vote("bob", &old.to_string()).run(&mut con),
        Code::VotingClosed,
    );
    assert_eq!(
        detail,
        format!("article:{old} closed at {}", closed_at + WEEK)
    );
    refused(
        site.downvote("bob", &old.to_string()).run(&mut con),
        Code::VotingClosed,
    );
    refused(
        site.unvote("alice", &old.to_string()).run(&mut con),
        Code::VotingClosed,
    );
    assert_eq!(common::digest(&mut con), digest);
    assert_eq!(
        zscore(&mut con, "score:", &format!("article:{old}")),
        Some((closed_at + VOTE_SCORE) as f64)
    );

    let outcome = site.vote("bob", &recent.to_string()).run(&mut con).unwrap();
    assert!(outcome.changed);
    assert_eq!(outcome.votes, 2);
    assert_eq!(outcome.score, Some((open_at + 2 * VOTE_SCORE) as f64));
    assert_eq!(
        expiretime(&mut con, &format!("voted:{recent}")),
        open_at + WEEK
    );
}

/// none -> up -> down -> none -> down -> up, checking the whole state after
/// each step.
#[test]
fn switching_between_up_down_and_none_keeps_the_score_exact() {
    let server = common::server();
    let mut con = common::con(&server);
    let site = Site::default();
    let id = site.post("alice", "A", "http://a").run(&mut con).unwrap();
    let t = stored_time(&mut con, &site, id);

    let article = site.article("1", Some("bob")).run(&mut con).unwrap();
    assert_eq!(article.user_vote, Some(Vote::None));

    // (vote, votes, downvotes) after each step
    let steps = [
        (Vote::Up, 2, 0),
        (Vote::Down, 1, 1),
        (Vote::None, 1, 0),
        (Vote::Down, 1, 1),
        (Vote::Up, 2, 0),
    ];
    let mut previous = Vote::None;
    for (vote, votes, downvotes) in steps {
        let score = (t + VOTE_SCORE * (votes - downvotes)) as f64;
        let outcome = site.set_vote("bob", "1", vote).run(&mut con).unwrap();
        assert_eq!(
            outcome,
            VoteOutcome {
                changed: true,
                previous,
                vote,
                score: Some(score),
                votes,
                downvotes,
            },
            "step to {vote}"
        );
        previous = vote;

        assert_eq!(
            hget(&mut con, "article:1", "votes"),
            Some(votes.to_string())
        );
        let stored_down = hget(&mut con, "article:1", "downvotes").unwrap_or_default();
        assert_eq!(stored_down.parse::<i64>().unwrap_or(0), downvotes);
        assert_eq!(zscore(&mut con, "score:", "article:1"), Some(score));

        let up_set = smembers(&mut con, "voted:1");
        let down_set = smembers(&mut con, "downvoted:1");
        assert_eq!(
            up_set.contains("bob"),
            vote == Vote::Up,
            "voted:1 {up_set:?}"
        );
        assert_eq!(
            down_set.contains("bob"),
            vote == Vote::Down,
            "downvoted:1 {down_set:?}"
        );
        assert!(up_set.contains("alice"));
        if vote == Vote::Down {
            assert_eq!(expiretime(&mut con, "downvoted:1"), t + WEEK);
        }

        let article = site
            .article("article:1", Some("bob"))
            .run(&mut con)
            .unwrap();
        assert_eq!(article.user_vote, Some(vote));
        assert_eq!((article.votes, article.downvotes), (votes, downvotes));
        assert_eq!(article.score, Some(score));
    }

    // A repeated downvote is a no-op too.
    site.downvote("bob", "1").run(&mut con).unwrap();
    let digest = common::digest(&mut con);
    let again = site.downvote("bob", "1").run(&mut con).unwrap();
    assert!(!again.changed);
    assert_eq!((again.previous, again.vote), (Vote::Down, Vote::Down));
    assert_eq!(common::digest(&mut con), digest);

    // The poster can retract their own vote: votes goes to 0.
    let own = site.post("carol", "C", "http://c").run(&mut con).unwrap();
    let t2 = stored_time(&mut con, &site, own);
    let outcome = site
        .unvote("carol", &own.to_string())
        .run(&mut con)
        .unwrap();
    assert_eq!(
        outcome,
        VoteOutcome {
            changed: true,
            previous: Vote::Up,
            vote: Vote::None,
            score: Some(t2 as f64),
            votes: 0,
            downvotes: 0,
        }
    );
    assert_eq!(hget(&mut con, "article:2", "votes").as_deref(), Some("0"));
    assert!(!exists(&mut con, "voted:2"));
    let article = site.article("2", Some("carol")).run(&mut con).unwrap();
    assert_eq!(article.user_vote, Some(Vote::None));
    assert_eq!(article.votes, 0);
}

// ---- article ---------------------------------------------------------------

#[test]
fn article_reports_score_rank_and_the_users_vote() {
    let server = common::server();
    let mut con = common::con(&server);
    let site = Site::default();
    let t0 = common::server_time(&mut con) - 1000;
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
            .article(&format!("article:{id}"), None)
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
    assert!(detail.contains("article:4"), "{detail}");
    refused(
        site.article("article:40", Some("u1")).run(&mut con),
        Code::UnknownArticle,
    );
}

// ---- page ------------------------------------------------------------------

#[test]
fn pages_split_order_and_follow_the_page_size_setting() {
    let server = common::server();
    let mut con = common::con(&server);
    let site = Site::default();
    let t0 = common::server_time(&mut con) - 10_000;

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
            site.vote(&format!("voter{v}"), &id.to_string())
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

    let p1 = site.page(Order::Score, 1, None).run(&mut con).unwrap();
    let p2 = site.page(Order::Score, 2, None).run(&mut con).unwrap();
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

    let t1 = site.page(Order::Time, 1, None).run(&mut con).unwrap();
    let t2 = site.page(Order::Time, 2, None).run(&mut con).unwrap();
    assert_eq!(ids(&t1), id_strings(&by_time[..25]));
    assert_eq!(ids(&t2), id_strings(&by_time[25..]));
    // The page's score field is the article's score: value in every order.
    assert_eq!(t1.articles[0].score, Some((t0 + 30 + VOTE_SCORE) as f64));

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

// ---- groups and group pages ------------------------------------------------

#[test]
fn groups_add_and_remove_in_one_call() {
    let server = common::server();
    let mut con = common::con(&server);
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
    let digest = common::digest(&mut con);
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
    assert_eq!(common::digest(&mut con), digest);
}

#[test]
fn group_pages_are_ordered_and_cached_for_60_seconds() {
    let server = common::server();
    let mut con = common::con(&server);
    let site = Site::default();
    let t0 = common::server_time(&mut con) - 1000;
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

// ---- rankings --------------------------------------------------------------

const Z: f64 = 1.281551565545;

fn hot(up: i64, down: i64, time: i64) -> f64 {
    let s = up - down;
    let sign = s.signum() as f64;
    sign * (s.abs().max(1) as f64).log10() + (time - 1134028003) as f64 / 45000.0
}

fn best(up: i64, down: i64) -> f64 {
    let n = (up + down) as f64;
    if n <= 0.0 {
        return 0.0;
    }
    let p = up as f64 / n;
    (p + Z * Z / (2.0 * n) - Z * ((p * (1.0 - p) + Z * Z / (4.0 * n)) / n).sqrt())
        / (1.0 + Z * Z / n)
}

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
    let server = common::server();
    let mut con = common::con(&server);
    let site = Site::default();
    let now = common::server_time(&mut con);

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
            let a = site.article(&id.to_string(), None).run(con).unwrap();
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
        site.set_vote(user, &id.to_string(), vote)
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
            let a = site.article(&id.to_string(), None).run(&mut con).unwrap();
            (a.votes, a.downvotes)
        })
        .collect();
    assert_eq!(counts, [(2, 0), (4, 1), (1, 3), (0, 0)]);
    assert_eq!(zscore(&mut con, "best:", "article:4"), Some(0.0));

    // Pages in hot and best order follow the formulas' order.
    for order in [Order::Hot, Order::Best] {
        let mut model: Vec<(u64, f64)> = (1..=4u64)
            .map(|id| {
                let a = site.article(&id.to_string(), None).run(&mut con).unwrap();
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
        site.groups(&want[0].to_string(), &["g"], &[])
            .run(&mut con)
            .unwrap();
        site.groups(&want[3].to_string(), &["g"], &[])
            .run(&mut con)
            .unwrap();
        let group = site.group_page("g", order, 1, None).run(&mut con).unwrap();
        assert_eq!(
            ids(&group),
            id_strings(&[want[0], want[3]]),
            "group {order}"
        );
        site.groups(&want[0].to_string(), &[], &["g"])
            .run(&mut con)
            .unwrap();
        site.groups(&want[3].to_string(), &[], &["g"])
            .run(&mut con)
            .unwrap();
    }
}

// ---- settings --------------------------------------------------------------

#[test]
fn settings_defaults_validation_and_the_vote_score_lock() {
    let server = common::server();
    let mut con = common::con(&server);
    let site = Site::default();

    let defaults = Config {
        vote_score: 432,
        window: 604800,
        page_size: 25,
        rankings: vec![],
    };
    assert_eq!(site.config().run(&mut con).unwrap(), defaults);
    assert_eq!(
        common::digest(&mut con),
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
    assert_eq!(common::digest(&mut con), "0".repeat(40));
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
    assert_eq!(expiretime(&mut con, "voted:1"), t + 3600);
    let outcome = site.downvote("bob", "1").run(&mut con).unwrap();
    assert_eq!(outcome.score, Some(t as f64));
    let outcome = site.vote("carol", "1").run(&mut con).unwrap();
    assert_eq!(outcome.score, Some((t + 100) as f64));

    // Once an article exists it is locked (the same value is still fine).
    let digest = common::digest(&mut con);
    let detail = refused(
        site.configure(&ConfigUpdate {
            vote_score: Some(432),
            ..Default::default()
        })
        .run(&mut con),
        Code::ConfigLocked,
    );
    assert!(detail.contains("vote_score"), "{detail}");
    assert_eq!(common::digest(&mut con), digest);
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
fn the_window_setting_moves_the_cutoff_of_new_votes() {
    let server = common::server();
    let mut con = common::con(&server);
    let site = Site::default();
    let t = common::server_time(&mut con) - 1000;
    site.import("alice", "A", "http://a", t as u64)
        .run(&mut con)
        .unwrap();

    let short = ConfigUpdate {
        window: Some(600),
        ..Default::default()
    };
    site.configure(&short).run(&mut con).unwrap();
    let digest = common::digest(&mut con);
    let detail = refused(site.vote("bob", "1").run(&mut con), Code::VotingClosed);
    assert_eq!(detail, format!("article:1 closed at {}", t + 600));
    assert_eq!(common::digest(&mut con), digest);

    let long = ConfigUpdate {
        window: Some(2000),
        ..Default::default()
    };
    site.configure(&long).run(&mut con).unwrap();
    let outcome = site.downvote("bob", "1").run(&mut con).unwrap();
    assert!(outcome.changed);
    assert_eq!(outcome.score, Some(t as f64));
    assert_eq!(expiretime(&mut con, "downvoted:1"), t + 2000);
}

// ---- prefixes ----------------------------------------------------------------

#[test]
fn a_prefixed_site_keeps_to_its_own_keys() {
    let server = common::server();
    let mut con = common::con(&server);
    let s1 = Site::new("{s1}:");
    assert_eq!(s1.root_key(), "{s1}:article:");

    s1.configure(&ConfigUpdate {
        rankings: Some(vec![Ranking::Hot, Ranking::Best]),
        ..Default::default()
    })
    .run(&mut con)
    .unwrap();
    assert_eq!(s1.post("alice", "A", "http://a").run(&mut con).unwrap(), 1);
    assert_eq!(s1.post("bob", "B", "http://b").run(&mut con).unwrap(), 2);
    s1.vote("carol", "1").run(&mut con).unwrap();
    s1.downvote("dave", "article:2").run(&mut con).unwrap();
    s1.groups("1", &["g"], &[]).run(&mut con).unwrap();
    s1.group_page("g", Order::Score, 1, None)
        .run(&mut con)
        .unwrap();
    s1.group_page("g", Order::Hot, 1, None)
        .run(&mut con)
        .unwrap();

    assert_eq!(
        keys(&mut con),
        set([
            "{s1}:redvote:config",
            "{s1}:article:",
            "{s1}:article:1",
            "{s1}:article:2",
            "{s1}:time:",
            "{s1}:score:",
            "{s1}:hot:",
            "{s1}:best:",
            "{s1}:voted:1",
            "{s1}:voted:2",
            "{s1}:downvoted:2",
            "{s1}:group:g",
            "{s1}:score:g",
            "{s1}:hot:g",
        ])
    );
    // Members stay "article:ID", without the prefix.
    let mut members = zrevrange(&mut con, "{s1}:score:");
    members.sort();
    assert_eq!(members, ["article:1", "article:2"]);
    assert_eq!(smembers(&mut con, "{s1}:group:g"), set(["article:1"]));

    // The unprefixed site sees none of it, and the other way round.
    let plain = Site::default();
    assert_eq!(plain.config().run(&mut con).unwrap().rankings, vec![]);
    refused(plain.article("1", None).run(&mut con), Code::UnknownArticle);
    refused(plain.vote("carol", "1").run(&mut con), Code::UnknownArticle);
    assert_eq!(
        plain
            .page(Order::Score, 1, None)
            .run(&mut con)
            .unwrap()
            .total,
        0
    );
    assert_eq!(
        plain.post("erin", "E", "http://e").run(&mut con).unwrap(),
        1
    );
    assert_eq!(
        plain
            .page(Order::Score, 1, None)
            .run(&mut con)
            .unwrap()
            .total,
        1
    );
    assert_eq!(
        s1.page(Order::Score, 1, None).run(&mut con).unwrap().total,
        2
    );
    assert_eq!(s1.article("1", None).run(&mut con).unwrap().poster, "alice");
    assert_eq!(
        plain.article("1", None).run(&mut con).unwrap().poster,
        "erin"
    );
    // s1's rankings setting is s1's alone.
    assert!(!exists(&mut con, "hot:"));
}

// ---- transport ---------------------------------------------------------------

fn script_exists(con: &mut Connection, sha: &str) -> bool {
    let found: Vec<i64> = redis::cmd("SCRIPT")
        .arg("EXISTS")
        .arg(sha)
        .query(con)
        .unwrap();
    found == [1]
}

#[test]
fn calls_survive_a_script_flush() {
    let server = common::server();
    let mut con = common::con(&server);
    let site = Site::default();
    let post = site.post("alice", "A", "http://a");
    let vote = site.vote("bob", "1");
    let sha = vote.script().sha1().to_string();

    post.run(&mut con).unwrap();
    vote.run(&mut con).unwrap();
    assert!(script_exists(&mut con, &sha));
    redis::cmd("SCRIPT")
        .arg("FLUSH")
        .query::<()>(&mut con)
        .unwrap();
    assert!(!script_exists(&mut con, &sha));
    let outcome = site.vote("carol", "1").run(&mut con).unwrap();
    assert!(outcome.changed);
    assert_eq!(outcome.votes, 3);
    assert!(script_exists(&mut con, &sha));
}

#[tokio::test]
async fn async_calls_survive_a_script_flush() {
    let server = common::server();
    let mut con = common::con(&server);
    let mut acon = common::con_async(&server).await;
    let site = Site::default();
    let sha = site.vote("x", "1").script().sha1().to_string();

    site.post("alice", "A", "http://a")
        .run_async(&mut acon)
        .await
        .unwrap();
    site.vote("bob", "1").run_async(&mut acon).await.unwrap();
    assert!(script_exists(&mut con, &sha));
    redis::cmd("SCRIPT")
        .arg("FLUSH")
        .query_async::<()>(&mut acon)
        .await
        .unwrap();
    assert!(!script_exists(&mut con, &sha));
    let outcome = site.vote("carol", "1").run_async(&mut acon).await.unwrap();
    assert_eq!((outcome.changed, outcome.votes), (true, 3));
    assert!(script_exists(&mut con, &sha));
}

#[test]
fn a_stopped_server_is_a_redis_error() {
    let server = common::server();
    let mut con = common::con(&server);
    let client = server.client();
    let site = Site::default();
    site.post("alice", "A", "http://a").run(&mut con).unwrap();
    drop(server);

    match site.vote("bob", "1").run(&mut con) {
        Err(Error::Redis(_)) => {}
        other => panic!("open connection: expected Error::Redis, got {other:?}"),
    }
    let mut fresh = client.clone();
    match site.post("alice", "B", "http://b").run(&mut fresh) {
        Err(Error::Redis(e)) => assert_eq!(e.code(), None, "{e}"),
        other => panic!("fresh client: expected Error::Redis, got {other:?}"),
    }
}

// ---- errors ------------------------------------------------------------------

#[test]
fn refusals_arrive_as_script_errors_naming_the_value() {
    let server = common::server();
    let mut con = common::con(&server);
    let site = Site::default();
    site.post("alice", "A", "http://a").run(&mut con).unwrap();
    let digest = common::digest(&mut con);

    let err = site.vote("bob", "1:x").run(&mut con).unwrap_err();
    assert_eq!(err.code(), Some(Code::InvalidId));
    let Error::Script { code, detail } = &err else {
        panic!("expected Error::Script, got {err:?}");
    };
    assert_eq!(*code, Code::InvalidId);
    assert!(detail.contains("\"1:x\""), "{detail}");
    assert_eq!(err.to_string(), format!("REDVOTE_INVALID_ID {detail}"));

    for bad in [
        "{a}",
        "0",
        "article:",
        "article:01",
        "-1",
        "article:1:2",
        "",
    ] {
        let detail = refused(site.vote("bob", bad).run(&mut con), Code::InvalidId);
        assert!(detail.contains(&format!("\"{bad}\"")), "{detail}");
        refused(site.article(bad, None).run(&mut con), Code::InvalidId);
    }
    refused(site.vote("", "1").run(&mut con), Code::InvalidUser);
    refused(site.vote("a\nb", "1").run(&mut con), Code::InvalidUser);
    refused(site.article("1", Some("")).run(&mut con), Code::InvalidUser);
    refused(
        site.post("", "T", "http://l").run(&mut con),
        Code::InvalidUser,
    );
    refused(
        site.post("u", "", "http://l").run(&mut con),
        Code::InvalidText,
    );
    refused(
        site.post("u", "T", "http://l x").run(&mut con),
        Code::InvalidText,
    );
    let detail = refused(
        site.import("u", "T", "http://l", 10u64.pow(13))
            .run(&mut con),
        Code::InvalidNumber,
    );
    assert!(detail.contains("10000000000000"), "{detail}");
    let detail = refused(
        site.page(Order::Score, 0, None).run(&mut con),
        Code::InvalidNumber,
    );
    assert!(detail.contains("\"0\""), "{detail}");
    let detail = refused(
        site.page(Order::Time, 1, Some(101)).run(&mut con),
        Code::InvalidNumber,
    );
    assert!(detail.contains("\"101\""), "{detail}");
    refused(
        site.group_page("g", Order::Score, 1, Some(0)).run(&mut con),
        Code::InvalidNumber,
    );
    assert_eq!(common::digest(&mut con), digest);
}

// ---- async API -----------------------------------------------------------------

#[tokio::test]
async fn the_async_api_gives_the_sync_results() {
    let server = common::server();
    let mut con = common::con(&server);
    let mut acon = common::con_async(&server).await;
    let site = Site::default();

    assert_eq!(
        site.post("alice", "A", "http://a")
            .run_async(&mut acon)
            .await
            .unwrap(),
        1
    );
    assert_eq!(site.post("bob", "B", "http://b").run(&mut con).unwrap(), 2);
    let t = stored_time(&mut con, &site, 1);
    let outcome = site.vote("carol", "1").run_async(&mut acon).await.unwrap();
    assert_eq!(
        outcome,
        VoteOutcome {
            changed: true,
            previous: Vote::None,
            vote: Vote::Up,
            score: Some((t + 2 * VOTE_SCORE) as f64),
            votes: 2,
            downvotes: 0,
        }
    );
    site.downvote("carol", "2")
        .run_async(&mut acon)
        .await
        .unwrap();
    site.groups("1", &["g"], &[])
        .run_async(&mut acon)
        .await
        .unwrap();

    let article = site.article("1", Some("carol"));
    assert_eq!(
        article.run_async(&mut acon).await.unwrap(),
        article.run(&mut con).unwrap()
    );
    let page = site.page(Order::Score, 1, None);
    let got = page.run_async(&mut acon).await.unwrap();
    assert_eq!(got, page.run(&mut con).unwrap());
    assert_eq!(ids(&got), ["1", "2"]);
    let group = site.group_page("g", Order::Time, 1, None);
    let got = group.run_async(&mut acon).await.unwrap();
    assert_eq!(got, group.run(&mut con).unwrap());
    assert_eq!(ids(&got), ["1"]);
    assert_eq!(
        site.config().run_async(&mut acon).await.unwrap(),
        site.config().run(&mut con).unwrap()
    );

    let err = site
        .vote("carol", "article:9")
        .run_async(&mut acon)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(Code::UnknownArticle));
}

/// The async API over a `ConnectionManager` (reconnecting), including the
/// NOSCRIPT recovery after `SCRIPT FLUSH`.
#[tokio::test]
async fn connection_manager_runs_calls_and_recovers_from_script_flush() {
    let server = common::server();
    let mut manager = redis::aio::ConnectionManager::new(server.client())
        .await
        .expect("connection manager");
    let site = Site::default();
    let id = site
        .post("user:1", "t", "https://x")
        .run_async(&mut manager)
        .await
        .unwrap();
    let _: () = redis::cmd("SCRIPT")
        .arg("FLUSH")
        .query_async(&mut manager)
        .await
        .unwrap();
    let outcome = site
        .vote("user:2", &id.to_string())
        .run_async(&mut manager)
        .await
        .unwrap();
    assert!(outcome.changed);
    assert_eq!(outcome.votes, 2);
}

/// Switching rankings on after articles exist: `rerank` (batch by batch,
/// and through the CLI) writes every article's hot:/best: entry exactly as a
/// vote would, and is idempotent.
#[test]
fn rerank_backfills_rankings_switched_on_later() {
    let server = common::server();
    let mut con = common::con(&server);
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
    let before = common::digest(&mut con);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_redvote"))
        .args(["--url", &server.url(), "rerank", "--batch", "2"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ranked 7 article(s)\n"
    );
    assert_eq!(common::digest(&mut con), before, "rerank is idempotent");
    check(&mut con);
    let page = site.page(Order::Best, 1, None).run(&mut con).unwrap();
    assert_eq!(page.articles.len(), 7);
    assert_eq!(
        page.articles[0].id, "3",
        "the only article with two upvotes ranks best"
    );
    assert_eq!(page.articles[6].id, "5", "the downvoted one ranks last");
}
