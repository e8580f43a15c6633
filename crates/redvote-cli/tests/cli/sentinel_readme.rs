//! The Sentinel examples of the docs against a real Sentinel deployment.

use redvote::Campaign;

use crate::support::sentinel::Deployment;

/// README's Sentinel example, compiled into the suite as README shows it.
mod readme_example {
    #![allow(dead_code)]
    include!("../../../../tests/readme_examples/sentinel.rs");
}

/// README's Sentinel examples, with its sentinels' hosts replaced by this
/// deployment's: the Rust example votes (acknowledged by the replica), the
/// CLI line sends the same vote id again and is answered as a replay.
#[test]
fn readme_sentinel_examples_run() {
    use crate::support::readme::{
        assert_shows_example, quoted_url, run_ok, section, sh_commands, spring_settings, stars_top,
        wjk, Hosts,
    };
    assert_shows_example("sentinel.rs");
    let d = Deployment::start();
    let hosts = Hosts(
        d.sentinels
            .iter()
            .enumerate()
            .map(|(i, s)| {
                (
                    format!("10.0.0.{}:26379", i + 1),
                    format!("127.0.0.1:{}", s.port),
                )
            })
            .collect(),
    );
    let mut master = d.master.client().get_connection().unwrap();
    let spring = Campaign::new("spring2026");
    spring
        .configure(&spring_settings())
        .run(&mut master)
        .unwrap();

    let url = hosts.apply(quoted_url(include_str!(
        "../../../../tests/readme_examples/sentinel.rs"
    )));
    let ballots = readme_example::vote_through_sentinels(&url).unwrap();
    assert!(!ballots[0].replay, "{ballots:?}");

    let lines = sh_commands(section("### Sentinel"), &["redvote "]);
    assert_eq!(lines.len(), 1, "{lines:?}");
    let out = run_ok(&hosts.apply(&lines[0]), std::env::temp_dir().as_path());
    assert!(out.contains("(replay)"), "the same vote id again: {out}");
    assert_eq!(
        wjk(&stars_top(&spring).run(&mut master).unwrap()),
        "1",
        "one vote, sent twice"
    );
    // the wait made the replica hold it before it was acknowledged
    let mut replica = d.replica.client().get_connection().unwrap();
    assert_eq!(wjk(&stars_top(&spring).run(&mut replica).unwrap()), "1");
}
