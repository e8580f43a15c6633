//! Helpers for tests, demos and benchmarks: NOT part of the stable API.
//!
//! Compiled only with the `testing` feature (the `cli` feature turns it on:
//! `redvote demo` starts a [`TempServer`]). The test suite and the benchmark
//! use it too. Nothing here is for production: [`seed`] is the seeds'
//! client-side flow, several round trips per operation, kept as the
//! benchmark's baseline and for the compatibility tests.

pub mod seed;
mod server;

pub use server::{TempServer, INSTALL_HINT};
