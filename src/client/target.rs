//! Where a [`crate::Client`] connects: one server, the master a Sentinel
//! names, or a Redis Cluster, all given as one URL; and TLS material.
//!
//! | URL | what |
//! | --- | --- |
//! | `redis://[user:pass@]host[:port][/db]` | one server (TCP) |
//! | `rediss://...` (`#insecure`: no certificate check) | one server over TLS |
//! | `redis+unix:///path/to.sock[?db=N&pass=P]`, `unix://` | one server on a Unix socket |
//! | `redis+sentinel://[user:pass@]s1:26379,s2:26379/MASTER[/db]` | the master that Sentinel names MASTER, asked again on every reconnect |
//! | `rediss+sentinel://...` | the same over TLS (to the sentinels and the master) |
//! | `redis+cluster://[user:pass@]n1:7000,n2:7001[,...]` | a Redis Cluster, from any of its nodes |
//! | `rediss+cluster://...` | the same over TLS |
//!
//! Credentials in a Sentinel URL are the master's (and its replicas'); the
//! sentinels are reached without them. A list form's port defaults to
//! 26379 (Sentinel) or 6379 (cluster). No message of this crate holds a
//! password: errors name URLs through [`redact`].

use std::path::Path;

use redis::IntoConnectionInfo;

use crate::error::{Error, Result};

/// TLS material, PEM-encoded: the CA that signed the servers' certificates
/// (when it is not in the system's trust store) and a client certificate
/// and key (for servers with `tls-auth-clients yes`).
#[derive(Clone, Default)]
pub struct Tls {
    /// The CA certificate(s) that servers' certificates must chain to.
    pub ca: Option<Vec<u8>>,
    /// The client certificate and its private key.
    pub client: Option<(Vec<u8>, Vec<u8>)>,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls")
            .field("ca", &self.ca.is_some())
            .field("client", &self.client.is_some())
            .finish()
    }
}

impl Tls {
    /// Read the PEM files: a CA, and a client certificate with its key
    /// (both or neither).
    pub fn from_files(ca: Option<&Path>, cert: Option<&Path>, key: Option<&Path>) -> Result<Tls> {
        let read = |what: &str, path: &Path| {
            std::fs::read(path).map_err(|e| {
                Error::Config(format!("cannot read the {what} {}: {e}", path.display()))
            })
        };
        let client = match (cert, key) {
            (Some(c), Some(k)) => Some((read("client certificate", c)?, read("client key", k)?)),
            (None, None) => None,
            _ => {
                return Err(Error::Config(
                    "a client certificate needs its key, and a key its certificate".into(),
                ))
            }
        };
        Ok(Tls {
            ca: ca.map(|p| read("CA certificate", p)).transpose()?,
            client,
        })
    }

    /// Whether it holds anything.
    pub fn is_empty(&self) -> bool {
        self.ca.is_none() && self.client.is_none()
    }

    #[cfg(feature = "tls")]
    pub(crate) fn certificates(&self) -> redis::TlsCertificates {
        install_crypto_provider();
        redis::TlsCertificates {
            client_tls: self
                .client
                .clone()
                .map(|(cert, key)| redis::ClientTlsConfig {
                    client_cert: cert,
                    client_key: key,
                }),
            root_cert: self.ca.clone(),
        }
    }
}

/// rustls needs a process-wide crypto provider; this crate compiles ring
/// (it builds without cmake or nasm). An application that installed its
/// own provider first keeps it.
#[cfg(feature = "tls")]
fn install_crypto_provider() {
    // rustls 0.23.48 deprecates ring's provider only for lacking post-quantum
    // key exchange; rustls itself still falls back to it the same way
    #[allow(deprecated)]
    let ring = rustls::crypto::ring::default_provider();
    // Err: one is installed already (by us, or by the application)
    let _ = ring.install_default();
}

/// The kind of deployment a URL names.
#[derive(Clone)]
pub(crate) enum Target {
    /// One server.
    Single(redis::Client),
    /// The master that the sentinels name, looked up on every connect.
    Sentinel(std::sync::Arc<Sentinel>),
    /// A Redis Cluster (the client's timeouts and retries are set when it is
    /// built: [`Target::cluster_client`]).
    Cluster(ClusterSeeds),
}

/// A Sentinel deployment: the sentinels (asked in turn, the one that
/// answered last first) and how to reach the master they name
/// (`super::sentinel` asks them, each step within the call's deadline:
/// redis-rs's sync Sentinel client has no timeouts).
pub(crate) struct Sentinel {
    /// A client of each sentinel.
    pub(crate) sentinels: Vec<redis::Client>,
    /// The master's name.
    pub(crate) master: String,
    /// The master's URL, `{node}` standing for its `host:port`.
    master_url: String,
    tls: Tls,
    /// The sentinel that answered last (asked first next time).
    pub(crate) first: std::sync::atomic::AtomicUsize,
}

impl Sentinel {
    /// A client of the master at `host:port`, with the URL's credentials,
    /// database and TLS material.
    pub(crate) fn master_client(&self, host: &str, port: u16) -> Result<redis::Client> {
        let host = if host.contains(':') && !host.starts_with('[') {
            format!("[{host}]")
        } else {
            host.to_string()
        };
        let url = self
            .master_url
            .replacen("{node}", &format!("{host}:{port}"), 1);
        match single(&url, &self.tls)? {
            Target::Single(client) => Ok(client),
            _ => unreachable!("a master is a single server"),
        }
    }
}

/// What builds a cluster client: the seed nodes and the TLS material.
#[derive(Clone)]
pub(crate) struct ClusterSeeds {
    pub(crate) nodes: Vec<redis::ConnectionInfo>,
    pub(crate) tls: Tls,
    /// The URL of one node, `{node}` standing for its `host:port`: the
    /// seeds' scheme, credentials and options, for a node the cluster names.
    node_url: String,
}

impl Target {
    /// The target a URL names (see the module documentation).
    pub(crate) fn parse(url: &str, tls: &Tls) -> Result<Target> {
        let bad = |why: &str| Error::Config(format!("{why}: {}", redact(url)));
        // not echoed: without a scheme, nothing tells a password apart
        let (scheme, rest) = url.split_once("://").ok_or_else(|| {
            Error::Config("not a Redis URL (redis://, rediss://, redis+unix://, redis+sentinel://, redis+cluster://)".into())
        })?;
        let (base, kind) = match scheme.split_once('+') {
            Some((base, kind @ ("sentinel" | "cluster"))) => (base, kind),
            _ => return single(url, tls),
        };
        if base != "redis" && base != "rediss" {
            return Err(bad("a Sentinel or cluster URL starts redis+ or rediss+"));
        }
        if base == "rediss" && !cfg!(feature = "tls") {
            return Err(bad("rediss needs redvote's `tls` feature"));
        }
        let (user, after) = match rest.rfind('@') {
            Some(at) => (&rest[..=at], &rest[at + 1..]),
            None => ("", rest),
        };
        let (hosts, path) = after.split_at(after.find(['/', '?', '#']).unwrap_or(after.len()));
        let hosts: Vec<&str> = hosts.split(',').filter(|h| !h.is_empty()).collect();
        if hosts.is_empty() {
            return Err(bad("no host"));
        }
        let port = if kind == "sentinel" { 26379 } else { 6379 };
        let with_port = |h: &str| {
            if h.rsplit_once(':')
                .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
                && !h.ends_with(']')
            {
                h.to_string()
            } else {
                format!("{h}:{port}")
            }
        };
        if kind == "cluster" {
            let nodes = hosts
                .iter()
                .map(|h| format!("{base}://{user}{}{path}", with_port(h)).into_connection_info())
                .collect::<redis::RedisResult<Vec<_>>>()
                .map_err(|e| bad(&format!("a node's URL does not parse ({})", e)))?;
            return Ok(Target::Cluster(ClusterSeeds {
                nodes,
                tls: tls.clone(),
                node_url: format!("{base}://{user}{{node}}{path}"),
            }));
        }
        // sentinel: /MASTER[/db][?...]
        let path = path.strip_prefix('/').unwrap_or(path);
        let (master, db_etc) = path.split_at(path.find(['/', '?', '#']).unwrap_or(path.len()));
        if master.is_empty() {
            return Err(bad(
                "a Sentinel URL names its master: redis+sentinel://host:port/MASTER",
            ));
        }
        // the sentinels are reached without the master's credentials, over
        // TLS when the URL says so (its fragment, `#insecure`, too)
        let fragment = db_etc.find('#').map_or("", |i| &db_etc[i..]);
        let sentinels = hosts
            .iter()
            .map(
                |h| match single(&format!("{base}://{}{fragment}", with_port(h)), tls)? {
                    Target::Single(client) => Ok(client),
                    _ => unreachable!("a sentinel is a single server"),
                },
            )
            .collect::<Result<Vec<_>>>()
            .map_err(|e| bad(&format!("a sentinel's address does not parse ({e})")))?;
        let master_url = format!("{base}://{user}{{node}}{db_etc}");
        // the master's URL must parse, with any address in it (a
        // placeholder: nothing connects to it)
        single(&master_url.replacen("{node}", "master.invalid:1", 1), tls)
            .map_err(|e| bad(&format!("does not parse ({e})")))?;
        let sentinel = Sentinel {
            sentinels,
            master: master.to_string(),
            master_url,
            tls: tls.clone(),
            first: std::sync::atomic::AtomicUsize::new(0),
        };
        Ok(Target::Sentinel(std::sync::Arc::new(sentinel)))
    }
}

/// One server: redis-rs parses the URL (with the TLS material, if any).
fn single(url: &str, tls: &Tls) -> Result<Target> {
    let bad = |e: redis::RedisError| Error::Config(format!("{} ({})", redact(url), e));
    let info = url.into_connection_info().map_err(bad)?;
    #[cfg(feature = "tls")]
    if matches!(info.addr(), redis::ConnectionAddr::TcpTls { .. }) {
        let client = if tls.is_empty() {
            install_crypto_provider();
            redis::Client::open(info)
        } else {
            redis::Client::build_with_tls(info, tls.certificates())
        };
        return client.map(Target::Single).map_err(bad);
    }
    if !tls.is_empty() {
        return Err(Error::Config(format!(
            "TLS certificates given for a URL without TLS (use rediss://): {}",
            redact(url)
        )));
    }
    redis::Client::open(info).map(Target::Single).map_err(bad)
}

impl ClusterSeeds {
    /// The node at `host:port` as a single server, reached as the seeds are
    /// (scheme, credentials, TLS material, options).
    pub(crate) fn node(&self, host: &str, port: u16) -> Result<Target> {
        let host = if host.contains(':') && !host.starts_with('[') {
            format!("[{host}]")
        } else {
            host.to_string()
        };
        single(
            &self
                .node_url
                .replacen("{node}", &format!("{host}:{port}"), 1),
            &self.tls,
        )
    }

    /// The redacted URL of the node at `host:port` (for messages).
    pub(crate) fn node_display(&self, host: &str, port: u16) -> String {
        redact(
            &self
                .node_url
                .replacen("{node}", &format!("{host}:{port}"), 1),
        )
    }

    /// The redis-rs cluster client, with these timeouts and retries.
    pub(crate) fn client(
        &self,
        connect: std::time::Duration,
        response: std::time::Duration,
        retry: &super::ClusterRetry,
    ) -> Result<redis::cluster::ClusterClient> {
        let ms = |d: std::time::Duration| d.as_millis().min(u128::from(u64::MAX)) as u64;
        let min_wait = ms(retry.min_wait);
        #[allow(unused_mut)]
        let mut builder = redis::cluster::ClusterClientBuilder::new(self.nodes.clone())
            .connection_timeout(connect)
            .response_timeout(response)
            .retries(retry.retries)
            .min_retry_wait(min_wait)
            // redis-rs draws a wait in min..max: keep the range non-empty
            .max_retry_wait(ms(retry.max_wait).max(min_wait + 1));
        #[cfg(feature = "tls")]
        if !self.tls.is_empty() {
            builder = builder.certs(self.tls.certificates());
        } else if self
            .nodes
            .iter()
            .any(|n| matches!(n.addr(), redis::ConnectionAddr::TcpTls { .. }))
        {
            install_crypto_provider();
        }
        builder
            .build()
            .map_err(|e| Error::Config(format!("cluster client: {}", e)))
    }
}

/// `url` for display, without its secrets: the password of
/// `redis://user:pass@host` becomes `***` (`redis://user:***@host`,
/// `redis://:***@host`); a user part without a colon (perhaps a password put
/// there) becomes `***` whole; so do `pass=`/`password=` query values
/// (`redis+unix:///s?pass=p`). The user info ends at the URL's LAST `@`, so
/// a password holding raw `/`, `?`, `#` or `@` is hidden too (at worst more
/// is hidden than needed).
///
/// ```
/// assert_eq!(
///     redvote::client::redact("redis+sentinel://:s3cret@h1:26379,h2:26379/mymaster"),
///     "redis+sentinel://:***@h1:26379,h2:26379/mymaster"
/// );
/// ```
pub fn redact(url: &str) -> String {
    let start = url.find("://").map_or(0, |i| i + 3);
    let (scheme, rest) = url.split_at(start);
    let (user, after) = match rest.rfind('@') {
        Some(at) => {
            let user = match rest[..at].split_once(':') {
                Some((name, _)) => format!("{name}:***@"),
                None => "***@".to_string(),
            };
            (user, &rest[at + 1..])
        }
        None => (String::new(), rest),
    };
    let after = match after.split_once('?') {
        Some((path, query)) => {
            let params: Vec<String> = query
                .split('&')
                .map(|p| match p.split_once('=') {
                    Some((k, _)) if k == "pass" || k == "password" => format!("{k}=***"),
                    _ => p.to_string(),
                })
                .collect();
            format!("{path}?{}", params.join("&"))
        }
        None => after.to_string(),
    };
    format!("{scheme}{user}{after}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cluster_nodes(url: &str) -> Vec<String> {
        match Target::parse(url, &Tls::default()).unwrap() {
            Target::Cluster(seeds) => seeds.nodes.iter().map(|n| n.addr().to_string()).collect(),
            _ => panic!("not a cluster: {url}"),
        }
    }

    #[test]
    fn every_url_form_parses_to_its_kind() {
        assert!(matches!(
            Target::parse("redis://127.0.0.1:7001/2", &Tls::default()).unwrap(),
            Target::Single(_)
        ));
        assert!(matches!(
            Target::parse("redis+unix:///tmp/r.sock?db=1", &Tls::default()).unwrap(),
            Target::Single(_)
        ));
        assert_eq!(
            cluster_nodes("redis+cluster://u:p@10.0.0.1:7000,10.0.0.2,[::1]:7002"),
            ["10.0.0.1:7000", "10.0.0.2:6379", "::1:7002"]
        );
        assert!(matches!(
            Target::parse(
                "redis+sentinel://:pw@s1,s2:5000/mymaster/3",
                &Tls::default()
            )
            .unwrap(),
            Target::Sentinel(_)
        ));
    }

    #[test]
    fn bad_urls_are_named_without_their_password() {
        for url in [
            "redis+sentinel://:hunter2@s1:26379",
            "redis+cluster://:hunter2@",
            "redis+cluster://:hunter2@h:notaport",
            "redis://:hunter2@h:notaport",
            "rediz://:hunter2@h",
            "redis+unix:///tmp/s?pass=hunter2&db=x",
            "hunter2",
        ] {
            let err = Target::parse(url, &Tls::default())
                .err()
                .unwrap_or_else(|| panic!("{url} parsed"));
            let text = err.to_string();
            assert!(!text.contains("hunter2"), "{url}: {text}");
            assert!(matches!(err, Error::Config(_)), "{url}: {text}");
        }
    }

    #[test]
    fn redact_hides_passwords_only() {
        for (url, shown) in [
            ("redis://127.0.0.1:7001/0", "redis://127.0.0.1:7001/0"),
            ("redis://:s3cret@host:1/0", "redis://:***@host:1/0"),
            ("redis://me:s3cret@host", "redis://me:***@host"),
            ("redis://s3cret@host", "redis://***@host"),
            ("redis://:p@ss/w?rd@host:1", "redis://:***@host:1"),
            (
                "redis+unix:///s?db=1&pass=x",
                "redis+unix:///s?db=1&pass=***",
            ),
            (
                "rediss+cluster://:x@h1:1,h2:2",
                "rediss+cluster://:***@h1:1,h2:2",
            ),
            ("rediss://maybe-pw@h", "rediss://***@h"),
            ("unix:///s?password=pw", "unix:///s?password=***"),
            (":pw@h:1", ":***@h:1"),
        ] {
            assert_eq!(redact(url), shown, "{url}");
        }
    }
}
