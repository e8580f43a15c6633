//! The CLI's side of the audit log (docs/teams.md): its admin changes
//! (configure, import, reset-limits, reindex, remove-options, void) are
//! recorded as `cli:$USER` through redvote-serve's writer, and
//! `redvote campaign NAME audit` reads the log.

use anyhow::Result;
use redvote::Campaign;
use redvote_serve::audit::{self, Action, Change};
use serde_json::Value;

use crate::{print, Global};

/// Who the CLI's entries name: `cli:$USER` (`cli:unknown` without one).
pub fn who() -> String {
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("USERNAME"))
        .unwrap_or_else(|_| "unknown".to_string());
    format!("cli:{user}")
}

/// The campaign's stored settings as JSON (null: none, or unreadable).
pub fn settings(g: &Global, c: &Campaign) -> Value {
    g.run(&c.settings())
        .ok()
        .and_then(|s| serde_json::to_value(s).ok())
        .unwrap_or(Value::Null)
}

/// Record an applied change of `c`; a failure is a warning on stderr (the
/// change stands; its entry is lost).
pub fn note(g: &Global, c: &Campaign, action: Action, what: Value, before: Value, after: Value) {
    let who = who();
    let change = Change {
        who: &who,
        action,
        what,
        before,
        after,
    };
    let result = g
        .connect()
        .and_then(|mut con| Ok(audit::record(con.redis()?, c, &change)?));
    if let Err(err) = result {
        eprintln!("warning: the change was applied but its audit entry was not written: {err:#}");
    }
}

/// `campaign NAME audit [--count N]`: the newest entries first.
pub fn read(g: &Global, c: &Campaign, count: u32) -> Result<()> {
    let mut con = g.connect()?;
    let entries = audit::read(con.redis()?, c, count, None)?;
    print(g, &serde_json::json!({ "entries": entries }), |_| {
        if entries.is_empty() {
            return "no audit entries".to_string();
        }
        entries
            .iter()
            .map(|e| format!("{} {} {} {} {}", e.id, e.when, e.who, e.action, e.what))
            .collect::<Vec<_>>()
            .join("\n")
    })
}
