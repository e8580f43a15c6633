//! The error model: refusals arrive as `Error::Script` with a code and a
//! detail naming the value, and write nothing.

use redvote::{Code, Error, Order, Site};

use crate::support::{self, discard, refused_unchanged, SiteCall};

#[test]
fn refusals_arrive_as_script_errors_naming_the_value() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();
    site.post("alice", "A", "http://a").run(&mut con).unwrap();
    let digest = support::digest(&mut con);

    let err = site.vote("bob", "1:x").run(&mut con).unwrap_err();
    assert_eq!(err.code(), Some(Code::InvalidId));
    let Error::Script { code, detail } = &err else {
        panic!("expected Error::Script, got {err:?}");
    };
    assert_eq!(*code, Code::InvalidId);
    assert!(detail.contains("\"1:x\""), "{detail}");
    assert_eq!(err.to_string(), format!("REDVOTE_INVALID_ID {detail}"));

    for bad in [
        "{a}",
        "0",
        "article:",
        "article:01",
        "-1",
        "article:1:2",
        "",
    ] {
        let what = format!("vote {bad:?}");
        let detail = refused_unchanged(&mut con, &what, Code::InvalidId, |con| {
            site.vote("bob", bad).run(con)
        });
        assert!(detail.contains(&format!("\"{bad}\"")), "{what}: {detail}");
        refused_unchanged(
            &mut con,
            &format!("article {bad:?}"),
            Code::InvalidId,
            |con| site.article(bad, None).run(con),
        );
    }
    // (what, code, what the detail must name ("": anything), the call)
    #[rustfmt::skip]
    let cases: &[(&str, Code, &str, SiteCall)] = &[
        ("vote empty user", Code::InvalidUser, "", |s, c| discard(s.vote("", "1").run(c))),
        ("vote control user", Code::InvalidUser, "", |s, c| discard(s.vote("a\nb", "1").run(c))),
        ("article empty user", Code::InvalidUser, "", |s, c| discard(s.article("1", Some("")).run(c))),
        ("post empty user", Code::InvalidUser, "", |s, c| discard(s.post("", "T", "http://l").run(c))),
        ("post empty title", Code::InvalidText, "", |s, c| discard(s.post("u", "", "http://l").run(c))),
        ("post spaced link", Code::InvalidText, "", |s, c| discard(s.post("u", "T", "http://l x").run(c))),
        ("import time 10^13", Code::InvalidNumber, "10000000000000", |s, c| discard(s.import("u", "T", "http://l", 10u64.pow(13)).run(c))),
        ("page 0", Code::InvalidNumber, "\"0\"", |s, c| discard(s.page(Order::Score, 0, None).run(c))),
        ("per page 101", Code::InvalidNumber, "\"101\"", |s, c| discard(s.page(Order::Time, 1, Some(101)).run(c))),
        ("group per page 0", Code::InvalidNumber, "", |s, c| discard(s.group_page("g", Order::Score, 1, Some(0)).run(c))),
    ];
    for (what, code, names, call) in cases {
        let detail = refused_unchanged(&mut con, what, *code, |con| call(&site, con));
        assert!(detail.contains(names), "{what}: {detail}");
    }
    assert_eq!(support::digest(&mut con), digest);
}
