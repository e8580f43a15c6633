//! The rate limits against the scripts before their per-rule speed-up (the
//! oracle, kept byte for byte in `tests/fixtures/vote-oracle/`), on random
//! data: two campaigns of one server configured alike with a random rule
//! set (every window, rolling rules, 1..3 dimensions, channel extras,
//! sometimes a campaign end), `old` by the oracle's configure and votes
//! (EVAL of the fixtures), `new` by the library's ([`Campaign`]), then the
//! same random votes on both at explicit times (users, channels, devices,
//! costs, batches, a clock that sometimes goes back): every reply is the
//! same (the value, or the error text with the namespace replaced), and so
//! is every key of the two namespaces (type, content, absolute expiry) a
//! few times and at the end. Seeds run at layout 3 (buckets), at layout 2
//! (voter hashes), and at layout 2 upgraded to 3 mid-way (the voters'
//! former fields still counted). Last, stored rules the library never
//! writes (hand-edited: numbers as strings, spaces, unusual names) and
//! corrupt ones answer alike.

use std::collections::BTreeMap;

use redis::{Connection, Value};
use redvote::campaign::{
    BoardSettings, CampaignSettings, Dimension, LimitRule, OptionSettings, Rolling, Voter, Window,
};
use redvote::{Campaign, Period};

use crate::support::{self, utc, Rng};

const ORACLE_VOTE: &str = include_str!("../../fixtures/vote-oracle/campaign_vote.lua");
const ORACLE_CONFIGURE: &str = include_str!("../../fixtures/vote-oracle/campaign_configure.lua");

const DIMS: [Dimension; 4] = [
    Dimension::User,
    Dimension::Option,
    Dimension::Channel,
    Dimension::Device,
];
const WINDOWS: [Window; 7] = [
    Window::Second,
    Window::Minute,
    Window::Hour,
    Window::Day,
    Window::Week,
    Window::Month,
    Window::Campaign,
];
const BOARDS: [&str; 2] = ["b", "b2"];
const OPTIONS: [&str; 3] = ["a", "b", "c"];
const CHANNELS: [&str; 3] = ["", "web", "partner"];
const DEVICES: [&str; 3] = ["", "pc", "mobile"];

/// The votes' first second (2040: the counters expire by the server clock).
fn t0() -> u64 {
    utc((2040, 3, 17), (10, 0, 0))
}

/// 1..=5 random rules, named r0.., each counting by 1..3 dimensions (the
/// user most often), a fixed window or rolling, small limits (so refusals
/// come), sometimes an extra allowance for the partner channel.
fn random_rules(rng: &mut Rng) -> Vec<LimitRule> {
    (0..1 + rng.below(5))
        .map(|i| {
            let mut by = Vec::new();
            if rng.below(3) > 0 {
                by.push(Dimension::User);
            }
            for _ in 0..1 + rng.below(2) {
                let d = DIMS[rng.below(4)];
                if !by.contains(&d) {
                    by.push(d);
                }
            }
            let name = format!("r{i}");
            let rule = if rng.below(5) == 0 {
                let limit = 1 + rng.below(4) as u64;
                let rolling = Rolling::new(limit, [1, 7, 60, 3600][rng.below(4)]);
                let rolling = if rng.below(2) == 0 {
                    rolling.with_burst(1 + rng.below(5) as u64)
                } else {
                    rolling
                };
                LimitRule::rolling(&name, &by, rolling)
            } else {
                let window = WINDOWS[rng.below(WINDOWS.len())];
                LimitRule::fixed(&name, &by, window, 1 + rng.below(6) as u64)
            };
            if rng.below(4) == 0 {
                rule.with_extra("partner", rng.below(3) as u64)
            } else {
                rule
            }
        })
        .collect()
}

fn settings(rng: &mut Rng, rules: Vec<LimitRule>) -> CampaignSettings {
    let boards = BOARDS
        .iter()
        .map(|b| {
            let options = OPTIONS
                .iter()
                .map(|o| (o.to_string(), OptionSettings::weighted(1)))
                .collect();
            let board = BoardSettings {
                options,
                ..BoardSettings::new(&[Period::Day, Period::Total])
            };
            (b.to_string(), board)
        })
        .collect();
    CampaignSettings {
        offset: Some(["+08:00", "+00:00", "-05:30"][rng.below(3)].to_string()),
        // sometimes an end within the votes' span (campaign windows, and
        // windows that outlive the campaign, never reset)
        end: (rng.below(3) == 0).then(|| t0() + 3 * 86400 + rng.below(86400) as u64),
        limits: Some(rules),
        boards,
        ..CampaignSettings::default()
    }
}

/// A reply as text: the value, or the error's text with `ns` (the
/// campaign's namespace) written as `"<ns>"` and a Lua runtime error's
/// script line (`user_script:866:`, which moved) as `user_script:N:`.
fn text(reply: redis::RedisResult<Value>, ns: &str) -> String {
    match reply {
        Ok(v) => format!("{v:?}"),
        Err(e) => {
            let detail = e.detail().unwrap_or_default().replace(ns, "<ns>");
            let detail = match detail.split_once("user_script:") {
                Some((head, tail)) => {
                    let rest = tail.trim_start_matches(|c: char| c.is_ascii_digit());
                    format!("{head}user_script:N{rest}")
                }
                None => detail,
            };
            format!("error {:?} {detail}", e.code())
        }
    }
}

/// Every key of the namespace but the root's `updated` (a clock).
fn dump(con: &mut Connection, ns: &str) -> BTreeMap<String, String> {
    support::keyspace(
        con,
        ns,
        &[("campaign", "updated"), ("campaign", "limits_checked")],
    )
}

struct Pair {
    old: Campaign,
    new: Campaign,
    vote: redis::Script,
}

impl Pair {
    /// One vote on both: the replies must be the same. Returns whether it
    /// was refused.
    fn vote(
        &self,
        con: &mut Connection,
        at: u64,
        voter: &Voter,
        pairs: &[(&str, &str)],
        what: &str,
    ) -> bool {
        let call = self.new.at(at).vote_by(voter, pairs);
        let new = call.invocation().invoke::<Value>(con);
        let old = self
            .vote
            .key(self.old.root_key())
            .arg(call.args())
            .invoke::<Value>(con);
        let refused = old.is_err();
        assert_eq!(
            text(old, self.old.namespace()),
            text(new, self.new.namespace()),
            "{what}: vote at {at} by {voter:?} for {pairs:?}"
        );
        refused
    }

    fn same_keys(&self, con: &mut Connection, what: &str) {
        let (old, new) = (
            dump(con, self.old.namespace()),
            dump(con, self.new.namespace()),
        );
        assert_eq!(old.len(), new.len(), "{what}: key counts");
        for ((ko, vo), (kn, vn)) in old.iter().zip(new.iter()) {
            assert_eq!((ko, vo), (kn, vn), "{what}");
        }
    }
}

/// `n` random votes on both campaigns, the keys compared every 100.
/// Returns how many were refused.
fn random_votes(
    con: &mut Connection,
    p: &Pair,
    rng: &mut Rng,
    at: &mut u64,
    n: usize,
    what: &str,
) -> usize {
    let mut refused = 0;
    for i in 0..n {
        // mostly forward, by up to an hour; sometimes back (the explicit
        // clock before a counter's window)
        *at = match rng.below(20) {
            0 => *at - rng.below(7200) as u64,
            1..=9 => *at + rng.below(3) as u64,
            10..=16 => *at + rng.below(120) as u64,
            _ => *at + rng.below(5000) as u64,
        };
        let user = format!("u{}", rng.below(6));
        let voter = Voter {
            user,
            channel: Some(CHANNELS[rng.below(3)].to_string()).filter(|c| !c.is_empty()),
            device: Some(DEVICES[rng.below(3)].to_string()).filter(|d| !d.is_empty()),
            cost: 1 + (rng.below(6) / 5) as u32 * 2,
            id: None,
        };
        let pairs: Vec<(&str, &str)> = (0..1 + rng.below(4) / 3 * (1 + rng.below(3)))
            .map(|_| (BOARDS[rng.below(2)], OPTIONS[rng.below(3)]))
            .collect();
        if p.vote(con, *at, &voter, &pairs, &format!("{what}, vote {i}")) {
            refused += 1;
        }
        if i % 100 == 99 {
            p.same_keys(con, &format!("{what}, after vote {i}"));
        }
    }
    p.same_keys(con, what);
    refused
}

fn setup(con: &mut Connection, name: &str, s: &CampaignSettings) -> Pair {
    let p = Pair {
        old: Campaign::new(&format!("lo-{name}")),
        new: Campaign::new(&format!("ln-{name}")),
        vote: redis::Script::new(ORACLE_VOTE),
    };
    let doc = serde_json::to_string(s).unwrap();
    let _: Value = redis::Script::new(ORACLE_CONFIGURE)
        .key(p.old.root_key())
        .arg(&doc)
        .invoke(con)
        .unwrap();
    p.new.configure(s).run(con).unwrap();
    p
}

fn set_root(con: &mut Connection, p: &Pair, field: &str, value: &str) {
    for c in [&p.old, &p.new] {
        redis::cmd("HSET")
            .arg(c.root_key())
            .arg(field)
            .arg(value)
            .exec(con)
            .unwrap();
    }
}

#[test]
fn rate_limits_answer_and_write_what_the_oracle_does_on_random_rules() {
    let server = support::server();
    let mut con = support::con(&server);
    assert!(
        (support::server_time(&mut con) as u64) < utc((2039, 1, 1), (0, 0, 0)),
        "the test votes in 2040 and needs the server clock before it"
    );
    let (mut votes, mut refused) = (0, 0);
    for seed in 1..=9u64 {
        let mut rng = Rng::seeded(seed);
        let rules = random_rules(&mut rng);
        let s = settings(&mut rng, rules);
        let what = format!("seed {seed} {}", serde_json::to_string(&s.limits).unwrap());
        let p = setup(&mut con, &format!("s{seed}"), &s);
        let mut at = t0();
        match seed % 3 {
            0 => {
                refused += random_votes(&mut con, &p, &mut rng, &mut at, 300, &what);
            }
            1 => {
                set_root(&mut con, &p, "layout", "2");
                refused += random_votes(&mut con, &p, &mut rng, &mut at, 300, &what);
            }
            _ => {
                // layout 2, then upgraded to 3: the voters' hashes still
                // count for the windows in flight (rlu_until)
                set_root(&mut con, &p, "layout", "2");
                refused += random_votes(&mut con, &p, &mut rng, &mut at, 150, &what);
                set_root(&mut con, &p, "layout", "3");
                set_root(&mut con, &p, "rlu_until", &(at + 86400).to_string());
                refused += random_votes(&mut con, &p, &mut rng, &mut at, 150, &what);
            }
        }
        votes += 300;
    }
    // not vacuous: both passes and refusals
    assert!(
        refused > votes / 10 && refused < votes * 9 / 10,
        "{refused} of {votes} refused"
    );
}

/// Stored rules as configure never writes them, valid (limit_rules' slow
/// path accepts them) or corrupt (its error text).
const STORED: [&str; 12] = [
    r#" [ {"name":"n|x","by":["user","device"],"window":"minute","limit":"2"} , {"name":"n","by":["user"],"window":"hour","limit":3} ]"#,
    r#"[{"name":"a.b_c-1","by":["channel","user"],"window":"day","limit":2,"extra":{"partner":"1"}}]"#,
    r#"[{"name":"dup","by":["user"],"window":"minute","limit":2},{"name":"dup","by":["user"],"window":"minute","limit":5}]"#,
    r#"[{"name":"r","by":["user"],"rolling":true,"limit":"2","per":60,"burst":2}]"#,
    r#"[{"name":"r","by":["user"],"window":"minute","limit":2,"extra":[]}]"#,
    r#"[{"name":"é","by":["option"],"window":"second","limit":1}]"#,
    r#"[{"name":"bad:name","by":["user"],"window":"minute","limit":2}]"#,
    r#"[{"name":"r","by":["user","user"],"window":"minute","limit":2}]"#,
    r#"[{"name":"r","by":["user"],"window":"fortnight","limit":2}]"#,
    r#"[{"name":"r","by":["user"],"window":"minute","limit":0}]"#,
    r#"{"name":"r","by":["user"],"window":"minute","limit":2}"#,
    r#"[{"name":"r","by":["user"],"window":"minute","limit":2.5,"extra":{"bad name":1}}]"#,
];

#[test]
fn stored_rules_configure_never_writes_answer_what_the_oracle_does() {
    let server = support::server();
    let mut con = support::con(&server);
    let mut rng = Rng(0x5EED);
    let s = settings(
        &mut Rng(3),
        vec![LimitRule::fixed("x", &[Dimension::User], Window::Day, 9)],
    );
    let s = CampaignSettings { end: None, ..s };
    for (i, json) in STORED.iter().enumerate() {
        let p = setup(&mut con, &format!("stored{i}"), &s);
        set_root(&mut con, &p, "limits", json);
        let mut at = t0();
        random_votes(
            &mut con,
            &p,
            &mut rng,
            &mut at,
            40,
            &format!("stored {json}"),
        );
    }
}
