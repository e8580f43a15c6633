//! redvote on a real Redis Cluster started by the tests: 3 masters and 3
//! replicas on free loopback ports (persistence off, each in its own temp
//! dir, `--cluster-node-timeout 1000`), the slots split evenly.
//!
//! - `bodies`: the same test bodies (site and campaign) against one server
//!   and against the cluster, sync and async, many hash-tagged names spread
//!   over every master; the untagged-prefix refusal;
//! - `reshard`: a campaign's slot migrated key by key (the way
//!   `redis-cli --cluster reshard` does it) while 20 tasks vote: every
//!   acknowledged vote counts exactly once, TRYAGAIN was really answered;
//! - `failover`: the master of a campaign's slot killed while tasks vote
//!   (its own cluster: the dead master is never reused).
//!
//! The cluster is the harness's (`redvote_testing::cluster`); the tests
//! that can share one get it from `shared`: started on first use, killed
//! when the last test holding it drops it.

mod bodies;
mod failover;
mod reshard;

pub use redvote_testing::cluster::*;
