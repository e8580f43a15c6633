//! A buffered campaign's buffers (docs/hot-campaigns.md), as
//! [`crate::check_campaign`] finds them (lua/src/lib/fold.lua): a list
//! `<ns>buf:B:O` a voted option, oldest first, of one tab-separated line a
//! pair; the sorted set `<ns>bufs` of those options, each scored by its
//! oldest line (arrived ms x 64 + place); the root's `buffered` (the pairs
//! in them all) and `fold_due` (present exactly while any is buffered).
//!
//! The boards are compared with nothing buffered: its pairs reach them
//! only when a fold takes them, and every call that changes settings or
//! takes votes back folds every buffer first. So each line is checked on
//! its own (it parses; its weight is its option's, which no configure can
//! have changed since it was accepted), and the boards' relations hold for
//! what was folded.

use std::collections::BTreeSet;

use redis::{ConnectionLike, RedisResult, Value};
use serde::Serialize;

use super::{
    exec, int, items, scan_checked, score_of, stored_int, text, time_of, Recheck, Report, PAGE,
};

/// The latest Unix ms the scripts store (15 digits, lib/fold).
const MS_MAX: i64 = 999999999999999;
/// The latest Unix second a vote may be dated (9999-12-31T23:59:59Z).
const TIME_MAX: i64 = 253402300799;
/// The last place of a pair in its vote (a vote names at most 50 pairs).
const PLACE_MAX: i64 = 49;
/// Options read in one `MULTI`/`EXEC`, with the first [`LINES`] lines of
/// each: a reply of at most about a thousand lines.
const OPTIONS_READ: usize = 20;
/// Lines of an option read with its score and length; the rest follow in
/// `LRANGE` pages of [`PAGE`].
const LINES: usize = 50;
/// The most options whose lengths are read in one `MULTI`/`EXEC` with the
/// root's `buffered`, to confirm a count that differs from their sum. A
/// vote folds once about a thousand pairs are buffered (lib/intake), so
/// this many options means folds that fail or fall behind.
const COUNTED_OPTIONS: usize = 5000;

/// A buffered campaign's buffers as the check read them: information, not
/// a violation (a lag beyond the campaign's `fold_ms` means no vote and no
/// fold came since; `redvote serve` folds in the background).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Buffer {
    /// Accepted pairs (a vote's board and option each) not yet on the
    /// boards: the lines of the buffers.
    pub pairs: u64,
    /// Options with pairs buffered (members of `<ns>bufs`).
    pub options: u64,
    /// How long the oldest of them has waited, ms (the fold lag, from the
    /// lowest score of `<ns>bufs`; `None` when nothing is buffered).
    pub fold_lag_ms: Option<u64>,
}

/// What the settings read at the start know of a buffered option.
pub(crate) enum Known {
    /// No board of that name.
    NoBoard,
    /// The board has no such option.
    NoOption,
    /// The option and its stored weight (`None`: corrupt, reported there).
    Weight(Option<i64>),
}

/// What [`check_buffer`] read: the report's [`Buffer`] (`None`: nothing
/// buffered on a campaign not buffered) and the options `<ns>bufs` listed,
/// whose lists it checked.
pub(crate) struct Buffers {
    pub(crate) buffer: Option<Buffer>,
    pub(crate) listed: BTreeSet<String>,
}

/// One line of an option's buffer: its arrival (Unix ms), its pair's place
/// in its vote and its weight.
struct Line {
    arrived: i64,
    place: i64,
    weight: i64,
}

/// Parse a buffered pair as `buffered_vote` (lib/fold.lua) does, as
/// strictly as the scripts write it: `1`, arrived ms, place (0..49), the
/// vote's Unix second, a user, a channel and a device ("" for none), and
/// the weight (an integer >= 1).
fn parse(line: &str) -> Result<Line, String> {
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() != 8 {
        return Err(format!("has {} tab-separated fields, not 8", f.len()));
    }
    if f[0] != "1" {
        return Err(format!("starts with {:?}, not the format 1", f[0]));
    }
    let arrived = stored_int(f[1], 0, MS_MAX)
        .ok_or_else(|| format!("arrived {:?} is not a Unix ms", f[1]))?;
    let place = stored_int(f[2], 0, PLACE_MAX)
        .ok_or_else(|| format!("place {:?} is not a place in a vote (0..49)", f[2]))?;
    stored_int(f[3], 0, TIME_MAX).ok_or_else(|| format!("time {:?} is not a Unix time", f[3]))?;
    if f[4].is_empty() {
        return Err("has no user".to_string());
    }
    let weight = (f[7].starts_with(|c: char| c != '0'))
        .then(|| stored_int(f[7], 1, i64::MAX))
        .flatten()
        .ok_or_else(|| format!("weight {:?} is not an integer >= 1", f[7]))?;
    Ok(Line {
        arrived,
        place,
        weight,
    })
}

/// A `<ns>bufs` member as the board and option it names (`B:O`, as
/// lib/fold matches it: no name holds a colon).
fn board_option(member: &str) -> Option<(&str, &str)> {
    let (board, option) = member.split_once(':')?;
    (!board.is_empty() && !option.is_empty() && !option.contains(':')).then_some((board, option))
}

/// The root's fields and `<ns>bufs`' head, read in one snapshot.
struct Root {
    /// `fold_due`, as stored.
    due: Option<String>,
    /// `mode` is "buffered".
    buffered: bool,
    /// `buffered`, the pairs buffered (`None`: not a count, reported).
    count: Option<i64>,
    /// Members of `<ns>bufs`.
    options: u64,
    /// The oldest buffered pair's arrival (the lowest score / 64).
    oldest: Option<i64>,
    /// The server's clock, Unix ms.
    now_ms: i64,
}

/// Check the buffers of the campaign `root` (namespace `ns`; `fold_ms` its
/// stored one, or the default): `<ns>bufs` a sorted set, the root's
/// `buffered` and `fold_due` ([`root_fields`]), nothing buffered on a
/// campaign not buffered, every listed option and its lines ([`option`]),
/// and `buffered` the sum of their lengths ([`pair_count`]). `known` tells
/// a listed option's weight as the settings read at the start hold it.
pub(crate) fn check_buffer(
    con: &mut dyn ConnectionLike,
    root: &str,
    ns: &str,
    fold_ms: i64,
    known: &dyn Fn(&str, &str) -> Known,
    r: &mut Report,
) -> RedisResult<Buffers> {
    let bufs = format!("{ns}bufs");
    let mut tally = Buffers {
        buffer: None,
        listed: BTreeSet::new(),
    };
    let Some(head) = read_root(con, root, &bufs, r)? else {
        return Ok(tally);
    };
    root_fields(root, &bufs, fold_ms, &head, r);
    let mut pairs = 0;
    scan_checked(con, "ZSCAN", &bufs, r, |con, page, r| {
        let members: Vec<String> = page
            .chunks(2)
            .filter_map(|p| String::from_utf8(p[0].clone()).ok())
            .collect();
        for chunk in members.chunks(OPTIONS_READ) {
            pairs += read_options(con, ns, chunk, known, &mut tally.listed, r)?;
        }
        Ok(())
    })?;
    if let Some(count) = head.count {
        pair_count(root, ns, count, pairs, &tally.listed, r);
    }
    let lag = head.oldest.map(|a| (head.now_ms - a).max(0) as u64);
    let any = head.buffered || pairs > 0 || !tally.listed.is_empty();
    tally.buffer = any.then_some(Buffer {
        pairs,
        options: tally.listed.len() as u64,
        fold_lag_ms: lag,
    });
    Ok(tally)
}

/// The root's fields, `<ns>bufs`' type, size and head and the clock, in
/// one `MULTI`/`EXEC`; `None` when `<ns>bufs` is of another type
/// (reported).
fn read_root(
    con: &mut dyn ConnectionLike,
    root: &str,
    bufs: &str,
    r: &mut Report,
) -> RedisResult<Option<Root>> {
    let mut pipe = redis::pipe();
    pipe.cmd("TYPE").arg(bufs);
    pipe.cmd("ZCARD").arg(bufs);
    pipe.cmd("ZRANGE").arg(bufs).arg(0).arg(0).arg("WITHSCORES");
    pipe.cmd("HMGET")
        .arg(root)
        .arg("fold_due")
        .arg("mode")
        .arg("buffered");
    pipe.cmd("TIME");
    let got = exec(con, &mut pipe)?;
    let kind = text(&got[0]).unwrap_or_default();
    if kind != "zset" && kind != "none" {
        r.violation(
            bufs,
            format!("is a {kind}, not a sorted set of the options with pairs buffered"),
        );
        return Ok(None);
    }
    let fields = items(&got[3]);
    let field = |i: usize| fields.get(i).and_then(text);
    let count = match field(2) {
        None => Some(0),
        Some(c) => {
            let n = stored_int(&c, 0, MS_MAX);
            if n.is_none() {
                r.violation(root, format!("buffered {c:?} is not a count of pairs"));
            }
            n
        }
    };
    let oldest = items(&got[2])
        .get(1)
        .and_then(text)
        .and_then(|s| score_of(&s))
        .filter(|s| s.is_finite())
        .map(|s| (s / 64.0).floor() as i64);
    Ok(Some(Root {
        due: field(0),
        buffered: field(1).as_deref() == Some("buffered"),
        count,
        options: int(&got[1]).unwrap_or(0).max(0) as u64,
        oldest,
        now_ms: time_of(&got[4]).map_or(0, |(s, us)| s * 1000 + us / 1000),
    }))
}

/// `fold_due` present exactly while `<ns>bufs` lists an option, `fold_ms`
/// after the oldest buffered pair arrived (lib/fold sets it so); no option
/// listed on a campaign not buffered.
fn root_fields(root: &str, bufs: &str, fold_ms: i64, head: &Root, r: &mut Report) {
    let n = head.options;
    if n > 0 && !head.buffered {
        r.violation(
            bufs,
            format!("lists {n} option(s), but the campaign is not buffered: no fold takes them"),
        );
    }
    match (n, &head.due) {
        (0, Some(d)) => r.violation(
            root,
            format!("fold_due {d:?} with nothing buffered ({bufs} empty): only a buffered vote sets it"),
        ),
        (1.., None) => r.violation(
            root,
            format!("has no fold_due, but {bufs} lists {n} option(s): no vote would fold them"),
        ),
        (1.., Some(d)) => match (stored_int(d, 0, MS_MAX), head.oldest) {
            (None, _) => r.violation(root, format!("fold_due {d:?} is not a Unix ms")),
            (Some(d), Some(arrived)) if d != arrived + fold_ms => r.violation(
                root,
                format!(
                    "fold_due {d} is not the oldest buffered pair's arrival {arrived} + fold_ms {fold_ms}"
                ),
            ),
            _ => {}
        },
        _ => {}
    }
}

/// A chunk of `<ns>bufs` members: each one's score, type, length and first
/// [`LINES`] lines in one `MULTI`/`EXEC`, then [`option`]. A member gone
/// since `ZSCAN` (folded) is skipped, one `ZSCAN` returned twice read
/// once. Returns the pairs their lists hold.
fn read_options(
    con: &mut dyn ConnectionLike,
    ns: &str,
    members: &[String],
    known: &dyn Fn(&str, &str) -> Known,
    listed: &mut BTreeSet<String>,
    r: &mut Report,
) -> RedisResult<u64> {
    let bufs = format!("{ns}bufs");
    let mut pipe = redis::pipe();
    for m in members {
        let key = format!("{ns}buf:{m}");
        pipe.cmd("ZSCORE").arg(&bufs).arg(m);
        pipe.cmd("TYPE").arg(&key);
        pipe.cmd("LLEN").arg(&key);
        pipe.cmd("LRANGE").arg(&key).arg(0).arg(LINES - 1);
    }
    let got = exec(con, &mut pipe)?;
    let mut pairs = 0;
    for (m, got) in members.iter().zip(got.chunks(4)) {
        let Some(score) = text(&got[0]) else {
            continue; // folded since ZSCAN
        };
        if listed.insert(m.clone()) {
            pairs += option(con, ns, (m, &score), got, known, r)?;
        }
    }
    Ok(pairs)
}

/// One option `<ns>bufs` lists (`member` and its score, `got` its reads):
/// it names a board and option of the campaign (else a suspect, read again
/// at the end), its list exists and is not empty, its score is its first
/// line's arrival x 64 + place, and every line parses with the option's
/// weight ([`Lines`]). Returns the list's length.
fn option(
    con: &mut dyn ConnectionLike,
    ns: &str,
    (member, score): (&str, &str),
    got: &[Value],
    known: &dyn Fn(&str, &str) -> Known,
    r: &mut Report,
) -> RedisResult<u64> {
    let bufs = format!("{ns}bufs");
    let key = format!("{ns}buf:{member}");
    r.count("buffered_options", 1);
    let Some((board, option)) = board_option(member) else {
        let what = format!("lists {:?}, not a BOARD:OPTION", clip(member));
        r.violation(&bufs, what);
        return Ok(0);
    };
    match text(&got[1]).unwrap_or_default().as_str() {
        "list" => {}
        "none" => {
            let what = format!("lists {member}, but {key} is empty: nothing to fold");
            r.violation(&bufs, what);
            return Ok(0);
        }
        kind => {
            r.violation(&key, format!("is a {kind}, not a list of buffered pairs"));
            return Ok(0);
        }
    }
    let weight = match known(board, option) {
        Known::Weight(w) => w,
        Known::NoBoard | Known::NoOption => {
            unknown_option(ns, (board, option), r);
            None
        }
    };
    let first = items(&got[3]);
    if let Some(head) = first.first().and_then(text).and_then(|l| parse(&l).ok()) {
        let want = head.arrived * 64 + head.place;
        if score_of(score) != Some(want as f64) {
            let what = format!(
                "scores {member} {score}, not its oldest line's arrival {} x 64 + place {} = {want}",
                head.arrived, head.place
            );
            r.violation(&bufs, what);
        }
    }
    let n = int(&got[2]).unwrap_or(0).max(0) as u64;
    let mut lines = Lines {
        key,
        option: (board, option),
        weight,
        other: None,
    };
    lines.page(0, first, r);
    let mut at = first.len() as u64;
    while at < n {
        let page: Vec<Value> = redis::cmd("LRANGE")
            .arg(&lines.key)
            .arg(at)
            .arg(at + PAGE as u64 - 1)
            .query::<Value>(con)
            .map(|v| items(&v).to_vec())?;
        if page.is_empty() {
            break;
        }
        lines.page(at, &page, r);
        at += page.len() as u64;
    }
    lines.finish(ns, r);
    Ok(n)
}

/// A listed option the settings read at the start lack: a suspect (a
/// configure since may have added it), reported if `<ns>bufs` still lists
/// it when its board and option are read again.
fn unknown_option(ns: &str, (board, option): (&str, &str), r: &mut Report) {
    let member = format!("{board}:{option}");
    let mut reads = redis::pipe();
    reads.cmd("ZSCORE").arg(format!("{ns}bufs")).arg(&member);
    reads.cmd("SISMEMBER").arg(format!("{ns}boards")).arg(board);
    reads
        .cmd("HEXISTS")
        .arg(format!("{ns}weights:{board}"))
        .arg(option);
    let (board, option) = (board.to_string(), option.to_string());
    r.suspect(
        format!("{ns}bufs"),
        Recheck::new(reads, move |got| {
            text(&got[0])?;
            if int(&got[1]) != Some(1) {
                return Some(format!(
                    "lists {member}: board {board:?} is not a board of the campaign"
                ));
            }
            (int(&got[2]) != Some(1))
                .then(|| format!("lists {member}: {option:?} is not an option of board {board}"))
        }),
    );
}

/// The lines of one option's buffer, read page by page: a fold between two
/// pages shifts them (some are then read twice or not at all), which can
/// hide a bad line but never invent one.
struct Lines<'a> {
    key: String,
    option: (&'a str, &'a str),
    /// The option's weight as read at the start (`None`: unknown).
    weight: Option<i64>,
    /// The first line of another weight: its entry and weight.
    other: Option<(u64, i64)>,
}

impl Lines<'_> {
    /// The lines from entry `at`: each parses; its weight is the option's.
    fn page(&mut self, at: u64, page: &[Value], r: &mut Report) {
        for (i, v) in page.iter().enumerate() {
            let entry = at + i as u64;
            let line = text(v).unwrap_or_default();
            r.count("buffered_pairs", 1);
            match parse(&line) {
                Err(what) => r.violation(
                    &self.key,
                    format!(
                        "entry {entry} {:?} is not a buffered pair: {what}",
                        clip(&line)
                    ),
                ),
                Ok(l) if self.other.is_none() && self.weight.is_some_and(|w| w != l.weight) => {
                    self.other = Some((entry, l.weight));
                }
                Ok(_) => {}
            }
        }
    }

    /// A line of another weight than the settings read at the start give
    /// the option: a suspect (a configure since may have changed it, and
    /// the votes after it carry the new one), read again at the end.
    fn finish(self, ns: &str, r: &mut Report) {
        let Some((entry, weight)) = self.other else {
            return;
        };
        let (board, option) = (self.option.0.to_string(), self.option.1.to_string());
        let mut reads = redis::pipe();
        reads
            .cmd("HGET")
            .arg(format!("{ns}weights:{board}"))
            .arg(&option);
        r.suspect(
            self.key,
            Recheck::new(reads, move |got| {
                let w = text(&got[0])?;
                (stored_int(&w, 1, 1000000) != Some(weight)).then(|| {
                    format!(
                        "entry {entry}: weight {weight} of {board}:{option}, which weighs {w} \
                         (a configure folds the buffers first: a buffered pair has its option's weight)"
                    )
                })
            }),
        );
    }
}

/// The root's `buffered` against `pairs`, the lengths of the `listed`
/// options' lists as the pages read them: when they differ, a suspect read
/// again at the end with every list's length in one `MULTI`/`EXEC`,
/// reported if `<ns>bufs` still lists those options and no others (counted
/// as `buffered_count_unconfirmed`, not read, beyond [`COUNTED_OPTIONS`]).
fn pair_count(
    root: &str,
    ns: &str,
    count: i64,
    pairs: u64,
    listed: &BTreeSet<String>,
    r: &mut Report,
) {
    if count as u64 == pairs {
        return;
    }
    if listed.len() > COUNTED_OPTIONS {
        r.count("buffered_count_unconfirmed", 1);
        return;
    }
    let bufs = format!("{ns}bufs");
    let mut reads = redis::pipe();
    reads.cmd("HGET").arg(root).arg("buffered");
    reads.cmd("ZCARD").arg(&bufs);
    for m in listed {
        reads.cmd("LLEN").arg(format!("{ns}buf:{m}"));
    }
    if !listed.is_empty() {
        let zmscore = reads.cmd("ZMSCORE").arg(&bufs);
        for m in listed {
            zmscore.arg(m);
        }
    }
    let n = listed.len();
    r.suspect(
        root,
        Recheck::new(reads, move |got| {
            let count = match text(&got[0]) {
                None => 0,
                Some(c) => stored_int(&c, 0, MS_MAX)?,
            };
            let same = int(&got[1]) == Some(n as i64)
                && got
                    .get(2 + n)
                    .is_none_or(|v| items(v).iter().all(|s| text(s).is_some()));
            let sum: i64 = got[2..2 + n].iter().map(|v| int(v).unwrap_or(0)).sum();
            (same && sum != count).then(|| {
                format!(
                    "buffered {count} is not the {sum} pair(s) the {n} buffer(s) of {bufs} hold"
                )
            })
        }),
    );
}

/// The `<ns>buf:*` keys the check's `SCAN` found: each is the list of an
/// option `<ns>bufs` lists (those it read are checked already; another is
/// a suspect, read again at the end with its member); a key of another
/// shape is none a fold reads.
pub(crate) fn unlisted_buffers(
    ns: &str,
    keys: Vec<String>,
    listed: &BTreeSet<String>,
    r: &mut Report,
) {
    for key in keys {
        let member = key
            .strip_prefix(ns)
            .and_then(|k| k.strip_prefix("buf:"))
            .filter(|m| board_option(m).is_some());
        let Some(member) = member.map(str::to_string) else {
            r.violation(
                &key,
                "is not an option's buffer (buf:BOARD:OPTION): no fold reads it",
            );
            continue;
        };
        if listed.contains(&member) {
            continue;
        }
        let bufs = format!("{ns}bufs");
        let mut reads = redis::pipe();
        reads.cmd("EXISTS").arg(&key);
        reads.cmd("ZSCORE").arg(&bufs).arg(&member);
        r.suspect(
            key,
            Recheck::new(reads, move |got| {
                (int(&got[0]) == Some(1) && text(&got[1]).is_none()).then(|| {
                    format!("holds buffered pairs, but {bufs} does not list {member}: no fold takes them")
                })
            }),
        );
    }
}

/// At most 80 characters of a bad line, for a message.
fn clip(s: &str) -> String {
    s.chars().take(80).collect()
}
