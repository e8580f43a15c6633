//! [`TempServer`]: a throwaway `redis-server` on a free loopback port.
//!
//! Used by `redvote demo` and the benchmark (`cargo bench -p redvote-bench`)
//! when no `--url` is given, and by the test suite: persistence off, its own
//! temporary directory, `DEBUG` enabled (for `DEBUG DIGEST`), killed when
//! dropped.
//!
//! The program run is [`server_binary`]: `redis-server` from `PATH`, or the
//! one the environment variable `REDVOTE_SERVER` names (a path such as
//! `~/.cache/redvote/valkey/.../valkey-server`: `tests/valkey` runs the
//! suites against Valkey that way, docs/servers.md). Every `TempServer`
//! and so every [`crate::cluster`] node runs it.

use std::io;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// A running server child process ([`server_binary`]), killed on drop.
#[derive(Debug)]
pub struct TempServer {
    child: Child,
    port: u16,
    dir: PathBuf,
    extra: Vec<String>,
    /// A program the server runs under (e.g. `valgrind --tool=callgrind
    /// ...`): its argv, the server's command line appended.
    wrapper: Vec<String>,
}

/// What to tell someone whose machine has no `redis-server`.
pub const INSTALL_HINT: &str = "redis-server was not found on PATH; install it \
    (Debian/Ubuntu: `sudo apt-get install -y redis-server`, macOS: `brew install redis`)";

/// The environment variable naming the server binary to run instead of
/// `redis-server` (its path, or a name looked up on `PATH`).
pub const SERVER_ENV: &str = "REDVOTE_SERVER";

/// The server binary every [`TempServer`] (and so every cluster node) runs:
/// `$REDVOTE_SERVER` when set and not empty, else `redis-server`.
pub fn server_binary() -> String {
    std::env::var(SERVER_ENV)
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "redis-server".to_string())
}

/// The error of a server binary that cannot be run, naming `REDVOTE_SERVER`
/// either way: the binary it chose, or the install hint and the variable.
fn not_found(binary: &str, e: io::Error) -> io::Error {
    let message = if std::env::var_os(SERVER_ENV).is_some_and(|v| !v.is_empty()) {
        format!(
            "{SERVER_ENV}={binary} cannot be run ({e}); set {SERVER_ENV} to the path of a \
             redis-server or valkey-server, or unset it to run redis-server from PATH"
        )
    } else {
        format!(
            "{INSTALL_HINT}; or set {SERVER_ENV} to the path of another server binary \
             (a valkey-server: docs/servers.md)"
        )
    };
    io::Error::new(e.kind(), message)
}

impl TempServer {
    /// Start a server with persistence off and `DEBUG` enabled.
    pub fn start() -> io::Result<TempServer> {
        Self::start_with(&[])
    }

    /// Start a server with extra `redis-server` arguments (e.g.
    /// `["--maxmemory", "1mb"]`).
    pub fn start_with(extra: &[&str]) -> io::Result<TempServer> {
        Self::start_wrapped(&[], extra, Duration::from_secs(10))
    }

    /// Start a server under `wrapper` (a program and its arguments, the
    /// server's command line appended: `["valgrind", "--tool=callgrind"]`),
    /// with extra `redis-server` arguments, waiting up to `ready` for PING
    /// (a server under valgrind takes seconds to start). An empty
    /// `wrapper` runs the server itself.
    pub fn start_wrapped(
        wrapper: &[&str],
        extra: &[&str],
        ready: Duration,
    ) -> io::Result<TempServer> {
        static SEQ: AtomicU32 = AtomicU32::new(0);
        let mut last = None;
        // A free port can be taken by someone else between our probe and the
        // server's bind: retry on a fresh port a few times.
        for _ in 0..5 {
            let port = TcpListener::bind(("127.0.0.1", 0))?.local_addr()?.port();
            let dir = std::env::temp_dir().join(format!(
                "redvote-{}-{}",
                std::process::id(),
                SEQ.fetch_add(1, Ordering::Relaxed)
            ));
            std::fs::create_dir_all(&dir)?;
            let extra: Vec<String> = extra.iter().map(|a| a.to_string()).collect();
            let wrapper: Vec<String> = wrapper.iter().map(|a| a.to_string()).collect();
            let child = spawn(&wrapper, port, &dir, &extra)?;
            let mut server = TempServer {
                child,
                port,
                dir,
                extra,
                wrapper,
            };
            match server.wait_ready(ready) {
                Ok(()) => return Ok(server),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other(format!("{} did not start", server_binary()))))
    }

    fn wait_ready(&mut self, limit: Duration) -> io::Result<()> {
        let client = redis::Client::open(self.url()).map_err(io::Error::other)?;
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait()? {
                let log = std::fs::read_to_string(self.dir.join("redis.log")).unwrap_or_default();
                return Err(io::Error::other(format!(
                    "{} exited ({status}) on port {}: {}",
                    server_binary(),
                    self.port,
                    log.lines().last().unwrap_or("")
                )));
            }
            if let Ok(mut con) = client.get_connection() {
                if redis::cmd("PING").query::<String>(&mut con).is_ok() {
                    return Ok(());
                }
            }
            if start.elapsed() > limit {
                return Err(io::Error::other(format!(
                    "{} on port {} did not answer PING within {limit:?}",
                    server_binary(),
                    self.port
                )));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Fault injection: kill the server with SIGKILL (no shutdown, no
    /// final fsync) and wait for it to die. Its directory (AOF, RDB) stays.
    pub fn kill(&mut self) -> io::Result<()> {
        self.child.kill()?;
        self.child.wait()?;
        Ok(())
    }

    /// Start the server again on the same port and directory, with the same
    /// arguments (it loads its AOF or RDB, if persistence was on), and wait
    /// until it answers PING.
    pub fn restart(&mut self) -> io::Result<()> {
        if self.child.try_wait()?.is_none() {
            self.kill()?;
        }
        self.child = spawn(&self.wrapper, self.port, &self.dir, &self.extra)?;
        self.wait_ready(Duration::from_secs(30))
    }

    /// Send `sig` (`"-STOP"`, `"-CONT"`, ...) to the server with `kill`;
    /// panics when `kill` fails.
    pub fn signal(&self, sig: &str) {
        let status = Command::new("kill")
            .args([sig, &self.pid().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success(), "kill {sig}");
    }

    /// The server's process id (for signals such as SIGSTOP).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's working directory (its log, AOF and RDB files).
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// The loopback port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `redis://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// A client for this server.
    pub fn client(&self) -> redis::Client {
        redis::Client::open(self.url()).expect("a loopback URL is valid")
    }
}

/// [`server_binary`] on `port` in `dir` (under `wrapper` when not empty):
/// persistence off and DEBUG on unless `extra` says otherwise (later
/// arguments win).
fn spawn(
    wrapper: &[String],
    port: u16,
    dir: &std::path::Path,
    extra: &[String],
) -> io::Result<Child> {
    let binary = server_binary();
    let mut command = match wrapper.split_first() {
        Some((program, args)) => {
            let mut c = Command::new(program);
            c.args(args).arg(&binary);
            c
        }
        None => Command::new(&binary),
    };
    command
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
        .args(["--enable-debug-command", "yes"])
        .arg("--dir")
        .arg(dir)
        .args(["--logfile", "redis.log"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::PermissionDenied if !wrapper.is_empty() => {
                io::Error::new(e.kind(), format!("{} cannot be run: {e}", wrapper[0]))
            }
            io::ErrorKind::NotFound | io::ErrorKind::PermissionDenied => not_found(&binary, e),
            _ => e,
        })
}

impl Drop for TempServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
