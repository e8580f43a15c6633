//! Redis Cluster: the slot of a key ([`key_slot`], [`hash_tag`]) and the
//! route to its primary, `CLUSTER SLOTS` read into slot ranges and
//! primaries, and the [`Client`]s of single nodes that [`Client::for_key`]
//! and [`Client::primaries`] answer (for what must see one node's keyspace,
//! or span all of them). Also what a call becomes before it is sent on a
//! cluster ([`Client::prepare`]): refused without a hash tag, given a vote
//! id when redis-rs's cluster client may resend it.

use std::time::Duration;

use super::target::{ClusterSeeds, Target};
use super::Client;
use crate::call::Call;
use crate::error::{Error, Result};
use crate::reply::Reply;

/// redis-rs's own retries inside one call on a Redis Cluster
/// ([`Client::cluster_retry`]): after a lost connection, `TRYAGAIN`,
/// `CLUSTERDOWN`, `MOVED`/`ASK`, up to `retries` more sends, waiting a
/// random time between `min_wait` and `min(max_wait, 10 ms * 2^n)` before
/// the `n`th (none before following a redirection).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClusterRetry {
    /// Resends at most, within one call.
    pub retries: u32,
    /// The shortest wait before a resend.
    pub min_wait: Duration,
    /// The longest wait before a resend.
    pub max_wait: Duration,
}

/// 16 resends (redis-rs's number), waiting 10 ms to 1 s (redis-rs waits
/// 1.28 s to 655 s: one stalled node held a call for minutes).
impl Default for ClusterRetry {
    fn default() -> Self {
        ClusterRetry {
            retries: 16,
            min_wait: Duration::from_millis(10),
            max_wait: Duration::from_secs(1),
        }
    }
}

impl Client {
    /// A client of the one server that holds `key`: on a cluster, the
    /// primary serving `key`'s slot now (asked of the seed nodes with
    /// `CLUSTER SLOTS`), reached with the same credentials, TLS material,
    /// timeouts, retry and wait; for any other URL, this client. For reads
    /// that must see one node's keyspace, such as the `SCAN`s of
    /// the checker's `check_campaign` (crate `redvote-check`): a campaign (`{c:NAME}:`)
    /// or a site with a tagged prefix lives whole on that node.
    pub fn for_key(&self, key: &str) -> Result<Client> {
        let Target::Cluster(seeds) = &self.target else {
            return Ok(self.clone());
        };
        let slot = key_slot(key.as_bytes());
        let (host, port) = self
            .cluster_slots(seeds)?
            .into_iter()
            .find(|(start, end, _, _)| (*start..=*end).contains(&slot))
            .map(|(_, _, host, port)| (host, port))
            .ok_or_else(|| Error::Config(format!("no node of {} serves slot {slot}", self.url)))?;
        self.node_client(seeds, &host, port)
    }

    /// This client's settings, for the cluster node at `host:port` alone.
    fn node_client(&self, seeds: &ClusterSeeds, host: &str, port: u16) -> Result<Client> {
        Ok(Client {
            target: seeds.node(host, port)?,
            url: seeds.node_display(host, port),
            ..self.clone()
        })
    }

    /// Clients of every primary of a cluster (as [`Client::for_key`]
    /// builds them), sorted by address; for any other URL, this client
    /// alone.
    /// For what spans the whole keyspace, such as listing campaigns.
    pub fn primaries(&self) -> Result<Vec<Client>> {
        let Target::Cluster(seeds) = &self.target else {
            return Ok(vec![self.clone()]);
        };
        primaries_of(self.cluster_slots(seeds)?)
            .into_iter()
            .map(|(host, port)| self.node_client(seeds, &host, port))
            .collect()
    }

    /// The cluster's slot ranges and their primaries (`CLUSTER SLOTS`, from
    /// the first seed node that answers): `(first, last, host, port)`.
    fn cluster_slots(&self, seeds: &ClusterSeeds) -> Result<Vec<(u16, u16, String, u16)>> {
        let mut last = None;
        for seed in &seeds.nodes {
            let (host, port) = match seed.addr() {
                redis::ConnectionAddr::Tcp(host, port)
                | redis::ConnectionAddr::TcpTls { host, port, .. } => (host, *port),
                _ => continue, // a Unix socket names no cluster node
            };
            let Target::Single(node) = seeds.node(host, port)? else {
                unreachable!("a node is a single server")
            };
            let slots = node
                .get_connection_with_timeout(self.connect_timeout)
                .and_then(|mut con| {
                    con.set_read_timeout(Some(self.response_timeout))?;
                    redis::cmd("CLUSTER")
                        .arg("SLOTS")
                        .query::<Vec<redis::Value>>(&mut con)
                });
            match slots {
                Ok(ranges) => return parse_cluster_slots(ranges),
                Err(e) => last = Some(e),
            }
        }
        Err(last.map_or_else(
            || Error::Config(format!("no TCP seed node in {}", self.url)),
            Error::from,
        ))
    }

    /// The redis-rs cluster client of `seeds`, with this client's timeouts
    /// (each no longer than the call deadline) and cluster retries.
    pub(super) fn cluster_client(
        &self,
        seeds: &ClusterSeeds,
    ) -> Result<redis::cluster::ClusterClient> {
        let deadline = self.call_deadline();
        seeds.client(
            self.connect_timeout.min(deadline),
            self.response_timeout.min(deadline),
            &self.cluster_retry,
        )
    }

    /// `call` as it is sent (None: as it is). On a cluster a call whose key
    /// has no hash tag is refused before it is sent (`Error::Config`): its
    /// script's keys would span slots, and Redis would refuse it only at
    /// the first key of another slot, possibly after a write to its own
    /// (`post` increments `article:` first). A campaign vote without a vote
    /// id gets one (redis-rs's cluster client may resend it).
    pub(super) fn prepare<T: Reply>(&self, call: &Call<T>) -> Result<Option<Call<T>>> {
        if !self.is_cluster() {
            return Ok(None);
        }
        if hash_tag(call.key().as_bytes()).is_none() {
            return Err(Error::Config(format!(
                "{:?} has no hash tag, so this call's keys span the slots of {}: give the \
                 site a tagged prefix (e.g. Site::new(\"{{news}}:\"))",
                call.key(),
                self.url
            )));
        }
        if call.is_idempotent() {
            return Ok(None);
        }
        Ok(call.with_vote_id(&fresh_vote_id()))
    }
}

/// A vote id no other call has: `auto-` and 32 hex digits from the clock,
/// the process, a counter and std's per-process random hash keys.
fn fresh_vote_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(nanos);
    hasher.write_u32(std::process::id());
    hasher.write_u64(n);
    format!("auto-{:016x}{:016x}", hasher.finish(), n ^ nanos)
}

/// The route to the primary of `call`'s key.
pub(super) fn slot_route<T: Reply>(
    call: &Call<T>,
) -> redis::cluster_routing::SingleNodeRoutingInfo {
    use redis::cluster_routing::{Route, SingleNodeRoutingInfo, SlotAddr};
    SingleNodeRoutingInfo::SpecificNode(Route::new(
        key_slot(call.key().as_bytes()),
        SlotAddr::Master,
    ))
}

/// `CLUSTER SLOTS`' ranges: `[first, last, [host, port, id, ...], replicas...]`.
pub(super) fn parse_cluster_slots(
    ranges: Vec<redis::Value>,
) -> Result<Vec<(u16, u16, String, u16)>> {
    fn item<T: redis::FromRedisValue>(items: &[redis::Value], i: usize) -> Option<T> {
        items
            .get(i)
            .and_then(|v| redis::from_redis_value_ref(v).ok())
    }
    ranges
        .iter()
        .map(|range| {
            let range: Vec<redis::Value> = redis::from_redis_value_ref(range).ok()?;
            let primary: Vec<redis::Value> = item(&range, 2)?;
            Some((
                item(&range, 0)?,
                item(&range, 1)?,
                item(&primary, 0)?,
                item(&primary, 1)?,
            ))
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| Error::Config("CLUSTER SLOTS answered an unexpected shape".into()))
}

/// The hash tag of `key`, as Redis Cluster reads it: the bytes between the
/// first `{` and the next `}`, when not empty. Keys with one tag share a
/// slot; a site prefix needs one to run on a cluster.
pub fn hash_tag(key: &[u8]) -> Option<&[u8]> {
    let open = key.iter().position(|&b| b == b'{')?;
    let close = key[open + 1..].iter().position(|&b| b == b'}')?;
    (close > 0).then(|| &key[open + 1..open + 1 + close])
}

/// The primaries of `CLUSTER SLOTS`' ranges, sorted by address, once each.
pub(super) fn primaries_of(ranges: Vec<(u16, u16, String, u16)>) -> Vec<(String, u16)> {
    let mut nodes: Vec<(String, u16)> = ranges
        .into_iter()
        .map(|(_, _, host, port)| (host, port))
        .collect();
    nodes.sort();
    nodes.dedup();
    nodes
}

/// The cluster slot of `key`: CRC16 (XMODEM) of its hash tag (the bytes
/// between the first `{` and the next `}`, when not empty) or of the whole
/// key, modulo 16384.
pub fn key_slot(key: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &byte in hash_tag(key).unwrap_or(key) {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc % 16384
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_slots_are_redis_cluster_slots() {
        // CLUSTER KEYSLOT on Redis 7.0
        assert_eq!(key_slot(b"{c:x}:campaign"), 6138);
        assert_eq!(key_slot(b"{c:x}"), key_slot(b"c:x"));
        assert_eq!(key_slot(b"foo"), 12182);
        assert_eq!(key_slot(b"{}foo"), key_slot(b"{}foo"));
        assert_ne!(key_slot(b"{}foo"), key_slot(b"foo"));
    }

    #[test]
    fn a_hash_tag_is_the_first_non_empty_braces() {
        assert_eq!(hash_tag(b"{news}:article:"), Some(&b"news"[..]));
        assert_eq!(hash_tag(b"a{b}c{d}"), Some(&b"b"[..]));
        assert_eq!(hash_tag(b"{}x{y}"), None, "the first braces are empty");
        assert_eq!(hash_tag(b"article:"), None);
        assert_eq!(hash_tag(b"{open"), None);
        assert_eq!(hash_tag(b"}{x}"), Some(&b"x"[..]));
    }

    /// `CLUSTER SLOTS` as Redis 7.0 answers it (a primary, a replica, the
    /// node id, an empty metadata map), and the primaries it names.
    #[test]
    fn cluster_slots_read_into_ranges_and_primaries() {
        fn range(first: i64, last: i64, port: i64) -> redis::Value {
            let node = |port: i64| {
                redis::Value::Array(vec![
                    redis::Value::BulkString(b"127.0.0.1".to_vec()),
                    redis::Value::Int(port),
                    redis::Value::BulkString(b"0123abcd".to_vec()),
                    redis::Value::Array(vec![]),
                ])
            };
            redis::Value::Array(vec![
                redis::Value::Int(first),
                redis::Value::Int(last),
                node(port),
                node(port + 100),
            ])
        }
        let ranges = vec![
            range(10923, 16383, 7002),
            range(0, 5460, 7000),
            range(5461, 10922, 7001),
            range(16383, 16383, 7000),
        ];
        let parsed = parse_cluster_slots(ranges).unwrap();
        assert_eq!(parsed[1], (0, 5460, "127.0.0.1".to_string(), 7000));
        let nodes = primaries_of(parsed);
        let ports: Vec<u16> = nodes.iter().map(|(_, port)| *port).collect();
        assert_eq!(ports, [7000, 7001, 7002], "sorted, once each");
        let bad = parse_cluster_slots(vec![redis::Value::Array(vec![redis::Value::Int(0)])]);
        assert!(matches!(bad, Err(Error::Config(_))));
    }

    /// On a cluster a call without a hash tag is refused before it is sent,
    /// and a campaign vote without an id gets a fresh one; elsewhere calls
    /// go as they are. (Opening a client connects to nothing.)
    #[test]
    fn a_call_is_prepared_for_a_cluster() {
        use crate::{Campaign, Site};
        let cluster = Client::open("redis+cluster://127.0.0.1:1,127.0.0.1:2").unwrap();
        let single = Client::open("redis://127.0.0.1:1").unwrap();
        let untagged = Site::default().vote("u", "1");
        assert!(matches!(
            cluster.prepare(&untagged),
            Err(Error::Config(m)) if m.contains("no hash tag")
        ));
        assert!(single.prepare(&untagged).unwrap().is_none());
        let tagged = Site::new("{s}:").vote("u", "1");
        assert!(cluster.prepare(&tagged).unwrap().is_none());
        let vote = Campaign::new("c").vote("u", &[("b", "o")]);
        let with_id = cluster.prepare(&vote).unwrap().expect("an id drawn");
        assert!(with_id.is_idempotent());
        assert!(with_id.args().iter().any(|a| a.starts_with("auto-")));
        assert!(single.prepare(&vote).unwrap().is_none());
        // the same client on one server for any URL but a cluster's
        assert_eq!(single.for_key("k").unwrap().url(), single.url());
        assert_eq!(single.primaries().unwrap().len(), 1);
    }

    #[test]
    fn drawn_vote_ids_differ() {
        let ids: std::collections::HashSet<String> = (0..1000).map(|_| fresh_vote_id()).collect();
        assert_eq!(ids.len(), 1000);
        assert!(ids
            .iter()
            .all(|id| id.len() == 37 && id.starts_with("auto-")));
    }
}
