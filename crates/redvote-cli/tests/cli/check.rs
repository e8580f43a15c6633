//! `check_site`, `check_campaign` and `redvote check` / `redvote campaign
//! NAME check`: a realistic workload on both systems reports nothing and
//! exits 0; then each kind of violation, planted with raw Redis commands
//! one at a time, is reported on exactly the key it broke (and the CLI
//! exits 1 naming it), and once the key is restored the report is clean
//! again. A few thousand articles are scanned in bounded time.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use redis::Connection;
use redvote::campaign::Dimension::{Channel, Device, Option as ByOption, User};
use redvote::campaign::{BoardSettings, LimitRule, OptionSettings, Rolling, Voter, Window};
use redvote::{Campaign, CampaignSettings, ConfigUpdate, Order, Period, Ranking, Site, Ties, Vote};

use redvote_check::{check_campaign, check_site, Report};

use crate::support::{self, digest, keys, local, redvote, server_time, utc, DAY, HOUR, PLUS8};

/// A prefix full of glob characters: the scan must read it literally.
const PREFIX: &str = "{s?1*}:";
/// A site whose keys the prefix above matches when read as a glob.
const LOOKALIKE: &str = "{sX1y}:";

// ---- plumbing ----------------------------------------------------------------

/// The keys a report names.
fn named(report: &Report) -> BTreeSet<String> {
    report.violations.iter().map(|v| v.key.clone()).collect()
}

#[track_caller]
fn assert_clean(report: &Report) {
    assert!(report.is_clean(), "expected no violation:\n{report}");
}

/// Run the CLI `args` (the check command) and return (exit code, stdout,
/// stderr). These campaigns are configured through the driver, which does
/// not register them: stderr is given without the check's warning about an
/// unregistered campaign (tests/cli/registry.rs tests that warning).
fn cli(url: &str, args: &[&str]) -> (i32, String, String) {
    let out = redvote(Some(url), args);
    let stderr: String = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| !l.contains("is not in the campaign registry"))
        .map(|l| format!("{l}\n"))
        .collect();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr,
    )
}

/// A key's dump and absolute expiry (ms; -1 none, -2 absent), to put it
/// back after a plant.
type Saved = (String, Option<Vec<u8>>, i64);

fn save(con: &mut Connection, key: &str) -> Saved {
    let dump: Option<Vec<u8>> = redis::cmd("DUMP").arg(key).query(con).unwrap();
    let at: i64 = redis::cmd("PEXPIRETIME").arg(key).query(con).unwrap();
    (key.to_string(), dump, at)
}

fn restore(con: &mut Connection, (key, dump, at): Saved) {
    support::del(con, &key);
    if let Some(dump) = dump {
        let mut cmd = redis::cmd("RESTORE");
        cmd.arg(&key).arg(at.max(0)).arg(dump);
        if at > 0 {
            cmd.arg("ABSTTL");
        }
        cmd.query::<()>(con).unwrap();
    }
}

/// Send one raw command (a plant), its reply ignored.
fn send(con: &mut Connection, command: &[&str]) {
    redis::cmd(command[0])
        .arg(&command[1..])
        .exec(con)
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
}

/// One planted violation: `plant` breaks an invariant by writing the
/// `touched` keys with raw commands; the library must report it on `key`
/// and nothing else, and the CLI (`args`) must exit 1 printing the key,
/// with `redvote: N invariant violation(s)` on stderr (and with `--json`,
/// the report's violations). Then the touched keys are restored (the
/// digest and expiries are the ones before) and the report is clean again.
#[track_caller]
fn planted(
    con: &mut Connection,
    url: &str,
    args: &[&str],
    check: &dyn Fn(&mut Connection) -> Report,
    key: &str,
    touched: &[&str],
    plant: impl FnOnce(&mut Connection),
) {
    // DEBUG DIGEST sees whether a key has an expiry, not when: add that
    let state = |con: &mut Connection| {
        let at: Vec<i64> = touched.iter().map(|k| save(con, k).2).collect();
        (digest(con), at)
    };
    let before = state(con);
    let saved: Vec<Saved> = touched.iter().map(|k| save(con, k)).collect();
    plant(con);
    assert_ne!(state(con), before, "{key}: the plant changed nothing");
    let report = check(con);
    // an order key among the touched keys (lua/src/lib/order.lua: a score
    // or sequence number planted on a board of ties first disagrees with
    // it) is named too
    let mut want = BTreeSet::from([key.to_string()]);
    want.extend(
        touched
            .iter()
            .filter(|k| k.contains(":o:"))
            .map(|k| k.to_string()),
    );
    assert_eq!(named(&report), want, "planted on {key}, got:\n{report}");
    let (code, out, err) = cli(url, args);
    assert_eq!(code, 1, "{key}: the CLI must exit 1: {out}{err}");
    assert!(out.contains(key), "{key}: the CLI does not name it:\n{out}");
    let n = report.violations.len();
    let want = if n == 1 {
        "redvote: 1 invariant violation\n".to_string()
    } else {
        format!("redvote: {n} invariant violations\n")
    };
    assert_eq!(err, want);
    let mut json_args = vec!["--json"];
    json_args.extend_from_slice(args);
    let (code, out, _) = cli(url, &json_args);
    let json: serde_json::Value = serde_json::from_str(&out).expect("a JSON report");
    assert_eq!(code, 1);
    assert_eq!(json["violations"].as_array().map(Vec::len), Some(n));
    assert_eq!(json["violations"][0]["key"], key);
    for s in saved {
        restore(con, s);
    }
    assert_eq!(state(con), before, "{key}: not restored");
    assert_clean(&check(con));
}

/// The CLI on clean data: exit 0, nothing on stderr, the summary line last;
/// `--json` prints the report.
fn cli_clean(url: &str, args: &[&str], target: &str) {
    let (code, out, err) = cli(url, args);
    assert_eq!((code, err.as_str()), (0, ""), "{args:?}: {out}");
    let last = out.lines().last().unwrap_or_default();
    assert!(
        last.starts_with(&format!("0 invariant violations in {target} (")),
        "{out}"
    );
    assert_eq!(out.lines().count(), 1, "{out}");
    let mut json_args = vec!["--json"];
    json_args.extend_from_slice(args);
    let (code, out, _) = cli(url, &json_args);
    assert_eq!(code, 0);
    let report: serde_json::Value = serde_json::from_str(&out).expect("a JSON report");
    assert_eq!(report["target"], target);
    assert_eq!(report["violations"], serde_json::json!([]));
    assert!(report["keys_scanned"].as_u64().unwrap() > 0);
}

// ---- the article site ------------------------------------------------------------

/// Posts, votes, downvotes, switches, retractions, groups and their cached
/// pages, hot/best rankings, an article imported past its window (its voter
/// set has expired).
fn site_workload(con: &mut Connection, site: &Site) {
    for n in 1..=4 {
        let user = format!("user:{n}");
        let id = site
            .post(&user, &format!("Article {n}"), "https://example.com/a")
            .run(con)
            .unwrap();
        assert_eq!(id, n);
    }
    for u in 5..=9 {
        site.vote(&format!("user:{u}"), "1").run(con).unwrap();
    }
    for u in [5, 6] {
        site.downvote(&format!("user:{u}"), "2").run(con).unwrap();
    }
    site.vote("user:2", "1").run(con).unwrap();
    site.unvote("user:2", "1").run(con).unwrap();
    site.vote("user:7", "3").run(con).unwrap();
    site.set_vote("user:7", "3", Vote::Down).run(con).unwrap();
    site.downvote("user:1", "3").run(con).unwrap();
    site.vote("user:8", "2").run(con).unwrap();
    // the poster retracts: voted:4 is empty, so gone, while votes is 0
    site.unvote("user:4", "4").run(con).unwrap();
    let update = ConfigUpdate {
        rankings: Some(vec![Ranking::Hot, Ranking::Best]),
        ..Default::default()
    };
    site.configure(&update).run(con).unwrap();
    site.rerank(0, 100).run(con).unwrap();
    site.vote("user:9", "2").run(con).unwrap();
    site.groups("1", &["redis", "lua"], &[]).run(con).unwrap();
    site.groups("2", &["redis"], &[]).run(con).unwrap();
    site.groups("3", &["lua"], &[]).run(con).unwrap();
    site.groups("2", &[], &["redis"]).run(con).unwrap();
    site.group_page("redis", Order::Score, 1, None)
        .run(con)
        .unwrap();
    site.group_page("lua", Order::Hot, 1, None)
        .run(con)
        .unwrap();
    let old = server_time(con) as u64 - 30 * DAY;
    let id = site
        .import("user:1", "Old news", "https://example.com/old", old)
        .run(con)
        .unwrap();
    assert!(!support::exists(
        con,
        &format!("{}voted:{id}", site.prefix())
    ));
}

#[test]
fn a_realistic_site_is_clean_and_the_cli_exits_0() {
    let server = support::server();
    let url = server.url();
    let mut con = support::con(&server);
    let site = Site::new(PREFIX);
    site_workload(&mut con, &site);
    // another site whose keys the prefix matches as a glob, with a broken
    // score: a scan of PREFIX must not see it
    let other = Site::new(LOOKALIKE);
    site_workload(&mut con, &other);
    redis::cmd("ZINCRBY")
        .arg(format!("{LOOKALIKE}score:"))
        .arg(1)
        .arg("article:1")
        .query::<f64>(&mut con)
        .unwrap();
    assert!(!check_site(&mut con, &other).unwrap().is_clean());

    let before = digest(&mut con);
    let report = check_site(&mut con, &site).unwrap();
    assert_eq!(digest(&mut con), before, "the check wrote");
    assert_clean(&report);
    assert_eq!(report.target, format!("site {PREFIX}"));
    assert_eq!(report.checked["articles"], 5);
    assert_eq!(report.checked["voter_sets"], 5, "{report}");
    assert!(report.checked["zset_members"] >= 20, "{report}");
    let own = keys(&mut con, &format!("{}*", redis_glob(PREFIX))).len() as u64;
    assert_eq!(report.keys_scanned, own);
    cli_clean(
        &url,
        &["--prefix", PREFIX, "check"],
        &format!("site {PREFIX}"),
    );

    // the seeds' layout (no prefix) on the same server sees the others'
    // keys as foreign ones: still clean
    let seeds = Site::default();
    site_workload(&mut con, &seeds);
    assert_clean(&check_site(&mut con, &seeds).unwrap());
}

/// KEYS pattern of a literal prefix (for the test's own count).
fn redis_glob(prefix: &str) -> String {
    prefix
        .chars()
        .flat_map(|c| {
            let escape = "*?[]{}\\^".contains(c);
            escape.then_some('\\').into_iter().chain([c])
        })
        .collect()
}

#[test]
fn each_planted_site_violation_is_reported_on_its_key() {
    let server = support::server();
    let url = server.url();
    let mut con = support::con(&server);
    let site = Site::new(PREFIX);
    // layout 1 (asked for before the first post): its group caches are planted below
    support::site_at_layout_1(&mut con, PREFIX);
    site_workload(&mut con, &site);
    let check = |con: &mut Connection| check_site(con, &Site::new(PREFIX)).unwrap();
    assert_clean(&check(&mut con));
    let args = ["--prefix", PREFIX, "check"];
    let k = |rest: &str| format!("{PREFIX}{rest}");
    let time1: i64 = support::hget(&mut con, &k("article:1"), "time")
        .unwrap()
        .parse()
        .unwrap();
    let c = &mut con;

    // first (the group caches live 60 s): a cache without expiry, a group
    // member of no article
    planted(
        c,
        &url,
        &args,
        &check,
        &k("score:redis"),
        &[&k("score:redis")],
        |c| {
            send(c, &["PERSIST", &k("score:redis")]);
        },
    );
    planted(
        c,
        &url,
        &args,
        &check,
        &k("group:redis"),
        &[&k("group:redis")],
        |c| {
            send(c, &["SADD", &k("group:redis"), "article:99"]);
        },
    );
    // a votes field off by one: the sets and score: agree against the hash
    planted(
        c,
        &url,
        &args,
        &check,
        &k("article:1"),
        &[&k("article:1")],
        |c| {
            send(c, &["HINCRBY", &k("article:1"), "votes", "1"]);
        },
    );
    // an upvoter missing from voted:
    planted(
        c,
        &url,
        &args,
        &check,
        &k("voted:1"),
        &[&k("voted:1")],
        |c| {
            send(c, &["SREM", &k("voted:1"), "user:5"]);
        },
    );
    // a downvoter missing, the set gone with it, within the window
    planted(
        c,
        &url,
        &args,
        &check,
        &k("downvoted:3"),
        &[&k("downvoted:3")],
        |c| {
            support::del(c, &k("downvoted:3"));
        },
    );
    // score: off
    planted(c, &url, &args, &check, &k("score:"), &[&k("score:")], |c| {
        send(c, &["ZINCRBY", &k("score:"), "1", "article:3"]);
    });
    // a non-finite score (Redis refuses nan in a zset; inf it takes)
    planted(c, &url, &args, &check, &k("score:"), &[&k("score:")], |c| {
        send(c, &["ZADD", &k("score:"), "inf", "article:2"]);
    });
    planted(c, &url, &args, &check, &k("hot:"), &[&k("hot:")], |c| {
        send(c, &["ZADD", &k("hot:"), "-inf", "article:1"]);
    });
    // time: off
    planted(c, &url, &args, &check, &k("time:"), &[&k("time:")], |c| {
        redis::cmd("ZADD")
            .arg(k("time:"))
            .arg(time1 + 5)
            .arg("article:1")
            .query::<i64>(c)
            .unwrap();
    });
    // a zset member without its hash
    planted(c, &url, &args, &check, &k("time:"), &[&k("time:")], |c| {
        redis::cmd("ZADD")
            .arg(k("time:"))
            .arg(time1)
            .arg("article:99")
            .query::<i64>(c)
            .unwrap();
    });
    // a voter set without expiry, and one expiring before the window ends
    planted(
        c,
        &url,
        &args,
        &check,
        &k("voted:1"),
        &[&k("voted:1")],
        |c| {
            send(c, &["PERSIST", &k("voted:1")]);
        },
    );
    planted(
        c,
        &url,
        &args,
        &check,
        &k("voted:2"),
        &[&k("voted:2")],
        |c| {
            let early = time1 + support::WEEK - 100;
            redis::cmd("EXPIREAT")
                .arg(k("voted:2"))
                .arg(early)
                .query::<i64>(c)
                .unwrap();
        },
    );
    // a user both up and down, the counts and score kept consistent
    let touched = [k("downvoted:1"), k("article:1"), k("score:")];
    let touched: Vec<&str> = touched.iter().map(String::as_str).collect();
    planted(c, &url, &args, &check, &k("downvoted:1"), &touched, |c| {
        send(c, &["SADD", &k("downvoted:1"), "user:5"]);
        redis::cmd("EXPIREAT")
            .arg(k("downvoted:1"))
            .arg(time1 + support::WEEK + 1)
            .query::<i64>(c)
            .unwrap();
        send(c, &["HINCRBY", &k("article:1"), "downvotes", "1"]);
        redis::cmd("ZINCRBY")
            .arg(k("score:"))
            .arg(-support::VOTE_SCORE)
            .arg("article:1")
            .query::<f64>(c)
            .unwrap();
    });
    // a voter set of no article
    planted(
        c,
        &url,
        &args,
        &check,
        &k("voted:77"),
        &[&k("voted:77")],
        |c| {
            send(c, &["SADD", &k("voted:77"), "user:1"]);
            send(c, &["EXPIRE", &k("voted:77"), "600"]);
        },
    );
    // corrupt settings
    planted(
        c,
        &url,
        &args,
        &check,
        &k("redvote:config"),
        &[&k("redvote:config")],
        |c| {
            send(c, &["HSET", &k("redvote:config"), "window", "2.5"]);
        },
    );
    planted(
        c,
        &url,
        &args,
        &check,
        &k("article:"),
        &[&k("article:")],
        |c| {
            send(c, &["SET", &k("article:"), "3"]);
        },
    );
}

#[test]
fn thousands_of_articles_are_scanned_in_bounded_time() {
    let server = support::server();
    let mut con = support::con(&server);
    redvote::scripts::load_all(&mut con).unwrap();
    let site = Site::new("{big}:");
    const N: u64 = 3000;
    let mut pipe = redis::pipe();
    for n in 0..N {
        site.post(&format!("user:{n}"), "Title", "https://example.com")
            .add_to(&mut pipe);
    }
    for n in 0..N / 2 {
        let vote = if n % 3 == 0 { Vote::Down } else { Vote::Up };
        site.set_vote(&format!("voter:{n}"), (n + 1).to_string(), vote)
            .add_to(&mut pipe);
    }
    pipe.query::<redis::Value>(&mut con).unwrap();

    let started = Instant::now();
    let report = check_site(&mut con, &site).unwrap();
    let took = started.elapsed();
    assert_clean(&report);
    assert_eq!(report.checked["articles"], N);
    assert_eq!(report.checked["zset_members"], 2 * N);
    assert!(took < Duration::from_secs(20), "took {took:?}");

    // one broken article among them is found
    redis::cmd("HINCRBY")
        .arg("{big}:article:2222")
        .arg("votes")
        .arg(-1)
        .query::<i64>(&mut con)
        .unwrap();
    let report = check_site(&mut con, &site).unwrap();
    assert_eq!(
        named(&report),
        BTreeSet::from(["{big}:article:2222".to_string()])
    );
}

/// Votes from another connection while checks run: every check is clean
/// (the reads that must agree are taken in one MULTI/EXEC).
#[test]
fn checks_during_concurrent_votes_report_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::new("{busy}:");
    for n in 0..40 {
        site.post(&format!("poster:{n}"), "T", "https://example.com")
            .run(&mut con)
            .unwrap();
    }
    let now = server_time(&mut con) as u64;
    let settings = CampaignSettings::new()
        .with_dates(now + 1, now + DAY)
        .with_board(
            "b",
            BoardSettings::new(&[Period::Hour, Period::Day, Period::Total])
                .with_ties(Ties::First)
                .with_carry("0.5")
                .with_option("x", OptionSettings::weighted(3))
                .with_option("y", OptionSettings::weighted(1)),
        );
    let campaign = support::setup(&mut con, "busy", settings);
    while (server_time(&mut con) as u64) <= now {
        std::thread::sleep(Duration::from_millis(50));
    }
    let client = server.client();
    let voter = std::thread::spawn(move || {
        let mut con = client.get_connection().unwrap();
        let (site, campaign) = (Site::new("{busy}:"), Campaign::new("busy"));
        for i in 0..600u64 {
            if i % 50 == 0 {
                site.post("late", "T", "https://example.com")
                    .run(&mut con)
                    .unwrap();
            }
            let user = format!("u{}", i % 23);
            let id = (i * 7 % 40 + 1).to_string();
            let vote = [Vote::Up, Vote::Down, Vote::None][(i % 3) as usize];
            site.set_vote(&user, &id, vote).run(&mut con).unwrap();
            let option = if i % 2 == 0 { "x" } else { "y" };
            campaign
                .vote(&user, &[("b", option)])
                .run(&mut con)
                .unwrap();
        }
    });
    let mut checks = 0;
    while !voter.is_finished() || checks < 2 {
        assert_clean(&check_site(&mut con, &site).unwrap());
        assert_clean(&check_campaign(&mut con, &campaign).unwrap());
        checks += 1;
    }
    voter.join().unwrap();
    assert!(checks >= 2);
}

// ---- campaigns -------------------------------------------------------------------

/// A campaign voted at explicit times in 2030 (`Campaign::at`): hourly,
/// daily, weekly and monthly boards at +08:00, ties first, carry, weights,
/// decimals, retention, imports (run twice, then changed), a removed
/// option, and every kind of fixed rate-limit window, the whole campaign
/// included (a partner channel with extra allowance). Configured before its
/// start, so every relation is checked exactly.
fn spring(con: &mut Connection) -> Campaign {
    let start = utc((2030, 1, 1), (0, 0, 0));
    let end = utc((2031, 1, 1), (0, 0, 0));
    let opt = |w: u32| OptionSettings::weighted(w);
    let settings = CampaignSettings::new()
        .with_offset("+08:00")
        .with_dates(start, end)
        .with_limits(vec![
            LimitRule::fixed("user-day", &[User], Window::Day, 50).with_extra("partner", 10),
            LimitRule::fixed("user-minute", &[User], Window::Minute, 20),
            LimitRule::fixed("user-second", &[User, Device], Window::Second, 10),
            LimitRule::fixed("star-hour", &[ByOption], Window::Hour, 1000),
            LimitRule::fixed("user-week", &[User], Window::Week, 300),
            LimitRule::fixed("user-month", &[User], Window::Month, 900),
            LimitRule::fixed("once", &[User, Channel], Window::Campaign, 30)
                .with_extra("partner", 5),
        ])
        .with_board(
            "stars",
            BoardSettings::new(&[Period::Hour, Period::Day, Period::Total])
                .with_ties(Ties::First)
                .with_carry("0.1")
                .with_retention(Period::Hour, 2 * DAY)
                .with_option("a", opt(1))
                .with_option("b", opt(2))
                .with_option("c", opt(3)),
        )
        .with_board(
            "charity",
            BoardSettings::new(&[Period::Day, Period::Week, Period::Month, Period::Total])
                .with_carry("0.25")
                .with_decimals(1)
                .with_retention(Period::Day, 30 * DAY)
                .with_option("x", opt(1))
                .with_option("y", opt(2))
                .with_option("z", opt(1)),
        )
        .with_board(
            "simple",
            BoardSettings::new(&[Period::Total]).with_options(&["p", "q"]),
        );
    let spring = support::setup(con, "spring", settings);
    let t0 = local(PLUS8, (2030, 3, 17), (10, 0, 0));
    spring
        .at(t0 - HOUR)
        .import("charity", &[("x", "100.5"), ("y", "7")])
        .run(con)
        .unwrap();
    spring
        .at(t0 - HOUR)
        .import("charity", &[("x", "100.5"), ("y", "7")])
        .run(con)
        .unwrap();
    let users = ["alice", "bob", "carol", "dave"];
    let schedule: [(u64, &[(&str, &str)]); 10] = [
        (0, &[("stars", "a"), ("charity", "x")]),
        (1, &[("stars", "a"), ("stars", "a"), ("simple", "p")]),
        (60, &[("stars", "b"), ("charity", "y"), ("charity", "z")]),
        (1800, &[("stars", "c")]),
        (
            HOUR + 5,
            &[("stars", "a"), ("stars", "b"), ("charity", "x")],
        ),
        (2 * HOUR, &[("stars", "c"), ("simple", "q")]),
        (DAY, &[("stars", "a"), ("charity", "y")]),
        (DAY + HOUR, &[("stars", "b"), ("charity", "z")]),
        (
            8 * DAY,
            &[("stars", "a"), ("charity", "x"), ("simple", "p")],
        ),
        (40 * DAY, &[("stars", "b"), ("charity", "y")]),
    ];
    for (i, (dt, pairs)) in schedule.iter().enumerate() {
        for (u, user) in users.iter().enumerate() {
            if (i + u) % 3 == 2 {
                continue;
            }
            let mut voter = Voter::new(*user).device(if u % 2 == 0 { "pc" } else { "mobile" });
            if u == 3 {
                voter = voter.channel("partner");
            }
            spring.at(t0 + dt).vote_by(&voter, pairs).run(con).unwrap();
        }
        if i == 6 {
            // a new imported amount, while votes go on
            spring
                .at(t0 + dt)
                .import("charity", &[("x", "120")])
                .run(con)
                .unwrap();
        }
    }
    let remove =
        CampaignSettings::new().with_board("stars", BoardSettings::default().with_removed("c"));
    spring.configure(&remove).run(con).unwrap();
    spring
}

/// A campaign voted on the server's clock, with a rolling (GCRA) rule, a
/// campaign-window rule and a per-device minute rule; configured before its
/// start (a second ahead; the test waits for it).
fn live(con: &mut Connection) -> Campaign {
    let now = server_time(con) as u64;
    let start = now + 2;
    let settings = CampaignSettings::new()
        .with_dates(start, now + DAY)
        .with_limits(vec![
            LimitRule::rolling("smooth", &[User], Rolling::new(2, 60).with_burst(3)),
            LimitRule::fixed("once", &[User], Window::Campaign, 5),
            LimitRule::fixed("dev-minute", &[User, Device], Window::Minute, 10),
        ])
        .with_board(
            "live",
            BoardSettings::new(&[Period::Hour, Period::Total]).with_options(&["a", "b"]),
        );
    let live = support::setup(con, "live", settings);
    while (server_time(con) as u64) < start {
        std::thread::sleep(Duration::from_millis(100));
    }
    let alice = Voter::new("alice").device("pc");
    live.vote_by(&alice, &[("live", "a")]).run(con).unwrap();
    live.vote_by(&alice, &[("live", "a"), ("live", "b")])
        .run(con)
        .unwrap();
    live.vote("bob", &[("live", "b")]).run(con).unwrap();
    live
}

#[test]
fn realistic_campaigns_are_clean_and_the_cli_exits_0() {
    let server = support::server();
    let url = server.url();
    let mut con = support::con(&server);
    let spring = spring(&mut con);

    // the digest before the live campaign, whose counters expire by
    // themselves on the server clock
    let before = digest(&mut con);
    let report = check_campaign(&mut con, &spring).unwrap();
    assert_eq!(digest(&mut con), before, "the check wrote");
    assert_clean(&report);
    assert_eq!(report.target, "campaign {c:spring}:");
    assert_eq!(report.checked["boards"], 3);
    // every shown entry was compared exactly (configured before the start)
    assert!(report.checked["exact_entries"] >= 30, "{report}");
    assert_eq!(report.checked.get("weak_entries"), None, "{report}");
    assert!(report.checked["first_keys"] >= 6, "{report}");
    assert!(report.checked["counters"] >= 30, "{report}");
    cli_clean(
        &url,
        &["campaign", "spring", "check"],
        "campaign {c:spring}:",
    );

    let live = live(&mut con);
    let report = check_campaign(&mut con, &live).unwrap();
    assert_clean(&report);
    assert!(report.checked["counters"] >= 4, "{report}");
    cli_clean(&url, &["campaign", "live", "check"], "campaign {c:live}:");

    // a campaign that does not exist is one violation, not an error
    let (code, out, err) = cli(&url, &["campaign", "nothing", "check"]);
    assert_eq!(code, 1);
    assert!(
        out.starts_with("{c:nothing}:campaign: no such campaign"),
        "{out}"
    );
    assert_eq!(err, "redvote: 1 invariant violation\n");
}

/// A weight changed after the campaign started (on the server's clock):
/// shown = real x weight no longer holds for the votes before, so those
/// boards get the weaker shown >= real, which still catches a shown score
/// below its real votes.
#[test]
fn a_weight_changed_mid_campaign_gets_the_weaker_relation() {
    let server = support::server();
    let url = server.url();
    let mut con = support::con(&server);
    let now = server_time(&mut con) as u64;
    let board = |w: u32| {
        BoardSettings::new(&[Period::Hour, Period::Total])
            .with_option("a", OptionSettings::weighted(w))
    };
    let settings = CampaignSettings::new()
        .with_dates(now + 2, now + DAY)
        .with_board("b", board(2));
    let campaign = support::setup(&mut con, "mid", settings);
    while (server_time(&mut con) as u64) < now + 2 {
        std::thread::sleep(Duration::from_millis(50));
    }
    for user in ["u1", "u2", "u3"] {
        campaign.vote(user, &[("b", "a")]).run(&mut con).unwrap();
    }
    let report = check_campaign(&mut con, &campaign).unwrap();
    assert_clean(&report);
    assert_eq!(report.checked["exact_entries"], 2, "{report}");
    campaign
        .configure(&CampaignSettings::new().with_board("b", board(5)))
        .run(&mut con)
        .unwrap();
    campaign.vote("u4", &[("b", "a")]).run(&mut con).unwrap();
    let total = format!("{}b:b:shown:total", campaign.namespace());
    assert_eq!(support::zscore(&mut con, &total, "a"), Some(11.0)); // 3 x 2 + 5
    let report = check_campaign(&mut con, &campaign).unwrap();
    assert_clean(&report);
    assert_eq!(report.checked.get("exact_entries"), None, "{report}");
    assert_eq!(report.checked["weak_entries"], 2, "{report}");

    let check = |con: &mut Connection| check_campaign(con, &Campaign::new("mid")).unwrap();
    let args = ["campaign", "mid", "check"];
    planted(&mut con, &url, &args, &check, &total, &[&total], |c| {
        send(c, &["ZADD", &total, "3", "a"]);
    });
}

/// A real count that is not finite, or too large for the checker's
/// arithmetic, is a violation (on its own board, or on the shown entry
/// that cannot match it); the checker used to panic on both (an integer
/// overflow deriving the shown score).
#[test]
fn absurd_real_counts_are_reported_not_panicked_on() {
    let server = support::server();
    let url = server.url();
    let mut con = support::con(&server);
    let settings = CampaignSettings::new().with_board(
        "b",
        BoardSettings::new(&[Period::Total]).with_option("a", OptionSettings::weighted(2)),
    );
    let campaign = support::setup(&mut con, "absurd", settings);
    campaign.vote("u1", &[("b", "a")]).run(&mut con).unwrap();
    assert_clean(&check_campaign(&mut con, &campaign).unwrap());
    let real = format!("{}b:b:real:total", campaign.namespace());
    for value in ["inf", "-inf", "1e300", "1"] {
        send(&mut con, &["ZADD", &real, value, "a"]);
        let report = check_campaign(&mut con, &campaign).unwrap();
        let (code, out, err) = cli(&url, &["campaign", "absurd", "check"]);
        if value == "1" {
            assert_clean(&report);
            assert_eq!(code, 0, "{out}{err}");
        } else {
            assert!(!report.is_clean(), "real count {value}: {report}");
            assert_eq!(code, 1, "real count {value}: {out}{err}");
        }
    }
}

#[test]
fn each_planted_campaign_violation_is_reported_on_its_key() {
    let server = support::server();
    let url = server.url();
    let mut con = support::con(&server);
    let spring = spring(&mut con);
    let check_spring =
        |con: &mut Connection| check_campaign(con, &Campaign::new("spring")).unwrap();
    let check_live = |con: &mut Connection| check_campaign(con, &Campaign::new("live")).unwrap();
    assert_clean(&check_spring(&mut con));
    let args = ["campaign", "spring", "check"];
    let ns = spring.namespace().to_string();
    let k = |rest: &str| format!("{ns}{rest}");
    let c = &mut con;

    // a shown board off, the total and a period board
    let shown_total = k("b:stars:shown:total");
    let order = |key: &str| key.replacen(":b:", ":o:", 1).replacen(":f:", ":o:", 1);
    planted(
        c,
        &url,
        &args,
        &check_spring,
        &shown_total,
        &[&shown_total, &order(&shown_total)],
        |c| {
            send(c, &["ZINCRBY", &shown_total, "1", "a"]);
        },
    );
    let shown_hour = k("b:stars:shown:hour:2030-03-17T11");
    planted(
        c,
        &url,
        &args,
        &check_spring,
        &shown_hour,
        &[&shown_hour, &order(&shown_hour)],
        |c| {
            send(c, &["ZINCRBY", &shown_hour, "-1", "b"]);
        },
    );
    let charity_total = k("b:charity:shown:total");
    planted(
        c,
        &url,
        &args,
        &check_spring,
        &charity_total,
        &[&charity_total],
        |c| {
            send(c, &["ZINCRBY", &charity_total, "0.1", "x"]);
        },
    );
    // a "first" side key missing a member, or holding a stranger
    let first = k("f:stars:real:total");
    planted(
        c,
        &url,
        &args,
        &check_spring,
        &first,
        &[&first, &order(&first)],
        |c| {
            send(c, &["ZREM", &first, "a"]);
        },
    );
    let first_shown = k("f:stars:shown:total");
    planted(
        c,
        &url,
        &args,
        &check_spring,
        &first_shown,
        &[&first_shown],
        |c| {
            send(c, &["ZADD", &first_shown, "1", "ghost"]);
        },
    );
    // a side key with no board beside it; an index entry of no board
    let stray = k("f:stars:real:hour:2030-12-01T00");
    planted(c, &url, &args, &check_spring, &stray, &[&stray], |c| {
        send(c, &["ZADD", &stray, "1", "a"]);
    });
    let index = k("periods:stars");
    planted(c, &url, &args, &check_spring, &index, &[&index], |c| {
        send(c, &["ZADD", &index, "0", "real:day:2030-12-01"]);
    });
    // a board member that is no option
    let simple = k("b:simple:real:total");
    planted(c, &url, &args, &check_spring, &simple, &[&simple], |c| {
        send(c, &["ZADD", &simple, "1", "ghost"]);
    });
    // a period board without its expiry, and one not in the index
    let hour = k("b:stars:real:hour:2030-03-17T10");
    planted(c, &url, &args, &check_spring, &hour, &[&hour], |c| {
        send(c, &["PERSIST", &hour]);
    });
    let day = k("b:stars:real:day:2030-03-17");
    planted(c, &url, &args, &check_spring, &day, &[&index], |c| {
        send(c, &["ZREM", &index, "real:day:2030-03-17"]);
    });
    // alice's day count (campaign layout 3: her field in a day's bucket
    // rlb:user-day:DAY:N): over its allowance (50 + the partner's 10), not
    // a count, in another user's bucket; the bucket without expiry
    // (each day voted in keeps its bucket until it ends: the latest day's)
    let n = redvote_check::limit_bucket("alice");
    let counter = keys(c, &format!("{}rlb:user-day:*:{n}", redis_glob(&ns)))
        .into_iter()
        .max_by_key(|k| support::expiretime(c, k))
        .unwrap();
    let count: Option<String> = redis::cmd("HGET")
        .arg(&counter)
        .arg("5:alice")
        .query(c)
        .unwrap();
    assert!(count.is_some(), "{counter} holds alice's count");
    let end = support::expiretime(c, &counter).to_string();
    planted(c, &url, &args, &check_spring, &counter, &[&counter], |c| {
        send(c, &["HSET", &counter, "5:alice", "61"]);
    });
    planted(c, &url, &args, &check_spring, &counter, &[&counter], |c| {
        send(c, &["HSET", &counter, "5:alice", "1:1"]);
    });
    let stranger = (0..)
        .map(|i| format!("u{i}"))
        .find(|u| redvote_check::limit_bucket(u) != n)
        .unwrap();
    planted(c, &url, &args, &check_spring, &counter, &[&counter], |c| {
        let field = format!("{}:{stranger}", stranger.len());
        send(c, &["HSET", &counter, &field, "1"]);
    });
    planted(c, &url, &args, &check_spring, &counter, &[&counter], |c| {
        send(c, &["PERSIST", &counter]);
    });
    // a string counter of the layout before (a key per rule, window and
    // user) over its allowance
    let legacy = k("rl:user-day:day:2030-03-17:5:alice");
    planted(c, &url, &args, &check_spring, &legacy, &[&legacy], |c| {
        let at = end.as_str();
        send(c, &["SET", &legacy, "61", "EXAT", at]);
    });
    // the campaign-window counters: a field over 30 (alice has no partner
    // extra), the hash without expiry; in the string layout of before too
    let once = k("rl:once:campaign");
    planted(c, &url, &args, &check_spring, &once, &[&once], |c| {
        send(c, &["HSET", &once, "5:alice|0:", "31"]);
    });
    planted(c, &url, &args, &check_spring, &once, &[&once], |c| {
        send(c, &["PERSIST", &once]);
    });
    let old = k("rl:once:campaign:5:alice|0:");
    planted(c, &url, &args, &check_spring, &old, &[&old], |c| {
        send(c, &["SET", &old, "3"]);
    });
    // corrupt stored settings
    let board = k("board:stars");
    planted(c, &url, &args, &check_spring, &board, &[&board], |c| {
        send(c, &["HSET", &board, "carry", "0.1x"]);
    });
    let weights = k("weights:simple");
    planted(c, &url, &args, &check_spring, &weights, &[&weights], |c| {
        send(c, &["HSET", &weights, "p", "0"]);
    });
    let root = k("campaign");
    planted(c, &url, &args, &check_spring, &root, &[&root], |c| {
        send(c, &["HSET", &root, "denying", "yes"]);
    });
    let seq = k("seq");
    planted(c, &url, &args, &check_spring, &seq, &[&seq], |c| {
        send(c, &["SET", &seq, "many"]);
    });
    // leftovers of the removed option c
    let data = k("option:stars:c");
    planted(c, &url, &args, &check_spring, &data, &[&data], |c| {
        send(c, &["HSET", &data, "name", "C"]);
    });

    // the live campaign: a rolling counter without expiry, or spent beyond
    // its burst (the TAT 1000 s ahead, 3 x 30 s allowed). Its counters
    // expire by themselves on the server clock (the minute counter at the
    // next minute), and each plant compares the whole data set before and
    // after: set it up only now, early in a minute, so that nothing expires
    // while the plants run
    while server_time(c) % 60 > 40 {
        std::thread::sleep(Duration::from_millis(250));
    }
    let live = live(c);
    assert_clean(&check_live(c));
    let args = ["campaign", "live", "check"];
    let rolling = format!("{}rlu:alice", live.namespace());
    planted(c, &url, &args, &check_live, &rolling, &[&rolling], |c| {
        send(c, &["PERSIST", &rolling]);
    });
    planted(c, &url, &args, &check_live, &rolling, &[&rolling], |c| {
        let ahead = server_time(c) + 1000;
        let tat = format!("{ahead}.000000");
        let due = (ahead + 1).to_string();
        send(c, &["HSET", &rolling, "smooth", &tat, "@", &due]);
        send(c, &["EXPIREAT", &rolling, &due]);
    });
    let live_once = format!("{}rl:once:campaign", live.namespace());
    planted(
        c,
        &url,
        &args,
        &check_live,
        &live_once,
        &[&live_once],
        |c| {
            send(c, &["HINCRBY", &live_once, "3:bob", "5"]);
        },
    );
}

/// `redvote check` on a database of campaigns and no site says which
/// command checks them, rather than only "checked nothing".
#[test]
fn check_of_no_site_names_the_campaigns_it_did_not_check() {
    let server = support::server();
    let mut con = support::con(&server);
    let url = server.url();
    let (code, _, err) = cli(&url, &["check"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("campaign"), "an empty database: {err}");
    support::setup(&mut con, "spring", support::readme::spring_settings());
    let (code, out, err) = cli(&url, &["campaigns", "register", "spring"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = cli(&url, &["check"]);
    assert_eq!(code, 0, "{out}{err}");
    let text = format!("{out}{err}");
    assert!(text.contains("checked nothing"), "{text}");
    assert!(
        text.contains("1 registered campaign(s), each checked by `redvote campaign NAME check`"),
        "{text}"
    );
}
