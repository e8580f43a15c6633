//! README's "Service" section: its curl examples run as written, in order,
//! against a service of the test's own (the address and the admin token
//! substituted), and each succeeds (`curl -f`) with JSON.

use std::process::Command;

use super::{Service, ADMIN};
use crate::support;

const README: &str = include_str!("../../../README.md");

/// The `curl ...` lines of the Service section's sh blocks, in order.
fn curl_lines() -> Vec<&'static str> {
    let start = README
        .find("\n## Service")
        .expect("README has a Service section");
    let section = &README[start + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let mut lines = Vec::new();
    let mut in_sh = false;
    for line in section.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        if in_sh && line.starts_with("curl ") {
            lines.push(line);
        }
    }
    lines
}

#[test]
fn readme_curl_examples_run() {
    let server = support::server();
    let svc = Service::start(&server);
    let lines = curl_lines();
    assert!(lines.len() >= 6, "README lost its curl examples: {lines:?}");
    for line in lines {
        assert!(
            line.starts_with("curl -fsS "),
            "{line}: use curl -fsS, so a refusal fails"
        );
        let cmd = line.replace("http://127.0.0.1:8080", &svc.base);
        let out = Command::new("sh")
            .arg("-c")
            .arg(&cmd)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("REDVOTE_ADMIN_TOKEN", ADMIN)
            .output()
            .expect("run sh");
        assert!(out.status.success(), "{cmd}: {out:?}");
        let body: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{cmd}: not JSON ({e}): {out:?}"));
        assert!(body.is_object(), "{cmd}: {body}");
    }
}
