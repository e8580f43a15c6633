//! Seed compatibility, both ways: data written by the seeds' own flow (the
//! Python of seeds 000/004, command for command in `crate::support::seed`) reads and
//! votes correctly through redvote, and what redvote writes reads correctly
//! through the seeds' code.

use crate::support::seed;
use redis::Commands;
use redvote::{Order, Site};

use crate::support::{self, now_float};

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
    site.vote("user:3", one.to_string()).run(&mut con).unwrap();
    site.vote("user:4", one.to_string()).run(&mut con).unwrap();
    site.groups(two.to_string(), &["rust"], &[])
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
