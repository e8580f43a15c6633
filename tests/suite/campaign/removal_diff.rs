//! Bounded option removal against the one-call removal it replaces, on
//! random data: two campaigns built by the same random calls (boards of
//! every tie rule, hour/day/week/total periods, carry, weights, imports,
//! votes in batches, many ties), then the same random options removed, in
//! `old` by the previous commit's configure (the oracle, kept byte for byte
//! in `tests/fixtures/removal-oracle/`), in `new` by this configure and
//! `campaign_remove` steps of random sizes, with the same votes cast on both
//! between the steps. While the removal is pending every read of `new`
//! (top pages, standing of every option, around) answers what `old`
//! answers; `redvote check` accepts `new`; at the end every key of the two
//! campaigns is equal: type, content and expiry (but for the board hash's
//! `remove_gen` and the root's `updated`, a clock).

use std::collections::BTreeMap;

use redis::{Connection, Value};
use redvote::campaign::{BoardSettings, CampaignSettings, OptionSettings};
use redvote::{Campaign, Neighbourhood, Paging, Period, Ties, View};

use super::removal::finish_removal;
use crate::support::{self, Rng, DAY, HOUR, T0};

/// The previous commit's configure: its `remove` cleans every period board
/// in the one call.
const ORACLE_CONFIGURE: &str = include_str!("../../fixtures/removal-oracle/campaign_configure.lua");

const BOARDS: [(&str, Ties); 4] = [
    ("n", Ties::Name),
    ("c", Ties::Competition),
    ("d", Ties::Dense),
    ("f", Ties::First),
];

/// One random campaign: each board's periods and options.
struct Plan {
    settings: CampaignSettings,
    periods: BTreeMap<String, Vec<Period>>,
    options: BTreeMap<String, Vec<String>>,
}

fn plan(rng: &mut Rng) -> Plan {
    let mut settings = CampaignSettings::default();
    let (mut periods, mut options) = (BTreeMap::new(), BTreeMap::new());
    for (name, ties) in BOARDS {
        let mut ps = vec![Period::Total];
        for p in [Period::Hour, Period::Day, Period::Week] {
            if rng.below(2) == 0 {
                ps.push(p);
            }
        }
        let n = 5 + rng.below(8);
        let names: Vec<String> = (0..n).map(|i| format!("o{i}")).collect();
        let opts: BTreeMap<String, OptionSettings> = names
            .iter()
            .map(|o| (o.clone(), OptionSettings::weighted(1 + rng.below(3) as u32)))
            .collect();
        let board = BoardSettings {
            ties: Some(ties),
            carry: Some(["0", "0.5", "0.25"][rng.below(3)].to_string()),
            decimals: Some(rng.below(3) as u32),
            ..BoardSettings::new(&ps)
        };
        settings.boards.insert(
            name.to_string(),
            BoardSettings {
                options: opts,
                ..board
            },
        );
        periods.insert(name.to_string(), ps);
        options.insert(name.to_string(), names);
    }
    Plan {
        settings,
        periods,
        options,
    }
}

/// A random vote (time, user, pairs) on the options `live` of each board.
fn random_vote(
    rng: &mut Rng,
    live: &BTreeMap<String, Vec<String>>,
) -> (u64, String, Vec<(String, String)>) {
    let at = T0 + rng.below(3 * DAY as usize) as u64;
    let user = format!("u{}", rng.below(40));
    let pairs = (0..1 + rng.below(3))
        .map(|_| {
            let (board, _) = BOARDS[rng.below(4)];
            let opts = &live[board];
            (board.to_string(), opts[rng.below(opts.len())].clone())
        })
        .collect();
    (at, user, pairs)
}

fn cast(con: &mut Connection, c: &Campaign, vote: &(u64, String, Vec<(String, String)>)) {
    let pairs: Vec<(&str, &str)> = vote
        .2
        .iter()
        .map(|(b, o)| (b.as_str(), o.as_str()))
        .collect();
    c.at(vote.0).vote(&vote.1, &pairs).run(con).unwrap();
}

/// Every read a client makes of `c`'s boards, as text: top pages, the
/// standing of every option and the neighbourhood of a few, for each
/// period kept, at two moments.
fn reads(con: &mut Connection, c: &Campaign, p: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    for (board, periods) in &p.periods {
        let names: Vec<&str> = p.options[board].iter().map(String::as_str).collect();
        for at in [T0 + HOUR, T0 + DAY + 2 * HOUR] {
            let c = c.at(at);
            for period in periods {
                for view in [View::real(period.as_str()), View::shown(period.as_str())] {
                    for page in 1..=3 {
                        let top = c.top(&[board], &view, Paging::new(page, 3)).run(con);
                        out.push(format!("{board} {view:?} {at} page {page}: {top:?}"));
                    }
                    let standing = c.standing(board, &view, &names).run(con);
                    out.push(format!("{board} {view:?} {at} standing: {standing:?}"));
                    for m in names.iter().step_by(3) {
                        let around = c.around(board, &view, m, Neighbourhood::new(3, 4)).run(con);
                        out.push(format!("{board} {view:?} {at} around {m}: {around:?}"));
                    }
                }
            }
        }
    }
    out
}

/// Every key of the campaign namespace `ns` (support::keyspace), but for
/// the clocks: the root's `updated` and the board hash's `remove_gen`,
/// and the removals' generations `removed:B`, which the oracle predates
/// (what a void reads, not what a removal leaves on the boards).
fn dump(con: &mut Connection, ns: &str) -> BTreeMap<String, String> {
    let mut all = support::keyspace(
        con,
        ns,
        &[("campaign", "updated"), ("board:", "remove_gen")],
    );
    all.retain(|key, _| !key.starts_with("removed:"));
    all
}

#[test]
fn bounded_removal_equals_the_one_call_removal_on_random_data() {
    let server = support::server();
    let mut con = support::con(&server);
    let oracle = redis::Script::new(ORACLE_CONFIGURE);
    for seed in [1u64, 7, 23] {
        let mut rng = Rng::seeded(seed);
        let p = plan(&mut rng);
        let old = Campaign::new(&format!("old{seed}"));
        let new = Campaign::new(&format!("new{seed}"));
        let doc = serde_json::to_string(&p.settings).unwrap();
        for c in [&old, &new] {
            c.configure(&p.settings).run(&mut con).unwrap();
            // the oracle predates layout 3 (it knows 1..2), which changes
            // only where rate-limit counters live: both run at layout 2
            redis::cmd("HSET")
                .arg(c.root_key())
                .arg("layout")
                .arg(2)
                .exec(&mut con)
                .unwrap();
        }
        // imports (integers: any board's decimals take them) and votes
        for (board, opts) in &p.options {
            let mut rows: Vec<(String, String)> = Vec::new();
            for o in opts {
                if rng.below(3) == 0 {
                    rows.push((o.clone(), (rng.below(4) + 1).to_string()));
                }
            }
            let rows: Vec<(&str, &str)> =
                rows.iter().map(|(o, v)| (o.as_str(), v.as_str())).collect();
            let at = T0 + rng.below(2 * DAY as usize) as u64;
            for c in [&old, &new] {
                c.at(at).import(board, &rows).run(&mut con).unwrap();
            }
        }
        for _ in 0..200 {
            let vote = random_vote(&mut rng, &p.options);
            for c in [&old, &new] {
                cast(&mut con, c, &vote);
            }
        }
        assert_eq!(
            dump(&mut con, old.namespace()),
            dump(&mut con, new.namespace())
        );

        // the same options removed: 1..3 a board, never all
        let mut removal = CampaignSettings::default();
        let mut live = p.options.clone();
        for (board, opts) in live.iter_mut() {
            let mut gone = Vec::new();
            for _ in 0..1 + rng.below(3) {
                if opts.len() > 2 {
                    gone.push(opts.remove(rng.below(opts.len())));
                }
            }
            removal.boards.insert(
                board.clone(),
                BoardSettings {
                    remove: gone,
                    ..Default::default()
                },
            );
        }
        let doc = serde_json::to_string(&removal).unwrap_or(doc);
        let _: Value = oracle
            .key(old.root_key())
            .arg(&doc)
            .invoke(&mut con)
            .unwrap();
        new.configure(&removal).run(&mut con).unwrap();
        assert!(support::exists(
            &mut con,
            &format!("{}removing:f", new.namespace())
        ));
        // (not vacuous: the removed options are still on new's boards)
        let entries = |con: &mut Connection, c: &Campaign| -> usize {
            dump(con, c.namespace())
                .keys()
                .filter(|k| k.starts_with("b:"))
                .map(|k| {
                    let n: usize = redis::cmd("ZCARD")
                        .arg(format!("{}{k}", c.namespace()))
                        .query(con)
                        .unwrap();
                    n
                })
                .sum()
        };
        assert!(entries(&mut con, &new) > entries(&mut con, &old) + 10);

        // pending: the reads answer what the one-call removal's answer
        assert_eq!(
            reads(&mut con, &old, &p),
            reads(&mut con, &new, &p),
            "seed {seed}"
        );
        let report = redvote_check::check_campaign(&mut con, &new).unwrap();
        assert!(
            report.violations.is_empty(),
            "seed {seed}: {report} {:?}",
            report.violations
        );

        // the steps, of random sizes, with votes between them
        for (board, _) in BOARDS {
            let mut cursor = "0".to_string();
            loop {
                let count = 1 + rng.below(7) as u32;
                let step = new
                    .remove_step(board, &cursor, count)
                    .run(&mut con)
                    .unwrap();
                if rng.below(5) == 0 {
                    let vote = random_vote(&mut rng, &live);
                    for c in [&old, &new] {
                        cast(&mut con, c, &vote);
                    }
                    assert_eq!(
                        reads(&mut con, &old, &p)[..40],
                        reads(&mut con, &new, &p)[..40],
                        "seed {seed}, during {board}"
                    );
                }
                if step.is_done() {
                    break;
                }
                cursor = step.next;
            }
        }
        // (a second run answers done at once)
        for (board, _) in BOARDS {
            assert_eq!(finish_removal(&mut con, &new, board, 100).len(), 1);
        }
        assert_eq!(
            dump(&mut con, old.namespace()),
            dump(&mut con, new.namespace()),
            "seed {seed}"
        );
        assert_eq!(reads(&mut con, &old, &p), reads(&mut con, &new, &p));
    }
}
