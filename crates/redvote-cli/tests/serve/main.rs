//! `redvote serve` as a process: the binary started against a real
//! `redis-server` of the test's own, on a free port it reports
//! (`--listen 127.0.0.1:0`, then the first stdout line `listening on
//! ADDR`), driven with a plain HTTP client. What only the process does is
//! tested here: that line, the command line's refusals, SIGTERM, the drain
//! and the exit codes, and the tests that drive the whole program from
//! outside (the browser, schemathesis, README's curl examples). The HTTP
//! behaviour of the service is tested in-process in
//! crates/redvote-serve/tests/service. The harness is here; the tests are
//! in one module per topic.

mod admin;
mod auth;
mod browser;
mod manager;
mod ops;
mod readme;
mod schemathesis;
mod site;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The blocking HTTP client (redvote-testing's `http`).
pub use redvote_testing::http::{Api, Reply, Request};
use redvote_testing::TempServer;

/// The admin token the harness starts services with.
pub const ADMIN: &str = "admin-secret-token";

/// A running `redvote serve`, killed on drop.
pub struct Service {
    child: Child,
    /// Its base URL (`http://127.0.0.1:PORT`) and the requests.
    api: Api,
}

impl Service {
    /// `redvote serve` on `server` with the admin token [`ADMIN`].
    pub fn start(server: &TempServer) -> Service {
        Service::with(server, &["--admin-token", ADMIN], &[])
    }

    /// `redvote --url URL serve --listen 127.0.0.1:0 ARGS...` with `env`
    /// (never the caller's REDVOTE_* variables).
    pub fn with(server: &TempServer, args: &[&str], env: &[(&str, &str)]) -> Service {
        let mut child = Service::command(server, args, env)
            .stdout(Stdio::piped())
            .spawn()
            .expect("start redvote serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("read redvote serve's stdout");
        let Some(addr) = line.trim().strip_prefix("listening on ") else {
            let status = child.wait().unwrap();
            panic!("redvote serve did not start ({status}): {line:?}");
        };
        Service {
            api: Api::new(format!("http://{addr}"), ADMIN),
            child,
        }
    }

    /// The command line, not started.
    pub fn command(server: &TempServer, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_redvote"));
        for var in [
            "REDVOTE_URL",
            "REDVOTE_ADMIN_TOKEN",
            "REDVOTE_API_TOKEN",
            "RUST_LOG",
        ] {
            cmd.env_remove(var);
        }
        cmd.env("RUST_LOG", "warn")
            .envs(env.iter().copied())
            .args(["--url", &server.url(), "serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stderr(Stdio::null());
        cmd
    }

    /// The process id (for signals).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Send `signal` (`TERM`, ...) to the service.
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &self.pid().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -{signal}");
    }

    /// Wait at most `limit` for the process to exit.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            if start.elapsed() > limit {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// The requests of [`Api`] (`svc.get(...)`, `svc.base`, ...).
impl std::ops::Deref for Service {
    type Target = Api;

    fn deref(&self) -> &Api {
        &self.api
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
