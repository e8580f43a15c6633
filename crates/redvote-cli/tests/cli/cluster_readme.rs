//! README's Redis Cluster examples on the shared cluster, its hosts
//! replaced: `n2:7001` by the primary of `spring2026`'s slot, `n1:7000` by
//! another primary.

use redvote::client::key_slot;
use redvote::{Campaign, Client};

use crate::support::cluster::shared;
use crate::support::readme::{
    assert_shows_example, quoted_url, run_ok, section, sh_commands, spring_settings, stars_top,
    wjk, Hosts,
};

/// README's cluster example, compiled into the suite as README shows it.
mod readme_example {
    #![allow(dead_code)]
    include!("../../../../tests/readme_examples/cluster.rs");
}

#[test]
fn readme_cluster_examples_run() {
    assert_shows_example("cluster.rs");
    let cluster = shared();
    let (spring, autumn) = (Campaign::new("spring2026"), Campaign::new("autumn2026"));
    let owner = cluster.owner(key_slot(b"{c:spring2026}"));
    let other = cluster
        .masters()
        .into_iter()
        .find(|m| m.port() != owner.port())
        .expect("another primary");
    let hosts = Hosts(vec![
        ("n1:7000".into(), format!("127.0.0.1:{}", other.port())),
        ("n2:7001".into(), format!("127.0.0.1:{}", owner.port())),
    ]);
    let mut admin = Client::open(&cluster.url()).unwrap().connect().unwrap();
    for c in [&spring, &autumn] {
        admin.run(&c.configure(&spring_settings())).unwrap();
    }
    assert_ne!(
        key_slot(b"{c:spring2026}"),
        key_slot(b"{c:autumn2026}"),
        "README says the two campaigns are in different slots"
    );

    let url = hosts.apply(quoted_url(include_str!(
        "../../../../tests/readme_examples/cluster.rs"
    )));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let ballots = rt
        .block_on(readme_example::vote_on_a_cluster(&url))
        .unwrap();
    assert_eq!(ballots.len(), 2, "{ballots:?}");
    assert!(ballots.iter().all(|b| !b.replay), "{ballots:?}");

    let lines = sh_commands(section("### Redis Cluster"), &["redvote "]);
    assert_eq!(lines.len(), 2, "a vote and a check: {lines:?}");
    let out = run_ok(&hosts.apply(&lines[0]), std::env::temp_dir().as_path());
    assert!(out.contains("(replay)"), "the same vote id again: {out}");
    // `check` through the cluster URL runs on the slot's owner: clean
    let out = run_ok(&hosts.apply(&lines[1]), std::env::temp_dir().as_path());
    eprintln!("{out}");
    for c in [&spring, &autumn] {
        assert_eq!(wjk(&admin.run(&stars_top(c)).unwrap()), "1", "{c:?}");
    }
}
