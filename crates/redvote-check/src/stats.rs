//! The statistics and the vote log of a campaign (docs/statistics.md), as
//! [`crate::check_campaign`] finds them: each `<ns>st:B:P` bucket a hash of
//! whole counts that agree with each other, each `<ns>sp:P` a
//! HyperLogLog, each `<ns>sn:P` a count, `<ns>log` a stream. Read in
//! `MULTI`/`EXEC` batches of [`crate::PAGE`] keys.

use redis::{ConnectionLike, RedisResult, Value};

use super::{exec, items, text, Report};
use crate::calendar::parse_period;

/// Named channel (and device) fields a bucket keeps at most.
const FIELDS: u64 = 32;

/// What a statistics key is, from its name after `<ns>`: `st`, `sp`, `sn`
/// or `log` (and whether its period name is an hour's or a day's).
pub(crate) fn is_stats_key(rest: &str) -> bool {
    let bucket =
        |p: &str| (p.starts_with("hour:") || p.starts_with("day:")) && parse_period(p, 0).is_some();
    match rest.split_once(':') {
        Some(("st", tail)) => tail.split_once(':').is_some_and(|(_, p)| bucket(p)),
        Some(("sp" | "sn", p)) => bucket(p),
        None => rest == "log",
        _ => false,
    }
}

/// Check a batch of statistics keys (full names; `ns` their namespace).
pub(crate) fn check_stats(
    con: &mut dyn ConnectionLike,
    ns: &str,
    keys: &[String],
    r: &mut Report,
) -> RedisResult<()> {
    let mut pipe = redis::pipe();
    for key in keys {
        let rest = &key[ns.len()..];
        pipe.cmd("TYPE").arg(key);
        if rest.starts_with("st:") {
            pipe.cmd("HGETALL").arg(key);
        } else if rest.starts_with("sp:") {
            pipe.cmd("GETRANGE").arg(key).arg(0).arg(3);
        } else if rest.starts_with("sn:") {
            pipe.cmd("GET").arg(key);
        } else {
            pipe.cmd("EXISTS").arg(key);
        }
    }
    let got = exec(con, &mut pipe)?;
    if got.len() != keys.len() * 2 {
        return Ok(());
    }
    for (key, v) in keys.iter().zip(got.chunks(2)) {
        let rest = &key[ns.len()..];
        let kind = text(&v[0]).unwrap_or_default();
        if kind == "none" {
            continue; // expired since SCAN
        }
        let want = match &rest[..2] {
            "st" => "hash",
            "lo" => "stream",
            _ => "string",
        };
        if kind != want {
            r.violation(key, format!("is a {kind}, not a {want}"));
            continue;
        }
        match &rest[..2] {
            "st" => bucket(key, &v[1], r),
            "sp" if text(&v[1]).as_deref() != Some("HYLL") => {
                r.violation(key, "is not a HyperLogLog (participants)")
            }
            "sn" if text(&v[1]).and_then(|t| t.parse::<u64>().ok()).is_none() => {
                r.violation(key, "is not a count of participants")
            }
            _ => {}
        }
        r.count("stats_keys", 1);
    }
    Ok(())
}

/// One board's bucket: every field known and a whole count; voided within
/// the votes, the amount at least the votes (every weight is 1 or more),
/// the channels and devices within the votes, `nch` / `ndev` the number of
/// named fields, at most 32.
fn bucket(key: &str, v: &Value, r: &mut Report) {
    let fields: Vec<(String, String)> = match v {
        Value::Map(m) => m
            .iter()
            .map(|(k, v)| (text(k).unwrap_or_default(), text(v).unwrap_or_default()))
            .collect(),
        v => items(v)
            .chunks(2)
            .map(|c| {
                let t = |i: usize| c.get(i).and_then(text).unwrap_or_default();
                (t(0), t(1))
            })
            .collect(),
    };
    let mut n = std::collections::BTreeMap::<&str, u64>::new();
    let (mut ch, mut dev, mut named_ch, mut named_dev) = (0u64, 0u64, 0u64, 0u64);
    for (field, value) in &fields {
        let Ok(count) = value.parse::<u64>() else {
            r.violation(key, format!("{field} is {value:?}, not a whole count"));
            continue;
        };
        if let Some(name) = field.strip_prefix("ch:") {
            ch += count;
            named_ch += u64::from(name != "*");
        } else if let Some(name) = field.strip_prefix("dev:") {
            dev += count;
            named_dev += u64::from(name != "*");
        } else if ["votes", "amount", "voided", "voided_amount", "nch", "ndev"]
            .contains(&field.as_str())
        {
            n.insert(field.as_str(), count);
        } else {
            r.violation(key, format!("has the unknown field {field}"));
        }
    }
    let get = |f: &str| n.get(f).copied().unwrap_or(0);
    let votes = get("votes");
    let checks = [
        (get("voided") <= votes, "voided", "votes"),
        (
            get("voided_amount") <= get("amount"),
            "voided_amount",
            "amount",
        ),
        (get("amount") >= votes, "votes", "amount"),
        (ch <= votes, "the channels' counts", "votes"),
        (dev <= votes, "the devices' counts", "votes"),
    ];
    for (ok, a, b) in checks {
        if !ok {
            r.violation(key, format!("{a} exceed {b}"));
        }
    }
    for (field, named) in [("nch", named_ch), ("ndev", named_dev)] {
        if get(field) != named || named > FIELDS {
            r.violation(
                key,
                format!(
                    "{field} is {} for {named} named fields (at most {FIELDS})",
                    get(field)
                ),
            );
        }
    }
}
