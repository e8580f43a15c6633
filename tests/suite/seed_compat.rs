//! Seed compatibility, both ways: data written by the seeds' own flow (the
//! Python of seeds 000/004, command for command in `redvote::testing::seed`) reads and
//! votes correctly through redvote, and what redvote writes reads correctly
//! through the seeds' code.

use redis::Commands;
use redvote::testing::seed;
use redvote::{Order, Site};

use crate::support;

fn now_float(con: &mut redis::Connection) -> f64 {
    let (secs, micros): (f64, f64) = redis::cmd("TIME").query(con).unwrap();
    secs + micros / 1e6 // the seeds' time.time(): a float
}

#[test]
fn seed_data_reads_and_votes_through_redvote() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();
    let now = now_float(&mut con);

    let a = seed::post_article(&mut con, "user:1", "seed one", "https://s/1", now - 100.0).unwrap();
    let b = seed::post_article(&mut con, "user:2", "seed two", "https://s/2", now - 50.0).unwrap();
    assert_eq!((a.as_str(), b.as_str()), ("1", "2"));
    assert!(seed::article_vote(&mut con, "user:3", "article:1", now).unwrap());
    seed::add_remove_groups(&mut con, "1", &["python"], &[]).unwrap();

    // redvote reads the seeds' hashes and orderings as they are.
    let page = site.page(Order::Score, 1, None).with_scores();
    let page = page.run(&mut con).unwrap();
    assert_eq!(page.total, 2);
    let first = &page.articles[0];
    assert_eq!(
        (first.id.as_str(), first.title.as_str(), first.votes),
        ("1", "seed one", 2)
    );
    assert_eq!(first.time, (now - 100.0).floor() as i64);
    assert_eq!(first.score, Some(now - 100.0 + 2.0 * 432.0));
    assert_eq!(first.downvotes, 0, "seed hashes have no downvotes field");

    // redvote knows who voted through the seeds' flow...
    let a1 = site
        .article("article:1", Some("user:3"))
        .run(&mut con)
        .unwrap();
    assert_eq!(a1.user_vote, Some(redvote::Vote::Up));
    let again = site.vote("user:3", "1").run(&mut con).unwrap();
    assert!(
        !again.changed,
        "a seed-flow voter cannot vote twice through redvote"
    );
    // ...and adds its own votes on the seeds' data with the seeds' arithmetic.
    let new = site.vote("user:4", "1").run(&mut con).unwrap();
    assert!(new.changed);
    assert_eq!(new.votes, 3);
    assert_eq!(new.score, Some(now - 100.0 + 3.0 * 432.0));
    let poster_down = site.downvote("user:2", "2").run(&mut con).unwrap();
    assert_eq!((poster_down.votes, poster_down.downvotes), (0, 1));
    assert_eq!(poster_down.score, Some(now - 50.0 - 432.0));

    // Groups the seeds made page through redvote.
    let group = site
        .group_page("python", Order::Score, 1, None)
        .run(&mut con)
        .unwrap();
    assert_eq!(group.articles.len(), 1);
    assert_eq!(group.articles[0].id, "1");
}

#[test]
fn redvote_data_reads_and_votes_through_the_seeds_flow() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();

    let one = site
        .post("user:1", "redvote one", "https://r/1")
        .run(&mut con)
        .unwrap();
    let two = site
        .post("user:2", "redvote two", "https://r/2")
        .run(&mut con)
        .unwrap();
    site.vote("user:3", &one.to_string()).run(&mut con).unwrap();
    site.vote("user:4", &one.to_string()).run(&mut con).unwrap();
    site.groups(&two.to_string(), &["rust"], &[])
        .run(&mut con)
        .unwrap();

    // The seeds' get_articles sees redvote's articles, best first, with their fields.
    let page = seed::get_articles(&mut con, 1, "score:").unwrap();
    assert_eq!(page.len(), 2);
    assert_eq!(page[0]["id"], "article:1");
    assert_eq!(page[0]["title"], "redvote one");
    assert_eq!(page[0]["votes"], "3");
    assert_eq!(page[0]["poster"], "user:1");

    // The seeds' article_vote refuses users who voted through redvote and
    // counts new ones on top of redvote's score.
    let now = now_float(&mut con);
    assert!(!seed::article_vote(&mut con, "user:3", "article:1", now).unwrap());
    assert!(seed::article_vote(&mut con, "user:5", "article:1", now).unwrap());
    let back = site.article("1", Some("user:5")).run(&mut con).unwrap();
    assert_eq!(back.votes, 4);
    assert_eq!(back.user_vote, Some(redvote::Vote::Up));
    let time: f64 = con.zscore("time:", "article:1").unwrap();
    assert_eq!(back.score, Some(time + 4.0 * 432.0));

    // The seeds' group page reads redvote's group, and both share its cache key.
    let group = seed::get_group_articles(&mut con, "rust", 1, "score:").unwrap();
    assert_eq!(group.len(), 1);
    assert_eq!(group[0]["id"], "article:2");
    let ttl: i64 = con.ttl("score:rust").unwrap();
    assert!((1..=60).contains(&ttl), "ttl {ttl}");
    let ours = site
        .group_page("rust", Order::Score, 1, None)
        .run(&mut con)
        .unwrap();
    assert_eq!(ours.articles[0].id, "2");
    assert_eq!(ours.articles[0].title, "redvote two");
}
