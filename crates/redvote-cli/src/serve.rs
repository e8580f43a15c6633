//! `redvote serve`: the flags of the service (crates/redvote-serve) and
//! their translation into its [`redvote_serve::Options`]. The process-level
//! behaviour (the `listening on ADDR` line, SIGTERM and Ctrl-C, the exit
//! code after the drain) is the CLI's; everything else is the service's.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use redvote::Site;
use redvote_serve::{LogFormat, Options};

use crate::{seconds, Global};

/// `redvote serve`'s options (beside the global `--url`, `--prefix`,
/// `--timeout` and `--retries`).
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on (port 0: any free port); the bound address is
    /// printed first on stdout as "listening on ADDR"
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// A site the API serves, NAME=PREFIX (repeatable; NAME follows the
    /// board name rule, PREFIX is its key prefix). Default: one site
    /// "default" with the global --prefix (the seeds' layout: "")
    #[arg(long = "site", value_name = "NAME=PREFIX", value_parser = site_arg)]
    sites: Vec<(String, String)>,
    /// Bearer token of the admin routes (settings, import, limit resets,
    /// reindex, rerank); without one they answer 403. Prefer the
    /// environment variable: a command line is visible to other users
    #[arg(long, env = "REDVOTE_ADMIN_TOKEN", hide_env_values = true)]
    admin_token: Option<String>,
    /// Bearer token every other /v1 route then requires (the admin token
    /// is accepted too); without one they are open to whoever reaches the
    /// service (the backends in front of it)
    #[arg(long, env = "REDVOTE_API_TOKEN", hide_env_values = true)]
    api_token: Option<String>,
    /// Seconds open requests may take to finish after SIGTERM / Ctrl-C
    #[arg(long, default_value_t = 10.0, value_parser = seconds)]
    drain_timeout: f64,
    /// Seconds a request may take before it is answered 503
    #[arg(long, default_value_t = 30.0, value_parser = seconds)]
    request_timeout: f64,
    /// Largest request body, bytes
    #[arg(long, default_value_t = 1 << 20)]
    body_limit: usize,
    /// Print the OpenAPI document (JSON) and exit, without Redis
    #[arg(long)]
    print_openapi: bool,
    /// Log format on stderr (level: RUST_LOG, default info)
    #[arg(long, value_enum, default_value_t = Logs::Text)]
    log_format: Logs,
}

/// `--log-format`.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Logs {
    /// One human-readable line per event.
    Text,
    /// One JSON object per event.
    Json,
}

/// A `--site NAME=PREFIX`.
fn site_arg(s: &str) -> Result<(String, String), String> {
    let (name, prefix) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?} is not NAME=PREFIX"))?;
    if !redvote::is_valid_name(name) {
        return Err(format!(
            "site name {name:?}: 1..64 bytes, none of : {{ }} * ? [ ] \\ , spaces or control characters"
        ));
    }
    Ok((name.to_string(), prefix.to_string()))
}

/// `redvote serve`.
pub fn run(g: &Global, args: &ServeArgs) -> Result<()> {
    if args.print_openapi {
        println!(
            "{}",
            serde_json::to_string_pretty(&redvote_serve::openapi_document())?
        );
        return Ok(());
    }
    let options = Options {
        listen: args.listen,
        admin_token: args.admin_token.clone(),
        api_token: args.api_token.clone(),
        drain_timeout: Duration::from_secs_f64(args.drain_timeout),
        request_timeout: Duration::from_secs_f64(args.request_timeout),
        body_limit: args.body_limit,
    };
    let empty = |token: &Option<String>| token.as_deref().is_some_and(|t| t.trim().is_empty());
    if empty(&options.admin_token) {
        bail!("--admin-token must not be empty");
    }
    if empty(&options.api_token) {
        bail!("--api-token must not be empty");
    }
    let mut sites = BTreeMap::new();
    for (name, prefix) in &args.sites {
        if sites
            .insert(name.clone(), Site::new(prefix.clone()))
            .is_some()
        {
            bail!("--site {name} is given twice");
        }
    }
    if sites.is_empty() {
        sites.insert("default".to_string(), g.site());
    }
    redvote_serve::logs(match args.log_format {
        Logs::Text => LogFormat::Text,
        Logs::Json => LogFormat::Json,
    });
    let client = crate::client(g.url(), g)?;
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the tokio runtime")?
        .block_on(redvote_serve::run(
            &client,
            sites,
            &options,
            redvote_serve::signal(),
        ))
}
