//! TLS against a server whose certificate is not CA-signed, made with the
//! `openssl` CLI: a self-signed certificate and an X.509 v1 one are refused
//! with words that say what is wrong and point to docs/connecting.md (not
//! only rustls's `CaUsedAsEndEntity` / `UnsupportedCertVersion`);
//! `rediss://...#insecure` skips the check and runs the calls.

use std::process::{Command, Stdio};

use redvote::{Campaign, Client, Site};

use crate::support::tls::{settings, text, Certs, TlsServer, OPENSSL_HINT};

fn openssl(dir: &std::path::Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{OPENSSL_HINT}: {e}"));
    assert!(
        out.status.success(),
        "openssl {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `server.pem`/`server.key` (also `ca.pem`, the server's own certificate,
/// for its `--tls-ca-cert-file`): self-signed by `openssl req -x509` (v3,
/// CA:TRUE) when `v1` is false, else `openssl x509 -req -signkey` (v1).
fn self_signed(v1: bool) -> Certs {
    let certs = Certs::empty("tls-ss");
    let dir = certs.dir.as_path();
    let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"];
    if v1 {
        let mut args = vec!["req", "-nodes"];
        args.extend(ec);
        args.extend(["-keyout", "server.key", "-out", "server.csr"]);
        args.extend(["-subj", "/CN=localhost"]);
        openssl(dir, &args);
        openssl(
            dir,
            &[
                "x509",
                "-req",
                "-in",
                "server.csr",
                "-signkey",
                "server.key",
                "-days",
                "2",
                "-out",
                "server.pem",
            ],
        );
    } else {
        let mut args = vec!["req", "-x509", "-nodes", "-days", "2"];
        args.extend(ec);
        args.extend(["-keyout", "server.key", "-out", "server.pem"]);
        args.extend(["-subj", "/CN=localhost"]);
        args.extend(["-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"]);
        openssl(dir, &args);
    }
    std::fs::copy(dir.join("server.pem"), dir.join("ca.pem")).unwrap();
    certs
}

/// The error of a sync and of an async connect to `server`, trusting its
/// own certificate, whole chain, lower case.
async fn errors(server: &TlsServer, certs: &Certs) -> [String; 2] {
    let tls = redvote::Tls {
        ca: Some(certs.read("server.pem")),
        client: None,
    };
    let client = crate::support::tls::client(server, &tls);
    let sync = client.connect().err().expect("a sync connect is refused");
    let not_async = client
        .connect_async()
        .await
        .err()
        .expect("an async connect is refused");
    [text(&sync), text(&not_async)]
}

#[tokio::test]
async fn a_self_signed_server_certificate_is_refused_in_words() {
    let certs = self_signed(false);
    let server = TlsServer::start(&certs, "no");
    for message in errors(&server, &certs).await {
        assert!(
            message.contains("is a ca certificate, e.g. self-signed")
                && message.contains("signed by a ca")
                && message.contains("ca:false")
                && message.contains("a ca-signed server certificate"),
            "{message}"
        );
    }
}

#[tokio::test]
async fn an_x509_v1_server_certificate_is_refused_in_words() {
    let certs = self_signed(true);
    let server = TlsServer::start(&certs, "no");
    for message in errors(&server, &certs).await {
        assert!(
            message.contains("is x.509 v1")
                && message.contains("v3 certificate signed by a ca")
                && message.contains("a ca-signed server certificate"),
            "{message}"
        );
    }
}

#[tokio::test]
async fn the_insecure_fragment_skips_the_certificate_check() {
    let certs = self_signed(false);
    let server = TlsServer::start(&certs, "no");
    let url = format!("{}/#insecure", server.url());
    let client = Client::open(&url).unwrap().timeouts(
        std::time::Duration::from_secs(3),
        std::time::Duration::from_secs(3),
    );

    let mut con = client.connect().expect("#insecure connects (sync)");
    let site = Site::new("ins:");
    let id = con.run(&site.post("u1", "t", "https://e.x/i")).unwrap();
    assert!(con.run(&site.vote("u2", id.to_string())).unwrap().changed);

    let con = client
        .connect_async()
        .await
        .expect("#insecure connects (async)");
    let c = Campaign::new("ins");
    con.run(&c.configure(&settings())).await.unwrap();
    con.run(&c.vote("u1", &[("B", "x")])).await.unwrap();

    // without the fragment the same server is refused
    let plain = Client::open(&server.url()).unwrap();
    assert!(plain.connect().is_err(), "no #insecure, no CA: refused");
}
