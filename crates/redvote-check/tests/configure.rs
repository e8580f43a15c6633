//! `check_campaign` after ordinary configure changes, each made with the
//! scripts (configure, vote, configure again): what the scripts
//! legitimately leave behind a change is not reported, and a fault of the
//! same kind that no change can explain still is.

use redis::Commands;
use redvote::campaign::{BoardSettings, Dimension, LimitRule, Window};
use redvote::{Campaign, CampaignSettings, Period, Voter};
use redvote_check::{check_campaign, Report};
use redvote_testing::{board, boards, con, options, server, server_time, setup, DAY};

fn check(con: &mut redis::Connection, c: &Campaign) -> Report {
    check_campaign(con, c).unwrap()
}

fn assert_clean(report: &Report) {
    assert!(report.is_clean(), "{report}");
}

/// Whether some violation of `report` on a key ending in `key_end` says
/// `what`.
fn names(report: &Report, key_end: &str, what: &str) -> bool {
    report
        .violations
        .iter()
        .any(|v| v.key.ends_with(key_end) && v.what.contains(what))
}

#[test]
fn a_rule_whose_by_changed_under_its_name_leaves_no_violation() {
    let server = server();
    let mut con = con(&server);
    let rules = |by: &[Dimension]| {
        vec![
            LimitRule::fixed("d", by, Window::Day, 5),
            LimitRule::fixed("c", by, Window::Campaign, 5),
            LimitRule::fixed("m", by, Window::Minute, 5),
        ]
    };
    let settings = boards([("B", board(&[Period::Total], options([("x", 1)])))]);
    let c = setup(
        &mut con,
        "by",
        settings.with_limits(rules(&[Dimension::User])),
    );
    for user in ["u1", "u2"] {
        let voter = Voter::new(user).channel("web");
        c.vote_by(&voter, &[("B", "x")]).run(&mut con).unwrap();
    }
    assert_clean(&check(&mut con, &c));
    // the same names, now counted by user and option: the voters' hashes
    // hold fields "d" and "m" without the option, the campaign-window hash
    // fields of users alone
    let by_option = rules(&[Dimension::User, Dimension::Option]);
    c.configure(&CampaignSettings::new().with_limits(by_option))
        .run(&mut con)
        .unwrap();
    assert_clean(&check(&mut con, &c));
    let voter = Voter::new("u1").channel("web");
    c.vote_by(&voter, &[("B", "x")]).run(&mut con).unwrap();
    assert_clean(&check(&mut con, &c));
    // by option alone: the hashes' fields are of no rule counted by user
    c.configure(&CampaignSettings::new().with_limits(rules(&[Dimension::Option])))
        .run(&mut con)
        .unwrap();
    c.vote("u2", &[("B", "x")]).run(&mut con).unwrap();
    assert_clean(&check(&mut con, &c));

    // a field of the wrong subject that ends long after the change was not
    // written before it: still reported
    c.configure(&CampaignSettings::new().with_limits(rules(&[Dimension::User, Dimension::Option])))
        .run(&mut con)
        .unwrap();
    let later = server_time(&mut con) + 30 * DAY as i64;
    let end = later - later % 86400;
    let key = format!("{}rlu:u1", c.namespace());
    let _: () = con.hset(&key, "d", format!("{end}:1:day")).unwrap();
    let report = check(&mut con, &c);
    assert!(
        names(&report, "rlu:u1", "does not match the rule's dimensions"),
        "{report}"
    );
}

#[test]
fn a_changed_offset_leaves_no_violation() {
    let server = server();
    let mut con = con(&server);
    let b = board(
        &[
            Period::Total,
            Period::Hour,
            Period::Day,
            Period::Week,
            Period::Month,
        ],
        options([("x", 1), ("y", 2)]),
    )
    .with_carry("0.5")
    .with_retention(Period::Day, 3600)
    .with_retention(Period::Hour, 3600);
    let rules = vec![
        LimitRule::fixed("d", &[Dimension::User], Window::Day, 5),
        LimitRule::fixed("w", &[Dimension::Channel], Window::Week, 5),
        LimitRule::fixed("h", &[Dimension::Option], Window::Hour, 5),
    ];
    let settings = boards([("B", b)]).with_offset("+00:00").with_limits(rules);
    let c = setup(&mut con, "offset", settings);
    let voter = Voter::new("u").channel("web");
    c.vote_by(&voter, &[("B", "x"), ("B", "y")])
        .run(&mut con)
        .unwrap();
    assert_clean(&check(&mut con, &c));
    for offset in ["+14:00", "-12:00", "+05:30"] {
        c.configure(&CampaignSettings::new().with_offset(offset))
            .run(&mut con)
            .unwrap();
        assert_clean(&check(&mut con, &c));
        c.vote_by(&Voter::new("v").channel("web"), &[("B", "x")])
            .run(&mut con)
            .unwrap();
        assert_clean(&check(&mut con, &c));
    }

    // a voter's day counter ending off any day boundary, long after the
    // change: still reported
    let later = server_time(&mut con) + 30 * DAY as i64;
    let end = later - later % 86400 + 7;
    let key = format!("{}rlu:u", c.namespace());
    let _: () = con.hset(&key, "d", format!("{end}:1:day")).unwrap();
    let report = check(&mut con, &c);
    assert!(
        names(&report, "rlu:u", "is not the end of a window of its rule"),
        "{report}"
    );
}

#[test]
fn decimals_lowered_while_the_next_period_holds_carried_shares_leave_no_violation() {
    let server = server();
    let mut con = con(&server);
    // a week and a month: the next of at least one starts more than 28 h
    // (the widest offset change) after the configure, whatever today is
    let b = board(
        &[Period::Total, Period::Day, Period::Week, Period::Month],
        options([("x", 1), ("y", 3)]),
    )
    .with_carry("0.25");
    let c = setup(&mut con, "decimals", boards([("B", b)]));
    c.vote("u", &[("B", "x")]).run(&mut con).unwrap();
    c.vote("v", &[("B", "y")]).run(&mut con).unwrap();
    assert_clean(&check(&mut con, &c));
    for decimals in [1, 0] {
        let lower = BoardSettings::default().with_decimals(decimals);
        c.configure(&CampaignSettings::new().with_board("B", lower))
            .run(&mut con)
            .unwrap();
        assert_clean(&check(&mut con, &c));
        c.vote("w", &[("B", "y")]).run(&mut con).unwrap();
        assert_clean(&check(&mut con, &c));
    }

    // a shown score with decimals in a period whose period before starts
    // long after the change: no vote of the old settings wrote it
    let key = format!("{}b:B:shown:month:2099-02", c.namespace());
    let _: () = con.zadd(&key, "x", 0.25).unwrap();
    let report = check(&mut con, &c);
    assert!(
        names(
            &report,
            "shown:month:2099-02",
            "not a decimal with 0 decimals"
        ),
        "{report}"
    );
}
