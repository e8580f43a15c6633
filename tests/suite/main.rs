//! The integration tests: one test binary (one link of redis + tokio instead
//! of one per file), a module per topic, helpers shared from `support`.
//! Every test starts its own `redis-server` (see `support::server`).

mod support;

mod acl;
mod bad_input;
mod campaign;
mod check;
mod cli;
mod cluster;
mod concurrency;
mod faults;
mod fuzz;
mod limits;
mod model;
mod periods;
mod pipeline;
mod readme;
mod seed_compat;
mod sentinel;
mod serve;
mod site;
mod tls;
