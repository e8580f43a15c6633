//! README's "Service" section: its curl examples run as written, in order,
//! against a service of the test's own (the address and the admin token
//! substituted), and each succeeds (`curl -f`) with JSON. The section is
//! README's, or docs/service.md's once the documentation keeps it there.

use super::{Service, ADMIN};
use redvote_testing as support;
use redvote_testing::readme::{section, sh, sh_commands, README, WORKSPACE};

/// The section's heading.
const HEADING: &str = "## Service (`redvote serve`)";

/// The section under [`HEADING`]: README's, else docs/service.md's (read
/// at run time), up to the next heading of its level or higher outside a
/// code block.
fn service_section() -> String {
    if README.contains(&format!("\n{HEADING}\n")) {
        return section(HEADING).to_string();
    }
    let path = format!("{WORKSPACE}/docs/service.md");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("README has no section {HEADING:?}, and {path}: {e}"));
    let start = text
        .find(&format!("\n{HEADING}\n"))
        .unwrap_or_else(|| panic!("neither README nor {path} has a section {HEADING:?}"))
        + 1;
    let mut in_code = false;
    let mut end = text.len();
    let mut offset = start;
    for (i, line) in text[start..].split_inclusive('\n').enumerate() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if i > 0 && !in_code && (line.starts_with("# ") || line.starts_with("## ")) {
            end = offset;
            break;
        }
        offset += line.len();
    }
    text[start..end].to_string()
}

#[test]
fn readme_curl_examples_run() {
    let server = support::server();
    let svc = Service::start(&server);
    let lines = sh_commands(&service_section(), &["curl "]);
    assert!(lines.len() >= 6, "README lost its curl examples: {lines:?}");
    for line in lines {
        assert!(
            line.starts_with("curl -fsS "),
            "{line}: use curl -fsS, so a refusal fails"
        );
        let cmd = line.replace("http://127.0.0.1:8080", &svc.base);
        let out = sh(&cmd, WORKSPACE.as_ref())
            .env("REDVOTE_ADMIN_TOKEN", ADMIN)
            .output()
            .expect("run sh");
        assert!(out.status.success(), "{cmd}: {out:?}");
        let body: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{cmd}: not JSON ({e}): {out:?}"));
        assert!(body.is_object(), "{cmd}: {body}");
    }
}
