//! The integration tests: one test binary (one link of redis + tokio instead
//! of one per file), a module per topic, helpers shared from `support`.
//! Every test starts its own `redis-server` (see `support::server`). The
//! `tls` module needs the driver's `tls` feature: the test command passes
//! `--all-features` (README). The CLI's tests are crates/redvote-cli's,
//! the service's crates/redvote-serve's.

mod support;

mod acl;
mod bad_input;
mod buffered_faults;
mod campaign;
mod cluster;
mod concurrency;
mod deadlines;
mod faults;
mod fuzz;
mod golden;
mod limits;
mod manifest;
mod model;
mod package;
mod periods;
mod pipeline;
mod seed_compat;
mod sentinel;
mod site;
mod storm;
#[cfg(feature = "tls")]
mod tls;
#[cfg(feature = "tls")]
mod tls_self_signed;
