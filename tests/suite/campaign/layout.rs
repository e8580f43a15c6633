//! Data layouts (docs/versions.md): a campaign records the layout it was
//! written with; redvote 0.5's clients and this version's vote side by side
//! on a layout-1 campaign (the rolling deploy), the upgrade to layout 2,
//! and every script refusing a layout it does not know, writing nothing.

use redis::{Connection, Value};
use redvote::campaign::{Ties, VoidBy, Voter};
use redvote::{Code, Granularity, Kind, Neighbourhood, Paging, Period, Site, View};

use super::T0;
use crate::support::{self, board, boards, digest, options, raw, real_total, refused_unchanged};

/// redvote 0.5.0's scripts, as it shipped them.
const OLD_VOTE: &str = include_str!("../../fixtures/redvote-0.5.0/campaign_vote.lua");
const OLD_CONFIGURE: &str = include_str!("../../fixtures/redvote-0.5.0/campaign_configure.lua");

fn old(
    con: &mut Connection,
    source: &str,
    root: &str,
    args: &[String],
) -> redis::RedisResult<Value> {
    redis::Script::new(source).key(root).arg(args).invoke(con)
}

fn layout(con: &mut Connection, root: &str) -> Option<String> {
    redis::cmd("HGET")
        .arg(root)
        .arg("layout")
        .query(con)
        .unwrap()
}

/// The campaign "roll": board F (ties first: side keys every writer must
/// keep) and board C (competition), day and total, options x, y, z.
fn settings() -> redvote::CampaignSettings {
    let opts = || options([("x", 1), ("y", 1), ("z", 1)]);
    let mut s = boards([
        ("F", board(&[Period::Day, Period::Total], opts())),
        ("C", board(&[Period::Day, Period::Total], opts())),
    ]);
    s.boards.get_mut("F").unwrap().ties = Some(Ties::First);
    s
}

/// The rolling deploy from 0.5 to 0.6: a campaign configured by 0.5 has no
/// layout (1); 0.5's and 0.6's votes interleave, with vote ids replayed
/// across the versions, and every count, first-tie order and side key is
/// right (`redvote check`); 0.6 refuses on layout 1 only what 0.5 would
/// break (a vote log, a tie switch on a board with votes), writing nothing;
/// after the upgrade it allows them.
#[test]
fn redvote_0_5_and_this_version_vote_side_by_side_until_the_upgrade() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = redvote::Campaign::new("roll");
    let root = c.root_key().to_string();
    old(
        &mut con,
        OLD_CONFIGURE,
        &root,
        c.configure(&settings()).args(),
    )
    .unwrap();
    assert_eq!(
        layout(&mut con, &root),
        None,
        "0.5 writes no layout: layout 1"
    );

    let opts = ["x", "y", "z"];
    let mut want = [0u64; 3];
    for i in 0..60u64 {
        let o = (i * 7 % 3) as usize;
        want[o] += 1;
        let user = format!("u{i}");
        let id = format!("v{i}");
        let voter = Voter::new(&user).id(&id);
        let call = c
            .at(T0 + i)
            .vote_by(&voter, &[("F", opts[o]), ("C", opts[o])]);
        if i % 2 == 0 {
            old(&mut con, OLD_VOTE, &root, call.args()).unwrap();
        } else {
            call.run(&mut con).unwrap();
        }
        // every fifth vote is sent again by the other version: counted once
        if i % 5 == 0 {
            if i % 2 == 0 {
                call.run(&mut con).unwrap();
            } else {
                old(&mut con, OLD_VOTE, &root, call.args()).unwrap();
            }
        }
    }
    for (n, o) in opts.iter().enumerate() {
        assert_eq!(real_total(&mut con, &c, "F", o), want[n], "F {o}");
        assert_eq!(real_total(&mut con, &c, "C", o), want[n], "C {o}");
    }
    let report = redvote_check::check_campaign(&mut con, &c).unwrap();
    assert!(report.is_clean(), "{report}");
    // first ties: x, y, z reach 20 votes each; the last vote of the 60 was
    // for option (59 * 7 % 3) = 2, z, so z reached 20 last and is third
    let view = View::new(Kind::Real, "total");
    let page = c
        .top(&["F"], &view, Paging::new(1, 10))
        .run(&mut con)
        .unwrap();
    let order: Vec<&str> = page[0].entries.iter().map(|e| e.member.as_str()).collect();
    assert_eq!(want, [20, 20, 20]);
    assert_eq!(order.last(), Some(&"z"), "{order:?}");
    assert_eq!(
        layout(&mut con, &root),
        None,
        "this version keeps layout 1 as it is"
    );

    // what 0.5's votes would not keep: refused on layout 1, nothing written
    let log = settings().with_vote_log(100);
    let detail = refused_unchanged(
        &mut con,
        "vote log on layout 1",
        Code::LayoutVersion,
        |con| c.configure(&log).run(con),
    );
    assert!(
        detail.contains("layout 2") && detail.contains("layout 1"),
        "{detail}"
    );
    let mut switch = settings();
    switch.boards.get_mut("C").unwrap().ties = Some(Ties::Dense);
    let detail = refused_unchanged(
        &mut con,
        "tie switch on layout 1",
        Code::LayoutVersion,
        |con| c.configure(&switch).run(con),
    );
    assert!(detail.contains("upgrade"), "{detail}");
    // other changes are fine, and keep layout 1
    c.configure(&redvote::CampaignSettings {
        vote_id_ttl: Some(3600),
        ..settings()
    })
    .run(&mut con)
    .unwrap();
    assert_eq!(layout(&mut con, &root), None);

    // the upgrade, once no 0.5 client remains: one step from 1 to 3
    let step = c.upgrade("0", 100).run(&mut con).unwrap();
    assert_eq!((step.from, step.to, step.is_done()), (1, 3, true));
    assert_eq!(layout(&mut con, &root).as_deref(), Some("3"));
    let before = digest(&mut con);
    let again = c.upgrade("0", 100).run(&mut con).unwrap();
    assert_eq!((again.from, again.to, again.is_done()), (3, 3, true));
    assert_eq!(
        digest(&mut con),
        before,
        "an upgraded campaign: nothing written"
    );
    c.configure(&log).run(&mut con).unwrap();
    c.configure(&switch).run(&mut con).unwrap();
    c.at(T0 + 100)
        .vote_by(&Voter::new("late").id("late"), &[("F", "x"), ("C", "x")])
        .run(&mut con)
        .unwrap();
    assert_eq!(real_total(&mut con, &c, "F", "x"), want[0] + 1);
    let report = redvote_check::check_campaign(&mut con, &c).unwrap();
    assert!(report.is_clean(), "{report}");
}

/// One call of a script, its reply dropped.
type Probe<'a> = dyn Fn(&mut Connection) -> redvote::Result<()> + 'a;

/// A campaign configured by this version records layout 3; one whose
/// layout this version does not know (a newer redvote's 4, a corrupt
/// value) is refused by every campaign script, reads included, writing
/// nothing; the same for a site whose layout is newer than 2.
#[test]
fn a_layout_this_version_does_not_know_is_refused_by_every_script() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = support::setup(&mut con, "next", settings());
    let root = c.root_key().to_string();
    assert_eq!(layout(&mut con, &root).as_deref(), Some("3"));
    c.at(T0)
        .vote_by(&Voter::new("u").id("v1"), &[("F", "x")])
        .run(&mut con)
        .unwrap();

    let view = View::new(Kind::Real, "total");
    let voter = Voter::new("u");
    let calls: Vec<(&str, Box<Probe>)> = vec![
        (
            "vote",
            Box::new(|con| support::discard(c.at(T0).vote("w", &[("F", "y")]).run(con))),
        ),
        (
            "configure",
            Box::new(|con| support::discard(c.configure(&settings()).run(con))),
        ),
        (
            "import",
            Box::new(|con| support::discard(c.at(T0).import("F", &[("x", "5")]).run(con))),
        ),
        (
            "top",
            Box::new(|con| support::discard(c.top(&["F"], &view, Paging::new(1, 10)).run(con))),
        ),
        (
            "standing",
            Box::new(|con| support::discard(c.standing("F", &view, &["x"]).run(con))),
        ),
        (
            "around",
            Box::new(|con| {
                support::discard(
                    c.around("F", &view, "x", Neighbourhood::new(3, 10))
                        .run(con),
                )
            }),
        ),
        (
            "participants",
            Box::new(|con| support::discard(c.participants("F", &["x"]).run(con))),
        ),
        (
            "settings",
            Box::new(|con| support::discard(c.settings().run(con))),
        ),
        (
            "stats",
            Box::new(|con| {
                support::discard(c.stats("F", Granularity::Day, T0, T0 + 86400).run(con))
            }),
        ),
        (
            "limits",
            Box::new(|con| support::discard(c.at(T0).limits(&voter, &[]).run(con))),
        ),
        (
            "limits reset",
            Box::new(|con| support::discard(c.at(T0).reset_limits(&voter, &[]).run(con))),
        ),
        (
            "reindex",
            Box::new(|con| support::discard(c.reindex("F", "0", 100).run(con))),
        ),
        (
            "void",
            Box::new(|con| support::discard(c.void("v1").run(con))),
        ),
        (
            "void range",
            Box::new(|con| {
                support::discard(
                    c.void_range(VoidBy::User, "u", T0, T0 + 60, "0", 100)
                        .run(con),
                )
            }),
        ),
        (
            "upgrade",
            Box::new(|con| support::discard(c.upgrade("0", 100).run(con))),
        ),
        (
            "fold",
            Box::new(|con| support::discard(c.fold(100).run(con))),
        ),
    ];
    redis::cmd("HSET")
        .arg(&root)
        .arg("layout")
        .arg("5")
        .exec(&mut con)
        .unwrap();
    for (name, call) in &calls {
        let detail = refused_unchanged(&mut con, name, Code::LayoutVersion, |con| call(con));
        assert!(
            detail.contains("layout 5") && detail.contains("1..4") && detail.contains("newer"),
            "{name}: {detail}"
        );
    }
    for bad in ["x", "0", "2.0", "1000"] {
        redis::cmd("HSET")
            .arg(&root)
            .arg("layout")
            .arg(bad)
            .exec(&mut con)
            .unwrap();
        for (name, call) in &calls {
            refused_unchanged(
                &mut con,
                &format!("{name}, layout {bad:?}"),
                Code::InvalidConfig,
                |con| call(con),
            );
        }
    }

    // the site: layouts 1 and 2 are known; a newer one is refused
    let site = Site::default();
    let id = site
        .post("ann", "Title", "https://example.com/")
        .run(&mut con)
        .unwrap();
    redis::cmd("HSET")
        .arg("redvote:config")
        .arg("layout")
        .arg("3")
        .exec(&mut con)
        .unwrap();
    let root = "article:";
    let scripts: [(&str, Vec<String>); 10] = [
        ("vote", vec!["bob".into(), id.to_string()]),
        ("upgrade", vec!["0".into(), "10".into()]),
        (
            "post",
            vec!["ann".into(), "T".into(), "https://example.com/".into()],
        ),
        ("page", vec!["score".into(), "1".into()]),
        ("article", vec![id.to_string()]),
        ("config", vec![]),
        ("configure", vec!["page_size".into(), "10".into()]),
        ("groups", vec![id.to_string(), "+g".into()]),
        ("rerank", vec!["0".into(), "10".into()]),
        ("group_page", vec!["g".into(), "score".into(), "1".into()]),
    ];
    for (script, args) in &scripts {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let detail = refused_unchanged(&mut con, script, Code::LayoutVersion, |con| {
            raw(con, script, root, &args)
        });
        assert!(detail.contains("site data layout 3"), "{script}: {detail}");
    }
}
