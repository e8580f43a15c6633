//! redvote's test harness: throwaway `redis-server` processes on free
//! loopback ports (persistence off, `DEBUG` on, killed on drop), the
//! assertions every refusal test makes, and the seeds' own client-side
//! flow. Used by the tests of every crate of the workspace, by `redvote
//! demo` and by the benchmark, as redis-rs's `redis-test` is by redis-rs.
//! NOT a stable API, and nothing here is for production: [`seed`] is the
//! seeds' flow, several round trips per operation, kept as the benchmark's
//! baseline and for the compatibility tests.
//!
//! # Layout
//! - [`TempServer`] (`server.rs`): one throwaway server; [`INSTALL_HINT`]
//!   says how to install `redis-server` when it is missing. The binary is
//!   [`server_binary`]: `redis-server`, or the path in `REDVOTE_SERVER`
//!   ([`SERVER_ENV`], e.g. a `valkey-server`: docs/servers.md).
//! - [`callgrind`]: a throwaway server under valgrind's callgrind, counting
//!   the instructions (Ir) of each top-level command (the benchmark's `ir`
//!   section).
//! - [`cluster`]: a throwaway Redis Cluster (any masters and replicas),
//!   nodes of [`server_binary`] too.
//! - [`sentinel`]: a throwaway Sentinel deployment (master, replica, 3
//!   sentinels). Redis only: it runs `redis-server` (and `--sentinel`)
//!   whatever `REDVOTE_SERVER` says.
//! - [`tls`]: a CA and certificates made with the openssl CLI, a TLS server
//!   (`redis-server` only, too: the Valkey that `tests/valkey` installs is
//!   built without TLS).
//! - [`seed`]: the seeds' article flow, command for command.
//! - `reads.rs`, `refusals.rs`, `builders.rs`: plain Redis reads, the
//!   digest-unchanged refusal assertions, campaign settings builders.
//! - [`voters`]: voters that vote while a test breaks the deployment.
//! - `sockets.rs`: what a server has read of its connections (Linux's
//!   socket table): [`TempServer::unread_bytes`] (a request waits on a
//!   stopped server), [`TempServer::start_command`] (a command the server
//!   has started, `DEBUG SLEEP` say).
//! - `wait.rs`: [`wait_until`], [`eventually`], [`wait_until_async`]: a
//!   condition polled until it holds, within a deadline ([`PATIENCE`]);
//!   what tests use instead of a fixed sleep.
//! - [`readme`]: the documentation's examples as tests run them.
//! - `http` (feature `http`): a blocking HTTP client for the service's
//!   tests: requests, answers and their problem assertions, SSE streams.
#![warn(missing_docs)]

mod builders;
pub mod callgrind;
pub mod cluster;
mod fixtures;
mod formulas;
#[cfg(feature = "http")]
pub mod http;
pub mod readme;
mod reads;
mod refusals;
mod rng;
pub mod seed;
pub mod sentinel;
mod server;
mod sockets;
pub mod tls;
pub mod voters;
mod wait;

pub use builders::*;
pub use fixtures::*;
pub use formulas::*;
pub use reads::*;
pub use refusals::*;
pub use rng::Rng;
pub use server::{server_binary, TempServer, INSTALL_HINT, SERVER_ENV};
pub use sockets::Started;
pub use wait::{eventually, wait_until, wait_until_async, PATIENCE, POLL};

/// The article site's default vote score (432 per net vote).
pub const VOTE_SCORE: i64 = 432;
/// The article site's default voting window, a week in seconds.
pub const WEEK: i64 = 604800;

/// Start a throwaway server; fails the test (never skips) when redis-server
/// (or `REDVOTE_SERVER`'s binary) is missing, with the install hint.
pub fn server() -> TempServer {
    TempServer::start().unwrap_or_else(|e| panic!("cannot start {}: {e}", server_binary()))
}

/// A throwaway replica of `master` (`--replicaof`), returned once its link
/// is up and its data set is the master's (`DEBUG DIGEST` equal); fails
/// the test when that takes more than 20 s. For the tests that read on a
/// replica: write on the master first, then start the replica.
pub fn replica_of(master: &TempServer) -> TempServer {
    let port = master.port().to_string();
    let replica = TempServer::start_with(&["--replicaof", "127.0.0.1", &port])
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", server_binary()));
    let (mut mcon, mut rcon) = (con(master), con(&replica));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let info: String = redis::cmd("INFO")
            .arg("replication")
            .query(&mut rcon)
            .expect("INFO replication");
        if info.contains("master_link_status:up") && digest(&mut rcon) == digest(&mut mcon) {
            return replica;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the replica did not sync: {info}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A sync connection to `server`.
pub fn con(server: &TempServer) -> redis::Connection {
    server
        .client()
        .get_connection()
        .expect("connect to the test server")
}

/// An async multiplexed connection to `server`.
pub async fn con_async(server: &TempServer) -> redis::aio::MultiplexedConnection {
    server
        .client()
        .get_multiplexed_async_connection()
        .await
        .expect("connect to the test server")
}

/// `DEBUG DIGEST`: one hash of the whole data set (all zeros when empty).
pub fn digest(con: &mut redis::Connection) -> String {
    redis::cmd("DEBUG")
        .arg("DIGEST")
        .query(con)
        .expect("DEBUG DIGEST")
}

/// The server's clock, Unix seconds.
pub fn server_time(con: &mut redis::Connection) -> i64 {
    let (secs, _micros): (i64, i64) = redis::cmd("TIME").query(con).expect("TIME");
    secs
}

/// The server's clock as the seeds read it (`time.time()`: a float).
pub fn now_float(con: &mut redis::Connection) -> f64 {
    let (secs, micros): (f64, f64) = redis::cmd("TIME").query(con).unwrap();
    secs + micros / 1e6
}

/// Keeps the site under `prefix` at data layout 1 (the seeds' groups,
/// rebuilt by `ZINTERSTORE`) when redvote posts its first article: what a
/// user asks for before that post (`redvote:config` field `layout` 1,
/// docs/versions.md#sites), where a new site would start at layout 2.
/// Works through any connection (a cluster one included).
pub fn site_at_layout_1(con: &mut dyn redis::ConnectionLike, prefix: &str) {
    redis::cmd("HSET")
        .arg(format!("{prefix}redvote:config"))
        .arg("layout")
        .arg(1)
        .exec(con)
        .expect("HSET redvote:config layout 1");
}
