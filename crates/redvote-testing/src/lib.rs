//! redvote's test harness: throwaway `redis-server` processes on free
//! loopback ports (persistence off, `DEBUG` on, killed on drop), and the
//! seeds' own client-side flow. Used by the tests of every crate of the
//! workspace, by `redvote demo` and by the benchmark, as redis-rs's
//! `redis-test` is by redis-rs. NOT a stable API, and nothing here is for
//! production: [`seed`] is the seeds' flow, several round trips per
//! operation, kept as the benchmark's baseline and for the compatibility
//! tests.
//!
//! # Layout
//! - [`TempServer`] (`server.rs`): one throwaway server; [`INSTALL_HINT`]
//!   says how to install `redis-server` when it is missing.
//! - [`seed`]: the seeds' article flow, command for command.
#![warn(missing_docs)]

pub mod seed;
mod server;

pub use server::{TempServer, INSTALL_HINT};
