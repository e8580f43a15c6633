//! Rate limits and deny lists of campaign votes against a real redis-server:
//! every dimension (user, option, channel, device) and combination, every
//! window (second .. month, calendar-aligned in the campaign's UTC offset,
//! and the whole campaign), a partner channel's extra allowance, several
//! rules at once (a vote passes only if every rule passes and nothing is
//! spent unless all do), the refusal's rule / retry_after / remaining, cost,
//! peek and reset, deny lists, batches (pair by pair, all or nothing), the
//! rolling GCRA rule (no edge burst), counters that expire with their window
//! (explicit clock via EXPIRETIME, and real expiry with the server clock),
//! 50 concurrent tasks on one multiplexed connection, and the refusal of
//! every malformed rule at configure time.
//!
//! Every vote but the real-expiry test runs at an explicit Unix time
//! (`Campaign::at`) in 2040: the counters expire by the server's clock, so
//! the test times must lie in the future for a counter to outlive its vote.
//!
//! A file per topic; here: the rule and campaign builders and the
//! assertions they share.

mod batches;
mod concurrency;
mod configure;
mod deny;
mod diff;
mod dimensions;
mod exact;
mod expiry;
mod memory;
mod peek_readonly;
mod rolling;
mod rolling_corrupt;
mod spending;
mod windows;
mod wrong_type;

use std::collections::{BTreeMap, BTreeSet};

use redis::Connection;
use redvote::campaign::{
    BoardSettings, Dimension, LimitLeft, LimitRule, OptionSettings, Rolling, Voter, Window,
};
use redvote::{Campaign, CampaignSettings, Code, Error, Period, RateLimited};

use crate::support::{self, keys, real_total, utc};

/// (board, option) pairs of one vote.
type Pairs<'a> = &'a [(&'a str, &'a str)];

// ---- rules and campaigns ---------------------------------------------------

fn fixed(name: &str, by: &[Dimension], window: Window, limit: u64) -> LimitRule {
    LimitRule::fixed(name, by, window, limit)
}

fn rolling(name: &str, by: &[Dimension], limit: u64, per: u64, burst: u64) -> LimitRule {
    LimitRule::rolling(name, by, Rolling::new(limit, per).with_burst(burst))
}

/// Settings of a campaign at `offset` with `rules` and boards of options
/// (every board keeps `total` only).
fn settings(offset: &str, rules: Vec<LimitRule>, boards: &[(&str, &[&str])]) -> CampaignSettings {
    CampaignSettings {
        offset: Some(offset.to_string()),
        limits: Some(rules),
        boards: boards
            .iter()
            .map(|(board, options)| {
                let options = options
                    .iter()
                    .map(|o| (o.to_string(), OptionSettings::default()))
                    .collect();
                let spec = BoardSettings {
                    options,
                    ..BoardSettings::new(&[Period::Total])
                };
                (board.to_string(), spec)
            })
            .collect(),
        ..Default::default()
    }
}

/// The standard boards: `b` and `b2`, each with options a, b, c.
const BOARDS: &[(&str, &[&str])] = &[("b", &["a", "b", "c"]), ("b2", &["a", "b", "c"])];

/// Configure campaign `name` with the given settings; refuses to run when
/// the server's clock is already past the test times (counters would expire
/// at once).
fn configure(con: &mut Connection, name: &str, s: &CampaignSettings) -> Campaign {
    assert!(
        (support::server_time(con) as u64) < utc((2039, 1, 1), (0, 0, 0)),
        "the tests vote in 2040 and need the server clock before it"
    );
    support::setup(con, name, s.clone())
}

/// Campaign `name` at +08:00 with `rules` and the standard boards.
fn with_rules(con: &mut Connection, name: &str, rules: Vec<LimitRule>) -> Campaign {
    configure(con, name, &settings("+08:00", rules, BOARDS))
}

/// Puts a freshly configured campaign (no vote yet) at data layout 2, where
/// every per-user counter lives in the voter's hash `rlu:USER` (layouts 1
/// and 2; layout 3, what configure writes, buckets the fixed-window ones).
fn at_layout_2(con: &mut Connection, c: &Campaign) {
    let root = format!("{}campaign", c.namespace());
    redis::cmd("HSET")
        .arg(&root)
        .arg("layout")
        .arg(2)
        .exec(con)
        .unwrap();
}

/// The bucket `rlb:RULE:WINDOW:N` a user's counters of fixed-window rules
/// live in on layout 3: the first 32 bits of the SHA1 of the user, modulo
/// 256 (lib/limits.lua).
fn bucket_of(con: &mut Connection, user: &str) -> u64 {
    let hex: String = redis::cmd("EVAL")
        .arg("return redis.sha1hex(ARGV[1])")
        .arg(0)
        .arg(user)
        .query(con)
        .unwrap();
    u64::from_str_radix(&hex[..8], 16).unwrap() % 256
}

fn voter(user: &str, channel: Option<&str>, device: Option<&str>) -> Voter {
    Voter {
        user: user.into(),
        channel: channel.map(Into::into),
        device: device.map(Into::into),
        cost: 1,
        id: None,
    }
}

fn costing(user: &str, cost: u32) -> Voter {
    Voter {
        user: user.into(),
        channel: None,
        device: None,
        cost,
        id: None,
    }
}

// ---- assertions ------------------------------------------------------------

/// The rate-limit refusal of a call that must be refused by one.
#[track_caller]
fn limited<T: std::fmt::Debug>(result: redvote::Result<T>) -> RateLimited {
    match result {
        Err(Error::RateLimited(r)) => r,
        other => panic!("expected Error::RateLimited, got {other:?}"),
    }
}

/// The refusal expected: rule, retry_after and every rule's remaining.
fn refusal(rule: &str, retry_after: i64, remaining: &[(&str, i64)]) -> RateLimited {
    RateLimited {
        rule: rule.to_string(),
        retry_after,
        remaining: remaining.iter().map(|(r, n)| (r.to_string(), *n)).collect(),
    }
}

/// The script code of a call that must be refused with one.
#[track_caller]
fn code_of<T: std::fmt::Debug>(result: redvote::Result<T>) -> Code {
    match result {
        Err(Error::Script { code, .. }) => code,
        other => panic!("expected a script refusal, got {other:?}"),
    }
}

/// A vote that must be refused by a rate limit and write nothing.
#[track_caller]
fn refused_vote(con: &mut Connection, c: &Campaign, v: &Voter, pairs: Pairs, want: RateLimited) {
    let before = support::digest(con);
    assert_eq!(limited(c.vote_by(v, pairs).run(con)), want);
    assert_eq!(support::digest(con), before, "a refused vote wrote");
}

/// A vote that must pass.
#[track_caller]
fn pass(con: &mut Connection, c: &Campaign, v: &Voter, pairs: Pairs) {
    if let Err(e) = c.vote_by(v, pairs).run(con) {
        panic!("vote of {} {pairs:?} refused: {e}", v.user);
    }
}

#[track_caller]
fn pass_n(con: &mut Connection, c: &Campaign, v: &Voter, pairs: Pairs, n: usize) {
    for _ in 0..n {
        pass(con, c, v, pairs);
    }
}

fn peek(con: &mut Connection, c: &Campaign, v: &Voter, pairs: Pairs) -> Vec<LimitLeft> {
    c.limits(v, pairs).run(con).unwrap()
}

fn lefts(items: &[(&str, i64, i64)]) -> Vec<LimitLeft> {
    items
        .iter()
        .map(|(rule, remaining, reset_in)| LimitLeft {
            rule: rule.to_string(),
            remaining: *remaining,
            reset_in: *reset_in,
        })
        .collect()
}

/// Every rate-limit key of the campaign: `rl:...` counters, `rlu:USER`
/// voter hashes and `rlb:RULE:WINDOW:N` buckets.
fn rl_keys(con: &mut Connection, c: &Campaign) -> BTreeSet<String> {
    keys(con, &format!("{}rl*", c.namespace()))
}

/// Every rate-limit counter of the campaign with the Unix second it ends at
/// (-1: never, -2: gone): a string counter `rl:...` by its `EXPIRETIME`; a
/// field F of a voter's hash `rlu:USER` as `rlu:USER#F`, by the end its
/// value names (`END:COUNT:WINDOW`; a rolling TAT: one second after it, rounded
/// up). Asserts that each voter hash expires exactly at its `@` field, the
/// latest end among its counters. A bucket `rlb:...` by its `EXPIRETIME`,
/// asserting that each of its fields holds a count of at least 1.
fn rl_expiries(con: &mut Connection, c: &Campaign) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for k in rl_keys(con, c) {
        let expires: i64 = redis::cmd("EXPIRETIME").arg(&k).query(con).unwrap();
        if k[c.namespace().len()..].starts_with("rlb:") {
            let counts: BTreeMap<String, String> =
                redis::cmd("HGETALL").arg(&k).query(con).unwrap();
            for (f, v) in &counts {
                assert!(v.parse::<u64>().unwrap() >= 1, "{k} {f} = {v}");
            }
        }
        if !k[c.namespace().len()..].starts_with("rlu:") {
            out.insert(k, expires);
            continue;
        }
        let fields: BTreeMap<String, String> = redis::cmd("HGETALL").arg(&k).query(con).unwrap();
        if fields.is_empty() {
            continue; // expired since SCAN
        }
        let mut latest = 0;
        for (f, v) in &fields {
            if f == "@" {
                continue;
            }
            // END:COUNT:WINDOW, or a rolling TAT
            let mut parts = v.split(':');
            let end = match (parts.next(), parts.next(), parts.next()) {
                (Some(end), Some(count), Some(window)) => {
                    assert!(count.parse::<u64>().unwrap() >= 1, "{k} {f} = {v}");
                    assert!(!window.is_empty(), "{k} {f} = {v}");
                    end.parse::<i64>().unwrap()
                }
                _ => {
                    let (secs, rest) = v.split_once('.').unwrap();
                    let late = rest.contains('+') || !rest.trim_start_matches('0').is_empty();
                    secs.parse::<i64>().unwrap() + i64::from(late) + 1
                }
            };
            latest = latest.max(end);
            out.insert(format!("{k}#{f}"), end);
        }
        assert_eq!(
            fields.get("@"),
            Some(&latest.to_string()),
            "{k}: {fields:?}"
        );
        assert_eq!(expires, latest, "{k} expires at its latest counter's end");
    }
    out
}
