//! `post` and `import`: id allocation and exactly the seeds' key layout
//! (hash, time: and score: entries, the poster's vote with its expiry), and
//! an import byte for byte what the seeds' `post_article` writes.

use std::collections::BTreeMap;

use redvote::Site;

use super::zrevrange;
use crate::support::{
    self, expiretime, hgetall, keys, set, smembers, ttl, zscore, VOTE_SCORE, WEEK,
};

#[test]
fn post_allocates_ids_and_writes_the_seed_layout() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();

    let before = support::server_time(&mut con);
    let posted: Vec<u64> = ["alice", "bob", "carol"]
        .iter()
        .enumerate()
        .map(|(i, user)| {
            site.post(user, &format!("Title {i}"), &format!("http://x/{i}"))
                .run(&mut con)
                .unwrap()
        })
        .collect();
    let after = support::server_time(&mut con);
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
        // The set outlives the window's last second (votes are taken up
        // to time + WEEK itself).
        assert_eq!(expiretime(&mut con, &voted), time + WEEK + 1);
        let left = ttl(&mut con, &voted);
        assert!(left > WEEK - 60 && left <= WEEK + 1, "voted TTL {left}");
    }
    // Members carry no prefix, exactly "article:ID"; nothing else was written.
    let mut time_members = zrevrange(&mut con, "time:");
    time_members.sort();
    assert_eq!(time_members, vec!["article:1", "article:2", "article:3"]);
    let mut score_members = zrevrange(&mut con, "score:");
    score_members.sort();
    assert_eq!(score_members, time_members);
    // and the site's data layout, 2 for a site redvote creates
    assert_eq!(
        keys(&mut con, "*"),
        set([
            "redvote:config",
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
    let ours = support::server();
    let seeds = support::server();
    let mut con = support::con(&ours);
    let mut seed_con = support::con(&seeds);
    let t = support::server_time(&mut con) - 3600;

    let id = Site::default()
        .import(
            "user:83271",
            "Go to statement considered harmful",
            "http://goo.gl/kZUSu",
            t as u64,
        )
        .run(&mut con)
        .unwrap();
    let seed_id = crate::support::seed::post_article(
        &mut seed_con,
        "user:83271",
        "Go to statement considered harmful",
        "http://goo.gl/kZUSu",
        t as f64,
    )
    .unwrap();
    assert_eq!(id.to_string(), seed_id);

    // the seeds' keys, and redvote's record of the new site's data layout
    let mut ours = keys(&mut con, "*");
    assert!(ours.remove("redvote:config"), "{ours:?}");
    assert_eq!(ours, keys(&mut seed_con, "*"));
    assert_eq!(
        hgetall(&mut con, "redvote:config"),
        [("layout".to_string(), "2".to_string())].into()
    );
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
    assert_eq!(expiretime(&mut con, "voted:1"), t + WEEK + 1);
}
