//! Calls in pipelines: a `Call` is plain data, joins a `redis::Pipeline`
//! (plain or atomic) with `add_to`, and each item of the reply is read by
//! its own call with `decode` (or by redis-rs with `FromRedisValue`).
//! Pipelines do not recover from NOSCRIPT, so the scripts are loaded first.

use redis::Value;
use redvote::{
    Article, Ballot, BoardPage, BoardSettings, Campaign, CampaignSettings, Code, Error, Paging,
    Period, Site, View, VoteOutcome,
};

use crate::support::{con, con_async, digest, server};

/// 100 votes in one pipeline on one connection: one round trip, every reply
/// decoded by its call, the stored counts agreeing with the last one.
#[test]
fn a_hundred_votes_in_one_pipeline_decode_per_call() {
    let s = server();
    let mut c = con(&s);
    let site = Site::new("{p}:");
    let id = site
        .post("user:0", "Piped", "https://p.example")
        .run(&mut c)
        .unwrap();
    redvote::scripts::load_all(&mut c).unwrap();
    let id = id.to_string();
    let calls: Vec<_> = (1..=100)
        .map(|u| site.vote(&format!("user:{u}"), &id))
        .collect();
    let mut pipe = redis::pipe();
    for call in &calls {
        call.add_to(&mut pipe);
    }
    let replies: Vec<Value> = pipe.query(&mut c).unwrap();
    assert_eq!(replies.len(), 100);
    for (i, (call, reply)) in calls.iter().zip(replies).enumerate() {
        let outcome = call.decode(reply).unwrap();
        assert!(outcome.changed, "vote {i}");
        assert_eq!(
            outcome.votes,
            i as i64 + 2,
            "vote {i}: the poster's vote counts"
        );
    }
    let article = site.article(&id, None).run(&mut c).unwrap();
    assert_eq!((article.votes, article.downvotes), (101, 0));
}

/// With `ignore_errors`, a refused call is its own failed item, with its
/// code; the calls around it apply and decode.
#[test]
fn refusals_are_per_call() {
    let s = server();
    let mut c = con(&s);
    let site = Site::default();
    let id = site
        .post("user:0", "One", "https://one.example")
        .run(&mut c)
        .unwrap();
    redvote::scripts::load_all(&mut c).unwrap();
    let id = id.to_string();
    let calls = [
        site.vote("user:1", &id),
        site.vote("user:1", "99"),
        site.vote("", &id),
        site.vote("user:1", &id),
        site.downvote("user:2", &id),
    ];
    let mut pipe = redis::pipe();
    pipe.ignore_errors();
    for call in &calls {
        call.add_to(&mut pipe);
    }
    let replies: Vec<Value> = pipe.query(&mut c).unwrap();
    let results: Vec<redvote::Result<VoteOutcome>> = calls
        .iter()
        .zip(replies)
        .map(|(call, reply)| call.decode(reply))
        .collect();
    assert!(results[0].as_ref().unwrap().changed);
    assert!(
        matches!(&results[1], Err(Error::Script { code: Code::UnknownArticle, detail }) if detail == "article 99 does not exist"),
        "{:?}",
        results[1]
    );
    assert_eq!(
        results[2].as_ref().unwrap_err().code(),
        Some(Code::InvalidUser)
    );
    assert!(
        !results[3].as_ref().unwrap().changed,
        "a repeated upvote changes nothing"
    );
    let last = results[4].as_ref().unwrap();
    assert_eq!((last.votes, last.downvotes), (2, 1));
}

/// An atomic pipeline (MULTI/EXEC) decoded by redis-rs through
/// `FromRedisValue`, the way a hand-built invocation is read.
#[test]
fn an_atomic_pipeline_decodes_with_from_redis_value() {
    let s = server();
    let mut c = con(&s);
    let site = Site::default();
    let id = site
        .post("user:0", "Atomic", "https://a.example")
        .run(&mut c)
        .unwrap();
    redvote::scripts::load_all(&mut c).unwrap();
    let id = id.to_string();
    let mut pipe = redis::pipe();
    pipe.atomic();
    site.vote("user:1", &id).add_to(&mut pipe);
    site.article(&id, Some("user:1")).add_to(&mut pipe);
    let (outcome, article): (VoteOutcome, Article) = pipe.query(&mut c).unwrap();
    assert_eq!(outcome.votes, 2);
    assert_eq!(article.votes, 2);
    assert_eq!(article.user_vote, Some(redvote::Vote::Up));
    // The same invocation sent by hand decodes the same way.
    let by_hand: Article = site.article(&id, None).invocation().invoke(&mut c).unwrap();
    assert_eq!(by_hand.title, "Atomic");
}

/// Campaign calls join pipelines too, on an async connection.
#[tokio::test]
async fn campaign_calls_join_an_async_pipeline() {
    let s = server();
    let mut c = con_async(&s).await;
    let campaign = Campaign::new("piped").at(1_773_750_600);
    let settings = CampaignSettings::new().with_board(
        "stars",
        BoardSettings::new(&[Period::Day, Period::Total]).with_options(&["a", "b"]),
    );
    campaign
        .configure(&settings)
        .run_async(&mut c)
        .await
        .unwrap();
    redvote::scripts::load_all_async(&mut c).await.unwrap();
    let mut pipe = redis::pipe();
    for (user, option) in [("u1", "a"), ("u2", "a"), ("u3", "b")] {
        campaign.vote(user, &[("stars", option)]).add_to(&mut pipe);
    }
    campaign
        .top(&["stars"], &View::real("total"), Paging::top(10))
        .add_to(&mut pipe);
    let (_, _, last, top): (Vec<Ballot>, Vec<Ballot>, Vec<Ballot>, Vec<BoardPage>) =
        pipe.query_async(&mut c).await.unwrap();
    assert_eq!(
        (last[0].board.as_str(), last[0].option.as_str()),
        ("stars", "b")
    );
    let ranked: Vec<(&str, &str, u64)> = top[0]
        .entries
        .iter()
        .map(|e| (e.member.as_str(), e.score.as_str(), e.rank))
        .collect();
    assert_eq!(ranked, [("a", "2", 1), ("b", "1", 2)]);
}

/// The rule the docs state: a pipeline does not recover from NOSCRIPT (run
/// does), and a pipeline refused that way wrote nothing.
#[test]
fn a_pipeline_needs_its_scripts_loaded() {
    let s = server();
    let mut c = con(&s);
    let site = Site::default();
    let id = site
        .post("user:0", "Flushed", "https://f.example")
        .run(&mut c)
        .unwrap();
    let _: () = redis::cmd("SCRIPT").arg("FLUSH").query(&mut c).unwrap();
    let before = digest(&mut c);
    let mut pipe = redis::pipe();
    site.vote("user:1", id.to_string()).add_to(&mut pipe);
    let err = pipe.query::<Value>(&mut c).unwrap_err();
    assert_eq!(
        err.kind(),
        redis::ErrorKind::Server(redis::ServerErrorKind::NoScript),
        "{err}"
    );
    assert_eq!(digest(&mut c), before);
    // run() loads the script by itself.
    assert!(
        site.vote("user:1", id.to_string())
            .run(&mut c)
            .unwrap()
            .changed
    );
}
