//! Bearer tokens on the command line: an empty `--admin-token` /
//! `--api-token` (or `REDVOTE_ADMIN_TOKEN` / `REDVOTE_API_TOKEN`) is
//! refused at startup, before the service listens. What the tokens guard
//! is tested in-process: crates/redvote-serve/tests/service/auth.rs.

use super::Service;
use redvote_testing as support;

#[test]
fn an_empty_token_is_refused_at_startup() {
    let server = support::server();
    for (flag, var) in [
        ("--admin-token", "REDVOTE_ADMIN_TOKEN"),
        ("--api-token", "REDVOTE_API_TOKEN"),
    ] {
        let out = Service::command(&server, &[], &[(var, " ")])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{var}");
        assert!(
            String::from_utf8_lossy(&out.stdout).is_empty(),
            "never listened"
        );
        let out = Service::command(&server, &[flag, ""], &[])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{flag}");
    }
}
