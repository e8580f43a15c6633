//! [`Connection`], the sync connection of a [`Client`]: one redis-rs
//! connection of the URL's form ([`Link`]: a server's, or a cluster's),
//! made again after a failure that leaves it unusable (through the
//! sentinels again, for a Sentinel URL), and calls sent through the
//! client's [`Retry`](super::Retry) policy, with the wait for replicas when
//! asked.
//!
//! On a cluster, with the feature `async`, [`Connection::run`] and
//! [`Connection::page`] drive an [`AsyncConnection`](super::AsyncConnection)
//! (one cluster connection) on a current-thread tokio runtime the
//! `Connection` owns (`Bounded`), so a call is cut at its deadline as an
//! async one is: redis-rs's sync cluster client makes several blocking
//! steps per attempt (a slot refresh connects to and pings every node),
//! which no socket timeout bounds (a stalled primary held a 1 s call for
//! 17-37 s). Without `async`, and for [`Connection::redis`], it is
//! redis-rs's sync cluster connection.

use std::time::Duration;

use super::cluster::slot_route;
use super::retry::{applied, broken, sent, Budget};
use super::target::Target;
use super::wait::{check_acks, run_waited, two, wait_cmd};
use super::Client;
use crate::call::Call;
use crate::error::Result;
use crate::reply::Reply;
use crate::site::{Page, PageCall};

/// A sync connection that retries calls by [`Client`]'s policy and
/// reconnects after a connection error.
pub struct Connection {
    client: Client,
    cluster: Option<redis::cluster::ClusterClient>,
    con: Option<Link>,
    /// On a cluster (feature `async`): what `run` and `page` go through.
    #[cfg(feature = "async")]
    bounded: Option<Box<Bounded>>,
}

/// A cluster's calls from a sync [`Connection`], cut at their deadline: an
/// async connection and the current-thread runtime that drives it, only
/// while a call runs.
#[cfg(feature = "async")]
struct Bounded {
    con: super::AsyncConnection,
    /// Always Some but in `drop`.
    rt: Option<tokio::runtime::Runtime>,
}

/// Shut down without waiting: a runtime dropped inside another one (a
/// `Connection` dropped in an async function) would panic.
#[cfg(feature = "async")]
impl Drop for Bounded {
    fn drop(&mut self) {
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

#[cfg(feature = "async")]
impl Bounded {
    /// An async connection of `client` (one cluster connection, however
    /// many an `AsyncConnection` of it would spread its calls over).
    fn open(client: &Client) -> Result<Bounded> {
        // redis-rs's `tokio-comp` (feature `async`) brings tokio's `rt`
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| crate::error::Error::Redis(e.into()))?;
        let client = Client {
            links: Some(1),
            ..client.clone()
        };
        match block_on(&rt, || super::AsyncConnection::open(&client)) {
            Ok(con) => Ok(Bounded { con, rt: Some(rt) }),
            Err(err) => {
                rt.shutdown_background();
                Err(err)
            }
        }
    }

    /// `f()` to its end on this runtime.
    fn run<R: Send, F: std::future::Future<Output = R>>(&self, f: impl FnOnce() -> F + Send) -> R {
        block_on(self.rt.as_ref().expect("taken only in drop"), f)
    }
}

/// `f()` to its end on `rt`: on this thread, or on a helper thread when
/// this one is inside a tokio runtime (where `block_on` would panic).
#[cfg(feature = "async")]
fn block_on<R: Send, F: std::future::Future<Output = R>>(
    rt: &tokio::runtime::Runtime,
    f: impl FnOnce() -> F + Send,
) -> R {
    if tokio::runtime::Handle::try_current().is_err() {
        return rt.block_on(f());
    }
    std::thread::scope(|s| {
        s.spawn(|| rt.block_on(f()))
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// A sync redis-rs connection of one of the URL forms.
enum Link {
    Single(redis::Connection),
    Cluster(Box<redis::cluster::ClusterConnection>),
}

impl Link {
    fn redis(&mut self) -> &mut dyn redis::ConnectionLike {
        match self {
            Link::Single(con) => con,
            Link::Cluster(con) => con.as_mut(),
        }
    }

    /// Run `call`, then WAIT when asked (a pipeline on one server; on a
    /// cluster, routed to the node of the call's slot).
    fn run<T: Reply>(&mut self, call: &Call<T>, wait: Option<(u32, Duration)>) -> Result<T> {
        let Some((replicas, timeout)) = wait.filter(|_| call.writes()) else {
            return call.run(self.redis());
        };
        match self {
            Link::Single(con) => {
                run_waited!(call, replicas, timeout, |pipe| two(call, pipe.query(con)?)?)
            }
            Link::Cluster(con) => {
                let value = call.run(con.as_mut())?;
                let route = redis::cluster_routing::RoutingInfo::SingleNode(slot_route(call));
                let acked = con
                    .route_command(&wait_cmd(replicas, timeout), route)
                    .map_err(|e| applied(e.into()))?;
                check_acks(acked, replicas, timeout)?;
                Ok(value)
            }
        }
    }
}

impl Connection {
    /// A connection of `client`, connected now (retried per its policy).
    pub(super) fn open(client: &Client) -> Result<Connection> {
        let cluster = match &client.target {
            Target::Cluster(seeds) => Some(client.cluster_client(seeds)?),
            _ => None,
        };
        #[cfg(feature = "async")]
        if cluster.is_some() {
            return Ok(Connection {
                client: client.clone(),
                cluster,
                con: None,
                bounded: Some(Box::new(Bounded::open(client)?)),
            });
        }
        let mut con = Connection {
            client: client.clone(),
            cluster,
            con: None,
            #[cfg(feature = "async")]
            bounded: None,
        };
        client.retry.run_sync(&client.budget(), |budget| {
            (con.link(budget).map(|_| ()), true, false)
        })?;
        Ok(con)
    }

    /// Run `call`, retried per the client's [`Retry`](super::Retry) policy
    /// (see the module documentation for which failures are retried).
    pub fn run<T: Reply>(&mut self, call: &Call<T>) -> Result<T> {
        #[cfg(feature = "async")]
        if let Some(b) = &self.bounded {
            return b.run(|| b.con.run(call));
        }
        let prepared = self.client.prepare(call)?;
        let call = prepared.as_ref().unwrap_or(call);
        let (wait, cluster) = (self.client.wait, self.client.is_cluster());
        self.retried(call.is_idempotent(), |link| {
            sent(link.run(call, wait), call, cluster)
        })
    }

    /// Read `page`, both round trips retried as one by the client's
    /// [`Retry`](super::Retry) policy: its script call (as
    /// [`Connection::run`] sends it, with the wait for replicas when it
    /// writes: a group page may build its cached ordering), then the
    /// articles' hashes in one `MULTI`/`EXEC`. Both parts only read, so a
    /// page is resent from its script call after every failure the policy
    /// resends an idempotent call after (a lost connection, no reply in
    /// time, `LOADING`, `BUSY`, ...), on a new connection when the failure
    /// broke this one.
    pub fn page(&mut self, page: &PageCall) -> Result<Page> {
        #[cfg(feature = "async")]
        if let Some(b) = &self.bounded {
            return b.run(|| b.con.page(page));
        }
        let prepared = self.client.prepare(page.ids())?;
        debug_assert!(prepared.is_none(), "a page is idempotent: sent as it is");
        let wait = self.client.wait;
        self.retried(page.is_idempotent(), |link| {
            let ids = link.run(page.ids(), wait)?;
            page.finish(link.redis(), ids)
        })
    }

    /// `send` on the current link (made again first if the last one broke),
    /// until it succeeds, the policy stops it or the client's deadline
    /// passes (every connect and reply timeout capped by what remains of
    /// it); a failure that leaves the link unusable drops it.
    /// `idempotent`: whether what `send` sends may be resent after an
    /// unknown outcome.
    fn retried<T>(
        &mut self,
        idempotent: bool,
        mut send: impl FnMut(&mut Link) -> Result<T>,
    ) -> Result<T> {
        let (retry, response) = (self.client.retry, self.client.response_timeout);
        retry.run_sync(&self.client.budget(), |budget| match self.link(budget) {
            Ok(link) => {
                let result = link.cap(budget, response).and_then(|()| send(link));
                if result.as_ref().is_err_and(broken) {
                    self.con = None;
                }
                (result, idempotent, true)
            }
            // a failure to (re)connect: nothing was sent
            Err(err) => (Err(err), true, false),
        })
    }

    /// The redis-rs connection (a plain or a cluster one), connecting first
    /// if the last one failed (within the client's deadline).
    pub fn redis(&mut self) -> Result<&mut dyn redis::ConnectionLike> {
        let (budget, response) = (self.client.budget(), self.client.response_timeout);
        let link = self.link(&budget)?;
        link.cap(&budget, response)?;
        Ok(link.redis())
    }

    /// The current link, made first (within `budget`) if there is none.
    fn link(&mut self, budget: &Budget) -> Result<&mut Link> {
        if self.con.is_none() {
            let c = &self.client;
            let (connect, response) = (c.connect_timeout, c.response_timeout);
            let link = match (&c.target, &self.cluster) {
                (_, Some(cluster)) => Link::Cluster(Box::new(cluster.get_connection()?)),
                (Target::Single(redis), _) => {
                    Link::Single(connect_sync(redis, setup_cap(budget, connect), response)?)
                }
                (Target::Sentinel(sentinel), _) => Link::Single(super::sentinel::connect_sync(
                    sentinel, budget, connect, response,
                )?),
                (Target::Cluster(_), None) => unreachable!("connect() builds the cluster client"),
            };
            self.con = Some(link);
        }
        Ok(self.con.as_mut().expect("connected above"))
    }
}

impl Link {
    /// Set the read and write timeouts to `response`, capped by what
    /// remains of `budget` (on a cluster, of every node's connection).
    fn cap(&mut self, budget: &Budget, response: Duration) -> Result<()> {
        let t = Some(budget.cap(response));
        match self {
            Link::Single(con) => {
                con.set_read_timeout(t)?;
                con.set_write_timeout(t)?;
            }
            Link::Cluster(con) => {
                con.set_read_timeout(t)?;
                con.set_write_timeout(t)?;
            }
        }
        Ok(())
    }
}

/// The connect timeout of a sync connection within `budget`: redis-rs's
/// sync connect waits up to it for the TCP connection and again for each
/// reply of its setup (`CLIENT SETINFO` twice, `AUTH`, `SELECT`), so a
/// stalled server would hold it up to four times as long.
pub(super) fn setup_cap(budget: &Budget, connect: Duration) -> Duration {
    budget.cap(connect.min(budget.remaining() / 4))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A server that is not there: every connect is "not run", so it is
    /// tried as often as the policy says, then answered as it is.
    #[test]
    fn connecting_is_retried_per_the_policy() {
        let port = {
            // a port nobody listens on once the listener is gone
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let client = Client::open(&format!("redis://127.0.0.1:{port}"))
            .unwrap()
            .retry(super::super::Retry::new(3, Duration::from_millis(40)));
        let start = std::time::Instant::now();
        let err = client.connect().err().expect("nothing listens");
        assert!(!err.may_have_applied(), "{err}");
        // 3 tries: waits of 40 and 80 ms in between
        assert!(
            start.elapsed() >= Duration::from_millis(120),
            "{:?}",
            start.elapsed()
        );
        // never() replaces a policy whose first wait alone is 5 s
        let once = client
            .retry(super::super::Retry::new(3, Duration::from_secs(5)))
            .retry(super::super::Retry::never());
        let start = std::time::Instant::now();
        assert!(once.connect().is_err());
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
    }

    /// A cluster that is not there, connected to inside a tokio runtime (a
    /// sync cluster connection's own runtime then works on a helper thread
    /// and is shut down without blocking): an error, not a panic, by the
    /// deadline.
    #[cfg(feature = "async")]
    #[test]
    fn a_sync_cluster_connect_inside_a_runtime_fails_cleanly() {
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let client = Client::open(&format!("redis+cluster://127.0.0.1:{port}"))
            .unwrap()
            .deadline(Duration::from_millis(300));
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let start = std::time::Instant::now();
        let err = rt.block_on(async { client.connect().err().expect("nothing listens") });
        assert!(err.to_string().contains("refused"), "{err}");
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "{:?}",
            start.elapsed()
        );
    }
}
