//! What a failed command says: a write whose outcome is unknown says what
//! happened (sent then no reply, applied but not replicated); a read never
//! "may have been applied"; a call that was never sent (the connection
//! failed) never warns that a retry may count it twice; a cluster site
//! without a hash tag is told `--prefix`; campaign names the service
//! refuses are refused as a usage error (exit 2).

use std::process::Output;

use redvote::Campaign;
use redvote_testing::readme::spring_settings;

use crate::support::{self, redvote};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `CLIENT PAUSE ms ALL` on the server: connections are made, every
/// command waits.
fn pause(server: &support::TempServer, ms: u64) {
    let _: () = redis::cmd("CLIENT")
        .arg("PAUSE")
        .arg(ms)
        .arg("ALL")
        .query(&mut support::con(server))
        .unwrap();
}

/// A call sent to a server that does not answer in time: the write may
/// have been applied ("sent, then no reply within --timeout"), the read
/// says nothing was written.
#[test]
fn an_unanswered_write_may_have_applied_an_unanswered_read_did_not() {
    let server = support::server();
    Campaign::new("spring2026")
        .configure(&spring_settings())
        .run(&mut support::con(&server))
        .unwrap();
    let url = server.url();
    let common = [
        "--timeout",
        "0.5",
        "--retries",
        "0",
        "campaign",
        "spring2026",
    ];
    pause(&server, 3000);
    let mut vote = common.to_vec();
    vote.extend(["vote", "--user", "u", "stars:wjk"]);
    let out = redvote(Some(&url), &vote);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "campaign_vote may have been applied (sent, then no reply within --timeout 0.5 s"
        ),
        "{err}"
    );
    assert!(!err.contains("or the connection was lost"), "{err}");
    assert!(err.contains("a retry may count it twice"), "{err}");
    let mut top = common.to_vec();
    top.extend(["top", "stars"]);
    let out = redvote(Some(&url), &top);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains("may have been applied"), "{err}");
    assert!(
        err.contains("campaign_top failed (no reply within --timeout 0.5 s"),
        "{err}"
    );
    assert!(err.contains("a read: nothing was written"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// `--wait-replicas 1` without a replica: the write was applied; the
/// message says so, not "no reply within --timeout".
#[test]
fn an_unreplicated_write_says_it_was_applied() {
    let server = support::server();
    Campaign::new("spring2026")
        .configure(&spring_settings())
        .run(&mut support::con(&server))
        .unwrap();
    let wait = ["--wait-replicas", "1", "--wait-timeout", "0.1"];
    let mut post = wait.to_vec();
    post.extend([
        "post",
        "--user",
        "u",
        "--title",
        "t",
        "--link",
        "https://e.x",
    ]);
    let out = redvote(Some(&server.url()), &post);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("post was applied, but not replicated"),
        "{err}"
    );
    assert!(!err.contains("no reply within --timeout"), "{err}");
    let mut vote = wait.to_vec();
    vote.extend(["campaign", "spring2026", "vote", "--user", "u", "stars:wjk"]);
    let err = stderr(&redvote(Some(&server.url()), &vote));
    assert!(err.contains("a retry would count it twice"), "{err}");
    assert!(!err.contains("no reply within --timeout"), "{err}");
}

/// A stopped server: the connection is never made, so the vote was never
/// sent: no "a retry may count it twice", no "may have been applied".
#[test]
fn a_call_never_sent_does_not_warn_of_counting_twice() {
    let server = support::server();
    Campaign::new("spring2026")
        .configure(&spring_settings())
        .run(&mut support::con(&server))
        .unwrap();
    server.signal("-STOP");
    let out = redvote(
        Some(&server.url()),
        &[
            "--timeout",
            "0.5",
            "campaign",
            "spring2026",
            "vote",
            "--user",
            "u",
            "stars:wjk",
        ],
    );
    server.signal("-CONT");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot connect to Redis"), "{err}");
    assert!(!err.contains("count it twice"), "{err}");
    assert!(!err.contains("may have been applied"), "{err}");
}

/// Campaign names the service refuses: exit 2, one line naming the rule,
/// nothing sent.
#[test]
fn campaign_names_the_service_refuses_are_usage_errors() {
    for name in ["bad name", "a}b", "", "a:b"] {
        // no server: the name is refused before any connection
        let out = redvote(
            Some("redis://127.0.0.1:1"),
            &["campaign", name, "top", "stars"],
        );
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{name:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("a campaign name is 1..64 bytes"), "{err}");
    }
}

/// On a cluster, a site prefix without a hash tag: the CLI names its
/// option, not the library's `Site::new`.
#[test]
fn an_untagged_prefix_on_a_cluster_is_told_in_cli_words() {
    let cluster = support::cluster::shared();
    for args in [
        &[
            "post",
            "--user",
            "u",
            "--title",
            "t",
            "--link",
            "https://e.x",
        ][..],
        &["articles"],
        &["--prefix", "news:", "vote", "--user", "u", "1"],
    ] {
        let out = redvote(Some(&cluster.url()), args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("--prefix \"{news}:\""), "{args:?}: {err}");
        assert!(!err.contains("Site::new"), "{args:?}: {err}");
    }
}
