//! A prefixed site keeps to its own keys (members stay `article:ID`), and
//! the unprefixed site sees none of them.

use redvote::{Code, ConfigUpdate, Order, Ranking, Site};

use super::zrevrange;
use crate::support::{self, exists, keys, refused, set, smembers};

#[test]
fn a_prefixed_site_keeps_to_its_own_keys() {
    let server = support::server();
    let mut con = support::con(&server);
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
        keys(&mut con, "*"),
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
            // a new site is at layout 2: the group's boards and the
            // article's groups, no cached orderings
            "{s1}:groups:1",
            "{s1}:gboard:score:g",
            "{s1}:gboard:time:g",
            "{s1}:gboard:hot:g",
            "{s1}:gboard:best:g",
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
