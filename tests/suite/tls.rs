//! `rediss://` against a real TLS `redis-server` (`--port 0 --tls-port P`),
//! with a CA, server and client certificates made by the `openssl` CLI
//! (`support::tls`): the core calls of both systems, sync and async; a
//! server signed by another CA refused with an error that names the
//! certificate; mutual TLS with and without the client certificate; and
//! the CLI's `--tls-ca`.

use std::time::{Duration, Instant};

use redvote::campaign::{Paging, View, Voter};
use redvote::{Campaign, Client, Order, Retry, Site};

use crate::support::tls::{certs, client, real, says_unknown_issuer, settings, text, TlsServer};

/// Post, vote and page on the site; configure, vote and top on a campaign:
/// all through one sync connection of `client`.
fn core_calls_sync(client: &Client, name: &str) {
    let mut con = client.connect().expect("connect over TLS");
    let site = Site::new(format!("{name}:"));
    let id = con
        .run(&site.post("u1", "hello tls", "https://e.x/tls"))
        .unwrap();
    let outcome = con.run(&site.vote("u2", id.to_string())).unwrap();
    assert!(outcome.changed, "{outcome:?}");
    let page = site
        .page(Order::Score, 1, None)
        .run(con.redis().unwrap())
        .unwrap();
    assert_eq!(page.total, 1);
    assert!(page.articles[0].id.ends_with(&id.to_string()), "{page:?}");
    assert_eq!(page.articles[0].votes, 2, "the poster's vote and u2's");

    let c = Campaign::new(name);
    con.run(&c.configure(&settings())).unwrap();
    con.run(&c.vote_by(&Voter::new("u1").id("v1"), &[("B", "x")]))
        .unwrap();
    con.run(&c.vote("u2", &[("B", "x")])).unwrap();
    con.run(&c.vote("u3", &[("B", "y")])).unwrap();
    let top = con
        .run(&c.top(
            &["B"],
            &View::real("total"),
            Paging {
                page: 1,
                per_page: 10,
            },
        ))
        .unwrap();
    assert_eq!(top[0].entries[0].member, "x", "{top:?}");
    assert_eq!((real(&top, "x"), real(&top, "y")), ("2".into(), "1".into()));
}

/// [`core_calls_sync`] on an async connection.
async fn core_calls_async(client: &Client, name: &str) {
    let con = client.connect_async().await.expect("connect over TLS");
    let site = Site::new(format!("{name}:"));
    let id = con
        .run(&site.post("u1", "hello tls", "https://e.x/tls"))
        .await
        .unwrap();
    let outcome = con.run(&site.vote("u2", id.to_string())).await.unwrap();
    assert!(outcome.changed, "{outcome:?}");
    let page = site
        .page(Order::Score, 1, None)
        .run_async(&mut con.redis().await.unwrap())
        .await
        .unwrap();
    assert_eq!(page.total, 1);
    assert_eq!(page.articles[0].votes, 2, "the poster's vote and u2's");

    let c = Campaign::new(name);
    con.run(&c.configure(&settings())).await.unwrap();
    con.run(&c.vote_by(&Voter::new("u1").id("v1"), &[("B", "x")]))
        .await
        .unwrap();
    con.run(&c.vote("u2", &[("B", "y")])).await.unwrap();
    con.run(&c.vote("u3", &[("B", "y")])).await.unwrap();
    let top = con
        .run(&c.top(
            &["B"],
            &View::real("total"),
            Paging {
                page: 1,
                per_page: 10,
            },
        ))
        .await
        .unwrap();
    assert_eq!(top[0].entries[0].member, "y", "{top:?}");
    assert_eq!((real(&top, "x"), real(&top, "y")), ("1".into(), "2".into()));
}

#[test]
fn the_core_calls_run_over_tls_sync() {
    let certs = certs();
    let server = TlsServer::start(&certs, "optional");
    core_calls_sync(&client(&server, &certs.tls("ca.pem", false)), "tls-sync");
}

#[tokio::test]
async fn the_core_calls_run_over_tls_async() {
    let certs = certs();
    let server = TlsServer::start(&certs, "optional");
    core_calls_async(&client(&server, &certs.tls("ca.pem", false)), "tls-async").await;
}

#[tokio::test]
async fn a_server_signed_by_another_ca_is_refused_and_says_why() {
    let certs = certs();
    let server = TlsServer::start(&certs, "optional");
    let wrong = client(&server, &certs.tls("other-ca.pem", false));
    let started = Instant::now();
    let err = wrong
        .connect()
        .err()
        .expect("connected to an untrusted server");
    let message = text(&err);
    assert!(says_unknown_issuer(&message), "sync: {message}");
    assert!(!err.may_have_applied(), "nothing was sent: {message}");
    let err = wrong
        .connect_async()
        .await
        .err()
        .expect("connected to an untrusted server");
    let message = text(&err);
    assert!(says_unknown_issuer(&message), "async: {message}");
    // refused, not waited out
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // no CA at all: the system's roots do not know the test CA either
    let none = Client::open(&server.url()).unwrap().retry(Retry::never());
    let message = text(&none.connect().err().expect("connected without a CA"));
    assert!(says_unknown_issuer(&message), "no CA: {message}");
}

#[tokio::test]
async fn mutual_tls_needs_the_client_certificate() {
    let certs = certs();
    let server = TlsServer::start(&certs, "yes");
    let with_cert = client(&server, &certs.tls("ca.pem", true));
    core_calls_sync(&with_cert, "mtls-sync");
    core_calls_async(&with_cert, "mtls-async").await;

    let without = client(&server, &certs.tls("ca.pem", false)).retry(Retry::never());
    let c = Campaign::new("mtls-none");
    let sync = without
        .connect()
        .and_then(|mut con| con.run(&c.configure(&settings())));
    let err = sync.expect_err("ran without a client certificate");
    let message = text(&err);
    eprintln!("no client certificate, sync: {message}");
    assert!(message.contains("certificate"), "sync: {message}");
    assert!(!err.may_have_applied(), "the server ran nothing: {message}");
    let con = without.connect_async().await;
    let message = match con {
        Err(err) => text(&err),
        Ok(con) => text(
            &con.run(&c.configure(&settings()))
                .await
                .expect_err("ran without a client certificate"),
        ),
    };
    eprintln!("no client certificate, async: {message}");
    assert!(message.contains("certificate"), "async: {message}");
    // nothing of it reached the data set
    let mut con = with_cert.connect().unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("{c:mtls-none}*")
        .query(con.redis().unwrap())
        .unwrap();
    assert!(keys.is_empty(), "{keys:?}");
}
