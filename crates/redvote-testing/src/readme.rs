//! The documentation's examples as the tests run them (README.md and the
//! chapters of docs/): a section's text, the
//! commands of its `sh` blocks, the Rust examples kept as files, and the
//! deployment's hosts swapped for the test's own servers.

use std::process::{Command, Output};

/// The workspace's root directory (the driver's package).
pub const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// README.md as built into the test binary.
pub const README: &str = include_str!("../../../README.md");

/// The documentation as built into the test binary: the front page and
/// every chapter of docs/, by path from the workspace root.
pub const DOCS: &[(&str, &str)] = &[
    ("README.md", README),
    (
        "docs/back-office.md",
        include_str!("../../../docs/back-office.md"),
    ),
    (
        "docs/benchmark.md",
        include_str!("../../../docs/benchmark.md"),
    ),
    (
        "docs/campaigns.md",
        include_str!("../../../docs/campaigns.md"),
    ),
    (
        "docs/checking.md",
        include_str!("../../../docs/checking.md"),
    ),
    ("docs/cli.md", include_str!("../../../docs/cli.md")),
    ("docs/cluster.md", include_str!("../../../docs/cluster.md")),
    (
        "docs/connecting.md",
        include_str!("../../../docs/connecting.md"),
    ),
    (
        "docs/contributing.md",
        include_str!("../../../docs/contributing.md"),
    ),
    ("docs/errors.md", include_str!("../../../docs/errors.md")),
    ("docs/export.md", include_str!("../../../docs/export.md")),
    ("docs/layout.md", include_str!("../../../docs/layout.md")),
    (
        "docs/hot-campaigns.md",
        include_str!("../../../docs/hot-campaigns.md"),
    ),
    (
        "docs/manifest.md",
        include_str!("../../../docs/manifest.md"),
    ),
    (
        "docs/rate-limits.md",
        include_str!("../../../docs/rate-limits.md"),
    ),
    (
        "docs/redis-cli.md",
        include_str!("../../../docs/redis-cli.md"),
    ),
    ("docs/node.md", include_str!("../../../docs/node.md")),
    ("docs/python.md", include_str!("../../../docs/python.md")),
    ("docs/rust.md", include_str!("../../../docs/rust.md")),
    ("docs/servers.md", include_str!("../../../docs/servers.md")),
    ("docs/service.md", include_str!("../../../docs/service.md")),
    ("docs/site.md", include_str!("../../../docs/site.md")),
    (
        "docs/statistics.md",
        include_str!("../../../docs/statistics.md"),
    ),
    ("docs/teams.md", include_str!("../../../docs/teams.md")),
    (
        "docs/versions.md",
        include_str!("../../../docs/versions.md"),
    ),
];

/// The text of the document at `path` (`"docs/cli.md"`, `"README.md"`).
pub fn doc(path: &str) -> &'static str {
    DOCS.iter()
        .find(|(p, _)| *p == path)
        .unwrap_or_else(|| panic!("no document {path} (redvote_testing::readme::DOCS)"))
        .1
}

/// The section under the heading `heading` (e.g. `"### TLS"`), up to the
/// next heading of the same or a higher level, in whichever document holds
/// it: each heading a test reads is in exactly one (each fact once).
pub fn section(heading: &str) -> &'static str {
    let found: Vec<_> = DOCS
        .iter()
        .filter(|(_, text)| text.contains(&format!("\n{heading}\n")))
        .collect();
    match found.as_slice() {
        [(_, text)] => section_of(text, heading),
        [] => panic!("no document has a section {heading:?}"),
        many => panic!(
            "{heading:?} is a heading of several documents: {:?}",
            many.iter().map(|(p, _)| p).collect::<Vec<_>>()
        ),
    }
}

/// The section under `heading` of `text`.
fn section_of(text: &'static str, heading: &str) -> &'static str {
    let level = heading.split(' ').next().unwrap();
    let start = text.find(&format!("\n{heading}\n")).unwrap() + 1;
    let body = &text[start + heading.len()..];
    // the first heading line outside a code block, of this level or higher
    let mut in_code = false;
    let mut end = body.len();
    let mut offset = 0;
    for line in body.split_inclusive('\n') {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if !in_code
            && line.starts_with('#')
            && line.split(' ').next().unwrap().len() <= level.len()
        {
            end = offset;
            break;
        }
        offset += line.len();
    }
    &text[start..start + heading.len() + end]
}

/// The lines of `text`'s ```` ```sh ```` blocks that start with one of
/// `starts`, each with its `\` continuation lines joined to it.
pub fn sh_commands(text: &str, starts: &[&str]) -> Vec<String> {
    let mut commands = Vec::new();
    let mut in_sh = false;
    let mut current: Option<String> = None;
    for line in text.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let piece = line.trim();
        match current.as_mut() {
            Some(command) => command.push_str(piece.trim_end_matches('\\')),
            None if starts.iter().any(|s| line.starts_with(s)) => {
                current = Some(piece.trim_end_matches('\\').to_string())
            }
            None => continue,
        }
        if !piece.ends_with('\\') {
            commands.extend(current.take());
        }
    }
    commands
}

/// Assert that a document shows `tests/readme_examples/FILE` as a
/// ```` ```rust,no_run ```` block, as the file is (the tests run the file).
pub fn assert_shows_example(file: &str) {
    let path = format!("{WORKSPACE}/tests/readme_examples/{file}");
    let code = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let block = format!("```rust,no_run\n{code}```\n");
    assert!(
        DOCS.iter().any(|(_, text)| text.contains(&block)),
        "no document shows {path} as it is: copy the file into its block"
    );
}

/// The first `"..."` literal of `code` that holds a URL (`://`).
pub fn quoted_url(code: &str) -> &str {
    code.split('"')
        .skip(1)
        .step_by(2)
        .find(|s| s.contains("://"))
        .expect("a quoted URL")
}

/// README's placeholder hosts and the test servers that stand for them.
pub struct Hosts(pub Vec<(String, String)>);

impl Hosts {
    /// `text` with every placeholder host replaced (longest first, so that
    /// `n1:7000,n2:7001` goes before `n2:7001`); fails when a README host
    /// (`redis.internal`, `10.0.0.x`, `nN:`) is left over.
    pub fn apply(&self, text: &str) -> String {
        let mut pairs: Vec<_> = self.0.iter().collect();
        pairs.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
        let mut out = text.to_string();
        for (from, to) in pairs {
            out = out.replace(from.as_str(), to);
        }
        for placeholder in ["redis.internal", "10.0.0.", "//n1:", "//n2:", ",n2:"] {
            assert!(
                !out.contains(placeholder),
                "{out}: no test server stands for {placeholder}"
            );
        }
        out
    }
}

/// One README command line (its hosts already replaced) for `sh`, run in
/// `dir`, the test build's binaries (`target/<profile>`, where cargo puts
/// `redvote`) first on PATH and no `REDVOTE_URL` inherited from the caller.
pub fn sh(command: &str, dir: &std::path::Path) -> Command {
    let exe = std::env::current_exe().expect("the test binary's path");
    // target/<profile>/deps/<test> -> target/<profile>
    let bin_dir = exe.parent().and_then(|d| d.parent()).expect("target dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(command)
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("REDVOTE_URL");
    cmd
}

/// Run [`sh`] and assert that it succeeded; its stdout.
pub fn run_ok(command: &str, dir: &std::path::Path) -> String {
    let out: Output = sh(command, dir).output().expect("run sh");
    assert!(out.status.success(), "{command}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The campaign README's connection examples vote in: board `stars` (a
/// total board) with the option `wjk`.
pub fn spring_settings() -> redvote::CampaignSettings {
    crate::boards([(
        "stars",
        crate::board(&[redvote::Period::Total], crate::options([("wjk", 1)])),
    )])
}

/// The call that reads board `stars` of `c` (real totals).
pub fn stars_top(c: &redvote::Campaign) -> redvote::Call<Vec<redvote::BoardPage>> {
    c.top(
        &["stars"],
        &redvote::campaign::View::real("total"),
        redvote::campaign::Paging {
            page: 1,
            per_page: 10,
        },
    )
}

/// The real total of `wjk` in a reply of [`stars_top`].
pub fn wjk(top: &[redvote::BoardPage]) -> String {
    top[0]
        .entries
        .iter()
        .find(|e| e.member == "wjk")
        .map_or("0".into(), |e| e.score.clone())
}
