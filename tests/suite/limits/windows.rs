//! Every fixed window (second .. month, calendar-aligned in the campaign's
//! UTC offset, half-hour offsets included) at its edges, each counter
//! expiring at its window's end, and the whole-campaign window (never
//! passable again once spent: retry_after -1).

use std::collections::{BTreeMap, BTreeSet};

use redvote::campaign::Dimension::User;
use redvote::campaign::{Voter, Window};
use redvote::{CampaignSettings, Code};

use super::{
    at_layout_2, code_of, configure, fixed, lefts, pass, pass_n, peek, real_total, refusal,
    refused_vote, rl_expiries, settings, with_rules, BOARDS,
};
use crate::support::{self, local, utc, DAY, HOUR, PLUS8};

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
    let server = support::server();
    let mut con = support::con(&server);
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
    // each window's bucket expires at its window's end (layout 3: the
    // previous window's count stays in its own bucket until then)
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
    assert_eq!(real_total(&mut con, &c, "b", "a"), 2 * limit + 1);
}

#[test]
fn window_second() {
    let t = local(PLUS8, (2040, 3, 13), (12, 0, 0));
    window_edges("+08:00", Window::Second, 2, t, t + 1, t + 2, None);
}

#[test]
fn window_minute() {
    let t = local(PLUS8, (2040, 3, 13), (12, 0, 0));
    window_edges("+08:00", Window::Minute, 5, t, t + 60, t + 120, None);
}

#[test]
fn window_hour() {
    let t = local(PLUS8, (2040, 3, 13), (12, 0, 0));
    window_edges("+08:00", Window::Hour, 3, t, t + HOUR, t + 2 * HOUR, None);
}

#[test]
fn window_hour_at_a_half_hour_offset() {
    // +05:30: local hours start at :30 UTC; 07:00 UTC is inside 12:00..13:00
    let off = 5 * 3600 + 1800;
    let t = local(off, (2040, 3, 13), (12, 0, 0));
    let inside = utc((2040, 3, 13), (7, 0, 0));
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
    let start = local(PLUS8, (2040, 3, 13), (0, 0, 0));
    let end = local(PLUS8, (2040, 3, 14), (0, 0, 0));
    assert_eq!(start, utc((2040, 3, 12), (16, 0, 0)));
    window_edges(
        "+08:00",
        Window::Day,
        3,
        start,
        end,
        end + DAY,
        Some(utc((2040, 3, 13), (0, 0, 0))),
    );
}

#[test]
fn window_week_local_monday() {
    // ISO week 2040-W11: Monday 03-12 .. Monday 03-19, local time
    let start = local(PLUS8, (2040, 3, 12), (0, 0, 0));
    let end = local(PLUS8, (2040, 3, 19), (0, 0, 0));
    window_edges(
        "+08:00",
        Window::Week,
        3,
        start,
        end,
        end + 7 * DAY,
        Some(utc((2040, 3, 12), (0, 0, 0))),
    );
}

#[test]
fn window_month_local_first() {
    // the second before is 2040-02-29 23:59:59 local (a leap day)
    let start = local(PLUS8, (2040, 3, 1), (0, 0, 0));
    let end = local(PLUS8, (2040, 4, 1), (0, 0, 0));
    let next_end = local(PLUS8, (2040, 5, 1), (0, 0, 0));
    assert_eq!(start - 1, local(PLUS8, (2040, 2, 29), (23, 59, 59)));
    window_edges(
        "+08:00",
        Window::Month,
        3,
        start,
        end,
        next_end,
        Some(utc((2040, 3, 1), (0, 0, 0))),
    );
}

#[test]
fn window_campaign_one_vote_per_user() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(
        &mut con,
        "lim",
        vec![fixed("once", &[User], Window::Campaign, 1)],
    );
    let t = local(PLUS8, (2040, 3, 13), (12, 0, 0));
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
    // one hash for the rule, a field per user; without an end it never expires
    let expiries = rl_expiries(&mut con, &c);
    let hash = format!("{}rl:once:campaign", c.namespace());
    assert_eq!(expiries, BTreeMap::from([(hash.clone(), -1)]));
    assert_eq!(
        support::hgetall(&mut con, &hash),
        support::map([("5:alice", "1"), ("3:bob", "1")])
    );
    assert_eq!(real_total(&mut con, &c, "b", "a"), 2);
}

/// A campaign with an end: the counter expires at the end, and an exhausted
/// campaign rule is never passable within the campaign, so retry_after and
/// reset_in are -1 as documented (RateLimited::retry_after, LimitLeft::reset_in).
#[test]
fn window_campaign_with_an_end_retry_after_is_minus_one() {
    let server = support::server();
    let mut con = support::con(&server);
    let end = local(PLUS8, (2040, 4, 1), (0, 0, 0));
    let mut s = settings(
        "+08:00",
        vec![fixed("once", &[User], Window::Campaign, 1)],
        BOARDS,
    );
    s.end = Some(end);
    let c = configure(&mut con, "lim", &s);
    let t = local(PLUS8, (2040, 3, 13), (12, 0, 0));
    let alice = Voter::new("alice");
    pass(&mut con, &c.at(t), &alice, &[("b", "a")]);
    let keys = rl_expiries(&mut con, &c);
    // kept a week past the end (a campaign extended later keeps its counts)
    assert_eq!(
        keys.into_values().collect::<Vec<_>>(),
        vec![end as i64 + GRACE]
    );
    let want = refusal("once", -1, &[("once", 0)]);
    refused_vote(&mut con, &c.at(t + DAY), &alice, &[("b", "a")], want);
    assert_eq!(
        peek(&mut con, &c.at(t + DAY), &alice, &[]),
        lefts(&[("once", 0, -1)])
    );
}

/// How long campaign-window counters outlive the campaign's end
/// (`COUNTER_GRACE` in `lua/src/lib/campaign.lua`).
const GRACE: i64 = 604800;

/// Moving the campaign's end later, even after the campaign has ended,
/// keeps "once per campaign": the counters outlive the end by a week, and
/// configure moves their expiry with the end. Real time on the server's
/// clock: the campaign ends two seconds in, is extended after that, and
/// alice, who voted before the end, is still refused. Moving the end
/// earlier moves the counters' expiry too, and removing the rule deletes
/// its counters.
#[test]
fn moving_the_end_later_keeps_once_per_campaign() {
    let server = support::server();
    let mut con = support::con(&server);
    let now = support::server_time(&mut con) as u64;
    let mut s = settings(
        "+00:00",
        vec![fixed("once", &[User], Window::Campaign, 1)],
        BOARDS,
    );
    s.end = Some(now + 2);
    let c = support::setup(&mut con, "move", s);
    let alice = Voter::new("alice");
    pass(&mut con, &c, &alice, &[("b", "a")]);
    let hash = format!("{}rl:once:campaign", c.namespace());
    assert_eq!(
        support::expiretime(&mut con, &hash),
        (now + 2) as i64 + GRACE
    );
    // the campaign ends
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while (support::server_time(&mut con) as u64) < now + 3 {
        assert!(
            std::time::Instant::now() < deadline,
            "the server clock did not move"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let closed = c.vote_by(&Voter::new("bob"), &[("b", "a")]).run(&mut con);
    assert_eq!(code_of(closed), Code::CampaignClosed);
    // then is extended: alice has voted in this campaign, for good
    let later = now + 3600;
    c.configure(&CampaignSettings {
        end: Some(later),
        ..Default::default()
    })
    .run(&mut con)
    .unwrap();
    assert_eq!(support::expiretime(&mut con, &hash), later as i64 + GRACE);
    let want = refusal("once", -1, &[("once", 0)]);
    refused_vote(&mut con, &c, &alice, &[("b", "b")], want);
    pass(&mut con, &c, &Voter::new("bob"), &[("b", "a")]);
    assert_eq!(real_total(&mut con, &c, "b", "a"), 2);
    // earlier again: the counters follow
    c.configure(&CampaignSettings {
        end: Some(later - 60),
        ..Default::default()
    })
    .run(&mut con)
    .unwrap();
    assert_eq!(
        support::expiretime(&mut con, &hash),
        (later - 60) as i64 + GRACE
    );
    // the rule removed: its counters go with it
    c.configure(&CampaignSettings {
        limits: Some(vec![]),
        ..Default::default()
    })
    .run(&mut con)
    .unwrap();
    assert!(!support::exists(&mut con, &hash));
}

/// Layout 2: a vote dated in an earlier window than the one its counter
/// holds (only the explicit clock, or a server clock that went back, can
/// send one) is refused, with retry_after -1 and nothing written: the
/// voter's hash keeps one window per rule, that earlier window's count is
/// gone, and a limit fails closed. The earlier window's votes are never
/// counted afresh.
#[test]
fn a_vote_dated_before_its_counters_window_is_refused() {
    let server = support::server();
    let mut con = support::con(&server);
    let rule = fixed("d", &[User], Window::Day, 2);
    let c = configure(&mut con, "lim", &settings("+08:00", vec![rule], BOARDS));
    at_layout_2(&mut con, &c);
    let alice = Voter::new("alice");
    let t = local(PLUS8, (2040, 3, 13), (12, 0, 0));
    pass_n(&mut con, &c.at(t), &alice, &[("b", "a")], 2);
    pass(&mut con, &c.at(t + DAY), &alice, &[("b", "a")]);
    refused_vote(
        &mut con,
        &c.at(t),
        &alice,
        &[("b", "a")],
        refusal("d", -1, &[("d", 0)]),
    );
    assert_eq!(
        peek(&mut con, &c.at(t), &alice, &[]),
        lefts(&[("d", 0, -1)])
    );
    // the later window is untouched: one vote left there
    pass(&mut con, &c.at(t + DAY), &alice, &[("b", "a")]);
    assert_eq!(real_total(&mut con, &c, "b", "a"), 4);
}

/// Layout 3: each window's counts live in buckets of their own until the
/// window ends, so a vote dated in an earlier window (the explicit clock)
/// is counted against that window's own count, exactly: refused while it
/// is spent (retry_after: until that window's end), passing while it is
/// not, and the later window untouched either way.
#[test]
fn layout_3_counts_a_vote_dated_in_an_earlier_window_in_that_window() {
    let server = support::server();
    let mut con = support::con(&server);
    let rule = fixed("d", &[User], Window::Day, 2);
    let c = configure(&mut con, "lim", &settings("+08:00", vec![rule], BOARDS));
    let alice = Voter::new("alice");
    let t = local(PLUS8, (2040, 3, 13), (12, 0, 0));
    pass_n(&mut con, &c.at(t), &alice, &[("b", "a")], 2);
    pass(&mut con, &c.at(t + DAY), &alice, &[("b", "a")]);
    refused_vote(
        &mut con,
        &c.at(t),
        &alice,
        &[("b", "a")],
        refusal("d", (12 * HOUR) as i64, &[("d", 0)]),
    );
    assert_eq!(
        peek(&mut con, &c.at(t), &alice, &[]),
        lefts(&[("d", 0, (12 * HOUR) as i64)])
    );
    // the day before: nothing spent there, two votes
    pass_n(&mut con, &c.at(t - DAY), &alice, &[("b", "a")], 2);
    refused_vote(
        &mut con,
        &c.at(t - DAY),
        &alice,
        &[("b", "a")],
        refusal("d", (12 * HOUR) as i64, &[("d", 0)]),
    );
    // the later window is untouched: one vote left there
    pass(&mut con, &c.at(t + DAY), &alice, &[("b", "a")]);
    refused_vote(
        &mut con,
        &c.at(t + DAY),
        &alice,
        &[("b", "a")],
        refusal("d", (12 * HOUR) as i64, &[("d", 0)]),
    );
    assert_eq!(real_total(&mut con, &c, "b", "a"), 6);
}

/// Layout 2: a rule whose window changes under the same name (configure replaces the
/// rules): the voter's counter of the old window is of a window the rule no
/// longer has and counts as 0, not as a vote "before its counter's window"
/// (a day's END is later than the hour's: the voter was refused until
/// midnight); a rolling rule made fixed reads its old TAT as no count (it
/// was INVALID_CONFIG on every vote until the hash expired). A window
/// shrunk back keeps refusing what the earlier test refuses.
#[test]
fn a_rule_whose_window_changes_starts_counting_afresh() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = configure(
        &mut con,
        "lim",
        &settings("+08:00", vec![fixed("x", &[User], Window::Day, 1)], BOARDS),
    );
    at_layout_2(&mut con, &c);
    let alice = Voter::new("alice");
    let t = local(PLUS8, (2040, 3, 13), (12, 0, 0));
    pass(&mut con, &c.at(t), &alice, &[("b", "a")]);
    let reconfigure = |con: &mut redis::Connection, rule| {
        c.configure(&CampaignSettings {
            limits: Some(vec![rule]),
            ..Default::default()
        })
        .run(con)
        .unwrap();
    };
    // day -> hour: a fresh hour, then its limit
    reconfigure(&mut con, fixed("x", &[User], Window::Hour, 1));
    pass(&mut con, &c.at(t + 1), &alice, &[("b", "a")]);
    refused_vote(
        &mut con,
        &c.at(t + 2),
        &alice,
        &[("b", "a")],
        refusal("x", (HOUR - 2) as i64, &[("x", 0)]),
    );
    // hour -> rolling -> day: each reads the other's value as no count
    reconfigure(&mut con, super::rolling("x", &[User], 1, 60, 1));
    pass(&mut con, &c.at(t + 3), &alice, &[("b", "a")]);
    reconfigure(&mut con, fixed("x", &[User], Window::Day, 1));
    pass(&mut con, &c.at(t + 4), &alice, &[("b", "a")]);
    refused_vote(
        &mut con,
        &c.at(t + 5),
        &alice,
        &[("b", "a")],
        refusal("x", (12 * HOUR - 5) as i64, &[("x", 0)]),
    );
    assert_eq!(real_total(&mut con, &c, "b", "a"), 4);
    // the checker reads such values as the rule's former counters
    let mut fields: Vec<String> = redis::cmd("HVALS")
        .arg(format!("{}rlu:alice", c.namespace()))
        .query(&mut con)
        .unwrap();
    fields.sort();
    assert!(fields.iter().any(|v| v.ends_with(":day")), "{fields:?}");
    let report = redvote_check::check_campaign(&mut con, &c).unwrap();
    assert!(report.is_clean(), "{report}");
    redis::cmd("HSET")
        .arg(format!("{}rlu:alice", c.namespace()))
        .arg("x")
        .arg(format!("{}:1:hour", t + HOUR))
        .exec(&mut con)
        .unwrap();
    let report = redvote_check::check_campaign(&mut con, &c).unwrap();
    assert!(
        report.is_clean(),
        "an hour's count of the former rule: {report}"
    );
    assert_eq!(report.checked["counters_of_former_windows"], 1, "{report}");
}

/// Layout 3: a rule whose window changes under the same name counts each
/// window in buckets of that window (`rlb:RULE:WINDOW:N`): the new window
/// starts afresh, a rolling rule keeps its state in the voter's hash, and
/// a rule changed back to a window still in flight finds that window's
/// count where it was (it fails closed: the day's vote still counts).
#[test]
fn layout_3_a_rule_changed_back_to_a_window_in_flight_keeps_its_count() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = configure(
        &mut con,
        "lim",
        &settings("+08:00", vec![fixed("x", &[User], Window::Day, 1)], BOARDS),
    );
    let alice = Voter::new("alice");
    let t = local(PLUS8, (2040, 3, 13), (12, 0, 0));
    pass(&mut con, &c.at(t), &alice, &[("b", "a")]);
    let reconfigure = |con: &mut redis::Connection, rule| {
        c.configure(&CampaignSettings {
            limits: Some(vec![rule]),
            ..Default::default()
        })
        .run(con)
        .unwrap();
    };
    reconfigure(&mut con, fixed("x", &[User], Window::Hour, 1));
    pass(&mut con, &c.at(t + 1), &alice, &[("b", "a")]);
    refused_vote(
        &mut con,
        &c.at(t + 2),
        &alice,
        &[("b", "a")],
        refusal("x", (HOUR - 2) as i64, &[("x", 0)]),
    );
    reconfigure(&mut con, super::rolling("x", &[User], 1, 60, 1));
    pass(&mut con, &c.at(t + 3), &alice, &[("b", "a")]);
    reconfigure(&mut con, fixed("x", &[User], Window::Day, 1));
    refused_vote(
        &mut con,
        &c.at(t + 4),
        &alice,
        &[("b", "a")],
        refusal("x", (12 * HOUR - 4) as i64, &[("x", 0)]),
    );
    assert_eq!(real_total(&mut con, &c, "b", "a"), 3);
    let report = redvote_check::check_campaign(&mut con, &c).unwrap();
    assert!(report.is_clean(), "{report}");
}

/// "@" is the voter hash's expiry field: no rule may be named so (a rule
/// "@" read the expiry as its counter, and refused its voter's second vote
/// as INVALID_CONFIG).
#[test]
fn a_rule_named_at_is_refused() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = support::setup(&mut con, "at", settings("+08:00", vec![], BOARDS));
    let before = support::digest(&mut con);
    let err = c
        .configure(&settings(
            "+08:00",
            vec![fixed("@", &[User], Window::Day, 5)],
            BOARDS,
        ))
        .run(&mut con)
        .unwrap_err();
    assert_eq!(code_of::<()>(Err(err)), Code::InvalidConfig);
    assert_eq!(support::digest(&mut con), before, "the refusal wrote");
}
