//! A corrupt rolling-limit state is refused with `REDVOTE_INVALID_CONFIG`,
//! by the vote and by the peek, writing nothing: it used to be read as "no
//! state", a full burst. A fixed window's count left in the voter's hash by
//! a rule that was fixed under the same name is still no state.

use redvote::campaign::Dimension::{Channel, User};
use redvote::campaign::Voter;
use redvote::Code;

use super::{lefts, pass, peek, rolling, voter, with_rules};
use crate::support::{self, local, refused_unchanged, PLUS8};

fn hset(con: &mut redis::Connection, key: &str, field: &str, value: &str) {
    let _: () = redis::cmd("HSET")
        .arg(key)
        .arg(field)
        .arg(value)
        .query(con)
        .unwrap();
}

#[test]
fn a_corrupt_rolling_state_is_refused_not_read_as_none() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(
        &mut con,
        "rlc",
        vec![
            rolling("smooth", &[User], 5, 60, 5),
            rolling("chan", &[Channel], 5, 60, 5),
        ],
    );
    let t0 = local(PLUS8, (2040, 3, 13), (12, 0, 0));
    let alice = Voter::new("alice");
    pass(&mut con, &c.at(t0), &alice, &[("b", "a")]);
    let hash = "{c:rlc}:rlu:alice";
    for bad in [
        "nan",
        "x",
        "1e9",
        "-5.000000",
        "99999999999999.000000",
        "5.000000+1/",
        "",
    ] {
        hset(&mut con, hash, "smooth", bad);
        let what = format!("smooth = {bad:?}");
        let detail = refused_unchanged(
            &mut con,
            &format!("vote, {what}"),
            Code::InvalidConfig,
            |con| c.at(t0).vote_by(&alice, &[("b", "a")]).run(con),
        );
        assert!(detail.contains("smooth is corrupt"), "{detail}");
        refused_unchanged(
            &mut con,
            &format!("peek, {what}"),
            Code::InvalidConfig,
            |con| c.at(t0).limits(&alice, &[]).run(con),
        );
    }
    // a fixed window's count (the rule was fixed under this name): none
    hset(&mut con, hash, "smooth", "2215484417:3:day");
    assert_eq!(
        peek(&mut con, &c.at(t0), &alice, &[]),
        lefts(&[("smooth", 5, 0), ("chan", 4, 12)])
    );
    // a string key of a rule by channel: only a TAT is a state
    let web = voter("bob", Some("web"), None);
    pass(&mut con, &c.at(t0), &web, &[("b", "a")]);
    let key = "{c:rlc}:rl:chan:rolling:3:web";
    assert!(support::exists(&mut con, key), "{key}");
    for bad in ["nan", "2215484417:3:day", "12"] {
        let _: () = redis::cmd("SET").arg(key).arg(bad).query(&mut con).unwrap();
        refused_unchanged(
            &mut con,
            &format!("{key} = {bad:?}"),
            Code::InvalidConfig,
            |con| c.at(t0).vote_by(&web, &[("b", "a")]).run(con),
        );
    }
}
