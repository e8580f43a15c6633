//! [`CallgrindServer`]: a throwaway server ([`TempServer`]) run under
//! valgrind's callgrind, counting the instructions (Ir) the server executes
//! in `processCommand` and what it calls, and nothing else.
//!
//! `processCommand` is entered once per top-level client command (a
//! script's inner `redis.call`s do not go through it), so a count covers
//! the command's execution, the whole script included, and leaves out the
//! socket I/O, the RESP parsing and the event loop: the same for a script
//! and for plain commands. Instruction counts do not depend on the load of
//! the machine, which makes them repeatable where wall or CPU times are
//! not (the benchmark's `ir` section, docs/benchmark.md).
//!
//! Collection is off at start (`--collect-atstart=no`) and toggled by
//! entering and leaving `processCommand` (`--toggle-collect`); a phase is
//! measured by [`CallgrindServer::zero`] before it and
//! [`CallgrindServer::dump`] after it (`callgrind_control --zero` and
//! `--dump`, which return once valgrind has acted), the dump's `summary:`
//! line being the Ir since the zero. Valgrind slows the server about 50
//! times: keep the calls of a phase modest.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use crate::TempServer;

/// What to tell someone whose machine has no valgrind.
pub const VALGRIND_HINT: &str = "valgrind (and its callgrind_control) was not found on PATH; \
    install it (Debian/Ubuntu: `sudo apt-get install -y valgrind`)";

/// The function whose calls are counted: entered once per top-level
/// command.
pub const TOGGLE_FUNCTION: &str = "processCommand";

/// The function through which a script's `redis.call` runs a command
/// (Redis 7's script.c): its inclusive Ir is what the script's own
/// commands cost, the rest of a script's Ir its Lua (and the conversion of
/// arguments and replies between Lua and Redis).
pub const SCRIPT_COMMAND_FUNCTION: &str = "scriptCall";

/// A dump's counts: the Ir in all, and of them the Ir inside
/// [`SCRIPT_COMMAND_FUNCTION`] (None when the dump does not name it: no
/// script ran, or a Redis before 7.0, or `callgrind_annotate` is missing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IrSplit {
    /// Every Ir counted.
    pub total: u64,
    /// The Ir of the commands scripts sent (inclusive).
    pub in_script_commands: Option<u64>,
}

/// A throwaway server under callgrind (killed and its files removed on
/// drop).
#[derive(Debug)]
pub struct CallgrindServer {
    server: TempServer,
    /// The directory of the dump files (`callgrind.out.<n>`).
    out_dir: PathBuf,
    /// Dumps made so far (the next dump file is `callgrind.out.<dumps+1>`).
    dumps: u32,
}

/// `program --version` runs: the program is installed.
fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

impl CallgrindServer {
    /// Start a server (persistence off, DEBUG on, `extra` arguments) under
    /// `valgrind --tool=callgrind --collect-atstart=no
    /// --toggle-collect=processCommand`, and wait (up to 2 minutes) until
    /// it answers PING. Fails with [`VALGRIND_HINT`] when valgrind or
    /// callgrind_control is missing.
    pub fn start(extra: &[&str]) -> io::Result<CallgrindServer> {
        CallgrindServer::start_with(extra, Duration::from_secs(120))
    }

    /// [`start`](Self::start), waiting up to `ready` for the first PONG: a
    /// server given an RDB to load (`--dir D --dbfilename F` in `extra`)
    /// answers LOADING until it has loaded it, about 25 times slower under
    /// valgrind than without (2M small keys: 45 s against 1.9 s).
    pub fn start_with(extra: &[&str], ready: Duration) -> io::Result<CallgrindServer> {
        if !runs("valgrind") || !runs("callgrind_control") {
            return Err(io::Error::new(io::ErrorKind::NotFound, VALGRIND_HINT));
        }
        static SEQ: AtomicU32 = AtomicU32::new(0);
        let out_dir = std::env::temp_dir().join(format!(
            "redvote-callgrind-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&out_dir)?;
        let out_file = format!(
            "--callgrind-out-file={}",
            out_dir.join("callgrind.out").display()
        );
        let toggle = format!("--toggle-collect={TOGGLE_FUNCTION}");
        let wrapper = [
            "valgrind",
            "--tool=callgrind",
            "--collect-atstart=no",
            &toggle,
            &out_file,
        ];
        let server = TempServer::start_wrapped(&wrapper, extra, ready)?;
        Ok(CallgrindServer {
            server,
            out_dir,
            dumps: 0,
        })
    }

    /// The server (its URL, client, port).
    pub fn server(&self) -> &TempServer {
        &self.server
    }

    /// `callgrind_control --zero`: the counts start again from 0.
    pub fn zero(&self) -> io::Result<()> {
        self.control("--zero")
    }

    /// `callgrind_control --dump`: the Ir counted since the last
    /// [`zero`](Self::zero) (or dump), read from the dump's `summary:` line
    /// (the dump file is removed).
    pub fn dump(&mut self) -> io::Result<u64> {
        self.control("--dump")?;
        self.dumps += 1;
        let path = self.out_dir.join(format!("callgrind.out.{}", self.dumps));
        let ir = summary(&path)?;
        let _ = std::fs::remove_file(&path);
        Ok(ir)
    }

    /// Like [`dump`](Self::dump), with the Ir inside the commands scripts
    /// sent (`callgrind_annotate --inclusive=yes`, the line of
    /// [`SCRIPT_COMMAND_FUNCTION`]).
    pub fn dump_split(&mut self) -> io::Result<IrSplit> {
        self.control("--dump")?;
        self.dumps += 1;
        let path = self.out_dir.join(format!("callgrind.out.{}", self.dumps));
        let total = summary(&path)?;
        let in_script_commands = inclusive(&path, SCRIPT_COMMAND_FUNCTION);
        let _ = std::fs::remove_file(&path);
        Ok(IrSplit {
            total,
            in_script_commands,
        })
    }

    /// The Ir of what `f` makes the server do: zero, `f`, dump.
    pub fn measure<T, E: From<io::Error>>(
        &mut self,
        f: impl FnOnce() -> Result<T, E>,
    ) -> Result<(T, u64), E> {
        self.zero()?;
        let out = f()?;
        Ok((out, self.dump()?))
    }

    fn control(&self, what: &str) -> io::Result<()> {
        let out = Command::new("callgrind_control")
            .arg(what)
            .arg(self.server.pid().to_string())
            .stdin(Stdio::null())
            .output()
            .map_err(|e| io::Error::new(e.kind(), format!("callgrind_control: {e}")))?;
        let text = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() || !text.contains("OK") {
            return Err(io::Error::other(format!(
                "callgrind_control {what} {} failed: {} {}",
                self.server.pid(),
                text.trim(),
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(())
    }
}

/// The `summary:` (else `totals:`) count of a callgrind dump file.
fn summary(path: &Path) -> io::Result<u64> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("summary:"))
        .or_else(|| text.lines().find_map(|l| l.strip_prefix("totals:")))
        .ok_or_else(|| io::Error::other(format!("{} has no summary line", path.display())))?;
    line.split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| io::Error::other(format!("{}: bad summary {line:?}", path.display())))
}

/// The inclusive Ir of `function` in a dump file, from `callgrind_annotate
/// --inclusive=yes` (a line `N (P%)  FILE:function [OBJECT]`; a recursive
/// entry, `function'2`, is already inside it). None when it is not there.
fn inclusive(path: &Path, function: &str) -> Option<u64> {
    let out = Command::new("callgrind_annotate")
        .args(["--inclusive=yes", "--threshold=100", "--auto=no"])
        .arg(path)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let suffix = format!(":{function} ");
    text.lines().find_map(|line| {
        let line = line.trim_start();
        let (count, rest) = line.split_once(' ')?;
        rest.contains(&suffix)
            .then(|| count.replace(',', "").parse().ok())
            .flatten()
    })
}

impl Drop for CallgrindServer {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.out_dir);
    }
}
