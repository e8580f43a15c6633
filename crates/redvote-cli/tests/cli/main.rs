//! The `redvote` binary's tests: the command line against real
//! `redis-server` processes the tests start (see `redvote_testing`), one
//! test binary with a module per topic. The process-level tests of `redvote
//! serve` are the `serve` test binary beside this one.

mod support;

mod acl;
mod bad_input;
mod buffered;
mod check;
mod cli;
mod cluster_check;
mod cluster_readme;
mod deadlines;
mod export;
mod faults;
mod help;
mod import_input;
mod json_shapes;
mod messages;
mod rankings;
mod readme;
mod registry;
mod retention;
mod seed_compat;
mod sentinel_readme;
mod teams;
mod tls;
mod vote_ids;
