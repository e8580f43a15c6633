//! Test only: the language packages ship the scripts byte for byte.
//!
//! `bindings/python/src/redvote/lua/` and `bindings/node/lua/` hold copies
//! of every assembled `lua/<op>.lua` and of `lua/manifest.json`, committed
//! so that `pip install ./bindings/python` and `npm install ./bindings/node`
//! need nothing outside their folder (the way BullMQ's packages carry their
//! commands). The copies are made from the assembly and the manifest in
//! memory, as the other `lua_sources` tests make theirs, so one
//! `REDVOTE_SYNC_LUA=1 cargo test -p redvote --lib lua_sources` rewrites all
//! of them; without it a stale or extra copy fails, naming the file. Each
//! package's own tests check the copies against the manifest's SHA1s too.

/// The folders, relative to the repository root, that carry the copies.
pub(crate) const COPIES: [&str; 2] = ["bindings/python/src/redvote/lua", "bindings/node/lua"];

#[cfg(test)]
mod lua_sources_bindings {
    use super::super::assemble::{assemble, dirs, sources};
    use super::super::manifest::generate;
    use super::COPIES;
    use std::collections::BTreeMap;
    use std::path::Path;

    /// What every copy folder must hold: file name -> bytes.
    fn wanted() -> BTreeMap<String, String> {
        let (src, _) = dirs();
        let mut files = BTreeMap::new();
        for (op, rel) in sources(&src) {
            let text = assemble(&src, &rel).unwrap_or_else(|e| panic!("{e}"));
            files.insert(format!("{op}.lua"), text);
        }
        files.insert("manifest.json".into(), generate());
        files
    }

    #[test]
    fn binding_copies_are_current() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let sync = std::env::var_os("REDVOTE_SYNC_LUA").is_some();
        let want = wanted();
        let mut stale = Vec::new();
        for dir in COPIES {
            let dir = root.join(dir);
            if sync {
                std::fs::create_dir_all(&dir).unwrap();
            }
            for (name, text) in &want {
                let path = dir.join(name);
                if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                    if sync {
                        std::fs::write(&path, text).unwrap();
                    } else {
                        stale.push(path.strip_prefix(root).unwrap().display().to_string());
                    }
                }
            }
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries {
                let name = entry.unwrap().file_name().into_string().unwrap();
                if !want.contains_key(&name) {
                    if sync {
                        std::fs::remove_file(dir.join(&name)).unwrap();
                    } else {
                        stale.push(format!("{} (no such script)", dir.join(&name).display()));
                    }
                }
            }
        }
        assert!(
            stale.is_empty(),
            "stale script copies in the language packages {stale:?}: run \
             REDVOTE_SYNC_LUA=1 cargo test -p redvote --lib lua_sources"
        );
    }
}
