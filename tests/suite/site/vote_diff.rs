//! The article vote against the vote it replaces (its instruction cut), on
//! random calls: two sites of one server, with different prefixes, built
//! alike (settings, layout, articles, groups, corrupt rows), then the same
//! random calls on both, in `oracle` by EVAL of the vote as assembled
//! before the cut (kept byte for byte in
//! `tests/fixtures/vote-oracle-site/`), in `current` by the library's
//! embedded `vote` script (what `Site::vote` runs). Every reply is the same
//! (value, or error code and text, the prefix aside and the oracle's
//! details naming an article put in today's words), and every key of the
//! two sites is equal (type, content, expiry) midway and at the end. The
//! calls mix up, down and none (and the default) by many users on several
//! articles, repeats, and bad input: users, article references, vote words,
//! argument and key counts, corrupt stored rows and keys of the wrong type;
//! on layout 1, on layout 2 with groups and hot and best kept, and during
//! an upgrade (layout_next).

use std::collections::BTreeMap;

use redis::{Connection, RedisResult, Value};
use redvote::{ConfigUpdate, Ranking, Site};

use crate::support::{self, Rng};

/// The vote before the cut, exactly as it was assembled.
const ORACLE_VOTE: &str = include_str!("../../fixtures/vote-oracle-site/vote.lua");

/// The two sites' settings and layout.
struct Scenario {
    name: &'static str,
    vote_score: Option<u32>,
    window: Option<u64>,
    rankings: Vec<Ranking>,
    /// Upgraded to layout 2 (group boards) before the calls.
    layout2: bool,
    /// Left on layout 1 with an upgrade under way (layout_next 2).
    upgrading: bool,
}

const GROUPS: [&str; 3] = ["g0", "g1", "g2"];

/// Build one site (`site`, prefix `p`): settings, layout, `articles`
/// articles at the given ages, a seeds-style article (a publish time with
/// a fraction), groups, and the corrupt rows. The same on both sites: the
/// times are absolute (`now` read once) and the groups come from `plan`.
fn build(
    con: &mut Connection,
    site: &Site,
    s: &Scenario,
    now: u64,
    ages: &[u64],
    plan: &[Vec<&str>],
) -> usize {
    let p = site.prefix().to_string();
    let update = ConfigUpdate {
        vote_score: s.vote_score,
        window: s.window,
        rankings: (!s.rankings.is_empty()).then(|| s.rankings.clone()),
        ..ConfigUpdate::default()
    };
    if update != ConfigUpdate::default() {
        site.configure(&update).run(con).unwrap();
    }
    if s.layout2 {
        let mut cursor = "0".to_string();
        loop {
            let step = site.upgrade(&cursor, 50).run(con).unwrap();
            if step.is_done() {
                break;
            }
            cursor = step.next;
        }
    }
    if s.upgrading {
        redis::cmd("HSET")
            .arg(format!("{p}redvote:config"))
            .arg("layout_next")
            .arg("2")
            .exec(con)
            .unwrap();
    }
    for (i, age) in ages.iter().enumerate() {
        let id = site
            .import(
                &format!("poster{i}"),
                &format!("t{i}"),
                "https://e.x/",
                now - age,
            )
            .run(con)
            .unwrap();
        assert_eq!(id, i as u64 + 1);
    }
    // the seeds' kind: a publish time with a fraction, voted:ID expiring
    let window = s.window.unwrap_or(604_800);
    let vote_score = s.vote_score.unwrap_or(432) as f64;
    let id: u64 = redis::cmd("INCR")
        .arg(format!("{p}article:"))
        .query(con)
        .unwrap();
    let t = (now - 1000) as f64 + 0.25;
    redis::cmd("HSET")
        .arg(format!("{p}article:{id}"))
        .arg(&["title", "seed", "link", "https://s.x/", "poster", "seeder"])
        .arg("time")
        .arg(t.to_string())
        .arg("votes")
        .arg(1)
        .exec(con)
        .unwrap();
    let member = format!("article:{id}");
    redis::cmd("ZADD")
        .arg(format!("{p}time:"))
        .arg(t)
        .arg(&member)
        .exec(con)
        .unwrap();
    redis::cmd("ZADD")
        .arg(format!("{p}score:"))
        .arg(t + vote_score)
        .arg(&member)
        .exec(con)
        .unwrap();
    redis::cmd("SADD")
        .arg(format!("{p}voted:{id}"))
        .arg("seeder")
        .exec(con)
        .unwrap();
    redis::cmd("EXPIREAT")
        .arg(format!("{p}voted:{id}"))
        .arg(now - 1000 + window - 3)
        .exec(con)
        .unwrap();
    // groups (layout 2 or an upgrade under way: their boards too)
    for (i, groups) in plan.iter().enumerate() {
        if !groups.is_empty() {
            site.groups((i + 1).to_string(), groups, &[])
                .run(con)
                .unwrap();
        }
    }
    // corrupt rows (open articles): 9's votes, 10's downvotes, 11's time;
    // 2's downvoted:ID and 3's groups:ID of the wrong type
    let hset = |con: &mut Connection, id: usize, field: &str, value: &str| {
        redis::cmd("HSET")
            .arg(format!("{p}article:{id}"))
            .arg(field)
            .arg(value)
            .exec(con)
            .unwrap();
    };
    hset(con, 9, "votes", "05");
    hset(con, 10, "downvotes", " 1");
    hset(con, 11, "time", "1e9");
    for key in ["downvoted:2", "groups:3"] {
        redis::cmd("SET")
            .arg(format!("{p}{key}"))
            .arg("x")
            .exec(con)
            .unwrap();
    }
    id as usize
}

/// One random call: (keys, args), binary-safe.
fn random_call(rng: &mut Rng, articles: usize) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let b = |s: &str| s.as_bytes().to_vec();
    let root = b("article:");
    let users = ["alice", "bob", "ü-7", "x y", "user:1", "poster0", "seeder"];
    let user = if rng.below(3) == 0 {
        b(users[rng.below(users.len())])
    } else {
        b(&format!("u{}", rng.below(25)))
    };
    // mostly the open, sound articles (1, 2, 4, 7, 8 and the seeds' 12),
    // else any, or one past the last (unknown)
    let n = if rng.below(3) == 0 {
        1 + rng.below(articles)
    } else {
        [1, 2, 4, 7, 8, 12][rng.below(6)]
    };
    let article = if rng.below(4) == 0 {
        b(&format!("article:{n}"))
    } else {
        b(&n.to_string())
    };
    let vote = ["up", "down", "none", "up", "down", "none", "default"][rng.below(7)];
    let mut keys = vec![root];
    let mut args = vec![user, article];
    if vote != "default" {
        args.push(b(vote));
    }
    if rng.below(7) == 0 {
        // bad input, one kind a call
        match rng.below(16) {
            0 => args[0] = Vec::new(),
            1 => args[0] = b("a\tb"),
            2 => args[0] = vec![b'u'; 257],
            3 => args[1] = b("999"),
            4 => args[1] = b("0"),
            5 => args[1] = b("07"),
            6 => args[1] = b("article:x"),
            7 => args[1] = b("oracle:article:1"),
            8 => args[1] = b("1234567890123456"),
            9 => args.truncate(1),
            10 => args.extend([b("up"), b("more")]),
            11 => {
                args.truncate(2);
                args.push(b("UP"));
            }
            12 => {
                args.truncate(2);
                args.push(vec![0xff, 0xfe, b'u', 0xc3]);
            }
            13 => keys[0] = b("score:"),
            14 => keys.push(b("article:")),
            _ => keys.clear(),
        }
    }
    (keys, args)
}

/// The settings field changes of the calls `at`: a corrupt value for 50
/// calls, then the value it had; the stored defaults written out; rankings
/// switched on late where none were kept.
fn settings_changes(s: &Scenario, at: usize) -> Vec<(&'static str, Option<String>)> {
    let window = s.window.map(|w| w.to_string());
    let vote_score = s.vote_score.map(|v| v.to_string());
    let layout = s.layout2.then(|| "2".to_string());
    let layout_next = s.upgrading.then(|| "2".to_string());
    let some = |v: &str| Some(v.to_string());
    match at {
        400 => vec![("window", some("59"))],
        450 => vec![("window", window)],
        500 => vec![("layout", some("3"))],
        550 => vec![("layout", layout)],
        600 => vec![("vote_score", some("1e3"))],
        650 => vec![("vote_score", vote_score)],
        700 => vec![("layout_next", some("3"))],
        750 => vec![("layout_next", layout_next)],
        800 => vec![("layout", some("x"))],
        850 => vec![("layout", layout)],
        1000 => vec![
            ("vote_score", Some(s.vote_score.unwrap_or(432).to_string())),
            ("window", Some(s.window.unwrap_or(604_800).to_string())),
        ],
        1100 if s.rankings.is_empty() => vec![("rankings", some("hot,best"))],
        _ => vec![],
    }
}

fn set_field(con: &mut Connection, prefix: &str, field: &str, value: &Option<String>) {
    let key = format!("{prefix}redvote:config");
    match value {
        Some(v) => redis::cmd("HSET").arg(key).arg(field).arg(v).exec(con),
        None => redis::cmd("HDEL").arg(key).arg(field).exec(con),
    }
    .unwrap();
}

fn eval(
    con: &mut Connection,
    script: &redis::Script,
    prefix: &str,
    call: &(Vec<Vec<u8>>, Vec<Vec<u8>>),
) -> RedisResult<Value> {
    let mut inv = script.prepare_invoke();
    for k in &call.0 {
        let mut key = prefix.as_bytes().to_vec();
        key.extend_from_slice(k);
        inv.key(key);
    }
    for a in &call.1 {
        inv.arg(a.as_slice());
    }
    inv.invoke(con)
}

/// A reply as text, a refusal as `error CODE detail` with its detail
/// passed through `words`, the site's `prefix` written `<prefix>`.
fn text(reply: &RedisResult<Value>, prefix: &str, words: fn(&str, &str) -> String) -> String {
    let text = match reply {
        Ok(v) => format!("{v:?}"),
        Err(e) => {
            let code = e.code().unwrap_or("?");
            let detail = e.detail().unwrap_or_default().replace(prefix, "<prefix>");
            format!("error {code} {}", words(code, &detail))
        }
    };
    text.replace(prefix, "<prefix>")
}

/// A detail of the current script, as it is.
fn as_is(_code: &str, detail: &str) -> String {
    detail.to_string()
}

/// A refusal of the oracle in the words the vote uses since
/// (docs/errors.md, "How a detail names things"): the article it names,
/// not its key. Each must have the oracle's form (a panic otherwise), so
/// the article the two name is still compared; other details (corrupt
/// stored data names its key) pass as they are.
fn in_api_words(code: &str, detail: &str) -> String {
    let article = |key: &str| {
        key.strip_prefix("<prefix>article:")
            .unwrap_or_else(|| panic!("{code} {detail}"))
            .to_string()
    };
    match code {
        "REDVOTE_UNKNOWN_ARTICLE" => format!("article {} does not exist", article(detail)),
        "REDVOTE_VOTING_CLOSED" => {
            let (key, at) = detail.split_once(" closed at ").expect(detail);
            format!("voting on article {} closed at {at}", article(key))
        }
        _ => detail.to_string(),
    }
}

fn dump(con: &mut Connection, prefix: &str) -> BTreeMap<String, String> {
    support::keyspace(con, prefix, &[])
}

#[test]
fn the_vote_answers_and_writes_what_the_oracle_does_on_random_calls() {
    let server = support::server();
    let mut con = support::con(&server);
    let oracle_script = redis::Script::new(ORACLE_VOTE);
    let current_script = redvote::scripts::get("vote").unwrap().script();
    let now = support::server_time(&mut con) as u64;
    let scenarios = [
        Scenario {
            name: "plain",
            vote_score: None,
            window: None,
            rankings: vec![],
            layout2: false,
            upgrading: false,
        },
        Scenario {
            name: "ranked-layout2",
            vote_score: Some(200),
            window: Some(7200),
            rankings: vec![Ranking::Hot, Ranking::Best],
            layout2: true,
            upgrading: false,
        },
        Scenario {
            name: "hot-upgrading",
            vote_score: Some(1),
            window: None,
            rankings: vec![Ranking::Hot],
            layout2: false,
            upgrading: true,
        },
        Scenario {
            name: "best-layout2",
            vote_score: None,
            window: Some(86_400),
            rankings: vec![Ranking::Best],
            layout2: true,
            upgrading: false,
        },
    ];
    // (changed, unchanged, refused) over all calls, and the codes refused
    let mut tally = (0, 0, 0);
    let mut codes = BTreeMap::<String, usize>::new();
    for (k, s) in scenarios.iter().enumerate() {
        let mut rng = Rng::seeded(k as u64 + 1);
        let window = s.window.unwrap_or(604_800);
        // open, closing soon, closed, long closed; never closing during the test
        let ages = [
            30,
            600,
            window / 2,
            window - 900,
            window + 900,
            3 * window,
            120,
            window / 3,
            45,
            300,
            900,
        ];
        let plan: Vec<Vec<&str>> = (0..ages.len() + 1)
            .map(|_| {
                (0..rng.below(3))
                    .map(|_| GROUPS[rng.below(GROUPS.len())])
                    .collect()
            })
            .collect();
        let (pa, pb) = (format!("oracle{k}:"), format!("current{k}:"));
        let (a, b) = (Site::new(pa.as_str()), Site::new(pb.as_str()));
        let articles = build(&mut con, &a, s, now, &ages, &plan);
        assert_eq!(build(&mut con, &b, s, now, &ages, &plan), articles);
        assert_eq!(dump(&mut con, &pa), dump(&mut con, &pb), "{} built", s.name);

        for i in 0..1500 {
            for (field, value) in settings_changes(s, i) {
                for p in [&pa, &pb] {
                    set_field(&mut con, p, field, &value);
                }
            }
            let call = random_call(&mut rng, articles + 1);
            let old = eval(&mut con, &oracle_script, &pa, &call);
            let new = eval(&mut con, current_script, &pb, &call);
            match &new {
                Ok(Value::Array(reply)) if reply[0] == Value::Int(1) => tally.0 += 1,
                Ok(Value::Array(reply)) if reply[0] == Value::Int(0) => tally.1 += 1,
                Ok(other) => panic!("{} call {i}: {other:?}", s.name),
                Err(e) => {
                    tally.2 += 1;
                    *codes
                        .entry(e.code().unwrap_or("?").to_string())
                        .or_default() += 1;
                }
            }
            let (old, new) = (text(&old, &pa, in_api_words), text(&new, &pb, as_is));
            assert_eq!(old, new, "{} call {i}: {call:?}", s.name);
            if i % 500 == 499 {
                assert_eq!(
                    dump(&mut con, &pa),
                    dump(&mut con, &pb),
                    "{} after call {i}",
                    s.name
                );
            }
        }
        let (da, db) = (dump(&mut con, &pa), dump(&mut con, &pb));
        assert_eq!(da, db, "{}", s.name);
        // (not vacuous: the votes wrote sets, and boards on layout 2)
        assert!(da.keys().filter(|k| k.starts_with("downvoted:")).count() >= 3);
        if s.layout2 || s.upgrading {
            assert!(da.keys().any(|k| k.starts_with("gboard:score:")), "{da:?}");
        }
    }
    assert!(
        tally.0 > 1500 && tally.1 > 800 && tally.2 > 1500,
        "{tally:?}"
    );
    for code in [
        "REDVOTE_USAGE",
        "REDVOTE_INVALID_USER",
        "REDVOTE_INVALID_ID",
        "REDVOTE_INVALID_VOTE",
        "REDVOTE_UNKNOWN_ARTICLE",
        "REDVOTE_VOTING_CLOSED",
        "REDVOTE_INVALID_CONFIG",
        "REDVOTE_LAYOUT_VERSION",
    ] {
        assert!(
            codes.get(code).copied().unwrap_or(0) >= 5,
            "{code}: {codes:?}"
        );
    }
}
