//! Test only: every call the driver builds matches its script's documented
//! header (`KEYS[1]`, then `ARGV[i]  name ...` lines, `optional` marking the
//! optional ones, `ARGV[i..]` a variadic tail), for every script of both
//! halves. A script whose header and driver drift apart fails here.

use crate::reply::Reply;
use crate::{
    Call, Campaign, CampaignSettings, ConfigUpdate, Kind, Neighbourhood, Order, Paging, Ranking,
    Site, View, Voter,
};

/// A header's ARGV as `"name name? tail.."`: `?` marks an optional
/// argument (`optional` in its `<spec>`), `..` the variadic tail; and its
/// number of KEYS. The header is read by the manifest's parser
/// (`scripts::manifest::parse`), so what the manifest says of ARGV is what
/// this test checks against the driver's calls.
fn signature(source: &str) -> (usize, String) {
    let header = crate::scripts::manifest::parse(source).unwrap_or_else(|e| panic!("{e}"));
    let words: Vec<String> = header
        .args
        .iter()
        .map(|a| match (a.variadic, a.optional) {
            (true, _) => format!("{}..", a.name),
            (false, true) => format!("{}?", a.name),
            (false, false) => a.name.clone(),
        })
        .collect();
    (header.keys, words.join(" "))
}

/// `call` runs a script whose header reads `expected`, with an argument
/// count the header allows.
fn check<T: Reply>(call: Call<T>, expected: &str, seen: &mut Vec<&'static str>) {
    let script = call.script();
    let (keys, sig) = signature(script.source());
    assert_eq!(
        keys,
        1,
        "{}: the header documents KEYS[1] only",
        script.name()
    );
    assert_eq!(sig, expected, "{}: the header's ARGV", script.name());
    let words: Vec<&str> = sig.split(' ').filter(|w| !w.is_empty()).collect();
    let required = words.iter().filter(|w| !w.ends_with(['?', '.'])).count();
    let variadic = words.iter().any(|w| w.ends_with(".."));
    let n = call.args().len();
    assert!(n >= required, "{}: {n} args < {required}", script.name());
    assert!(
        variadic || n <= words.len(),
        "{}: {n} args > {}",
        script.name(),
        words.len()
    );
    assert!(!call.key().is_empty());
    seen.push(script.name());
}

#[test]
fn calls_match_the_script_headers() {
    let mut seen = Vec::new();
    let s = &mut seen;
    let site = Site::new("{t}:");
    check(site.post("u", "t", "l"), "user title link time?", s);
    check(site.import("u", "t", "l", 1), "user title link time?", s);
    check(site.vote("u", "1"), "user article vote?", s);
    check(site.unvote("u", "1"), "user article vote?", s);
    check(site.article("1", None), "article user?", s);
    check(site.article("1", Some("u")), "article user?", s);
    check(
        site.page(Order::Score, 1, None).ids().clone(),
        "order page per_page?",
        s,
    );
    check(
        site.page(Order::Time, 1, Some(5)).ids().clone(),
        "order page per_page?",
        s,
    );
    let group = site.group_page("g", Order::Hot, 2, Some(5)).ids().clone();
    check(group, "group order page per_page?", s);
    check(site.groups("1", &["a", "b"], &["c"]), "article tokens..", s);
    check(site.rerank(0, 10), "start count", s);
    check(site.upgrade("0", 100), "cursor count", s);
    check(site.config(), "", s);
    let update = ConfigUpdate {
        vote_score: Some(1),
        window: Some(60),
        page_size: Some(1),
        rankings: Some(vec![Ranking::Hot]),
    };
    check(site.configure(&update), "pairs..", s);

    let c = Campaign::new("t").at(5);
    let pairs = [("b", "o"), ("b", "p")];
    let voter = Voter::new("u").channel("c").device("d").cost(2).id("v");
    let view = View::new(Kind::Real, "day");
    check(c.configure(&CampaignSettings::new()), "settings", s);
    check(
        c.vote("u", &pairs),
        "user time channel device cost id pairs..",
        s,
    );
    check(
        c.vote_by(&voter, &pairs),
        "user time channel device cost id pairs..",
        s,
    );
    check(c.import("b", &[("o", "1")]), "board time pairs..", s);
    let top = c.top(&["b", "c"], &view, Paging::new(2, 10));
    check(top, "kind period page per_page time boards..", s);
    let standing = c.standing("b", &view, &["o"]);
    check(standing, "board kind period time members..", s);
    let around = c.around("b", &view, "o", Neighbourhood::new(5, 10));
    check(around, "board kind period time member window per_page", s);
    check(
        c.limits(&voter, &pairs),
        "user time channel device pairs..",
        s,
    );
    check(
        c.reset_limits(&voter, &[]),
        "user time channel device pairs..",
        s,
    );
    check(c.settings(), "", s);
    check(c.participants("b", &["o"]), "board options..", s);
    check(c.reindex("b", "0", 100), "board cursor count", s);
    check(c.remove_step("b", "0", 500), "board cursor count", s);
    check(c.upgrade("0", 100), "cursor count", s);
    check(c.fold(100), "max", s);
    let stats = c.stats("b", crate::Granularity::Day, 0, 86400);
    check(stats, "board granularity from to", s);
    check(c.void("v"), "id", s);
    let range = c.void_range(crate::VoidBy::User, "u", 0, 60, "0", 100);
    check(range, "by value from to cursor count", s);
    let registry = crate::CampaignRegistry::new();
    check(registry.register(&["a", "b"]), "names..", s);
    check(c.register().expect("a default namespace"), "names..", s);
    check(registry.page(0, 100), "cursor count", s);

    seen.sort();
    seen.dedup();
    let all: Vec<&str> = crate::scripts::all().iter().map(|s| s.name()).collect();
    assert_eq!(seen, all, "every script is called by the driver");
}

#[test]
fn calls_display_as_evalsha_command_lines() {
    let call = Site::default().vote("user:1", "7");
    let sha = crate::scripts::get("vote").unwrap().sha1();
    assert_eq!(
        call.to_string(),
        format!("EVALSHA {sha} 1 \"article:\" \"user:1\" \"7\" \"up\"")
    );
}
