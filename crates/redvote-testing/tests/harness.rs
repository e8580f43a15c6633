//! The harness keeps its promises: a server starts empty on a loopback
//! port of its own with persistence off and DEBUG on, and is gone (process
//! and directory) once dropped; a cluster of any size forms with every
//! slot served; the TLS certificates make a server that speaks TLS.

use std::time::Duration;

use redvote_testing::cluster::Cluster;
use redvote_testing::tls::{certs, TlsServer};
use redvote_testing::{con, digest, server};

#[test]
fn a_server_is_empty_private_and_gone_when_dropped() {
    let s = server();
    assert_ne!(s.port(), 6379, "never the default port");
    let mut c = con(&s);
    assert_eq!(digest(&mut c), "0".repeat(40), "not empty");
    let save: Vec<String> = redis::cmd("CONFIG")
        .arg("GET")
        .arg("save")
        .query(&mut c)
        .unwrap();
    let aof: Vec<String> = redis::cmd("CONFIG")
        .arg("GET")
        .arg("appendonly")
        .query(&mut c)
        .unwrap();
    assert_eq!((save[1].as_str(), aof[1].as_str()), ("", "no"));
    let (dir, url) = (s.dir().to_path_buf(), s.url());
    drop(s);
    assert!(!dir.exists(), "{dir:?} left behind");
    let client = redis::Client::open(url).unwrap();
    assert!(client
        .get_connection_with_timeout(Duration::from_millis(500))
        .is_err());
}

#[test]
fn clusters_of_one_and_three_masters_serve_every_slot() {
    for (masters, replicas) in [(1, 0), (3, 1)] {
        let cluster = Cluster::start(masters, replicas);
        assert_eq!(cluster.masters().len(), masters);
        let served: usize = cluster
            .masters()
            .iter()
            .map(|m| redvote_testing::cluster::own_slots(m).len())
            .sum();
        assert_eq!(served, 16384, "{masters} masters");
    }
}

#[test]
fn the_certificates_make_a_tls_server() {
    let certs = certs();
    let server = TlsServer::start(&certs, "optional");
    assert!(server.url().starts_with("rediss://"));
    let client = redvote::Client::open_tls(&server.url(), &certs.tls("ca.pem", false))
        .unwrap()
        .timeouts(Duration::from_secs(3), Duration::from_secs(3));
    let mut c = client.connect().unwrap();
    let page = c
        .page(&redvote::Site::default().page(redvote::Order::Score, 1, None))
        .unwrap();
    assert!(page.articles.is_empty());
}
