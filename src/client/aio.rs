//! The async connections (feature `async`): [`AsyncConnection`], whose
//! clones share one or [several](super::Client::async_connections)
//! redis-rs connections, taken in turn, each made again after a failure
//! that leaves it unusable, and calls sent through the client's
//! [`Retry`](super::Retry) policy (the same loop as the sync
//! [`Connection`](super::Connection)); and [`AsyncRedis`], the redis-rs
//! connection of one URL form (a multiplexed or a cluster connection), for
//! commands of one's own and the wait for replicas in one round trip.

use std::time::Duration;

use super::cluster::{parse_cluster_slots, primaries_of, slot_route};
use super::retry::{broken, sent, Budget};
use super::target::Target;
use super::wait::{run_waited, two};
use super::Client;
use crate::call::Call;
use crate::error::{Error, Result};
use crate::reply::Reply;
use crate::site::{Page, PageCall};

/// An async connection that retries calls by [`Client`]'s policy; clones
/// share one multiplexed (or cluster) connection, which is replaced (by the
/// first caller that needs it) after a connection error; or several, taken
/// in turn ([`Client::async_connections`]).
#[derive(Clone)]
pub struct AsyncConnection {
    client: Client,
    cluster: Option<redis::cluster::ClusterClient>,
    /// The connections the calls take in turn (one by default).
    shared: std::sync::Arc<[std::sync::Arc<tokio::sync::Mutex<Shared>>]>,
    /// The next call's connection (modulo their number).
    turn: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

/// The connection clones share, with a generation number so that a failed
/// one is dropped once, not its replacement.
#[derive(Default)]
struct Shared {
    con: Option<(u64, AsyncRedis)>,
    generation: u64,
}

/// An async redis-rs connection of one of the URL forms: a
/// `MultiplexedConnection`, or an async cluster connection. Cheap to
/// clone; it is a `redis::aio::ConnectionLike`, for commands of your own.
#[derive(Clone)]
pub struct AsyncRedis(AsyncLink);

#[derive(Clone)]
enum AsyncLink {
    Single(redis::aio::MultiplexedConnection),
    Cluster(redis::cluster_async::ClusterConnection),
}

impl redis::aio::ConnectionLike for AsyncRedis {
    fn req_packed_command<'a>(
        &'a mut self,
        cmd: &'a redis::Cmd,
    ) -> redis::RedisFuture<'a, redis::Value> {
        match &mut self.0 {
            AsyncLink::Single(con) => con.req_packed_command(cmd),
            AsyncLink::Cluster(con) => con.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        cmd: &'a redis::Pipeline,
        offset: usize,
        count: usize,
    ) -> redis::RedisFuture<'a, Vec<redis::Value>> {
        match &mut self.0 {
            AsyncLink::Single(con) => con.req_packed_commands(cmd, offset, count),
            AsyncLink::Cluster(con) => con.req_packed_commands(cmd, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match &self.0 {
            AsyncLink::Single(con) => con.get_db(),
            AsyncLink::Cluster(con) => con.get_db(),
        }
    }
}

impl AsyncRedis {
    /// A cluster's primaries (`CLUSTER SLOTS` of any node), sorted by
    /// address; None on a single server.
    pub async fn primaries(&mut self) -> Result<Option<Vec<(String, u16)>>> {
        let AsyncLink::Cluster(con) = &mut self.0 else {
            return Ok(None);
        };
        let reply = con
            .route_command(
                redis::cmd("CLUSTER").arg("SLOTS").clone(),
                redis::cluster_routing::RoutingInfo::SingleNode(
                    redis::cluster_routing::SingleNodeRoutingInfo::Random,
                ),
            )
            .await?;
        let ranges: Vec<redis::Value> = redis::from_redis_value(reply)
            .map_err(|_| Error::Config("CLUSTER SLOTS answered an unexpected shape".into()))?;
        Ok(Some(primaries_of(parse_cluster_slots(ranges)?)))
    }

    /// `cmd` on the node at `host:port` of a cluster (on a single server,
    /// on it).
    pub async fn on_node(
        &mut self,
        cmd: &redis::Cmd,
        (host, port): &(String, u16),
    ) -> Result<redis::Value> {
        Ok(match &mut self.0 {
            AsyncLink::Single(con) => cmd.query_async(con).await?,
            AsyncLink::Cluster(con) => {
                con.route_command(
                    cmd.clone(),
                    redis::cluster_routing::RoutingInfo::SingleNode(
                        redis::cluster_routing::SingleNodeRoutingInfo::ByAddress {
                            host: host.clone(),
                            port: *port,
                        },
                    ),
                )
                .await?
            }
        })
    }

    /// Run `call`, then WAIT when asked, in one round trip to the node of
    /// the call's key.
    async fn run<T: Reply>(&mut self, call: &Call<T>, wait: Option<(u32, Duration)>) -> Result<T> {
        let Some((replicas, timeout)) = wait.filter(|_| call.writes()) else {
            return call.run_async(self).await;
        };
        run_waited!(call, replicas, timeout, |pipe| self
            .send(call, pipe)
            .await?)
    }

    /// Send a [`wait_pipeline`] to the node of `call`'s key.
    async fn send<T: Reply>(
        &mut self,
        call: &Call<T>,
        pipe: redis::Pipeline,
    ) -> Result<(redis::Value, redis::Value)> {
        let values = match &mut self.0 {
            AsyncLink::Single(con) => pipe.query_async::<Vec<redis::Value>>(con).await?,
            AsyncLink::Cluster(con) => con.route_pipeline(pipe, 0, 2, slot_route(call)).await?,
        };
        two(call, values)
    }
}

impl AsyncConnection {
    /// A connection of `client` (its connections made now, retried per its
    /// policy).
    pub(super) async fn open(client: &Client) -> Result<AsyncConnection> {
        let cluster = match &client.target {
            Target::Cluster(seeds) => Some(client.cluster_client(seeds)?),
            _ => None,
        };
        let con = AsyncConnection {
            client: client.clone(),
            cluster,
            shared: (0..client.links())
                .map(|_| std::sync::Arc::new(tokio::sync::Mutex::new(Shared::default())))
                .collect::<Vec<_>>()
                .into(),
            turn: std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0)),
        };
        let (budget, sending) = (client.budget(), std::sync::atomic::AtomicBool::new(false));
        for slot in con.shared.iter() {
            client
                .retry
                .run_async(&budget, &sending, || async {
                    (con.current(slot, &budget).await.map(|_| ()), true, false)
                })
                .await?;
        }
        Ok(con)
    }

    /// Run `call`, retried per the client's [`Retry`](super::Retry) policy.
    pub async fn run<T: Reply>(&self, call: &Call<T>) -> Result<T> {
        let prepared = self.client.prepare(call)?;
        let call = prepared.as_ref().unwrap_or(call);
        let (wait, cluster) = (self.client.wait, self.client.is_cluster());
        self.retried(call.is_idempotent(), |mut con| async move {
            sent(con.run(call, wait).await, call, cluster)
        })
        .await
    }

    /// Read `page`, both round trips retried as one by the client's
    /// [`Retry`](super::Retry) policy, as
    /// [`Connection::page`](super::Connection::page) does.
    pub async fn page(&self, page: &PageCall) -> Result<Page> {
        let prepared = self.client.prepare(page.ids())?;
        debug_assert!(prepared.is_none(), "a page is idempotent: sent as it is");
        let wait = self.client.wait;
        self.retried(page.is_idempotent(), |mut con| async move {
            let ids = con.run(page.ids(), wait).await?;
            page.finish_async(&mut con, ids).await
        })
        .await
    }

    /// `send` on the next connection (made again first if it broke), until
    /// it succeeds or the policy stops it; a failure that leaves the
    /// connection unusable drops it. `idempotent`: whether what `send`
    /// sends may be resent after an unknown outcome.
    async fn retried<T, F>(&self, idempotent: bool, send: impl Fn(AsyncRedis) -> F) -> Result<T>
    where
        F: std::future::Future<Output = Result<T>>,
    {
        let (budget, sending) = (
            self.client.budget(),
            std::sync::atomic::AtomicBool::new(false),
        );
        let attempt = || async {
            let slot = self.next_slot();
            match self.current(slot, &budget).await {
                Ok((generation, con)) => {
                    sending.store(true, std::sync::atomic::Ordering::Relaxed);
                    let result = send(con).await;
                    if result.as_ref().is_err_and(broken) {
                        self.forget(slot, generation).await;
                    }
                    (result, idempotent, true)
                }
                // a failure to (re)connect: nothing was sent
                Err(err) => (Err(err), true, false),
            }
        };
        let result = self
            .client
            .retry
            .run_async(&budget, &sending, attempt)
            .await;
        if let Err(Error::Timeout { sent: true, .. }) = &result {
            // an attempt cut at the deadline may leave a reply on its way:
            // start the next call on a fresh connection
            for slot in self.shared.iter() {
                slot.lock().await.con = None;
            }
        }
        result
    }

    /// `send` (commands of one's own on the redis-rs connection) through
    /// the client's [`Retry`](super::Retry) policy and deadline, as
    /// [`run`](Self::run) sends a call: a failure that leaves the
    /// connection unusable (a server restart, `CLIENT KILL`, an idle
    /// timeout) replaces it before the next attempt, so the caller never
    /// sees a dead connection's "broken pipe". `idempotent`: whether what
    /// `send` sends may be resent after an unknown outcome.
    pub async fn with_redis<T, F>(
        &self,
        idempotent: bool,
        send: impl Fn(AsyncRedis) -> F,
    ) -> Result<T>
    where
        F: std::future::Future<Output = Result<T>>,
    {
        self.retried(idempotent, send).await
    }

    /// The redis-rs connection the next call would take, connecting first
    /// (within the client's deadline) if there is none. Nothing is sent: a
    /// connection that broke while idle is only noticed by its next
    /// command, outside the retry policy. Commands of one's own should go
    /// through [`with_redis`](Self::with_redis), which replaces a broken
    /// connection and retries.
    pub async fn redis(&self) -> Result<AsyncRedis> {
        self.retried(true, |con| async move { Ok(con) }).await
    }

    /// The connection the next call takes.
    fn next_slot(&self) -> &tokio::sync::Mutex<Shared> {
        let turn = self.turn.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        &self.shared[turn % self.shared.len()]
    }

    /// The connection of `slot`, made first (within `budget`) if there is
    /// none.
    async fn current(
        &self,
        slot: &tokio::sync::Mutex<Shared>,
        budget: &Budget,
    ) -> Result<(u64, AsyncRedis)> {
        let mut shared = slot.lock().await;
        if let Some((generation, con)) = &shared.con {
            return Ok((*generation, con.clone()));
        }
        let c = &self.client;
        let config = redis::AsyncConnectionConfig::new()
            .set_connection_timeout(Some(budget.cap(c.connect_timeout)))
            .set_response_timeout(Some(c.response_timeout));
        let link = match (&c.target, &self.cluster) {
            (_, Some(cluster)) => AsyncLink::Cluster(cluster.get_async_connection().await?),
            (Target::Single(redis), _) => AsyncLink::Single(
                redis
                    .get_multiplexed_async_connection_with_config(&config)
                    .await?,
            ),
            (Target::Sentinel(sentinel), _) => AsyncLink::Single(
                super::sentinel::connect_async(
                    sentinel,
                    budget,
                    c.connect_timeout,
                    c.response_timeout,
                )
                .await?,
            ),
            (Target::Cluster(_), None) => unreachable!("connect_async() builds the cluster client"),
        };
        let con = AsyncRedis(link);
        shared.generation += 1;
        shared.con = Some((shared.generation, con.clone()));
        Ok((shared.generation, con))
    }

    /// Drop the connection of `generation` in `slot` (if it is still the
    /// current one).
    async fn forget(&self, slot: &tokio::sync::Mutex<Shared>, generation: u64) {
        let mut shared = slot.lock().await;
        if matches!(&shared.con, Some((g, _)) if *g == generation) {
            shared.con = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server that is not there: each of the connections is tried as
    /// often as the policy says; the error is "not run".
    #[tokio::test]
    async fn connecting_is_retried_per_the_policy() {
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let client = Client::open(&format!("redis://127.0.0.1:{port}"))
            .unwrap()
            .retry(super::super::Retry::new(3, Duration::from_millis(40)));
        let start = std::time::Instant::now();
        let err = client.connect_async().await.err().expect("nothing listens");
        assert!(!err.may_have_applied(), "{err}");
        assert!(
            start.elapsed() >= Duration::from_millis(120),
            "{:?}",
            start.elapsed()
        );
    }

    /// How many connections an AsyncConnection spreads its calls over.
    #[test]
    fn links_default_to_one_or_eight_with_a_wait() {
        let client = Client::open("redis://127.0.0.1:1").unwrap();
        assert_eq!(client.links(), 1);
        let waits = client
            .clone()
            .wait_for_replicas(1, Duration::from_millis(10));
        assert_eq!(waits.links(), 8);
        assert_eq!(waits.async_connections(3).links(), 3);
        assert_eq!(client.async_connections(0).links(), 1, "at least 1");
    }
}
