//! 50 tasks on one multiplexed connection race for one allowance: exactly
//! the limit passes, every other vote is refused with the same refusal.

use redvote::campaign::Dimension::{Option as Opt, User};
use redvote::campaign::{Voter, Window};
use redvote::{Campaign, Error, RateLimited};

use super::{fixed, lefts, peek, real_total, refusal, with_rules};
use crate::support::{self, local, PLUS8};

async fn hammer(
    server: &crate::support::TempServer,
    c: &Campaign,
    users: impl Fn(usize) -> String,
) -> (usize, Vec<RateLimited>) {
    let shared = support::con_async(server).await;
    let mut tasks = Vec::new();
    for i in 0..50 {
        let mut con = shared.clone();
        let c = c.clone();
        let user = users(i);
        tasks.push(tokio::spawn(async move {
            c.vote(&user, &[("b", "a")]).run_async(&mut con).await
        }));
    }
    let (mut passed, mut refused) = (0, Vec::new());
    for task in tasks {
        match task.await.unwrap() {
            Ok(_) => passed += 1,
            Err(Error::RateLimited(r)) => refused.push(r),
            Err(e) => panic!("unexpected error {e}"),
        }
    }
    (passed, refused)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_tasks_one_user_exactly_five_pass() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(
        &mut con,
        "lim",
        vec![fixed("user-minute", &[User], Window::Minute, 5)],
    );
    let c = c.at(local(PLUS8, (2040, 3, 13), (12, 0, 30)));
    let (passed, refused) = hammer(&server, &c, |_| "alice".to_string()).await;
    assert_eq!(passed, 5);
    assert_eq!(refused.len(), 45);
    let want = refusal("user-minute", 30, &[("user-minute", 0)]);
    assert!(refused.iter().all(|r| *r == want), "{refused:?}");
    assert_eq!(real_total(&mut con, &c, "b", "a"), 5);
    assert_eq!(
        peek(&mut con, &c, &Voter::new("alice"), &[]),
        lefts(&[("user-minute", 0, 30)])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_users_one_option_exactly_seven_pass() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = with_rules(
        &mut con,
        "lim",
        vec![fixed("option-second", &[Opt], Window::Second, 7)],
    );
    let c = c.at(local(PLUS8, (2040, 3, 13), (12, 0, 30)));
    let (passed, refused) = hammer(&server, &c, |i| format!("user{i}")).await;
    assert_eq!(passed, 7);
    assert_eq!(refused.len(), 43);
    let want = refusal("option-second", 1, &[("option-second", 0)]);
    assert!(refused.iter().all(|r| *r == want), "{refused:?}");
    assert_eq!(real_total(&mut con, &c, "b", "a"), 7);
}
