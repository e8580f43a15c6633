//! The checker as a library, against real servers: data the scripts wrote
//! is clean, a count changed behind their back is reported on its key and
//! nowhere else, and a check writes nothing. (The CLI's tests run the same
//! checks through `redvote check`, with planted faults of every kind.)

use redis::Commands;
use redvote::{Campaign, Period, Site};
use redvote_check::{check_campaign, check_site};
use redvote_testing::{board, boards, con, digest, options, server, setup};

#[test]
fn a_site_the_scripts_wrote_is_clean_and_a_forged_count_is_named() {
    let server = server();
    let mut con = con(&server);
    let site = Site::default();
    for (user, title) in [("user:1", "one"), ("user:2", "two")] {
        site.post(user, title, "https://example.com")
            .run(&mut con)
            .unwrap();
    }
    site.vote("user:3", "1").run(&mut con).unwrap();
    site.downvote("user:4", "2").run(&mut con).unwrap();

    let before = digest(&mut con);
    let report = check_site(&mut con, &site).unwrap();
    assert!(report.is_clean(), "{report}");
    assert!(report.keys_scanned > 0);
    assert_eq!(digest(&mut con), before, "a check wrote");

    // a vote counted without its voter: the article's hash disagrees
    let _: () = con.hincr("article:1", "votes", 1).unwrap();
    let report = check_site(&mut con, &site).unwrap();
    let keys: Vec<&str> = report.violations.iter().map(|v| v.key.as_str()).collect();
    assert!(keys.contains(&"article:1"), "{report}");
    assert!(keys.iter().all(|k| !k.ends_with(":2")), "{report}");
}

#[test]
fn a_campaign_the_scripts_wrote_is_clean_and_a_forged_count_is_named() {
    let server = server();
    let mut con = con(&server);
    let c: Campaign = setup(
        &mut con,
        "checked",
        boards([("B", board(&[Period::Total], options([("x", 2), ("y", 1)])))]),
    );
    c.vote("user:1", &[("B", "x")]).run(&mut con).unwrap();
    c.vote("user:2", &[("B", "y")]).run(&mut con).unwrap();

    let before = digest(&mut con);
    let report = check_campaign(&mut con, &c).unwrap();
    assert!(report.is_clean(), "{report}");
    assert_eq!(digest(&mut con), before, "a check wrote");

    // real votes added behind the script's back: the shown board (weight
    // times real) no longer follows from them, and says so
    let real = format!("{}b:B:real:total", c.namespace());
    let shown = format!("{}b:B:shown:total", c.namespace());
    let _: () = con.zincr(&real, "x", 5).unwrap();
    let report = check_campaign(&mut con, &c).unwrap();
    assert_eq!(report.violations.len(), 1, "{report}");
    assert_eq!(report.violations[0].key, shown, "{report}");
}
