//! A check under a live workload reports only what is wrong: a thread
//! moves articles in and out of groups (each change drops the group's
//! cached orderings, the next group page rebuilds them) and votes, while
//! `check_site` runs in a loop. Every check must be clean: a violation seen
//! on reads that a concurrent script call made disagree is read again,
//! atomically, before it is reported.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use redvote::{Order, Site};
use redvote_check::check_site;
use redvote_testing::{con, server, PATIENCE};

const PREFIX: &str = "{churn}:";
const ARTICLES: u64 = 600;
const GROUPS: [&str; 3] = ["a", "b", "c"];

#[test]
fn group_membership_and_votes_changing_during_checks_report_nothing() {
    let server = server();
    let mut setup = con(&server);
    let site = Site::new(PREFIX);
    for i in 1..=ARTICLES {
        site.post(&format!("user:{i}"), "t", "https://example.com")
            .run(&mut setup)
            .unwrap();
        let id = i.to_string();
        let group = GROUPS[(i % 3) as usize];
        site.groups(&id, &[group], &[]).run(&mut setup).unwrap();
    }
    for group in GROUPS {
        for order in [Order::Score, Order::Time] {
            site.group_page(group, order, 1, None)
                .run(&mut setup)
                .unwrap();
        }
    }
    let report = check_site(&mut setup, &site).unwrap();
    assert!(report.is_clean(), "{report}");

    let stop = Arc::new(AtomicBool::new(false));
    let changed = Arc::new(AtomicU64::new(0));
    let churn = {
        let (stop, changed) = (stop.clone(), changed.clone());
        let mut con = con(&server);
        let site = site.clone();
        std::thread::spawn(move || {
            let mut n: u64 = 0;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let id = (n * 7919 % ARTICLES + 1).to_string();
                let group = GROUPS[(n % 3) as usize];
                // out, rebuild the caches without it, back in, rebuild again
                site.groups(&id, &[], &[group]).run(&mut con).unwrap();
                site.group_page(group, Order::Score, 1, None)
                    .run(&mut con)
                    .unwrap();
                site.group_page(group, Order::Time, 1, None)
                    .run(&mut con)
                    .unwrap();
                site.vote(&format!("voter:{n}"), &id).run(&mut con).unwrap();
                if n.is_multiple_of(5) {
                    site.downvote(&format!("voter:{}", n - 1), &id)
                        .run(&mut con)
                        .unwrap();
                }
                site.groups(&id, &[group], &[]).run(&mut con).unwrap();
                site.group_page(group, Order::Score, 1, None)
                    .run(&mut con)
                    .unwrap();
                changed.store(n, Ordering::Relaxed);
            }
            n
        })
    };

    let mut check = con(&server);
    let started = Instant::now();
    let mut runs = 0;
    let mut dirty = Vec::new();
    // 200 checks (or 20 s of them), and at least 10 changes meanwhile (a
    // loaded machine may run the checks before the churn thread)
    let churned = || changed.load(Ordering::Relaxed) >= 10;
    while (runs < 200 && started.elapsed() < Duration::from_secs(20)) || !churned() {
        assert!(
            started.elapsed() < PATIENCE,
            "the churn thread changed nothing"
        );
        runs += 1;
        let report = check_site(&mut check, &site).unwrap();
        if !report.is_clean() {
            dirty.push(report.to_string());
        }
    }
    stop.store(true, Ordering::Relaxed);
    let changes = churn.join().unwrap();
    assert!(
        dirty.is_empty(),
        "{} of {runs} checks under churn ({changes} group changes) reported violations; first:\n{}",
        dirty.len(),
        dirty[0]
    );
    let report = check_site(&mut check, &site).unwrap();
    assert!(report.is_clean(), "{report}");
}
