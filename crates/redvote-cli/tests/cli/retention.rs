//! `--at` into a period whose boards are past their retention: the vote, as
//! the import, is refused with one line naming the period, exit 1, and
//! nothing written (the vote used to answer its count while the boards it
//! made expired at once).

use redvote::Period;

use crate::support::{self, redvote, DAY};

#[test]
fn a_vote_or_an_import_past_the_retention_is_refused() {
    let server = support::server();
    let mut con = support::con(&server);
    support::setup(
        &mut con,
        "kept",
        support::boards([(
            "B",
            support::board(&[Period::Day, Period::Total], support::options([("x", 1)]))
                .with_retention(Period::Day, DAY),
        )]),
    );
    let url = server.url();
    let now = support::server_time(&mut con) as u64;
    let old = (now - 10 * DAY).to_string();
    let dir = support::scratch("retention");
    let file = dir.join("votes.csv");
    std::fs::write(&file, "option,votes\nx,5\n").unwrap();
    let before = support::digest(&mut con);
    for args in [
        vec![
            "campaign", "kept", "--at", &old, "vote", "--user", "u", "B:x",
        ],
        vec![
            "campaign",
            "kept",
            "--at",
            &old,
            "import",
            "B",
            file.to_str().unwrap(),
        ],
    ] {
        let out = redvote(Some(&url), &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("REDVOTE_INVALID_PERIOD"), "{args:?}: {err}");
        assert!(err.contains("past its retention"), "{args:?}: {err}");
        assert!(err.contains("day:"), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(support::digest(&mut con), before, "a refusal wrote");
    // a day still kept (yesterday, until the end of today) takes the vote
    let yesterday = (now - DAY).to_string();
    let out = redvote(
        Some(&url),
        &[
            "campaign", "kept", "--at", &yesterday, "vote", "--user", "u", "B:x",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
