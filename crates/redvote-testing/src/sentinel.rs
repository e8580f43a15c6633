//! [`Deployment`]: a throwaway Sentinel deployment on free loopback ports:
//! one master, one replica (`--replicaof`) and three sentinels
//! (`redis-server CONF --sentinel`, quorum 2, down after 1 s), persistence
//! off, optionally over TLS; the polls the Sentinel tests make of it.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::tls::Certs;
use crate::TempServer;

/// The master name the sentinels monitor.
pub const MASTER: &str = "mymaster";

/// A `redis-server --sentinel` with its own writable configuration file,
/// killed (and its directory removed) when dropped.
pub struct SentinelProcess {
    child: Child,
    /// The sentinel's plain port.
    pub port: u16,
    /// Its TLS port, when the deployment speaks TLS.
    pub tls_port: Option<u16>,
    dir: PathBuf,
}

impl SentinelProcess {
    /// A sentinel monitoring the master at `master_port`; with `tls`, it
    /// also listens on a TLS port and reaches the servers over TLS. A port
    /// found free can be taken by another process before the sentinel
    /// binds it: it then starts again on other ports (5 tries).
    fn start(master_port: u16, n: usize, tls: Option<&Certs>) -> SentinelProcess {
        let mut last = String::new();
        for _ in 0..5 {
            match Self::try_start(master_port, n, tls) {
                Ok(s) => return s,
                Err(log) if log.contains("Address already in use") => last = log,
                Err(log) => panic!("sentinel exited: {log}"),
            }
        }
        panic!("sentinel found no free port in 5 tries: {last}")
    }

    /// One try of [`Self::start`]: the sentinel, or its log when it exited.
    fn try_start(
        master_port: u16,
        n: usize,
        tls: Option<&Certs>,
    ) -> Result<SentinelProcess, String> {
        let port = free_port();
        let tls_port = free_port();
        let dir = std::env::temp_dir().join(format!(
            "redvote-sentinel-{}-{master_port}-{n}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let conf = dir.join("sentinel.conf");
        let tls_conf = tls.map_or(String::new(), |certs| {
            format!(
                "tls-port {tls_port}\ntls-replication yes\ntls-auth-clients optional\n\
                 tls-cert-file {}\n\
                 tls-key-file {}\ntls-ca-cert-file {}\n",
                certs.path("server.pem").display(),
                certs.path("server.key").display(),
                certs.path("ca.pem").display()
            )
        });
        std::fs::write(
            &conf,
            tls_conf
                + &format!(
                    "port {port}\nbind 127.0.0.1\ndaemonize no\ndir {}\nlogfile sentinel.log\n\
                 sentinel monitor {MASTER} 127.0.0.1 {master_port} 2\n\
                 sentinel down-after-milliseconds {MASTER} 1000\n\
                 sentinel failover-timeout {MASTER} 5000\n",
                    dir.display()
                ),
        )
        .unwrap();
        let child = Command::new("redis-server")
            .arg(&conf)
            .arg("--sentinel")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", crate::INSTALL_HINT));
        let mut s = SentinelProcess {
            child,
            port,
            tls_port: tls.map(|_| tls_port),
            dir,
        };
        let mut exited = None;
        wait_for(&format!("sentinel on {port} answers PING"), 30, || {
            if let Some(status) = s.child.try_wait().unwrap() {
                exited = Some(format!("({status}): {}", s.log()));
                return true;
            }
            query::<String>(port, &mut redis::cmd("PING")).is_some()
        });
        match exited {
            Some(log) => Err(log),
            None => Ok(s),
        }
    }

    /// Send `sig` (`"-STOP"`, `"-CONT"`, ...) to the sentinel with `kill`;
    /// panics when `kill` fails.
    pub fn signal(&self, sig: &str) {
        let status = Command::new("kill")
            .args([sig, &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success(), "kill {sig}");
    }

    /// The sentinel's log.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("sentinel.log")).unwrap_or_default()
    }
}

impl Drop for SentinelProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Arguments of a master or replica of these tests, then `args`: a new
/// replica's full sync starts at once (Redis waits 5 s by default for more
/// replicas to share a diskless sync).
pub fn strs(args: &[&str]) -> Vec<String> {
    ["--repl-diskless-sync-delay", "0"]
        .iter()
        .chain(args)
        .map(|a| a.to_string())
        .collect()
}

/// A free loopback port (probed: another process may take it before use).
pub fn free_port() -> u16 {
    TcpListener::bind(("127.0.0.1", 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `cmd` on 127.0.0.1:`port`, None on any error (a short timeout).
pub fn query<T: redis::FromRedisValue>(port: u16, cmd: &mut redis::Cmd) -> Option<T> {
    let client = redis::Client::open(format!("redis://127.0.0.1:{port}")).ok()?;
    let mut con = client
        .get_connection_with_timeout(Duration::from_millis(500))
        .ok()?;
    con.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    cmd.query(&mut con).ok()
}

/// Poll `done` every 50 ms for at most `secs` seconds; fail naming `what`.
/// For the polls that open connections (to every sentinel, say), which
/// [`crate::wait_until`]'s few milliseconds would make a load of their own.
pub fn wait_for(what: &str, secs: u64, mut done: impl FnMut() -> bool) -> Duration {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(secs),
            "not within {secs} s: {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    start.elapsed()
}

/// One master, one replica, three sentinels, all up and aware of each
/// other (the sentinels see the replica and the two other sentinels).
pub struct Deployment {
    /// The first master.
    pub master: TempServer,
    /// Its replica.
    pub replica: TempServer,
    /// The three sentinels.
    pub sentinels: Vec<SentinelProcess>,
    /// The master's and the replica's TLS ports (the ports the sentinels
    /// name), when the deployment speaks TLS.
    pub tls_ports: Option<(u16, u16)>,
}

impl Deployment {
    /// A plain (no TLS) deployment.
    pub fn start() -> Deployment {
        Deployment::start_tls(None)
    }

    /// With `tls`: the servers listen on TLS ports too (each keeps its
    /// plain port, for the test's own checks) and replicate over TLS, and
    /// the sentinels reach them, and are reached, over TLS.
    pub fn start_tls(tls: Option<&Certs>) -> Deployment {
        let started = Instant::now();
        let tls_ports = tls.map(|_| (free_port(), free_port()));
        let tls_args = |port: u16| -> Vec<String> {
            let Some(certs) = tls else { return Vec::new() };
            let path = |name: &str| certs.path(name).display().to_string();
            vec![
                "--tls-port".into(),
                port.to_string(),
                "--tls-replication".into(),
                "yes".into(),
                "--tls-auth-clients".into(),
                "optional".into(),
                "--tls-cert-file".into(),
                path("server.pem"),
                "--tls-key-file".into(),
                path("server.key"),
                "--tls-ca-cert-file".into(),
                path("ca.pem"),
            ]
        };
        let mut master_args = strs(&[]);
        master_args.extend(tls_ports.map_or(Vec::new(), |(m, _)| tls_args(m)));
        let master =
            TempServer::start_with(&master_args.iter().map(String::as_str).collect::<Vec<_>>())
                .unwrap_or_else(|e| panic!("master: {e}"));
        // the port the replica and the sentinels reach the master on
        let master_port = tls_ports.map_or(master.port(), |(m, _)| m);
        let mut replica_args = strs(&["--replicaof", "127.0.0.1", &master_port.to_string()]);
        replica_args.extend(tls_ports.map_or(Vec::new(), |(_, r)| tls_args(r)));
        let (replica, sentinels) = std::thread::scope(|s| {
            let replica = s.spawn(|| {
                TempServer::start_with(&replica_args.iter().map(String::as_str).collect::<Vec<_>>())
                    .unwrap_or_else(|e| panic!("replica: {e}"))
            });
            let sentinels: Vec<_> = (0..3)
                .map(|n| s.spawn(move || SentinelProcess::start(master_port, n, tls)))
                .collect();
            (
                replica.join().unwrap(),
                sentinels
                    .into_iter()
                    .map(|h| h.join().unwrap())
                    .collect::<Vec<_>>(),
            )
        });
        let d = Deployment {
            master,
            replica,
            sentinels,
            tls_ports,
        };
        wait_for("the replica is in sync", 60, || {
            query::<String>(d.replica.port(), redis::cmd("INFO").arg("replication"))
                .is_some_and(|info| info.contains("master_link_status:up"))
        });
        for s in &d.sentinels {
            wait_for(
                "every sentinel sees the replica and the two other sentinels",
                60,
                || {
                    let replicas: Option<Vec<redis::Value>> =
                        query(s.port, redis::cmd("SENTINEL").arg("REPLICAS").arg(MASTER));
                    let others: Option<Vec<redis::Value>> =
                        query(s.port, redis::cmd("SENTINEL").arg("SENTINELS").arg(MASTER));
                    replicas.is_some_and(|r| r.len() == 1) && others.is_some_and(|o| o.len() == 2)
                },
            );
        }
        eprintln!("sentinel deployment up in {:?}", started.elapsed());
        d
    }

    /// `redis+sentinel://` (or `rediss+sentinel://`) naming the three
    /// sentinels and the master name.
    pub fn url(&self) -> String {
        let hosts: Vec<String> = self
            .sentinels
            .iter()
            .map(|s| format!("127.0.0.1:{}", s.tls_port.unwrap_or(s.port)))
            .collect();
        let scheme = if self.tls_ports.is_some() {
            "rediss+sentinel"
        } else {
            "redis+sentinel"
        };
        format!("{scheme}://{}/{MASTER}", hosts.join(","))
    }

    /// The plain port of the server the sentinels name by `port`.
    pub fn plain(&self, port: u16) -> u16 {
        match self.tls_ports {
            Some((m, _)) if m == port => self.master.port(),
            Some((_, r)) if r == port => self.replica.port(),
            _ => port,
        }
    }

    /// The master's port, as the first sentinel that answers names it.
    pub fn master_port(&self) -> Option<u16> {
        self.sentinels.iter().find_map(|s| {
            let addr: Option<(String, u16)> = query(
                s.port,
                redis::cmd("SENTINEL")
                    .arg("GET-MASTER-ADDR-BY-NAME")
                    .arg(MASTER),
            );
            addr.map(|(_, port)| port)
        })
    }

    /// Wait until every sentinel names the replica as the master.
    pub fn wait_promoted(&self) -> Duration {
        let replica = self.tls_ports.map_or(self.replica.port(), |(_, r)| r);
        wait_for("the sentinels name the replica as master", 60, || {
            self.sentinels.iter().all(|s| {
                query::<(String, u16)>(
                    s.port,
                    redis::cmd("SENTINEL")
                        .arg("GET-MASTER-ADDR-BY-NAME")
                        .arg(MASTER),
                )
                .is_some_and(|(_, port)| port == replica)
            })
        })
    }
}
