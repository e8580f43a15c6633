//! [`Client`]: one way to connect (a server, TLS, Sentinel or a Redis
//! Cluster, from one URL: [`target`]), connect and response timeouts, calls
//! retried within bounds when a retry cannot count anything twice, and an
//! optional wait for replicas.
//!
//! `Call::run(&mut con)` sends a call once on any redis-rs connection. A
//! backend that must ride out a dropped connection, a restarting server
//! (`LOADING`), a long script (`BUSY`), a failover or a resharding
//! (`TRYAGAIN`) opens a [`Client`] instead:
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
//! - the call certainly did not run (the connection could not be made, or
//!   the sentinels named no master that answers as one;
//!   the server answered `LOADING`, `BUSY`, `TRYAGAIN`, `MASTERDOWN`,
//!   `CLUSTERDOWN`, `READONLY`, `NOREPLICAS` (`min-replicas-to-write`;
//!   the scripts declare themselves with `#!lua`, so Redis refuses them
//!   before they run), or a cluster redirection `ASK` / `MOVED` that
//!   redis-rs's cluster client gave up following): retried, whatever the
//!   call;
//! - the outcome is unknown (the connection dropped after sending, or no
//!   reply within the response timeout, or [`Error::NotReplicated`]):
//!   retried only when [`Call::is_idempotent`] (every call but `post`,
//!   `Site::import` and a campaign vote without a vote id); otherwise the
//!   error is returned and [`Error::may_have_applied`] says so;
//! - anything else (a script's refusal, a bad URL, `NOPERM`, a TLS
//!   certificate refused by either side, ...): returned at once.
//!
//! On a cluster, redis-rs's cluster client also resends by itself (it
//! follows `MOVED`/`ASK`, waits out `TRYAGAIN`/`CLUSTERDOWN`, and resends
//! after a lost connection), so every campaign vote sent without a vote id
//! gets one drawn by the driver ([`Call::with_vote_id`]): it counts once
//! however often it is sent. `post` and `Site::import` have no id: on a
//! cluster, a post whose connection was lost may be posted twice.
//!
//! `NOSCRIPT` never reaches the policy: [`Call::run`] answers it with
//! `EVAL`, on the one node that owns the key.
//!
//! A page ([`PageCall`](crate::PageCall): a script call, then the articles'
//! hashes in one `MULTI`/`EXEC`) goes through the same policy:
//! [`Connection::page`] (and `AsyncConnection::page`) resends the whole
//! page, from its script call, after any failure that an idempotent call
//! is resent after; both parts only read.
//!
//! # Layout
//! - this module: [`Client`], the builder, and the re-exports;
//! - [`target`]: a URL parsed into what to connect to (a server, the
//!   sentinels of a master, a cluster's seed nodes), with TLS ([`Tls`]) and
//!   [`redact`];
//! - `retry`: [`Retry`] and the reading of a failure as "not run", "may
//!   have applied" or final, the one loop both connections retry in;
//! - `wait`: the `WAIT` after a write ([`Client::wait_for_replicas`]) and
//!   the reading of its replies;
//! - `cluster`: [`key_slot`], [`hash_tag`], `CLUSTER SLOTS`, the node
//!   clients of [`Client::for_key`] and [`Client::primaries`];
//! - `sentinel`: asking the sentinels for the master and checking it, each
//!   step within the call's deadline (sync and async);
//! - `sync`: [`Connection`] (on a cluster with the feature `async`, an
//!   async cluster connection driven on a runtime of its own, so that its
//!   calls are cut at the deadline);
//! - `aio` (feature `async`): `AsyncConnection` and `AsyncRedis`.
//!
//! [`Call::run`]: crate::Call::run
//! [`Call::is_idempotent`]: crate::Call::is_idempotent
//! [`Call::with_vote_id`]: crate::Call::with_vote_id
//! [`Error::NotReplicated`]: crate::Error::NotReplicated
//! [`Error::may_have_applied`]: crate::Error::may_have_applied

#[cfg(feature = "async")]
mod aio;
mod cluster;
mod retry;
mod sentinel;
mod sync;
pub mod target;
mod wait;

use std::time::Duration;

#[cfg(feature = "async")]
pub use aio::{AsyncConnection, AsyncRedis};
pub use cluster::{hash_tag, key_slot, ClusterRetry};
pub use retry::Retry;
pub use sync::Connection;
use target::Target;
pub use target::{redact, Tls};

use crate::error::Result;

/// Where to connect, with timeouts, a retry policy and an optional wait
/// for replicas: the way to open connections that [`Connection::run`] and
/// `AsyncConnection::run` retry.
#[derive(Clone)]
pub struct Client {
    target: Target,
    url: String,
    connect_timeout: Duration,
    response_timeout: Duration,
    retry: Retry,
    /// The overall time a call may take (None: what the retry policy and
    /// the timeouts add up to, [`Client::call_deadline`]).
    deadline: Option<Duration>,
    /// redis-rs's own retries inside a cluster call.
    cluster_retry: ClusterRetry,
    wait: Option<(u32, Duration)>,
    /// Connections of an [`AsyncConnection`] (None: the default, see
    /// [`Client::async_connections`]).
    #[cfg_attr(not(feature = "async"), allow(dead_code))]
    links: Option<usize>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("url", &self.url)
            .field("connect_timeout", &self.connect_timeout)
            .field("response_timeout", &self.response_timeout)
            .field("retry", &self.retry)
            .field("deadline", &self.call_deadline())
            .field("cluster_retry", &self.cluster_retry)
            .field("wait", &self.wait)
            .finish()
    }
}

impl Client {
    /// A client of the Redis that `url` names, in any form of [`target`]:
    /// `redis://`, `rediss://`, `redis+unix://`, `redis+sentinel://`,
    /// `redis+cluster://` (and the `rediss+` forms). Default timeouts
    /// (connect 5 s, response 5 s; a cluster's too) and [`Retry::default`].
    /// Nothing is sent yet.
    pub fn open(url: &str) -> Result<Client> {
        Client::open_tls(url, &Tls::default())
    }

    /// [`Client::open`] with TLS material: a CA and/or a client certificate
    /// (for `rediss` URLs; refused for a URL without TLS).
    pub fn open_tls(url: &str, tls: &Tls) -> Result<Client> {
        Ok(Client {
            target: Target::parse(url, tls)?,
            url: redact(url),
            connect_timeout: Duration::from_secs(5),
            response_timeout: Duration::from_secs(5),
            retry: Retry::default(),
            deadline: None,
            cluster_retry: ClusterRetry::default(),
            wait: None,
            links: None,
        })
    }

    /// The same client with these timeouts of one attempt: to establish a
    /// connection (to a server, a sentinel, a cluster node), and to wait for
    /// each reply (a server that stops answering fails the attempt after
    /// `response`, an outcome-unknown failure). Both are capped by what
    /// remains of the call's [deadline](Client::deadline). On a cluster they
    /// are redis-rs's `connection_timeout` and `response_timeout` (which has
    /// none by default: here it always has one).
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

    /// The same client with an overall deadline per call: `Client::connect`,
    /// each `run` and each `page` end within `deadline`, whatever the
    /// deployment does: connecting (asking the sentinels and checking the
    /// master they name, reading a cluster's slots), every send, redis-rs's
    /// own cluster retries and the waits between retries all count against
    /// it, and each connect and reply timeout is capped by what remains.
    /// Past it the call fails with [`Error::Timeout`](crate::Error::Timeout)
    /// (`may_have_applied()` is true when the call may have been sent). An
    /// async call is cut at the deadline, and so is a sync call on a
    /// cluster with the feature `async` (the default: [`Connection`] drives
    /// an async cluster connection on a runtime of its own); any other sync
    /// call can overrun it by the time one blocking step takes once capped
    /// (a few ms). Without `async`, a sync cluster call goes through
    /// redis-rs's sync cluster client, which makes several blocking steps
    /// per attempt (a connect and `PING` of every node on a slot refresh):
    /// it is not held to the deadline. [`Connection::redis`] on a cluster
    /// is that sync client too (its timeouts apply, not the deadline).
    ///
    /// Default: what the retry policy and the timeouts add up to (every
    /// send's connect and response timeouts, and the waits in between).
    pub fn deadline(self, deadline: Duration) -> Self {
        Client {
            deadline: Some(deadline),
            ..self
        }
    }

    /// The overall time a call may take: [`Client::deadline`], or by
    /// default `attempts * (connect + response)` plus the retry waits.
    pub fn call_deadline(&self) -> Duration {
        self.deadline.unwrap_or_else(|| {
            let r = &self.retry;
            let sends = (self.connect_timeout + self.response_timeout).saturating_mul(r.attempts);
            let waits = (1..r.attempts)
                .map(|n| {
                    let factor = 1u32.checked_shl(n - 1).unwrap_or(u32::MAX);
                    r.delay.saturating_mul(factor).min(r.max_delay)
                })
                .fold(Duration::ZERO, Duration::saturating_add);
            sends.saturating_add(waits)
        })
    }

    /// The same client with these settings of redis-rs's own retries inside
    /// one cluster call (after a lost connection, `TRYAGAIN`, `CLUSTERDOWN`,
    /// `MOVED`/`ASK`); each such call is still one attempt of
    /// [`Client::retry`] and inside [`Client::deadline`]. No effect on other
    /// URLs.
    pub fn cluster_retry(self, cluster_retry: ClusterRetry) -> Self {
        Client {
            cluster_retry,
            ..self
        }
    }

    /// The time budget of one call, from now.
    fn budget(&self) -> retry::Budget {
        retry::Budget::new(self.call_deadline())
    }

    /// The same client, waiting after every call that writes until
    /// `replicas` replicas acknowledged it (`WAIT replicas timeout`, sent in
    /// the same round trip as the script; on a sync cluster connection,
    /// right after it, to the same node). Fewer within `timeout` fail the
    /// call with [`Error::NotReplicated`](crate::Error::NotReplicated): it was applied on the primary but
    /// a failover may lose it. 0 replicas: do not wait (the default).
    ///
    /// What each setting promises when the primary fails and a replica
    /// takes over: without a wait, an acknowledged write can be lost if it
    /// had not reached the replica (Redis replicates asynchronously; the
    /// window is usually milliseconds); with `replicas = 1` on a primary
    /// with one replica, an acknowledged write is on the replica, and the
    /// failover (which promotes the most up-to-date replica) keeps it.
    ///
    /// A `WAIT` counts the writes of the connection it is sent on. On a
    /// sync cluster connection built without the feature `async` it is a
    /// second request to the slot's primary (redis-rs's sync cluster client
    /// has no routed pipeline): should redis-rs reconnect between the two,
    /// or the script have run on another node after an `ASK`, it reaches a
    /// connection that wrote nothing and answers at once. The async cluster
    /// connection (which a sync one uses with `async`) sends both in one
    /// pipeline and has no such gap.
    pub fn wait_for_replicas(self, replicas: u32, timeout: Duration) -> Self {
        Client {
            wait: (replicas > 0).then_some((replicas, timeout)),
            ..self
        }
    }

    /// The same client, its [`AsyncConnection`]s spreading their calls over
    /// `n` connections (each a multiplexed or cluster connection, made when
    /// first used, replaced on its own after an error; calls take them in
    /// turn). Default: 1, or 8 with [`Client::wait_for_replicas`]: a `WAIT`
    /// holds the connection it is sent on until the replicas acknowledge,
    /// and the calls queued behind it on that connection wait too (what
    /// spreading them buys is measured by `cargo bench --bench redvote --
    /// --replicas-only`: README, "What the wait costs"). At least 1.
    #[cfg(feature = "async")]
    pub fn async_connections(self, n: usize) -> Self {
        Client {
            links: Some(n.max(1)),
            ..self
        }
    }

    /// The connections of an [`AsyncConnection`] of this client.
    #[cfg(feature = "async")]
    fn links(&self) -> usize {
        self.links
            .unwrap_or(if self.wait.is_some() { 8 } else { 1 })
    }

    /// How long a reply is waited for ([`Client::timeouts`]).
    pub fn response_timeout(&self) -> Duration {
        self.response_timeout
    }

    /// The URL, its password hidden.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Whether the URL names a Redis Cluster.
    pub fn is_cluster(&self) -> bool {
        matches!(self.target, Target::Cluster(_))
    }

    /// The redis-rs client of a single server (`redis://`, `rediss://`,
    /// `redis+unix://`); None for Sentinel and cluster URLs.
    pub fn redis(&self) -> Option<&redis::Client> {
        match &self.target {
            Target::Single(client) => Some(client),
            _ => None,
        }
    }

    /// A sync connection (connected now, with the timeouts, retried per the
    /// policy); it reconnects by itself after a connection error (through
    /// the sentinels again, for a Sentinel URL).
    pub fn connect(&self) -> Result<Connection> {
        Connection::open(self)
    }

    /// An async connection (a redis-rs `MultiplexedConnection`, or an async
    /// cluster connection, or [several](Client::async_connections);
    /// connected now with the timeouts, replaced after a connection error;
    /// clones share it).
    #[cfg(feature = "async")]
    pub async fn connect_async(&self) -> Result<AsyncConnection> {
        AsyncConnection::open(self).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The builder: each setting in the copy it answers, the password
    /// hidden from what it shows; opening connects to nothing.
    #[test]
    fn the_builder_sets_what_it_names() {
        let client = Client::open("redis://:s3cret@127.0.0.1:1/0")
            .unwrap()
            .timeouts(Duration::from_millis(100), Duration::from_millis(200))
            .retry(Retry::never())
            .wait_for_replicas(0, Duration::from_secs(1));
        assert_eq!(client.response_timeout(), Duration::from_millis(200));
        assert_eq!(client.connect_timeout, Duration::from_millis(100));
        assert!(!client.url().contains("s3cret"), "{}", client.url());
        assert!(!format!("{client:?}").contains("s3cret"), "{client:?}");
        assert_eq!(client.retry, Retry::never());
        assert_eq!(client.wait, None, "0 replicas: no wait");
        let waits = client.clone().wait_for_replicas(2, Duration::from_secs(1));
        assert_eq!(waits.wait, Some((2, Duration::from_secs(1))));
        assert!(client.redis().is_some() && !client.is_cluster());
        let cluster = Client::open("redis+cluster://127.0.0.1:1,127.0.0.1:2").unwrap();
        assert!(cluster.is_cluster() && cluster.redis().is_none());
        assert_eq!(
            Client::open("redis://127.0.0.1:1").unwrap().retry,
            Retry::default()
        );
    }

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
}
