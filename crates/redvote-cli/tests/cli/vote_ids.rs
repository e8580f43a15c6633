//! `redvote campaign NAME vote --vote-id`: a replayed id counts once and
//! the CLI says it was a replay.

use crate::support::{self, real_total, redvote, vote_ids_campaign as campaign, T0};

#[test]
fn the_cli_vote_id_counts_once_and_marks_the_replay() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con);
    let url = server.url();
    let at = T0.to_string();
    let args = [
        "campaign",
        "ids",
        "--at",
        &at,
        "vote",
        "--user",
        "u9",
        "--vote-id",
        "cli-1",
        "B:x",
    ];
    let first = redvote(Some(&url), &args);
    assert!(first.status.success(), "{first:?}");
    let first = String::from_utf8(first.stdout).unwrap();
    assert!(!first.contains("(replay)"), "{first}");
    let again = redvote(Some(&url), &args);
    assert!(again.status.success(), "{again:?}");
    let again = String::from_utf8(again.stdout).unwrap();
    assert_eq!(again, first.replace('\n', "  (replay)\n"));
    assert_eq!(real_total(&mut con, &c, "B", "x"), 1);
    let long = "i".repeat(129);
    let out = redvote(
        Some(&url),
        &[
            "campaign",
            "ids",
            "vote",
            "--user",
            "u9",
            "--vote-id",
            &long,
            "B:x",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("redvote: REDVOTE_INVALID_VOTE_ID"), "{err}");
}
