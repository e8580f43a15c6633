//! 50 tokio tasks voting on one multiplexed connection: every vote counted,
//! every vote saw its own total, real and shown boards add up.

use std::collections::{BTreeMap, BTreeSet};

use redvote::{Campaign, Kind, Period};

use super::{e, T0};
use crate::support::{self, board, boards, map, options};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_tasks_on_one_connection_count_every_vote() {
    const TASKS: usize = 50;
    const VOTES: usize = 20;
    let server = support::server();
    let mut con = support::con_async(&server).await;
    let c = Campaign::new("busy");
    c.configure(&boards([(
        "B",
        board(
            &[Period::Hour, Period::Day, Period::Total],
            options([("o0", 3), ("o1", 3), ("o2", 3), ("o3", 3)]),
        ),
    )]))
    .run_async(&mut con)
    .await
    .unwrap();
    let at = c.at(T0);
    let imported = [("o0", "100"), ("o1", "0.50"), ("o2", "7")];
    at.import("B", &imported).run_async(&mut con).await.unwrap();

    let tasks: Vec<_> = (0..TASKS)
        .map(|i| {
            let mut con = con.clone();
            let at = at.clone();
            tokio::spawn(async move {
                let mut seen = Vec::new();
                for j in 0..VOTES {
                    let option = format!("o{}", (i + j) % 4);
                    let ballots = at
                        .vote(&format!("user:{i}"), &[("B", option.as_str())])
                        .run_async(&mut con)
                        .await
                        .unwrap();
                    let total = ballots[0].shown.last().unwrap().clone();
                    assert_eq!(total.period, "total");
                    seen.push((option, total.score));
                }
                seen
            })
        })
        .collect();
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for task in futures::future::join_all(tasks).await {
        for (option, score) in task.unwrap() {
            let fresh = seen.entry(option).or_default().insert(score);
            assert!(fresh, "two votes saw the same total");
        }
    }
    // 50 x 20 votes, 5 per task per option: 250 each.
    let per_option = (TASKS * VOTES / 4) as u64;
    let base = |o: &str| -> u64 {
        imported
            .iter()
            .find(|(n, _)| *n == o)
            .map(|(_, a)| (a.parse::<f64>().unwrap() * 100.0).round() as u64)
            .unwrap_or(0)
    };
    for o in ["o0", "o1", "o2", "o3"] {
        // Every vote saw its own total: import + 3k for k = 1..=250.
        let want: BTreeSet<String> = (1..=per_option)
            .map(|k| {
                let cents = base(o) + 300 * k;
                format!("{}.{:02}", cents / 100, cents % 100)
            })
            .collect();
        assert_eq!(seen[o], want, "{o}");
    }
    for period in ["hour", "day", "total"] {
        let pages = at
            .top(
                &["B"],
                &redvote::View::new(Kind::Real, period),
                redvote::Paging::new(1, 10),
            )
            .run_async(&mut con)
            .await
            .unwrap();
        let real: BTreeMap<String, String> = pages[0]
            .entries
            .iter()
            .map(|e| (e.member.clone(), e.score.clone()))
            .collect();
        assert_eq!(
            real,
            map([("o0", "250"), ("o1", "250"), ("o2", "250"), ("o3", "250")]),
            "{period}"
        );
        let pages = at
            .top(
                &["B"],
                &redvote::View::new(Kind::Shown, period),
                redvote::Paging::new(1, 10),
            )
            .run_async(&mut con)
            .await
            .unwrap();
        assert_eq!(
            pages[0].entries,
            vec![
                e("o0", "850.00", 1),
                e("o2", "757.00", 2),
                e("o1", "750.50", 3),
                e("o3", "750.00", 4),
            ],
            "{period}"
        );
    }
}
