//! `check_campaign` on a buffered campaign (docs/hot-campaigns.md): pairs
//! waiting in the options' buffers `<ns>buf:B:O` are no violation (the
//! boards hold the folded ones only) and are reported as information; each
//! corruption of a buffer, of `<ns>bufs` or of the root's fields that go
//! with them is named on its key, and undone, the campaign is clean again.

use redis::Commands;
use redvote::{Campaign, Mode, Period};
use redvote_check::{check_campaign, Report};
use redvote_testing::{board, boards, con, digest, options, server, setup};

/// The test campaigns' fold_ms: their votes stay buffered within the test.
const FOLD_MS: u64 = 60000;

fn check(con: &mut redis::Connection, c: &Campaign) -> Report {
    check_campaign(con, c).unwrap()
}

/// A buffered campaign of one board `B` (options `x` weighing 3, `y`),
/// fold_ms [`FOLD_MS`], with `n` votes for `B:x` and `B:y` buffered.
fn buffered(con: &mut redis::Connection, name: &str, n: usize) -> Campaign {
    let mut settings = boards([(
        "B",
        board(&[Period::Total, Period::Day], options([("x", 3), ("y", 1)])),
    )])
    .with_mode(Mode::Buffered);
    settings.fold_ms = Some(FOLD_MS);
    let c = setup(con, name, settings);
    for i in 0..n {
        let user = format!("user:{i}");
        c.vote(&user, &[("B", "x"), ("B", "y")]).run(con).unwrap();
    }
    c
}

/// Append `n` lines (users `bulk:1`...) for `board`:`option` of weight
/// `weight` to the campaign's buffers as campaign_vote writes them: the
/// option's list, its `<ns>bufs` member when it had none, the root's
/// `buffered`, and its `fold_due` when nothing was buffered.
fn push(con: &mut redis::Connection, c: &Campaign, pair: (&str, &str), n: usize, weight: u32) {
    let (s, us): (u64, u64) = redis::cmd("TIME").query(con).unwrap();
    let ms = s * 1000 + us / 1000;
    let (ns, member) = (c.namespace(), format!("{}:{}", pair.0, pair.1));
    let mut pipe = redis::pipe();
    for i in 1..=n {
        let line = format!("1\t{ms}\t0\t{s}\tbulk:{i}\t\t\t{weight}");
        pipe.rpush(format!("{ns}buf:{member}"), line).ignore();
    }
    pipe.cmd("ZADD")
        .arg(format!("{ns}bufs"))
        .arg("NX")
        .arg(ms * 64)
        .arg(&member)
        .ignore();
    pipe.hincr(c.root_key(), "buffered", n).ignore();
    pipe.hset_nx(c.root_key(), "fold_due", ms + FOLD_MS)
        .ignore();
    pipe.atomic().query::<()>(con).unwrap();
}

/// The one violation of `report`: on `key`, saying `what`.
#[track_caller]
fn only(report: &Report, key: &str, what: &str) {
    assert_eq!(report.violations.len(), 1, "{report}");
    let v = &report.violations[0];
    assert!(v.key == key && v.what.contains(what), "{report}");
}

#[test]
fn pairs_waiting_in_the_buffers_check_clean_and_are_reported() {
    let server = server();
    let mut con = con(&server);
    let c = buffered(&mut con, "hot", 5);
    let ns = c.namespace().to_string();
    assert_eq!(con.llen::<_, u64>(format!("{ns}buf:B:x")).unwrap(), 5);
    let count: u64 = con.hget(c.root_key(), "buffered").unwrap();
    assert_eq!(count, 10, "a line a pair");

    let before = digest(&mut con);
    let report = check(&mut con, &c);
    assert!(report.is_clean(), "{report}");
    assert_eq!(digest(&mut con), before, "a check wrote");
    let b = report.buffer.clone().expect("a buffered campaign's buffer");
    assert_eq!((b.pairs, b.options), (10, 2), "{report}");
    assert!(b.fold_lag_ms.is_some_and(|ms| ms < FOLD_MS), "{report}");
    assert_eq!(report.checked["buffered_pairs"], 10, "{report}");
    assert_eq!(report.checked["buffered_options"], 2, "{report}");
    assert!(
        report
            .to_string()
            .contains("buffer: 10 pair(s) of 2 option(s) not yet on the boards"),
        "{report}"
    );

    // a buffer longer than the first read and a page after it: read to
    // its end, a bad last line named by its entry
    push(&mut con, &c, ("B", "x"), 1200, 3);
    let report = check(&mut con, &c);
    assert!(report.is_clean(), "{report}");
    assert_eq!(report.buffer.as_ref().map(|b| b.pairs), Some(1210));
    let x = format!("{ns}buf:B:x");
    let _: () = con.rpush(&x, "not a pair").unwrap();
    let _: () = con.hincr(c.root_key(), "buffered", 1).unwrap();
    only(&check(&mut con, &c), &x, "entry 1205 \"not a pair\"");
    let _: () = con.rpop(&x, None).unwrap();
    let _: () = con.hincr(c.root_key(), "buffered", -1).unwrap();

    // folded: on the boards, the buffers empty, still clean
    let mut left = 1210;
    while left > 0 {
        left = c.fold(1000).run(&mut con).unwrap().left;
    }
    let report = check(&mut con, &c);
    assert!(report.is_clean(), "{report}");
    assert_eq!(report.buffer, Some(Default::default()), "{report}");

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
fn each_corruption_of_a_line_is_named() {
    let server = server();
    let mut con = con(&server);
    let c = buffered(&mut con, "lines", 2);
    let (root, x) = (
        c.root_key().to_string(),
        format!("{}buf:B:x", c.namespace()),
    );
    assert!(check(&mut con, &c).is_clean());
    let (s, us): (u64, u64) = redis::cmd("TIME").query(&mut con).unwrap();
    let ms = s * 1000 + us / 1000;
    let line = |weight: &str| format!("1\t{ms}\t0\t{s}\tuser:9\t\t\t{weight}");

    // lines no vote writes, each appended (and counted), named, then taken
    // off again
    for (bad, what) in [
        (
            "not a vote".to_string(),
            "entry 2 \"not a vote\" is not a buffered pair: has 1 tab-separated fields, not 8",
        ),
        (line("3").replacen("1\t", "2\t", 1), "not the format 1"),
        (
            line("3").replacen(&format!("\t{ms}\t"), "\tsoon\t", 1),
            "arrived \"soon\" is not a Unix ms",
        ),
        (
            line("3").replacen("\t0\t", "\t50\t", 1),
            "place \"50\" is not a place in a vote",
        ),
        (line("0"), "weight \"0\" is not an integer >= 1"),
        (line("-3"), "is not an integer >= 1"),
        (line(""), "is not an integer >= 1"),
        (line("3").replace("user:9", ""), "has no user"),
        (format!("{}\tB", line("3")), "has 9 tab-separated fields"),
        (line("7"), "entry 2: weight 7 of B:x, which weighs 3"),
    ] {
        let _: () = con.rpush(&x, &bad).unwrap();
        let _: () = con.hincr(&root, "buffered", 1).unwrap();
        only(&check(&mut con, &c), &x, what);
        let _: () = con.rpop(&x, None).unwrap();
        let _: () = con.hincr(&root, "buffered", -1).unwrap();
        assert!(check(&mut con, &c).is_clean(), "{bad:?} taken off");
    }
}

#[test]
fn each_corruption_of_the_buffers_is_named() {
    let server = server();
    let mut con = con(&server);
    let c = buffered(&mut con, "bad", 2);
    let ns = c.namespace().to_string();
    let (root, bufs) = (c.root_key().to_string(), format!("{ns}bufs"));
    let y = format!("{ns}buf:B:y");
    assert!(check(&mut con, &c).is_clean());

    // options no vote buffers: each pushed as a vote would, named on
    // <ns>bufs, then taken off again
    for (board, option, what) in [
        (
            "B",
            "zzz",
            "lists B:zzz: \"zzz\" is not an option of board B",
        ),
        (
            "Q",
            "x",
            "lists Q:x: board \"Q\" is not a board of the campaign",
        ),
    ] {
        push(&mut con, &c, (board, option), 2, 1);
        only(&check(&mut con, &c), &bufs, what);
        let member = format!("{board}:{option}");
        let _: () = con.del(format!("{ns}buf:{member}")).unwrap();
        let _: () = con.zrem(&bufs, &member).unwrap();
        let _: () = con.hincr(&root, "buffered", -2).unwrap();
        assert!(check(&mut con, &c).is_clean(), "{member} taken off");
    }
    let _: () = con.zadd(&bufs, "nocolon", f64::MAX).unwrap();
    only(
        &check(&mut con, &c),
        &bufs,
        "lists \"nocolon\", not a BOARD:OPTION",
    );
    let _: () = con.zrem(&bufs, "nocolon").unwrap();

    // a member without its list, a list without its member, another score
    let lines: Vec<String> = con.lrange(&y, 0, -1).unwrap();
    let score: f64 = con.zscore(&bufs, "B:y").unwrap();
    let _: () = con.del(&y).unwrap();
    let _: () = con.hincr(&root, "buffered", -2).unwrap();
    only(
        &check(&mut con, &c),
        &bufs,
        &format!("lists B:y, but {y} is empty"),
    );
    let _: () = con.rpush(&y, &lines).unwrap();
    let _: () = con.hincr(&root, "buffered", 2).unwrap();
    let _: () = con.zrem(&bufs, "B:y").unwrap();
    // (its pairs, which no fold takes, are not among the `buffered` either)
    let report = check(&mut con, &c);
    assert_eq!(report.violations.len(), 2, "{report}");
    let unlisted = format!("holds buffered pairs, but {bufs} does not list B:y");
    assert!(
        report.violations_of(&y).any(|v| v.what.contains(&unlisted)),
        "{report}"
    );
    let uncounted = "buffered 4 is not the 2 pair(s) the 1 buffer(s)";
    assert!(
        report
            .violations_of(&root)
            .any(|v| v.what.contains(uncounted)),
        "{report}"
    );
    let _: () = con.zadd(&bufs, "B:y", score + 64.0).unwrap();
    only(&check(&mut con, &c), &bufs, "not its oldest line's arrival");
    let _: () = con.zadd(&bufs, "B:y", score).unwrap();
    assert!(check(&mut con, &c).is_clean());
    // the former layout's one list: no fold reads it
    let old = format!("{ns}buf");
    let _: () = con.rpush(&old, &lines).unwrap();
    only(&check(&mut con, &c), &old, "is not an option's buffer");
    let _: () = con.del(&old).unwrap();

    // the root's fields that go with the buffers
    for (value, what) in [
        ("5", "buffered 5 is not the 4 pair(s) the 2 buffer(s)"),
        ("x", "buffered \"x\" is not a count of pairs"),
    ] {
        let _: () = con.hset(&root, "buffered", value).unwrap();
        only(&check(&mut con, &c), &root, what);
    }
    let _: () = con.hset(&root, "buffered", 4).unwrap();
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
        "is not the oldest buffered pair's arrival",
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

    // an immediate campaign holding buffered pairs: no fold takes them
    let _: () = con.hset(&root, "mode", "immediate").unwrap();
    let _: () = con.hset(&root, "layout", "3").unwrap();
    only(
        &check(&mut con, &c),
        &bufs,
        "lists 2 option(s), but the campaign is not buffered",
    );
    // nothing buffered, with a fold_due
    let _: () = con.del(&[bufs.clone(), y, format!("{ns}buf:B:x")]).unwrap();
    let _: () = con.hset(&root, "buffered", 0).unwrap();
    only(&check(&mut con, &c), &root, "with nothing buffered");
    let _: () = con.hdel(&root, "fold_due").unwrap();
    assert!(check(&mut con, &c).is_clean());
    // layout 4 is a buffered campaign's
    let _: () = con.hset(&root, "layout", "4").unwrap();
    only(
        &check(&mut con, &c),
        &root,
        "layout 4 is a buffered campaign's",
    );
    // <ns>bufs of another type
    let _: () = con.hset(&root, "layout", "3").unwrap();
    let _: () = con.set(&bufs, "x").unwrap();
    only(&check(&mut con, &c), &bufs, "is a string, not a sorted set");
}

/// A check under a live workload reports only what is wrong: a thread
/// votes 5 pairs at a time on a buffered campaign of 300 options (more
/// than one `ZSCAN` page of `<ns>bufs`), a fold of 20 pairs every 7th
/// vote (whole options and parts of one) and one of up to 1000 by the vote
/// that finds 1000 pairs buffered, while `check_campaign` runs in a loop. Every check must be clean:
/// what moved between two reads is read again before it is reported.
#[test]
fn votes_and_folds_during_checks_report_nothing() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    const OPTIONS: usize = 300;
    let server = server();
    let mut setup_con = con(&server);
    let names: Vec<String> = (0..OPTIONS).map(|i| format!("o{i}")).collect();
    let weighted = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            (
                n.clone(),
                redvote::OptionSettings::weighted(i as u32 % 3 + 1),
            )
        })
        .collect();
    let mut settings =
        boards([("B", board(&[Period::Total, Period::Day], weighted))]).with_mode(Mode::Buffered);
    settings.fold_ms = Some(FOLD_MS);
    let c = setup(&mut setup_con, "live", settings);
    // every option buffered from the start: <ns>bufs is more than a page
    for (i, five) in names.chunks(5).enumerate() {
        let pairs: Vec<(&str, &str)> = five.iter().map(|o| ("B", o.as_str())).collect();
        c.vote(&format!("early:{i}"), &pairs)
            .run(&mut setup_con)
            .unwrap();
    }
    let report = check(&mut setup_con, &c);
    assert!(report.is_clean(), "{report}");
    assert_eq!(report.buffer.map(|b| b.options), Some(OPTIONS as u64));

    let stop = Arc::new(AtomicBool::new(false));
    let voted = Arc::new(AtomicU64::new(0));
    let votes = {
        let (stop, voted, c) = (stop.clone(), voted.clone(), c.clone());
        let mut con = con(&server);
        std::thread::spawn(move || {
            let mut n: usize = 0;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let picked: Vec<(&str, &str)> = (0..5)
                    .map(|k| ("B", names[(n * 37 + k * 61) % OPTIONS].as_str()))
                    .collect();
                c.vote(&format!("user:{n}"), &picked).run(&mut con).unwrap();
                if n.is_multiple_of(7) {
                    c.fold(20).run(&mut con).unwrap();
                }
                voted.store(n as u64, Ordering::Relaxed);
            }
        })
    };

    let mut check_con = con(&server);
    let started = Instant::now();
    let (mut runs, mut dirty) = (0, Vec::new());
    // 100 checks (or 15 s of them), and at least 50 votes meanwhile (a
    // loaded machine may run the checks before the voting thread)
    let busy = || voted.load(Ordering::Relaxed) >= 50;
    while (runs < 100 && started.elapsed() < Duration::from_secs(15)) || !busy() {
        assert!(
            started.elapsed() < redvote_testing::PATIENCE,
            "the voting thread voted {} times",
            voted.load(Ordering::Relaxed)
        );
        runs += 1;
        let report = check(&mut check_con, &c);
        if !report.is_clean() {
            dirty.push(report.to_string());
        }
    }
    stop.store(true, Ordering::Relaxed);
    votes.join().unwrap();
    assert!(
        dirty.is_empty(),
        "{} of {runs} checks under votes and folds reported violations; first:\n{}",
        dirty.len(),
        dirty[0]
    );
    let report = check(&mut check_con, &c);
    assert!(report.is_clean(), "{report}");
}
