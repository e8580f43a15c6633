//! What a dependent gets: the driver's dependency tree (default features)
//! stays small and holds no CLI or HTTP crate; the README front page stays
//! short and its first Rust example builds, as written, in a new project.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The workspace root (the driver's package).
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The crates `cargo tree -e normal` lists for the driver with `args`.
fn tree(args: &[&str]) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "-p", "redvote", "-e", "normal", "--prefix", "none"])
        .args(["--format", "{p}", "--offline"])
        .args(args)
        .current_dir(ROOT)
        .output()
        .expect("run cargo tree");
    assert!(out.status.success(), "cargo tree: {out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        // "name v1.2.3 (path)" or "name v1.2.3 (*)": the name and version
        .map(|l| l.split(' ').take(2).collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn the_driver_compiles_no_cli_or_http_crate_and_few_crates() {
    let crates = tree(&[]);
    for unwanted in ["axum", "clap", "tower", "utoipa", "hyper", "tracing"] {
        let found: Vec<_> = crates
            .iter()
            .filter(|c| c.split(' ').next().unwrap().starts_with(unwanted))
            .collect();
        assert!(found.is_empty(), "the driver depends on {found:?}");
    }
    assert!(
        crates.len() <= 80,
        "{} crates with default features: {crates:?}",
        crates.len()
    );
    let bare = tree(&["--no-default-features"]);
    assert!(
        !bare.iter().any(|c| c.starts_with("tokio ")),
        "tokio without the async feature"
    );
    eprintln!(
        "driver: {} crates with default features, {} without",
        crates.len(),
        bare.len()
    );
}

/// The first ```rust block (any `rust,...` fence) of `doc` and the
/// dependency lines of the last ```toml block before it.
fn first_example(doc: &str) -> (String, Vec<String>) {
    let fence = doc.find("\n```rust").expect("a rust block") + 1;
    let start = fence + doc[fence..].find('\n').unwrap() + 1;
    let end = start + doc[start..].find("\n```").unwrap() + 1;
    let toml = doc[..fence]
        .rfind("```toml\n")
        .expect("a toml block before the first rust block");
    let deps = doc[toml..fence]
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("```"))
        .filter(|l| l.contains('=') && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    (doc[start..end].to_string(), deps)
}

#[test]
fn the_readme_is_a_short_front_page() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 250, "README has {lines} lines (at most 250)");
}

/// The first Rust example of the document at `path`, built (not run: it
/// needs a server) in a new crate outside the workspace with the document's
/// dependency lines as written but for the path of the clone (the driver is
/// not on crates.io: the line must be a path dependency), offline when
/// cargo's cache holds every crate it needs.
fn example_builds_in_a_new_project(path: &str) {
    let text = std::fs::read_to_string(Path::new(ROOT).join(path)).unwrap();
    let (code, deps) = first_example(&text);
    const CLONE: &str = "\"../redvote\"";
    assert!(
        deps.iter()
            .any(|d| d.starts_with("redvote = { path = ") && d.contains(CLONE)),
        "{path}'s dependency block names no redvote by the path of a clone: {deps:?}"
    );
    let deps: Vec<String> = deps
        .iter()
        .map(|d| d.replace(CLONE, &format!("{ROOT:?}")))
        .collect();
    let name = path.replace(['/', '.'], "-");
    let dir = std::env::temp_dir().join(format!("redvote-{name}-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"doc-example\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [dependencies]\n{}\n\n[workspace]\n",
        deps.join("\n")
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.join("src/main.rs"), &code).unwrap();
    // the lock file of the checkout: the same versions, all in the cache
    std::fs::copy(Path::new(ROOT).join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let build = |offline: bool| {
        let mut cmd = Command::new(env!("CARGO"));
        cmd.args(["build", "--quiet"]);
        if offline {
            cmd.arg("--offline");
        }
        cmd.current_dir(&dir)
            // its own target dir: the test run holds the workspace's lock
            .env(
                "CARGO_TARGET_DIR",
                Path::new(ROOT).join("target/readme-example"),
            )
            .output()
            .expect("run cargo build")
    };
    // offline first; a new machine's cache may lack a crate that only a new
    // project's features need (redis' optional num-bigint was one): then
    // from the registry, as any user's first build
    let mut out = build(true);
    if !out.status.success() && String::from_utf8_lossy(&out.stderr).contains("offline") {
        out = build(false);
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{path}'s first Rust example does not build in a new project:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// README's example and the cluster chapter's (async, `#[tokio::main]`),
/// each with the dependency block above it and nothing more.
#[test]
fn the_docs_rust_examples_build_in_a_new_project_with_their_dependencies() {
    example_builds_in_a_new_project("README.md");
    example_builds_in_a_new_project("docs/cluster.md");
}
