//! The `redvote` binary as the CLI tests run it: `--url` when given, never a
//! `REDVOTE_URL` inherited from the caller's environment.

use std::process::{Command, Output};

/// Run `redvote [--url URL] ARGS...` and capture its output.
pub fn redvote(url: Option<&str>, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_redvote"));
    cmd.env_remove("REDVOTE_URL");
    if let Some(url) = url {
        cmd.arg("--url").arg(url);
    }
    cmd.args(args).output().expect("run redvote")
}
