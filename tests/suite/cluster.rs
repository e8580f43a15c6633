//! The cluster rule, on a real three-node Redis Cluster started by the test:
//! a hash-tagged prefix (article site) or namespace (campaign) keeps every
//! script call in one slot, so each call runs whole on one node through
//! redis-rs' cluster client; an untagged prefix does not.

use std::process::Command;
use std::time::{Duration, Instant};

use redvote::testing::TempServer;
use redvote::{Campaign, CampaignSettings, Order, Site};

use crate::support;

/// One cluster-enabled node. The cluster bus defaults to port + 10000, which
/// may be taken or beyond 65535 for an ephemeral port: give it a free port
/// of its own. Other tests of this binary start servers meanwhile and may
/// take that port between the probe and the node's bind (the node then
/// exits at once): try again with a fresh bus port.
fn cluster_node() -> TempServer {
    let mut last = None;
    for _ in 0..5 {
        let bus = std::net::TcpListener::bind(("127.0.0.1", 0))
            .and_then(|l| l.local_addr())
            .unwrap()
            .port()
            .to_string();
        match TempServer::start_with(&[
            "--cluster-enabled",
            "yes",
            "--cluster-node-timeout",
            "2000",
            "--cluster-port",
            &bus,
        ]) {
            Ok(node) => return node,
            Err(e) => last = Some(e),
        }
    }
    panic!("cannot start redis-server: {}", last.unwrap())
}

/// Three masters on free loopback ports, slots spread by `redis-cli --cluster create`.
fn cluster() -> Vec<TempServer> {
    let nodes: Vec<TempServer> = (0..3).map(|_| cluster_node()).collect();
    let addrs: Vec<String> = nodes
        .iter()
        .map(|n| format!("127.0.0.1:{}", n.port()))
        .collect();
    let out = Command::new("redis-cli")
        .args(["--cluster", "create"])
        .args(&addrs)
        .args(["--cluster-replicas", "0", "--cluster-yes"])
        .output()
        .expect("redis-cli --cluster create");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let start = Instant::now();
    for node in &nodes {
        let mut con = support::con(node);
        loop {
            let info: String = redis::cmd("CLUSTER").arg("INFO").query(&mut con).unwrap();
            if info.contains("cluster_state:ok") {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "cluster never became ok: {info}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    nodes
}

#[test]
fn hash_tagged_sites_and_campaigns_run_on_a_cluster() {
    let nodes = cluster();
    let urls: Vec<String> = nodes.iter().map(|n| n.url()).collect();
    let client = redis::cluster::ClusterClient::new(urls).unwrap();
    let mut con = client.get_connection().unwrap();

    // A site under a hash-tagged prefix: every operation works.
    let site = Site::new("{site1}:");
    let id = site
        .post("user:1", "Hello", "https://x")
        .run(&mut con)
        .unwrap();
    let vote = site.vote("user:2", &id.to_string()).run(&mut con).unwrap();
    assert_eq!(vote.votes, 2);
    site.groups(&id.to_string(), &["redis"], &[])
        .run(&mut con)
        .unwrap();
    let page = site.page(Order::Score, 1, None).run(&mut con).unwrap();
    assert_eq!(page.articles.len(), 1);
    let group = site
        .group_page("redis", Order::Time, 1, None)
        .run(&mut con)
        .unwrap();
    assert_eq!(group.articles[0].id, id.to_string());

    // A campaign namespace carries its own hash tag.
    let campaign = Campaign::new("spring");
    let settings: CampaignSettings = serde_json::from_str(
        r#"{"limits": [{"name": "u", "by": ["user"], "window": "day", "limit": 5}],
            "boards": {"stars": {"periods": ["day", "total"], "options": {"a": {}, "b": {}}}}}"#,
    )
    .unwrap();
    campaign.configure(&settings).run(&mut con).unwrap();
    campaign
        .vote("user:1", &[("stars", "a"), ("stars", "b")])
        .run(&mut con)
        .unwrap();
    let top = campaign
        .top(
            &["stars"],
            &redvote::View::new(redvote::Kind::Real, "total"),
            redvote::Paging::new(1, 10),
        )
        .run(&mut con)
        .unwrap();
    assert_eq!(top[0].size, 2);

    // Without a hash tag the site's keys spread over slots: Redis refuses
    // the script instead of touching keys on other nodes.
    let untagged = Site::new("site2:");
    let err = untagged
        .post("user:1", "t", "https://x")
        .run(&mut con)
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("REDVOTE_INTERNAL ")
            && (text.contains("non local key") || text.contains("same slot")),
        "{text}"
    );
}
