//! Many clients voting at once: every vote is one atomic script call, so no
//! interleaving can count a user twice or let the counts, the voter sets and
//! the score drift apart.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Barrier};

use redis::Connection;
use redvote::{Site, Vote, VoteOutcome};

use crate::support::{self, scard, smembers, zscore, Rng, VOTE_SCORE};

const ARTICLES: usize = 3;

/// `(time, votes, downvotes)` as stored in `article:ID`.
fn counts(con: &mut Connection, id: usize) -> (i64, i64, i64) {
    let (time, votes, down): (i64, i64, Option<i64>) = redis::cmd("HMGET")
        .arg(format!("article:{id}"))
        .arg("time")
        .arg("votes")
        .arg("downvotes")
        .query(con)
        .unwrap();
    (time, votes, down.unwrap_or(0))
}

/// A reply's own numbers agree with each other: the score it reports is
/// time + 432 * (votes - downvotes) for the counts it reports.
#[track_caller]
fn assert_reply_consistent(out: &VoteOutcome, time: i64) {
    assert_eq!(
        out.score,
        Some((time + VOTE_SCORE * (out.votes - out.downvotes)) as f64),
        "{out:?}"
    );
    assert_eq!(out.changed, out.previous != out.vote, "{out:?}");
}

/// 32 threads, each with its own connection, upvote 3 articles for 64
/// users; every (user, article) pair is tried by 4 threads in the same step.
#[test]
fn parallel_upvotes_count_every_user_once() {
    const THREADS: usize = 32;
    const USERS: usize = 64;
    const TRIES: usize = 4; // threads per pair
    const PAIRS_PER_STEP: usize = THREADS / TRIES;
    const STEPS: usize = USERS * ARTICLES / PAIRS_PER_STEP;

    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();
    let mut times = Vec::new();
    for a in 1..=ARTICLES {
        let id = site
            .post(&format!("poster:{a}"), &format!("T{a}"), "http://t")
            .run(&mut con)
            .unwrap();
        assert_eq!(id, a as u64);
        times.push(counts(&mut con, a).0);
    }

    let barrier = Arc::new(Barrier::new(THREADS));
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let client = server.client();
            let site = site.clone();
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                let mut con = client.get_connection().unwrap();
                barrier.wait();
                let mut replies = Vec::with_capacity(STEPS);
                for step in 0..STEPS {
                    // Threads t, t+8, t+16, t+24 race for the same pair.
                    let p = step * PAIRS_PER_STEP + t % PAIRS_PER_STEP;
                    let (user, article) = (p / ARTICLES, p % ARTICLES + 1);
                    let out = site
                        .vote(&format!("user:{user}"), article.to_string())
                        .run(&mut con)
                        .unwrap();
                    replies.push((user, article, out));
                }
                replies
            })
        })
        .collect();
    let replies: Vec<(usize, usize, VoteOutcome)> = workers
        .into_iter()
        .flat_map(|w| w.join().unwrap())
        .collect();
    assert_eq!(replies.len(), USERS * ARTICLES * TRIES);

    // Per pair: exactly one of the 4 tries counted, the others saw it.
    let mut per_pair: BTreeMap<(usize, usize), Vec<VoteOutcome>> = BTreeMap::new();
    for (user, article, out) in &replies {
        assert_reply_consistent(out, times[article - 1]);
        assert_eq!(out.vote, Vote::Up);
        assert_eq!(out.downvotes, 0);
        per_pair.entry((*user, *article)).or_default().push(*out);
    }
    assert_eq!(per_pair.len(), USERS * ARTICLES);
    for (pair, outs) in &per_pair {
        assert_eq!(outs.len(), TRIES);
        let counted: Vec<_> = outs.iter().filter(|o| o.changed).collect();
        assert_eq!(counted.len(), 1, "{pair:?}: {outs:?}");
        assert_eq!(counted[0].previous, Vote::None);
        for o in outs.iter().filter(|o| !o.changed) {
            assert_eq!(o.previous, Vote::Up, "{pair:?}: {outs:?}");
        }
    }
    let changed = replies.iter().filter(|r| r.2.changed).count();
    assert_eq!(changed, USERS * ARTICLES);

    for a in 1..=ARTICLES {
        let (time, votes, downvotes) = counts(&mut con, a);
        assert_eq!((votes, downvotes), (1 + USERS as i64, 0), "article:{a}");
        assert_eq!(scard(&mut con, &format!("voted:{a}")), votes);
        let mut voters: BTreeSet<String> = (0..USERS).map(|u| format!("user:{u}")).collect();
        voters.insert(format!("poster:{a}"));
        assert_eq!(smembers(&mut con, &format!("voted:{a}")), voters);
        assert_eq!(
            zscore(&mut con, "score:", &format!("article:{a}")),
            Some((time + VOTE_SCORE * votes) as f64)
        );
        // The highest count any reply reported is the final one.
        let top = replies.iter().filter(|r| r.1 == a).map(|r| r.2.votes).max();
        assert_eq!(top, Some(votes));
    }
}

/// 32 tokio tasks share one multiplexed connection and set random users'
/// votes to up, down or none (posters included).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn mixed_votes_on_a_shared_connection_stay_consistent() {
    const TASKS: usize = 32;
    const USERS: usize = 12;
    const CALLS: usize = 48;

    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();
    // Articles 1..=3 are posted by user:0, user:1 and user:2.
    let mut times = Vec::new();
    for a in 1..=ARTICLES {
        site.post(&format!("user:{}", a - 1), &format!("T{a}"), "http://t")
            .run(&mut con)
            .unwrap();
        times.push(counts(&mut con, a).0);
    }
    let shared = support::con_async(&server).await;

    let barrier = Arc::new(tokio::sync::Barrier::new(TASKS));
    let tasks: Vec<_> = (0..TASKS)
        .map(|t| {
            let mut con = shared.clone();
            let site = site.clone();
            let barrier = Arc::clone(&barrier);
            tokio::spawn(async move {
                let mut rng = Rng::seeded((t as u64 + 1) * 0x1000_0001); // a sequence per task
                barrier.wait().await;
                let mut replies = Vec::with_capacity(CALLS);
                for _ in 0..CALLS {
                    let user = rng.below(USERS);
                    let article = rng.below(ARTICLES) + 1;
                    let vote = [Vote::Up, Vote::Down, Vote::None][rng.below(3)];
                    let out = site
                        .set_vote(&format!("user:{user}"), article.to_string(), vote)
                        .run_async(&mut con)
                        .await
                        .unwrap();
                    assert_eq!(out.vote, vote);
                    replies.push((user, article, out));
                }
                replies
            })
        })
        .collect();
    let mut replies = Vec::new();
    for task in tasks {
        replies.extend(task.await.unwrap());
    }
    assert_eq!(replies.len(), TASKS * CALLS);

    for a in 1..=ARTICLES {
        let (time, votes, downvotes) = counts(&mut con, a);
        let up_key = format!("voted:{a}");
        let down_key = format!("downvoted:{a}");
        assert_eq!(votes, scard(&mut con, &up_key), "article:{a}");
        assert_eq!(downvotes, scard(&mut con, &down_key), "article:{a}");
        let both: BTreeSet<String> = redis::cmd("SINTER")
            .arg(&up_key)
            .arg(&down_key)
            .query(&mut con)
            .unwrap();
        assert!(both.is_empty(), "up and down at once: {both:?}");
        assert_eq!(
            zscore(&mut con, "score:", &format!("article:{a}")),
            Some((time + VOTE_SCORE * (votes - downvotes)) as f64),
            "article:{a}"
        );

        // The replies add up to the final counts: 1 (the poster) plus
        // every change each reply reported.
        let mut up_delta = 0;
        let mut down_delta = 0;
        for (_, _, out) in replies.iter().filter(|r| r.1 == a) {
            assert_reply_consistent(out, times[a - 1]);
            if out.changed {
                up_delta += (out.vote == Vote::Up) as i64 - (out.previous == Vote::Up) as i64;
                down_delta += (out.vote == Vote::Down) as i64 - (out.previous == Vote::Down) as i64;
            }
        }
        assert_eq!(
            (votes, downvotes),
            (1 + up_delta, down_delta),
            "article:{a}"
        );

        // Per user, the reported (previous -> vote) steps chain from the
        // starting vote to the final one: no reply saw a stale vote.
        let up_set = smembers(&mut con, &up_key);
        let down_set = smembers(&mut con, &down_key);
        for u in 0..USERS {
            let name = format!("user:{u}");
            let start = if u == a - 1 { Vote::Up } else { Vote::None };
            let end = if up_set.contains(&name) {
                Vote::Up
            } else if down_set.contains(&name) {
                Vote::Down
            } else {
                Vote::None
            };
            let reported = site
                .article(a.to_string(), Some(&name))
                .run(&mut con)
                .unwrap();
            assert_eq!(reported.user_vote, Some(end));
            let mut balance: HashMap<Vote, i64> = HashMap::new();
            for (_, _, out) in replies.iter().filter(|r| r.0 == u && r.1 == a) {
                *balance.entry(out.previous).or_default() -= 1;
                *balance.entry(out.vote).or_default() += 1;
            }
            *balance.entry(start).or_default() += 1;
            *balance.entry(end).or_default() -= 1;
            assert!(
                balance.values().all(|&n| n == 0),
                "{name} on article:{a}: replies do not chain from {start} to {end}"
            );
        }
    }
}
