//! Memory a rate-limited user costs (the target: at most 100 B): 5,000
//! users vote once each under the bench's 4 rules (user-minute 5, user-hour
//! 10, option-second 10^9, user-device-day 20: three count by user), on a
//! fresh server, at one explicit second. The figure is the `used_memory`
//! delta of those votes minus the delta of the same votes on a campaign
//! without rules (what the boards, HyperLogLogs and statistics cost either
//! way), per user; the whole delta per user, MEMORY USAGE of the counters
//! and the figure of layout 2 (a hash a voter) are printed beside it, with
//! the server's mean time a vote (INFO commandstats, EVALSHA) of each.

use redis::Value;
use redvote::campaign::{BoardSettings, Dimension, LimitRule, OptionSettings, Voter, Window};
use redvote::{Campaign, CampaignSettings, Period};

use crate::support;

/// The users, 5,000 unless `REDVOTE_MEMORY_USERS` says otherwise (the
/// assertion holds from 5,000 up: docs/rate-limits.md#counters).
fn users() -> usize {
    std::env::var("REDVOTE_MEMORY_USERS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(5000)
}
const OPTIONS: usize = 7;

fn used_memory(con: &mut redis::Connection) -> i64 {
    let info: String = redis::cmd("INFO").arg("memory").query(con).unwrap();
    info.lines()
        .find_map(|l| l.strip_prefix("used_memory:"))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// The bench's 4 rules (crates/redvote-bench, `limit_rules(4)`).
fn bench_rules() -> Vec<LimitRule> {
    let (user, option) = (Dimension::User, Dimension::Option);
    vec![
        LimitRule::fixed("user-minute", &[user], Window::Minute, 5),
        LimitRule::fixed("user-hour", &[user], Window::Hour, 10),
        LimitRule::fixed("option-second", &[option], Window::Second, 1_000_000_000),
        LimitRule::fixed(
            "user-device-day",
            &[user, Dimension::Device],
            Window::Day,
            20,
        ),
    ]
}

/// The server's EVALSHA calls and their microseconds so far (INFO
/// commandstats).
fn evalsha_stats(con: &mut redis::Connection) -> (f64, f64) {
    let info: String = redis::cmd("INFO").arg("commandstats").query(con).unwrap();
    let line = info
        .lines()
        .find_map(|l| l.strip_prefix("cmdstat_evalsha:"))
        .unwrap_or("");
    let field = |name: &str| {
        line.split(',')
            .find_map(|f| f.strip_prefix(name))
            .map_or(0.0, |v| v.parse().unwrap())
    };
    (field("calls="), field("usec="))
}

/// `used_memory` the votes of [`users`] new users add to campaign `c`, and the
/// server's mean microseconds a vote.
fn votes_cost(con: &mut redis::Connection, c: &Campaign, at: u64) -> (i64, f64) {
    let c = c.at(at);
    let names: Vec<String> = (1..=users()).map(|u| format!("user:{u}")).collect();
    // the scripts loaded (EVALSHA in the pipelines below)
    c.vote("loader", &[("stars", "opt0")]).run(con).unwrap();
    let (calls, usec) = evalsha_stats(con);
    let before = used_memory(con);
    // pipelines of 50: a deeper one (500 votes, about 75 KB) grows the
    // connection's query buffer, which Redis shrinks back only in its
    // clients cron, so used_memory would count it, or not, by timing
    for chunk in names.chunks(50) {
        let mut pipe = redis::pipe();
        let calls: Vec<_> = chunk
            .iter()
            .enumerate()
            .map(|(i, user)| {
                let option = format!("opt{}", i % OPTIONS);
                c.vote_by(
                    &Voter::new(user).channel("web").device("pc"),
                    &[("stars", &option)],
                )
            })
            .collect();
        for call in &calls {
            call.add_to(&mut pipe);
        }
        let replies: Vec<Value> = pipe.query(con).unwrap();
        for (call, reply) in calls.iter().zip(replies) {
            call.decode(reply).unwrap();
        }
    }
    let delta = used_memory(con) - before;
    let (calls_after, usec_after) = evalsha_stats(con);
    (delta, (usec_after - usec) / (calls_after - calls))
}

#[test]
fn a_rate_limited_user_costs_at_most_100_bytes() {
    let server = support::server();
    let mut con = support::con(&server);
    let board = BoardSettings {
        options: (0..OPTIONS)
            .map(|o| (format!("opt{o}"), OptionSettings::default()))
            .collect(),
        ..BoardSettings::new(&[Period::Day, Period::Total])
    };
    let settings = |rules| {
        CampaignSettings::new()
            .with_limits(rules)
            .with_board("stars", board.clone())
    };
    let (warm, free, limited, hashes) = (
        Campaign::new("warm"),
        Campaign::new("free"),
        Campaign::new("limited"),
        Campaign::new("hashes"),
    );
    for c in [&warm, &free] {
        c.configure(&settings(vec![])).run(&mut con).unwrap();
    }
    for c in [&limited, &hashes] {
        c.configure(&settings(bench_rules())).run(&mut con).unwrap();
    }
    // for comparison: layout 2, a hash per voter
    super::at_layout_2(&mut con, &hashes);
    // an explicit second in the server's future: no counter expires while
    // the test reads the memory
    let now = support::server_time(&mut con) as u64;
    let at = now - now % 3600 + 7200 + 30;
    // the INFO sections' own first allocations, before any measure
    evalsha_stats(&mut con);
    used_memory(&mut con);
    // a first round of votes, not counted: the server's one-time
    // allocations and frees (tens of KB) fall in it
    votes_cost(&mut con, &warm, at);
    let (base, usec_free) = votes_cost(&mut con, &free, at);
    let (whole, usec) = votes_cost(&mut con, &limited, at);
    let per_user = (whole - base) as f64 / users() as f64;
    let (hashes_whole, usec_2) = votes_cost(&mut con, &hashes, at);
    let layout_2 = (hashes_whole - base) as f64 / users() as f64;
    let buckets: Vec<String> = support::keys(&mut con, &format!("{}rlb:*", limited.namespace()))
        .into_iter()
        .collect();
    let mut usage = 0i64;
    for k in support::keys(&mut con, &format!("{}rl*", limited.namespace())) {
        let n: Option<i64> = redis::cmd("MEMORY")
            .arg("USAGE")
            .arg(&k)
            .arg("SAMPLES")
            .arg(0)
            .query(&mut con)
            .unwrap();
        usage += n.unwrap_or(0);
    }
    println!(
        "rate-limited user: {per_user:.1} B (used_memory delta {whole} B with the 4 rules, {base} B without, \
         {} users); the whole vote {:.1} B a user; MEMORY USAGE of the counters {:.1} B a user; {} buckets; \
         layout 2 (a hash a voter): {layout_2:.1} B; server µs a vote: {usec:.1} (layout 2 {usec_2:.1}, \
         no rules {usec_free:.1})",
        users(),
        whole as f64 / users() as f64,
        usage as f64 / users() as f64,
        buckets.len()
    );
    let voters = support::keys(&mut con, &format!("{}rlu:*", limited.namespace()));
    assert!(
        voters.is_empty(),
        "no voter hash with fixed windows only: {voters:?}"
    );
    if users() < 5000 {
        return; // below 5,000 voters a window the buckets' keys weigh more
    }
    assert!(
        per_user <= 100.0,
        "{per_user:.1} B a rate-limited user, over the 100 B target"
    );
}
