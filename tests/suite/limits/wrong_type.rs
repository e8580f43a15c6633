//! A string counter (a rule that counts by option, channel or device, not
//! the user) whose key holds another type is refused with
//! `REDVOTE_INVALID_CONFIG` by the vote and by the peek, writing nothing, as
//! every key the vote writes: whether the call reads one such counter or
//! several. (One MGET used to read them all, taking a key of another type
//! for no counter, which the vote then overwrote.)

use redvote::campaign::Dimension::{Channel, Option as Opt, User};
use redvote::campaign::Window;
use redvote::Code;

use super::{fixed, pass, voter, with_rules};
use crate::support::{self, local, refused_unchanged, PLUS8};

#[test]
fn a_string_counter_of_another_type_is_refused_with_nothing_written() {
    let server = support::server();
    let mut con = support::con(&server);
    let t0 = local(PLUS8, (2040, 3, 13), (12, 0, 0));
    // one string counter a vote (and a bucketed user rule beside it), then two
    for (name, rules) in [
        (
            "rlw1",
            vec![
                fixed("user-day", &[User], Window::Day, 10),
                fixed("option-day", &[Opt], Window::Day, 10),
            ],
        ),
        (
            "rlw2",
            vec![
                fixed("option-day", &[Opt], Window::Day, 10),
                fixed("channel-day", &[Channel], Window::Day, 10),
            ],
        ),
    ] {
        let c = with_rules(&mut con, name, rules);
        let web = voter("alice", Some("web"), None);
        pass(&mut con, &c.at(t0), &web, &[("b", "a")]);
        let counters = support::keys(&mut con, &format!("{{c:{name}}}:rl:*"));
        assert!(!counters.is_empty(), "{name}: no string counter written");
        for key in counters {
            let count: u64 = redis::cmd("GET").arg(&key).query(&mut con).unwrap();
            let _: () = redis::pipe()
                .cmd("DEL")
                .arg(&key)
                .cmd("HSET")
                .arg(&key)
                .arg("n")
                .arg("1")
                .query(&mut con)
                .unwrap();
            let detail = refused_unchanged(
                &mut con,
                &format!("vote, {key} a hash"),
                Code::InvalidConfig,
                |con| c.at(t0).vote_by(&web, &[("b", "a")]).run(con),
            );
            assert!(detail.contains("wrong type"), "{key}: {detail}");
            refused_unchanged(
                &mut con,
                &format!("peek, {key} a hash"),
                Code::InvalidConfig,
                |con| c.at(t0).limits(&web, &[("b", "a")]).run(con),
            );
            // mended by hand: the count goes on from where it was
            let _: () = redis::pipe()
                .cmd("DEL")
                .arg(&key)
                .cmd("SET")
                .arg(&key)
                .arg(count)
                .query(&mut con)
                .unwrap();
            pass(&mut con, &c.at(t0), &web, &[("b", "a")]);
            let now: u64 = redis::cmd("GET").arg(&key).query(&mut con).unwrap();
            assert_eq!(now, count + 1, "{key}");
        }
    }
}
