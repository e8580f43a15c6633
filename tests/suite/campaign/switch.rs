//! Switching a board's tie rule after votes: the switch to dense or first
//! is pending, the old rule stays in effect with its side keys complete,
//! until `campaign_reindex` has built the new rule's side keys; its last
//! call makes the switch. So no read ever takes a slow path: on a board of
//! 20,100 options, 20,000 of them tied, a 100-member `standing`, a
//! 100-entry `top` page deep in the tie group and a 101-member `around`
//! cost what they cost under competition, before, during and after the
//! switch. (They used to scan: the members above on a dense board, the
//! whole tie group on a first board, for every member of the call: seconds
//! per call, BUSY for every other client.)
//!
//! The bound is asserted on the server's own clock, SLOWLOG with every
//! command logged: each script call's duration, not the test's wall time
//! (`REDVOTE_TEST_SLOWLOG=1 cargo test --test suite campaign::switch --
//! --nocapture` prints every call's). On the scripts before this change the
//! same board took, on the server, 0.80 s for the 100-member standing
//! under dense and 5.3 s under first (11.7 s on another machine).

use redis::Connection;
use redvote::campaign::BoardSettings;
use redvote::{Campaign, Kind, OptionSettings, Period, Ties, View};
use redvote_check::check_campaign;

use super::rank_model::assert_reads_match;
use crate::support::{self, boards, setup, T0};

/// Options tied at one score, and options below the tie group, each at a
/// score of its own.
const TIED: usize = 20_000;
const LOW: usize = 100;
/// The slowest a read or vote call may take on the server, µs. The old
/// slow paths took 0.5 s (dense: the 50 members below the tie group each
/// scanned the 20,000 above) to 11.7 s (first: the tie group for each
/// member) for the 100-member standing on this board; the O(log N) paths
/// take 0.1 to 4 ms (the standing of 100 members: 400-600 commands). The
/// margin is for a loaded test machine, where a call of 0.1 ms was seen
/// to take 9.5 ms once (the process descheduled).
const BOUND_US: u64 = 50_000;

fn tied(i: usize) -> String {
    format!("t{i:05}")
}

fn low(i: usize) -> String {
    format!("l{i:03}")
}

/// Campaign `name`, board "b" (total only, 2 decimals, competition) of
/// 20,100 options: 20,000 imported at 5.00 (tied), 100 at 1.00..1.99, and
/// three real votes for the first tied ones (6.00).
fn big_board(con: &mut Connection, name: &str) -> Campaign {
    let all: Vec<String> = (0..TIED).map(tied).chain((0..LOW).map(low)).collect();
    let c = setup(
        con,
        name,
        boards([(
            "b",
            BoardSettings::new(&[Period::Total]).with_ties(Ties::Competition),
        )]),
    );
    for chunk in all.chunks(1000) {
        let mut b = BoardSettings::default();
        for o in chunk {
            b = b.with_option(o, OptionSettings::default());
        }
        c.configure(&boards([("b", b)])).run(con).unwrap();
    }
    let votes: Vec<(String, String)> = (0..TIED)
        .map(|i| (tied(i), "5".to_string()))
        .chain((0..LOW).map(|i| (low(i), format!("1.{i:02}"))))
        .collect();
    for chunk in votes.chunks(500) {
        let pairs: Vec<(&str, &str)> = chunk
            .iter()
            .map(|(o, v)| (o.as_str(), v.as_str()))
            .collect();
        let mut left = &pairs[..];
        while !left.is_empty() {
            left = c.at(T0).import("b", left).run(con).unwrap().rest_of(left);
        }
    }
    for (i, u) in ["u1", "u2", "u3"].iter().enumerate() {
        c.at(T0).vote(u, &[("b", &tied(i * 7))]).run(con).unwrap();
    }
    c
}

fn send(con: &mut Connection, args: &[&str]) {
    let mut cmd = redis::cmd(args[0]);
    for a in &args[1..] {
        cmd.arg(*a);
    }
    cmd.query::<redis::Value>(con).unwrap();
}

/// Log every command from here on (SLOWLOG, threshold 0), the log empty.
fn slowlog_start(con: &mut Connection) {
    send(con, &["CONFIG", "SET", "slowlog-log-slower-than", "0"]);
    send(con, &["CONFIG", "SET", "slowlog-max-len", "100000"]);
    send(con, &["SLOWLOG", "RESET"]);
}

/// The script calls (EVALSHA / EVAL) logged since `slowlog_start`: their
/// count and the slowest one's duration, µs; the log reset.
fn slowlog_scripts(con: &mut Connection) -> (usize, u64) {
    let entries: Vec<redis::Value> = redis::cmd("SLOWLOG").arg("GET").arg(-1).query(con).unwrap();
    let (mut n, mut max) = (0, 0);
    for e in entries {
        let redis::Value::Array(fields) = e else {
            panic!("{e:?}")
        };
        let us: u64 = redis::from_redis_value(fields[2].clone()).unwrap();
        let args: Vec<String> = redis::from_redis_value(fields[3].clone()).unwrap();
        if args[0].eq_ignore_ascii_case("evalsha") || args[0].eq_ignore_ascii_case("eval") {
            n += 1;
            max = max.max(us);
            if std::env::var_os("REDVOTE_TEST_SLOWLOG").is_some() {
                eprintln!("{us} µs {:?}", &args[2..args.len().min(8)]);
            }
        }
    }
    send(con, &["SLOWLOG", "RESET"]);
    (n, max)
}

/// The large reads, checked against the rank model of `ties`: `standing` of
/// 100 members (50 of the tie group, 50 below it), `top` pages of 100 at
/// the top, deep in the tie group and at its end, `around` of 101 in the
/// middle of the tie group.
fn big_reads(con: &mut Connection, c: &Campaign, ties: Ties) {
    let view = View::new(Kind::Shown, "total");
    let members: Vec<String> = (0..50)
        .map(|i| tied(i * 397))
        .chain((0..50).map(|i| low(i * 2)))
        .collect();
    let members: Vec<&str> = members.iter().map(String::as_str).collect();
    let model = assert_reads_match(
        con,
        c,
        "b",
        &view,
        ties,
        2,
        100,
        &members,
        &[&tied(10_000), &low(50)],
    );
    for page in [100u32, 201] {
        let got = c
            .top(&["b"], &view, redvote::Paging::new(page, 100))
            .run(con)
            .unwrap();
        let lo = (page as usize - 1) * 100;
        assert_eq!(
            got[0].entries,
            model[lo..(lo + 100).min(model.len())],
            "page {page}"
        );
    }
    let around = c
        .around(
            "b",
            &view,
            &tied(10_000),
            redvote::Neighbourhood::new(101, 100),
        )
        .run(con)
        .unwrap();
    assert_eq!(around.window.len(), 101);
}

/// The stored rule fields of board "b": ties, ties_next, indexed (the
/// settings read refuses a campaign of more than 1000 options: see
/// `settings_show_a_pending_switch_and_round_trip` for it).
fn rule_fields(
    con: &mut Connection,
    c: &Campaign,
) -> (Option<String>, Option<String>, Option<String>) {
    redis::cmd("HMGET")
        .arg(format!("{}board:b", c.namespace()))
        .arg(&["ties", "ties_next", "indexed"])
        .query(con)
        .unwrap()
}

fn rule(to: Ties) -> Option<String> {
    Some(to.as_str().to_string())
}

fn assert_clean(con: &mut Connection, c: &Campaign) {
    let report = check_campaign(con, c).unwrap();
    assert!(report.violations.is_empty(), "{report}");
}

/// Switch board "b" to `to` (from `from`, in effect): reads stay `from`'s,
/// bounded, while a reindex of 1000 members a call runs with votes between
/// its calls; its last call makes the switch, after which the reads are
/// `to`'s. Returns the reindex calls and the slowest read or vote, µs.
fn switch(con: &mut Connection, c: &Campaign, from: Ties, to: Ties, voters: &str) -> (u32, u64) {
    c.configure(&boards([("b", BoardSettings::default().with_ties(to))]))
        .run(con)
        .unwrap();
    let (zero, one) = (Some("0".to_string()), Some("1".to_string()));
    assert_eq!(rule_fields(con, c), (rule(from), rule(to), zero));
    assert_clean(con, c);

    // pending: the old rule's ranks, every call bounded
    slowlog_start(con);
    big_reads(con, c, from);
    let (calls, max_read) = slowlog_scripts(con);
    assert!(calls >= 8, "{calls} script calls logged");
    assert!(
        max_read < BOUND_US,
        "a read took {max_read} µs on the server before the reindex"
    );

    // the reindex, votes between its calls (they keep both rules' keys)
    let mut cursor = "0".to_string();
    let mut steps = 0;
    let mut max_vote = 0;
    loop {
        let step = c.reindex("b", &cursor, 1000).run(con).unwrap();
        steps += 1;
        assert!(steps < 200, "the reindex does not end");
        if step.is_done() {
            break;
        }
        cursor = step.next;
        slowlog_start(con);
        let i = steps as usize;
        c.at(T0)
            .vote(
                &format!("{voters}{i}"),
                &[("b", &tied(i * 13)), ("b", &low(i % LOW))],
            )
            .run(con)
            .unwrap();
        max_vote = max_vote.max(slowlog_scripts(con).1);
        if steps == 5 {
            // in the middle: still the old rule, the checker content
            assert_eq!(rule_fields(con, c).1, rule(to));
            slowlog_start(con);
            big_reads(con, c, from);
            let (_, max) = slowlog_scripts(con);
            assert!(max < BOUND_US, "a read took {max} µs during the reindex");
            assert_clean(con, c);
        }
    }
    assert!(
        max_vote < BOUND_US,
        "a vote took {max_vote} µs during the reindex"
    );
    assert_eq!(rule_fields(con, c), (rule(to), None, one));

    // switched: the new rule's ranks, as the model computes them
    slowlog_start(con);
    big_reads(con, c, to);
    let (_, max_after) = slowlog_scripts(con);
    assert!(
        max_after < BOUND_US,
        "a read took {max_after} µs after the reindex"
    );
    assert_clean(con, c);
    (steps, max_read.max(max_vote).max(max_after))
}

#[test]
fn a_tie_switch_on_a_large_tie_group_keeps_every_read_bounded() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = big_board(&mut con, "bigtie");
    big_reads(&mut con, &c, Ties::Competition);
    let (dense_calls, dense_max) = switch(&mut con, &c, Ties::Competition, Ties::Dense, "d");
    let (first_calls, first_max) = switch(&mut con, &c, Ties::Dense, Ties::First, "f");
    println!(
        "to dense: {dense_calls} reindex calls, slowest read/vote {dense_max} µs; \
         to first: {first_calls} calls, slowest {first_max} µs"
    );
    // the old rule's side keys went with the switch
    let ns = c.namespace();
    let d: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{ns}d:b:*"))
        .query(&mut con)
        .unwrap();
    assert_eq!(d, Vec::<String>::new());
}

/// A pending switch is cancelled by configuring the rule in effect again
/// (its partial side keys go), replaced by another (a cursor from before
/// restarts), and a switch to name or competition is at once.
#[test]
fn a_pending_switch_is_cancelled_replaced_or_overtaken() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = big_board(&mut con, "cancel");
    let ns = c.namespace().to_string();
    let to = |t: Ties| boards([("b", BoardSettings::default().with_ties(t))]);
    let keys = |con: &mut Connection, p: &str| -> Vec<String> {
        redis::cmd("KEYS")
            .arg(format!("{ns}{p}:b:*"))
            .query(con)
            .unwrap()
    };
    c.configure(&to(Ties::Dense)).run(&mut con).unwrap();
    let step = c.reindex("b", "0", 500).run(&mut con).unwrap();
    assert!(!step.is_done());
    assert!(!keys(&mut con, "d").is_empty());
    // cancelled: competition stays, the partial keys go
    c.configure(&to(Ties::Competition)).run(&mut con).unwrap();
    assert_eq!(rule_fields(&mut con, &c).1, None);
    assert!(keys(&mut con, "d").is_empty());
    assert!(c
        .reindex("b", &step.next, 500)
        .run(&mut con)
        .unwrap()
        .is_done());
    // replaced: dense then first; the dense cursor restarts the first one
    c.configure(&to(Ties::Dense)).run(&mut con).unwrap();
    let step = c.reindex("b", "0", 500).run(&mut con).unwrap();
    c.configure(&to(Ties::First)).run(&mut con).unwrap();
    assert!(keys(&mut con, "d").is_empty());
    let mut cursor = c.reindex("b", &step.next, 500).run(&mut con).unwrap().next;
    while cursor != "0" {
        cursor = c.reindex("b", &cursor, 5000).run(&mut con).unwrap().next;
    }
    big_reads(&mut con, &c, Ties::First);
    assert_clean(&mut con, &c);
    // to name: at once, the first keys go
    c.configure(&to(Ties::Name)).run(&mut con).unwrap();
    assert_eq!(
        rule_fields(&mut con, &c),
        (rule(Ties::Name), None, Some("1".into()))
    );
    assert!(keys(&mut con, "o").is_empty());
    assert!(keys(&mut con, "f").is_empty());
    big_reads(&mut con, &c, Ties::Name);
    assert_clean(&mut con, &c);
}

/// The settings read shows a pending switch (`ties` the rule configured,
/// `ties_pending`, `ties_effective` the rule in effect) and its end; the
/// document configures the campaign again without a change, pending or not.
#[test]
fn settings_show_a_pending_switch_and_round_trip() {
    let server = support::server();
    let mut con = support::con(&server);
    let mut b = BoardSettings::new(&[Period::Day, Period::Total]);
    for i in 0..30 {
        b = b.with_option(&format!("o{i}"), OptionSettings::default());
    }
    let c = setup(&mut con, "pend", boards([("b", b)]));
    for i in 0..60 {
        let o = format!("o{}", i % 7);
        c.at(T0)
            .vote(&format!("u{i}"), &[("b", o.as_str())])
            .run(&mut con)
            .unwrap();
    }
    let round_trip = |con: &mut Connection| {
        let s = c.settings().run(con).unwrap();
        c.configure(&s).run(con).unwrap();
        assert_eq!(
            c.settings().run(con).unwrap(),
            s,
            "configure of the settings changed them"
        );
        s.boards["b"].clone()
    };
    let b = round_trip(&mut con);
    assert_eq!(
        (b.ties, b.ties_pending, b.ties_effective),
        (Some(Ties::Competition), None, None)
    );
    c.configure(&boards([(
        "b",
        BoardSettings::default().with_ties(Ties::First),
    )]))
    .run(&mut con)
    .unwrap();
    let b = round_trip(&mut con);
    assert_eq!(
        (b.ties, b.ties_pending, b.ties_effective),
        (Some(Ties::First), Some(true), Some(Ties::Competition))
    );
    assert_eq!(
        rule_fields(&mut con, &c).1,
        rule(Ties::First),
        "still pending"
    );
    assert_clean(&mut con, &c);
    let mut cursor = "0".to_string();
    loop {
        let step = c.reindex("b", &cursor, 10).run(&mut con).unwrap();
        if step.is_done() {
            break;
        }
        // a round trip in the middle leaves the switch pending, the cursor good
        let b = round_trip(&mut con);
        assert_eq!(b.ties_pending, Some(true));
        cursor = step.next;
    }
    let b = round_trip(&mut con);
    assert_eq!(
        (b.ties, b.ties_pending, b.ties_effective),
        (Some(Ties::First), None, None)
    );
    assert_clean(&mut con, &c);
}
