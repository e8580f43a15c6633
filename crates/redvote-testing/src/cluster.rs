//! [`Cluster`]: a throwaway Redis Cluster on free loopback ports, for the
//! tests of every crate and the benchmark's cluster section: any number of
//! masters (the slots split evenly) with any number of replicas each, each
//! node a [`TempServer`] (the [`crate::server_binary`]: `redis-server`, or
//! the Valkey that `REDVOTE_SERVER` names; persistence off, its own temp dir,
//! `--cluster-node-timeout 1000`, a bus port of its own), and the probes
//! tests make of it (roles, slots, INFO). [`shared`] hands one 3+3 cluster
//! to every test of a binary that can share it.

use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use crate::TempServer;

/// One cluster-enabled node. The cluster bus defaults to port + 10000, which
/// may be taken or beyond 65535 for an ephemeral port: give it a free port
/// of its own. Other tests of this binary start servers meanwhile and may
/// take that port between the probe and the node's bind (the node then
/// exits at once): try again with a fresh bus port.
fn cluster_node() -> (TempServer, u16) {
    let mut last = None;
    for _ in 0..5 {
        let port = std::net::TcpListener::bind(("127.0.0.1", 0))
            .and_then(|l| l.local_addr())
            .unwrap()
            .port();
        let bus = port.to_string();
        match TempServer::start_with(&[
            "--cluster-enabled",
            "yes",
            "--cluster-node-timeout",
            "1000",
            "--cluster-port",
            &bus,
            // a replica's first sync at once, not after 5 s
            "--repl-diskless-sync-delay",
            "0",
        ]) {
            Ok(node) => return (node, port),
            Err(e) => last = Some(e),
        }
    }
    panic!("cannot start {}: {}", crate::server_binary(), last.unwrap())
}

/// `CLUSTER MEET` from `node` to `other` (its cluster bus on `bus`): a
/// node already known is met again harmlessly (the handshake finds it).
fn meet(node: &TempServer, other: &TempServer, bus: u16) {
    redis::cmd("CLUSTER")
        .arg("MEET")
        .arg("127.0.0.1")
        .arg(other.port())
        .arg(bus)
        .exec(&mut con(node))
        .expect("CLUSTER MEET");
}

/// A running cluster; its nodes are killed when it is dropped.
pub struct Cluster {
    /// The nodes, masters first (in the order [`Cluster::start`] made them).
    pub nodes: Vec<TempServer>,
}

/// A plain connection to one node.
pub fn con(node: &TempServer) -> redis::Connection {
    let con = node.client().get_connection().expect("connect to a node");
    con.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    con
}

/// `INFO section` of `node`.
pub fn info(node: &TempServer, section: &str) -> String {
    redis::cmd("INFO")
        .arg(section)
        .query(&mut con(node))
        .expect("INFO")
}

/// How many TRYAGAIN error replies `node` sent (INFO errorstats).
pub fn tryagain_count(node: &TempServer) -> u64 {
    info(node, "errorstats")
        .lines()
        .find_map(|l| l.strip_prefix("errorstat_TRYAGAIN:count="))
        .map_or(0, |v| v.trim().parse().unwrap())
}

/// `CLUSTER MYID` of `node`.
pub fn node_id(node: &TempServer) -> String {
    redis::cmd("CLUSTER")
        .arg("MYID")
        .query(&mut con(node))
        .unwrap()
}

/// Whether `node` answers ROLE as a master.
pub fn is_master(node: &TempServer) -> bool {
    let role: Vec<redis::Value> = redis::cmd("ROLE").query(&mut con(node)).unwrap();
    matches!(&role[0], redis::Value::BulkString(b) if b == b"master")
}

/// The slots `node` itself serves, from its own line of CLUSTER NODES.
pub fn own_slots(node: &TempServer) -> Vec<u16> {
    let nodes: String = redis::cmd("CLUSTER")
        .arg("NODES")
        .query(&mut con(node))
        .unwrap();
    let line = nodes.lines().find(|l| l.contains("myself")).unwrap();
    let mut slots = Vec::new();
    for field in line.split(' ').skip(8) {
        if field.starts_with('[') {
            continue; // a migrating / importing marker
        }
        let (a, b) = field.split_once('-').unwrap_or((field, field));
        slots.extend(a.parse::<u16>().unwrap()..=b.parse::<u16>().unwrap());
    }
    slots
}

/// `CLUSTER SETSLOT slot state id` on `node` (`IMPORTING`, `MIGRATING`,
/// `NODE`: the steps of a slot migration); panics naming the node.
pub fn setslot(node: &TempServer, slot: u16, state: &str, id: &str) {
    redis::cmd("CLUSTER")
        .arg("SETSLOT")
        .arg(slot)
        .arg(state)
        .arg(id)
        .exec(&mut con(node))
        .unwrap_or_else(|e| panic!("SETSLOT {slot} {state} on {}: {e}", node.port()));
}

/// `CLUSTER COUNTKEYSINSLOT slot` on `node`.
pub fn count_keys_in_slot(node: &TempServer, slot: u16) -> u64 {
    redis::cmd("CLUSTER")
        .arg("COUNTKEYSINSLOT")
        .arg(slot)
        .query(&mut con(node))
        .unwrap()
}

impl Cluster {
    /// `masters` masters (1 or more) with `replicas` replicas each, nodes
    /// started in parallel, the 16384 slots split evenly between the
    /// masters (`CLUSTER ADDSLOTSRANGE`), joined by `CLUSTER MEET`, each
    /// replica attached with `CLUSTER REPLICATE`, and waited for:
    /// `cluster_state:ok` on every node, every replica in sync. Panics when
    /// the cluster does not form (a test harness: fail, never skip).
    pub fn start(masters: usize, replicas: usize) -> Cluster {
        assert!(masters >= 1, "a cluster needs a master");
        let t0 = Instant::now();
        let started: Vec<(TempServer, u16)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..masters * (1 + replicas))
                .map(|_| s.spawn(cluster_node))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let (nodes, buses): (Vec<TempServer>, Vec<u16>) = started.into_iter().unzip();
        for (i, n) in nodes.iter().enumerate() {
            let mut c = con(n);
            if i < masters {
                let (lo, hi) = (16384 * i / masters, 16384 * (i + 1) / masters - 1);
                redis::cmd("CLUSTER")
                    .arg("ADDSLOTSRANGE")
                    .arg(lo)
                    .arg(hi)
                    .exec(&mut c)
                    .expect("CLUSTER ADDSLOTSRANGE");
            }
            if i > 0 {
                meet(n, &nodes[0], buses[0]);
            }
        }
        let cluster = Cluster { nodes };
        let total = cluster.nodes.len();
        // every node knows every other before a replica names its master. A
        // handshake not done within the node timeout (1 s) is dropped and
        // never tried again, which a loaded machine can make happen: a
        // node that still misses some meets the first node again
        let limit = Duration::from_secs(60);
        for (i, n) in cluster.nodes.iter().enumerate() {
            let mut met = Instant::now();
            while !info_cluster(n).contains(&format!("cluster_known_nodes:{total}\r")) {
                assert!(t0.elapsed() < limit, "the nodes never met");
                if met.elapsed() > Duration::from_secs(2) {
                    if i == 0 {
                        for (other, bus) in cluster.nodes.iter().zip(&buses).skip(1) {
                            meet(n, other, *bus);
                        }
                    } else {
                        meet(n, &cluster.nodes[0], buses[0]);
                    }
                    met = Instant::now();
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        for (j, replica) in cluster.nodes[masters..].iter().enumerate() {
            let master = node_id(&cluster.nodes[j % masters]);
            loop {
                match redis::cmd("CLUSTER")
                    .arg("REPLICATE")
                    .arg(&master)
                    .exec(&mut con(replica))
                {
                    Ok(()) => break,
                    // the replica has not yet learnt that the node is a master
                    Err(e) => assert!(t0.elapsed() < limit, "CLUSTER REPLICATE: {e}"),
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        cluster.wait_healthy(masters, masters * replicas, limit);
        eprintln!(
            "cluster of {masters} masters + {} replicas ready in {:?}",
            masters * replicas,
            t0.elapsed()
        );
        cluster
    }

    /// Wait until every live node says `cluster_state:ok`, `masters` of
    /// them are masters and `replicas` replicas are linked and synced.
    pub fn wait_healthy(&self, masters: usize, replicas: usize, limit: Duration) {
        let start = Instant::now();
        loop {
            let (mut ok, mut m, mut r) = (true, 0, 0);
            for node in self.live() {
                ok &= info_cluster(node).contains("cluster_state:ok");
                let repl = info(node, "replication");
                if repl.contains("role:master") {
                    m += 1;
                } else if repl.contains("master_link_status:up")
                    && repl.contains("master_sync_in_progress:0")
                {
                    r += 1;
                }
            }
            if ok && m == masters && r == replicas {
                return;
            }
            assert!(
                start.elapsed() < limit,
                "cluster not healthy after {limit:?}: ok {ok}, {m} masters, {r} replicas"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The nodes still running (answering PING).
    pub fn live(&self) -> impl Iterator<Item = &TempServer> {
        self.nodes.iter().filter(|n| {
            n.client()
                .get_connection_with_timeout(Duration::from_millis(200))
                .and_then(|mut c| redis::cmd("PING").query::<String>(&mut c))
                .is_ok()
        })
    }

    /// The live nodes that answer ROLE as masters.
    pub fn masters(&self) -> Vec<&TempServer> {
        self.live().filter(|n| is_master(n)).collect()
    }

    /// The master serving `slot`.
    pub fn owner(&self, slot: u16) -> &TempServer {
        self.masters()
            .into_iter()
            .find(|n| own_slots(n).contains(&slot))
            .unwrap_or_else(|| panic!("no master serves slot {slot}"))
    }

    /// `redis+cluster://` with every node as a seed.
    pub fn url(&self) -> String {
        let addrs: Vec<String> = self
            .nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.port()))
            .collect();
        format!("redis+cluster://{}", addrs.join(","))
    }
}

fn info_cluster(node: &TempServer) -> String {
    redis::cmd("CLUSTER")
        .arg("INFO")
        .query(&mut con(node))
        .unwrap()
}

/// The cluster the tests share (3 masters, 3 replicas): started by the
/// first test that asks while none runs, killed when the last test holding
/// it is done (a static would leak the servers past the test binary).
pub fn shared() -> Arc<Cluster> {
    static SHARED: Mutex<Weak<Cluster>> = Mutex::new(Weak::new());
    let mut slot = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(cluster) = slot.upgrade() {
        return cluster;
    }
    let cluster = Arc::new(Cluster::start(3, 1));
    *slot = Arc::downgrade(&cluster);
    cluster
}
