//! The Lua assembler: `lua/src/**.lua` (what contributors edit) into the
//! self-contained `lua/<op>.lua` (what Redis runs and the crate embeds).
//!
//! A source pulls shared code with a line `--- @include "lib/name"` (a path
//! under `lua/src/`, without `.lua`), in the manner of BullMQ's loader. The
//! line is replaced by the included file, itself assembled first; a file is
//! emitted at most once per script (later includes of it vanish, so a lib
//! may include what it needs without duplicating it), a cycle or a missing
//! file is an error naming the files. Operation names come from the path:
//! `site/vote.lua` is `vote`, `campaign/vote.lua` is `campaign_vote`.
//!
//! The assembled file keeps the source's first line (`#!lua ...` must stay
//! first), says on its second which source to edit and on its third the
//! redvote version (`-- redvote 0.6.0`: the bytes, so the SHA1, change with
//! the version; `lua/manifest.json` names it too). It is committed; the
//! test `lua_sources::assembled_scripts_are_current` fails when it is stale,
//! and `REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources` rewrites it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The directive that includes a file, followed by `"path"`.
const INCLUDE: &str = "--- @include ";

/// The folders of operation sources under `lua/src/`, and the prefix each
/// puts before an operation's file name.
pub(crate) const HALVES: [(&str, &str); 2] = [("site", ""), ("campaign", "campaign_")];

/// `lua/src` and `lua` in this checkout.
pub(crate) fn dirs() -> (PathBuf, PathBuf) {
    let lua = Path::new(env!("CARGO_MANIFEST_DIR")).join("lua");
    (lua.join("src"), lua)
}

/// Every operation source: `(operation name, path under lua/src/)`, sorted.
pub(crate) fn sources(src: &Path) -> Vec<(String, String)> {
    let mut all = Vec::new();
    for (half, prefix) in HALVES {
        let Ok(entries) = std::fs::read_dir(src.join(half)) else {
            continue;
        };
        for entry in entries {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if let Some(op) = name.strip_suffix(".lua") {
                all.push((format!("{prefix}{op}"), format!("{half}/{name}")));
            }
        }
    }
    all.sort();
    all
}

/// The assembled script of the source `rel` (a path under `src`).
pub(crate) fn assemble(src: &Path, rel: &str) -> Result<String, String> {
    let text = read(src, rel, None)?;
    let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
    if !first.starts_with("#!lua") {
        return Err(format!("lua/src/{rel}: the first line must be #!lua"));
    }
    let mut out = format!(
        "{first}\n-- GENERATED from lua/src/{rel}: edit that file, then run \
         REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources\n-- redvote {}\n",
        env!("CARGO_PKG_VERSION")
    );
    let mut emitted = BTreeSet::new();
    let mut stack = vec![rel.to_string()];
    expand(src, rest, &mut emitted, &mut stack, &mut out)?;
    Ok(out)
}

fn read(src: &Path, rel: &str, from: Option<&str>) -> Result<String, String> {
    std::fs::read_to_string(src.join(rel)).map_err(|e| match from {
        Some(from) => format!("lua/src/{from} includes lua/src/{rel}: {e}"),
        None => format!("lua/src/{rel}: {e}"),
    })
}

fn expand(
    src: &Path,
    text: &str,
    emitted: &mut BTreeSet<String>,
    stack: &mut Vec<String>,
    out: &mut String,
) -> Result<(), String> {
    for line in text.split_inclusive('\n') {
        let Some(arg) = line.trim_end().strip_prefix(INCLUDE) else {
            out.push_str(line);
            continue;
        };
        let from = stack.last().cloned().unwrap_or_default();
        let name = arg
            .strip_prefix('"')
            .and_then(|a| a.strip_suffix('"'))
            .ok_or_else(|| format!("lua/src/{from}: malformed {line:?}"))?;
        let rel = format!("{name}.lua");
        if stack.contains(&rel) {
            return Err(format!("include cycle: {} -> {rel}", stack.join(" -> ")));
        }
        if !emitted.insert(rel.clone()) {
            continue;
        }
        let body = read(src, &rel, Some(&from))?;
        stack.push(rel);
        expand(src, &body, emitted, stack, out)?;
        stack.pop();
    }
    Ok(())
}

#[cfg(test)]
mod lua_sources {
    use super::*;

    /// Every `lua/<op>.lua` is the assembly of its source, and every
    /// source has its assembled file (REDVOTE_SYNC_LUA=1 writes them).
    #[test]
    fn assembled_scripts_are_current() {
        let (src, lua) = dirs();
        let sync = std::env::var_os("REDVOTE_SYNC_LUA").is_some();
        let sources = sources(&src);
        let mut stale = Vec::new();
        for (op, rel) in &sources {
            let want = assemble(&src, rel).unwrap_or_else(|e| panic!("{e}"));
            let path = lua.join(format!("{op}.lua"));
            if std::fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
                if sync {
                    std::fs::write(&path, want).unwrap();
                } else {
                    stale.push(format!("lua/{op}.lua"));
                }
            }
        }
        assert!(
            stale.is_empty(),
            "stale assembled scripts {stale:?}: edit lua/src/, then run \
             REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources"
        );
        let ops: BTreeSet<String> = sources.into_iter().map(|(op, _)| op).collect();
        for entry in std::fs::read_dir(&lua).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if let Some(op) = name.strip_suffix(".lua") {
                assert!(ops.contains(op), "lua/{name} has no source in lua/src/");
            }
        }
    }

    /// No function is defined in two editable files: shared code lives
    /// once, in `lua/src/lib/`.
    #[test]
    fn every_function_is_defined_once() {
        let (src, _) = dirs();
        let mut seen = std::collections::BTreeMap::new();
        let mut files = vec![];
        for dir in ["lib", "site", "campaign"] {
            for entry in std::fs::read_dir(src.join(dir)).unwrap() {
                files.push(format!(
                    "{dir}/{}",
                    entry.unwrap().file_name().into_string().unwrap()
                ));
            }
        }
        for rel in files {
            let text = std::fs::read_to_string(src.join(&rel)).unwrap();
            for line in text.lines() {
                let Some(rest) = line.trim_start().strip_prefix("local function ") else {
                    continue;
                };
                let name: String = rest.chars().take_while(|c| *c != '(').collect();
                if name == "main" {
                    continue;
                }
                if let Some(other) = seen.insert(name.clone(), rel.clone()) {
                    assert_eq!(
                        other, rel,
                        "function {name} is defined in {other} and {rel}"
                    );
                }
            }
        }
    }

    fn scratch(files: &[(&str, &str)]) -> PathBuf {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "redvote-lua-{}-{}",
            std::process::id(),
            N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        for (rel, text) in files {
            let path = dir.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    #[test]
    fn includes_resolve_transitively_and_emit_each_file_once() {
        let dir = scratch(&[
            (
                "site/op.lua",
                "#!lua\n--- @include \"lib/b\"\n--- @include \"lib/a\"\nmain\n",
            ),
            ("lib/a.lua", "a\n"),
            ("lib/b.lua", "--- @include \"lib/a\"\nb\n"),
        ]);
        let out = assemble(&dir, "site/op.lua").unwrap();
        assert_eq!(
            out,
            format!(
                "#!lua\n-- GENERATED from lua/src/site/op.lua: edit that file, then run \
             REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources\n-- redvote {}\na\nb\nmain\n",
                env!("CARGO_PKG_VERSION")
            )
        );
        assert_eq!(sources(&dir), vec![("op".into(), "site/op.lua".into())]);
    }

    #[test]
    fn cycles_and_missing_includes_are_errors_naming_the_files() {
        let dir = scratch(&[
            ("site/op.lua", "#!lua\n--- @include \"lib/a\"\n"),
            ("lib/a.lua", "--- @include \"lib/b\"\n"),
            ("lib/b.lua", "--- @include \"lib/a\"\n"),
            ("site/gap.lua", "#!lua\n--- @include \"lib/nope\"\n"),
            ("site/bare.lua", "local x\n"),
        ]);
        assert_eq!(
            assemble(&dir, "site/op.lua").unwrap_err(),
            "include cycle: site/op.lua -> lib/a.lua -> lib/b.lua -> lib/a.lua"
        );
        let missing = assemble(&dir, "site/gap.lua").unwrap_err();
        assert!(
            missing.starts_with("lua/src/site/gap.lua includes lua/src/lib/nope.lua"),
            "{missing}"
        );
        let bare = assemble(&dir, "site/bare.lua").unwrap_err();
        assert!(bare.contains("#!lua"), "{bare}");
    }
}
