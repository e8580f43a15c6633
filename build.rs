//! Tells cargo to rebuild the driver when a file of `lua/` is added,
//! removed or changed: `include_dir!` (src/scripts/mod.rs) embeds the
//! folder but cannot make cargo watch it on stable Rust.

fn main() {
    println!("cargo:rerun-if-changed=lua");
}
