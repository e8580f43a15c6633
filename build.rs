//! Embeds the assembled scripts, `lua/<name>.lua`, and nothing else of
//! `lua/` (not the editable sources of `lua/src/`): writes
//! `$OUT_DIR/scripts.rs`, a sorted table of `(name, include_str!(path))`
//! that `src/scripts/mod.rs` includes (BullMQ's Rust port does the same
//! with a hand-written table). `include_str!` makes cargo rebuild the crate
//! when a script changes; `rerun-if-changed=lua` reruns this when one is
//! added or removed.

use std::fmt::Write;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=lua");
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("lua");
    let mut scripts: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .expect("lua/ beside Cargo.toml")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let name = path
                .file_name()?
                .to_str()?
                .strip_suffix(".lua")?
                .to_string();
            path.is_file().then_some((name, path))
        })
        .collect();
    scripts.sort();
    let mut table = String::from(
        "/// Every assembled script, `(name, source)`, sorted by name (build.rs).\n\
         static SOURCES: &[(&str, &str)] = &[\n",
    );
    for (name, path) in &scripts {
        writeln!(
            table,
            "    ({name:?}, include_str!({:?})),",
            path.display().to_string()
        )
        .unwrap();
    }
    table.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("scripts.rs");
    std::fs::write(out, table).expect("write $OUT_DIR/scripts.rs");
}
