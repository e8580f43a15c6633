//! Fuzzing every script's KEYS and ARGV through raw `EVALSHA`.
//!
//! Each script gets its own test (`fuzz::<script>`, its own server): valid
//! calls built by the driver on a seeded site or campaign (articles, votes
//! both ways, groups, a cached group page; a campaign with several boards,
//! every period, carry, `first` ties, weights, rate-limit rules including a
//! rolling one, deny lists and imported votes) are the templates, and a
//! seeded, deterministic generator mutates them: one argument, several,
//! dropped or appended ones, KEYS[1] replaced (a wrong root, another prefix,
//! a key-like string, a root whose namespace holds one key of the wrong
//! type), 0 or 2 keys; the values are hostile strings (huge, empty, `nan`,
//! `1e309`, ` 5`, numbers at and around the documented bounds, unicode,
//! binary, key-like, JSON size and shape attacks for the configure
//! scripts) or mutations of the valid ones.
//!
//! Every call must answer a success or a refusal whose code is in the
//! script's documented `Errors:` list (parsed from the header of
//! `lua/<op>.lua`), never `REDVOTE_INTERNAL` nor an error that is not a
//! `REDVOTE_` code; a refused call must leave `DEBUG DIGEST` unchanged (a
//! change while a key expired is counted as inconclusive, not as a partial
//! write; the digest is taken again only when Redis' change or expiry
//! counters moved, see [`snapshot`]). At least [`MIN_SUCCESS_PERCENT`] of
//! the calls must succeed and 30% be refused, so the test cannot pass by
//! refusing everything, or by mutating nothing.
//!
//! Size: [`DEFAULT_CALLS`] calls over all scripts (weighted by
//! [`SCRIPTS`]); `REDVOTE_FUZZ_CALLS=N` and `REDVOTE_FUZZ_SEED=S` change the
//! total and the seed, e.g.
//! `REDVOTE_FUZZ_CALLS=200000 REDVOTE_FUZZ_SEED=7 cargo test --test suite fuzz -- --nocapture`.
//! Each test prints one summary line: the seed, calls, successes, refusals
//! by code, INTERNAL count, partial writes (and refused calls that wrote
//! but changed nothing, e.g. group_page's ordering deleted again).

use std::collections::BTreeMap;
use std::time::Instant;

use redis::{Connection, Value};
use redvote::campaign::Voter;
use redvote::{
    BoardSettings, Campaign, CampaignRegistry, CampaignSettings, Code, ConfigUpdate, DenyLists,
    Dimension, Granularity, Kind, LimitRule, Neighbourhood, OptionSettings, Order, Paging, Period,
    Ranking, Rolling, Site, Ties, View, VoidBy, Vote, Window,
};
use serde_json::{json, Value as Json};

use crate::support::{self, utc, Rng, DAY, HOUR};

/// The seed when `REDVOTE_FUZZ_SEED` is not set.
const DEFAULT_SEED: u64 = 0x5eed_2040;
/// Calls over all scripts when `REDVOTE_FUZZ_CALLS` is not set.
const DEFAULT_CALLS: u64 = 6000;
/// The share of calls that must succeed, in percent.
const MIN_SUCCESS_PERCENT: u64 = 5;
/// The data set is flushed and seeded anew after an epoch of calls, so it
/// stays small (cheap digests) and close to the templates: an epoch is
/// the calls shared out so that every poisoned namespace has its turn,
/// within these bounds.
const MIN_EPOCH: u64 = 25;
const MAX_EPOCH: u64 = 100;
/// How many namespaces with a key of the wrong type a data set holds.
const POISONED_AT_ONCE: usize = 4;
/// At most this many failing calls are listed.
const SHOW_FAILURES: usize = 12;

/// Every script and its weight: its share of the calls (the weights add up
/// to 6150).
const SCRIPTS: &[(&str, u64)] = &[
    ("post", 250),
    ("vote", 300),
    ("article", 200),
    ("page", 200),
    ("group_page", 250),
    ("groups", 300),
    ("rerank", 150),
    ("upgrade", 100),
    ("config", 100),
    ("configure", 150),
    ("campaign_configure", 400),
    ("campaign_settings", 100),
    ("campaign_vote", 600),
    ("campaign_import", 400),
    ("campaign_top", 300),
    ("campaign_standing", 300),
    ("campaign_around", 300),
    ("campaign_limits", 250),
    ("campaign_limits_reset", 150),
    ("campaign_participants", 200),
    ("campaign_reindex", 100),
    ("campaign_remove", 100),
    ("campaign_register", 150),
    ("campaign_registry", 100),
    ("campaign_stats", 200),
    ("campaign_void", 200),
    ("campaign_void_range", 200),
    ("campaign_upgrade", 100),
    ("campaign_fold", 150),
];

macro_rules! fuzz_tests {
    ($($test:ident,)+) => {
        $(
            #[test]
            fn $test() {
                fuzz(stringify!($test));
            }
        )+

        #[test]
        fn every_script_is_fuzzed() {
            let tested = [$(stringify!($test)),+];
            let weighted: Vec<&str> = SCRIPTS.iter().map(|(s, _)| *s).collect();
            assert_eq!(tested.to_vec(), weighted, "one test per weighted script");
            let mut all: Vec<&str> = redvote::scripts::all().iter().map(|s| s.name()).collect();
            let mut tested = tested.to_vec();
            all.sort();
            tested.sort();
            assert_eq!(tested, all, "every embedded script has a fuzz test");
        }
    };
}

fuzz_tests! {
    post,
    vote,
    article,
    page,
    group_page,
    groups,
    rerank,
    upgrade,
    config,
    configure,
    campaign_configure,
    campaign_settings,
    campaign_vote,
    campaign_import,
    campaign_top,
    campaign_standing,
    campaign_around,
    campaign_limits,
    campaign_limits_reset,
    campaign_participants,
    campaign_reindex,
    campaign_remove,
    campaign_register,
    campaign_registry,
    campaign_stats,
    campaign_void,
    campaign_void_range,
    campaign_upgrade,
    campaign_fold,
}

// ---------------------------------------------------------------------------
// Hostile values (the generator: redvote_testing::Rng, seeded).

/// Hostile values as they are: malformed numbers, words the scripts take,
/// key-like and control strings, unicode.
#[rustfmt::skip]
const SPECIALS: &[&str] = &[
    "", " ", "nan", "NaN", "inf", "-inf", "+inf", "1e309", "-1e309", "1e400", "-0", "0x10", "0X1f",
    " 5", "5 ", "+5", "1.", ".5", "1e3", "1E3", "2.5", "-1", "-5", "00", "01", "0", "1", "1,5",
    "1_000", "١٢٣", "0.000001", "0.0000001", "12.345", "1..2", "1.5.5", "-1.5", "01.5",
    "99999999999999999999", "999999999999999999999", "9007199254740991", "9007199254740992",
    "9007199254740993", "9223372036854775807", "-9223372036854775808", "18446744073709551615",
    "18446744073709551616", "4503599627370496", "2251799813685248",
    "up", "down", "none", "UP", "score", "time", "hot", "best", "Score", "real", "shown", "Real",
    "peek", "reset", "hour", "day", "week", "month", "total", "Total", "campaign", "minute",
    "day:2040-03-13", "day:2040-03-14", "day:2040-03-12", "hour:2040-03-13T12", "hour:2040-03-13T24",
    "week:2040-W11", "week:2040-W53", "week:2040-W54", "week:2040-W00", "month:2040-03",
    "month:2040-13", "month:2040-00", "day:2040-02-30", "day:2040-02-29", "day:2041-02-29",
    "day:0000-01-01", "day:9999-12-31", "day:2040-3-13", "day:2040-03-13T12", "total:x",
    "hour:", ":", "day:", "x:y", "1:x", "{a}", "{", "}", "a*", "*", "?", "[a]", "a\\b", "a,b",
    "a b", "article:7", "article:1", "article:", "article:01", "article:0", "article:-1",
    "article:1 ", "7 ", "article:999999999999999", "9999999999999999", "1000000000000000",
    "{c:fz}:campaign", "b:B:real:total", "+g1", "-g1", "+", "-", "++g", "+g:x", "+{g}",
    "B", "C", "D", "E", "x", "y", "z", "a", "b", "nobody", "alice", "mallory", "spam",
    "partner", "tight", "pc", "\r\n", "\n", "\t", "\0", "a\0b", "\x01", "\x7f", "\x1b[31m",
    "é", "日本語", "שלום", "\u{202e}evil", "🗳️", "👍🏽", "\u{feff}", "\u{200b}", "ß", "İ",
    "true", "false", "null", "[]", "{}", "\"\"",
];

/// Invalid UTF-8 and other raw bytes.
const BINARY: &[&[u8]] = &[
    b"\xff",
    b"\xfe\xff",
    b"\xc0\x80",
    b"a\xffb",
    b"\x80",
    b"\xed\xa0\x80",
    b"\0\0\0\0",
];

/// Documented bounds (lengths, counts, ranges, clocks, exact limits).
#[rustfmt::skip]
const BOUNDS: &[u64] = &[
    0, 1, 2, 5, 6, 7, 20, 24, 25, 32, 50, 59, 60, 64, 99, 100, 101, 256, 500, 512, 1000, 2048,
    10000, 50400, 86400, 604800, 1000000, 4194304, 315360000, 1000000000, 2147483647,
    4294967296, 253402300799, 999999999999, 2251799813685248, 9007199254740992,
    9223372036854775807,
];

/// String lengths at and around documented maxima.
#[rustfmt::skip]
const LENGTHS: &[usize] = &[
    0, 1, 63, 64, 65, 255, 256, 257, 511, 512, 513, 2047, 2048, 2049, 4096, 65536,
];

/// One hostile value; `original` is the valid value it replaces (mutated
/// sometimes), `t0` the templates' clock (times around it).
fn hostile(rng: &mut Rng, original: &[u8], t0: u64) -> Vec<u8> {
    match rng.below(20) {
        0..=5 => rng.pick(SPECIALS).as_bytes().to_vec(),
        6 | 7 => {
            let b = *rng.pick(BOUNDS) as i128 + rng.below(3) as i128 - 1;
            let b = if rng.chance(10) { -b } else { b };
            b.to_string().into_bytes()
        }
        8 => {
            // the campaign's start and end, and the templates' clock
            let around = [t0, t0 - DAY, t0 + 30 * DAY, t0 + HOUR];
            let t = *rng.pick(&around) as i64 + rng.below(5) as i64 - 2;
            t.to_string().into_bytes()
        }
        9 | 10 => {
            let n = if rng.chance(3) {
                1 << 20
            } else {
                *rng.pick(LENGTHS)
            };
            let unit = rng.pick(&["x", "9", "é", ":", " "]);
            let mut s = unit.repeat(n.div_ceil(unit.len())).into_bytes();
            s.truncate(n);
            s
        }
        11 => rng.pick(BINARY).to_vec(),
        12 => (0..rng.below(8) + 1)
            .map(|_| rng.next_u64() as u8)
            .collect(),
        _ => mutate(rng, original),
    }
}

/// A small change of a valid value.
fn mutate(rng: &mut Rng, original: &[u8]) -> Vec<u8> {
    let mut v = original.to_vec();
    let extra = rng.pick(&[" ", "0", "1", ":", "\0", "x", ".", "-", "{", "é", "\n", "9"]);
    match rng.below(10) {
        0 => v.extend_from_slice(extra.as_bytes()),
        1 => v.splice(0..0, extra.bytes()).for_each(drop),
        2 if !v.is_empty() => {
            let i = rng.below(v.len());
            v[i] ^= 1 << rng.below(8);
        }
        3 if !v.is_empty() => v.truncate(rng.below(v.len())),
        4 => v = v.repeat(2 + rng.below(3)),
        5 => v = v.to_ascii_uppercase(),
        6 => match std::str::from_utf8(&v)
            .ok()
            .and_then(|s| s.parse::<i128>().ok())
        {
            Some(n) => v = (n + rng.below(5) as i128 - 2).to_string().into_bytes(),
            None => v.push(b'1'),
        },
        7 => {
            let i = if v.is_empty() { 0 } else { rng.below(v.len()) };
            v.insert(i, *rng.pick(b":{}*?[]\\, \t"));
        }
        8 => v = format!("{}.0", String::from_utf8_lossy(&v)).into_bytes(),
        _ => v = [v.as_slice(), b"-", v.as_slice()].concat(),
    }
    v
}

/// A JSON size or shape attack on a valid settings document.
fn json_attack(rng: &mut Rng, doc: &[u8]) -> Vec<u8> {
    let valid: Json = serde_json::from_slice(doc).unwrap_or_else(|_| json!({}));
    match rng.below(14) {
        0 => {
            let depth = *rng.pick(&[100, 999, 1001, 100_000]);
            let (open, close) = *rng.pick(&[("[", "]"), ("{\"a\":", "}")]);
            let body = if open == "[" { "" } else { "1" };
            let inner = format!("{}{body}{}", open.repeat(depth), close.repeat(depth));
            match rng.below(3) {
                0 => inner.into_bytes(),
                1 => nest(&["boards", "B", "options", "x", "data", "n"], inner).into_bytes(),
                _ => nest(&["limits"], inner).into_bytes(),
            }
        }
        1 => {
            // a huge list in each list field
            let n = *rng.pick(&[5, 6, 32, 33, 1000, 1001, 10000, 10001, 100_000]);
            let item = rng.pick(&["\"x\"", "\"total\"", "1", "{}", "null", "\"u\""]);
            let list = format!("[{}]", vec![*item; n].join(","));
            let doc = match rng.below(6) {
                0 => nest(&["limits"], list),
                1 => nest(&["deny", "users"], list),
                2 => nest(&["deny", "channels"], list),
                3 => nest(&["boards", "B", "periods"], list),
                4 => nest(&["boards", "B", "remove"], list),
                _ => list,
            };
            doc.into_bytes()
        }
        2 => {
            // distinct valid entries, just at and above the maxima
            let n = *rng.pick(&[32, 33, 64, 65, 100, 101, 1000, 1001, 10000, 10001]);
            let names = |p: &str| (0..n).map(|i| format!("\"{p}{i}\"")).collect::<Vec<_>>();
            let object = |items: Vec<String>| format!("{{{}}}", items.join(","));
            let doc = match rng.below(6) {
                0 => nest(&["deny", "users"], format!("[{}]", names("u").join(","))),
                1 => {
                    let rule = r#"{"name":"rN","by":["user"],"window":"day","limit":5}"#;
                    let rules: Vec<String> = (0..n)
                        .map(|i| rule.replace("rN", &format!("r{i}")))
                        .collect();
                    nest(&["limits"], format!("[{}]", rules.join(",")))
                }
                2 => nest(
                    &["boards"],
                    object(names("b").iter().map(|b| format!("{b}:{{}}")).collect()),
                ),
                3 => nest(
                    &["boards", "B", "options"],
                    object(names("o").iter().map(|o| format!("{o}:{{}}")).collect()),
                ),
                4 => nest(
                    &["boards", "B", "options", "x", "data"],
                    object(names("f").iter().map(|f| format!("{f}:\"v\"")).collect()),
                ),
                _ => {
                    let extra = object(names("c").iter().map(|c| format!("{c}:1")).collect());
                    let rule =
                        r#"{"name":"r","by":["user"],"window":"day","limit":5,"extra":EXTRA}"#;
                    nest(&["limits"], format!("[{}]", rule.replace("EXTRA", &extra)))
                }
            };
            doc.into_bytes()
        }
        3..=7 => {
            // a wrong type (or a raw token JSON has no value for) in one field
            let mut doc = valid;
            let mut paths = Vec::new();
            collect_paths(&doc, &mut Vec::new(), &mut paths);
            let raw = rng.pick(&[
                "null",
                "true",
                "false",
                "0",
                "-1",
                "1.5",
                "1e309",
                "-1e309",
                "nan",
                "inf",
                "-inf",
                "0x10",
                "-0",
                "01",
                "1e2",
                "9007199254740993",
                "\"\"",
                "\"x\"",
                "\"1\"",
                "\" 5\"",
                "[]",
                "{}",
                "[1]",
                "{\"a\":1}",
                "[[]]",
                "\"+08:00\"",
                "\"total\"",
                "\"\\u0000\"",
                "1e-7",
            ]);
            if let Some(path) = (!paths.is_empty()).then(|| rng.pick(&paths).clone()) {
                set_path(&mut doc, &path, Json::String("\u{1}RAW\u{1}".into()));
            } else {
                doc = json!({ "offset": "\u{1}RAW\u{1}" });
            }
            doc.to_string()
                .replace("\"\\u0001RAW\\u0001\"", raw)
                .into_bytes()
        }
        8 => {
            // an unknown member in one object
            let mut doc = valid;
            let mut paths = vec![vec![]];
            collect_paths(&doc, &mut Vec::new(), &mut paths);
            let path = rng.pick(&paths).clone();
            if let Some(Json::Object(map)) = get_path(&mut doc, &path) {
                map.insert(
                    rng.pick(&["unknown", "", "weight", "1", "__proto__"])
                        .to_string(),
                    json!(1),
                );
            }
            doc.to_string().into_bytes()
        }
        9 => {
            // duplicate keys: the first member repeated with another value
            let text = valid.to_string();
            let dup = rng.pick(&[
                "\"start\":\"x\",",
                "\"boards\":{},",
                "\"offset\":\"+99:00\",",
                "\"limits\":7,",
                "\"deny\":{\"users\":[\"\"]},",
            ]);
            let at = if rng.chance(50) {
                1
            } else {
                text.len().saturating_sub(1)
            };
            let mut text = text.into_bytes();
            if at == 1 {
                text.splice(1..1, dup.bytes()).for_each(drop);
            } else {
                let dup = format!(",{}", dup.trim_end_matches(','));
                text.splice(at..at, dup.bytes()).for_each(drop);
            }
            text
        }
        10 => {
            // the 4 MiB document limit: padded to it, or one byte beyond
            let mut text = valid.to_string().into_bytes();
            let size = 4_194_304 + rng.below(2);
            text.resize(size.max(text.len()), b' ');
            text
        }
        11 => {
            let mut text = valid.to_string().into_bytes();
            match rng.below(4) {
                0 => text.truncate(rng.below(text.len().max(1))),
                1 => text.extend_from_slice(rng.pick(&["}", "x", ",", "\0", "{}"]).as_bytes()),
                2 => text
                    .splice(0..0, rng.pick(&["\u{feff}", " ", "\n", "x"]).bytes())
                    .for_each(drop),
                _ => text = text.repeat(2),
            }
            text
        }
        12 => rng
            .pick(&[
                "{}",
                "[]",
                "null",
                "1",
                "\"s\"",
                "",
                "{",
                "{\"a\"}",
                "{\"boards\":[]}",
                "{\"limits\":{}}",
                "{\"boards\":{\"B\":[]}}",
            ])
            .as_bytes()
            .to_vec(),
        _ => mutate(rng, doc),
    }
}

/// `inner` as the value of the member at `keys` (nested objects).
fn nest(keys: &[&str], inner: String) -> String {
    keys.iter()
        .rev()
        .fold(inner, |acc, k| format!("{{\"{k}\":{acc}}}"))
}

/// The path of every member and element of a JSON document.
fn collect_paths(v: &Json, at: &mut Vec<Json>, out: &mut Vec<Vec<Json>>) {
    match v {
        Json::Object(map) => {
            for (k, child) in map {
                at.push(Json::String(k.clone()));
                out.push(at.clone());
                collect_paths(child, at, out);
                at.pop();
            }
        }
        Json::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                at.push(json!(i));
                out.push(at.clone());
                collect_paths(child, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn get_path<'a>(v: &'a mut Json, path: &[Json]) -> Option<&'a mut Json> {
    path.iter().try_fold(v, |v, step| match step {
        Json::String(k) => v.get_mut(k.as_str()),
        _ => v.get_mut(step.as_u64()? as usize),
    })
}

fn set_path(v: &mut Json, path: &[Json], value: Json) {
    if let Some(slot) = get_path(v, path) {
        *slot = value;
    }
}

// ---------------------------------------------------------------------------
// The fixtures: a seeded site or campaign, its templates, alternate roots.

/// One call: KEYS and ARGV as bytes.
#[derive(Clone)]
struct Call {
    keys: Vec<Vec<u8>>,
    args: Vec<Vec<u8>>,
}

impl<T: redvote::reply::Reply> From<redvote::Call<T>> for Call {
    fn from(call: redvote::Call<T>) -> Self {
        Call {
            keys: vec![call.key().as_bytes().to_vec()],
            args: call.args().iter().map(|a| a.as_bytes().to_vec()).collect(),
        }
    }
}

/// A page's script call (its second round trip is plain commands).
impl From<redvote::PageCall> for Call {
    fn from(page: redvote::PageCall) -> Self {
        page.ids().clone().into()
    }
}

/// The templates' clock: 2040-03-13 12:00 at +08:00, so that no board or
/// counter expires (by the server's clock) while digests are compared.
fn t0() -> u64 {
    utc((2040, 3, 13), (4, 0, 0))
}

/// The campaign every campaign fixture is configured with.
fn fixture_settings(t0: u64) -> CampaignSettings {
    let b = BoardSettings::new(&[
        Period::Hour,
        Period::Day,
        Period::Week,
        Period::Month,
        Period::Total,
    ])
    .with_ties(Ties::First)
    .with_carry("0.1")
    .with_decimals(2)
    .with_retention(Period::Hour, HOUR)
    .with_retention(Period::Day, DAY)
    .with_option(
        "x",
        OptionSettings::weighted(2).with_data(&[("name", "Ex"), ("pic", "https://e.x/1.png")]),
    )
    .with_option("y", OptionSettings::weighted(1))
    .with_option("z", OptionSettings::weighted(3));
    let c = BoardSettings::new(&[Period::Total])
        .with_ties(Ties::Dense)
        .with_decimals(0)
        .with_options(&["x", "y"]);
    let d = BoardSettings::new(&[Period::Day, Period::Total])
        .with_ties(Ties::Name)
        .with_decimals(6)
        .with_carry("1")
        .with_option("x", OptionSettings::weighted(1_000_000))
        .with_option("y", OptionSettings::weighted(1));
    let e = BoardSettings::new(&[Period::Week, Period::Month])
        .with_ties(Ties::Competition)
        .with_carry("0.5")
        .with_options(&["a", "b"]);
    CampaignSettings::new()
        .with_offset("+08:00")
        .with_dates(t0 - DAY, t0 + 30 * DAY)
        .with_limits(vec![
            LimitRule::fixed("day", &[Dimension::User], Window::Day, 1000).with_extra("partner", 5),
            LimitRule::rolling(
                "smooth",
                &[Dimension::User, Dimension::Option],
                Rolling::new(1000, 60).with_burst(1000),
            ),
            LimitRule::fixed(
                "tight",
                &[Dimension::User, Dimension::Channel],
                Window::Hour,
                20,
            ),
            LimitRule::fixed(
                "once",
                &[Dimension::User, Dimension::Device],
                Window::Campaign,
                500,
            ),
            LimitRule::fixed("sec", &[Dimension::Device], Window::Second, 100),
        ])
        .with_deny(DenyLists::users(&["mallory"]).with_channels(&["spam"]))
        .with_vote_log(100)
        .with_board("B", b)
        .with_board("C", c)
        .with_board("D", d)
        .with_board("E", e)
}

/// Configure campaign `c` and give it votes and imported votes; when
/// `buffered`, in mode buffered, its votes left in the buffer.
fn seed_campaign(con: &mut Connection, c: &Campaign, t0: u64, buffered: bool) {
    c.configure(&fixture_settings(t0)).run(con).unwrap();
    if buffered {
        let mode = CampaignSettings {
            fold_ms: Some(60000),
            ..CampaignSettings::new().with_mode(redvote::Mode::Buffered)
        };
        c.configure(&mode).run(con).unwrap();
    }
    let c = c.at(t0);
    c.vote("alice", &[("B", "x"), ("C", "y")]).run(con).unwrap();
    let bob = Voter::new("bob").channel("partner").device("pc").cost(2);
    c.vote_by(&bob, &[("B", "y"), ("D", "x"), ("E", "a")])
        .run(con)
        .unwrap();
    c.vote("carol", &[("B", "x"), ("E", "b"), ("D", "y")])
        .run(con)
        .unwrap();
    // votes with ids, for campaign_void (and in the vote log, for
    // campaign_void_range)
    let dan = Voter::new("dan").channel("partner").device("pc").id("v1");
    c.vote_by(&dan, &[("B", "z"), ("D", "x"), ("E", "a")])
        .run(con)
        .unwrap();
    c.vote_by(&Voter::new("alice").id("v2"), &[("C", "x"), ("B", "y")])
        .run(con)
        .unwrap();
    c.import("B", &[("x", "10.5"), ("y", "3")])
        .run(con)
        .unwrap();
    c.import("C", &[("x", "7")]).run(con).unwrap();
    c.import("D", &[("y", "0.000001")]).run(con).unwrap();
    // Every configure call sets `updated` to the server's second: one that
    // then fails must change the digest even within the seed's second.
    redis::cmd("HSET")
        .arg(c.root_key())
        .arg("updated")
        .arg(0)
        .query::<()>(con)
        .unwrap();
}

/// Seed a site under `prefix`: 3 articles (the third too old to vote on),
/// votes both ways, two groups, a cached group page, hot and best on; at
/// data layout 1 when `layout_1` (asked for before the first post), else
/// at 2, where a new site starts (group boards, no cache).
fn seed_site(con: &mut Connection, prefix: &str, layout_1: bool) {
    let site = Site::new(prefix);
    if layout_1 {
        support::site_at_layout_1(con, prefix);
    }
    let now = support::server_time(con) as u64;
    site.configure(&ConfigUpdate {
        rankings: Some(vec![Ranking::Hot, Ranking::Best]),
        page_size: Some(10),
        ..Default::default()
    })
    .run(con)
    .unwrap();
    site.post("alice", "one", "https://example.com/1")
        .run(con)
        .unwrap();
    site.post("bob", "two", "https://example.com/2")
        .run(con)
        .unwrap();
    site.import("carol", "old", "https://example.com/3", now - 8 * DAY)
        .run(con)
        .unwrap();
    site.vote("dave", "1").run(con).unwrap();
    site.downvote("erin", "1").run(con).unwrap();
    site.downvote("frank", "2").run(con).unwrap();
    site.groups("1", &["g1", "g2"], &[]).run(con).unwrap();
    site.groups("2", &["g1"], &[]).run(con).unwrap();
    site.group_page("g1", Order::Score, 1, None)
        .run(con)
        .unwrap();
}

/// Under a namespace of its own, a seeded site or campaign with one key
/// replaced by a value of the wrong type (a string: "x"): (key suffix,
/// whether the seed made it, the wrong type).
#[rustfmt::skip]
const SITE_POISON: &[(&str, bool, &str)] = &[
    ("article:", true, "hash"), ("article:1", true, "string"), ("article:2", true, "set"),
    ("score:", true, "string"), ("time:", true, "string"), ("voted:1", true, "string"),
    ("downvoted:1", true, "string"), ("downvoted:2", true, "string"), ("hot:", true, "string"),
    ("best:", true, "string"), ("group:g1", true, "string"), ("group:g2", true, "zset"),
    ("score:g1", true, "string"), ("time:g1", false, "string"), ("hot:g2", false, "set"),
    ("redvote:config", true, "string"), ("article:", true, "string"), ("article:1", true, "votes"),
    ("article:2", true, "downvotes"),
];

#[rustfmt::skip]
const CAMPAIGN_POISON: &[(&str, bool, &str)] = &[
    ("campaign", true, "set"), ("boards", true, "string"), ("board:B", true, "string"),
    ("board:C", true, "set"), ("weights:B", true, "string"), ("weights:D", true, "set"),
    ("option:B:x", true, "string"), ("b:B:real:total", true, "string"),
    ("b:B:shown:total", true, "string"), ("b:B:real:day:2040-03-13", true, "string"),
    ("b:B:shown:day:2040-03-13", true, "hash"), ("b:B:shown:day:2040-03-14", true, "string"),
    ("b:B:shown:month:2040-04", true, "string"), ("b:B:real:hour:2040-03-13T11", false, "string"),
    ("b:B:shown:day:2040-03-12", false, "set"), ("b:C:real:total", true, "string"),
    ("b:D:shown:day:2040-03-14", true, "string"), ("b:E:shown:week:2040-W11", true, "string"),
    ("f:B:real:total", true, "string"), ("f:B:shown:day:2040-03-13", true, "string"),
    ("f:B:shown:hour:2040-03-13T13", true, "set"), ("periods:B", true, "string"),
    ("periods:D", true, "set"), ("initial:B", true, "string"), ("initial:C", true, "set"),
    ("hll", true, "set"), ("hll:B:x", true, "set"), ("hll:E:b", true, "string"),
    ("seq", true, "hash"), ("seq", true, "string"), ("deny:users", true, "string"),
    ("deny:channels", true, "hash"), ("b:C:shown:total", true, "string"),
    ("log", true, "hash"), ("vid:v1", true, "set"), ("vid:v2", true, "string"),
    ("st:B:hour:2040-03-13T12", true, "string"), ("st:B:day:2040-03-13", true, "votes"),
    ("sp:hour:2040-03-13T12", true, "string"), ("sp:day:2040-03-13", true, "hash"),
    ("sn:day:2040-03-13", true, "hash"),
];

/// Replace `key` by a value of type `kind`, or (kind `votes` or
/// `downvotes`) that field of the hash by a value that is not a count.
fn plant(con: &mut Connection, key: &str, kind: &str) {
    if kind.ends_with("votes") {
        let cmd = redis::cmd("HSET").arg(key).arg(kind).arg("x").clone();
        return cmd.query::<()>(con).unwrap();
    }
    support::del(con, key);
    let cmd = match kind {
        "string" => redis::cmd("SET").arg(key).arg("x").clone(),
        "hash" => redis::cmd("HSET").arg(key).arg("f").arg("v").clone(),
        "set" => redis::cmd("SADD").arg(key).arg("x").clone(),
        _ => redis::cmd("ZADD").arg(key).arg(1).arg("x").clone(),
    };
    cmd.query::<()>(con).unwrap();
}

/// Which half of the project a script belongs to.
#[derive(Clone, Copy, PartialEq)]
enum Family {
    Site,
    Campaign,
    /// The campaign registry (`<family>campaigns`).
    Registry,
}

/// The data set of one test: the templates of its script, the roots
/// KEYS[1] is replaced with, and how to seed the data set anew.
struct Fixture {
    family: Family,
    templates: Vec<Call>,
    /// Valid roots: the seeded one, an empty one, another prefix.
    good_roots: Vec<Vec<u8>>,
    /// Roots that are not a root of this family.
    bad_roots: Vec<Vec<u8>>,
    /// The keys planted with the wrong type, each in a namespace of its own.
    poisons: &'static [(&'static str, bool, &'static str)],
}

fn site_fixture(script: &str) -> Fixture {
    let site = Site::default();
    let now = 2_000_000_000;
    let calls: Vec<Call> = match script {
        "post" => vec![
            site.post("user:9", "A title", "https://example.com/x")
                .into(),
            site.post("é", "日本語 title ✓", "https://例え.jp/パス?q=1")
                .into(),
            site.import("user:8", "Imported", "https://example.com/i", now)
                .into(),
            site.import("user:7", "Old", "https://example.com/o", 1)
                .into(),
        ],
        "vote" => vec![
            site.vote("user:5", "1").into(),
            site.downvote("user:5", "article:2").into(),
            site.unvote("dave", "1").into(),
            site.set_vote("erin", "1", Vote::Up).into(),
            site.downvote("alice", "1").into(),
            site.vote("alice", "3").into(),
        ],
        "article" => vec![
            site.article("1", None).into(),
            site.article("article:2", Some("erin")).into(),
            site.article("3", Some("nobody")).into(),
        ],
        "page" => vec![
            site.page(Order::Score, 1, None).into(),
            site.page(Order::Time, 1, Some(2)).into(),
            site.page(Order::Hot, 2, Some(1)).into(),
            site.page(Order::Best, 1, Some(100)).into(),
        ],
        "group_page" => vec![
            site.group_page("g1", Order::Score, 1, None).into(),
            site.group_page("g2", Order::Hot, 1, Some(5)).into(),
            site.group_page("g1", Order::Time, 2, Some(1)).into(),
            site.group_page("g3", Order::Best, 1, None).into(),
        ],
        "groups" => vec![
            site.groups("1", &["g3"], &["g2"]).into(),
            site.groups("article:2", &[], &["g1"]).into(),
            site.groups("3", &["g1", "g2"], &[]).into(),
            site.groups("2", &["g2"], &[]).into(),
        ],
        "rerank" => vec![
            site.rerank(0, 10).into(),
            site.rerank(1, 1).into(),
            site.rerank(0, 1000).into(),
        ],
        "upgrade" => vec![
            site.upgrade("0", 100).into(),
            site.upgrade("0", 1).into(),
            site.upgrade("s,0", 10).into(),
            site.upgrade("g,0,g1", 5).into(),
        ],
        // A script without arguments: the second template sends the
        // writer's (what a caller mixing the two up would send), so the
        // mutations have arguments to work on; every call with arguments
        // must be refused (USAGE) and write nothing.
        "config" => vec![
            site.config().into(),
            site.configure(&ConfigUpdate {
                page_size: Some(20),
                ..Default::default()
            })
            .into(),
        ],
        "configure" => vec![
            site.config().into(),
            site.configure(&ConfigUpdate {
                page_size: Some(20),
                ..Default::default()
            })
            .into(),
            site.configure(&ConfigUpdate {
                rankings: Some(vec![Ranking::Hot]),
                window: Some(604800),
                ..Default::default()
            })
            .into(),
            site.configure(&ConfigUpdate {
                vote_score: Some(432),
                rankings: Some(vec![]),
                ..Default::default()
            })
            .into(),
        ],
        other => panic!("no site templates for {other}"),
    };
    Fixture {
        family: Family::Site,
        templates: calls,
        good_roots: vec![
            b"article:".to_vec(),
            b"{fz:empty}:article:".to_vec(),
            b"{fz:site2}:article:".to_vec(),
        ],
        bad_roots: bad_roots(b"article:", "{c:fz}:campaign"),
        poisons: SITE_POISON,
    }
}

fn campaign_fixture(script: &str) -> Fixture {
    let t0 = t0();
    let c = Campaign::new("fz").at(t0);
    let later = Campaign::new("fz").at(t0 + 1799);
    let clock = Campaign::new("fz");
    let day = View::shown("day");
    let calls: Vec<Call> = match script {
        "campaign_configure" => {
            let full = fixture_settings(t0);
            let more = CampaignSettings::new().with_board(
                "B",
                BoardSettings::default()
                    .with_option("w", OptionSettings::weighted(5).with_data(&[("n", "W")]))
                    .with_decimals(3),
            );
            let removal =
                CampaignSettings::new().with_board("B", BoardSettings::default().with_removed("z"));
            let limits = CampaignSettings::new().with_limits(vec![LimitRule::fixed(
                "hour",
                &[Dimension::User, Dimension::Channel],
                Window::Hour,
                10,
            )]);
            let deny = CampaignSettings::new().with_deny(DenyLists::users(&["eve", "mallory"]));
            let new_board = CampaignSettings::new().with_board(
                "F",
                BoardSettings::new(&[Period::Day])
                    .with_options(&["p", "q"])
                    .with_retention(Period::Day, 0),
            );
            vec![
                c.configure(&full).into(),
                c.configure(&CampaignSettings::new()).into(),
                c.configure(&more).into(),
                c.configure(&removal).into(),
                c.configure(&limits).into(),
                c.configure(&deny).into(),
                c.configure(&new_board).into(),
            ]
        }
        "campaign_vote" => {
            let partner = Voter::new("dave")
                .channel("partner")
                .device("mobile")
                .cost(3);
            let tight = Voter::new("erin").channel("tight");
            vec![
                c.vote("alice", &[("B", "x")]).into(),
                c.vote("dave", &[("B", "y"), ("C", "x"), ("D", "y")]).into(),
                c.vote_by(&partner, &[("E", "a"), ("B", "z")]).into(),
                c.vote_by(&tight, &[("C", "y")]).into(),
                later.vote("frank", &[("D", "x"), ("D", "x")]).into(),
                c.vote("mallory", &[("B", "x")]).into(),
                Campaign::new("fz2")
                    .at(t0)
                    .vote_by(&partner, &[("E", "a"), ("B", "z")])
                    .into(),
                clock.vote("gina", &[("B", "x")]).into(),
            ]
        }
        "campaign_upgrade" => vec![c.upgrade("0", 1).into(), c.upgrade("0", 5000).into()],
        "campaign_fold" => vec![
            c.fold(1).into(),
            Campaign::new("fz2").fold(1).into(),
            Campaign::new("fz2").fold(1000).into(),
        ],
        "campaign_reindex" => vec![
            c.reindex("B", "0", 3).into(),
            c.reindex("C", "0", 5000).into(),
            c.reindex("D", "0", 1).into(),
            c.reindex("B", "0|shown:total|0", 2).into(),
        ],
        "campaign_remove" => vec![
            c.remove_step("B", "0", 3).into(),
            c.remove_step("C", "0", 10000).into(),
            c.remove_step("D", "0", 1).into(),
            c.remove_step("B", "1|shown:total|1", 2).into(),
        ],
        "campaign_import" => vec![
            c.import("B", &[("x", "12.25"), ("z", "0")]).into(),
            c.import("C", &[("y", "5")]).into(),
            later.import("D", &[("x", "0.000001"), ("y", "2")]).into(),
            c.import("E", &[("a", "1.5"), ("b", "0")]).into(),
        ],
        "campaign_top" => vec![
            c.top(&["B", "D"], &day, Paging::new(1, 10)).into(),
            c.top(&["C"], &View::real("total"), Paging::top(100)).into(),
            c.top(&["B"], &View::shown("day:2040-03-13"), Paging::new(1, 2))
                .into(),
            later
                .top(&["E"], &View::shown("month"), Paging::top(5))
                .into(),
            c.top(
                &["B", "C"],
                &View::new(Kind::Shown, "hour"),
                Paging::new(2, 1),
            )
            .into(),
        ],
        "campaign_standing" => vec![
            c.standing("B", &day, &["x", "y", "nobody"]).into(),
            c.standing("C", &View::real("total"), &["x"]).into(),
            c.standing("D", &View::shown("day:2040-03-13"), &["x", "y"])
                .into(),
            later.standing("E", &View::shown("week"), &["a"]).into(),
            c.standing("B", &View::real("hour"), &["x"]).into(),
        ],
        "campaign_around" => vec![
            c.around("B", &day, "x", Neighbourhood::new(5, 10)).into(),
            c.around("C", &View::real("total"), "y", Neighbourhood::new(1, 1))
                .into(),
            c.around(
                "D",
                &View::shown("total"),
                "x",
                Neighbourhood::new(101, 100),
            )
            .into(),
            later
                .around("E", &View::shown("month"), "b", Neighbourhood::new(3, 2))
                .into(),
        ],
        "campaign_limits" => {
            let bob = Voter::new("bob").channel("partner").device("pc");
            let tight = Voter::new("erin").channel("tight").device("pc");
            vec![
                c.limits(&Voter::new("alice"), &[("B", "x")]).into(),
                c.limits(&bob, &[]).into(),
                later.limits(&tight, &[("B", "x"), ("C", "y")]).into(),
                clock.limits(&Voter::new("carol"), &[]).into(),
            ]
        }
        "campaign_limits_reset" => {
            let bob = Voter::new("bob").channel("partner").device("pc");
            vec![
                c.reset_limits(&Voter::new("alice"), &[]).into(),
                c.reset_limits(&bob, &[("D", "x")]).into(),
                later
                    .reset_limits(&Voter::new("carol"), &[("B", "x")])
                    .into(),
            ]
        }
        // No arguments: as for config, the second template sends the
        // writer's (a settings document), for the mutations to work on.
        "campaign_settings" => vec![
            c.settings().into(),
            c.configure(&CampaignSettings::new().with_offset("+01:00"))
                .into(),
        ],
        "campaign_participants" => vec![
            c.participants("B", &["x", "y"]).into(),
            c.participants("C", &[]).into(),
            c.participants("D", &["x"]).into(),
            c.participants("E", &["a", "b"]).into(),
        ],
        "campaign_stats" => vec![
            c.stats("B", Granularity::Hour, t0 - HOUR, t0 + HOUR).into(),
            c.stats("C", Granularity::Day, t0 - DAY, t0 + DAY).into(),
            c.stats("E", Granularity::Hour, t0, t0 + 336 * HOUR).into(),
            c.stats("D", Granularity::Day, 0, 1).into(),
        ],
        "campaign_void" => vec![
            c.void("v1").into(),
            c.void("v2").into(),
            c.void("nope").into(),
        ],
        "campaign_void_range" => vec![
            c.void_range(VoidBy::User, "alice", 0, 4_102_444_800, "0", 10)
                .into(),
            c.void_range(VoidBy::Channel, "partner", 0, 4_102_444_800, "0", 2)
                .into(),
            c.void_range(VoidBy::User, "dan", 1, 4_102_444_800, "1-0", 1)
                .into(),
        ],
        other => panic!("no campaign templates for {other}"),
    };
    Fixture {
        family: Family::Campaign,
        templates: calls,
        good_roots: vec![
            b"{c:fz}:campaign".to_vec(),
            b"{c:empty}:campaign".to_vec(),
            b"{c:fz2}:campaign".to_vec(),
        ],
        bad_roots: bad_roots(b"{c:fz}:campaign", "article:"),
        poisons: CAMPAIGN_POISON,
    }
}

/// The campaign registry's scripts: templates on `{c}:campaigns`, seeded
/// with a few names.
fn registry_fixture(script: &str) -> Fixture {
    let r = CampaignRegistry::new();
    let calls: Vec<Call> = match script {
        "campaign_register" => vec![
            r.register(&["fz"]).into(),
            r.register(&["new1", "new2", "fz"]).into(),
            Campaign::new("spring").register().unwrap().into(),
        ],
        "campaign_registry" => vec![
            r.page(0, 10).into(),
            r.page(1, 1).into(),
            r.page(0, 1000).into(),
            r.page(2, 2).into(),
        ],
        other => panic!("no registry templates for {other}"),
    };
    Fixture {
        family: Family::Registry,
        templates: calls,
        good_roots: vec![
            b"{c}:campaigns".to_vec(),
            b"{fz:empty}:campaigns".to_vec(),
            b"campaigns".to_vec(),
        ],
        bad_roots: bad_roots(b"{c}:campaigns", "{c:fz}:campaign"),
        poisons: REGISTRY_POISON,
    }
}

/// Registries of the wrong type (the seed registers names first when
/// `made`).
#[rustfmt::skip]
const REGISTRY_POISON: &[(&str, bool, &str)] = &[
    ("campaigns", true, "string"), ("campaigns", true, "hash"), ("campaigns", false, "set"),
    ("campaigns", false, "string"),
];

/// Roots that a script of this family must refuse (or, for a valid suffix
/// under a strange prefix, may take): wrong suffixes, the other family's
/// root, key-like and control strings, a 1 MiB prefix.
fn bad_roots(root: &[u8], other: &str) -> Vec<Vec<u8>> {
    let suffix: &[u8] = if root.ends_with(b"campaigns") {
        b"campaigns"
    } else if root.ends_with(b"campaign") {
        b"campaign"
    } else {
        b"article:"
    };
    let mut roots: Vec<Vec<u8>> = [
        "",
        " ",
        other,
        "1:x",
        "{a}",
        "a*",
        "article:7",
        "\r\n",
        "*",
        "article",
        "Article:",
        "articles:",
        "campaign:",
        "Campaign",
        "campaigns",
        "{c:fz}:board:B",
        "\0",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    roots.push([root, b" "].concat());
    roots.push([root, b"\0"].concat());
    roots.push([b" ", root].concat());
    roots.push([b"\0", root].concat());
    roots.push([b"\xff", suffix].concat());
    roots.push([b"a*", suffix].concat());
    roots.push([b"{a}:1:x:", suffix].concat());
    roots.push(["🗳️".as_bytes(), suffix].concat());
    roots.push(suffix.to_vec());
    roots.push([b"x".repeat(1 << 20).as_slice(), suffix].concat());
    roots
}

/// Flush the data set and seed it anew: the family's seeded root, a second
/// one, and the poisoned namespaces of `epoch` (a window of
/// [`POISONED_AT_ONCE`] that moves on each epoch, so the digests stay
/// cheap); returns their roots.
fn reseed(con: &mut Connection, fixture: &Fixture, epoch: u64) -> Vec<Vec<u8>> {
    redis::cmd("FLUSHALL").query::<()>(con).unwrap();
    let poisons = fixture.poisons;
    let first = epoch as usize * POISONED_AT_ONCE;
    let window: Vec<usize> = (first..first + POISONED_AT_ONCE.min(poisons.len()))
        .map(|i| i % poisons.len())
        .collect();
    let mut roots = Vec::new();
    match fixture.family {
        Family::Site => {
            seed_site(con, "", true);
            seed_site(con, "{fz:site2}:", false);
            for i in window {
                let (suffix, made, kind) = SITE_POISON[i];
                let prefix = format!("{{fz:p{i}}}:");
                seed_site(con, &prefix, true);
                let key = format!("{prefix}{suffix}");
                assert_eq!(support::exists(con, &key), made, "site seed made {key}");
                plant(con, &key, kind);
                roots.push(format!("{prefix}article:").into_bytes());
            }
        }
        Family::Registry => {
            let names = ["fz", "fz2", "a", "b"];
            CampaignRegistry::new().register(&names).run(con).unwrap();
            for i in window {
                let (suffix, made, kind) = REGISTRY_POISON[i];
                let key = format!("{{fz:p{i}}}:{suffix}");
                if made {
                    CampaignRegistry::with_key(key.as_str())
                        .register(&names)
                        .run(con)
                        .unwrap();
                }
                assert_eq!(support::exists(con, &key), made, "registry seed made {key}");
                plant(con, &key, kind);
                roots.push(key.into_bytes());
            }
        }
        Family::Campaign => {
            let t0 = t0();
            seed_campaign(con, &Campaign::new("fz"), t0, false);
            seed_campaign(con, &Campaign::new("fz2"), t0, true);
            for i in window {
                let (suffix, made, kind) = CAMPAIGN_POISON[i];
                let c = Campaign::new(&format!("p{i}"));
                seed_campaign(con, &c, t0, false);
                let key = format!("{}{suffix}", c.namespace());
                assert_eq!(support::exists(con, &key), made, "campaign seed made {key}");
                plant(con, &key, kind);
                roots.push(c.root_key().as_bytes().to_vec());
            }
        }
    }
    roots
}

// ---------------------------------------------------------------------------
// Mutations, the checks of one call, the run.

/// One call mutated from a template; returns what the mutation was.
fn mutated(
    rng: &mut Rng,
    fixture: &Fixture,
    poisoned: &[Vec<u8>],
    script: &str,
    t0: u64,
) -> (Call, &'static str) {
    let mut call = rng.pick(&fixture.templates).clone();
    let json = script == "campaign_configure";
    let kind = match rng.below(100) {
        0..=11 => "valid",
        12..=21 => "swap",
        22..=43 => "replace one",
        44..=51 => "replace some",
        52..=56 => "drop",
        57..=61 => "append",
        62..=64 => "repeat",
        65..=71 => "root",
        72..=91 => "poisoned root",
        92..=94 => "no key",
        _ => "two keys",
    };
    let n = call.args.len();
    match kind {
        "swap" => {
            // a valid value of another template at the same position
            let other = rng.pick(&fixture.templates);
            if n > 0 && !other.args.is_empty() {
                let i = rng.below(n.min(other.args.len()));
                call.args[i] = other.args[i].clone();
            }
        }
        "replace one" if n > 0 => {
            let i = rng.below(n);
            call.args[i] = if json && i == 0 && rng.chance(70) {
                json_attack(rng, &call.args[i])
            } else {
                hostile(rng, &call.args[i], t0)
            };
        }
        "replace some" => {
            for i in 0..n {
                if rng.chance(40) {
                    call.args[i] = hostile(rng, &call.args[i], t0);
                }
            }
        }
        "drop" if n > 0 => {
            let k = 1 + rng.below(n.min(3));
            for _ in 0..k {
                let i = rng.below(call.args.len());
                call.args.remove(i);
            }
        }
        "append" => {
            for _ in 0..1 + rng.below(3) {
                let v = match call.args.last() {
                    Some(last) if rng.chance(50) => last.clone(),
                    Some(last) => hostile(rng, &last.clone(), t0),
                    None => hostile(rng, b"", t0),
                };
                call.args.push(v);
            }
        }
        "repeat" if n > 0 => {
            // the variadic tail repeated up to beyond its maximum
            let times = *rng.pick(&[2, 20, 51, 101, 501, 1001]);
            let tail = call.args[n - 1..].to_vec();
            let tail = if n >= 2 && rng.chance(50) {
                call.args[n - 2..].to_vec()
            } else {
                tail
            };
            for _ in 0..times {
                call.args.extend(tail.iter().cloned());
            }
        }
        "root" => {
            call.keys[0] = match rng.below(4) {
                0 => rng.pick(&fixture.good_roots).clone(),
                1 => mutate(rng, &call.keys[0]),
                _ => rng.pick(&fixture.bad_roots).clone(),
            };
        }
        "poisoned root" => {
            call.keys[0] = rng.pick(poisoned).clone();
            if n > 0 && rng.chance(10) {
                let i = rng.below(n);
                call.args[i] = hostile(rng, &call.args[i], t0);
            }
        }
        "no key" => call.keys.clear(),
        "two keys" => {
            let second = rng.pick(&fixture.good_roots).clone();
            call.keys.push(second);
        }
        _ => {}
    }
    (call, kind)
}

/// The codes a script documents (its header's "Errors:" list).
fn documented_errors(script: &str) -> Vec<String> {
    let source = redvote::scripts::get(script).unwrap().source();
    let header = &source[..source.find("]]").expect("a header")];
    let errors = &header[header.find("Errors:").expect("an Errors: list")..];
    let codes: Vec<String> = errors
        .split(|c: char| !(c.is_ascii_uppercase() || c == '_'))
        .filter(|w| w.starts_with("REDVOTE_"))
        .map(str::to_string)
        .collect();
    for code in &codes {
        assert!(
            Code::parse(code).is_some(),
            "{script} documents {code}, not in Code"
        );
    }
    assert!(!codes.is_empty(), "{script} documents no error");
    codes
}

/// The data set's digest, and Redis' counters of changes
/// (`rdb_changes_since_last_save`: persistence is off, so it only grows)
/// and of expired keys.
#[derive(Clone, PartialEq)]
struct Snapshot {
    digest: String,
    changes: u64,
    expired: u64,
}

/// A snapshot of the data set. `DEBUG DIGEST` is O(data set): when neither
/// counter moved since `last`, nothing was written and none expired (Redis
/// counts every change it makes, as it replicates by that count), so
/// `last`'s digest is still the digest.
fn snapshot(con: &mut Connection, last: Option<&Snapshot>) -> Snapshot {
    let info: Value = redis::cmd("INFO")
        .arg("persistence")
        .arg("stats")
        .query(con)
        .unwrap();
    let info = text(&info);
    let counter = |name: &str| -> u64 {
        info.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("INFO has no {name}"))
    };
    let (changes, expired) = (
        counter("rdb_changes_since_last_save"),
        counter("expired_keys"),
    );
    let digest = match last {
        Some(last) if (last.changes, last.expired) == (changes, expired) => last.digest.clone(),
        _ => support::digest(con),
    };
    Snapshot {
        digest,
        changes,
        expired,
    }
}

/// A status, bulk or verbatim string reply as text.
fn text(v: &Value) -> String {
    match v {
        Value::SimpleString(s) => s.clone(),
        Value::BulkString(b) => String::from_utf8_lossy(b).into_owned(),
        Value::VerbatimString { text, .. } => text.clone(),
        other => panic!("not a string reply: {other:?}"),
    }
}

/// A value as a failure shows it: escaped, long ones cut.
fn show(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(60)]);
    let mut s = format!("\"{}\"", text.escape_debug());
    if bytes.len() > 60 {
        s.push_str(&format!("...({} bytes)", bytes.len()));
    }
    s
}

fn show_call(script: &str, call: &Call) -> String {
    let keys: Vec<String> = call.keys.iter().map(|k| show(k)).collect();
    let args: Vec<String> = call.args.iter().map(|a| show(a)).collect();
    format!(
        "EVALSHA <{script}> {} [{}] [{}]",
        call.keys.len(),
        keys.join(", "),
        args.join(", ")
    )
}

/// What one test saw.
#[derive(Default)]
struct Tally {
    calls: u64,
    ok: u64,
    refused: BTreeMap<String, u64>,
    internal: u64,
    undocumented: u64,
    raw: u64,
    partial: u64,
    silent: u64,
    inconclusive: u64,
    failures: Vec<String>,
}

impl Tally {
    fn fail(&mut self, what: String) {
        if self.failures.len() < SHOW_FAILURES {
            self.failures.push(what);
        }
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be an integer, got {v:?}")),
        Err(_) => default,
    }
}

/// Fuzz `script` with its share of the calls.
fn fuzz(script: &str) {
    let started = Instant::now();
    let seed = env_u64("REDVOTE_FUZZ_SEED", DEFAULT_SEED);
    let total = env_u64("REDVOTE_FUZZ_CALLS", DEFAULT_CALLS);
    let weight = SCRIPTS.iter().find(|(s, _)| *s == script).unwrap().1;
    let weights: u64 = SCRIPTS.iter().map(|(_, w)| w).sum();
    let calls = (total * weight / weights).max(1);
    // Each script its own stream: the seed mixed with the script's name.
    let name_hash = script.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    });
    let mut rng = Rng::seeded(seed ^ name_hash);
    let allowed = documented_errors(script);
    let fixture = if script == "campaign_register" || script == "campaign_registry" {
        registry_fixture(script)
    } else if script.starts_with("campaign_") {
        campaign_fixture(script)
    } else {
        site_fixture(script)
    };
    let sha = redvote::scripts::get(script).unwrap().sha1().to_string();

    let server = support::server();
    let mut con = support::con(&server);
    redvote::scripts::load_all(&mut con).unwrap();
    // Epochs short enough that every poisoned namespace has its turn.
    let turns = fixture.poisons.len().div_ceil(POISONED_AT_ONCE) as u64;
    let epoch = (calls / turns).clamp(MIN_EPOCH, MAX_EPOCH);
    let mut poisoned = reseed(&mut con, &fixture, 0);
    // The snapshot after one call is the one before the next.
    let mut before = snapshot(&mut con, None);
    let t0 = t0();
    let mut tally = Tally::default();
    for n in 0..calls {
        if n > 0 && n % epoch == 0 {
            poisoned = reseed(&mut con, &fixture, n / epoch);
            before = snapshot(&mut con, None);
        }
        let (call, kind) = mutated(&mut rng, &fixture, &poisoned, script, t0);

        let mut cmd = redis::cmd("EVALSHA");
        cmd.arg(&sha).arg(call.keys.len());
        for k in &call.keys {
            cmd.arg(k.as_slice());
        }
        for a in &call.args {
            cmd.arg(a.as_slice());
        }
        let reply: redis::RedisResult<Value> = cmd.query(&mut con);
        tally.calls += 1;
        let err = match reply {
            Ok(_) => {
                tally.ok += 1;
                before = snapshot(&mut con, Some(&before));
                continue;
            }
            Err(err) => err,
        };
        let code = err.code().unwrap_or_default().to_string();
        let what = || {
            format!(
                "{} ({kind}) -> {}",
                show_call(script, &call),
                show(err.to_string().as_bytes())
            )
        };
        if err.code().is_none() {
            // not an error reply: redis-rs could not read the reply (an
            // error line that is not UTF-8), and the connection is lost
            tally.raw += 1;
            tally.fail(format!("unreadable reply: {}", what()));
            con = support::con(&server);
            before = snapshot(&mut con, None);
            continue;
        }
        if !code.starts_with("REDVOTE_") {
            tally.raw += 1;
            tally.fail(format!("not a REDVOTE_ error: {}", what()));
        } else if code == Code::Internal.as_str() {
            tally.internal += 1;
            tally.fail(format!("INTERNAL: {}", what()));
        } else if !allowed.contains(&code) {
            tally.undocumented += 1;
            tally.fail(format!("{code} is not in the header's Errors: {}", what()));
        }
        *tally
            .refused
            .entry(code.trim_start_matches("REDVOTE_").to_string())
            .or_default() += 1;
        let after = snapshot(&mut con, Some(&before));
        if after.digest != before.digest {
            if after.expired != before.expired {
                // a key expired meanwhile: the digest proves nothing
                tally.inconclusive += 1;
            } else {
                tally.partial += 1;
                tally.fail(format!("a refused call wrote: {}", what()));
            }
        } else if after.changes != before.changes {
            // written, then undone or rewritten as it was: not a failure
            tally.silent += 1;
        }
        before = after;
    }

    let refusals: Vec<String> = tally
        .refused
        .iter()
        .map(|(c, n)| format!("{c} {n}"))
        .collect();
    let refused: u64 = tally.refused.values().sum();
    println!(
        "fuzz {script}: seed {seed:#x}, {} calls, {} ok, {refused} refused ({}), INTERNAL {}, \
         undocumented {}, raw errors {}, partial writes {} ({} more wrote but changed nothing), \
         inconclusive {}, {:.1} s",
        tally.calls,
        tally.ok,
        refusals.join(", "),
        tally.internal,
        tally.undocumented,
        tally.raw,
        tally.partial,
        tally.silent,
        tally.inconclusive,
        started.elapsed().as_secs_f64()
    );
    assert!(
        tally.failures.is_empty(),
        "fuzz {script} (seed {seed:#x}): {} INTERNAL, {} undocumented, {} raw, {} partial writes; first ones:\n{}",
        tally.internal,
        tally.undocumented,
        tally.raw,
        tally.partial,
        tally.failures.join("\n")
    );
    assert!(
        tally.ok * 100 >= tally.calls * MIN_SUCCESS_PERCENT,
        "fuzz {script}: only {} of {} calls succeeded: the templates are broken",
        tally.ok,
        tally.calls
    );
    assert!(
        refused * 100 >= tally.calls * 30,
        "fuzz {script}: only {refused} of {} calls were refused: the mutations miss",
        tally.calls
    );
}
