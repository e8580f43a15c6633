//! The service over real HTTP, in-process (as axum's `examples/testing`
//! does): the harness starts [`redvote_serve::serve`] on a tokio runtime of
//! its own, on a background thread of the test process, against a real
//! `redis-server` of the test's own, on a listener bound to
//! `127.0.0.1:0`, and the tests drive it with a plain HTTP client.
//! Dropping the [`Service`] resolves its shutdown future and joins the
//! thread. `app.rs` drives [`redvote_serve::app`] without any socket
//! (`tower::ServiceExt::oneshot`). The process-level behaviour (the
//! `listening on ADDR` line, SIGTERM, exit codes, the command line's
//! refusals) is tested with the binary in crates/redvote-cli/tests/serve.
//! The harness is here; the tests are in one module per topic.

mod admin;
mod app;
mod auth;
mod campaign;
mod ops;
mod site;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use redvote::Site;
use redvote_serve::{AppState, Options};
use redvote_testing::TempServer;
/// The blocking HTTP client's request and answer (redvote-testing's `http`).
pub use redvote_testing::http::{Reply, Request};
use reqwest::blocking::Client;
use reqwest::Method;
use serde_json::Value;

/// The admin token the harness starts services with.
pub const ADMIN: &str = "admin-secret-token";

/// What a service is started with: the service's [`Options`] (`listen` is
/// ignored: the harness binds `127.0.0.1:0`), its sites and the Redis
/// client's timeout and retries (the CLI's global `--timeout` and
/// `--retries`, with their defaults).
pub struct Setup {
    /// The service's options; [`Options::default`] without tokens.
    pub options: Options,
    /// Site name -> site; default: one site `default` with the seeds'
    /// layout (as `redvote serve` without `--site`).
    pub sites: BTreeMap<String, Site>,
    /// The client's connect and response timeout (`--timeout`, 5 s).
    pub timeout: Duration,
    /// Retries after the first attempt (`--retries`, 3).
    pub retries: u32,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            options: Options::default(),
            sites: BTreeMap::from([("default".to_string(), Site::default())]),
            timeout: Duration::from_secs(5),
            retries: 3,
        }
    }
}

/// A service running in this process, stopped (shutdown sent, thread
/// joined) on drop.
pub struct Service {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    http: Client,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<anyhow::Result<()>>>,
}

impl Service {
    /// The service on `server` with the admin token [`ADMIN`].
    pub fn start(server: &TempServer) -> Service {
        Service::with_options(server, |o| o.admin_token = Some(ADMIN.into()))
    }

    /// The service on `server` with the [`Options`] `configure` makes of
    /// the defaults (no token; the listen address is the harness's).
    pub fn with_options(server: &TempServer, configure: impl FnOnce(&mut Options)) -> Service {
        Service::with_setup(server, |s| configure(&mut s.options))
    }

    /// The service on `server` with the [`Setup`] `configure` makes of the
    /// defaults: options, sites, the client's timeout and retries.
    pub fn with_setup(server: &TempServer, configure: impl FnOnce(&mut Setup)) -> Service {
        let mut setup = Setup::default();
        configure(&mut setup);
        let Setup {
            options,
            sites,
            timeout,
            retries,
        } = setup;
        let url = server.url();
        let (ready_tx, ready_rx) = mpsc::channel::<Result<SocketAddr, String>>();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || -> anyhow::Result<()> {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()?;
            rt.block_on(async move {
                let started = async {
                    let client = redvote::Client::open(&url)?
                        .timeouts(timeout, timeout)
                        .retry(redvote::Retry::new(retries + 1, Duration::from_millis(100)));
                    let state = AppState::new(&client, sites, &options).await?;
                    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
                    let addr = listener.local_addr()?;
                    anyhow::Ok((state, listener, addr))
                };
                let (state, listener, addr) = match started.await {
                    Ok(started) => started,
                    Err(e) => {
                        let _ = ready_tx.send(Err(format!("{e:#}")));
                        return Err(e);
                    }
                };
                let _ = ready_tx.send(Ok(addr));
                redvote_serve::serve(listener, state, &options, async move {
                    let _ = stopped.await;
                })
                .await
            })
        });
        let addr = match ready_rx.recv() {
            Ok(Ok(addr)) => addr,
            Ok(Err(e)) => panic!("the service did not start: {e}"),
            Err(_) => panic!("the service's thread ended: {:?}", thread.join()),
        };
        Service {
            base: format!("http://{addr}"),
            http: Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap(),
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// A request to `path`, with a bearer `token` when given.
    pub fn request(&self, method: Method, path: &str, token: Option<&str>) -> Request {
        let mut builder = self.http.request(method, format!("{}{path}", self.base));
        if let Some(t) = token {
            builder = builder.bearer_auth(t);
        }
        Request::new(builder)
    }

    /// `GET path` (no token).
    pub fn get(&self, path: &str) -> Reply {
        self.request(Method::GET, path, None).send()
    }

    /// `method path` with a JSON body (no token).
    pub fn json(&self, method: Method, path: &str, body: Value) -> Reply {
        self.request(method, path, None).json(body).send()
    }

    /// `method path` with a JSON body and the admin token.
    pub fn admin(&self, method: Method, path: &str, body: Value) -> Reply {
        self.request(method, path, Some(ADMIN)).json(body).send()
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            // the drain's outcome is the CLI tests' subject, not the harness's
            let _ = thread.join();
        }
    }
}
