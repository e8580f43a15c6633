//! What every module of the CLI's tests shares: the harness crate
//! (`redvote-testing`: throwaway servers, clusters, sentinels, TLS, reads,
//! refusal assertions, the docs' examples) and the `redvote` binary runner.

pub use redvote_testing::*;

use std::process::{Command, Output};

/// A scratch directory of this test process, `name` its own part (made
/// if missing).
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("redvote-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run `redvote [--url URL] ARGS...` and capture its output.
pub fn redvote(url: Option<&str>, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_redvote"));
    cmd.env_remove("REDVOTE_URL");
    if let Some(url) = url {
        cmd.arg("--url").arg(url);
    }
    cmd.args(args).output().expect("run redvote")
}
