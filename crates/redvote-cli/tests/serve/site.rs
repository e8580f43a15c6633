//! The article site on the command line: a `--site NAME=PREFIX` whose
//! name breaks the board name rule is refused at startup (a clap refusal,
//! exit 2). The sites over HTTP are tested in-process:
//! crates/redvote-serve/tests/service/site.rs.

use super::Service;
use redvote_testing as support;

/// `--site NAME=PREFIX`: a bad site name is refused at startup.
#[test]
fn a_bad_site_name_is_refused_at_startup() {
    let server = support::server();
    // a bad site name is refused at startup
    let out = Service::command(&server, &["--site", "a:b=x"], &[])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a clap refusal");
}
