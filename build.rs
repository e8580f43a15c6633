// include_dir! embeds lua/ at compile time but does not tell cargo to rebuild
// when a script is added or edited; this does.
fn main() {
    println!("cargo:rerun-if-changed=lua");
}
