//! Votes: counted once (a repeat writes nothing), the voting window closing
//! a week after the publish time, and switching between up, down and none
//! with the score exact at every step (the poster may retract too).

use redvote::{Code, Site, Vote, VoteOutcome};

use crate::support::stored_time;
use crate::support::{
    self, exists, expiretime, hget, refused, set, smembers, zscore, VOTE_SCORE, WEEK,
};

#[test]
fn vote_counts_once_and_a_repeat_changes_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
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
    let digest = support::digest(&mut con);

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
        assert_eq!(support::digest(&mut con), digest);
    }
    // The poster's own vote is already counted.
    let own = site.vote("alice", "article:1").run(&mut con).unwrap();
    assert!(!own.changed);
    assert_eq!(own.votes, 2);
    assert_eq!(support::digest(&mut con), digest);

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
    let digest = support::digest(&mut con);
    for reference in ["2", "article:9"] {
        let detail = refused(
            site.vote("bob", reference).run(&mut con),
            Code::UnknownArticle,
        );
        let id = reference.trim_start_matches("article:");
        assert_eq!(detail, format!("article {id} does not exist"));
        refused(
            site.downvote("bob", reference).run(&mut con),
            Code::UnknownArticle,
        );
    }
    assert_eq!(support::digest(&mut con), digest);
}

#[test]
fn voting_closes_a_week_after_the_publish_time() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();
    let now = support::server_time(&mut con);

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

    let digest = support::digest(&mut con);
    let detail = refused(
        site.vote("bob", old.to_string()).run(&mut con),
        Code::VotingClosed,
    );
    assert_eq!(
        detail,
        format!("voting on article {old} closed at {}", closed_at + WEEK)
    );
    refused(
        site.downvote("bob", old.to_string()).run(&mut con),
        Code::VotingClosed,
    );
    refused(
        site.unvote("alice", old.to_string()).run(&mut con),
        Code::VotingClosed,
    );
    assert_eq!(support::digest(&mut con), digest);
    assert_eq!(
        zscore(&mut con, "score:", &format!("article:{old}")),
        Some((closed_at + VOTE_SCORE) as f64)
    );

    let outcome = site.vote("bob", recent.to_string()).run(&mut con).unwrap();
    assert!(outcome.changed);
    assert_eq!(outcome.votes, 2);
    assert_eq!(outcome.score, Some((open_at + 2 * VOTE_SCORE) as f64));
    assert_eq!(
        expiretime(&mut con, &format!("voted:{recent}")),
        open_at + WEEK + 1
    );
}

/// none -> up -> down -> none -> down -> up, checking the whole state after
/// each step.
#[test]
fn switching_between_up_down_and_none_keeps_the_score_exact() {
    let server = support::server();
    let mut con = support::con(&server);
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
            assert_eq!(expiretime(&mut con, "downvoted:1"), t + WEEK + 1);
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
    let digest = support::digest(&mut con);
    let again = site.downvote("bob", "1").run(&mut con).unwrap();
    assert!(!again.changed);
    assert_eq!((again.previous, again.vote), (Vote::Down, Vote::Down));
    assert_eq!(support::digest(&mut con), digest);

    // The poster can retract their own vote: votes goes to 0.
    let own = site.post("carol", "C", "http://c").run(&mut con).unwrap();
    let t2 = stored_time(&mut con, &site, own);
    let outcome = site.unvote("carol", own.to_string()).run(&mut con).unwrap();
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

/// The window's last second: votes are taken while TIME <= time + window,
/// and voted:ID lives through that second, so a repeated upvote changes
/// nothing (the set used to expire at time + window: every repeat counted).
#[test]
fn the_last_second_of_the_window_keeps_one_vote_per_user() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();
    for _attempt in 0..20 {
        let now = support::server_time(&mut con);
        // Posted exactly one window ago: the window closes at `now`.
        let id = site
            .import("alice", "A", "http://a", (now - WEEK) as u64)
            .run(&mut con)
            .unwrap()
            .to_string();
        let outcomes: Vec<_> = (0..3)
            .map(|_| site.vote("bob", &id).run(&mut con))
            .collect();
        if support::server_time(&mut con) != now {
            continue; // the second ticked meanwhile: try again
        }
        let votes: Vec<(bool, i64)> = outcomes
            .into_iter()
            .map(|o| o.map(|o| (o.changed, o.votes)).unwrap())
            .collect();
        assert_eq!(votes, [(true, 2), (false, 2), (false, 2)]);
        return;
    }
    panic!("20 attempts never stayed within one server second");
}

/// A voter set gets its expiry (the window's end + 1 s) when it is created,
/// by post or by the first vote into it; later votes leave it alone (a
/// window only shrinks once articles exist, so it stays late enough). The
/// seeds' voter sets (a publish time with a fraction; a relative EXPIRE
/// sent before the time was taken, so a little before the window ends) get
/// it on every vote.
#[test]
fn voter_sets_expire_after_the_window_from_their_creation() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();

    // The seeds' article: its voted:1 expires before the window ends.
    let (secs, micros): (f64, f64) = redis::cmd("TIME").query(&mut con).unwrap();
    let seeded = secs + micros / 1e6 - 0.25;
    crate::support::seed::post_article(&mut con, "alice", "S", "http://s", seeded).unwrap();
    assert!(expiretime(&mut con, "voted:1") <= (seeded + WEEK as f64).ceil() as i64);
    assert!(site.vote("bob", "1").run(&mut con).unwrap().changed);
    let end = (seeded + WEEK as f64).ceil() as i64 + 1;
    assert_eq!(expiretime(&mut con, "voted:1"), end);
    assert!(site.downvote("carol", "1").run(&mut con).unwrap().changed);
    assert_eq!(expiretime(&mut con, "downvoted:1"), end);

    // redvote's article: post sets voted:2's expiry; a shorter window
    // leaves it where it was, later than the new end.
    let id = site.post("alice", "A", "http://a").run(&mut con).unwrap();
    let t = stored_time(&mut con, &site, id);
    assert_eq!(expiretime(&mut con, "voted:2"), t + WEEK + 1);
    site.configure(&redvote::ConfigUpdate {
        window: Some(3600),
        ..Default::default()
    })
    .run(&mut con)
    .unwrap();
    assert!(site.vote("bob", "2").run(&mut con).unwrap().changed);
    assert_eq!(expiretime(&mut con, "voted:2"), t + WEEK + 1);

    // downvoted:2 is created by its first downvote: the window's end + 1.
    assert!(site.downvote("carol", "2").run(&mut con).unwrap().changed);
    assert_eq!(expiretime(&mut con, "downvoted:2"), t + 3600 + 1);
    // Emptied, it is gone; the next downvote creates it again.
    assert!(site.unvote("carol", "2").run(&mut con).unwrap().changed);
    assert!(!exists(&mut con, "downvoted:2"));
    assert!(site.downvote("dave", "2").run(&mut con).unwrap().changed);
    assert_eq!(expiretime(&mut con, "downvoted:2"), t + 3600 + 1);
    // Likewise voted:2 once every upvote is retracted.
    for user in ["alice", "bob"] {
        site.unvote(user, "2").run(&mut con).unwrap();
    }
    assert!(!exists(&mut con, "voted:2"));
    let outcome = site.vote("erin", "2").run(&mut con).unwrap();
    assert_eq!((outcome.votes, outcome.downvotes), (1, 1));
    assert_eq!(expiretime(&mut con, "voted:2"), t + 3600 + 1);
}
