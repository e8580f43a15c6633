//! The service over real HTTP, in-process (as axum's `examples/testing`
//! does): the harness starts a [`redvote_serve::Background`] (a tokio
//! runtime of two workers, a background thread of the test process)
//! against a real `redis-server` of the test's own, listening on
//! `127.0.0.1:0`, and the tests drive it with a plain HTTP client
//! (redvote-testing's `http`). Dropping the [`Service`] resolves its
//! shutdown and joins the thread. `app.rs` drives [`redvote_serve::app`]
//! without any socket (`tower::ServiceExt::oneshot`). The process-level behaviour (the
//! `listening on ADDR` line, SIGTERM, exit codes, the command line's
//! refusals) is tested with the binary in crates/redvote-cli/tests/serve.
//! The harness is here; the tests are in one module per topic.

mod admin;
mod app;
mod audit;
mod auth;
mod back_office;
mod campaign;
mod eviction;
mod export;
mod fold;
mod metrics_labels;
mod openapi;
mod ops;
mod recovery;
mod registry;
mod site;
mod teams;
mod unavailable;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use redvote::Site;
use redvote_serve::{Background, Options};
/// The blocking HTTP client (redvote-testing's `http`).
pub use redvote_testing::http::{Api, Reply, Request};
use redvote_testing::TempServer;

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
    /// The Redis URL the service connects with; default: the server's own
    /// (another user, say).
    pub url: Option<String>,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            options: Options::default(),
            sites: BTreeMap::from([("default".to_string(), Site::default())]),
            timeout: Duration::from_secs(5),
            retries: 3,
            url: None,
        }
    }
}

/// A service running in this process, stopped (shutdown sent, thread
/// joined) on drop.
pub struct Service {
    /// Its base URL (`http://127.0.0.1:PORT`) and the requests.
    api: Api,
    /// The running service (the drain's outcome on drop is the CLI tests'
    /// subject, not the harness's; [`Service::stop`] answers it).
    service: Background,
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
            url,
        } = setup;
        let client = redvote::Client::open(&url.unwrap_or_else(|| server.url()))
            .unwrap_or_else(|e| panic!("the service did not start: {e:#}"))
            .timeouts(timeout, timeout)
            .retry(redvote::Retry::new(retries + 1, Duration::from_millis(100)));
        let options = Options {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            ..options
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let service = Background::start_on(runtime, client, sites, options)
            .unwrap_or_else(|e| panic!("the service did not start: {e:#}"));
        Service {
            api: Api::new(format!("http://{}", service.addr()), ADMIN),
            service,
        }
    }

    /// Stop the service and wait for it (shutdown sent, the drain, the
    /// thread joined): [`Background::stop`]'s outcome.
    pub fn stop(self) -> anyhow::Result<()> {
        self.service.stop()
    }
}

/// The requests of [`Api`] (`svc.get(...)`, `svc.base`, ...).
impl std::ops::Deref for Service {
    type Target = Api;

    fn deref(&self) -> &Api {
        &self.api
    }
}
