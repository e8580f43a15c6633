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

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use chrono::{FixedOffset, TimeZone};
use redis::{Connection, Value};
use redvote::campaign::{
    BoardSettings, DenyLists, Dimension, LimitLeft, LimitRule, OptionSettings, Rolling, Voter,
    Window,
};
use redvote::{Campaign, CampaignSettings, Code, Error, Period, RateLimited};

use Dimension::{Channel, Device, Option as Opt, User};

/// (board, option) pairs of one vote.
type Pairs<'a> = &'a [(&'a str, &'a str)];

const HOUR: u64 = 3600;
const DAY: u64 = 86400;

// ---- time ------------------------------------------------------------------

/// Unix seconds of a wall-clock time at UTC offset `offset` seconds.
fn at_offset(offset: i32, y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> u64 {
    FixedOffset::east_opt(offset)
        .unwrap()
        .with_ymd_and_hms(y, mo, d, h, mi, s)
        .single()
        .unwrap()
        .timestamp() as u64
}

/// Unix seconds of a wall-clock time in the campaigns' offset, +08:00.
fn local(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> u64 {
    at_offset(8 * 3600, y, mo, d, h, mi, s)
}

/// Unix seconds of a UTC wall-clock time.
fn utc(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> u64 {
    at_offset(0, y, mo, d, h, mi, s)
}

// ---- rules and campaigns ---------------------------------------------------

fn fixed(name: &str, by: &[Dimension], window: Window, limit: u64) -> LimitRule {
    LimitRule {
        name: name.to_string(),
        by: by.to_vec(),
        window: Some(window),
        limit: Some(limit),
        rolling: None,
        extra: BTreeMap::new(),
    }
}

fn rolling(name: &str, by: &[Dimension], limit: u64, per: u64, burst: u64) -> LimitRule {
    LimitRule {
        name: name.to_string(),
        by: by.to_vec(),
        window: None,
        limit: None,
        rolling: Some(Rolling {
            limit,
            per,
            burst: Some(burst),
        }),
        extra: BTreeMap::new(),
    }
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
                    periods: Some(vec![Period::Total]),
                    options,
                    ..Default::default()
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
        (common::server_time(con) as u64) < utc(2039, 1, 1, 0, 0, 0),
        "the tests vote in 2040 and need the server clock before it"
    );
    let c = Campaign::new(name);
    c.configure(s).run(con).unwrap();
    c
}

/// Campaign `name` at +08:00 with `rules` and the standard boards.
fn setup(con: &mut Connection, name: &str, rules: Vec<LimitRule>) -> Campaign {
    configure(con, name, &settings("+08:00", rules, BOARDS))
}

fn voter<'a>(user: &'a str, channel: Option<&'a str>, device: Option<&'a str>) -> Voter<'a> {
    Voter {
        user,
        channel,
        device,
        cost: 1,
    }
}

fn costing(user: &str, cost: u32) -> Voter<'_> {
    Voter {
        user,
        channel: None,
        device: None,
        cost,
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
    let before = common::digest(con);
    assert_eq!(limited(c.vote_by(v, pairs).run(con)), want);
    assert_eq!(common::digest(con), before, "a refused vote wrote");
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

/// The real (one per vote) total of an option.
fn real(con: &mut Connection, c: &Campaign, board: &str, option: &str) -> u64 {
    let key = format!("{}b:{board}:real:total", c.namespace());
    let score: Option<String> = redis::cmd("ZSCORE")
        .arg(key)
        .arg(option)
        .query(con)
        .unwrap();
    score.map_or(0, |s| s.parse().unwrap())
}

fn rl_keys(con: &mut Connection, c: &Campaign) -> BTreeSet<String> {
    redis::cmd("KEYS")
        .arg(format!("{}rl:*", c.namespace()))
        .query(con)
        .unwrap()
}

/// Every rate-limit key with its `EXPIRETIME` (the Unix second it expires
/// at; -1: never, -2: gone).
fn rl_expiries(con: &mut Connection, c: &Campaign) -> BTreeMap<String, i64> {
    let keys = rl_keys(con, c);
    let mut pipe = redis::pipe();
    for k in &keys {
        pipe.cmd("EXPIRETIME").arg(k);
    }
    let times: Vec<i64> = pipe.query(con).unwrap();
    keys.into_iter().zip(times).collect()
}

fn dbsize(con: &mut Connection) -> usize {
    redis::cmd("DBSIZE").query(con).unwrap()
}

/// A raw campaign_configure call with a JSON string (what the typed API
/// cannot express), its error mapped to `redvote::Error`.
fn raw_configure(con: &mut Connection, c: &Campaign, json: &str) -> redvote::Result<Value> {
    redvote::scripts::get("campaign_configure")
        .unwrap()
        .script()
        .key(c.root_key())
        .arg(json)
        .invoke::<Value>(con)
        .map_err(Error::from)
}

// ---- dimensions ------------------------------------------------------------

#[test]
fn by_user_counts_each_user_apart() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "lim",
        vec![fixed("user-minute", &[User], Window::Minute, 5)],
    );
    let t = local(2040, 3, 13, 12, 0, 20);
    let alice = Voter::new("alice");
    for i in 0..5 {
        // any option, any board: one allowance per user
        let pair = [("b", "a"), ("b", "b"), ("b2", "c"), ("b", "a"), ("b2", "a")][i];
        pass(&mut con, &c.at(t + i as u64), &alice, &[pair]);
    }
    let want = refusal("user-minute", 35, &[("user-minute", 0)]);
    refused_vote(&mut con, &c.at(t + 5), &alice, &[("b", "c")], want);
    // bob has his own five
    let bob = Voter::new("bob");
    pass_n(&mut con, &c.at(t + 5), &bob, &[("b", "c")], 5);
    let want = refusal("user-minute", 35, &[("user-minute", 0)]);
    refused_vote(&mut con, &c.at(t + 5), &bob, &[("b", "c")], want);
    // the next minute, alice votes again
    let next = local(2040, 3, 13, 12, 1, 0);
    pass(&mut con, &c.at(next), &alice, &[("b", "a")]);
    assert_eq!(
        peek(&mut con, &c.at(next), &alice, &[]),
        lefts(&[("user-minute", 4, 60)])
    );
    assert_eq!(real(&mut con, &c, "b", "a"), 3);
    assert_eq!(real(&mut con, &c, "b", "c"), 5);
}

#[test]
fn by_option_counts_each_board_option_apart() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "lim",
        vec![fixed("option-minute", &[Opt], Window::Minute, 3)],
    );
    let t = local(2040, 3, 13, 12, 0, 30);
    let c = c.at(t);
    for user in ["u1", "u2", "u3"] {
        pass(&mut con, &c, &Voter::new(user), &[("b", "a")]);
    }
    let want = refusal("option-minute", 30, &[("option-minute", 0)]);
    refused_vote(&mut con, &c, &Voter::new("u4"), &[("b", "a")], want);
    // another option, and the same option name on another board: their own
    pass(&mut con, &c, &Voter::new("u4"), &[("b", "b")]);
    pass(&mut con, &c, &Voter::new("u4"), &[("b2", "a")]);
    assert_eq!(
        peek(
            &mut con,
            &c,
            &Voter::new("u9"),
            &[("b", "a"), ("b", "b"), ("b2", "a")]
        ),
        lefts(&[
            ("option-minute", 0, 30),
            ("option-minute", 2, 30),
            ("option-minute", 2, 30)
        ])
    );
    // an option rule needs the pairs to look at
    assert_eq!(peek(&mut con, &c, &Voter::new("u9"), &[]), lefts(&[]));
    assert_eq!(real(&mut con, &c, "b", "a"), 3);
}

#[test]
fn by_channel_counts_each_channel_apart() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "lim",
        vec![fixed("channel-hour", &[Channel], Window::Hour, 4)],
    );
    let c = c.at(local(2040, 3, 13, 12, 30, 0));
    for user in ["u1", "u2", "u3", "u4"] {
        pass(&mut con, &c, &voter(user, Some("web"), None), &[("b", "a")]);
    }
    let want = refusal("channel-hour", 1800, &[("channel-hour", 0)]);
    refused_vote(
        &mut con,
        &c,
        &voter("u5", Some("web"), None),
        &[("b", "a")],
        want,
    );
    pass(&mut con, &c, &voter("u5", Some("app"), None), &[("b", "a")]);
    assert_eq!(
        peek(&mut con, &c, &voter("u9", Some("app"), None), &[]),
        lefts(&[("channel-hour", 3, 1800)])
    );
}

#[test]
fn by_device_counts_each_device_apart() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "lim",
        vec![fixed("device-day", &[Device], Window::Day, 2)],
    );
    // 22:00 local: 2 hours to the end of the local day
    let c = c.at(local(2040, 3, 13, 22, 0, 0));
    pass(&mut con, &c, &voter("u1", None, Some("pc")), &[("b", "a")]);
    pass(&mut con, &c, &voter("u2", None, Some("pc")), &[("b", "b")]);
    let want = refusal("device-day", 2 * 3600, &[("device-day", 0)]);
    refused_vote(
        &mut con,
        &c,
        &voter("u3", None, Some("pc")),
        &[("b", "c")],
        want,
    );
    pass(
        &mut con,
        &c,
        &voter("u3", None, Some("mobile")),
        &[("b", "c")],
    );
}

#[test]
fn user_x_channel_counts_each_pair_apart() {
    let server = common::server();
    let mut con = common::con(&server);
    let rule = fixed("user-channel-day", &[User, Channel], Window::Day, 2);
    let c = setup(&mut con, "lim", vec![rule]);
    let c = c.at(local(2040, 3, 13, 12, 0, 0));
    let web = voter("alice", Some("web"), None);
    pass_n(&mut con, &c, &web, &[("b", "a")], 2);
    let want = refusal("user-channel-day", 12 * 3600, &[("user-channel-day", 0)]);
    refused_vote(&mut con, &c, &web, &[("b", "a")], want);
    // alice on another channel, bob on the same channel: their own counters
    pass_n(
        &mut con,
        &c,
        &voter("alice", Some("app"), None),
        &[("b", "a")],
        2,
    );
    pass_n(
        &mut con,
        &c,
        &voter("bob", Some("web"), None),
        &[("b", "a")],
        2,
    );
    assert_eq!(real(&mut con, &c, "b", "a"), 6);
}

#[test]
fn user_x_device_a_user_out_of_pc_votes_can_still_vote_on_mobile() {
    let server = common::server();
    let mut con = common::con(&server);
    let rule = fixed("user-device-day", &[User, Device], Window::Day, 3);
    let c = setup(&mut con, "lim", vec![rule]);
    let c = c.at(local(2040, 3, 13, 18, 0, 0));
    let pc = voter("alice", None, Some("pc"));
    let mobile = voter("alice", None, Some("mobile"));
    pass_n(&mut con, &c, &pc, &[("b", "a")], 3);
    let want = refusal("user-device-day", 6 * 3600, &[("user-device-day", 0)]);
    refused_vote(&mut con, &c, &pc, &[("b", "a")], want.clone());
    pass_n(&mut con, &c, &mobile, &[("b", "a")], 3);
    refused_vote(&mut con, &c, &mobile, &[("b", "a")], want);
    assert_eq!(
        peek(&mut con, &c, &voter("alice", None, Some("tablet")), &[]),
        lefts(&[("user-device-day", 3, 6 * 3600)])
    );
    // bob on pc: his own counter
    pass(&mut con, &c, &voter("bob", None, Some("pc")), &[("b", "a")]);
    assert_eq!(real(&mut con, &c, "b", "a"), 7);
}

#[test]
fn partner_channel_gets_its_extra_allowance() {
    let server = common::server();
    let mut con = common::con(&server);
    let mut rule = fixed("user-minute", &[User], Window::Minute, 5);
    rule.extra.insert("partner".to_string(), 5);
    let c = setup(&mut con, "lim", vec![rule]);
    let c = c.at(local(2040, 3, 13, 12, 0, 10));
    let partner = voter("alice", Some("partner"), None);
    let web = voter("alice", Some("web"), None);
    assert_eq!(
        peek(&mut con, &c, &partner, &[]),
        lefts(&[("user-minute", 10, 50)])
    );
    pass_n(&mut con, &c, &partner, &[("b", "a")], 10);
    let want = refusal("user-minute", 50, &[("user-minute", 0)]);
    refused_vote(&mut con, &c, &partner, &[("b", "a")], want.clone());
    refused_vote(&mut con, &c, &web, &[("b", "a")], want.clone());
    // bob: 5 on the web, then 5 more through the partner, never 11
    let bob_web = voter("bob", Some("web"), None);
    let bob_partner = voter("bob", Some("partner"), None);
    pass_n(&mut con, &c, &bob_web, &[("b", "a")], 5);
    refused_vote(&mut con, &c, &bob_web, &[("b", "a")], want.clone());
    assert_eq!(
        peek(&mut con, &c, &bob_partner, &[]),
        lefts(&[("user-minute", 5, 50)])
    );
    pass_n(&mut con, &c, &bob_partner, &[("b", "a")], 5);
    refused_vote(&mut con, &c, &bob_partner, &[("b", "a")], want);
    assert_eq!(real(&mut con, &c, "b", "a"), 20);
}

// ---- windows -----------------------------------------------------------------

/// One fixed window [start, end) of a rule `w` by user with `limit`, at
/// `offset`: the second before `start` is another window, the last second
/// (`end - 1`) is refused with retry_after 1, `end` is a fresh window, and
/// each counter expires at its window's end. `inside`: a second inside the
/// window where a UTC-aligned window would have started afresh.
fn window_edges(
    offset: &str,
    window: Window,
    limit: u64,
    start: u64,
    end: u64,
    next_end: u64,
    inside: Option<u64>,
) {
    let server = common::server();
    let mut con = common::con(&server);
    let rule = fixed("w", &[User], window, limit);
    let c = configure(&mut con, "lim", &settings(offset, vec![rule], BOARDS));
    let alice = Voter::new("alice");
    let n = limit as usize;
    let exhausted = |retry: i64| refusal("w", retry, &[("w", 0)]);

    // the last second of the previous window
    pass_n(&mut con, &c.at(start - 1), &alice, &[("b", "a")], n);
    refused_vote(
        &mut con,
        &c.at(start - 1),
        &alice,
        &[("b", "a")],
        exhausted(1),
    );
    assert_eq!(
        peek(&mut con, &c.at(start - 1), &alice, &[]),
        lefts(&[("w", 0, 1)])
    );
    // the first second of the window: a fresh allowance
    assert_eq!(
        peek(&mut con, &c.at(start), &alice, &[]),
        lefts(&[("w", limit as i64, (end - start) as i64)])
    );
    pass_n(&mut con, &c.at(start), &alice, &[("b", "a")], n);
    assert_eq!(
        peek(&mut con, &c.at(start), &alice, &[]),
        lefts(&[("w", 0, (end - start) as i64)])
    );
    if let Some(t) = inside {
        refused_vote(
            &mut con,
            &c.at(t),
            &alice,
            &[("b", "a")],
            exhausted((end - t) as i64),
        );
    }
    // its last second
    refused_vote(
        &mut con,
        &c.at(end - 1),
        &alice,
        &[("b", "a")],
        exhausted(1),
    );
    let expiries: BTreeSet<i64> = rl_expiries(&mut con, &c).into_values().collect();
    assert_eq!(expiries, BTreeSet::from([start as i64, end as i64]));
    // the next window
    pass(&mut con, &c.at(end), &alice, &[("b", "a")]);
    assert_eq!(
        peek(&mut con, &c.at(end), &alice, &[]),
        lefts(&[("w", limit as i64 - 1, (next_end - end) as i64)])
    );
    let expiries: BTreeSet<i64> = rl_expiries(&mut con, &c).into_values().collect();
    assert_eq!(
        expiries,
        BTreeSet::from([start as i64, end as i64, next_end as i64])
    );
    assert_eq!(real(&mut con, &c, "b", "a"), 2 * limit + 1);
}

#[test]
fn window_second() {
    let t = local(2040, 3, 13, 12, 0, 0);
    window_edges("+08:00", Window::Second, 2, t, t + 1, t + 2, None);
}

#[test]
fn window_minute() {
    let t = local(2040, 3, 13, 12, 0, 0);
    window_edges("+08:00", Window::Minute, 5, t, t + 60, t + 120, None);
}

#[test]
fn window_hour() {
    let t = local(2040, 3, 13, 12, 0, 0);
    window_edges("+08:00", Window::Hour, 3, t, t + HOUR, t + 2 * HOUR, None);
}

#[test]
fn window_hour_at_a_half_hour_offset() {
    // +05:30: local hours start at :30 UTC; 07:00 UTC is inside 12:00..13:00
    let off = 5 * 3600 + 1800;
    let t = at_offset(off, 2040, 3, 13, 12, 0, 0);
    let inside = utc(2040, 3, 13, 7, 0, 0);
    assert_eq!(inside, t + 1800);
    window_edges(
        "+05:30",
        Window::Hour,
        3,
        t,
        t + HOUR,
        t + 2 * HOUR,
        Some(inside),
    );
}

#[test]
fn window_day_local_midnight() {
    // the local day 2040-03-13 (+08:00) is 03-12 16:00 .. 03-13 16:00 UTC;
    // UTC midnight (local 08:00) is inside it
    let start = local(2040, 3, 13, 0, 0, 0);
    let end = local(2040, 3, 14, 0, 0, 0);
    assert_eq!(start, utc(2040, 3, 12, 16, 0, 0));
    window_edges(
        "+08:00",
        Window::Day,
        3,
        start,
        end,
        end + DAY,
        Some(utc(2040, 3, 13, 0, 0, 0)),
    );
}

#[test]
fn window_week_local_monday() {
    // ISO week 2040-W11: Monday 03-12 .. Monday 03-19, local time
    let start = local(2040, 3, 12, 0, 0, 0);
    let end = local(2040, 3, 19, 0, 0, 0);
    window_edges(
        "+08:00",
        Window::Week,
        3,
        start,
        end,
        end + 7 * DAY,
        Some(utc(2040, 3, 12, 0, 0, 0)),
    );
}

#[test]
fn window_month_local_first() {
    // the second before is 2040-02-29 23:59:59 local (a leap day)
    let start = local(2040, 3, 1, 0, 0, 0);
    let end = local(2040, 4, 1, 0, 0, 0);
    let next_end = local(2040, 5, 1, 0, 0, 0);
    assert_eq!(start - 1, local(2040, 2, 29, 23, 59, 59));
    window_edges(
        "+08:00",
        Window::Month,
        3,
        start,
        end,
        next_end,
        Some(utc(2040, 3, 1, 0, 0, 0)),
    );
}

#[test]
fn window_campaign_one_vote_per_user() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "lim",
        vec![fixed("once", &[User], Window::Campaign, 1)],
    );
    let t = local(2040, 3, 13, 12, 0, 0);
    let alice = Voter::new("alice");
    pass(&mut con, &c.at(t), &alice, &[("b", "a")]);
    // a day, a month, a year later: still refused, for good
    for later in [t + 1, t + DAY, t + 31 * DAY, t + 365 * DAY] {
        let want = refusal("once", -1, &[("once", 0)]);
        refused_vote(&mut con, &c.at(later), &alice, &[("b", "b")], want);
        assert_eq!(
            peek(&mut con, &c.at(later), &alice, &[]),
            lefts(&[("once", 0, -1)])
        );
    }
    pass(&mut con, &c.at(t + DAY), &Voter::new("bob"), &[("b", "a")]);
    // without an end, the counters never expire
    let expiries = rl_expiries(&mut con, &c);
    assert_eq!(expiries.len(), 2);
    assert!(expiries.values().all(|e| *e == -1), "{expiries:?}");
    assert_eq!(real(&mut con, &c, "b", "a"), 2);
}

/// A campaign with an end: the counter expires at the end, and an exhausted
/// campaign rule is never passable within the campaign, so retry_after and
/// reset_in are -1 as documented (RateLimited::retry_after, LimitLeft::reset_in).
#[test]
fn window_campaign_with_an_end_retry_after_is_minus_one() {
    let server = common::server();
    let mut con = common::con(&server);
    let end = local(2040, 4, 1, 0, 0, 0);
    let mut s = settings(
        "+08:00",
        vec![fixed("once", &[User], Window::Campaign, 1)],
        BOARDS,
    );
    s.end = Some(end);
    let c = configure(&mut con, "lim", &s);
    let t = local(2040, 3, 13, 12, 0, 0);
    let alice = Voter::new("alice");
    pass(&mut con, &c.at(t), &alice, &[("b", "a")]);
    let keys = rl_expiries(&mut con, &c);
    assert_eq!(keys.into_values().collect::<Vec<_>>(), vec![end as i64]);
    let want = refusal("once", -1, &[("once", 0)]);
    refused_vote(&mut con, &c.at(t + DAY), &alice, &[("b", "a")], want);
    assert_eq!(
        peek(&mut con, &c.at(t + DAY), &alice, &[]),
        lefts(&[("once", 0, -1)])
    );
}

// ---- several rules, cost, peek, reset ----------------------------------------

#[test]
fn every_rule_must_pass_and_a_refusal_spends_nothing() {
    let server = common::server();
    let mut con = common::con(&server);
    // the refusing rule comes after one that would pass: it must not be spent
    let c = setup(
        &mut con,
        "lim",
        vec![
            fixed("user-hour", &[User], Window::Hour, 3),
            fixed("user-minute", &[User], Window::Minute, 2),
            fixed("option-minute", &[Opt], Window::Minute, 100),
        ],
    );
    let alice = Voter::new("alice");
    let t = c.at(local(2040, 3, 13, 12, 0, 30));
    pass_n(&mut con, &t, &alice, &[("b", "a")], 2);
    let before = lefts(&[
        ("user-hour", 1, 3570),
        ("user-minute", 0, 30),
        ("option-minute", 98, 30),
    ]);
    assert_eq!(peek(&mut con, &t, &alice, &[("b", "a")]), before);
    let want = refusal(
        "user-minute",
        30,
        &[("user-hour", 1), ("user-minute", 0), ("option-minute", 98)],
    );
    for _ in 0..3 {
        refused_vote(&mut con, &t, &alice, &[("b", "a")], want.clone());
        assert_eq!(peek(&mut con, &t, &alice, &[("b", "a")]), before);
    }
    assert_eq!(real(&mut con, &c, "b", "a"), 2);

    // the next minute: the hour rule refuses the second vote
    let t = c.at(local(2040, 3, 13, 12, 1, 0));
    pass(&mut con, &t, &alice, &[("b", "a")]);
    let want = refusal(
        "user-hour",
        3540,
        &[("user-hour", 0), ("user-minute", 1), ("option-minute", 99)],
    );
    refused_vote(&mut con, &t, &alice, &[("b", "a")], want);
    // both refuse (cost 2 > 1 left a minute, 0 left an hour): the first
    // rule is named, retry_after is the longer wait
    let want = refusal(
        "user-hour",
        3540,
        &[("user-hour", 0), ("user-minute", 1), ("option-minute", 99)],
    );
    refused_vote(&mut con, &t, &costing("alice", 2), &[("b", "a")], want);
    assert_eq!(
        peek(&mut con, &t, &alice, &[("b", "a")]),
        lefts(&[
            ("user-hour", 0, 3540),
            ("user-minute", 1, 60),
            ("option-minute", 99, 60),
        ])
    );
    // the option rule refuses while the user rules pass: nothing spent
    let c2 = setup(
        &mut con,
        "two",
        vec![
            fixed("user-minute", &[User], Window::Minute, 5),
            fixed("option-minute", &[Opt], Window::Minute, 1),
        ],
    );
    let t2 = c2.at(local(2040, 3, 13, 12, 0, 30));
    pass(&mut con, &t2, &Voter::new("bob"), &[("b", "a")]);
    let want = refusal(
        "option-minute",
        30,
        &[("user-minute", 5), ("option-minute", 0)],
    );
    refused_vote(&mut con, &t2, &alice, &[("b", "a")], want);
    assert_eq!(
        peek(&mut con, &t2, &alice, &[("b", "a")]),
        lefts(&[("user-minute", 5, 30), ("option-minute", 0, 30)])
    );
}

#[test]
fn cost_spends_that_many() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "lim",
        vec![fixed("user-minute", &[User], Window::Minute, 10)],
    );
    let t = c.at(local(2040, 3, 13, 12, 0, 0));
    for left in [7, 4, 1] {
        pass(&mut con, &t, &costing("alice", 3), &[("b", "a")]);
        assert_eq!(
            peek(&mut con, &t, &Voter::new("alice"), &[]),
            lefts(&[("user-minute", left, 60)])
        );
    }
    let want = refusal("user-minute", 60, &[("user-minute", 1)]);
    refused_vote(&mut con, &t, &costing("alice", 3), &[("b", "a")], want);
    pass(&mut con, &t, &costing("alice", 1), &[("b", "a")]);
    // the cost is what a vote spends of the limits, not its weight on the board
    assert_eq!(real(&mut con, &c, "b", "a"), 4);
    // a batch of 2 pairs at cost 2 spends 4
    let t = c.at(local(2040, 3, 13, 12, 1, 0));
    pass(
        &mut con,
        &t,
        &costing("alice", 2),
        &[("b", "a"), ("b", "b")],
    );
    assert_eq!(
        peek(&mut con, &t, &Voter::new("alice"), &[]),
        lefts(&[("user-minute", 6, 60)])
    );
    // cost outside 1..1000 is refused before anything else
    let before = common::digest(&mut con);
    for cost in [0, 1001] {
        let r = t
            .vote_by(&costing("alice", cost), &[("b", "a")])
            .run(&mut con);
        assert_eq!(code_of(r), Code::InvalidNumber);
    }
    assert_eq!(common::digest(&mut con), before);
}

#[test]
fn peek_spends_nothing() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "lim",
        vec![
            fixed("user-minute", &[User], Window::Minute, 5),
            fixed("option-minute", &[Opt], Window::Minute, 3),
            fixed("user-device-day", &[User, Device], Window::Day, 4),
            rolling("smooth", &[User], 5, 60, 5),
        ],
    );
    let t = c.at(local(2040, 3, 13, 12, 0, 15));
    let alice = voter("alice", None, Some("pc"));
    let fresh = lefts(&[
        ("user-minute", 5, 45),
        ("user-device-day", 4, 43200 - 15),
        ("smooth", 5, 0),
    ]);
    let with_pairs = lefts(&[
        ("user-minute", 5, 45),
        ("option-minute", 3, 45),
        ("option-minute", 3, 45),
        ("user-device-day", 4, 43200 - 15),
        ("smooth", 5, 0),
    ]);
    let before = common::digest(&mut con);
    for _ in 0..10 {
        assert_eq!(peek(&mut con, &t, &alice, &[]), fresh);
        assert_eq!(
            peek(&mut con, &t, &alice, &[("b", "a"), ("b", "b")]),
            with_pairs
        );
    }
    assert_eq!(common::digest(&mut con), before, "a peek wrote");
    assert!(rl_keys(&mut con, &c).is_empty());
    // one vote spends one of each
    pass(&mut con, &t, &alice, &[("b", "a")]);
    assert_eq!(
        peek(&mut con, &t, &alice, &[("b", "a"), ("b", "b")]),
        lefts(&[
            ("user-minute", 4, 45),
            ("option-minute", 2, 45),
            ("option-minute", 3, 45),
            ("user-device-day", 3, 43200 - 15),
            ("smooth", 4, 12),
        ])
    );
    // a campaign without rules has nothing to peek at
    let none = setup(&mut con, "none", vec![]);
    assert_eq!(
        peek(&mut con, &none.at(0), &alice, &[("b", "a")]),
        lefts(&[])
    );
}

#[test]
fn reset_limits_restores_a_users_allowance() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "lim",
        vec![
            fixed("user-minute", &[User], Window::Minute, 2),
            fixed("user-device-day", &[User, Device], Window::Day, 3),
            fixed("option-minute", &[Opt], Window::Minute, 100),
            rolling("smooth", &[User], 2, 60, 2),
        ],
    );
    let t = c.at(local(2040, 3, 13, 12, 0, 20));
    let alice = voter("alice", None, Some("pc"));
    let bob = voter("bob", None, Some("pc"));
    pass_n(&mut con, &t, &alice, &[("b", "a")], 2);
    pass(&mut con, &t, &bob, &[("b", "a")]);
    // minute: 40 s to wait; smooth (one per 30 s, burst 2): 30 s; the longer wins
    let want = refusal(
        "user-minute",
        40,
        &[
            ("user-minute", 0),
            ("user-device-day", 1),
            ("option-minute", 97),
            ("smooth", 0),
        ],
    );
    refused_vote(&mut con, &t, &alice, &[("b", "a")], want);

    // admin: every per-user counter of alice (minute, device-day, rolling)
    assert_eq!(t.reset_limits(&alice, &[]).run(&mut con).unwrap(), 3);
    assert_eq!(
        peek(&mut con, &t, &alice, &[("b", "a")]),
        lefts(&[
            ("user-minute", 2, 40),
            ("user-device-day", 3, 43200 - 20),
            ("option-minute", 97, 40),
            ("smooth", 2, 0),
        ])
    );
    // bob and the option counter are untouched
    assert_eq!(
        peek(&mut con, &t, &bob, &[]),
        lefts(&[
            ("user-minute", 1, 40),
            ("user-device-day", 2, 43200 - 20),
            ("smooth", 1, 30),
        ])
    );
    pass_n(&mut con, &t, &alice, &[("b", "a")], 2);
    // nothing left to reset for a user who never voted
    let before = common::digest(&mut con);
    assert_eq!(
        t.reset_limits(&voter("carol", None, Some("pc")), &[])
            .run(&mut con)
            .unwrap(),
        0
    );
    assert_eq!(common::digest(&mut con), before);
    assert_eq!(real(&mut con, &c, "b", "a"), 5);
}

// ---- deny lists ----------------------------------------------------------------

#[test]
fn deny_lists_refuse_users_and_channels_outright() {
    let server = common::server();
    let mut con = common::con(&server);
    let mut s = settings(
        "+08:00",
        vec![fixed("user-minute", &[User], Window::Minute, 5)],
        BOARDS,
    );
    s.deny = Some(DenyLists {
        users: Some(vec!["mallory".to_string()]),
        channels: Some(vec!["spam".to_string()]),
    });
    let c = configure(&mut con, "lim", &s);
    let t = c.at(local(2040, 3, 13, 12, 0, 0));
    let denied = |con: &mut Connection, v: &Voter| {
        let before = common::digest(con);
        assert_eq!(code_of(t.vote_by(v, &[("b", "a")]).run(con)), Code::Denied);
        assert_eq!(common::digest(con), before, "a denied vote wrote");
    };
    denied(&mut con, &Voter::new("mallory"));
    denied(&mut con, &voter("mallory", Some("web"), Some("pc")));
    denied(&mut con, &voter("alice", Some("spam"), None));
    pass(
        &mut con,
        &t,
        &voter("alice", Some("web"), None),
        &[("b", "a")],
    );
    pass(&mut con, &t, &Voter::new("alice"), &[("b", "a")]);
    // the denied votes spent nothing
    assert_eq!(
        peek(&mut con, &t, &Voter::new("alice"), &[]),
        lefts(&[("user-minute", 3, 60)])
    );
    assert!(rl_keys(&mut con, &c).iter().all(|k| !k.contains("mallory")));
    // a new users list replaces the old one; the channels list stays
    let update = CampaignSettings {
        deny: Some(DenyLists {
            users: Some(vec![]),
            channels: None,
        }),
        ..Default::default()
    };
    c.configure(&update).run(&mut con).unwrap();
    pass(&mut con, &t, &Voter::new("mallory"), &[("b", "a")]);
    denied(&mut con, &voter("alice", Some("spam"), None));
    assert_eq!(real(&mut con, &c, "b", "a"), 3);
}

// ---- batches -----------------------------------------------------------------

#[test]
fn batch_votes_count_pair_by_pair_all_or_nothing() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "lim",
        vec![fixed("user-minute", &[User], Window::Minute, 5)],
    );
    let t = c.at(local(2040, 3, 13, 12, 0, 30));
    let alice = Voter::new("alice");
    pass(&mut con, &t, &alice, &[("b", "a"), ("b", "b"), ("b", "c")]);
    assert_eq!(
        peek(&mut con, &t, &alice, &[]),
        lefts(&[("user-minute", 2, 30)])
    );
    let want = refusal("user-minute", 30, &[("user-minute", 2)]);
    refused_vote(
        &mut con,
        &t,
        &alice,
        &[("b", "a"), ("b", "b"), ("b2", "a")],
        want,
    );
    assert_eq!(
        peek(&mut con, &t, &alice, &[]),
        lefts(&[("user-minute", 2, 30)])
    );
    for (board, option, n) in [("b", "a", 1), ("b", "b", 1), ("b", "c", 1), ("b2", "a", 0)] {
        assert_eq!(real(&mut con, &c, board, option), n, "{board}/{option}");
    }
    pass(&mut con, &t, &alice, &[("b", "a"), ("b2", "a")]);
    assert_eq!(
        peek(&mut con, &t, &alice, &[]),
        lefts(&[("user-minute", 0, 30)])
    );

    // per option: the same option twice in a batch counts twice, and one
    // exhausted option refuses the whole batch
    let c = setup(
        &mut con,
        "opt",
        vec![fixed("option-minute", &[Opt], Window::Minute, 1)],
    );
    let t = c.at(local(2040, 3, 13, 12, 0, 30));
    // Two votes for one option in a window that allows one can never pass:
    // retry_after is -1, not the end of the window.
    let want = refusal("option-minute", -1, &[("option-minute", 1)]);
    refused_vote(&mut con, &t, &alice, &[("b", "a"), ("b", "a")], want);
    pass(&mut con, &t, &alice, &[("b", "a")]);
    let want = refusal("option-minute", 30, &[("option-minute", 0)]);
    refused_vote(
        &mut con,
        &t,
        &Voter::new("bob"),
        &[("b", "b"), ("b", "a")],
        want,
    );
    pass(&mut con, &t, &Voter::new("bob"), &[("b", "b"), ("b", "c")]);
    assert_eq!(real(&mut con, &c, "b", "a"), 1);
    assert_eq!(real(&mut con, &c, "b", "b"), 1);
}

// ---- rolling (GCRA) --------------------------------------------------------------

#[test]
fn rolling_rule_spaces_votes_evenly() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(&mut con, "lim", vec![rolling("smooth", &[User], 5, 60, 5)]);
    let t0 = local(2040, 3, 13, 12, 0, 0);
    let alice = Voter::new("alice");
    assert_eq!(
        peek(&mut con, &c.at(t0), &alice, &[]),
        lefts(&[("smooth", 5, 0)])
    );
    pass_n(&mut con, &c.at(t0), &alice, &[("b", "a")], 5);
    assert_eq!(
        peek(&mut con, &c.at(t0), &alice, &[]),
        lefts(&[("smooth", 0, 60)])
    );
    let want = refusal("smooth", 12, &[("smooth", 0)]);
    refused_vote(&mut con, &c.at(t0), &alice, &[("b", "a")], want);
    let want = refusal("smooth", 1, &[("smooth", 0)]);
    refused_vote(&mut con, &c.at(t0 + 11), &alice, &[("b", "a")], want);
    // one more every 12 s (60 / 5)
    assert_eq!(
        peek(&mut con, &c.at(t0 + 12), &alice, &[]),
        lefts(&[("smooth", 1, 48)])
    );
    pass(&mut con, &c.at(t0 + 12), &alice, &[("b", "a")]);
    let want = refusal("smooth", 12, &[("smooth", 0)]);
    refused_vote(&mut con, &c.at(t0 + 12), &alice, &[("b", "a")], want);
    pass(&mut con, &c.at(t0 + 24), &alice, &[("b", "a")]);
    // the state expires (by the server's clock) once it has fully drained
    let keys = rl_expiries(&mut con, &c);
    assert_eq!(
        keys.into_values().collect::<Vec<_>>(),
        vec![(t0 + 84 + 1) as i64]
    );
    // a full burst again once `per` has passed since the last spend drained
    pass_n(&mut con, &c.at(t0 + 84), &alice, &[("b", "a")], 5);
    let want = refusal("smooth", 12, &[("smooth", 0)]);
    refused_vote(&mut con, &c.at(t0 + 84), &alice, &[("b", "a")], want);
    // bob has his own
    pass_n(&mut con, &c.at(t0), &Voter::new("bob"), &[("b", "a")], 5);
    assert_eq!(real(&mut con, &c, "b", "a"), 17);
}

#[test]
fn rolling_rule_has_no_edge_burst_where_a_fixed_minute_does() {
    let server = common::server();
    let mut con = common::con(&server);
    let fixed_c = setup(
        &mut con,
        "fixed",
        vec![fixed("minute", &[User], Window::Minute, 5)],
    );
    let rolling_c = setup(
        &mut con,
        "rolling",
        vec![rolling("smooth", &[User], 5, 60, 5)],
    );
    let last = local(2040, 3, 13, 12, 0, 59);
    let first = local(2040, 3, 13, 12, 1, 0);
    let alice = Voter::new("alice");
    // fixed minute: 5 at 12:00:59 and 5 more at 12:01:00, 10 in two seconds
    pass_n(&mut con, &fixed_c.at(last), &alice, &[("b", "a")], 5);
    pass_n(&mut con, &fixed_c.at(first), &alice, &[("b", "a")], 5);
    let want = refusal("minute", 60, &[("minute", 0)]);
    refused_vote(&mut con, &fixed_c.at(first), &alice, &[("b", "a")], want);
    assert_eq!(real(&mut con, &fixed_c, "b", "a"), 10);
    // rolling: 5 at 12:00:59, then nothing until 12:01:11
    pass_n(&mut con, &rolling_c.at(last), &alice, &[("b", "a")], 5);
    let want = refusal("smooth", 11, &[("smooth", 0)]);
    refused_vote(&mut con, &rolling_c.at(first), &alice, &[("b", "a")], want);
    pass(&mut con, &rolling_c.at(first + 11), &alice, &[("b", "a")]);
    assert_eq!(real(&mut con, &rolling_c, "b", "a"), 6);
}

// ---- expiry --------------------------------------------------------------------

/// 200 consecutive minutes (crossing a local midnight) at an explicit clock:
/// every counter gets an expiry equal to its window's end, so at each vote
/// exactly one counter per rule is alive (the current windows'), however many
/// windows went by.
#[test]
fn counters_expire_with_their_window() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "lim",
        vec![
            fixed("s", &[User], Window::Second, 1000),
            fixed("m", &[User], Window::Minute, 1000),
            fixed("h", &[User], Window::Hour, 1000),
            fixed("d", &[User], Window::Day, 1000),
            rolling("r", &[User], 1000, 60, 1000),
        ],
    );
    let tz = FixedOffset::east_opt(8 * 3600).unwrap();
    let ns = c.namespace().to_string();
    let key = |rule: &str, id: &str| format!("{ns}rl:{rule}:{id}:1:u");
    let start = local(2040, 3, 13, 22, 0, 30);
    let mut want = BTreeMap::new();
    for i in 0..200 {
        let t = start + i * 60;
        pass(&mut con, &c.at(t), &Voter::new("u"), &[("b", "a")]);
        let lt = tz.timestamp_opt(t as i64, 0).unwrap();
        let local_secs = t + 8 * 3600;
        want.insert(key("s", &t.to_string()), t as i64 + 1);
        want.insert(key("m", &format!("m{}", t / 60)), (t / 60 * 60 + 60) as i64);
        want.insert(
            key("h", &lt.format("hour:%Y-%m-%dT%H").to_string()),
            (t - local_secs % HOUR + HOUR) as i64,
        );
        want.insert(
            key("d", &lt.format("day:%Y-%m-%d").to_string()),
            (t - local_secs % DAY + DAY) as i64,
        );
        // GCRA: the theoretical arrival time t + 0.06 s, kept 1 s longer
        want.insert(key("r", "rolling"), t as i64 + 2);
        let got = rl_expiries(&mut con, &c);
        assert_eq!(got, want, "after the vote at minute {i}");
        let alive = got.values().filter(|e| **e > t as i64).count();
        assert_eq!(alive, 5, "counters alive at minute {i}");
    }
    // 200 seconds, 200 minutes, 4 hours (22, 23, 00, 01), 2 local days, 1 GCRA
    assert_eq!(want.len(), 200 + 200 + 4 + 2 + 1);
}

/// With the server's clock: second-window and rolling counters disappear by
/// themselves once their window is over (polled, bounded).
#[test]
fn counters_expire_by_themselves_on_the_server_clock() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = Campaign::new("rt");
    c.configure(&settings(
        "+08:00",
        vec![
            fixed("s", &[User], Window::Second, 1_000_000),
            rolling("r", &[User], 1_000_000, 1, 1_000_000),
        ],
        BOARDS,
    ))
    .run(&mut con)
    .unwrap();
    let second_key = format!("{}rl:s:", c.namespace());
    let s0 = common::server_time(&mut con);
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seconds = BTreeSet::new();
    loop {
        pass(&mut con, &c, &Voter::new("u"), &[("b", "a")]);
        let keys = rl_expiries(&mut con, &c);
        // alive: the GCRA state, the current second's counter and, during
        // the very millisecond it expires in, the previous second's (a key
        // may also expire between KEYS and EXPIRETIME: -2)
        let mut alive = BTreeSet::new();
        for (k, e) in keys.iter().filter(|(_, e)| **e != -2) {
            if let Some(rest) = k.strip_prefix(&second_key) {
                let sec: i64 = rest.strip_suffix(":1:u").unwrap().parse().unwrap();
                assert_eq!(*e, sec + 1, "{k}");
                alive.insert(sec);
            } else {
                assert_eq!(k, &format!("{}rl:r:rolling:1:u", c.namespace()));
            }
        }
        let span = alive.last().copied().unwrap_or(0) - alive.first().copied().unwrap_or(0);
        assert!(alive.len() <= 2 && span <= 1, "{keys:?}");
        seconds.extend(alive);
        if common::server_time(&mut con) >= s0 + 3 {
            break;
        }
        assert!(Instant::now() < deadline, "the server clock did not move");
    }
    assert!(seconds.len() >= 3, "{seconds:?}");
    // every other key of the campaign is permanent
    let all: BTreeSet<String> = redis::cmd("KEYS").arg("*").query(&mut con).unwrap();
    let permanent = all
        .iter()
        .filter(|k| !k.starts_with(&format!("{}rl:", c.namespace())))
        .count();
    let deadline = Instant::now() + Duration::from_secs(10);
    while dbsize(&mut con) != permanent {
        assert!(
            Instant::now() < deadline,
            "rate-limit counters still there: {:?}",
            rl_expiries(&mut con, &c)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(rl_keys(&mut con, &c).is_empty());
}

// ---- concurrency ---------------------------------------------------------------

async fn hammer(
    server: &redvote::TempServer,
    c: &Campaign,
    users: impl Fn(usize) -> String,
) -> (usize, Vec<RateLimited>) {
    let shared = common::con_async(server).await;
    let mut tasks = Vec::new();
    for i in 0..50 {
        let mut con = shared.clone();
        let c = c.clone();
        let user = users(i);
        tasks.push(tokio::spawn(async move {
            c.vote(&user, &[("b", "a")]).run_async(&mut con).await
        }));
    }
    let (mut passed, mut refused) = (0, Vec::new());
    for task in tasks {
        match task.await.unwrap() {
            Ok(_) => passed += 1,
            Err(Error::RateLimited(r)) => refused.push(r),
            Err(e) => panic!("unexpected error {e}"),
        }
    }
    (passed, refused)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_tasks_one_user_exactly_five_pass() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "lim",
        vec![fixed("user-minute", &[User], Window::Minute, 5)],
    );
    let c = c.at(local(2040, 3, 13, 12, 0, 30));
    let (passed, refused) = hammer(&server, &c, |_| "alice".to_string()).await;
    assert_eq!(passed, 5);
    assert_eq!(refused.len(), 45);
    let want = refusal("user-minute", 30, &[("user-minute", 0)]);
    assert!(refused.iter().all(|r| *r == want), "{refused:?}");
    assert_eq!(real(&mut con, &c, "b", "a"), 5);
    assert_eq!(
        peek(&mut con, &c, &Voter::new("alice"), &[]),
        lefts(&[("user-minute", 0, 30)])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_users_one_option_exactly_seven_pass() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "lim",
        vec![fixed("option-second", &[Opt], Window::Second, 7)],
    );
    let c = c.at(local(2040, 3, 13, 12, 0, 30));
    let (passed, refused) = hammer(&server, &c, |i| format!("user{i}")).await;
    assert_eq!(passed, 7);
    assert_eq!(refused.len(), 43);
    let want = refusal("option-second", 1, &[("option-second", 0)]);
    assert!(refused.iter().all(|r| *r == want), "{refused:?}");
    assert_eq!(real(&mut con, &c, "b", "a"), 7);
}

// ---- configuration -----------------------------------------------------------------

#[test]
fn bad_rules_are_refused_at_configure_time() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "lim",
        vec![fixed("user-minute", &[User], Window::Minute, 1)],
    );
    let t = c.at(local(2040, 3, 13, 12, 0, 0));
    pass(&mut con, &t, &Voter::new("alice"), &[("b", "a")]);
    let before = common::digest(&mut con);

    let rule = |body: &str| format!(r#"{{"limits": [{{"name": "r", "by": ["user"], {body}}}]}}"#);
    let many: Vec<String> = (0..33)
        .map(|i| format!(r#"{{"name": "r{i}", "by": ["user"], "window": "day", "limit": 5}}"#))
        .collect();
    let cases: Vec<(&str, String)> = vec![
        ("limit 0", rule(r#""window": "minute", "limit": 0"#)),
        ("negative limit", rule(r#""window": "minute", "limit": -5"#)),
        ("non-integer limit", rule(r#""window": "minute", "limit": 2.5"#)),
        ("text limit", rule(r#""window": "minute", "limit": "five""#)),
        ("boolean limit", rule(r#""window": "minute", "limit": true"#)),
        ("limit too large", rule(r#""window": "minute", "limit": 1000000001"#)),
        ("no limit", rule(r#""window": "minute""#)),
        (
            "unknown dimension",
            r#"{"limits": [{"name": "r", "by": ["user", "planet"], "window": "minute", "limit": 5}]}"#.into(),
        ),
        (
            "empty by",
            r#"{"limits": [{"name": "r", "by": [], "window": "minute", "limit": 5}]}"#.into(),
        ),
        (
            "by not a list",
            r#"{"limits": [{"name": "r", "by": "user", "window": "minute", "limit": 5}]}"#.into(),
        ),
        (
            "no by",
            r#"{"limits": [{"name": "r", "window": "minute", "limit": 5}]}"#.into(),
        ),
        (
            "repeated dimension",
            r#"{"limits": [{"name": "r", "by": ["user", "device", "user"], "window": "minute", "limit": 5}]}"#.into(),
        ),
        ("unknown window", rule(r#""window": "fortnight", "limit": 5"#)),
        ("no window", rule(r#""limit": 5"#)),
        (
            "window and rolling",
            rule(r#""window": "minute", "rolling": {"limit": 5, "per": 60}"#),
        ),
        (
            "limit and rolling",
            rule(r#""limit": 5, "rolling": {"limit": 5, "per": 60}"#),
        ),
        ("rolling not an object", rule(r#""rolling": 5"#)),
        ("rolling limit 0", rule(r#""rolling": {"limit": 0, "per": 60}"#)),
        ("rolling per 0", rule(r#""rolling": {"limit": 5, "per": 0}"#)),
        ("rolling per 2.5", rule(r#""rolling": {"limit": 5, "per": 2.5}"#)),
        ("rolling no per", rule(r#""rolling": {"limit": 5}"#)),
        (
            "rolling burst 0",
            rule(r#""rolling": {"limit": 5, "per": 60, "burst": 0}"#),
        ),
        (
            "duplicate rule names",
            r#"{"limits": [{"name": "r", "by": ["user"], "window": "minute", "limit": 5},
                           {"name": "r", "by": ["option"], "window": "hour", "limit": 5}]}"#
                .into(),
        ),
        ("more than 32 rules", format!(r#"{{"limits": [{}]}}"#, many.join(","))),
        (
            "empty name",
            r#"{"limits": [{"name": "", "by": ["user"], "window": "minute", "limit": 5}]}"#.into(),
        ),
        (
            "key-like name",
            r#"{"limits": [{"name": "a:b", "by": ["user"], "window": "minute", "limit": 5}]}"#.into(),
        ),
        (
            "no name",
            r#"{"limits": [{"by": ["user"], "window": "minute", "limit": 5}]}"#.into(),
        ),
        ("rule not an object", r#"{"limits": [5]}"#.into()),
        ("limits not a list", r#"{"limits": "user-minute"}"#.into()),
        (
            "negative extra",
            rule(r#""window": "minute", "limit": 5, "extra": {"partner": -5}"#),
        ),
        (
            "non-integer extra",
            rule(r#""window": "minute", "limit": 5, "extra": {"partner": 1.5}"#),
        ),
        (
            "text extra",
            rule(r#""window": "minute", "limit": 5, "extra": {"partner": "lots"}"#),
        ),
        (
            "extra not an object",
            rule(r#""window": "minute", "limit": 5, "extra": 5"#),
        ),
        (
            "extra as a list",
            rule(r#""window": "minute", "limit": 5, "extra": [5]"#),
        ),
        (
            "extra with a bad channel name",
            rule(r#""window": "minute", "limit": 5, "extra": {"part ner": 5}"#),
        ),
    ];
    for (what, json) in &cases {
        let r = raw_configure(&mut con, &c, json);
        match r {
            Err(e) => assert_eq!(e.code(), Some(Code::InvalidConfig), "{what}: {e}"),
            Ok(v) => panic!("{what}: accepted ({v:?})"),
        }
        assert_eq!(
            common::digest(&mut con),
            before,
            "{what}: the refusal wrote"
        );
    }

    // the typed API, where it can express the mistake
    let mut both = fixed("both", &[User], Window::Minute, 5);
    both.rolling = Some(Rolling {
        limit: 5,
        per: 60,
        burst: None,
    });
    let mut neither = fixed("neither", &[User], Window::Minute, 5);
    neither.window = None;
    let mut bad_extra = fixed("extra", &[User], Window::Minute, 5);
    bad_extra.extra.insert("bad:channel".to_string(), 5);
    let typed: Vec<(&str, Vec<LimitRule>)> = vec![
        ("limit 0", vec![fixed("r", &[User], Window::Minute, 0)]),
        ("empty by", vec![fixed("r", &[], Window::Minute, 5)]),
        (
            "repeated dimension",
            vec![fixed("r", &[User, User], Window::Minute, 5)],
        ),
        ("window and rolling", vec![both]),
        ("neither window nor rolling", vec![neither]),
        ("rolling limit 0", vec![rolling("r", &[User], 0, 60, 5)]),
        (
            "duplicate names",
            vec![
                fixed("r", &[User], Window::Minute, 5),
                rolling("r", &[User], 5, 60, 5),
            ],
        ),
        (
            "more than 32 rules",
            (0..33)
                .map(|i| fixed(&format!("r{i}"), &[User], Window::Day, 5))
                .collect(),
        ),
        ("bad extra channel", vec![bad_extra]),
    ];
    for (what, rules) in typed {
        let s = CampaignSettings {
            limits: Some(rules),
            ..Default::default()
        };
        assert_eq!(
            code_of(c.configure(&s).run(&mut con)),
            Code::InvalidConfig,
            "{what}"
        );
        assert_eq!(
            common::digest(&mut con),
            before,
            "{what}: the refusal wrote"
        );
    }

    // the stored rule still holds
    let want = refusal("user-minute", 60, &[("user-minute", 0)]);
    refused_vote(&mut con, &t, &Voter::new("alice"), &[("b", "a")], want);

    // the edges that are fine: 32 rules, limit 10^9, extra 0
    let mut top = fixed("top", &[User], Window::Minute, 1_000_000_000);
    top.extra.insert("partner".to_string(), 0);
    let mut rules: Vec<LimitRule> = (0..31)
        .map(|i| {
            fixed(
                &format!("r{i}"),
                &[User, Channel, Device, Opt],
                Window::Day,
                5,
            )
        })
        .collect();
    rules.push(top);
    let s = CampaignSettings {
        limits: Some(rules),
        ..Default::default()
    };
    c.configure(&s).run(&mut con).unwrap();
    assert_eq!(peek(&mut con, &t, &Voter::new("alice"), &[]).len(), 1);
}

/// A single rule sent as an object instead of a list of rules must be
/// refused, not taken for an empty list that removes every limit.
#[test]
fn limits_given_as_an_object_are_refused_not_emptied() {
    let server = common::server();
    let mut con = common::con(&server);
    let c = setup(
        &mut con,
        "lim",
        vec![fixed("user-minute", &[User], Window::Minute, 1)],
    );
    let t = c.at(local(2040, 3, 13, 12, 0, 0));
    pass(&mut con, &t, &Voter::new("alice"), &[("b", "a")]);
    let before = common::digest(&mut con);
    let json =
        r#"{"limits": {"name": "user-minute", "by": ["user"], "window": "minute", "limit": 1}}"#;
    let r = raw_configure(&mut con, &c, json);
    // the rule still holds (today: the call stores "limits" = "[]")
    assert_eq!(
        peek(&mut con, &t, &Voter::new("alice"), &[]),
        lefts(&[("user-minute", 0, 60)]),
        "the limits were removed by {r:?}"
    );
    assert_eq!(
        r.as_ref().err().and_then(Error::code),
        Some(Code::InvalidConfig),
        "{r:?}"
    );
    assert_eq!(common::digest(&mut con), before, "the refusal wrote");
}

/// A deny list sent as an object instead of a list must be refused, not
/// taken for an empty list that clears the deny list.
#[test]
fn deny_list_given_as_an_object_is_refused_not_emptied() {
    let server = common::server();
    let mut con = common::con(&server);
    let mut s = settings("+08:00", vec![], BOARDS);
    s.deny = Some(DenyLists {
        users: Some(vec!["mallory".to_string()]),
        channels: None,
    });
    let c = configure(&mut con, "lim", &s);
    let before = common::digest(&mut con);
    let r = raw_configure(&mut con, &c, r#"{"deny": {"users": {"user": "mallory"}}}"#);
    // mallory is still denied (today: the call empties the users list)
    let vote = c
        .at(local(2040, 3, 13, 12, 0, 0))
        .vote("mallory", &[("b", "a")])
        .run(&mut con);
    assert_eq!(
        vote.as_ref().err().and_then(Error::code),
        Some(Code::Denied),
        "mallory voted after {r:?}"
    );
    assert_eq!(
        r.as_ref().err().and_then(Error::code),
        Some(Code::InvalidConfig),
        "{r:?}"
    );
    assert_eq!(common::digest(&mut con), before, "the refusal wrote");
}

/// Board and option names may hold '/': the option dimension must still tell
/// board "x" option "y/z" from board "x/y" option "z".
#[test]
fn option_rule_tells_boards_and_options_with_slashes_apart() {
    let server = common::server();
    let mut con = common::con(&server);
    let rule = fixed("option-minute", &[Opt], Window::Minute, 1);
    let boards: &[(&str, &[&str])] = &[("x", &["y/z"]), ("x/y", &["z"])];
    let c = configure(&mut con, "lim", &settings("+08:00", vec![rule], boards));
    let t = c.at(local(2040, 3, 13, 12, 0, 0));
    pass(&mut con, &t, &Voter::new("alice"), &[("x", "y/z")]);
    assert_eq!(
        peek(&mut con, &t, &Voter::new("bob"), &[("x/y", "z")]),
        lefts(&[("option-minute", 1, 60)])
    );
    pass(&mut con, &t, &Voter::new("bob"), &[("x/y", "z")]);
}
