//! Deny lists: denied users and channels are refused outright and spend
//! nothing; a new users list replaces the old one.

use redis::Connection;
use redvote::campaign::Dimension::User;
use redvote::campaign::{DenyLists, Voter, Window};
use redvote::{CampaignSettings, Code};

use super::{
    code_of, configure, fixed, lefts, pass, peek, real_total, rl_keys, settings, voter, BOARDS,
};
use crate::support::{self, local, PLUS8};

#[test]
fn deny_lists_refuse_users_and_channels_outright() {
    let server = support::server();
    let mut con = support::con(&server);
    let mut s = settings(
        "+08:00",
        vec![fixed("user-minute", &[User], Window::Minute, 5)],
        BOARDS,
    );
    s.deny = Some(DenyLists {
        users: Some(vec!["mallory".to_string()]),
        channels: Some(vec!["spam".to_string()]),
    });
    let c = configure(&mut con, "lim", &s);
    let t = c.at(local(PLUS8, (2040, 3, 13), (12, 0, 0)));
    let denied = |con: &mut Connection, v: &Voter| {
        let before = support::digest(con);
        assert_eq!(code_of(t.vote_by(v, &[("b", "a")]).run(con)), Code::Denied);
        assert_eq!(support::digest(con), before, "a denied vote wrote");
    };
    denied(&mut con, &Voter::new("mallory"));
    denied(&mut con, &voter("mallory", Some("web"), Some("pc")));
    denied(&mut con, &voter("alice", Some("spam"), None));
    pass(
        &mut con,
        &t,
        &voter("alice", Some("web"), None),
        &[("b", "a")],
    );
    pass(&mut con, &t, &Voter::new("alice"), &[("b", "a")]);
    // the denied votes spent nothing
    assert_eq!(
        peek(&mut con, &t, &Voter::new("alice"), &[]),
        lefts(&[("user-minute", 3, 60)])
    );
    assert!(rl_keys(&mut con, &c).iter().all(|k| !k.contains("mallory")));
    // a new users list replaces the old one; the channels list stays
    let update = CampaignSettings {
        deny: Some(DenyLists {
            users: Some(vec![]),
            channels: None,
        }),
        ..Default::default()
    };
    c.configure(&update).run(&mut con).unwrap();
    pass(&mut con, &t, &Voter::new("mallory"), &[("b", "a")]);
    denied(&mut con, &voter("alice", Some("spam"), None));
    assert_eq!(real_total(&mut con, &c, "b", "a"), 3);
}
