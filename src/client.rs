//! [`Client`]: connections with connect and response timeouts, and calls
//! retried, within bounds, when a retry cannot count anything twice.
//!
//! `Call::run(&mut con)` sends a call once on any redis-rs connection. A
//! backend that must ride out a dropped connection, a restarting server
//! (`LOADING`) or a long script (`BUSY`) opens a [`Client`] instead:
//!
//! ```no_run
//! use std::time::Duration;
//! use redvote::{Campaign, Client, Retry, Voter};
//!
//! let url = std::env::var("REDIS_URL").expect("REDIS_URL names the Redis to use");
//! let client = Client::open(&url)?
//!     .timeouts(Duration::from_secs(1), Duration::from_secs(2))
//!     .retry(Retry::new(4, Duration::from_millis(50)));
//! let mut con = client.connect()?;
//! let spring = Campaign::new("spring2026");
//! // a vote id makes the vote safe to send again: it counts once
//! let voter = Voter::new("user:1").id("req-7f3a");
//! let ballots = con.run(&spring.vote_by(&voter, &[("best-song", "s1")]))?;
//! # Ok::<(), redvote::Error>(())
//! ```
//!
//! The retry policy, per failure:
//! - the call certainly did not run (the connection could not be made;
//!   the server answered `LOADING`, `BUSY`, `TRYAGAIN`, `MASTERDOWN` or
//!   `CLUSTERDOWN`): retried, whatever the call;
//! - the outcome is unknown (the connection dropped after sending, or no
//!   reply within the response timeout): retried only when
//!   [`Call::is_idempotent`] (every call but `post`, `Site::import` and a
//!   campaign vote without a vote id); otherwise the error is returned and
//!   [`Error::may_have_applied`] says so;
//! - anything else (a script's refusal, a bad URL, `NOPERM`, ...): returned
//!   at once.
//!
//! `NOSCRIPT` never reaches the policy: [`Call::run`] loads the script, and
//! falls back to `EVAL` when it was flushed again meanwhile.

use std::time::Duration;

use crate::call::Call;
use crate::error::{Error, Result};
use crate::reply::Reply;

/// How many times a call is sent at most, and how long to wait in between
/// (doubling from `delay` up to `max_delay`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// Sends at most (1: no retry).
    pub attempts: u32,
    /// Wait before the first retry.
    pub delay: Duration,
    /// The longest wait between two sends.
    pub max_delay: Duration,
}

impl Retry {
    /// Up to `attempts` sends, waiting `delay`, then twice as long each time
    /// (at most 2 s).
    pub fn new(attempts: u32, delay: Duration) -> Self {
        Retry {
            attempts: attempts.max(1),
            delay,
            max_delay: Duration::from_secs(2),
        }
    }

    /// Send once, never retry.
    pub fn never() -> Self {
        Retry::new(1, Duration::ZERO)
    }

    /// The wait before send `n + 1` (`n` sends done), if one is allowed
    /// after `err` for a call that is (or not) idempotent.
    fn after(&self, n: u32, err: &Error, idempotent: bool) -> Option<Duration> {
        let again = match err.outcome() {
            Outcome::NotRun => true,
            Outcome::Unknown => idempotent,
            Outcome::Final => false,
        };
        (again && n < self.attempts).then(|| {
            let factor = 1u32.checked_shl(n.saturating_sub(1)).unwrap_or(u32::MAX);
            self.delay.saturating_mul(factor).min(self.max_delay)
        })
    }
}

impl Retry {
    /// Run `attempt` until it succeeds or the policy stops it. An attempt
    /// answers its result and whether a resend is safe after an unknown
    /// outcome (the call is idempotent, or was never sent).
    fn run_sync<T>(&self, mut attempt: impl FnMut() -> (Result<T>, bool)) -> Result<T> {
        let mut sent = 0;
        loop {
            sent += 1;
            match attempt() {
                (Err(err), safe) => match self.after(sent, &err, safe) {
                    Some(wait) => std::thread::sleep(wait),
                    None => return Err(err),
                },
                (ok, _) => return ok,
            }
        }
    }

    /// [`Retry::run_sync`] for async attempts.
    #[cfg(feature = "async")]
    async fn run_async<T, F>(&self, mut attempt: impl FnMut() -> F) -> Result<T>
    where
        F: std::future::Future<Output = (Result<T>, bool)>,
    {
        let mut sent = 0;
        loop {
            sent += 1;
            match attempt().await {
                (Err(err), safe) => match self.after(sent, &err, safe) {
                    Some(wait) => tokio::time::sleep(wait).await,
                    None => return Err(err),
                },
                (ok, _) => return ok,
            }
        }
    }
}

/// Whether `err` leaves a connection unusable (it failed, or may still
/// deliver a late reply): it is replaced before the next send.
fn broken(err: &Error) -> bool {
    matches!(err, Error::Redis(e) if e.is_io_error() || e.is_timeout() || e.is_connection_dropped())
}

/// The default policy: 4 sends, waiting 50 ms, 100 ms, 200 ms.
impl Default for Retry {
    fn default() -> Self {
        Retry::new(4, Duration::from_millis(50))
    }
}

/// What a failed call tells about whether it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// It did not run: safe to send again.
    NotRun,
    /// It may have run: safe to send again only if it is idempotent.
    Unknown,
    /// Sending it again would fail the same way (or it was refused).
    Final,
}

impl Error {
    fn outcome(&self) -> Outcome {
        let Error::Redis(err) = self else {
            return Outcome::Final;
        };
        if err.is_connection_refusal() {
            return Outcome::NotRun;
        }
        if matches!(
            err.code(),
            Some("LOADING" | "BUSY" | "TRYAGAIN" | "MASTERDOWN" | "CLUSTERDOWN")
        ) {
            return Outcome::NotRun;
        }
        if err.is_io_error() || err.is_timeout() || err.is_connection_dropped() {
            return Outcome::Unknown;
        }
        Outcome::Final
    }

    /// True when the call may have been applied although it failed: the
    /// connection dropped after the call was sent, or no reply came within
    /// the response timeout. Retrying is safe for idempotent calls (a
    /// campaign vote with the same vote id); a campaign vote without an id
    /// retried may count twice.
    pub fn may_have_applied(&self) -> bool {
        self.outcome() == Outcome::Unknown
    }
}

/// Where to connect, with timeouts and a retry policy: the way to open
/// connections that [`Connection::run`] and [`AsyncConnection::run`] retry.
#[derive(Debug, Clone)]
pub struct Client {
    redis: redis::Client,
    connect_timeout: Duration,
    response_timeout: Duration,
    retry: Retry,
}

impl Client {
    /// A client of the Redis at `url` (`redis://[user:pass@]host:port[/db]`,
    /// `rediss://`, `redis+unix://`), with the default timeouts (connect 5 s,
    /// response 5 s) and [`Retry::default`]. Nothing is sent yet.
    pub fn open(url: &str) -> Result<Client> {
        Ok(Client {
            redis: redis::Client::open(url)?,
            connect_timeout: Duration::from_secs(5),
            response_timeout: Duration::from_secs(5),
            retry: Retry::default(),
        })
    }

    /// The same client with these timeouts: to establish a connection, and
    /// to wait for each reply (a server that stops answering fails the call
    /// after `response`, an outcome-unknown failure).
    pub fn timeouts(self, connect: Duration, response: Duration) -> Self {
        Client {
            connect_timeout: connect,
            response_timeout: response,
            ..self
        }
    }

    /// The same client with this retry policy.
    pub fn retry(self, retry: Retry) -> Self {
        Client { retry, ..self }
    }

    /// The redis-rs client underneath.
    pub fn redis(&self) -> &redis::Client {
        &self.redis
    }

    /// A sync connection (connected now, with the timeouts, retried per the
    /// policy); it reconnects by itself after a connection error.
    pub fn connect(&self) -> Result<Connection> {
        let mut con = Connection {
            client: self.clone(),
            con: None,
        };
        self.retry.run_sync(|| (con.redis().map(|_| ()), true))?;
        Ok(con)
    }

    /// An async connection (a redis-rs `MultiplexedConnection`, connected
    /// now with the timeouts, replaced after a connection error; clones share
    /// it).
    #[cfg(feature = "async")]
    pub async fn connect_async(&self) -> Result<AsyncConnection> {
        let con = AsyncConnection {
            client: self.clone(),
            shared: std::sync::Arc::new(tokio::sync::Mutex::new(Shared::default())),
        };
        self.retry
            .run_async(|| async { (con.current().await.map(|_| ()), true) })
            .await?;
        Ok(con)
    }
}

/// A sync connection that retries calls by [`Client`]'s policy and
/// reconnects after a connection error.
pub struct Connection {
    client: Client,
    con: Option<redis::Connection>,
}

impl Connection {
    /// Run `call`, retried per the client's [`Retry`] policy (see the
    /// module documentation for which failures are retried).
    pub fn run<T: Reply>(&mut self, call: &Call<T>) -> Result<T> {
        let retry = self.client.retry;
        retry.run_sync(|| match self.redis() {
            Ok(con) => {
                let result = call.run(con);
                if result.as_ref().is_err_and(broken) {
                    self.con = None;
                }
                (result, call.is_idempotent())
            }
            // a failure to (re)connect: the call was not sent
            Err(err) => (Err(err), true),
        })
    }

    /// The redis-rs connection, connecting first if the last one failed.
    pub fn redis(&mut self) -> Result<&mut redis::Connection> {
        if self.con.is_none() {
            let c = &self.client;
            let con = connect_sync(&c.redis, c.connect_timeout, c.response_timeout)?;
            self.con = Some(con);
        }
        Ok(self.con.as_mut().expect("connected above"))
    }
}

/// Connect to every address `redis` resolves to, each within `connect`, and
/// set the read and write timeouts.
fn connect_sync(
    redis: &redis::Client,
    connect: Duration,
    response: Duration,
) -> Result<redis::Connection> {
    let con = redis.get_connection_with_timeout(connect)?;
    con.set_read_timeout(Some(response))?;
    con.set_write_timeout(Some(response))?;
    Ok(con)
}

/// An async connection that retries calls by [`Client`]'s policy; clones
/// share one multiplexed connection, which is replaced (by the first caller
/// that needs it) after a connection error.
#[cfg(feature = "async")]
#[derive(Clone)]
pub struct AsyncConnection {
    client: Client,
    shared: std::sync::Arc<tokio::sync::Mutex<Shared>>,
}

/// The connection clones share, with a generation number so that a failed
/// one is dropped once, not its replacement.
#[cfg(feature = "async")]
#[derive(Default)]
struct Shared {
    con: Option<(u64, redis::aio::MultiplexedConnection)>,
    generation: u64,
}

#[cfg(feature = "async")]
impl AsyncConnection {
    /// Run `call`, retried per the client's [`Retry`] policy.
    pub async fn run<T: Reply>(&self, call: &Call<T>) -> Result<T> {
        let attempt = || async {
            match self.current().await {
                Ok((generation, mut con)) => {
                    let result = call.run_async(&mut con).await;
                    if result.as_ref().is_err_and(broken) {
                        self.forget(generation).await;
                    }
                    (result, call.is_idempotent())
                }
                // a failure to (re)connect: the call was not sent
                Err(err) => (Err(err), true),
            }
        };
        self.client.retry.run_async(attempt).await
    }

    /// The redis-rs connection, connecting first if the last one failed.
    pub async fn redis(&self) -> Result<redis::aio::MultiplexedConnection> {
        Ok(self.current().await?.1)
    }

    async fn current(&self) -> Result<(u64, redis::aio::MultiplexedConnection)> {
        let mut shared = self.shared.lock().await;
        if let Some((generation, con)) = &shared.con {
            return Ok((*generation, con.clone()));
        }
        let config = redis::AsyncConnectionConfig::new()
            .set_connection_timeout(Some(self.client.connect_timeout))
            .set_response_timeout(Some(self.client.response_timeout));
        let con = self
            .client
            .redis
            .get_multiplexed_async_connection_with_config(&config)
            .await?;
        shared.generation += 1;
        shared.con = Some((shared.generation, con.clone()));
        Ok((shared.generation, con))
    }

    /// Drop the connection of `generation` (if it is still the current one).
    async fn forget(&self, generation: u64) {
        let mut shared = self.shared.lock().await;
        if matches!(&shared.con, Some((g, _)) if *g == generation) {
            shared.con = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which calls a retry may resend after an unknown outcome.
    #[test]
    fn only_calls_that_cannot_count_twice_are_idempotent() {
        use crate::{BoardSettings, Campaign, CampaignSettings, Order, Period, Site, Voter};
        let (site, c) = (Site::default(), Campaign::new("c"));
        assert!(site.vote("u", "1").is_idempotent());
        assert!(site.page(Order::Score, 1, None).is_idempotent());
        assert!(site.groups("1", &["g"], &[]).is_idempotent());
        assert!(!site.post("u", "t", "https://e.x").is_idempotent());
        assert!(!site.import("u", "t", "https://e.x", 5).is_idempotent());
        assert!(!c.vote("u", &[("b", "o")]).is_idempotent());
        assert!(c
            .vote_by(&Voter::new("u").id("v1"), &[("b", "o")])
            .is_idempotent());
        assert!(c.import("b", &[("o", "1")]).is_idempotent());
        assert!(c.configure(&CampaignSettings::new()).is_idempotent());
        let removal = BoardSettings {
            remove: vec!["o".to_string()],
            ..BoardSettings::new(&[Period::Total])
        };
        let removes = CampaignSettings::new().with_board("b", removal);
        assert!(!c.configure(&removes).is_idempotent());
    }

    #[test]
    fn the_policy_retries_what_cannot_double() {
        let retry = Retry::new(3, Duration::from_millis(10));
        let dropped = Error::Redis(redis::RedisError::from(std::io::Error::from(
            std::io::ErrorKind::UnexpectedEof,
        )));
        assert!(dropped.may_have_applied());
        assert_eq!(
            retry.after(1, &dropped, true),
            Some(Duration::from_millis(10))
        );
        assert_eq!(
            retry.after(2, &dropped, true),
            Some(Duration::from_millis(20))
        );
        assert_eq!(retry.after(3, &dropped, true), None, "3 sends at most");
        assert_eq!(retry.after(1, &dropped, false), None, "not idempotent");
        let refused = Error::Redis(redis::RedisError::from(std::io::Error::from(
            std::io::ErrorKind::ConnectionRefused,
        )));
        assert!(!refused.may_have_applied());
        assert!(retry.after(1, &refused, false).is_some(), "never sent");
        let script = Error::Script {
            code: crate::Code::Usage,
            detail: String::new(),
        };
        assert_eq!(retry.after(1, &script, true), None);
        assert!(Retry::never().after(1, &dropped, true).is_none());
    }
}
