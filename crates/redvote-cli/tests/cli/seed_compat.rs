//! Data the seeds' own flow wrote, read and voted on through the CLI.

use redvote::{Order, Site};

use crate::support::{self, now_float, seed};

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
