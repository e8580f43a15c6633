//! What every test module shares, defined once: the server harness (a real
//! `redis-server` per test on a free loopback port, persistence off, `DEBUG`
//! on), Redis read helpers, the refusal and digest-unchanged assertions,
//! campaign settings builders and wall-clock times, and the `redvote` binary
//! runner. Test modules `use crate::support::...` what they need.

mod builders;
mod cli;
pub mod readme;
mod reads;
mod refusals;
pub mod tls;
pub mod voters;

pub use builders::*;
pub use cli::*;
pub use reads::*;
pub use refusals::*;

use redvote::testing::TempServer;

/// The article site's default vote score (432 per net vote).
pub const VOTE_SCORE: i64 = 432;
/// The article site's default voting window, a week in seconds.
pub const WEEK: i64 = 604800;

/// Start a throwaway server; fails the test (never skips) when redis-server
/// is missing, with the install hint.
pub fn server() -> TempServer {
    TempServer::start().unwrap_or_else(|e| panic!("cannot start redis-server: {e}"))
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
