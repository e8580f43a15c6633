//! `check_campaign` on a buffered campaign (docs/hot-campaigns.md): votes
//! waiting in `<ns>buf` are no violation (the boards hold the folded ones
//! only) and are reported as information; each corruption of the buffer
//! or of the fields that go with it is named on its key, and undone, the
//! campaign is clean again.

use redis::Commands;
use redvote::{Campaign, Mode, Period};
use redvote_check::{check_campaign, Report};
use redvote_testing::{board, boards, con, digest, options, server, setup};

fn check(con: &mut redis::Connection, c: &Campaign) -> Report {
    check_campaign(con, c).unwrap()
}

/// A buffered campaign of one board `B` (options `x` weighing 3, `y`)
/// whose votes stay buffered within the test (fold_ms a minute), with
/// `n` votes in its buffer.
fn buffered(con: &mut redis::Connection, name: &str, n: usize) -> Campaign {
    let mut settings = boards([(
        "B",
        board(&[Period::Total, Period::Day], options([("x", 3), ("y", 1)])),
    )])
    .with_mode(Mode::Buffered);
    settings.fold_ms = Some(60000);
    let c = setup(con, name, settings);
    for i in 0..n {
        let user = format!("user:{i}");
        c.vote(&user, &[("B", "x"), ("B", "y")]).run(con).unwrap();
    }
    c
}

/// The one violation of `report`: on `key`, saying `what`.
#[track_caller]
fn only(report: &Report, key: &str, what: &str) {
    assert_eq!(report.violations.len(), 1, "{report}");
    let v = &report.violations[0];
    assert!(v.key == key && v.what.contains(what), "{report}");
}

#[test]
fn votes_waiting_in_the_buffer_check_clean_and_are_reported() {
    let server = server();
    let mut con = con(&server);
    let c = buffered(&mut con, "hot", 5);
    let buf = format!("{}buf", c.namespace());
    assert_eq!(con.llen::<_, u64>(&buf).unwrap(), 5, "the votes wait");

    let before = digest(&mut con);
    let report = check(&mut con, &c);
    assert!(report.is_clean(), "{report}");
    assert_eq!(digest(&mut con), before, "a check wrote");
    let b = report.buffer.clone().expect("a buffered campaign's buffer");
    assert_eq!(b.votes, 5, "{report}");
    assert!(b.fold_lag_ms.is_some_and(|ms| ms < 60000), "{report}");
    assert_eq!(report.checked["buffered_votes"], 5, "{report}");
    assert!(report.to_string().contains("buffer: 5 vote(s)"), "{report}");

    // folded: on the boards, the buffer empty, still clean
    let folded = c.fold(1000).run(&mut con).unwrap();
    assert_eq!((folded.folded, folded.left), (5, 0));
    let report = check(&mut con, &c);
    assert!(report.is_clean(), "{report}");
    assert_eq!(report.buffer.as_ref().map(|b| b.votes), Some(0));

    // an immediate campaign with nothing buffered reports no buffer
    let plain = setup(
        &mut con,
        "plain",
        boards([("B", board(&[Period::Total], options([("x", 1)])))]),
    );
    plain.vote("u", &[("B", "x")]).run(&mut con).unwrap();
    let report = check(&mut con, &plain);
    assert!(report.is_clean() && report.buffer.is_none(), "{report}");
}

#[test]
fn each_corruption_of_the_buffer_is_named() {
    let server = server();
    let mut con = con(&server);
    let c = buffered(&mut con, "bad", 2);
    let (root, buf) = (c.root_key().to_string(), format!("{}buf", c.namespace()));
    assert!(check(&mut con, &c).is_clean());
    let (s, us): (u64, u64) = redis::cmd("TIME").query(&mut con).unwrap();
    let ms = s * 1000 + us / 1000;
    let line = |board: &str, option: &str, weight: &str| {
        format!("1\t{ms}\t{s}\tuser:9\t\t\t{board}\t{option}\t{weight}")
    };

    // lines no vote writes, each appended, named, then taken off again
    for (bad, what) in [
        (
            "not a vote".to_string(),
            "entry 2 \"not a vote\" is not a buffered vote",
        ),
        (
            line("B", "x", "3").replacen("1\t", "2\t", 1),
            "not the format 1",
        ),
        (
            line("B", "x", "0"),
            "weight \"0\" of B:x is not an integer >= 1",
        ),
        (line("B", "x", "-3"), "is not an integer >= 1"),
        (line("B", "x", ""), "is not an integer >= 1"),
        (line("B", "x", "3").replace("user:9", ""), "has no user"),
        (
            format!("{}\tB", line("B", "x", "3")),
            "tab-separated fields",
        ),
        (
            line("B", "zzz", "1"),
            "entry 2: \"zzz\" is not an option of board B",
        ),
        (
            line("Q", "x", "1"),
            "entry 2: board \"Q\" is not a board of the campaign",
        ),
        (
            line("B", "x", "7"),
            "entry 2: weight 7 of B:x, which weighs 3",
        ),
    ] {
        let _: () = con.rpush(&buf, &bad).unwrap();
        only(&check(&mut con, &c), &buf, what);
        let _: () = con.rpop(&buf, None).unwrap();
        assert!(check(&mut con, &c).is_clean(), "{bad:?} taken off");
    }

    // the root's fields that go with the buffer
    let due: String = con.hget(&root, "fold_due").unwrap();
    let _: () = con.hdel(&root, "fold_due").unwrap();
    only(&check(&mut con, &c), &root, "has no fold_due, but");
    let _: () = con.hset(&root, "fold_due", "soon").unwrap();
    only(
        &check(&mut con, &c),
        &root,
        "fold_due \"soon\" is not a Unix ms",
    );
    let later = due.parse::<u64>().unwrap() + 1;
    let _: () = con.hset(&root, "fold_due", later).unwrap();
    only(
        &check(&mut con, &c),
        &root,
        "is not the oldest buffered vote's arrival",
    );
    let _: () = con.hset(&root, "fold_due", &due).unwrap();
    assert!(check(&mut con, &c).is_clean());
    for (field, value, what) in [
        ("mode", "lazy", "mode \"lazy\" is neither"),
        ("fold_ms", "5", "fold_ms \"5\" is not ms in 10..60000"),
        ("folded", "x", "folded \"x\" is not a Unix ms"),
        ("layout", "3", "mode \"buffered\" at layout 3"),
    ] {
        let was: Option<String> = con.hget(&root, field).unwrap();
        let _: () = con.hset(&root, field, value).unwrap();
        let report = check(&mut con, &c);
        assert!(
            report.violations_of(&root).any(|v| v.what.contains(what)),
            "{field}: {report}"
        );
        match was {
            Some(was) => con.hset::<_, _, _, ()>(&root, field, was).unwrap(),
            None => con.hdel::<_, _, ()>(&root, field).unwrap(),
        }
    }
    assert!(check(&mut con, &c).is_clean());

    // an immediate campaign holding buffered votes: no fold takes them
    let _: () = con.hset(&root, "mode", "immediate").unwrap();
    let _: () = con.hset(&root, "layout", "3").unwrap();
    only(
        &check(&mut con, &c),
        &buf,
        "holds 2 vote(s), but the campaign is not buffered",
    );
    // an empty buffer with a fold_due
    let _: () = con.del(&buf).unwrap();
    only(&check(&mut con, &c), &root, "with an empty");
    let _: () = con.hdel(&root, "fold_due").unwrap();
    assert!(check(&mut con, &c).is_clean());
    // layout 4 is a buffered campaign's
    let _: () = con.hset(&root, "layout", "4").unwrap();
    only(
        &check(&mut con, &c),
        &root,
        "layout 4 is a buffered campaign's",
    );
    // the buffer of another type
    let _: () = con.hset(&root, "layout", "3").unwrap();
    let _: () = con.set(&buf, "x").unwrap();
    only(&check(&mut con, &c), &buf, "is a string, not a list");
}
