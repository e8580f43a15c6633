//! Buffered campaigns (docs/hot-campaigns.md): what a vote answers, how far
//! the board reads say the boards are folded, when a vote reaches the
//! boards with no explicit fold (its oldest vote fold_ms old, or the buffer
//! full), how the mode moves the layout, that a refusal writes nothing,
//! that configure refuses what it cannot fold first, and that one fold's
//! work is bounded.

use redis::Connection;
use redvote::campaign::{
    BoardSettings, CampaignSettings, Dimension, LimitRule, Mode, Neighbourhood, OptionSettings,
    Paging, View, Voter, Window,
};
use redvote::{Campaign, Code, Period};

use crate::support::{self, digest, real_total, refused_unchanged};

/// Votes at this time (2040): every period board lives.
const T0: u64 = 2_215_000_000;

/// A buffered campaign `name` with board "stars" (hour, day and total,
/// carry 0.1) of `options` options o0.., folding after `fold_ms`.
fn hot(con: &mut Connection, name: &str, options: usize, fold_ms: u64) -> Campaign {
    let c = Campaign::new(name);
    let mut board = BoardSettings::new(&[Period::Hour, Period::Day, Period::Total]);
    board.carry = Some("0.1".into());
    for i in 0..options {
        board = board.with_option(&format!("o{i}"), OptionSettings::weighted(1));
    }
    let s = CampaignSettings {
        fold_ms: Some(fold_ms),
        ..CampaignSettings::new()
            .with_mode(Mode::Buffered)
            .with_board("stars", board)
    };
    c.configure(&s).run(con).unwrap();
    c
}

fn field(con: &mut Connection, c: &Campaign, f: &str) -> Option<String> {
    support::hget(con, c.root_key(), f)
}

#[test]
fn a_buffered_vote_answers_no_scores_and_reaches_the_boards_with_a_fold() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = hot(&mut con, "h1", 3, 60_000);
    let ballots = c
        .at(T0)
        .vote("u1", &[("stars", "o1"), ("stars", "o2")])
        .run(&mut con)
        .unwrap();
    assert_eq!(ballots.len(), 2);
    for b in &ballots {
        assert!(b.shown.is_empty(), "a buffered ballot has no scores: {b:?}");
        assert!(b.folded.is_some(), "a buffered ballot says how far: {b:?}");
    }
    assert_eq!(real_total(&mut con, &c, "stars", "o1"), 0);
    assert_eq!(field(&mut con, &c, "buffered").as_deref(), Some("2"));
    let page = &c
        .at(T0)
        .top(&["stars"], &View::shown("total"), Paging::top(10))
        .run(&mut con)
        .unwrap()[0];
    assert_eq!(page.size, 0);
    assert!(page.folded.is_some());

    let f = c.fold(1000).run(&mut con).unwrap();
    assert_eq!((f.folded, f.left, f.overflow), (2, 0, 0));
    assert_eq!(real_total(&mut con, &c, "stars", "o1"), 1);
    assert_eq!(real_total(&mut con, &c, "stars", "o2"), 1);
    // nothing left: no buffer key, no index, no due time
    let ns = c.namespace().to_string();
    assert!(support::keys(&mut con, &format!("{ns}buf*")).is_empty());
    assert_eq!(field(&mut con, &c, "fold_due"), None);
    let page = &c
        .at(T0)
        .top(&["stars"], &View::shown("total"), Paging::top(10))
        .run(&mut con)
        .unwrap()[0];
    assert_eq!(page.size, 2);
    assert!(
        page.folded.unwrap() >= f.until,
        "nothing buffered: folded up to now"
    );
}

/// A read's rank of a member, and how far it says the boards are folded.
type RankFolded = (Option<u64>, Option<u64>);

/// `standing` and `around` of `option` on "stars" (shown, total) of `c`.
fn member_reads(con: &mut Connection, c: &Campaign, option: &str) -> (RankFolded, RankFolded) {
    let view = View::shown("total");
    let s = c
        .at(T0)
        .standing("stars", &view, &[option])
        .run(con)
        .unwrap();
    let a = c
        .at(T0)
        .around("stars", &view, option, Neighbourhood::new(3, 10))
        .run(con)
        .unwrap();
    ((s[0].rank, s[0].folded), (a.rank, a.folded))
}

#[test]
fn standing_and_around_say_how_far_the_boards_are_folded() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = hot(&mut con, "h1r", 3, 60_000);
    let ballot = c
        .at(T0)
        .vote("u1", &[("stars", "o1")])
        .run(&mut con)
        .unwrap()
        .remove(0);
    let line: String = redis::cmd("LINDEX")
        .arg(format!("{}buf:stars:o1", c.namespace()))
        .arg(0)
        .query(&mut con)
        .unwrap();
    let arrived: u64 = line.split('\t').nth(1).unwrap().parse().unwrap();
    let top = |con: &mut Connection| {
        c.at(T0)
            .top(&["stars"], &View::shown("total"), Paging::top(10))
            .run(con)
            .unwrap()
            .remove(0)
            .folded
    };

    // buffered: not on the board yet, and every read says so alike
    let folded = top(&mut con);
    let ((s_rank, s_folded), (a_rank, a_folded)) = member_reads(&mut con, &c, "o1");
    assert_eq!((s_rank, a_rank), (None, None), "not folded yet");
    assert!(folded.is_some());
    assert_eq!((s_folded, a_folded), (folded, folded), "as top answers");
    assert_eq!(folded, ballot.folded, "what the vote answered");
    assert!(folded.unwrap() <= arrived, "the vote is not before it");

    // folded: on the board, and folded past the vote's arrival
    while c.fold(1000).run(&mut con).unwrap().left > 0 {}
    let ((s_rank, s_folded), (a_rank, a_folded)) = member_reads(&mut con, &c, "o1");
    assert_eq!((s_rank, a_rank), (Some(1), Some(1)));
    for folded in [s_folded, a_folded] {
        assert!(folded.unwrap() >= arrived, "{folded:?} < {arrived}");
    }

    // an immediate campaign answers no `folded`
    let now = Campaign::new("h1i");
    now.configure(&CampaignSettings::new().with_board(
        "stars",
        BoardSettings::new(&[Period::Total]).with_options(&["o1"]),
    ))
    .run(&mut con)
    .unwrap();
    now.at(T0)
        .vote("u1", &[("stars", "o1")])
        .run(&mut con)
        .unwrap();
    assert_eq!(
        member_reads(&mut con, &now, "o1"),
        ((Some(1), None), (Some(1), None))
    );
}

#[test]
fn votes_fold_themselves_once_the_oldest_is_fold_ms_old() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = hot(&mut con, "h2", 2, 10);
    c.at(T0)
        .vote("first", &[("stars", "o0")])
        .run(&mut con)
        .unwrap();
    // each later vote folds when the first is 10 ms old: no explicit fold
    let mut n = 0;
    support::wait_until(
        "the first vote folded by a later one",
        support::PATIENCE,
        || {
            n += 1;
            c.at(T0)
                .vote(&format!("later{n}"), &[("stars", "o1")])
                .run(&mut con)
                .unwrap();
            real_total(&mut con, &c, "stars", "o0") == 1
        },
    );
    let page = &c
        .at(T0)
        .top(&["stars"], &View::shown("total"), Paging::top(10))
        .run(&mut con)
        .unwrap()[0];
    assert_eq!(page.entries[0].member, "o1", "{page:?}");
}

#[test]
fn a_vote_that_fills_the_buffer_folds_it() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = hot(&mut con, "h3", 10, 60_000);
    let mut pipe = redis::pipe();
    for i in 0..999 {
        let o = format!("o{}", i % 10);
        c.at(T0)
            .vote(&format!("u{i}"), &[("stars", o.as_str())])
            .add_to(&mut pipe);
    }
    redvote::scripts::load_all(&mut con).unwrap();
    pipe.query::<redis::Value>(&mut con).unwrap();
    assert_eq!(field(&mut con, &c, "buffered").as_deref(), Some("999"));
    assert_eq!(real_total(&mut con, &c, "stars", "o0"), 0);
    let last = c
        .at(T0)
        .vote("u999", &[("stars", "o9")])
        .run(&mut con)
        .unwrap();
    // the vote folded what one call folds (its bound of work): the options
    // whose votes are oldest first
    let left: u64 = field(&mut con, &c, "buffered").unwrap().parse().unwrap();
    assert!(left > 0 && left < 1000, "{left} pairs left");
    assert_eq!(real_total(&mut con, &c, "stars", "o0"), 100);
    assert!(last[0].folded.unwrap() > 0);
    loop {
        if c.fold(1000).run(&mut con).unwrap().left == 0 {
            break;
        }
    }
    for i in 0..10 {
        assert_eq!(real_total(&mut con, &c, "stars", &format!("o{i}")), 100);
    }
}

#[test]
fn the_mode_moves_the_layout_and_a_switch_back_drains() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = hot(&mut con, "h4", 2, 60_000);
    assert_eq!(field(&mut con, &c, "layout").as_deref(), Some("4"));
    c.at(T0)
        .vote("u", &[("stars", "o0")])
        .run(&mut con)
        .unwrap();
    let back = CampaignSettings::new().with_mode(Mode::Immediate);
    c.configure(&back).run(&mut con).unwrap();
    assert_eq!(field(&mut con, &c, "layout").as_deref(), Some("3"));
    assert_eq!(real_total(&mut con, &c, "stars", "o0"), 1, "drained first");
    let ballots = c
        .at(T0)
        .vote("v", &[("stars", "o0")])
        .run(&mut con)
        .unwrap();
    assert_eq!(ballots[0].folded, None);
    assert!(!ballots[0].shown.is_empty());

    // a campaign at layout 1 upgrades before it may choose a mode
    let old = Campaign::new("h4old");
    old.configure(&CampaignSettings::new().with_board(
        "b",
        BoardSettings::new(&[Period::Total]).with_options(&["x"]),
    ))
    .run(&mut con)
    .unwrap();
    redis::cmd("HSET")
        .arg(old.root_key())
        .arg("layout")
        .arg("1")
        .exec(&mut con)
        .unwrap();
    let buffered = CampaignSettings::new().with_mode(Mode::Buffered);
    refused_unchanged(&mut con, "mode on layout 1", Code::LayoutVersion, |con| {
        old.configure(&buffered).run(con)
    });
}

#[test]
fn a_refused_vote_on_a_buffered_campaign_writes_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = hot(&mut con, "h5", 2, 60_000);
    let limited = CampaignSettings::new().with_limit(LimitRule::fixed(
        "one",
        &[Dimension::User],
        Window::Day,
        1,
    ));
    c.configure(&limited).run(&mut con).unwrap();
    c.at(T0)
        .vote("u", &[("stars", "o0")])
        .run(&mut con)
        .unwrap();
    let before = digest(&mut con);
    let limited = c.at(T0).vote("u", &[("stars", "o1")]).run(&mut con);
    assert!(
        matches!(limited, Err(redvote::Error::RateLimited(_))),
        "{limited:?}"
    );
    assert_eq!(digest(&mut con), before, "a rate-limited vote wrote");
    refused_unchanged(&mut con, "unknown option", Code::UnknownOption, |con| {
        c.at(T0).vote("w", &[("stars", "zz")]).run(con)
    });
    refused_unchanged(&mut con, "key-like option", Code::InvalidName, |con| {
        c.at(T0).vote("w", &[("stars", "1:x")]).run(con)
    });
    refused_unchanged(&mut con, "empty user", Code::InvalidUser, |con| {
        c.at(T0).vote("", &[("stars", "o1")]).run(con)
    });
    let with_id = Voter::new("w").id("id-1");
    c.at(T0)
        .vote_by(&with_id, &[("stars", "o1")])
        .run(&mut con)
        .unwrap();
    refused_unchanged(&mut con, "id reused", Code::VoteIdReused, |con| {
        c.at(T0).vote_by(&with_id, &[("stars", "o0")]).run(con)
    });
}

/// A buffer of `n` lines for option o0, written as lib/fold lays it out.
fn fill(con: &mut Connection, c: &Campaign, n: usize) {
    let ns = c.namespace();
    let ms = T0 * 1000;
    let line = format!("1\t{ms}\t0\t{T0}\tu\t\t\t1");
    let mut pipe = redis::pipe();
    for _ in 0..n {
        pipe.rpush(format!("{ns}buf:stars:o0"), &line).ignore();
    }
    pipe.zadd(format!("{ns}bufs"), "stars:o0", ms * 64).ignore();
    pipe.hset(c.root_key(), "buffered", n).ignore();
    pipe.hset(c.root_key(), "fold_due", ms + 200).ignore();
    pipe.query::<()>(con).unwrap();
}

#[test]
fn configure_refuses_what_it_cannot_fold_first_and_writes_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = hot(&mut con, "h6", 2, 60_000);
    let with_id = Voter::new("w").id("v1");
    c.at(T0)
        .vote_by(&with_id, &[("stars", "o1")])
        .run(&mut con)
        .unwrap();
    c.fold(1000).run(&mut con).unwrap();
    fill(&mut con, &c, 1001);
    let change = CampaignSettings::new().with_vote_log(10);
    let detail = refused_unchanged(&mut con, "configure", Code::Unfolded, |con| {
        c.configure(&change).run(con)
    });
    assert!(detail.contains("1001"), "{detail}");
    refused_unchanged(&mut con, "void", Code::Unfolded, |con| {
        c.void("v1").run(con)
    });
    // folded, it goes through
    loop {
        let f = c.fold(1000).run(&mut con).unwrap();
        if f.left == 0 {
            break;
        }
    }
    assert_eq!(real_total(&mut con, &c, "stars", "o0"), 1001);
    c.configure(&change).run(&mut con).unwrap();
}

#[test]
fn one_fold_takes_what_fits_its_work_and_the_next_takes_the_rest() {
    let server = support::server();
    let mut con = support::con(&server);
    // 600 options, one vote each: far more board entries than one fold writes
    let c = hot(&mut con, "h7", 600, 60_000);
    let mut pipe = redis::pipe();
    for i in 0..600 {
        let o = format!("o{i}");
        c.at(T0)
            .vote(&format!("u{i}"), &[("stars", o.as_str())])
            .add_to(&mut pipe);
    }
    redvote::scripts::load_all(&mut con).unwrap();
    pipe.query::<redis::Value>(&mut con).unwrap();
    let before = digest(&mut con);
    let first = c.fold(1000).run(&mut con).unwrap();
    assert_ne!(digest(&mut con), before);
    assert!(
        first.folded > 0 && first.folded < 600,
        "one fold wrote {first:?}"
    );
    assert_eq!(first.left, 600 - first.folded);
    let mut folds = 1;
    let mut left = first.left;
    while left > 0 {
        left = c.fold(1000).run(&mut con).unwrap().left;
        folds += 1;
        assert!(folds < 100, "the folds do not end");
    }
    for i in 0..600 {
        assert_eq!(real_total(&mut con, &c, "stars", &format!("o{i}")), 1);
    }
}

#[test]
fn a_buffered_votes_record_plans_its_entries_again_while_its_board_holds() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = hot(&mut con, "h8", 2, 60_000);
    for id in ["a", "b"] {
        let voter = Voter::new(format!("user-{id}")).id(id);
        c.at(T0)
            .vote_by(&voter, &[("stars", "o0")])
            .run(&mut con)
            .unwrap();
    }
    // the record keeps what plans the entries, not the entries
    let record: String = redis::cmd("GET")
        .arg(format!("{}vid:a", c.namespace()))
        .query(&mut con)
        .unwrap();
    assert!(
        record.contains("\"x\"") && !record.contains("\"e\""),
        "{record}"
    );
    // nor what the request or the time already say: the voter, the
    // buckets, the reply (only its folded)
    let parsed: serde_json::Value = serde_json::from_str(&record).unwrap();
    assert!(
        parsed[1].as_str().is_some_and(|f| f.parse::<u64>().is_ok()),
        "{record}"
    );
    for derived in ["u", "c", "d", "h", "dy"] {
        assert!(parsed[2].get(derived).is_none(), "{derived} in {record}");
    }
    let void = c.void("a").run(&mut con).unwrap();
    // hour, day and total: real and shown each, and the carry into the
    // next hour and day
    assert_eq!((void.changed, void.skipped), (8, 0));
    assert_eq!(real_total(&mut con, &c, "stars", "o0"), 1);
    // the carry changed since b: its board's entries cannot be planned as
    // they were written, so the void leaves them, counted as skipped
    let mut board = BoardSettings::new(&[Period::Hour, Period::Day, Period::Total]);
    board.carry = Some("0.5".into());
    c.configure(&CampaignSettings::new().with_board("stars", board))
        .run(&mut con)
        .unwrap();
    let before = digest(&mut con);
    let void = c.void("b").run(&mut con).unwrap();
    assert_eq!((void.changed, void.skipped), (0, 1));
    assert_eq!(real_total(&mut con, &c, "stars", "o0"), 1);
    assert_ne!(digest(&mut con), before, "the record is marked voided");
}

#[test]
fn a_vote_that_would_fold_a_corrupt_buffer_is_refused_writing_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = hot(&mut con, "h9", 2, 10);
    fill(&mut con, &c, 3);
    // a line a hand broke, and the oldest vote due: the next vote folds
    // before its own writes, and the fold refuses before its first
    let ns = c.namespace().to_string();
    redis::cmd("LSET")
        .arg(format!("{ns}buf:stars:o0"))
        .arg(1)
        .arg("not a vote")
        .exec(&mut con)
        .unwrap();
    redis::cmd("HSET")
        .arg(c.root_key())
        .arg("fold_due")
        .arg(1)
        .exec(&mut con)
        .unwrap();
    let detail = refused_unchanged(&mut con, "vote", Code::InvalidConfig, |con| {
        c.at(T0).vote("u", &[("stars", "o1")]).run(con)
    });
    assert!(detail.contains("buf:stars:o0 entry 1"), "{detail}");
}

#[test]
fn a_buffered_votes_record_replays_its_pairs_and_a_first_format_record_still_voids() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = hot(&mut con, "h9", 2, 60_000);
    let pairs = [("stars", "o0"), ("stars", "o1")];
    for id in ["new", "old"] {
        let voter = Voter::new(format!("user-{id}")).id(id).channel("app");
        let first = c.at(T0).vote_by(&voter, &pairs).run(&mut con).unwrap();
        // the replay answers the same pairs, each marked, with the folded
        // of the first answer
        let again = c.at(T0).vote_by(&voter, &pairs).run(&mut con).unwrap();
        assert_eq!(again.len(), 2);
        for (a, b) in first.iter().zip(&again) {
            assert_eq!(
                (&a.board, &a.option, a.folded),
                (&b.board, &b.option, b.folded)
            );
            assert!(b.replay && !a.replay && b.shown.is_empty());
        }
    }
    while c.fold(1000).run(&mut con).unwrap().left > 0 {}
    let ns = c.namespace().to_string();
    let buckets: Vec<String> = ["hour", "day"]
        .iter()
        .map(|kind| {
            let keys: Vec<String> = support::keys(&mut con, &format!("{ns}st:stars:{kind}:*"))
                .into_iter()
                .collect();
            assert_eq!(keys.len(), 1, "{keys:?}");
            keys[0]
                .trim_start_matches(&format!("{ns}st:stars:"))
                .to_string()
        })
        .collect();
    // "old" as the first buffered records were written: the reply whole,
    // the voter and the buckets named
    let key = format!("{ns}vid:old");
    let raw: String = redis::cmd("GET").arg(&key).query(&mut con).unwrap();
    let mut record: serde_json::Value = serde_json::from_str(&raw).unwrap();
    let folded = record[1].clone();
    record[1] = serde_json::json!([
        ["stars", "o0", {}, "", folded],
        ["stars", "o1", {}, "", folded]
    ]);
    let info = record[2].as_object_mut().unwrap();
    for (k, v) in [("u", "user-old"), ("c", "app"), ("d", "")] {
        info.insert(k.into(), v.into());
    }
    info.insert("h".into(), buckets[0].clone().into());
    info.insert("dy".into(), buckets[1].clone().into());
    let _: () = redis::cmd("SET")
        .arg(&key)
        .arg(record.to_string())
        .arg("KEEPTTL")
        .query(&mut con)
        .unwrap();
    let replay = c
        .at(T0)
        .vote_by(&Voter::new("user-old").id("old").channel("app"), &pairs)
        .run(&mut con)
        .unwrap();
    assert!(replay.iter().all(|b| b.replay) && replay.len() == 2);
    // both void alike: 8 entries a pair (hour, day and total, real and
    // shown, and the carries), and one voided vote in each bucket a pair
    for (n, id) in ["new", "old"].into_iter().enumerate() {
        let void = c.void(id).run(&mut con).unwrap();
        assert_eq!((void.changed, void.skipped), (16, 0), "{id}");
        for bucket in &buckets {
            let voided = support::hget(&mut con, &format!("{ns}st:stars:{bucket}"), "voided");
            assert_eq!(
                voided.as_deref(),
                Some(&*(2 * (n + 1)).to_string()),
                "{id} {bucket}"
            );
        }
    }
    for option in ["o0", "o1"] {
        assert_eq!(real_total(&mut con, &c, "stars", option), 0);
    }
    // and a voided record answers as voided, whichever its format
    for id in ["new", "old"] {
        let again = c.void(id).run(&mut con).unwrap();
        assert!(again.already && again.changed == 0, "{id}");
    }
}

#[test]
fn a_compact_record_whose_stamp_names_no_offset_is_refused_writing_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = hot(&mut con, "h10", 1, 60_000);
    let voter = Voter::new("user-a").id("a");
    c.at(T0)
        .vote_by(&voter, &[("stars", "o0")])
        .run(&mut con)
        .unwrap();
    while c.fold(1000).run(&mut con).unwrap().left > 0 {}
    let key = format!("{}vid:a", c.namespace());
    let raw: String = redis::cmd("GET").arg(&key).query(&mut con).unwrap();
    // an offset no campaign has: the void could not name the buckets
    let stamp = serde_json::from_str::<serde_json::Value>(&raw).unwrap()[2]["x"][0][1]
        .as_str()
        .unwrap()
        .to_string();
    let (head, _) = stamp.rsplit_once('|').unwrap();
    let corrupt = raw.replace(&stamp, &format!("{head}|99999999"));
    let _: () = redis::cmd("SET")
        .arg(&key)
        .arg(&corrupt)
        .arg("KEEPTTL")
        .query(&mut con)
        .unwrap();
    refused_unchanged(&mut con, "void", Code::InvalidConfig, |con| {
        c.void("a").run(con)
    });
    assert_eq!(real_total(&mut con, &c, "stars", "o0"), 1);
}
