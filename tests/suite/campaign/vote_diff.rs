//! The campaign vote against the script it replaced (the leaner vote path):
//! `campaign_vote.lua` as assembled at e427ebc (the oracle,
//! `tests/fixtures/vote-oracle/`) and as assembled now run the same random
//! calls on two campaigns configured alike: boards of every tie rule,
//! random periods, carry, decimals, weights and retentions, a vote log on
//! some; single and batch votes at random times across period boundaries,
//! with channels, devices, costs and vote ids (replays and reused ids), and
//! bad calls (unknown boards and options, key-like names, an empty user, a
//! malformed time or cost, a batch over the bound). Every reply must be the
//! same (value, or error text with the namespace normalised and the
//! oracle's details naming a board or option put in today's words) and, a
//! few times and at the end, every key of the two campaigns: type, content
//! and absolute expiry (a vote id record expires from the server's clock:
//! within a second).

use std::collections::BTreeMap;

use redis::{Connection, Value};
use redvote::campaign::{BoardSettings, CampaignSettings, OptionSettings};
use redvote::{Campaign, Period, Ties};

use crate::support::{self, Rng, DAY};

/// The calls' times start here (2030-01-01): boards and statistics whose
/// retention ends before the server's clock would be gone at once.
pub(super) const BASE: u64 = 1_893_456_000;

/// The vote as assembled at e427ebc.
const ORACLE_VOTE: &str = include_str!("../../fixtures/vote-oracle/campaign_vote.lua");
/// The vote as assembled now (what the library embeds).
pub(super) const VOTE: &str = include_str!("../../../lua/campaign_vote.lua");

const BOARDS: [(&str, Ties); 4] = [
    ("c", Ties::Competition),
    ("n", Ties::Name),
    ("d", Ties::Dense),
    ("f", Ties::First),
];

/// Random settings: every board's periods, carry, decimals, retention and
/// weights; a vote log on some campaigns.
pub(super) fn settings(rng: &mut Rng) -> CampaignSettings {
    let mut s = CampaignSettings {
        offset: Some(rng.pick(&["+00:00", "+08:00", "-05:30"]).to_string()),
        vote_log: (rng.below(2) == 0).then_some(50),
        ..CampaignSettings::default()
    };
    for (name, ties) in BOARDS {
        let mut periods = Vec::new();
        for p in [Period::Hour, Period::Day, Period::Week, Period::Month] {
            if rng.below(2) == 0 {
                periods.push(p);
            }
        }
        if periods.is_empty() || rng.below(2) == 0 {
            periods.push(Period::Total);
        }
        let mut retention = BTreeMap::new();
        for p in &periods {
            if *p != Period::Total && rng.below(2) == 0 {
                retention.insert(*p, (1 + rng.below(5) as u64) * DAY);
            }
        }
        let options = (0..4 + rng.below(6))
            .map(|i| {
                let weight = 1 + rng.below(5) as u32;
                (format!("o{i}"), OptionSettings::weighted(weight))
            })
            .collect();
        s.boards.insert(
            name.to_string(),
            BoardSettings {
                ties: Some(ties),
                carry: Some(rng.pick(&["0", "0.1", "0.25", "0.5", "1"]).to_string()),
                decimals: Some(rng.below(4) as u32),
                retention,
                options,
                ..BoardSettings::new(&periods)
            },
        );
    }
    s
}

/// One random call's ARGV: user, time, channel, device, cost, id, pairs;
/// one call in ten is malformed somewhere.
pub(super) fn call(rng: &mut Rng, s: &CampaignSettings) -> Vec<String> {
    let bad = rng.below(10) == 0;
    let at = BASE + rng.below(4 * DAY as usize) as u64;
    let mut args = vec![
        format!("u{}", rng.below(25)),
        at.to_string(),
        rng.pick(&["", "", "web", "app"]).to_string(),
        rng.pick(&["", "pc", "mobile"]).to_string(),
        rng.pick(&["", "", "1", "3"]).to_string(),
        if rng.below(4) == 0 {
            format!("id{}", rng.below(30))
        } else {
            String::new()
        },
    ];
    let pairs = if rng.below(3) == 0 {
        2 + rng.below(4)
    } else {
        1
    };
    for _ in 0..pairs {
        let (board, _) = *rng.pick(&BOARDS);
        let n = s.boards[board].options.len();
        args.push(board.to_string());
        args.push(format!("o{}", rng.below(n)));
    }
    if bad {
        match rng.below(9) {
            0 => args[0] = String::new(),
            1 => args[1] = "12x".to_string(),
            2 => args[4] = "0".to_string(),
            3 => args[6] = "nope".to_string(),
            4 => args[7] = "o99".to_string(),
            5 => args[7] = "1:x".to_string(),
            6 => args[6] = "{a}".to_string(),
            7 => {
                // over the bound: 51 pairs of the first board
                for _ in 0..50 {
                    args.push(args[6].clone());
                    args.push(args[7].clone());
                }
            }
            _ => args[5] = "\u{1}".to_string(),
        }
    }
    args
}

/// The reply of `script` to `args` on campaign `c`, as text, the campaign's
/// namespace written `<ns>`; a refusal as `error CODE detail`, its detail
/// passed through `words` first.
fn run(
    con: &mut Connection,
    script: &redis::Script,
    c: &Campaign,
    args: &[String],
    words: fn(&str, &str) -> String,
) -> String {
    let reply: redis::RedisResult<Value> = script.key(c.root_key()).arg(args).invoke(con);
    let text = match reply {
        Ok(v) => format!("{v:?}"),
        Err(e) => {
            let code = e.code().unwrap_or("?");
            let detail = e
                .detail()
                .unwrap_or_default()
                .replace(c.namespace(), "<ns>");
            format!("error {code} {}", words(code, &detail))
        }
    };
    text.replace(c.namespace(), "<ns>")
}

/// A detail of the current script, as it is.
fn as_is(_code: &str, detail: &str) -> String {
    detail.to_string()
}

/// A refusal of the oracle in the words the scripts use since
/// (docs/errors.md, "How a detail names things"): the board and option it
/// names, not their keys, and the name rule in words (the reworded
/// refusals these random calls meet). Each must have the oracle's form (a
/// panic otherwise), so what the two name is still compared; other
/// details pass as they are.
fn in_api_words(code: &str, detail: &str) -> String {
    fn key(s: &str) -> &str {
        s.strip_prefix("<ns>")
            .unwrap_or_else(|| panic!("{s:?} is not a key"))
    }
    fn cut<'a>(s: &'a str, sep: &str) -> (&'a str, &'a str) {
        s.split_once(sep)
            .unwrap_or_else(|| panic!("{s:?} has no {sep:?}"))
    }
    match code {
        "REDVOTE_UNKNOWN_OPTION" => {
            let (weights, option) = cut(detail, " has no option ");
            let board = key(weights).strip_prefix("weights:").unwrap();
            format!("board \"{board}\" has no option \"{option}\"")
        }
        "REDVOTE_UNKNOWN_BOARD" => {
            let board = key(detail).strip_prefix("board:").unwrap();
            format!("board \"{board}\" is not configured")
        }
        "REDVOTE_INVALID_NAME" => detail.replace(
            ": { } * ? [ ] \\ , ",
            "colons, braces, asterisks, question marks, square brackets, backslashes, commas, ",
        ),
        _ => detail.to_string(),
    }
}

/// Every key of `c` (support::keyspace, but for the root's `updated`), a
/// vote id record's expiry (from the server's clock) apart, and the vote
/// log's entry id (a clock too) cut from the records that quote it.
fn keys(con: &mut Connection, c: &Campaign) -> (BTreeMap<String, String>, BTreeMap<String, i64>) {
    let mut all = support::keyspace(con, c.namespace(), &[("campaign", "updated")]);
    let mut expiries = BTreeMap::new();
    for (key, text) in all.iter_mut() {
        if key.starts_with("vid:") {
            let (body, at) = text.rsplit_once(" expires ").unwrap();
            expiries.insert(key.clone(), at.parse().unwrap());
            let mut body = body.to_string();
            while let Some(i) = body.find(r#"\"l\":\""#) {
                let end = body[i + 7..].find(r#"\""#).unwrap() + i + 7;
                body.replace_range(i..end + 2, "");
            }
            *text = body;
        }
    }
    (all, expiries)
}

fn assert_same_keys(con: &mut Connection, old: &Campaign, new: &Campaign, seed: u64, step: usize) {
    let (a, a_at) = keys(con, old);
    let (b, b_at) = keys(con, new);
    assert!(
        a.len() > 10,
        "seed {seed}: the oracle campaign wrote only {a:?}"
    );
    for (key, text) in &a {
        assert_eq!(
            Some(text),
            b.get(key),
            "seed {seed}, after call {step}: key {key} differs"
        );
    }
    assert_eq!(a.len(), b.len(), "seed {seed}, after call {step}: {:?}", {
        let only: Vec<&String> = b.keys().filter(|k| !a.contains_key(*k)).collect();
        only
    });
    for (key, at) in &a_at {
        assert!(
            (at - b_at[key]).abs() <= 1,
            "seed {seed}: {key} expires at {at} and {}",
            b_at[key]
        );
    }
}

#[test]
fn the_vote_equals_the_vote_it_replaced_on_random_calls() {
    let server = support::server();
    let mut con = support::con(&server);
    let oracle = redis::Script::new(ORACLE_VOTE);
    let current = redis::Script::new(VOTE);
    for seed in [3u64, 11, 29] {
        let mut rng = Rng::seeded(seed);
        let s = settings(&mut rng);
        let old = Campaign::new(&format!("vold{seed}"));
        let new = Campaign::new(&format!("vnew{seed}"));
        for c in [&old, &new] {
            c.configure(&s).run(&mut con).unwrap();
        }
        let (mut refused, mut replayed) = (0, 0);
        let mut last_with_id: Option<Vec<String>> = None;
        for step in 0..700 {
            // one call in eight sends an earlier call with an id again
            let args = match last_with_id.clone() {
                Some(again) if rng.below(8) == 0 => again,
                _ => call(&mut rng, &s),
            };
            if !args[5].is_empty() {
                last_with_id = Some(args.clone());
            }
            let a = run(&mut con, &oracle, &old, &args, in_api_words);
            let b = run(&mut con, &current, &new, &args, as_is);
            assert_eq!(a, b, "seed {seed}, call {step} {args:?}");
            refused += usize::from(a.starts_with("error"));
            replayed += usize::from(a.contains("replay"));
            if step % 250 == 249 {
                assert_same_keys(&mut con, &old, &new, seed, step);
            }
        }
        assert_same_keys(&mut con, &old, &new, seed, 700);
        // the calls reached both outcomes
        assert!(
            refused > 30 && refused < 400,
            "seed {seed}: {refused} refused"
        );
        assert!(replayed > 5, "seed {seed}: {replayed} replayed");
    }
}
