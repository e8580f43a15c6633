//! A buffered campaign's buffer (docs/hot-campaigns.md), as
//! [`crate::check_campaign`] finds it: `<ns>buf` a list of accepted votes
//! not yet on the boards, one tab-separated line a vote (lua/src/lib/fold.lua),
//! and the root's `fold_due` present exactly while it holds any.
//!
//! The boards are compared with nothing in the buffer: its votes reach them
//! only when a fold takes them, and every call that changes settings or
//! takes votes back folds the whole buffer first. So each line is checked
//! on its own (it parses; its board and option exist; its weight is the
//! option's, which no configure can have changed since it was accepted),
//! and the boards' relations hold for what was folded.

use redis::{ConnectionLike, RedisResult, Value};
use serde::Serialize;

use super::{exec, int, items, stored_int, text, time_of, Recheck, Report, PAGE};

/// The latest Unix ms the scripts store (15 digits, lib/fold).
const MS_MAX: i64 = 999999999999999;
/// The latest Unix second a vote may be dated (9999-12-31T23:59:59Z).
const TIME_MAX: i64 = 253402300799;

/// A buffered campaign's buffer as the check read it: information, not a
/// violation (a lag beyond the campaign's `fold_ms` means no vote and no
/// fold came since; `redvote serve` folds in the background).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Buffer {
    /// Accepted votes not yet on the boards (`LLEN <ns>buf`).
    pub votes: u64,
    /// How long the oldest of them has waited, ms (the fold lag; `None`
    /// when the buffer is empty or its oldest line does not parse).
    pub fold_lag_ms: Option<u64>,
}

/// What the settings read at the start know of a buffered vote's pair.
pub(crate) enum Known {
    /// No board of that name.
    NoBoard,
    /// The board has no such option.
    NoOption,
    /// The option and its stored weight (`None`: corrupt, reported there).
    Weight(Option<i64>),
}

/// One line of `<ns>buf` as a vote: its arrival (Unix ms) and its
/// (board, option, weight) pairs; else what is wrong with it.
struct Line<'a> {
    arrived: i64,
    pairs: Vec<(&'a str, &'a str, i64)>,
}

/// Parse a buffered vote as `buffered_vote` (lib/fold.lua) does, as
/// strictly as the scripts write it: `1`, arrived ms, the vote's Unix
/// second, a user, a channel and a device ("" for none), then board,
/// option, weight (an integer >= 1) for each pair.
fn parse(line: &str) -> Result<Line<'_>, String> {
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() < 9 || !(f.len() - 6).is_multiple_of(3) {
        return Err(format!(
            "has {} tab-separated fields, not 6 + 3 a pair",
            f.len()
        ));
    }
    if f[0] != "1" {
        return Err(format!("starts with {:?}, not the format 1", f[0]));
    }
    let arrived = stored_int(f[1], 0, MS_MAX)
        .ok_or_else(|| format!("arrived {:?} is not a Unix ms", f[1]))?;
    stored_int(f[2], 0, TIME_MAX).ok_or_else(|| format!("time {:?} is not a Unix time", f[2]))?;
    if f[3].is_empty() {
        return Err("has no user".to_string());
    }
    let mut pairs = Vec::new();
    for p in f[6..].chunks(3) {
        let weight = (p[2].starts_with(|c: char| c != '0'))
            .then(|| stored_int(p[2], 1, i64::MAX))
            .flatten()
            .ok_or_else(|| {
                format!(
                    "weight {:?} of {}:{} is not an integer >= 1",
                    p[2], p[0], p[1]
                )
            })?;
        pairs.push((p[0], p[1], weight));
    }
    Ok(Line { arrived, pairs })
}

/// Check the buffer of the campaign `root` (namespace `ns`; `fold_ms` its
/// stored one, or the default): its type, `fold_due` present exactly while
/// it holds votes and due `fold_ms` after the oldest one arrived, no vote
/// left buffered on a campaign not buffered, and every line
/// ([`parse`], `known` for its pairs: a pair the settings read at the
/// start do not know is a suspect, read again at the end). Returns the
/// buffer's size and lag (`None`: nothing buffered on an immediate
/// campaign).
pub(crate) fn check_buffer(
    con: &mut dyn ConnectionLike,
    root: &str,
    ns: &str,
    fold_ms: i64,
    known: &dyn Fn(&str, &str) -> Known,
    r: &mut Report,
) -> RedisResult<Option<Buffer>> {
    let buf = format!("{ns}buf");
    // the buffer's head and length with the root's fields, in one snapshot
    let mut pipe = redis::pipe();
    pipe.cmd("TYPE").arg(&buf);
    pipe.cmd("LLEN").arg(&buf);
    pipe.cmd("LINDEX").arg(&buf).arg(0);
    pipe.cmd("HMGET").arg(root).arg("fold_due").arg("mode");
    pipe.cmd("TIME");
    let got = exec(con, &mut pipe)?;
    let kind = text(&got[0]).unwrap_or_default();
    let fields = items(&got[3]);
    let (due, mode) = (fields.first().and_then(text), fields.get(1).and_then(text));
    let buffered = mode.as_deref() == Some("buffered");
    if kind != "list" && kind != "none" {
        r.violation(&buf, format!("is a {kind}, not a list of buffered votes"));
        return Ok(None);
    }
    let n = int(&got[1]).unwrap_or(0).max(0) as u64;
    if n == 0 && !buffered && due.is_none() {
        return Ok(None);
    }
    let now_ms = time_of(&got[4]).map_or(0, |(s, us)| s * 1000 + us / 1000);
    let head = text(&got[2]).and_then(|l| parse(&l).ok().map(|l| l.arrived));
    let lag = head.map(|arrived| (now_ms - arrived).max(0) as u64);
    if n > 0 && !buffered {
        r.violation(
            &buf,
            format!("holds {n} vote(s), but the campaign is not buffered: no fold takes them"),
        );
    }
    match (n, &due) {
        (0, Some(d)) => r.violation(
            root,
            format!("fold_due {d:?} with an empty {buf}: only a buffered vote sets it"),
        ),
        (1.., None) => r.violation(
            root,
            format!("has no fold_due, but {buf} holds {n} vote(s): no vote would fold them"),
        ),
        (1.., Some(d)) => match (stored_int(d, 0, MS_MAX), head) {
            (None, _) => r.violation(root, format!("fold_due {d:?} is not a Unix ms")),
            (Some(d), Some(arrived)) if d != arrived + fold_ms => r.violation(
                root,
                format!(
                    "fold_due {d} is not the oldest buffered vote's arrival {arrived} + fold_ms {fold_ms}"
                ),
            ),
            _ => {}
        },
        _ => {}
    }
    lines(con, &buf, n, known, r)?;
    Ok((buffered || n > 0).then_some(Buffer {
        votes: n,
        fold_lag_ms: lag,
    }))
}

/// Every line of `buf` (about `n`), in `LRANGE` pages of [`PAGE`]: a fold
/// between two pages shifts the lines (some are then read twice or not at
/// all), which can hide a bad line but never invent one.
fn lines(
    con: &mut dyn ConnectionLike,
    buf: &str,
    n: u64,
    known: &dyn Fn(&str, &str) -> Known,
    r: &mut Report,
) -> RedisResult<()> {
    let mut at = 0;
    while at < n {
        let page: Vec<Value> = redis::cmd("LRANGE")
            .arg(buf)
            .arg(at)
            .arg(at + PAGE as u64 - 1)
            .query::<Value>(con)
            .map(|v| items(&v).to_vec())?;
        if page.is_empty() {
            break;
        }
        for (i, v) in page.iter().enumerate() {
            let entry = at + i as u64;
            let line = text(v).unwrap_or_default();
            r.count("buffered_votes", 1);
            match parse(&line) {
                Err(what) => r.violation(
                    buf,
                    format!(
                        "entry {entry} {:?} is not a buffered vote: {what}",
                        clip(&line)
                    ),
                ),
                Ok(vote) => {
                    for (board, option, weight) in vote.pairs {
                        pair(buf, entry, (board, option, weight), known, r);
                    }
                }
            }
        }
        at += page.len() as u64;
    }
    Ok(())
}

/// One pair of a buffered vote against the settings: a board or option
/// they lack, or another weight, is a suspect (a configure since the start
/// may have added it), read again at the end.
fn pair(
    buf: &str,
    entry: u64,
    (board, option, weight): (&str, &str, i64),
    known: &dyn Fn(&str, &str) -> Known,
    r: &mut Report,
) {
    match known(board, option) {
        Known::Weight(w) if w.is_none_or(|w| w == weight) => return,
        _ => {}
    }
    let ns = &buf[..buf.len() - "buf".len()];
    let mut reads = redis::pipe();
    reads.cmd("SISMEMBER").arg(format!("{ns}boards")).arg(board);
    reads
        .cmd("HGET")
        .arg(format!("{ns}weights:{board}"))
        .arg(option);
    let (board, option) = (board.to_string(), option.to_string());
    r.suspect(
        buf,
        Recheck::new(reads, move |got| {
            let at = format!("entry {entry}");
            if int(&got[0]) != Some(1) {
                return Some(format!(
                    "{at}: board {board:?} is not a board of the campaign"
                ));
            }
            let Some(w) = got.get(1).and_then(text) else {
                return Some(format!(
                    "{at}: {option:?} is not an option of board {board}"
                ));
            };
            (stored_int(&w, 1, 1000000) != Some(weight)).then(|| {
                format!(
                    "{at}: weight {weight} of {board}:{option}, which weighs {w} \
                     (a configure folds the buffer first: a buffered vote has its option's weight)"
                )
            })
        }),
    );
}

/// At most 80 characters of a bad line, for a message.
fn clip(s: &str) -> String {
    s.chars().take(80).collect()
}
