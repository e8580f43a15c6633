//! `redvote bench` (being written).
use clap::Args;

/// Benchmark options.
#[derive(Args, Debug)]
pub struct BenchArgs {}

pub fn run(_g: &crate::Global, _args: &BenchArgs) -> anyhow::Result<()> {
    anyhow::bail!("bench is not written yet")
}
