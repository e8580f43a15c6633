//! Model-based property test: random sequences of operations of both
//! systems run against a real redis-server and against a plain in-memory
//! Rust model; the replies are compared at every step and the whole data
//! set (article hashes, score:/time:, open articles' voter sets, every
//! campaign board, the recorded vote ids) at the end of each case.
//!
//! The operations: article posts at the edges of the voting window (open for
//! two more minutes, closed two minutes ago, fresh), votes up/down/none by a
//! few users (and on an unknown article), window and vote_score changes
//! (refused once articles exist, except a shorter window); campaign votes at
//! explicit times over five days (single and batch, with and without vote
//! ids, resent as they were to hit replays, reused ids on other votes),
//! weight, decimals and end changes, under a daily rate limit and a carry
//! to the next day.
//!
//! `REDVOTE_MODEL_CASES=2000 cargo test --test suite model -- --nocapture`
//! runs a longer search (the default is 48 cases). proptest shrinks a
//! failure to a minimal sequence and records its seed under
//! `tests/suite/proptest-regressions/`, which is committed so that it runs
//! first from then on.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{TimeZone, Utc};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use redis::Connection;
use redvote::campaign::{
    Ballot, BoardSettings, Dimension, LimitRule, OptionSettings, PeriodScore, Voter, Window,
};
use redvote::{
    Campaign, CampaignSettings, Code, ConfigUpdate, Error, Period, Site, Vote, VoteOutcome,
};

use crate::support::{self, server_time, smembers};

const DAY: u64 = 86400;
/// 2040-03-01T00:00:00Z: campaign votes happen on its first five days.
const BASE: u64 = 2214172800;
const WINDOWS: [u64; 3] = [3600, 86400, 604800];
const USERS: u8 = 4;
const DAILY_LIMIT: u64 = 3;
const OPTIONS: [&str; 2] = ["x", "y"];

#[derive(Debug, Clone, Copy)]
enum Age {
    Fresh,
    Closing,
    Closed,
}

#[derive(Debug, Clone)]
enum Op {
    Post {
        user: u8,
        age: Age,
    },
    Vote {
        user: u8,
        article: usize,
        vote: Vote,
    },
    Window(usize),
    VoteScore(u32),
    CampaignVote {
        user: u8,
        at: u64,
        pairs: Vec<usize>,
        id: Option<u8>,
    },
    Resend(usize),
    Weight {
        option: usize,
        weight: u32,
    },
    Decimals(u32),
    End(u64),
}

fn op() -> impl Strategy<Value = Op> {
    let vote = prop_oneof![Just(Vote::Up), Just(Vote::Down), Just(Vote::None)];
    let age = prop_oneof![Just(Age::Fresh), Just(Age::Closing), Just(Age::Closed)];
    prop_oneof![
        2 => (0..USERS, age).prop_map(|(user, age)| Op::Post { user, age }),
        5 => (0..USERS, 0..6usize, vote).prop_map(|(user, article, vote)| Op::Vote { user, article, vote }),
        1 => (0..WINDOWS.len()).prop_map(Op::Window),
        1 => prop_oneof![Just(432u32), Just(100)].prop_map(Op::VoteScore),
        6 => (0..USERS, 0..5 * 24u64, prop::collection::vec(0..2usize, 1..=2), prop::option::of(0..4u8))
            .prop_map(|(user, hour, pairs, id)| Op::CampaignVote { user, at: BASE + hour * 3600, pairs, id }),
        2 => (0..64usize).prop_map(Op::Resend),
        1 => (0..2usize, 1..5u32).prop_map(|(option, weight)| Op::Weight { option, weight }),
        1 => (0..3u32).prop_map(Op::Decimals),
        1 => (1..=5u64).prop_map(|d| Op::End(BASE + d * DAY)),
    ]
}

// ---- the model ---------------------------------------------------------------

struct Article {
    time: u64,
    poster: String,
    up: BTreeSet<String>,
    down: BTreeSet<String>,
}

#[derive(Default)]
struct Model {
    // site
    vote_score: i64,
    window: u64,
    articles: Vec<Article>,
    // campaign
    weights: [u32; 2],
    decimals: u32,
    end: Option<u64>,
    /// board key suffix ("real:total", "shown:day:2040-03-01") -> option -> score
    boards: BTreeMap<String, BTreeMap<String, f64>>,
    /// (user, day index) -> votes counted by the daily rule: every day
    /// apart (campaign layout 3 keeps each window's counts in buckets of
    /// that window until it ends, so a vote dated in an earlier day counts
    /// in that day)
    daily: BTreeMap<(String, u64), u64>,
    /// vote id -> (the request, the ballots answered)
    ids: BTreeMap<String, (String, Vec<Ballot>)>,
    /// campaign votes sent so far, for resends
    sent: Vec<Op>,
}

fn day_name(t: u64) -> String {
    Utc.timestamp_opt(t as i64, 0)
        .unwrap()
        .format("day:%Y-%m-%d")
        .to_string()
}

/// Lua's `math.floor(x * 10 ^ d + 0.5)` on the stored double.
fn units_of(v: f64, d: u32) -> f64 {
    (v * 10f64.powi(d as i32) + 0.5).floor()
}

fn text(units: f64, d: u32) -> String {
    format!("{:.*}", d as usize, units / 10f64.powi(d as i32))
}

impl Model {
    fn new() -> Self {
        Model {
            vote_score: 432,
            window: 604800,
            weights: [2, 1],
            decimals: 2,
            ..Default::default()
        }
    }

    fn site_vote(
        &mut self,
        now: u64,
        user: &str,
        n: usize,
        want: Vote,
    ) -> Result<VoteOutcome, Code> {
        let (vote_score, window) = (self.vote_score, self.window);
        let Some(a) = self.articles.get_mut(n) else {
            return Err(Code::UnknownArticle);
        };
        if now > a.time + window {
            return Err(Code::VotingClosed);
        }
        let previous = if a.up.contains(user) {
            Vote::Up
        } else if a.down.contains(user) {
            Vote::Down
        } else {
            Vote::None
        };
        a.up.remove(user);
        a.down.remove(user);
        match want {
            Vote::Up => drop(a.up.insert(user.to_string())),
            Vote::Down => drop(a.down.insert(user.to_string())),
            Vote::None => {}
        }
        let (votes, downvotes) = (a.up.len() as i64, a.down.len() as i64);
        Ok(VoteOutcome {
            changed: previous != want,
            previous,
            vote: want,
            score: Some((a.time as i64 + vote_score * (votes - downvotes)) as f64),
            votes,
            downvotes,
        })
    }

    fn add(&mut self, key: String, option: &str, units: f64, shown: bool) -> String {
        let d = self.decimals;
        let board = self.boards.entry(key).or_default();
        let old = board.get(option).copied().unwrap_or(0.0);
        if shown {
            let new = text(units_of(old, d) + units, d);
            board.insert(option.to_string(), new.parse().unwrap());
            new
        } else {
            board.insert(option.to_string(), old + 1.0);
            (old + 1.0).to_string()
        }
    }

    fn campaign_vote(
        &mut self,
        user: &str,
        at: u64,
        pairs: &[usize],
        id: Option<&str>,
    ) -> Result<Vec<Ballot>, Code> {
        let request = format!("{user}|{at}|{pairs:?}");
        if let Some(id) = id {
            if let Some((req, ballots)) = self.ids.get(id) {
                if *req != request {
                    return Err(Code::VoteIdReused);
                }
                let mut ballots = ballots.clone();
                ballots.iter_mut().for_each(|b| b.replay = true);
                return Ok(ballots);
            }
        }
        if self.end.is_some_and(|end| at >= end) {
            return Err(Code::CampaignClosed);
        }
        let day = (at - BASE) / DAY;
        let used = self
            .daily
            .get(&(user.to_string(), day))
            .copied()
            .unwrap_or(0);
        if used + pairs.len() as u64 > DAILY_LIMIT {
            return Err(Code::RateLimited);
        }
        self.daily
            .insert((user.to_string(), day), used + pairs.len() as u64);
        let d = self.decimals;
        let (today, tomorrow) = (day_name(at), day_name(at + DAY));
        let mut scores = BTreeMap::new();
        for &o in pairs {
            let (option, w) = (OPTIONS[o], self.weights[o] as f64);
            for period in [today.as_str(), "total"] {
                self.add(format!("real:{period}"), option, 1.0, false);
                let t = self.add(
                    format!("shown:{period}"),
                    option,
                    w * 10f64.powi(d as i32),
                    true,
                );
                scores.insert((option, period.to_string()), t);
            }
            let carried = (w * 500000.0 * 10f64.powi(d as i32) / 1000000.0 + 0.5).floor();
            if carried > 0.0 {
                self.add(format!("shown:{tomorrow}"), option, carried, true);
            }
        }
        // every ballot reports its option's score after the whole call
        let ballots: Vec<Ballot> = pairs
            .iter()
            .map(|&o| Ballot {
                board: "B".to_string(),
                option: OPTIONS[o].to_string(),
                shown: [today.as_str(), "total"]
                    .iter()
                    .map(|p| PeriodScore {
                        period: p.to_string(),
                        score: scores[&(OPTIONS[o], p.to_string())].clone(),
                    })
                    .collect(),
                replay: false,
                folded: None,
            })
            .collect();
        if let Some(id) = id {
            self.ids.insert(id.to_string(), (request, ballots.clone()));
        }
        Ok(ballots)
    }
}

// ---- running a case ------------------------------------------------------------

fn code<T: std::fmt::Debug>(r: redvote::Result<T>) -> Result<T, Code> {
    r.map_err(|e| match e {
        Error::RateLimited(_) => Code::RateLimited,
        Error::Script { code, .. } => code,
        other => panic!("not a refusal: {other}"),
    })
}

fn campaign_settings() -> CampaignSettings {
    let options = OPTIONS
        .iter()
        .zip([2, 1])
        .map(|(o, w)| (o.to_string(), OptionSettings::weighted(w)))
        .collect();
    let board = BoardSettings {
        carry: Some("0.5".to_string()),
        decimals: Some(2),
        options,
        ..BoardSettings::new(&[Period::Day, Period::Total])
    };
    CampaignSettings::new()
        .with_offset("+00:00")
        .with_limits(vec![LimitRule::fixed(
            "daily",
            &[Dimension::User],
            Window::Day,
            DAILY_LIMIT,
        )])
        .with_board("B", board)
}

fn run_case(con: &mut Connection, ops: &[Op]) -> Result<(), TestCaseError> {
    let _: () = redis::cmd("FLUSHALL").query(con).unwrap();
    let site = Site::default();
    let c = Campaign::new("m");
    c.configure(&campaign_settings()).run(con).unwrap();
    let mut m = Model::new();
    for (step, op) in ops.iter().enumerate() {
        let now = server_time(con) as u64;
        let at = format!("step {step}: {op:?}");
        match op {
            Op::Post { user, age } => {
                let time = match age {
                    Age::Fresh => now - 10,
                    Age::Closing => now - m.window + 120,
                    Age::Closed => now - m.window - 120,
                };
                let poster = format!("u{user}");
                let id = site
                    .import(&poster, "t", "https://e.x", time)
                    .run(con)
                    .unwrap();
                m.articles.push(Article {
                    time,
                    poster: poster.clone(),
                    up: [poster].into(),
                    down: BTreeSet::new(),
                });
                prop_assert_eq!(id as usize, m.articles.len(), "{}", at);
            }
            Op::Vote {
                user,
                article,
                vote,
            } => {
                let user = format!("u{user}");
                let got = code(
                    site.set_vote(&user, (article + 1).to_string(), *vote)
                        .run(con),
                );
                prop_assert_eq!(got, m.site_vote(now, &user, *article, *vote), "{}", at);
            }
            Op::Window(i) => {
                let update = ConfigUpdate {
                    window: Some(WINDOWS[*i]),
                    ..Default::default()
                };
                let got = code(site.configure(&update).run(con)).map(|_| ());
                let want = if !m.articles.is_empty() && WINDOWS[*i] > m.window {
                    Err(Code::ConfigLocked)
                } else {
                    m.window = WINDOWS[*i];
                    Ok(())
                };
                prop_assert_eq!(got, want, "{}", at);
            }
            Op::VoteScore(v) => {
                let update = ConfigUpdate {
                    vote_score: Some(*v),
                    ..Default::default()
                };
                let got = code(site.configure(&update).run(con)).map(|_| ());
                let want = if !m.articles.is_empty() && i64::from(*v) != m.vote_score {
                    Err(Code::ConfigLocked)
                } else {
                    m.vote_score = i64::from(*v);
                    Ok(())
                };
                prop_assert_eq!(got, want, "{}", at);
            }
            Op::CampaignVote {
                user,
                at: t,
                pairs,
                id,
            } => {
                m.sent.push(op.clone());
                let (user, id) = (format!("u{user}"), id.map(|i| format!("id{i}")));
                let names: Vec<(&str, &str)> = pairs.iter().map(|&o| ("B", OPTIONS[o])).collect();
                let mut voter = Voter::new(&user);
                voter.id = id.clone();
                let got = code(c.at(*t).vote_by(&voter, &names).run(con));
                prop_assert_eq!(
                    got,
                    m.campaign_vote(&user, *t, pairs, id.as_deref()),
                    "{}",
                    at
                );
            }
            Op::Resend(k) => {
                if let Some(Op::CampaignVote {
                    user,
                    at: t,
                    pairs,
                    id,
                }) = (!m.sent.is_empty()).then(|| m.sent[k % m.sent.len()].clone())
                {
                    let (user, id) = (format!("u{user}"), id.map(|i| format!("id{i}")));
                    let names: Vec<(&str, &str)> =
                        pairs.iter().map(|&o| ("B", OPTIONS[o])).collect();
                    let mut voter = Voter::new(&user);
                    voter.id = id.clone();
                    let got = code(c.at(t).vote_by(&voter, &names).run(con));
                    prop_assert_eq!(
                        got,
                        m.campaign_vote(&user, t, &pairs, id.as_deref()),
                        "{}",
                        at
                    );
                }
            }
            Op::Weight { option, weight } => {
                let mut board = BoardSettings::default();
                board.options.insert(
                    OPTIONS[*option].to_string(),
                    OptionSettings::weighted(*weight),
                );
                c.configure(&CampaignSettings::new().with_board("B", board))
                    .run(con)
                    .unwrap();
                m.weights[*option] = *weight;
            }
            Op::Decimals(d) => {
                let board = BoardSettings {
                    decimals: Some(*d),
                    ..Default::default()
                };
                c.configure(&CampaignSettings::new().with_board("B", board))
                    .run(con)
                    .unwrap();
                m.decimals = *d;
            }
            Op::End(end) => {
                let s = CampaignSettings {
                    end: Some(*end),
                    ..Default::default()
                };
                c.configure(&s).run(con).unwrap();
                m.end = Some(*end);
            }
        }
    }
    compare_data(con, &m, &c)
}

/// The whole data set against the model.
fn compare_data(con: &mut Connection, m: &Model, c: &Campaign) -> Result<(), TestCaseError> {
    let now = server_time(con) as u64;
    for (n, a) in m.articles.iter().enumerate() {
        let id = n + 1;
        let key = format!("article:{id}");
        let h = support::hgetall(con, &key);
        prop_assert_eq!(&h["votes"], &a.up.len().to_string(), "{}", key);
        prop_assert_eq!(
            h.get("downvotes").map_or("0", String::as_str),
            a.down.len().to_string(),
            "{}",
            key
        );
        prop_assert_eq!(&h["poster"], &a.poster);
        let net = a.up.len() as i64 - a.down.len() as i64;
        let score = support::zscore(con, "score:", &key);
        prop_assert_eq!(
            score,
            Some((a.time as i64 + m.vote_score * net) as f64),
            "{}",
            key
        );
        prop_assert_eq!(support::zscore(con, "time:", &key), Some(a.time as f64));
        if now + 5 < a.time + m.window {
            prop_assert_eq!(
                smembers(con, &format!("voted:{id}")),
                a.up.clone(),
                "{}",
                key
            );
            prop_assert_eq!(
                smembers(con, &format!("downvoted:{id}")),
                a.down.clone(),
                "{}",
                key
            );
        }
    }
    let prefix = format!("{}b:B:", c.namespace());
    let keys = support::keys(con, &format!("{prefix}*"));
    let want: BTreeSet<String> = m.boards.keys().map(|k| format!("{prefix}{k}")).collect();
    prop_assert_eq!(&keys, &want);
    for (k, board) in &m.boards {
        let got: Vec<(String, f64)> = redis::cmd("ZRANGE")
            .arg(format!("{prefix}{k}"))
            .arg(0)
            .arg(-1)
            .arg("WITHSCORES")
            .query(con)
            .unwrap();
        let got: BTreeMap<String, f64> = got.into_iter().collect();
        prop_assert_eq!(&got, board, "{}", k);
    }
    let ids: BTreeSet<String> = support::keys(con, &format!("{}vid:*", c.namespace()))
        .into_iter()
        .map(|k| k.rsplit_once("vid:").unwrap().1.to_string())
        .collect();
    prop_assert_eq!(ids, m.ids.keys().cloned().collect::<BTreeSet<_>>());
    Ok(())
}

#[test]
fn both_systems_behave_like_their_model() {
    let server = support::server();
    let mut con = support::con(&server);
    assert!(
        (server_time(&mut con) as u64) < BASE - 10 * DAY,
        "the campaign votes in 2040 and needs the server clock before it"
    );
    let cases = std::env::var("REDVOTE_MODEL_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(48);
    let config = Config {
        cases,
        source_file: Some(file!()),
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let steps = std::cell::Cell::new(0usize);
    let con = std::cell::RefCell::new(con);
    runner
        .run(&prop::collection::vec(op(), 1..40), |ops| {
            steps.set(steps.get() + ops.len());
            run_case(&mut con.borrow_mut(), &ops)
        })
        .unwrap();
    println!(
        "model: {cases} cases, {} operations compared step by step",
        steps.get()
    );
}
