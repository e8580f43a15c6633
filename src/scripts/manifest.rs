//! Test only: `lua/manifest.json`, the machine-readable contract of every
//! script, generated from the script headers and committed (see
//! `docs/manifest.md`). `manifest_is_current` fails, naming the first
//! difference, when the committed manifest is stale, and
//! `REDVOTE_SYNC_LUA=1 cargo test -p redvote --lib lua_sources` rewrites it
//! with the assembled scripts.
//!
//! The header form it reads (in `lua/src/{site,campaign}/*.lua`):
//!
//! ```text
//!     KEYS[1]  site root "<prefix>article:"; ...        the quoted key is the root
//!     ARGV[3]  vote  <enum(up|down|none), optional, default up>  prose
//!     ARGV[7..]  pairs  <name/name, repeat 1..50>  prose  (a variadic tail)
//!   Keys: <prefix>article:ID, <prefix>score:, ...        (or "none (why)")
//!   Reply: {changed: integer, previous: string, ...}
//!   Idempotent: yes | no | with vote id
//!   Errors: REDVOTE_USAGE, ...                           (up to a blank line)
//! ```
//!
//! The `<...>` spec: a type (with bounds after a space: `integer 1..5000`,
//! `text 1..512`), then any of `optional`, `default X`, `"" = X` (the empty
//! string is accepted and means X), `repeat N..M` (a tail's count).
//! `Keys:`, `Reply:` and `Errors:` may wrap onto indented lines, up to a
//! blank line or the next `Section:`.

use super::assemble::{assemble, dirs, sources};
use serde_json::{json, Map, Value};

/// The types an argument spec may name (`a/b` pairs are checked part by part).
pub(crate) const TYPES: [&str; 15] = [
    "user",
    "name",
    "integer",
    "decimal",
    "enum",
    "json",
    "text",
    "vote_id",
    "time",
    "cursor",
    "period",
    "article_id",
    "group",
    "group_token",
    "config_field",
];

/// One `ARGV[i]` line of a header.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Arg {
    pub index: usize,
    pub name: String,
    pub variadic: bool,
    pub ty: String,
    pub bounds: Option<String>,
    pub optional: bool,
    pub default: Option<String>,
    pub empty: Option<String>,
    pub repeat: Option<String>,
}

/// What the manifest takes from a header.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Header {
    pub keys: usize,
    pub root: String,
    pub derives: Vec<String>,
    pub args: Vec<Arg>,
    pub reply: String,
    pub idempotent: String,
    pub errors: Vec<String>,
}

/// The header comment of a script (source or assembled): up to its `]]`.
fn header_text(source: &str) -> Result<&str, String> {
    source
        .find("]]")
        .map(|end| &source[..end])
        .ok_or_else(|| "no --[[ header ]]".to_string())
}

fn parse_spec(spec: &str, arg: &mut Arg) -> Result<(), String> {
    let mut items = spec.split(", ");
    let ty = items.next().unwrap_or_default();
    let (base, bounds) = match ty.split_once(' ') {
        Some((b, bounds)) => (b, Some(bounds.to_string())),
        None => (ty, None),
    };
    for part in base.split('/') {
        let word = part.split('(').next().unwrap_or_default();
        if !TYPES.contains(&word) {
            return Err(format!(
                "ARGV[{}] {}: unknown type {part:?}",
                arg.index, arg.name
            ));
        }
    }
    arg.ty = base.to_string();
    arg.bounds = bounds;
    for item in items {
        if item == "optional" {
            arg.optional = true;
        } else if let Some(d) = item.strip_prefix("default ") {
            arg.default = Some(d.to_string());
        } else if let Some(e) = item.strip_prefix("\"\" = ") {
            arg.empty = Some(e.to_string());
        } else if let Some(r) = item.strip_prefix("repeat ") {
            arg.repeat = Some(r.to_string());
        } else {
            return Err(format!(
                "ARGV[{}] {}: unknown spec item {item:?}",
                arg.index, arg.name
            ));
        }
    }
    if arg.variadic != arg.repeat.is_some() {
        return Err(format!(
            "ARGV[{}] {}: `repeat N..M` marks a variadic tail, only",
            arg.index, arg.name
        ));
    }
    Ok(())
}

/// Parses a script's header (an editable source or an assembled script).
pub(crate) fn parse(source: &str) -> Result<Header, String> {
    let text = header_text(source)?;
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let mut header = Header {
        keys: text.matches("KEYS[").count(),
        root: String::new(),
        derives: Vec::new(),
        args: Vec::new(),
        reply: String::new(),
        idempotent: String::new(),
        errors: Vec::new(),
    };
    for (i, line) in lines.iter().enumerate() {
        if let Some(rest) = line.strip_prefix("KEYS[1]") {
            let quoted = rest.split('"').nth(1).ok_or("KEYS[1] names no \"root\"")?;
            header.root = quoted.to_string();
        } else if let Some(rest) = line.strip_prefix("ARGV[") {
            let (index, rest) = rest.split_once(']').ok_or("ARGV[ without ]")?;
            let variadic = index.ends_with("..");
            let index: usize = index
                .trim_end_matches('.')
                .parse()
                .map_err(|_| format!("ARGV[{index}]"))?;
            if index != header.args.len() + 1 {
                return Err(format!("ARGV numbering in {line:?}"));
            }
            let rest = rest.trim_start();
            let (name, rest) = rest
                .split_once(' ')
                .ok_or_else(|| format!("{line:?}: no <spec>"))?;
            let spec = rest
                .trim_start()
                .strip_prefix('<')
                .and_then(|s| s.split_once('>'))
                .ok_or_else(|| format!("{line:?}: `ARGV[i]  name  <spec>  description`"))?
                .0;
            let mut arg = Arg {
                index,
                name: name.to_string(),
                variadic,
                ty: String::new(),
                bounds: None,
                optional: false,
                default: None,
                empty: None,
                repeat: None,
            };
            parse_spec(spec, &mut arg)?;
            header.args.push(arg);
        } else if let Some(rest) = line.strip_prefix("Reply: ") {
            header.reply = continued(rest, &lines[i + 1..]);
        } else if let Some(rest) = line.strip_prefix("Keys: ") {
            let keys = continued(rest, &lines[i + 1..]);
            if !keys.starts_with("none") {
                header.derives = keys.split(", ").map(str::to_string).collect();
            }
        } else if let Some(rest) = line.strip_prefix("Idempotent: ") {
            if header.idempotent.is_empty() {
                let value = ["yes", "no", "with vote id"]
                    .into_iter()
                    .find(|v| rest.starts_with(v))
                    .ok_or_else(|| {
                        format!("Idempotent: {rest:?} is not yes | no | with vote id")
                    })?;
                header.idempotent = value.to_string();
            }
        } else if let Some(rest) = line.strip_prefix("Errors:") {
            header.errors = codes(&continued(rest, &lines[i + 1..]));
        }
    }
    for (what, empty) in [
        ("KEYS[1] \"root\"", header.root.is_empty()),
        ("Keys:", !text.contains("\n  Keys: ")),
        ("Reply:", header.reply.is_empty()),
        ("Idempotent:", header.idempotent.is_empty()),
        ("Errors:", header.errors.is_empty()),
    ] {
        if empty {
            return Err(format!("the header has no {what} line"));
        }
    }
    Ok(header)
}

/// A section's first line and its continuation lines (up to a blank line
/// or the next `Section:`), joined by spaces.
fn continued(first: &str, rest: &[&str]) -> String {
    let mut text = first.trim().to_string();
    for line in rest {
        let section = line.split_once(": ").is_some_and(|(w, _)| {
            w.chars().all(|c| c.is_ascii_alphabetic())
                && w.starts_with(|c: char| c.is_ascii_uppercase())
        });
        if line.is_empty() || section || line.starts_with("ARGV[") || line.starts_with("KEYS[") {
            break;
        }
        text.push(' ');
        text.push_str(line);
    }
    text
}

/// The `REDVOTE_*` words of a text, in order, once each.
fn codes(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in text.split(|c: char| !(c.is_ascii_uppercase() || c == '_')) {
        if word.starts_with("REDVOTE_") && word.len() > 8 && !out.iter().any(|w| w == word) {
            out.push(word.to_string());
        }
    }
    out
}

fn arg_json(arg: &Arg) -> Value {
    let mut m = Map::new();
    m.insert("index".into(), json!(arg.index));
    m.insert("name".into(), json!(arg.name));
    m.insert("type".into(), json!(arg.ty));
    m.insert("variadic".into(), json!(arg.variadic));
    m.insert("optional".into(), json!(arg.optional));
    for (k, v) in [
        ("bounds", &arg.bounds),
        ("default", &arg.default),
        ("empty", &arg.empty),
        ("repeat", &arg.repeat),
    ] {
        if let Some(v) = v {
            m.insert(k.into(), json!(v));
        }
    }
    Value::Object(m)
}

/// The manifest of the scripts as `lua/src/` assembles them now.
pub(crate) fn generate() -> String {
    let (src, _) = dirs();
    let version = env!("CARGO_PKG_VERSION");
    let mut scripts = Vec::new();
    for (op, rel) in sources(&src) {
        let text = assemble(&src, &rel).unwrap_or_else(|e| panic!("{e}"));
        let h = parse(&text).unwrap_or_else(|e| panic!("lua/src/{rel}: {e}"));
        let shebang = text.lines().next().unwrap_or_default();
        let flags: Vec<&str> = shebang
            .split_whitespace()
            .filter_map(|w| w.strip_prefix("flags="))
            .flat_map(|f| f.split(','))
            .collect();
        scripts.push(json!({
            "name": op,
            "file": format!("lua/{op}.lua"),
            "source": format!("lua/src/{rel}"),
            "sha1": redis::Script::new(&text).get_hash(),
            "version": version,
            "flags": flags,
            "key": { "root": h.root, "derives": h.derives },
            "argv": h.args.iter().map(arg_json).collect::<Vec<_>>(),
            "reply": h.reply,
            "errors": h.errors,
            "idempotent": h.idempotent,
            "vote_id": h.args.iter().any(|a| a.ty == "vote_id"),
        }));
    }
    let manifest = json!({
        "$schema": "./manifest.schema.json",
        "redvote": version,
        "scripts": scripts,
    });
    serde_json::to_string_pretty(&manifest).unwrap() + "\n"
}

/// A small interpreter of the JSON Schema keywords `manifest.schema.json`
/// uses: `type`, `properties`, `required`, `additionalProperties: false`,
/// `items`, `enum`, `const`, `minItems`, `minimum`, `pattern` (only the
/// anchored forms `^[0-9a-f]{40}$` and `^REDVOTE_[A-Z_]+$`) and local
/// `$ref`s to `#/$defs/...`. No JSON Schema crate is in the dependency tree;
/// an unknown keyword fails, so the schema cannot say more than is checked.
fn validate(root: &Value, schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    let s = schema
        .as_object()
        .ok_or_else(|| format!("{at}: schema not an object"))?;
    for (k, v) in s {
        match k.as_str() {
            "$schema" | "$id" | "$defs" | "title" | "description" => {}
            "$ref" => {
                let name = v
                    .as_str()
                    .and_then(|r| r.strip_prefix("#/$defs/"))
                    .ok_or("$ref")?;
                validate(root, &root["$defs"][name], value, at)?;
            }
            "type" => {
                let ok = match v.as_str().unwrap() {
                    "object" => value.is_object(),
                    "array" => value.is_array(),
                    "string" => value.is_string(),
                    "integer" => value.is_u64() || value.is_i64(),
                    "boolean" => value.is_boolean(),
                    other => return Err(format!("{at}: type {other}?")),
                };
                if !ok {
                    return Err(format!("{at}: not a {v}"));
                }
            }
            "properties" => {
                for (name, sub) in v.as_object().unwrap() {
                    if let Some(field) = value.get(name) {
                        validate(root, sub, field, &format!("{at}.{name}"))?;
                    }
                }
            }
            "required" => {
                for name in v.as_array().unwrap() {
                    if value.get(name.as_str().unwrap()).is_none() {
                        return Err(format!("{at}: no {name}"));
                    }
                }
            }
            "additionalProperties" => {
                assert_eq!(v, &json!(false), "only additionalProperties: false");
                let known = s["properties"].as_object().unwrap();
                for name in value.as_object().unwrap().keys() {
                    if !known.contains_key(name) {
                        return Err(format!("{at}: unexpected {name}"));
                    }
                }
            }
            "items" => {
                for (i, item) in value.as_array().unwrap().iter().enumerate() {
                    validate(root, v, item, &format!("{at}[{i}]"))?;
                }
            }
            "enum" => {
                if !v.as_array().unwrap().contains(value) {
                    return Err(format!("{at}: {value} not in {v}"));
                }
            }
            "const" => {
                if v != value {
                    return Err(format!("{at}: {value} is not {v}"));
                }
            }
            "minItems" => {
                if (value.as_array().unwrap().len() as u64) < v.as_u64().unwrap() {
                    return Err(format!("{at}: fewer than {v} items"));
                }
            }
            "minimum" => {
                if value.as_u64().unwrap() < v.as_u64().unwrap() {
                    return Err(format!("{at}: below {v}"));
                }
            }
            "pattern" => {
                let text = value.as_str().unwrap();
                let ok = match v.as_str().unwrap() {
                    "^[0-9a-f]{40}$" => {
                        text.len() == 40
                            && text
                                .bytes()
                                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
                    }
                    "^REDVOTE_[A-Z_]+$" => {
                        text.len() > 8
                            && text.starts_with("REDVOTE_")
                            && text.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
                    }
                    other => return Err(format!("{at}: pattern {other} is not interpreted here")),
                };
                if !ok {
                    return Err(format!("{at}: {text:?} does not match {v}"));
                }
            }
            other => return Err(format!("{at}: keyword {other} is not interpreted here")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod lua_sources_manifest {
    use super::*;

    fn committed() -> String {
        let (_, lua) = dirs();
        std::fs::read_to_string(lua.join("manifest.json")).unwrap_or_default()
    }

    /// The committed `lua/manifest.json` is what the headers and the
    /// assembled bytes say now (REDVOTE_SYNC_LUA=1 rewrites it).
    #[test]
    fn manifest_is_current() {
        let want = generate();
        let have = committed();
        if have == want {
            return;
        }
        if std::env::var_os("REDVOTE_SYNC_LUA").is_some() {
            std::fs::write(dirs().1.join("manifest.json"), want).unwrap();
            return;
        }
        let diff = want
            .lines()
            .zip(have.lines().chain(std::iter::repeat("<end of file>")))
            .enumerate()
            .find(|(_, (w, h))| w != h)
            .map(|(i, (w, h))| format!("line {}: committed {h:?}, headers say {w:?}", i + 1))
            .unwrap_or_else(|| "the committed file is longer".into());
        panic!(
            "stale lua/manifest.json ({diff}): run REDVOTE_SYNC_LUA=1 cargo test -p redvote --lib lua_sources"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn committed() -> String {
        std::fs::read_to_string(dirs().1.join("manifest.json")).unwrap_or_default()
    }

    fn manifest() -> Value {
        serde_json::from_str(&generate()).unwrap()
    }

    #[test]
    fn manifest_matches_its_schema() {
        let schema: Value =
            serde_json::from_str(include_str!("../../lua/manifest.schema.json")).unwrap();
        validate(&schema, &schema, &manifest(), "$").unwrap();
        // the interpreter refuses what the schema forbids
        let mut bad = manifest();
        bad["scripts"][0]["sha1"] = json!("XYZ");
        assert!(validate(&schema, &schema, &bad, "$").is_err());
        let mut bad = manifest();
        bad["scripts"][0].as_object_mut().unwrap().remove("errors");
        assert!(validate(&schema, &schema, &bad, "$").is_err());
        let mut bad = manifest();
        bad["scripts"][0]["argv"] = json!([{"index": 1}]);
        assert!(validate(&schema, &schema, &bad, "$").is_err());
    }

    /// Every code a header lists is one of the driver's and documented.
    #[test]
    fn manifest_errors_are_known_and_documented() {
        let docs = include_str!("../../docs/errors.md");
        let known: Vec<&str> = crate::Code::ALL.iter().map(|c| c.as_str()).collect();
        for script in manifest()["scripts"].as_array().unwrap() {
            for code in script["errors"].as_array().unwrap() {
                let code = code.as_str().unwrap();
                assert!(
                    known.contains(&code),
                    "{}: {code} is no Code",
                    script["name"]
                );
                assert!(
                    docs.contains(&format!("`{code}`")),
                    "{}: {code} is not in docs/errors.md",
                    script["name"]
                );
            }
        }
    }

    /// A script's code after its header, comment lines left out.
    fn code_of(source: &str) -> String {
        source[source.find("]]").unwrap()..]
            .lines()
            .filter(|l| !l.trim_start().starts_with("--"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Every code a header lists is raised by the script's code (a
    /// `fail('CODE', ...)` or the epilogue's `REDVOTE_CODE`), comments aside.
    #[test]
    fn header_errors_are_raised_by_the_code() {
        for e in crate::scripts::all() {
            let source = e.source();
            let code = code_of(source);
            for wire in parse(source).unwrap().errors {
                let bare = &wire["REDVOTE_".len()..];
                assert!(
                    code.contains(&format!("'{bare}'")) || code.contains(&wire),
                    "lua/{}.lua: its header lists {wire}, its code never raises it",
                    e.name()
                );
            }
        }
    }

    /// The converse: every code the script's code can raise (`fail('CODE'`
    /// or a `REDVOTE_CODE` in the code) is in its header's `Errors:`, but
    /// `REDVOTE_INTERNAL` (a bug or a Redis refusal, any script) and
    /// `TRYAGAIN`. So the manifest's error lists are complete.
    #[test]
    fn raised_codes_are_in_the_header() {
        let mut missing = Vec::new();
        for e in crate::scripts::all() {
            let source = e.source();
            let code = code_of(source);
            let listed = parse(source).unwrap().errors;
            let mut raised = std::collections::BTreeSet::new();
            for (at, _) in code.match_indices("fail('") {
                let rest = &code[at + "fail('".len()..];
                raised.insert(format!("REDVOTE_{}", &rest[..rest.find('\'').unwrap()]));
            }
            for (at, _) in code.match_indices("REDVOTE_") {
                let rest = &code[at..];
                let end = rest
                    .find(|c: char| !(c.is_ascii_uppercase() || c == '_'))
                    .unwrap_or(rest.len());
                raised.insert(rest[..end].to_string());
            }
            for wire in raised {
                if wire != "REDVOTE_" && wire != "REDVOTE_INTERNAL" && !listed.contains(&wire) {
                    missing.push(format!("lua/{}.lua raises {wire}", e.name()));
                }
            }
        }
        assert!(
            missing.is_empty(),
            "codes raised but not in the header's Errors: {missing:#?}"
        );
    }

    /// Where the code checks an integer argument with
    /// `integer_arg(ARGV[i], 'name', lo, hi, ...)`, the header's bounds are
    /// `lo..hi`.
    #[test]
    fn integer_bounds_are_the_code_s() {
        let mut checked = 0;
        for e in crate::scripts::all() {
            let source = e.source();
            for arg in parse(source).unwrap().args {
                let call = format!("integer_arg(ARGV[{}], '", arg.index);
                let Some(at) = source.find(&call) else {
                    continue;
                };
                let rest = &source[at + call.len()..];
                let rest = &rest[rest.find('\'').unwrap() + 1..];
                let bounds: Vec<&str> = rest
                    .split([',', ')'])
                    .skip(1)
                    .take(2)
                    .map(str::trim)
                    .collect();
                let code = format!("{}..{}", bounds[0], bounds[1]);
                if arg.ty == "integer" {
                    assert_eq!(
                        arg.bounds.as_deref(),
                        Some(code.as_str()),
                        "{} ARGV[{}]",
                        e.name(),
                        arg.index
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked >= 10, "only {checked} integer arguments checked");
    }

    /// The manifest names what the driver embeds: the same scripts, SHA1s
    /// and no-writes flags, and the crate's version in every script.
    #[test]
    fn manifest_agrees_with_the_embedded_scripts() {
        let m = manifest();
        assert_eq!(m["redvote"], env!("CARGO_PKG_VERSION"));
        let scripts = m["scripts"].as_array().unwrap();
        let names: Vec<&str> = scripts
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        let embedded: Vec<&str> = crate::scripts::all().iter().map(|s| s.name()).collect();
        assert_eq!(names, embedded);
        for s in scripts {
            let e = crate::scripts::get(s["name"].as_str().unwrap()).unwrap();
            assert_eq!(
                s["sha1"],
                e.sha1(),
                "{}: rebuild after REDVOTE_SYNC_LUA=1",
                e.name()
            );
            let no_writes = s["flags"].as_array().unwrap().contains(&json!("no-writes"));
            assert_eq!(no_writes, !e.writes(), "{}: flags", e.name());
            let stamp = format!("\n-- redvote {}\n", env!("CARGO_PKG_VERSION"));
            assert!(e.source().contains(&stamp), "{}: no version line", e.name());
            if s["idempotent"] == "with vote id" {
                assert_eq!(
                    s["vote_id"],
                    true,
                    "{}: idempotent with which vote id?",
                    e.name()
                );
            }
        }
        assert_eq!(crate::scripts::MANIFEST, committed());
    }

    #[test]
    fn headers_parse_and_refuse_malformed_lines() {
        let h = parse(
            "#!lua\n--[[\n  KEYS[1]  root \"<ns>campaign\"; <ns>b:B:real:P\n  Keys: <ns>b:B:real:P,\n    <ns>seq\n    ARGV[1]  user  <user>  who\n    ARGV[2]  vote  <enum(up|down), optional, default up>  x\n    ARGV[3..]  pairs  <name/name, repeat 1..50>  board, option\n  Reply: integer\n  Idempotent: with vote id (see)\n  Errors: REDVOTE_USAGE,\n    REDVOTE_DENIED (why).\n\n  REDVOTE_NOT_AN_ERROR\n]]\n",
        )
        .unwrap();
        assert_eq!(h.root, "<ns>campaign");
        assert_eq!(h.derives, ["<ns>b:B:real:P", "<ns>seq"]);
        assert_eq!(h.errors, ["REDVOTE_USAGE", "REDVOTE_DENIED"]);
        assert_eq!(h.idempotent, "with vote id");
        assert_eq!(h.args[1].default.as_deref(), Some("up"));
        assert!(h.args[1].optional && h.args[2].variadic);
        assert_eq!(h.args[2].repeat.as_deref(), Some("1..50"));
        let bad = |argv: &str| {
            parse(&format!("--[[\n KEYS[1] \"r\"\n {argv}\n Reply: x\n Idempotent: no\n Errors: REDVOTE_USAGE\n]]")).unwrap_err()
        };
        assert!(bad("ARGV[1]  user  who").contains("<spec>"));
        assert!(bad("ARGV[1]  user  <person>  who").contains("unknown type"));
        assert!(bad("ARGV[2]  user  <user>").contains("numbering"));
        assert!(bad("ARGV[1..]  users  <user>").contains("repeat"));
    }
}
