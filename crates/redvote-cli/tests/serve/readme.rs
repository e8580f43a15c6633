//! README's "Service" section: its curl examples run as written, in order,
//! against a service of the test's own (the address and the admin token
//! substituted), and each succeeds (`curl -f`) with JSON.

use super::{Service, ADMIN};
use crate::support;
use crate::support::readme::{section, sh, sh_commands};

#[test]
fn readme_curl_examples_run() {
    let server = support::server();
    let svc = Service::start(&server);
    let lines = sh_commands(section("## Service (`redvote serve`)"), &["curl "]);
    assert!(lines.len() >= 6, "README lost its curl examples: {lines:?}");
    for line in lines {
        assert!(
            line.starts_with("curl -fsS "),
            "{line}: use curl -fsS, so a refusal fails"
        );
        let cmd = line.replace("http://127.0.0.1:8080", &svc.base);
        let out = sh(&cmd, env!("CARGO_MANIFEST_DIR").as_ref())
            .env("REDVOTE_ADMIN_TOKEN", ADMIN)
            .output()
            .expect("run sh");
        assert!(out.status.success(), "{cmd}: {out:?}");
        let body: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{cmd}: not JSON ({e}): {out:?}"));
        assert!(body.is_object(), "{cmd}: {body}");
    }
}
