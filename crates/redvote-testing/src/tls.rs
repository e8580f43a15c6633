//! TLS fixtures: a CA, a server certificate for 127.0.0.1/localhost, a
//! client certificate and an unrelated second CA, all made with the
//! `openssl` CLI in a temporary directory; and a `redis-server` that
//! listens on TLS only (`--port 0 --tls-port P`), killed when dropped.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// What to tell someone whose machine has no `openssl`.
pub const OPENSSL_HINT: &str = "the TLS tests make their certificates with the openssl CLI, \
    which was not found on PATH; install it (Debian/Ubuntu: `sudo apt-get install -y openssl`, \
    macOS: `brew install openssl`)";

/// PEM files in a temporary directory, removed when dropped.
pub struct Certs {
    /// The directory holding the PEM files (removed on drop).
    pub dir: PathBuf,
}

impl Certs {
    /// An empty directory of certificates of its own under the temporary
    /// directory (`redvote-<what>-PID-N`), removed on drop.
    pub fn empty(what: &str) -> Certs {
        static SEQ: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "redvote-{what}-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Certs { dir }
    }

    /// The path of the file `name` in [`Certs::dir`].
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// The bytes of the file `name`.
    pub fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.path(name)).unwrap_or_else(|e| panic!("read {name}: {e}"))
    }

    /// `redvote::Tls` trusting `ca` (a file name in the directory), with
    /// the client certificate when `client`.
    pub fn tls(&self, ca: &str, client: bool) -> redvote::Tls {
        redvote::Tls {
            ca: Some(self.read(ca)),
            client: client.then(|| (self.read("client.pem"), self.read("client.key"))),
        }
    }
}

impl Drop for Certs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| match e.kind() {
            std::io::ErrorKind::NotFound => panic!("{OPENSSL_HINT}"),
            _ => panic!("cannot run openssl: {e}"),
        });
    assert!(
        out.status.success(),
        "openssl {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

const EC: [&str; 4] = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"];

/// A self-signed CA: `NAME.pem`, `NAME.key`.
fn ca(dir: &Path, name: &str) {
    let (pem, key, subj) = (
        format!("{name}.pem"),
        format!("{name}.key"),
        format!("/CN=redvote test {name}"),
    );
    let mut args = vec!["req", "-x509", "-nodes", "-days", "2"];
    args.extend(EC);
    args.extend(["-keyout", &key, "-out", &pem, "-subj", &subj]);
    args.extend(["-addext", "basicConstraints=critical,CA:TRUE"]);
    args.extend(["-addext", "keyUsage=critical,keyCertSign,cRLSign"]);
    openssl(dir, &args);
}

/// A leaf `NAME.pem`/`NAME.key` signed by `ca.pem`, with `ext` (an
/// extensions file's lines).
fn leaf(dir: &Path, name: &str, cn: &str, ext: &str, serial: &str) {
    let (pem, key, csr, extfile) = (
        format!("{name}.pem"),
        format!("{name}.key"),
        format!("{name}.csr"),
        format!("{name}.ext"),
    );
    std::fs::write(dir.join(&extfile), ext).unwrap();
    let subj = format!("/CN={cn}");
    let mut args = vec!["req", "-nodes"];
    args.extend(EC);
    args.extend(["-keyout", &key, "-out", &csr, "-subj", &subj]);
    openssl(dir, &args);
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            &csr,
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-set_serial",
            serial,
            "-days",
            "2",
            "-out",
            &pem,
            "-extfile",
            &extfile,
        ],
    );
}

/// Make the CA (`ca.pem`), the server's certificate (`server.pem`, SAN
/// 127.0.0.1 and localhost; also a client certificate, for replication and
/// Sentinel over TLS), a client certificate (`client.pem`) and a
/// second, unrelated CA (`other-ca.pem`).
pub fn certs() -> Certs {
    let certs = Certs::empty("tls");
    let dir = certs.dir.as_path();
    ca(dir, "ca");
    ca(dir, "other-ca");
    leaf(
        dir,
        "server",
        "localhost",
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n\
         keyUsage=critical,digitalSignature,keyEncipherment\n\
         extendedKeyUsage=serverAuth,clientAuth\n",
        "1001",
    );
    leaf(
        dir,
        "client",
        "redvote-test-client",
        "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n\
         extendedKeyUsage=clientAuth\n",
        "1002",
    );
    certs
}

/// A `redis-server` listening on TLS only, killed (and its directory
/// removed) when dropped.
pub struct TlsServer {
    child: Child,
    /// The TLS port.
    pub port: u16,
    dir: PathBuf,
}

impl TlsServer {
    /// Start one with the certificates of `certs`; `auth_clients` is
    /// `--tls-auth-clients` (`optional` or `yes`).
    pub fn start(certs: &Certs, auth_clients: &str) -> TlsServer {
        let mut last = String::new();
        for attempt in 0..5 {
            let port = TcpListener::bind(("127.0.0.1", 0))
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let dir = certs.dir.join(format!("server-{port}-{attempt}"));
            std::fs::create_dir_all(&dir).unwrap();
            let child = Command::new("redis-server")
                .args(["--port", "0", "--bind", "127.0.0.1"])
                .args(["--tls-port", &port.to_string()])
                .arg("--tls-cert-file")
                .arg(certs.path("server.pem"))
                .arg("--tls-key-file")
                .arg(certs.path("server.key"))
                .arg("--tls-ca-cert-file")
                .arg(certs.path("ca.pem"))
                .args(["--tls-auth-clients", auth_clients])
                .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
                .arg("--dir")
                .arg(&dir)
                .args(["--logfile", "redis.log"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("{}: {e}", crate::INSTALL_HINT));
            let mut server = TlsServer { child, port, dir };
            let start = Instant::now();
            loop {
                if let Some(status) = server.child.try_wait().unwrap() {
                    last = format!(
                        "redis-server exited ({status}): {}",
                        std::fs::read_to_string(server.dir.join("redis.log")).unwrap_or_default()
                    );
                    break;
                }
                if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    return server;
                }
                if start.elapsed() > Duration::from_secs(10) {
                    last = format!("redis-server's TLS port {port} not open within 10 s");
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        panic!("cannot start a TLS redis-server: {last}");
    }

    /// `rediss://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("rediss://127.0.0.1:{}", self.port)
    }
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A campaign of one total board B with options x and y.
pub fn settings() -> redvote::CampaignSettings {
    crate::boards([(
        "B",
        crate::board(
            &[redvote::Period::Total],
            crate::options([("x", 1), ("y", 1)]),
        ),
    )])
}

/// A client of `server` with `tls`, timeouts of 3 s.
pub fn client(server: &TlsServer, tls: &redvote::Tls) -> redvote::Client {
    redvote::Client::open_tls(&server.url(), tls)
        .unwrap()
        .timeouts(
            std::time::Duration::from_secs(3),
            std::time::Duration::from_secs(3),
        )
}

/// The real total of `option` on board B, read back with `campaign_top`.
pub fn real(top: &[redvote::BoardPage], option: &str) -> String {
    top[0]
        .entries
        .iter()
        .find(|e| e.member == option)
        .map_or("0".into(), |e| e.score.clone())
}

/// An error's whole chain, lower case.
pub fn text(err: &dyn std::error::Error) -> String {
    let mut s = err.to_string();
    let mut source = err.source();
    while let Some(e) = source {
        s.push_str(": ");
        s.push_str(&e.to_string());
        source = e.source();
    }
    s.to_lowercase()
}

/// What a user must read when the server's certificate does not chain to
/// the CA given.
pub fn says_unknown_issuer(message: &str) -> bool {
    message.contains("certificate")
        && (message.contains("unknownissuer") || message.contains("unknown issuer"))
}
