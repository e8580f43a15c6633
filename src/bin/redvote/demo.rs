//! `redvote demo` (being written).
pub fn run(_g: &crate::Global) -> anyhow::Result<()> {
    anyhow::bail!("demo is not written yet")
}
