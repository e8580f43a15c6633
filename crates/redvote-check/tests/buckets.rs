//! `check_campaign` on campaign layout 3's buckets of per-user
//! fixed-window counters (`<ns>rlb:RULE:WINDOW:N`, lua/src/lib/limits.lua):
//! what the votes write is clean, and each fault of a bucket is reported.

use redis::Commands;
use redvote::campaign::{Dimension, LimitRule, Window};
use redvote::{Period, Voter};
use redvote_check::{check_campaign, Report};
use redvote_testing::{board, boards, con, options, server, setup};

/// 2040-03-14 12:00:00 UTC: the windows start long after the configure, so
/// the whole check is settled.
const T: u64 = 2215339200;

/// Whether some violation of `report` on a key ending in `key_end` says
/// `what`.
fn names(report: &Report, key_end: &str, what: &str) -> bool {
    report
        .violations
        .iter()
        .any(|v| v.key.ends_with(key_end) && v.what.contains(what))
}

#[test]
fn buckets_written_by_votes_are_clean_and_each_fault_is_reported() {
    let server = server();
    let mut con = con(&server);
    let rules = vec![
        LimitRule::fixed("m", &[Dimension::User], Window::Minute, 5),
        LimitRule::fixed("dd", &[Dimension::User, Dimension::Device], Window::Day, 3),
    ];
    let settings = boards([("B", board(&[Period::Total], options([("x", 1)])))]).with_limits(rules);
    let c = setup(&mut con, "buckets", settings);
    for i in 0..40 {
        let user = format!("user{i}");
        let voter = Voter::new(&user).device("pc");
        c.at(T)
            .vote_by(&voter, &[("B", "x")])
            .run(&mut con)
            .unwrap();
    }
    let report = check_campaign(&mut con, &c).unwrap();
    assert!(report.is_clean(), "{report}");
    assert!(report.checked["buckets"] >= 2, "{report}");
    assert_eq!(report.checked["counters"], 80, "{report}");

    let ns = c.namespace().to_string();
    let n = redvote_check::limit_bucket("user0");
    let minute = format!("{ns}rlb:m:m{}:{n}", T / 60);
    let day = format!("{ns}rlb:dd:day:2040-03-14:{n}");
    assert_eq!(con.hget::<_, _, String>(&minute, "5:user0").unwrap(), "1");
    let got: Option<String> = con.hget(&day, "5:user0|2:pc").unwrap();
    let all: Vec<String> = con.keys(format!("{ns}rlb:dd*")).unwrap();
    assert_eq!(got.as_deref(), Some("1"), "{all:?}");

    // a user in another's bucket, a count of 0, one over the allowance, a
    // field of the wrong dimensions, a bucket without expiry, a bucket
    // number out of range
    let other = (0..)
        .map(|i| format!("stray{i}"))
        .find(|u| redvote_check::limit_bucket(u) != n)
        .unwrap();
    let _: () = con
        .hset(&minute, format!("{}:{other}", other.len()), "1")
        .unwrap();
    let _: () = con.hset(&day, "5:user0|3:tab", "0").unwrap();
    let _: () = con.hset(&day, "5:user0|6:mobile", "4").unwrap();
    let _: () = con.hset(&day, "5:user0", "1").unwrap();
    let bare = format!("{ns}rlb:m:m{}:{n}", T / 60 + 1);
    let _: () = con.hset(&bare, "5:user0", "1").unwrap();
    let _: () = con
        .hset(format!("{ns}rlb:m:m{}:256", T / 60), "5:user0", "1")
        .unwrap();
    let report = check_campaign(&mut con, &c).unwrap();
    let r = &report;
    assert!(names(r, &minute, "belongs in bucket"), "{r}");
    assert!(names(r, &day, "not a count >= 1"), "{r}");
    assert!(names(r, &day, "over its rule's allowance of 3"), "{r}");
    assert!(
        names(r, &day, "does not match the rule's dimensions"),
        "{r}"
    );
    assert!(names(r, &bare, "has no expiry"), "{r}");
    assert!(names(r, ":256", "not 0..255"), "{r}");
}
