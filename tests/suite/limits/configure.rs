//! Rules and deny lists at configure time: every malformed rule refused (raw
//! JSON and typed) with nothing written, the edges that are fine, and lists
//! sent as objects refused rather than taken for empty lists.

use redvote::campaign::Dimension::{Channel, Device, Option as Opt, User};
use redvote::campaign::{DenyLists, LimitRule, Rolling, Voter, Window};
use redvote::{CampaignSettings, Code, Error};

use super::{
    code_of, configure, fixed, lefts, pass, peek, refusal, refused_vote, rolling, settings,
    with_rules, BOARDS,
};
use crate::support::{self, local, raw, PLUS8};

#[test]
fn bad_rules_are_refused_at_configure_time() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(
        &mut con,
        "lim",
        vec![fixed("user-minute", &[User], Window::Minute, 1)],
    );
    let t = c.at(local(PLUS8, (2040, 3, 13), (12, 0, 0)));
    pass(&mut con, &t, &Voter::new("alice"), &[("b", "a")]);
    let before = support::digest(&mut con);

    let rule = |body: &str| format!(r#"{{"limits": [{{"name": "r", "by": ["user"], {body}}}]}}"#);
    let many: Vec<String> = (0..33)
        .map(|i| format!(r#"{{"name": "r{i}", "by": ["user"], "window": "day", "limit": 5}}"#))
        .collect();
    #[rustfmt::skip]
    let cases: Vec<(&str, String)> = vec![
        ("limit 0", rule(r#""window": "minute", "limit": 0"#)),
        ("negative limit", rule(r#""window": "minute", "limit": -5"#)),
        ("non-integer limit", rule(r#""window": "minute", "limit": 2.5"#)),
        ("text limit", rule(r#""window": "minute", "limit": "five""#)),
        ("boolean limit", rule(r#""window": "minute", "limit": true"#)),
        ("limit too large", rule(r#""window": "minute", "limit": 1000000001"#)),
        ("no limit", rule(r#""window": "minute""#)),
        ("unknown dimension", r#"{"limits": [{"name": "r", "by": ["user", "planet"], "window": "minute", "limit": 5}]}"#.into()),
        ("empty by", r#"{"limits": [{"name": "r", "by": [], "window": "minute", "limit": 5}]}"#.into()),
        ("by not a list", r#"{"limits": [{"name": "r", "by": "user", "window": "minute", "limit": 5}]}"#.into()),
        ("no by", r#"{"limits": [{"name": "r", "window": "minute", "limit": 5}]}"#.into()),
        ("repeated dimension", r#"{"limits": [{"name": "r", "by": ["user", "device", "user"], "window": "minute", "limit": 5}]}"#.into()),
        ("unknown window", rule(r#""window": "fortnight", "limit": 5"#)),
        ("no window", rule(r#""limit": 5"#)),
        ("window and rolling", rule(r#""window": "minute", "rolling": {"limit": 5, "per": 60}"#)),
        ("limit and rolling", rule(r#""limit": 5, "rolling": {"limit": 5, "per": 60}"#)),
        ("rolling not an object", rule(r#""rolling": 5"#)),
        ("rolling limit 0", rule(r#""rolling": {"limit": 0, "per": 60}"#)),
        ("rolling per 0", rule(r#""rolling": {"limit": 5, "per": 0}"#)),
        ("rolling per 2.5", rule(r#""rolling": {"limit": 5, "per": 2.5}"#)),
        ("rolling no per", rule(r#""rolling": {"limit": 5}"#)),
        ("rolling burst 0", rule(r#""rolling": {"limit": 5, "per": 60, "burst": 0}"#)),
        ("duplicate rule names", r#"{"limits": [{"name": "r", "by": ["user"], "window": "minute", "limit": 5},
                           {"name": "r", "by": ["option"], "window": "hour", "limit": 5}]}"#.into()),
        ("more than 32 rules", format!(r#"{{"limits": [{}]}}"#, many.join(","))),
        ("empty name", r#"{"limits": [{"name": "", "by": ["user"], "window": "minute", "limit": 5}]}"#.into()),
        ("key-like name", r#"{"limits": [{"name": "a:b", "by": ["user"], "window": "minute", "limit": 5}]}"#.into()),
        ("no name", r#"{"limits": [{"by": ["user"], "window": "minute", "limit": 5}]}"#.into()),
        ("rule not an object", r#"{"limits": [5]}"#.into()),
        ("limits not a list", r#"{"limits": "user-minute"}"#.into()),
        ("negative extra", rule(r#""window": "minute", "limit": 5, "extra": {"partner": -5}"#)),
        ("non-integer extra", rule(r#""window": "minute", "limit": 5, "extra": {"partner": 1.5}"#)),
        ("text extra", rule(r#""window": "minute", "limit": 5, "extra": {"partner": "lots"}"#)),
        ("extra not an object", rule(r#""window": "minute", "limit": 5, "extra": 5"#)),
        ("extra as a list", rule(r#""window": "minute", "limit": 5, "extra": [5]"#)),
        ("extra with a bad channel name", rule(r#""window": "minute", "limit": 5, "extra": {"part ner": 5}"#)),
    ];
    for (what, json) in &cases {
        let r = raw(
            &mut con,
            "campaign_configure",
            c.root_key(),
            &[json.as_str()],
        );
        match r {
            Err(e) => assert_eq!(e.code(), Some(Code::InvalidConfig), "{what}: {e}"),
            Ok(v) => panic!("{what}: accepted ({v:?})"),
        }
        assert_eq!(
            support::digest(&mut con),
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
    #[rustfmt::skip]
    let typed: Vec<(&str, Vec<LimitRule>)> = vec![
        ("limit 0", vec![fixed("r", &[User], Window::Minute, 0)]),
        ("empty by", vec![fixed("r", &[], Window::Minute, 5)]),
        ("repeated dimension", vec![fixed("r", &[User, User], Window::Minute, 5)]),
        ("window and rolling", vec![both]),
        ("neither window nor rolling", vec![neither]),
        ("rolling limit 0", vec![rolling("r", &[User], 0, 60, 5)]),
        ("duplicate names", vec![fixed("r", &[User], Window::Minute, 5), rolling("r", &[User], 5, 60, 5)]),
        ("more than 32 rules", (0..33).map(|i| fixed(&format!("r{i}"), &[User], Window::Day, 5)).collect()),
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
            support::digest(&mut con),
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
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(
        &mut con,
        "lim",
        vec![fixed("user-minute", &[User], Window::Minute, 1)],
    );
    let t = c.at(local(PLUS8, (2040, 3, 13), (12, 0, 0)));
    pass(&mut con, &t, &Voter::new("alice"), &[("b", "a")]);
    let before = support::digest(&mut con);
    let json =
        r#"{"limits": {"name": "user-minute", "by": ["user"], "window": "minute", "limit": 1}}"#;
    let r = raw(&mut con, "campaign_configure", c.root_key(), &[json]);
    // the rule still holds: the object was not stored as an empty list
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
    assert_eq!(support::digest(&mut con), before, "the refusal wrote");
}

/// A deny list sent as an object instead of a list must be refused, not
/// taken for an empty list that clears the deny list.
#[test]
fn deny_list_given_as_an_object_is_refused_not_emptied() {
    let server = support::server();
    let mut con = support::con(&server);
    let mut s = settings("+08:00", vec![], BOARDS);
    s.deny = Some(DenyLists {
        users: Some(vec!["mallory".to_string()]),
        channels: None,
    });
    let c = configure(&mut con, "lim", &s);
    let before = support::digest(&mut con);
    let r = raw(
        &mut con,
        "campaign_configure",
        c.root_key(),
        &[r#"{"deny": {"users": {"user": "mallory"}}}"#],
    );
    // mallory is still denied: the object did not empty the users list
    let vote = c
        .at(local(PLUS8, (2040, 3, 13), (12, 0, 0)))
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
    assert_eq!(support::digest(&mut con), before, "the refusal wrote");
}

/// The rules configure writes carry their stamp (`limits_checked`, a copy
/// of the JSON it validated), which lets every vote skip their validation;
/// rules that no longer equal it (changed by hand) are not trusted: the
/// vote validates the rules as stored, obeys them when they are sound and
/// refuses them, writing nothing, when they are not.
#[test]
fn stamped_rules_are_trusted_and_changed_ones_validated_again() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(
        &mut con,
        "stamp",
        vec![fixed("user-day", &[User], Window::Day, 3)],
    );
    let root = c.root_key();
    let (limits, checked): (String, String) = redis::cmd("HMGET")
        .arg(root)
        .arg("limits")
        .arg("limits_checked")
        .query(&mut con)
        .unwrap();
    assert_eq!(checked, limits, "the stamp is the stored rules");
    let report = redvote_check::check_campaign(&mut con, &c).unwrap();
    assert!(report.is_clean(), "{report}");
    assert!(
        !report.checked.contains_key("limits_stamps_stale"),
        "{report}"
    );
    let t = c.at(local(PLUS8, (2040, 3, 13), (12, 0, 0)));
    let alice = Voter::new("alice");
    pass(&mut con, &t, &alice, &[("b", "a")]);

    // a sound change by hand: the stamp no longer matches, the new limit holds
    let one = limits.replace(r#""limit":3"#, r#""limit":1"#);
    assert_ne!(one, limits, "{limits}");
    hset(&mut con, root, &[("limits", &one)]);
    let bob = Voter::new("bob");
    pass(&mut con, &t, &bob, &[("b", "a")]);
    let second = t.vote_by(&bob, &[("b", "a")]).run(&mut con);
    assert!(
        matches!(&second, Err(Error::RateLimited(r)) if r.rule == "user-day"),
        "{second:?}"
    );
    // redvote check counts the stale stamp (votes validate: no violation)
    let report = redvote_check::check_campaign(&mut con, &c).unwrap();
    assert!(report.is_clean(), "{report}");
    assert_eq!(report.checked["limits_stamps_stale"], 1, "{report}");

    // the same corrupt text in both by hand: votes trust it, check reports it
    let bad = limits.replace(r#""limit":3"#, r#""limit":-3"#);
    hset(
        &mut con,
        root,
        &[("limits", &bad), ("limits_checked", &bad)],
    );
    let report = redvote_check::check_campaign(&mut con, &c).unwrap();
    assert!(
        report
            .violations_of(root)
            .any(|v| v.what.contains("limits is corrupt")),
        "{report}"
    );
    hset(&mut con, root, &[("limits_checked", &one)]);

    // a corrupt change by hand: refused as corrupt, nothing written
    let corrupt = limits.replace(r#""limit":3"#, r#""limit":-3"#);
    hset(&mut con, root, &[("limits", &corrupt)]);
    let detail =
        support::refused_unchanged(&mut con, "corrupt rules", Code::InvalidConfig, |con| {
            t.vote_by(&Voter::new("carol"), &[("b", "a")]).run(con)
        });
    assert!(
        detail.contains("limits rule 1 limit is corrupt"),
        "{detail}"
    );

    // a corrupt stamp with sound rules: validated, obeyed
    hset(
        &mut con,
        root,
        &[("limits", &limits), ("limits_checked", "x")],
    );
    pass(&mut con, &t, &Voter::new("carol"), &[("b", "a")]);
}

fn hset(con: &mut redis::Connection, key: &str, fields: &[(&str, &str)]) {
    redis::cmd("HSET").arg(key).arg(fields).exec(con).unwrap();
}
