//! The article site's bad-input catalogue: every refusal, through the driver,
//! the raw script (what `redis-cli --eval` sends) and the CLI, leaves the data
//! set exactly as it was (`DEBUG DIGEST` before and after each case) and names
//! the problem. Each table holds one case a line; the campaign's catalogue is
//! in `campaign::bad_input`.

use redis::Connection;
use redvote::{Code, ConfigUpdate, Error, Order, Site, Vote};

use crate::support::{self, discard, populated_site, unchanged, SiteCall};

/// `result` is a refusal with `code` whose detail contains `names`; `what`
/// names the case in every failure.
#[track_caller]
fn assert_refused<T: std::fmt::Debug>(
    what: &str,
    result: redvote::Result<T>,
    code: Code,
    names: &str,
) {
    match result {
        Err(Error::Script { code: got, detail }) => {
            assert_eq!(got, code, "{what}: detail: {detail}");
            assert!(
                detail.contains(names),
                "{what}: {code} detail {detail:?} should name {names:?}"
            );
        }
        other => panic!("{what}: expected {code}, got {other:?}"),
    }
}

const LONG_USER: usize = 257;
const LONG_TITLE: usize = 513;
const LONG_LINK: usize = 2049;
const LONG_GROUP: usize = 65;

fn long(n: usize) -> String {
    "x".repeat(n)
}

/// (what, code, what the detail must name, the call).
#[rustfmt::skip]
const DRIVER_CASES: &[(&str, Code, &str, SiteCall)] = &[
    // unknown article, closed window
    ("vote unknown", Code::UnknownArticle, "article 99 does not exist", |s, c| discard(s.vote("u", "99").run(c))),
    ("article unknown", Code::UnknownArticle, "article 99 does not exist", |s, c| discard(s.article("99", None).run(c))),
    ("groups unknown", Code::UnknownArticle, "article 99 does not exist", |s, c| discard(s.groups("99", &["g"], &[]).run(c))),
    ("vote closed", Code::VotingClosed, "voting on article 3 closed at", |s, c| discard(s.vote("u", "3").run(c))),
    ("unvote closed", Code::VotingClosed, "voting on article 3 closed at", |s, c| discard(s.unvote("user:3", "3").run(c))),
    // users
    ("post empty user", Code::InvalidUser, "user", |s, c| discard(s.post("", "t", "l").run(c))),
    ("vote empty user", Code::InvalidUser, "user", |s, c| discard(s.vote("", "1").run(c))),
    ("vote long user", Code::InvalidUser, "256", |s, c| discard(s.vote(&long(LONG_USER), "1").run(c))),
    ("vote control user", Code::InvalidUser, "control", |s, c| discard(s.vote("a\nb", "1").run(c))),
    ("article empty user", Code::InvalidUser, "user", |s, c| discard(s.article("1", Some("")).run(c))),
    // text
    ("empty title", Code::InvalidText, "title", |s, c| discard(s.post("u", "", "l").run(c))),
    ("long title", Code::InvalidText, "512", |s, c| discard(s.post("u", &long(LONG_TITLE), "l").run(c))),
    ("long link", Code::InvalidText, "2048", |s, c| discard(s.post("u", "t", &long(LONG_LINK)).run(c))),
    ("link with space", Code::InvalidText, "link", |s, c| discard(s.post("u", "t", "a b").run(c))),
    // groups
    ("long group", Code::InvalidGroup, "64", |s, c| discard(s.groups("1", &[&long(LONG_GROUP)], &[]).run(c))),
    ("add and remove", Code::InvalidGroup, "both", |s, c| discard(s.groups("1", &["g"], &["g"]).run(c))),
    ("101 groups", Code::Usage, "100", |s, c| {
        let many: Vec<String> = (0..101).map(|i| format!("g{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        discard(s.groups("1", &many, &[]).run(c))
    }),
    // numbers
    ("page 0", Code::InvalidNumber, "page", |s, c| discard(s.page(Order::Score, 0, None).run(c))),
    ("page huge", Code::InvalidNumber, "page", |s, c| discard(s.page(Order::Time, 1_000_001, None).run(c))),
    ("per page 0", Code::InvalidNumber, "per_page", |s, c| discard(s.page(Order::Score, 1, Some(0)).run(c))),
    ("per page 101", Code::InvalidNumber, "per_page", |s, c| discard(s.page(Order::Score, 1, Some(101)).run(c))),
    ("group page 0", Code::InvalidNumber, "page", |s, c| discard(s.group_page("redis", Order::Score, 0, None).run(c))),
    ("group per page 101", Code::InvalidNumber, "per_page", |s, c| discard(s.group_page("redis", Order::Score, 1, Some(101)).run(c))),
    // settings
    ("page_size 0", Code::InvalidConfig, "page_size", |s, c| {
        discard(s.configure(&ConfigUpdate { page_size: Some(0), ..Default::default() }).run(c))
    }),
    ("window 1", Code::InvalidConfig, "window", |s, c| {
        discard(s.configure(&ConfigUpdate { window: Some(1), ..Default::default() }).run(c))
    }),
    ("vote_score locked", Code::ConfigLocked, "vote_score", |s, c| {
        discard(s.configure(&ConfigUpdate { vote_score: Some(100), window: Some(3600), ..Default::default() }).run(c))
    }),
];

/// Key-like and malformed article ids: each is refused with INVALID_ID
/// naming "article" by every call in `ID_CALLS`.
const BAD_IDS: &[&str] = &[
    "1:x",
    "{a}",
    "a{b}",
    "",
    " 1",
    "01",
    "-1",
    "1.0",
    "article:",
    "article:1:x",
    "x",
    "1 2",
    "9999999999999999",
];

/// A driver call given one article id or group name.
type NamedCall = fn(&Site, &mut Connection, &str) -> redvote::Result<()>;

#[rustfmt::skip]
const ID_CALLS: &[(&str, NamedCall)] = &[
    ("vote id", |s, c, id| discard(s.vote("u", id).run(c))),
    ("groups id", |s, c, id| discard(s.groups(id, &["g"], &[]).run(c))),
    ("article id", |s, c, id| discard(s.article(id, None).run(c))),
];

/// Group names that could address other keys: each is refused with
/// INVALID_GROUP naming "group" by every call in `GROUP_CALLS`.
const BAD_GROUPS: &[&str] = &["a:b", "a{b}", "{a}", "a b", "", "a*", "a,b", "a\tb"];

#[rustfmt::skip]
const GROUP_CALLS: &[(&str, NamedCall)] = &[
    ("add group", |s, c, group| discard(s.groups("1", &["fine", group], &[]).run(c))),
    ("group page", |s, c, group| discard(s.group_page(group, Order::Score, 1, None).run(c))),
];

#[test]
fn driver_refusals_change_nothing() {
    let (_server, mut con, site) = populated_site();
    let before = support::digest(&mut con);
    for (what, code, names, call) in DRIVER_CASES {
        let result = unchanged(&mut con, what, |con| call(&site, con));
        assert_refused(what, result, *code, names);
    }
    for (bad, (code, names), calls) in [
        (BAD_IDS, (Code::InvalidId, "article"), ID_CALLS),
        (BAD_GROUPS, (Code::InvalidGroup, "group"), GROUP_CALLS),
    ] {
        for name in bad {
            for (call_name, call) in calls {
                let what = format!("{call_name} {name:?}");
                let result = unchanged(&mut con, &what, |con| call(&site, con, name));
                assert_refused(&what, result, code, names);
            }
        }
    }
    assert_eq!(
        support::digest(&mut con),
        before,
        "a refused call changed the data set"
    );
    // Nothing was voted by the refusals: a valid vote still works afterwards.
    assert!(
        site.set_vote("u", "1", Vote::Up)
            .run(&mut con)
            .unwrap()
            .changed
    );
}

/// What `redis-cli --eval` can send that the typed driver cannot: malformed
/// numbers, unknown words, wrong arity, a wrong key. (script, key, ARGV,
/// code, what the detail must name).
#[rustfmt::skip]
const RAW_CASES: &[(&str, &str, &[&str], Code, &str)] = &[
    ("page", "article:", &["score", "-1"], Code::InvalidNumber, "\"-1\""),
    ("page", "article:", &["score", "1.5"], Code::InvalidNumber, "1.5"),
    ("page", "article:", &["score", "1e3"], Code::InvalidNumber, "1e3"),
    ("page", "article:", &["score", "0x10"], Code::InvalidNumber, "0x10"),
    ("page", "article:", &["score", " 1"], Code::InvalidNumber, "page"),
    ("page", "article:", &["score", "1", "-5"], Code::InvalidNumber, "per_page"),
    ("page", "article:", &["score", "1", "abc"], Code::InvalidNumber, "abc"),
    ("page", "article:", &["votes", "1"], Code::InvalidOrder, "votes"),
    ("page", "article:", &["score"], Code::Usage, "page"),
    ("group_page", "article:", &["redis", "score", "nan"], Code::InvalidNumber, "nan"),
    ("post", "article:", &["u", "t", "https://x", "-5"], Code::InvalidNumber, "time"),
    ("post", "article:", &["u", "t", "https://x", "1.5"], Code::InvalidNumber, "time"),
    ("post", "article:", &["u", "t", "https://x", "inf"], Code::InvalidNumber, "time"),
    ("post", "article:", &["u", "t"], Code::Usage, "post"),
    ("post", "score:", &["u", "t", "l"], Code::Usage, "article:"),
    ("vote", "article:", &["u", "1", "sideways"], Code::InvalidVote, "sideways"),
    ("vote", "article:", &["u", "1", "UP"], Code::InvalidVote, "UP"),
    ("groups", "article:", &["1", "redis"], Code::InvalidGroup, "+NAME"),
    ("groups", "article:", &["1"], Code::Usage, "groups"),
    ("configure", "article:", &["colour", "red"], Code::InvalidConfig, "colour"),
    ("configure", "article:", &["page_size", "-1"], Code::InvalidConfig, "page_size"),
    ("configure", "article:", &["page_size", "1e1"], Code::InvalidConfig, "page_size"),
    ("configure", "article:", &["rankings", "hot,cold"], Code::InvalidConfig, "rankings"),
    ("configure", "article:", &["window"], Code::Usage, "pairs"),
];

#[test]
fn raw_script_arguments_are_validated() {
    let (_server, mut con, _site) = populated_site();
    let before = support::digest(&mut con);
    for (script, key, args, code, names) in RAW_CASES {
        let what = format!("{script} KEYS {key:?} ARGV {args:?}");
        let result = unchanged(&mut con, &what, |con| support::raw(con, script, key, args));
        assert_refused(&what, result, *code, names);
    }
    assert_eq!(
        support::digest(&mut con),
        before,
        "a refused call changed the data set"
    );
}

/// A refusal's detail quotes the offending value, cut at 80 bytes: it is
/// sent as an error line, which redis-rs reads as UTF-8 and cannot read
/// otherwise (the call failed with a parse error and the connection was
/// lost). Binary values and a cut inside a character keep their valid
/// UTF-8, every other byte becomes '?' (found by the fuzz test).
#[test]
fn refusal_details_are_utf8_whatever_the_arguments() {
    let (_server, mut con, site) = populated_site();
    // 1 + 79 bytes: the cut at 80 falls inside the 40th "é"
    let id = format!("x{}", "é".repeat(50));
    let detail = support::refused_unchanged(&mut con, "cut é", Code::InvalidId, |con| {
        site.vote("u", &id).run(con)
    });
    assert!(
        detail.contains(&format!("x{}?", "é".repeat(39))),
        "{detail}"
    );
    let campaign = redvote::Campaign::new("utf8");
    redvote::scripts::load_all(&mut con).unwrap();
    for (script, key, args) in [
        ("vote", "article:", vec![&b"u"[..], b"\xff\xfe7"]),
        ("page", "article:", vec![&b"\xc3(\xed\xa0\x80"[..], b"1"]),
        (
            "campaign_top",
            campaign.root_key(),
            vec![&b"shown"[..], b"day", b"\xf4\x90\x80\x80", b"10", b"", b"B"],
        ),
    ] {
        let before = support::digest(&mut con);
        let mut cmd = redis::cmd("EVALSHA");
        cmd.arg(redvote::scripts::get(script).unwrap().sha1())
            .arg(1)
            .arg(key);
        for a in &args {
            cmd.arg(*a);
        }
        let err = cmd.query::<redis::Value>(&mut con).unwrap_err();
        assert!(
            err.code().is_some_and(|c| c.starts_with("REDVOTE_")),
            "{script}: {err}"
        );
        assert!(
            err.detail().unwrap_or_default().contains("??"),
            "{script}: {err}"
        );
        assert_eq!(support::digest(&mut con), before, "{script} wrote");
    }
}

/// A refusal of the caller's input names what was refused in the API's
/// words, the same through every surface (docs/errors.md, "How a detail
/// names things"): the campaign, board, option, user, channel or article
/// as the call named it, never the Redis key that holds it.
#[test]
fn refusals_name_what_the_caller_named_never_a_key() {
    use redvote::campaign::{DenyLists, View};
    use redvote::{Campaign, Paging, Period};

    let (_server, mut con, site) = populated_site();
    let c = support::setup(
        &mut con,
        "words",
        support::boards([(
            "stars",
            support::board(&[Period::Total], support::options([("ann", 1)])),
        )])
        .with_deny(DenyLists {
            users: Some(vec!["mallory".into()]),
            channels: Some(vec!["spam".into()]),
        }),
    );
    let nobody = Campaign::new("nobody");
    let shop = Campaign::with_namespace("shop:");
    let total = View::shown("total");
    let day = View::shown("day");
    let spam = redvote::Voter::new("u").channel("spam");
    #[rustfmt::skip]
    let cases: Vec<(&str, Code, redvote::Result<()>, &str)> = vec![
        ("unknown article", Code::UnknownArticle, discard(site.vote("u", "99").run(&mut con)), "article 99 does not exist"),
        ("article of groups", Code::UnknownArticle, discard(site.groups("article:99", &["g"], &[]).run(&mut con)), "article 99 does not exist"),
        ("closed article", Code::VotingClosed, discard(site.vote("u", "3").run(&mut con)), "voting on article 3 closed at "),
        ("unknown campaign", Code::UnknownCampaign, discard(nobody.vote("u", &[("stars", "ann")]).run(&mut con)), "campaign \"nobody\" is not configured"),
        ("read of an unknown campaign", Code::UnknownCampaign, discard(nobody.top(&["stars"], &total, Paging::top(10)).run(&mut con)), "campaign \"nobody\" is not configured"),
        ("campaign by namespace", Code::UnknownCampaign, discard(shop.vote("u", &[("stars", "ann")]).run(&mut con)), "the campaign of namespace \"shop:\" is not configured"),
        ("unknown board", Code::UnknownBoard, discard(c.vote("u", &[("moons", "ann")]).run(&mut con)), "board \"moons\" is not configured"),
        ("unknown option", Code::UnknownOption, discard(c.vote("u", &[("stars", "zed")]).run(&mut con)), "board \"stars\" has no option \"zed\""),
        ("import of an unknown option", Code::UnknownOption, discard(c.import("stars", &[("zed", "1")]).run(&mut con)), "board \"stars\" has no option \"zed\""),
        ("period not kept", Code::InvalidPeriod, discard(c.top(&["stars"], &day, Paging::top(10)).run(&mut con)), "board \"stars\" keeps no day boards"),
        ("denied user", Code::Denied, discard(c.vote("mallory", &[("stars", "ann")]).run(&mut con)), "user \"mallory\" may not vote"),
        ("denied channel", Code::Denied, discard(c.vote_by(&spam, &[("stars", "ann")]).run(&mut con)), "channel \"spam\" may not vote"),
        ("key-like name", Code::InvalidName, discard(c.vote("u", &[("{c:x}:b", "ann")]).run(&mut con)), "\"{c:x}:b\" is not a board or option name (1..64 bytes, none of colons, braces,"),
    ];
    for (what, code, result, words) in cases {
        let detail = match result {
            Err(Error::Script { code: got, detail }) if got == code => detail,
            other => panic!("{what}: expected {code}, got {other:?}"),
        };
        assert!(detail.starts_with(words), "{what}: {detail:?}");
        // the name the caller sent aside, no key: no namespace, no hash tag
        let rest = detail.replace("\"{c:x}:b\"", "");
        for key in [
            c.namespace(),
            "{c:",
            "}:",
            ":campaign",
            "weights:",
            "board:",
        ] {
            assert!(!rest.contains(key), "{what}: {detail:?} names a key");
        }
    }
}
