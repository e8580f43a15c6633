//! What every test module shares: the harness crate (`redvote-testing`:
//! throwaway servers, reads, refusal and digest-unchanged assertions,
//! campaign builders, voters, TLS certificates, the docs' examples).
//! Test modules `use crate::support::...` what they need.

pub use redvote_testing::*;
