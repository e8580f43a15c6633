//! [`Background`]: the service started in this process, on a thread and a
//! tokio runtime of its own, stopped (its shutdown sent, the drain waited
//! for, the thread joined) when dropped. For tests, benchmarks and
//! embedders that run the service beside a program of their own (which
//! may be synchronous, or have a runtime of its own) rather than as its
//! main loop ([`run`](crate::run)).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::mpsc;
use std::thread::JoinHandle;

use anyhow::{anyhow, Context, Result};
use redvote::Site;
use tokio::runtime::Runtime;
use tokio::sync::oneshot;

use crate::{serve, AppState, Options};

/// The service running on a background thread of this process: what
/// [`run`](crate::run) serves, on [`Options::listen`] (port 0: any free
/// port; [`Background::addr`] says which), printing nothing. Dropping it
/// (or [`Background::stop`]) resolves its shutdown, lets open requests
/// drain for at most [`Options::drain_timeout`] and joins the thread.
///
/// ```no_run
/// # fn demo() -> anyhow::Result<()> {
/// use std::collections::BTreeMap;
/// let client = redvote::Client::open(&std::env::var("REDVOTE_URL")?)?;
/// let sites = BTreeMap::from([("default".to_string(), redvote::Site::default())]);
/// let options = redvote_serve::Options {
///     listen: "127.0.0.1:0".parse()?,
///     ..Default::default()
/// };
/// let service = redvote_serve::Background::start(client, sites, options)?;
/// println!("serving on http://{}", service.addr());
/// service.stop()?;
/// # Ok(())
/// # }
/// ```
pub struct Background {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<Result<()>>>,
}

impl Background {
    /// Start the service on a multi-threaded tokio runtime of its own (a
    /// worker per core) and return once it listens; an error when it could
    /// not start (Redis unreachable, a refused token, the address taken).
    /// It blocks until then: call it outside an async context.
    pub fn start(
        client: redvote::Client,
        sites: BTreeMap<String, Site>,
        options: Options,
    ) -> Result<Background> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("the service's tokio runtime")?;
        Background::start_on(runtime, client, sites, options)
    }

    /// [`Background::start`] on `runtime`, built by the caller (its worker
    /// count, its threads' hooks; it needs time and I/O enabled). The
    /// thread that drives the service logs to the caller's current
    /// `tracing` dispatcher; the runtime's workers to their own.
    pub fn start_on(
        runtime: Runtime,
        client: redvote::Client,
        sites: BTreeMap<String, Site>,
        options: Options,
    ) -> Result<Background> {
        let logs = tracing::dispatcher::get_default(|d| d.clone());
        let (ready_tx, ready_rx) = mpsc::channel::<Result<SocketAddr>>();
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("redvote-serve".into())
            .spawn(move || -> Result<()> {
                let _logs = tracing::dispatcher::set_default(&logs);
                runtime.block_on(async move {
                    let started = async {
                        let state = AppState::new(&client, sites, &options).await?;
                        let listener = tokio::net::TcpListener::bind(options.listen)
                            .await
                            .with_context(|| format!("cannot listen on {}", options.listen))?;
                        let addr = listener.local_addr()?;
                        anyhow::Ok((state, listener, addr))
                    };
                    let (state, listener, addr) = match started.await {
                        Ok(started) => started,
                        Err(e) => {
                            let _ = ready_tx.send(Err(e));
                            return Ok(());
                        }
                    };
                    let _ = ready_tx.send(Ok(addr));
                    serve(listener, state, &options, async move {
                        let _ = stopped.await;
                    })
                    .await
                })
            })
            .context("the service's thread")?;
        match ready_rx.recv() {
            Ok(Ok(addr)) => Ok(Background {
                addr,
                stop: Some(stop),
                thread: Some(thread),
            }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => Err(match thread.join() {
                Ok(Err(e)) => e,
                _ => anyhow!("the service's thread ended before it listened"),
            }),
        }
    }

    /// The address the service listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stop the service and wait for it: its shutdown, the drain, the
    /// thread joined. The error of [`serve`] (e.g. requests still open
    /// after the drain timeout), or of a thread that panicked.
    pub fn stop(mut self) -> Result<()> {
        self.finish()
    }

    fn finish(&mut self) -> Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.thread.take() {
            Some(thread) => thread
                .join()
                .map_err(|_| anyhow!("the service's thread panicked"))?,
            None => Ok(()),
        }
    }
}

impl Drop for Background {
    /// [`Background::stop`], its outcome ignored.
    fn drop(&mut self) {
        let _ = self.finish();
    }
}
