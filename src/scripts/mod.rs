//! The Lua scripts, embedded from `lua/<name>.lua` at compile time with
//! `include_dir!` (only the top-level, assembled scripts are used; in a
//! checkout the editable sources of `lua/src/` are embedded too, 300 KB
//! the binary carries unused, while the published crate ships no
//! `lua/src/`). `build.rs` only tells cargo to rebuild when a file of
//! `lua/` is added, removed or changed.
//!
//! Every operation is one file `lua/<name>.lua` taking exactly one key: the
//! site root `<prefix>article:` for the article site's scripts, the campaign
//! root `<ns>campaign` for the `campaign_*` ones. Those files are assembled
//! from the editable sources in `lua/src/` (see `assemble.rs`, a test-only
//! module) and committed, so `redis-cli --eval lua/<name>.lua` runs them as
//! they are. Each becomes a [`redis::Script`](https://docs.rs/redis/1.8/redis/struct.Script.html), whose
//! `invoke` sends `EVALSHA` and, on `NOSCRIPT`, loads the source and retries,
//! so a server restart or a `SCRIPT FLUSH` is invisible to callers. The
//! SHA1s listed here are the ones `redis-cli EVALSHA` takes.

use std::sync::LazyLock;

#[cfg(test)]
mod assemble;
#[cfg(test)]
pub(crate) mod manifest;

/// `lua/manifest.json`: every script's name, file, SHA1, flags, key, ARGV
/// (types, bounds, defaults), reply shape, error codes and idempotency, and
/// the redvote version, generated from the script headers (see
/// `docs/manifest.md`; its JSON Schema is `lua/manifest.schema.json`).
pub const MANIFEST: &str = include_str!("../../lua/manifest.json");

/// `lua/`, as it was when the crate was compiled.
static LUA: include_dir::Dir<'static> = include_dir::include_dir!("$CARGO_MANIFEST_DIR/lua");

/// One embedded script: its operation name, its source and its SHA1.
#[derive(Debug)]
pub struct EmbeddedScript {
    name: &'static str,
    source: &'static str,
    script: redis::Script,
}

impl EmbeddedScript {
    /// Operation name: the file name without `.lua` (`vote`, `page`, ...).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The Lua source, as embedded.
    pub fn source(&self) -> &'static str {
        self.source
    }

    /// The SHA1 that `EVALSHA` and `SCRIPT LOAD` use for this script.
    pub fn sha1(&self) -> &str {
        self.script.get_hash()
    }

    /// Whether the script may write: its shebang line lacks
    /// `flags=no-writes` (Redis runs a no-writes script on a replica too).
    pub fn writes(&self) -> bool {
        let shebang = self.source.lines().next().unwrap_or_default();
        !shebang.split_whitespace().any(|w| {
            w.strip_prefix("flags=")
                .is_some_and(|flags| flags.split(',').any(|f| f == "no-writes"))
        })
    }

    /// The redis-rs script object (EVALSHA with NOSCRIPT recovery).
    pub fn script(&self) -> &redis::Script {
        &self.script
    }
}

static SCRIPTS: LazyLock<Vec<EmbeddedScript>> = LazyLock::new(|| {
    let mut scripts: Vec<EmbeddedScript> = LUA
        .files()
        .filter_map(|file| {
            let name = file.path().to_str()?.strip_suffix(".lua")?;
            let source = file.contents_utf8()?;
            Some(EmbeddedScript {
                name,
                source,
                script: redis::Script::new(source),
            })
        })
        .collect();
    scripts.sort_by_key(|s| s.name);
    scripts
});

/// What is embedded is exactly `lua/*.lua`: every assembled script, and
/// nothing of the editable sources under `lua/src/`.
#[test]
fn exactly_the_assembled_scripts_are_embedded() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/lua");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            Some(name.strip_suffix(".lua")?.to_string())
        })
        .collect();
    files.sort();
    let embedded: Vec<&str> = all().iter().map(|s| s.name()).collect();
    assert_eq!(embedded, files);
    assert!(all().iter().all(|s| !s.source().contains("--- @include")));
}

#[test]
fn reads_are_flagged_no_writes() {
    let writes = |name: &str| get(name).unwrap().writes();
    assert!(writes("vote") && writes("campaign_vote") && writes("post"));
    assert!(!writes("page") && !writes("campaign_top") && !writes("article"));
    // the reads of settings and limits are read-only scripts, their
    // writers apart
    assert!(!writes("config") && !writes("campaign_limits") && !writes("campaign_settings"));
    assert!(writes("configure") && writes("campaign_limits_reset") && writes("campaign_configure"));
    // the campaign registry's page is a read, its register a writer
    assert!(!writes("campaign_registry") && writes("campaign_register"));
    // the statistics are a read, the voids writers
    assert!(!writes("campaign_stats") && writes("campaign_void") && writes("campaign_void_range"));
}

/// Every embedded script, sorted by name.
pub fn all() -> &'static [EmbeddedScript] {
    &SCRIPTS
}

/// The script of one operation, if there is one by that name.
pub fn get(name: &str) -> Option<&'static EmbeddedScript> {
    all().iter().find(|s| s.name == name)
}

/// The script of an operation the crate itself calls; its presence is
/// checked by this module's tests, so a missing one is a build defect.
pub(crate) fn builtin(name: &str) -> &'static EmbeddedScript {
    get(name).unwrap_or_else(|| panic!("lua/{name}.lua is not embedded"))
}

/// `SCRIPT LOAD` every script on this connection; returns `(name, sha1)`.
///
/// Not needed for correctness (calls recover from NOSCRIPT by themselves):
/// useful before `redis-cli EVALSHA` debugging or to warm a new server.
pub fn load_all(con: &mut dyn redis::ConnectionLike) -> redis::RedisResult<Vec<(String, String)>> {
    all()
        .iter()
        .map(|s| Ok((s.name.to_string(), s.script.load(con)?)))
        .collect()
}

/// Async twin of [`load_all`].
#[cfg(feature = "async")]
pub async fn load_all_async<C: redis::aio::ConnectionLike>(
    con: &mut C,
) -> redis::RedisResult<Vec<(String, String)>> {
    let mut loaded = Vec::new();
    for s in all() {
        loaded.push((s.name.to_string(), s.script.load_async(con).await?));
    }
    Ok(loaded)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The operations [`crate::Site`] and [`crate::Campaign`] call.
    const OPERATIONS: [&str; 29] = [
        "article",
        "campaign_around",
        "campaign_configure",
        "campaign_fold",
        "campaign_import",
        "campaign_limits",
        "campaign_limits_reset",
        "campaign_participants",
        "campaign_register",
        "campaign_registry",
        "campaign_reindex",
        "campaign_remove",
        "campaign_settings",
        "campaign_standing",
        "campaign_stats",
        "campaign_top",
        "campaign_upgrade",
        "campaign_void",
        "campaign_void_range",
        "campaign_vote",
        "config",
        "configure",
        "group_page",
        "groups",
        "page",
        "post",
        "rerank",
        "upgrade",
        "vote",
    ];

    #[test]
    fn every_operation_is_embedded_and_nothing_else() {
        let names: Vec<&str> = all().iter().map(|s| s.name()).collect();
        assert_eq!(names, OPERATIONS.to_vec());
    }

    #[test]
    fn sha1_matches_redis_script_hash_of_the_source() {
        for s in all() {
            assert_eq!(s.sha1(), redis::Script::new(s.source()).get_hash());
            assert_eq!(s.sha1().len(), 40);
        }
    }
}
