//! Invariant scanner: [`check_site`] and [`check_campaign`] read a site's or
//! a campaign's keys and report every place where the data disagrees with
//! what the scripts write (a count off by one, a score that does not follow
//! from the counts, a key without the expiry it was promised, a corrupt
//! stored setting...).
//!
//! Both are **read-only** and cheap for the server: keys are found with
//! `SCAN MATCH <prefix>*` (the prefix glob-escaped) in batches of
//! [`SCAN_COUNT`], sorted sets, sets and hashes are read with `ZSCAN` /
//! `SSCAN` / `HSCAN` pages and `ZMSCORE` / `SMISMEMBER` / `HMGET` of at most
//! [`PAGE`] members, and the reads that must agree with each other go
//! together in one `MULTI`/`EXEC` of bounded size. No script runs and no
//! command is O(N) in the data set, so a check is safe on a live server of
//! any size; it takes time proportional to the keys under the prefix.
//!
//! Relations that depend on settings an operator may change (a weight, a
//! board's carry, a rate limit) are checked exactly only for data written
//! after the last change; see [`check_campaign`] for which ones and why.

mod buffer;
pub mod calendar;
mod campaign;
mod site;
mod stats;

use std::collections::BTreeMap;

use redis::{ConnectionLike, ErrorKind, RedisError, RedisResult, Value};
use serde::Serialize;

pub use buffer::Buffer;
pub use campaign::{check_campaign, limit_bucket};
pub use site::check_site;

/// Keys a `SCAN` call asks for (its `COUNT`).
pub const SCAN_COUNT: usize = 1000;
/// Members a `ZSCAN`/`SSCAN`/`HSCAN` page asks for, and the most members one
/// `ZMSCORE`/`SMISMEMBER`/`HMGET` names; also the articles or counters read
/// in one `MULTI`/`EXEC`.
pub const PAGE: usize = 200;

/// One broken invariant: the key where it shows and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Violation {
    /// The full key name (with the site's prefix or the campaign's
    /// namespace) whose content is wrong.
    pub key: String,
    /// What is wrong, naming the member or field and the values compared.
    pub what: String,
}

/// The result of a check: every violation found (sorted by key, each
/// once), and how much was looked at.
///
/// A violation seen on reads that were not all in one `MULTI`/`EXEC` (a
/// `ZSCAN` page, then a lookup in another key; a key found by `SCAN`, then
/// read) may be the trace of a script call that ran in between: such a
/// violation is a *suspect* until the end of the check, when the few keys it
/// names are read again in one `MULTI`/`EXEC` and it is reported only if it
/// still holds (see [`Recheck`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// What was checked: `site <prefix>` (`site` without a prefix) or
    /// `campaign <namespace>`.
    pub target: String,
    /// Keys `SCAN` returned under the prefix or namespace (a key `SCAN`
    /// returns twice counts twice).
    pub keys_scanned: u64,
    /// How many of each kind of item were checked (`articles`,
    /// `voter_sets`, `zset_members`, `board_entries`, `exact_entries`,
    /// `counters`, ...). `exact_entries` counts the board entries whose
    /// shown score was compared exactly; the others had the weaker check.
    pub checked: BTreeMap<String, u64>,
    /// Every violation, sorted by key.
    pub violations: Vec<Violation>,
    /// What is not a broken invariant but puts the guarantees at risk: a
    /// `maxmemory-policy` other than `noeviction` (see [`eviction_warning`]).
    /// Not counted by [`Report::is_clean`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// A buffered campaign's buffers: the pairs not yet on the boards, their
    /// options and the fold lag (information; `None` for a site or an immediate
    /// campaign with nothing buffered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Buffer>,
    /// Suspects to read again before the report is final (always empty in a
    /// report a check returns).
    #[serde(skip)]
    suspects: Suspects,
}

/// How a suspect violation is confirmed: `reads`, sent again as one
/// `MULTI`/`EXEC` (a consistent snapshot of the keys the violation names),
/// and `still`, which answers the violation's text from those replies if it
/// still holds (`None`: the first reads saw data in motion, nothing is
/// reported).
pub(crate) struct Recheck {
    reads: redis::Pipeline,
    still: Still,
}

/// A recheck's test: the violation's text from the replies, if it holds.
type Still = Box<dyn Fn(&[Value]) -> Option<String>>;

impl Recheck {
    /// The reads to repeat atomically, and the test of their replies.
    pub(crate) fn new(
        reads: redis::Pipeline,
        still: impl Fn(&[Value]) -> Option<String> + 'static,
    ) -> Self {
        Recheck {
            reads,
            still: Box::new(still),
        }
    }
}

/// The suspects of a report under way: (key, recheck). Not part of what a
/// report compares, clones or prints: a finished report has none.
#[derive(Default)]
struct Suspects(Vec<(String, Recheck)>);

impl std::fmt::Debug for Suspects {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} suspect(s)", self.0.len())
    }
}

impl Clone for Suspects {
    fn clone(&self) -> Self {
        Suspects::default()
    }
}

impl PartialEq for Suspects {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Suspects {}

impl Report {
    fn new(target: String) -> Self {
        Report {
            target,
            ..Default::default()
        }
    }

    /// Whether no invariant is broken.
    pub fn is_clean(&self) -> bool {
        self.violations.is_empty()
    }

    /// The violations that name `key`.
    pub fn violations_of<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a Violation> + 'a {
        self.violations.iter().filter(move |v| v.key == key)
    }

    fn violation(&mut self, key: impl Into<String>, what: impl Into<String>) {
        self.violations.push(Violation {
            key: key.into(),
            what: what.into(),
        });
    }

    /// A violation of `key` to confirm before it is reported: `recheck`
    /// reads its keys again, atomically, at the end of the check.
    pub(crate) fn suspect(&mut self, key: impl Into<String>, recheck: Recheck) {
        self.suspects.0.push((key.into(), recheck));
    }

    fn count(&mut self, what: &str, n: u64) {
        *self.checked.entry(what.to_string()).or_default() += n;
    }

    /// Confirm the suspects: each read again in one `MULTI`/`EXEC` and
    /// reported only if it still holds (counted as `rechecked`, and those
    /// that did not hold as `rechecked_away`).
    fn confirm(&mut self, con: &mut dyn ConnectionLike) -> RedisResult<()> {
        for (key, mut recheck) in std::mem::take(&mut self.suspects.0) {
            let got = exec(con, &mut recheck.reads)?;
            self.count("rechecked", 1);
            match (recheck.still)(&got) {
                Some(what) => self.violation(key, what),
                None => self.count("rechecked_away", 1),
            }
        }
        Ok(())
    }

    /// Sort the violations and drop repeats (`SCAN` may return a key twice).
    fn finish(mut self) -> Self {
        self.violations.sort();
        self.violations.dedup();
        self
    }
}

impl std::fmt::Display for Report {
    /// One line per violation (`key: what`), then a summary line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for v in &self.violations {
            writeln!(f, "{}: {}", v.key, v.what)?;
        }
        for w in &self.warnings {
            writeln!(f, "warning: {w}")?;
        }
        if let Some(b) = &self.buffer {
            let lag = b.fold_lag_ms.map_or(String::new(), |ms| {
                format!(", the oldest accepted {ms} ms ago (fold lag)")
            });
            writeln!(
                f,
                "buffer: {} pair(s) of {} option(s) not yet on the boards{lag}",
                b.pairs, b.options
            )?;
        }
        let checked: Vec<String> = self
            .checked
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        let n = self.violations.len();
        write!(
            f,
            "{n} invariant violation{} in {} ({} keys scanned; checked {})",
            if n == 1 { "" } else { "s" },
            self.target,
            self.keys_scanned,
            if checked.is_empty() {
                "nothing".to_string()
            } else {
                checked.join(", ")
            }
        )
    }
}

/// Run `check` on the node `con` reaches only if that node serves the slot
/// of `root` (the site's or the campaign's root key) whole, before and
/// after: on Redis Cluster, while the slot migrates (`MIGRATING` on the
/// source, `IMPORTING` on the target), `SCAN` on either node lists only the
/// keys it holds and reads of the others are redirected, so a check there
/// would be partial. The probe is `EXISTS <root>#slot-probe`, a key of the
/// same slot that is never written (as the scripts' own probe): a plain 0
/// where the slot is stable, `ASK` on a migrating source, `MOVED` on an
/// importing target or a node that no longer serves the slot. That, or a
/// redirection of any read in between, fails the check with
/// [`slot_moving`]'s error; a single Redis answers 0.
fn on_stable_slot(
    con: &mut dyn ConnectionLike,
    root: &str,
    check: impl FnOnce(&mut dyn ConnectionLike) -> RedisResult<Report>,
) -> RedisResult<Report> {
    let probe = |con: &mut dyn ConnectionLike| {
        redis::cmd("EXISTS")
            .arg(format!("{root}#slot-probe"))
            .query::<i64>(con)
            .map(drop)
            .map_err(|e| slot_moving(root, e))
    };
    probe(con)?;
    let mut report = check(con).map_err(|e| slot_moving(root, e))?;
    probe(con)?;
    report.warnings.extend(eviction_warning(con));
    Ok(report)
}

/// The server's `maxmemory-policy` (`CONFIG GET`, else `INFO memory`, for
/// a user not granted `CONFIG`), every value seen (a cluster connection
/// may answer for several nodes); `None` when neither may be read.
fn maxmemory_policies(con: &mut dyn ConnectionLike) -> Option<Vec<String>> {
    let config = redis::cmd("CONFIG")
        .arg("GET")
        .arg("maxmemory-policy")
        .query::<Value>(con)
        .ok();
    let policies = maxmemory_policies_in(config.as_ref(), None);
    if policies.is_some() {
        return policies;
    }
    let info = redis::cmd("INFO").arg("memory").query::<Value>(con).ok();
    maxmemory_policies_in(None, info.as_ref())
}

/// The `maxmemory-policy` values in a reply of `CONFIG GET
/// maxmemory-policy` (`config`) or, when it names none, of `INFO memory`
/// (`info`): every value seen, as a cluster connection may answer for
/// several nodes; `None` when neither names one. The parsing half of
/// [`eviction_warning`], for a caller that sends the commands itself (the
/// service's `/readyz`, on an async connection).
pub fn maxmemory_policies_in(config: Option<&Value>, info: Option<&Value>) -> Option<Vec<String>> {
    fn strings(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::BulkString(b) => out.push(String::from_utf8_lossy(b).into_owned()),
            Value::SimpleString(s) | Value::VerbatimString { text: s, .. } => out.push(s.clone()),
            Value::Array(items) | Value::Set(items) => items.iter().for_each(|i| strings(i, out)),
            Value::Map(pairs) => pairs.iter().for_each(|(k, v)| {
                strings(k, out);
                strings(v, out)
            }),
            _ => {}
        }
    }
    let mut seen = Vec::new();
    if let Some(v) = config {
        let mut words = Vec::new();
        strings(v, &mut words);
        for pair in words.windows(2) {
            if pair[0].eq_ignore_ascii_case("maxmemory-policy") {
                seen.push(pair[1].clone());
            }
        }
    }
    if seen.is_empty() {
        if let Some(v) = info {
            let mut texts = Vec::new();
            strings(v, &mut texts);
            for line in texts.iter().flat_map(|t| t.lines()) {
                if let Some(p) = line.trim().strip_prefix("maxmemory_policy:") {
                    seen.push(p.to_string());
                }
            }
        }
    }
    (!seen.is_empty()).then_some(seen)
}

/// A warning unless the server's `maxmemory-policy` is `noeviction`, the
/// only one under which the counts hold: `allkeys-*` may evict any key (a
/// campaign's settings, a board, the vote-id records), silently; the
/// `volatile-*` policies evict the keys that have an expiry first, and
/// those are the vote-id records, so a vote resent with its id counts
/// twice. Also a warning when the policy cannot be read (no `CONFIG GET`
/// nor `INFO` for this user).
pub fn eviction_warning(con: &mut dyn ConnectionLike) -> Option<String> {
    eviction_advice(maxmemory_policies(con))
}

/// [`eviction_warning`]'s words for the policies read
/// ([`maxmemory_policies_in`]; `None`: they could not be read).
pub fn eviction_advice(policies: Option<Vec<String>>) -> Option<String> {
    let Some(mut policies) = policies else {
        return Some(
            "maxmemory-policy unknown (CONFIG GET and INFO refused): it must be noeviction, \
             check it as an administrator (docs/errors.md, \"Memory and eviction\")"
                .to_string(),
        );
    };
    policies.sort();
    policies.dedup();
    policies.retain(|p| p != "noeviction");
    if policies.is_empty() {
        return None;
    }
    Some(format!(
        "maxmemory-policy is {}, not noeviction: once maxmemory is reached Redis evicts keys \
         silently (allkeys-*: any key, a campaign's settings and boards too; volatile-*: the keys \
         with an expiry first, which are the vote-id records, so a vote resent with its id counts \
         twice); set `CONFIG SET maxmemory-policy noeviction` (docs/errors.md, \"Memory and \
         eviction\")",
        policies.join(", ")
    ))
}

/// `e` as the check's error: a redirection (`ASK`, `MOVED`, `TRYAGAIN`,
/// also inside a `MULTI` that `EXECABORT` ended) or `CLUSTERDOWN` says that
/// the node does not hold `root`'s slot whole now; the error then says so
/// in words (kind `TryAgain`: nothing was reported, retry once the
/// migration is over). Any other error is `e` itself.
fn slot_moving(root: &str, e: RedisError) -> RedisError {
    let text = e.to_string();
    let redirected = e.is_cluster_error()
        || ["ASK", "MOVED", "TRYAGAIN", "CLUSTERDOWN"]
            .iter()
            .any(|code| e.code() == Some(code) || text.contains(&format!("{code} ")));
    if !redirected {
        return e;
    }
    let slot = redvote::client::key_slot(root.as_bytes());
    let code = e.code().unwrap_or("a redirection").to_string();
    let answer = match e.redirect_node() {
        Some((addr, _slot)) => format!("{code} to {addr}"),
        None => code,
    };
    RedisError::from((
        ErrorKind::Server(redis::ServerErrorKind::TryAgain),
        "no check while a slot migrates",
        format!(
            "the slot {slot} of {root} is being migrated between cluster nodes \
             (MIGRATING / IMPORTING), or has moved off this node (it answered {answer}): \
             a check now would read only part of its keys, so none was made; retry after \
             the migration ends"
        ),
    ))
}

/// What a report names: `site`, `site <prefix>`, `campaign <namespace>`.
fn target(kind: &str, prefix: &str) -> String {
    if prefix.is_empty() {
        kind.to_string()
    } else {
        format!("{kind} {prefix}")
    }
}

/// `s` as a literal inside a Redis glob pattern: `\`, `*`, `?`, `[`, `]`,
/// `{`, `}` and `^` escaped with a backslash.
pub(crate) fn glob_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if matches!(c, '\\' | '*' | '?' | '[' | ']' | '{' | '}' | '^') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Every key matching `<prefix>*`, one `SCAN` batch at a time: `each` gets
/// the batch (keys that are not UTF-8 are skipped: the scripts write none).
/// Returns how many keys SCAN returned.
fn scan_keys(
    con: &mut dyn ConnectionLike,
    prefix: &str,
    mut each: impl FnMut(&mut dyn ConnectionLike, Vec<String>) -> RedisResult<()>,
) -> RedisResult<u64> {
    let pattern = format!("{}*", glob_escape(prefix));
    let mut cursor: u64 = 0;
    let mut seen = 0;
    loop {
        let (next, keys): (u64, Vec<Vec<u8>>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(&pattern)
            .arg("COUNT")
            .arg(SCAN_COUNT)
            .query(con)?;
        seen += keys.len() as u64;
        let keys: Vec<String> = keys
            .into_iter()
            .filter_map(|k| String::from_utf8(k).ok())
            .collect();
        if !keys.is_empty() {
            each(con, keys)?;
        }
        if next == 0 {
            return Ok(seen);
        }
        cursor = next;
    }
}

/// A `*SCAN` page: the next cursor (0: done) and the flat items.
type Page = (u64, Vec<Vec<u8>>);

/// One page of `ZSCAN`/`SSCAN`/`HSCAN` of `key`: the next cursor and the
/// flat items (member, score / member / field, value). A key of the wrong
/// type gives the error text.
fn scan_page(
    con: &mut dyn ConnectionLike,
    command: &str,
    key: &str,
    cursor: u64,
) -> RedisResult<Result<Page, String>> {
    let reply: RedisResult<(u64, Vec<Vec<u8>>)> = redis::cmd(command)
        .arg(key)
        .arg(cursor)
        .arg("COUNT")
        .arg(PAGE)
        .query(con);
    match reply {
        Ok(page) => Ok(Ok(page)),
        Err(e) if e.code() == Some("WRONGTYPE") => {
            Ok(Err(format!("WRONGTYPE {}", e.detail().unwrap_or_default())))
        }
        Err(e) => Err(e),
    }
}

/// Every page of `command` (`SSCAN`, `HSCAN`, `ZSCAN`) over `key`, given to
/// `each` with the connection and the report, until the scan is complete.
/// `Ok(Err(text))`: `key` is of another type (nothing was given to `each`).
fn scan_pages(
    con: &mut dyn ConnectionLike,
    command: &str,
    key: &str,
    r: &mut Report,
    mut each: impl FnMut(&mut dyn ConnectionLike, Vec<Vec<u8>>, &mut Report) -> RedisResult<()>,
) -> RedisResult<Result<(), String>> {
    let mut cursor = 0;
    loop {
        let (next, page) = match scan_page(con, command, key, cursor)? {
            Ok(page) => page,
            Err(e) => return Ok(Err(e)),
        };
        each(con, page, r)?;
        if next == 0 {
            return Ok(Ok(()));
        }
        cursor = next;
    }
}

/// [`scan_pages`], a key of another type reported as a violation (`is not
/// a set` / `a hash` / `a sorted set`); false then.
fn scan_checked(
    con: &mut dyn ConnectionLike,
    command: &str,
    key: &str,
    r: &mut Report,
    each: impl FnMut(&mut dyn ConnectionLike, Vec<Vec<u8>>, &mut Report) -> RedisResult<()>,
) -> RedisResult<bool> {
    match scan_pages(con, command, key, r, each)? {
        Ok(()) => Ok(true),
        Err(e) => {
            let what = match command {
                "SSCAN" => "a set",
                "HSCAN" => "a hash",
                _ => "a sorted set",
            };
            r.violation(key, format!("is not {what}: {e}"));
            Ok(false)
        }
    }
}

/// Run `pipe` as one `MULTI`/`EXEC`, every reply kept (an error reply, such
/// as `WRONGTYPE`, is a `Value::ServerError` in its place).
fn exec(con: &mut dyn ConnectionLike, pipe: &mut redis::Pipeline) -> RedisResult<Vec<Value>> {
    if pipe.is_empty() {
        return Ok(Vec::new());
    }
    pipe.atomic().ignore_errors().query(con)
}

/// The error text of an error reply.
fn error_of(v: &Value) -> Option<String> {
    match v {
        Value::ServerError(e) => Some(format!(
            "{}{}",
            e.code(),
            e.details().map(|d| format!(" {d}")).unwrap_or_default()
        )),
        _ => None,
    }
}

/// A bulk or simple string reply as text (`None` for nil or another type).
fn text(v: &Value) -> Option<String> {
    match v {
        Value::BulkString(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Value::SimpleString(s) => Some(s.clone()),
        Value::Okay => Some("OK".to_string()),
        Value::Int(n) => Some(n.to_string()),
        Value::Double(d) => Some(d.to_string()),
        _ => None,
    }
}

/// An integer reply.
fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Int(n) => Some(*n),
        other => text(other).and_then(|t| t.parse().ok()),
    }
}

/// The items of an array reply (empty for anything else).
fn items(v: &Value) -> &[Value] {
    match v {
        Value::Array(a) | Value::Set(a) => a,
        _ => &[],
    }
}

/// A score as Redis prints it (`"12"`, `"0.3"`, `"inf"`) as a number.
fn score_of(text: &str) -> Option<f64> {
    match text {
        "inf" | "+inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        _ => text.parse().ok(),
    }
}

/// The server's clock from a `TIME` reply: (seconds, microseconds).
fn time_of(v: &Value) -> Option<(i64, i64)> {
    let parts = items(v);
    Some((int(parts.first()?)?, int(parts.get(1)?)?))
}

/// A stored integer setting as `lua/src/lib/stored.lua` reads it: at most 16
/// characters, an optional minus sign and decimal digits, within lo..=hi.
fn stored_int(v: &str, lo: i64, hi: i64) -> Option<i64> {
    let digits = v.strip_prefix('-').unwrap_or(v);
    if v.len() > 16 || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: i64 = v.parse().ok()?;
    (lo..=hi).contains(&n).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_escape_makes_prefixes_literal() {
        assert_eq!(glob_escape("{c:a*b}:"), "\\{c:a\\*b\\}:");
        assert_eq!(glob_escape("x?[y]\\^"), "x\\?\\[y\\]\\\\\\^");
        assert_eq!(glob_escape("plain:"), "plain:");
    }

    #[test]
    fn stored_int_is_as_strict_as_the_scripts() {
        assert_eq!(stored_int("432", 1, 1000000), Some(432));
        assert_eq!(stored_int("-60", -100, 0), Some(-60));
        for bad in [
            "",
            "-",
            " 5",
            "2.5",
            "0x10",
            "nan",
            "inf",
            "1e3",
            "99999999999999999",
        ] {
            assert_eq!(stored_int(bad, i64::MIN, i64::MAX), None, "{bad:?}");
        }
        assert_eq!(stored_int("0", 1, 10), None);
    }

    #[test]
    fn report_prints_a_line_per_violation_and_a_summary() {
        let mut r = Report::new("site {s}:".into());
        r.violation("{s}:score:", "b");
        r.violation("{s}:article:1", "a");
        r.violation("{s}:article:1", "a");
        r.count("articles", 2);
        let r = r.finish();
        assert_eq!(r.violations.len(), 2);
        assert_eq!(
            r.to_string(),
            "{s}:article:1: a\n{s}:score:: b\n2 invariant violations in site {s}: (0 keys scanned; checked 2 articles)"
        );
        assert!(!r.is_clean());
        assert_eq!(r.violations_of("{s}:score:").count(), 1);
    }
}
