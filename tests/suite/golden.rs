//! The golden cases (`tests/golden/*.json`, format in its README): every
//! file is a scenario of script calls and raw commands with the replies
//! they must get, shared with the Python and Node packages' runners. This
//! runner sends each step by name through the driver's embedded scripts
//! (`redvote::scripts`, EVALSHA with NOSCRIPT recovery through redis-rs's
//! `Script`) on one throwaway server (`FLUSHALL` before each file), and
//! reports every failing step, not only the first.

use std::path::{Path, PathBuf};

use redis::Value;
use serde_json::Value as Json;

use crate::support::{digest, server, server_time};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// A step's argument with `${now}`, `${now-N}` and `${now+N}` replaced by
/// the server's clock (Unix seconds, read once a step); `Err` names an
/// offset that is not a number.
fn substitute(arg: &str, now: &mut dyn FnMut() -> i64) -> Result<String, String> {
    let Some(inner) = arg.strip_prefix("${now").and_then(|a| a.strip_suffix('}')) else {
        return Ok(arg.to_string());
    };
    let offset = match inner.chars().next() {
        None => 0,
        Some(sign @ ('+' | '-')) => {
            let n: i64 = inner[1..]
                .parse()
                .map_err(|_| format!("bad clock placeholder {arg:?}"))?;
            if sign == '+' {
                n
            } else {
                -n
            }
        }
        Some(_) => return Ok(arg.to_string()),
    };
    Ok((now() + offset).to_string())
}

/// A RESP2 reply as the README writes it in JSON.
fn to_json(value: &Value) -> Result<Json, String> {
    Ok(match value {
        Value::Nil => Json::Null,
        Value::Int(i) => Json::from(*i),
        Value::BulkString(b) => Json::String(
            String::from_utf8(b.clone())
                .map_err(|_| format!("a reply that is not UTF-8: {b:?}"))?,
        ),
        Value::SimpleString(s) => Json::String(s.clone()),
        Value::Okay => Json::String("OK".into()),
        Value::Array(items) => Json::Array(items.iter().map(to_json).collect::<Result<_, _>>()?),
        other => return Err(format!("a reply of no RESP2 kind: {other:?}")),
    })
}

/// Whether `got` is `want`, where `{"$type": K}` in `want` stands for any
/// value of kind K (`integer`, `string`, `digits`: a string of decimal
/// digits, `array` or `any`).
fn matches(want: &Json, got: &Json) -> bool {
    if let Some(kind) = want
        .as_object()
        .filter(|o| o.len() == 1)
        .and_then(|o| o.get("$type"))
        .and_then(Json::as_str)
    {
        return match kind {
            "any" => true,
            "integer" => got.is_i64() || got.is_u64(),
            "string" => got.is_string(),
            "digits" => got
                .as_str()
                .is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())),
            "array" => got.is_array(),
            _ => false,
        };
    }
    match (want, got) {
        (Json::Array(w), Json::Array(g)) => {
            w.len() == g.len() && w.iter().zip(g).all(|(w, g)| matches(w, g))
        }
        (Json::Number(w), Json::Number(g)) => w.as_i64().is_some() && w.as_i64() == g.as_i64(),
        _ => want == got,
    }
}

/// What a step got: a reply, or a refusal's code (the error message's first
/// word) with its whole message.
enum Outcome {
    Reply(Json),
    Error { code: String, message: String },
}

impl Outcome {
    fn from(result: redis::RedisResult<Value>) -> Result<Outcome, String> {
        match result {
            Ok(v) => Ok(Outcome::Reply(to_json(&v)?)),
            Err(e) => match e.code() {
                Some(code) => Ok(Outcome::Error {
                    code: code.to_string(),
                    message: format!("{code} {}", e.detail().unwrap_or_default()),
                }),
                None => Err(format!("no reply: {e}")),
            },
        }
    }

    fn show(&self) -> String {
        match self {
            Outcome::Reply(j) => format!("reply {j}"),
            Outcome::Error { message, .. } => format!("error {message:?}"),
        }
    }
}

/// Compare `got` with a step's `expect`; `Err` says what differs.
fn check(expect: &Json, got: &Outcome) -> Result<(), String> {
    let obj = expect
        .as_object()
        .filter(|o| o.len() == 1)
        .ok_or("expect must be exactly one of reply or error")?;
    let ok = match (obj.get("reply"), obj.get("error"), got) {
        (Some(want), _, Outcome::Reply(g)) => matches(want, g),
        (_, Some(Json::String(want)), Outcome::Error { code, .. }) => want == code,
        (Some(_), _, _) | (_, Some(Json::String(_)), _) => false,
        _ => return Err("expect must be exactly one of reply or error (a code)".into()),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("expected {expect}, got {}", got.show()))
    }
}

fn strings(step: &Json, field: &str) -> Result<Vec<String>, String> {
    match step.get(field) {
        None => Ok(Vec::new()),
        Some(Json::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("{field} holds a value that is not a string: {i}"))
            })
            .collect(),
        Some(other) => Err(format!("{field} is not a list: {other}")),
    }
}

/// Run one step; `Err` is the failure to report.
fn run_step(con: &mut redis::Connection, step: &Json) -> Result<(), String> {
    let before = match step.get("unchanged") {
        None | Some(Json::Bool(false)) => None,
        Some(Json::Bool(true)) => Some(digest(con)),
        Some(other) => return Err(format!("unchanged must be true or false, got {other}")),
    };
    let mut clock = || server_time(con);
    let outcome = match (step.get("script"), step.get("command")) {
        (Some(Json::String(name)), None) => {
            let script = redvote::scripts::get(name)
                .ok_or_else(|| format!("no embedded script {name:?} (lua/manifest.json)"))?;
            let keys = strings(step, "keys")?;
            let args = strings(step, "args")?
                .iter()
                .map(|a| substitute(a, &mut clock))
                .collect::<Result<Vec<_>, _>>()?;
            let mut invocation = script.script().prepare_invoke();
            for k in &keys {
                invocation.key(k);
            }
            for a in &args {
                invocation.arg(a);
            }
            Outcome::from(invocation.invoke::<Value>(con))?
        }
        (None, Some(_)) => {
            let words = strings(step, "command")?
                .iter()
                .map(|a| substitute(a, &mut clock))
                .collect::<Result<Vec<_>, _>>()?;
            let (first, rest) = words.split_first().ok_or("an empty command")?;
            let mut cmd = redis::cmd(first);
            cmd.arg(rest);
            Outcome::from(cmd.query::<Value>(con))?
        }
        _ => return Err("a step needs exactly one of script (a name) or command".into()),
    };
    match step.get("expect") {
        Some(expect) => check(expect, &outcome)?,
        None if step.get("script").is_some() => {
            return Err(format!(
                "a script step without expect, got {}",
                outcome.show()
            ))
        }
        None => {}
    }
    if let Some(before) = before {
        if digest(con) != before {
            return Err("unchanged: DEBUG DIGEST changed".into());
        }
    }
    Ok(())
}

#[test]
fn digits_matches_a_string_of_decimal_digits_only() {
    let digits = serde_json::json!({"$type": "digits"});
    assert!(matches(&digits, &Json::from("1931515200123")));
    assert!(matches(&digits, &Json::from("0")));
    for other in [
        Json::from(""),
        Json::from("12a"),
        Json::from("-1"),
        Json::from("1.5"),
        Json::from(" 1"),
        Json::from(12),
        Json::Null,
        serde_json::json!(["1"]),
    ] {
        assert!(!matches(&digits, &other), "{other}");
    }
}

#[test]
fn every_golden_case_gets_its_replies() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .expect("tests/golden")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no golden case in {}",
        golden_dir().display()
    );

    let srv = server();
    let mut con = srv.client().get_connection().unwrap();
    let (mut steps, mut failures) = (0, Vec::new());
    for path in &files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let case: Json = match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        {
            Ok(case) => case,
            Err(e) => {
                failures.push(format!("{file}: not a case: {e}"));
                continue;
            }
        };
        let Some(list) = case
            .get("steps")
            .and_then(Json::as_array)
            .filter(|l| !l.is_empty())
        else {
            failures.push(format!("{file}: no steps"));
            continue;
        };
        redis::cmd("FLUSHALL").exec(&mut con).unwrap();
        for (i, step) in list.iter().enumerate() {
            steps += 1;
            let name = step
                .get("name")
                .and_then(Json::as_str)
                .map_or_else(|| format!("step {}", i + 1), str::to_string);
            if let Err(e) = run_step(&mut con, step) {
                failures.push(format!("{file}: {name}: {e}"));
            }
        }
    }
    println!(
        "golden: {} files, {steps} steps, {} failed",
        files.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {steps} golden steps failed ({} files):\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
