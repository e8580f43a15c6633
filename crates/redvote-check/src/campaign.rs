//! [`check_campaign`]: a campaign's invariants.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// How long after the campaign's end its campaign-window counter hashes
/// expire (`COUNTER_GRACE` in `lua/src/lib/campaign.lua`).
pub(crate) const COUNTER_GRACE: i64 = 604800;

use redis::{ConnectionLike, RedisResult, Value};

use super::{
    error_of, exec, int, items, scan_checked, scan_keys, score_of, stored_int, text, time_of,
    Recheck, Report, PAGE,
};
use crate::buffer::{check_buffer, unlisted_buffers, Known};
use crate::calendar::{calendar_period, kind_name, parse_period, period};
use redvote::Campaign;
use redvote::Period;

/// The widest move of a period's start an offset change can make (from
/// -14:00 to +14:00): a period whose start, read in the current offset, is
/// this long after the last `configure` holds no vote from before it.
const OFFSET_SPAN: i64 = 2 * 50400;
/// The latest time a campaign setting may hold (9999-12-31T23:59:59Z).
const TIME_MAX: i64 = 253402300799;
/// Scores beyond 2^53 are not exact integers.
const COUNT_MAX: i64 = 9007199254740991;

/// The buckets of a fixed-window rule that counts by user (campaign layout
/// 3): `LIMIT_BUCKETS` in lua/src/lib/limits.lua.
const LIMIT_BUCKETS: i64 = 256;

/// The bucket of a user (`limit_plan` in lua/src/lib/limits.lua): the
/// first 32 bits of the SHA1 of its id, modulo [`LIMIT_BUCKETS`].
pub fn limit_bucket(user: &str) -> i64 {
    let digest = sha1_smol::Sha1::from(user.as_bytes()).digest().bytes();
    i64::from(u32::from_be_bytes([
        digest[0], digest[1], digest[2], digest[3],
    ])) % LIMIT_BUCKETS
}

/// Check every invariant of `campaign` (see docs/checking.md, "Checking a data
/// set"), reading only.
///
/// Always checked:
/// - stored settings parse as the scripts parse them (`<ns>campaign`:
///   offset, start < end, `limits` JSON, `denying`, `updated`; each
///   `<ns>board:B`; weights 1..1000000; imported amounts; `<ns>seq`);
/// - every board score is finite; real boards hold whole counts >= 1;
///   every member of a board is an option of it or pending removal (in
///   `<ns>removing:B`, which holds no option of the board); a member of
///   `real:P` is on `shown:P`;
/// - every period board (`<ns>b:B:KIND:P`) and its "first" side key is
///   listed in `<ns>periods:B` and expires exactly when the index records
///   (0: never); a listed board that has not expired exists;
/// - a "first" side key (`<ns>f:...`) has a board beside it, holds only
///   members of it, with vote sequence numbers in 1..`seq`;
/// - the order side keys of `lua/src/lib/order.lua` (`<ns>o:...` of ties
///   first, `<ns>d:...` of dense) belong to the tie rule in effect or to a
///   pending one (`ties_next`: a switch not reindexed yet), every entry
///   agrees with its board; those of the rule in effect are complete (the
///   reads rank by them), those of a pending rule need not be yet;
/// - fixed-window rate counters hold counts >= 1 and expire (the
///   campaign-window hash `<ns>rl:RULE:campaign` exactly at the campaign's
///   `end`, never without one); a rolling counter holds a well-formed
///   theoretical arrival time (TAT) and expires one second after it; a
///   voter's hash `<ns>rlu:USER` holds `END:COUNT:WINDOW` fields whose END ends a
///   window of their rule, or TATs, and expires exactly at its `@` field,
///   no earlier than its latest counter; a bucket `<ns>rlb:RULE:WINDOW:N`
///   (campaign layout 3) is a hash of a fixed-window rule that counts by
///   user, N the bucket of each of its users (SHA1, [`limit_bucket`]), its
///   fields subjects of the rule holding counts >= 1 (settled: within the
///   allowance), and expires as its window ends;
/// - the statistics (docs/statistics.md): each `<ns>st:B:P` (P an hour or
///   a day) a hash of known fields and whole counts, `voided` <= `votes`
///   <= `amount`, `voided_amount` <= `amount`, the channels' and devices'
///   counts within `votes`, `nch` / `ndev` the number of named fields (at
///   most 32); `<ns>sp:P` a HyperLogLog, `<ns>sn:P` a count, `<ns>log` a
///   stream;
/// - a buffered campaign (`mode`, `fold_ms`, `folded`; layout 4 exactly
///   when buffered): each member `B:O` of `<ns>bufs` names a board and an
///   option of the campaign, its list `<ns>buf:B:O` is not empty and its
///   score is the list's first line's arrival x 64 + place; each line
///   parses and carries the option's weight; every `<ns>buf:*` list is
///   listed; the root's `buffered` is the sum of the lists' lengths and
///   `fold_due` is there exactly while anything is buffered, `fold_ms`
///   after the oldest pair arrived ([`crate::Buffer`] reports the pairs,
///   options and fold lag). The boards are compared with nothing
///   buffered: its pairs are on them only once folded.
///
/// Checked where the settings they depend on are known to hold for the data
/// ("settled": no `configure` since the votes were cast; `updated` records
/// the last one): the whole campaign when its `start` is later than
/// `updated` (no vote can predate the last change); otherwise a period
/// board whose period starts more than 28 h (the widest offset change)
/// after `updated`, a second or minute window that starts after it. This
/// reads votes as cast on the server's clock: a vote at an explicit time
/// (`Campaign::at`, the test and import path) sent before a `configure`
/// but dated after it escapes the rule.
/// - shown == real x weight x 10^decimals units, + real votes of the
///   period before x the rounded carried share (carry > 0; exact when the
///   period before is also settled and its real board still exists or never
///   did), + the imported amount on the total board; period boards of an
///   option with imported votes are not compared (an import adds to the
///   periods current when it runs, which no key records);
/// - otherwise the weaker relation that holds whatever the history (every
///   weight >= 1, carry >= 0): shown >= real (+ imported, on total; within
///   one unit, for a rounding after a change of `decimals`);
/// - a period's real count <= the total real count; a board with ties
///   `first` has a side key entry for every member; a period board's
///   recorded expiry is the end of its period + the board's retention;
///   a shown score has at most `decimals` decimals;
/// - a counter within its rule's allowance: `limit` (a rolling rule:
///   `burst`) + the extra of the counter's channel (of any channel when the
///   rule does not count by channel); a rolling TAT at most allowance x
///   interval after now; counters expire exactly at their window's end.
///
/// Not checked: participant HyperLogLogs (approximate by design), display
/// data, deny lists; counters of rules no longer configured.
///
/// On Redis Cluster the check fails (an error of kind `TryAgain` saying
/// so) while the campaign's slot migrates: the node would hold part of the
/// keys.
pub fn check_campaign(con: &mut dyn ConnectionLike, campaign: &Campaign) -> RedisResult<Report> {
    super::on_stable_slot(con, campaign.root_key(), |con| check(con, campaign))
}

fn check(con: &mut dyn ConnectionLike, campaign: &Campaign) -> RedisResult<Report> {
    let ns = campaign.namespace();
    let mut r = Report::new(super::target("campaign", ns));
    let Some(c) = settings(con, campaign.root_key(), &mut r)? else {
        return Ok(r.finish());
    };
    let seq = read_seq(con, ns, &mut r)?;
    let boards = boards(con, ns, &mut r)?;
    let known = |board: &str, option: &str| match boards.get(board) {
        None => Known::NoBoard,
        Some(b) => b
            .weights
            .get(option)
            .map_or(Known::NoOption, |w| Known::Weight(*w)),
    };
    let buffers = check_buffer(con, campaign.root_key(), ns, c.fold_ms, &known, &mut r)?;
    r.buffer = buffers.buffer;
    let mut scan = Scan {
        ns,
        c,
        seq,
        boards,
        board_keys: BTreeMap::new(),
        first_keys: Vec::new(),
        order_keys: Vec::new(),
        counters: Vec::new(),
        voters: Vec::new(),
        buckets: Vec::new(),
        stats: Vec::new(),
        pending: Vec::new(),
        removed: Vec::new(),
        buffers: Vec::new(),
    };
    r.keys_scanned = scan_keys(con, ns, |con, keys| {
        for key in keys {
            scan.classify(key, &mut r);
        }
        if scan.counters.len() >= PAGE {
            for page in std::mem::take(&mut scan.counters).chunks(PAGE) {
                scan.counters(con, page, &mut r)?;
            }
        }
        if scan.voters.len() >= PAGE {
            for page in std::mem::take(&mut scan.voters).chunks(PAGE) {
                scan.voters(con, page, &mut r)?;
            }
        }
        if scan.buckets.len() >= PAGE {
            for page in std::mem::take(&mut scan.buckets).chunks(PAGE) {
                scan.buckets(con, page, &mut r)?;
            }
        }
        if scan.stats.len() >= PAGE {
            for page in std::mem::take(&mut scan.stats).chunks(PAGE) {
                crate::stats::check_stats(con, ns, page, &mut r)?;
            }
        }
        Ok(())
    })?;
    for page in std::mem::take(&mut scan.counters).chunks(PAGE) {
        scan.counters(con, page, &mut r)?;
    }
    for page in std::mem::take(&mut scan.voters).chunks(PAGE) {
        scan.voters(con, page, &mut r)?;
    }
    for page in std::mem::take(&mut scan.buckets).chunks(PAGE) {
        scan.buckets(con, page, &mut r)?;
    }
    for page in std::mem::take(&mut scan.stats).chunks(PAGE) {
        crate::stats::check_stats(con, ns, page, &mut r)?;
    }
    for (board, key) in std::mem::take(&mut scan.removed) {
        removed_options(con, ns, &board, &key, &mut r)?;
    }
    let keys = std::mem::take(&mut scan.board_keys);
    let mut pending = std::mem::take(&mut scan.pending);
    for (id, key) in &keys {
        scan.board_key(con, id, key, &mut pending, &mut r)?;
    }
    for (board, kind, p, key) in std::mem::take(&mut scan.first_keys) {
        let beside = keys.get(&(board.clone(), kind.clone(), p.clone()));
        scan.first_key(con, &board, &kind, &p, &key, beside.is_some(), &mut r)?;
    }
    for (letter, board, kind, p, key) in std::mem::take(&mut scan.order_keys) {
        let beside = keys.get(&(board.clone(), kind.clone(), p.clone()));
        let side = (letter, board.as_str(), kind.as_str(), p.as_str());
        scan.order_key(con, side, &key, beside.is_some(), &mut r)?;
    }
    scan.listed_boards_exist(con, &keys, &mut r)?;
    unlisted_buffers(
        ns,
        std::mem::take(&mut scan.buffers),
        &buffers.listed,
        &mut r,
    );
    confirm(ns, pending, &mut r);
    r.confirm(con)?;
    Ok(r.finish())
}

/// The pending keys, whose board or option the settings read at the start
/// lack, as suspects ([`Report`]): the key and its board or option read
/// again together at the end (configure may have added it since, or the
/// key may be gone with the board).
fn confirm(ns: &str, pending: Vec<(String, Missing)>, r: &mut Report) {
    for (key, missing) in pending {
        // the key, or the option's entry on a board
        let mut reads = redis::pipe();
        let entry = matches!(&missing, Missing::Option(..)) && key.starts_with(&format!("{ns}b:"));
        match &missing {
            Missing::Option(_, o) if entry => reads.cmd("ZSCORE").arg(&key).arg(o),
            _ => reads.cmd("EXISTS").arg(&key),
        };
        match &missing {
            Missing::Board(b) => reads.cmd("SISMEMBER").arg(format!("{ns}boards")).arg(b),
            Missing::Option(b, o) => reads.cmd("HEXISTS").arg(format!("{ns}weights:{b}")).arg(o),
        };
        // (a board entry of an option removed since the start: pending,
        // not a stranger; its display data and participants go at once)
        if let (Missing::Option(b, o), true) = (&missing, entry) {
            reads
                .cmd("SISMEMBER")
                .arg(format!("{ns}removing:{b}"))
                .arg(o);
        }
        let what = match missing {
            Missing::Board(b) => format!("belongs to board {b:?}, which is not in {ns}boards"),
            Missing::Option(b, o) if key.starts_with(&format!("{ns}b:")) => {
                format!("{o} is not an option of board {b}")
            }
            Missing::Option(b, o) => {
                format!("belongs to option {o:?}, which board {b} does not have")
            }
        };
        r.suspect(
            key,
            Recheck::new(reads, move |got| {
                let here = match entry {
                    true => text(&got[0]).is_some(),
                    false => int(&got[0]) == Some(1),
                };
                let pending = got.get(2).is_some_and(|v| int(v) == Some(1));
                (here && int(&got[1]) == Some(0) && !pending).then(|| what.clone())
            }),
        );
    }
}

/// A rate-limit rule's window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RuleWindow {
    Second,
    Minute,
    Period(Period),
    Campaign,
    Rolling,
}

/// A fixed-window counter's window: its start and end (`None`: the
/// campaign).
type Window = Option<(i64, i64)>;

/// A rate-limit rule as stored (the normalized JSON campaign_configure
/// writes).
#[derive(Debug, Clone)]
struct Rule {
    window: RuleWindow,
    by: Vec<String>,
    /// `limit` of a fixed rule, `burst` of a rolling one.
    allowance: i64,
    /// A rolling rule's `limit` and `per`.
    limit: i64,
    per: i64,
    extra: BTreeMap<String, i64>,
}

impl RuleWindow {
    /// The window's name as the rule stores it (and the scripts write it
    /// after a voter counter's END:COUNT).
    fn name(&self) -> &'static str {
        match self {
            RuleWindow::Second => "second",
            RuleWindow::Minute => "minute",
            RuleWindow::Period(kind) => kind.as_str(),
            RuleWindow::Campaign => "campaign",
            RuleWindow::Rolling => "rolling",
        }
    }
}

impl Rule {
    /// What one counter of this rule may reach: the allowance plus the
    /// extra of `channel` (of the most generous channel when the rule does
    /// not count by channel).
    fn allowance(&self, channel: Option<&str>) -> i64 {
        let extra = match channel {
            Some(c) => self.extra.get(c).copied().unwrap_or(0),
            None => self.extra.values().copied().max().unwrap_or(0),
        };
        self.allowance + extra
    }

    /// A counter's subject (`limit_subject` in lib/limits.lua): one
    /// length-prefixed value per dimension (two, board and option, for
    /// `option`), joined with `|`. Returns the channel when the rule counts
    /// by channel; `None` when `s` is not such a subject.
    fn subject<'s>(&self, s: &'s str) -> Option<Option<&'s str>> {
        self.subject_of(s, false)
    }

    /// The user a subject names (the rule's `user` value), if it counts by
    /// user; `s` a well-formed subject ([`Rule::subject`]).
    fn user_of<'s>(&self, s: &'s str) -> Option<&'s str> {
        let mut rest = s;
        for (i, dim) in self.by.iter().enumerate() {
            if i > 0 {
                rest = rest.strip_prefix('|')?;
            }
            for _ in 0..if dim == "option" { 2 } else { 1 } {
                let (len, after) = rest.split_once(':')?;
                let n: usize = len.parse().ok()?;
                let value = after.get(..n)?;
                rest = &after[n..];
                if dim == "user" {
                    return Some(value);
                }
            }
        }
        None
    }

    /// Whether the rule's counters live in the voter's hash (`<ns>rlu:USER`;
    /// on layout 3 its fixed windows in buckets, `<ns>rlb:...`): it counts
    /// by user, over any window but the campaign.
    fn per_voter(&self) -> bool {
        self.window != RuleWindow::Campaign && self.by.iter().any(|d| d == "user")
    }

    /// [`Rule::subject`], the user left out when `voter` (a field of the
    /// voter's hash: `RULE|SUBJECT`).
    fn subject_of<'s>(&self, s: &'s str, voter: bool) -> Option<Option<&'s str>> {
        let mut rest = s;
        let mut channel = None;
        let dims = self.by.iter().filter(|d| !(voter && *d == "user"));
        for (i, dim) in dims.enumerate() {
            if i > 0 {
                rest = rest.strip_prefix('|')?;
            }
            for _ in 0..if dim == "option" { 2 } else { 1 } {
                let (len, after) = rest.split_once(':')?;
                if len.is_empty() || len.len() > 4 || !len.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let n: usize = len.parse().ok()?;
                let value = after.get(..n)?;
                rest = &after[n..];
                if dim == "channel" {
                    channel = Some(value);
                }
            }
        }
        rest.is_empty().then_some(channel)
    }

    /// The window and the subject a fixed-window counter's key names after
    /// `rl:RULE:` (`limit_key` in lib/limits.lua): `campaign:SUBJECT`
    /// (window `None`), `N:SUBJECT` (the second N), `mN:SUBJECT` (the
    /// minute N), `PERIOD:SUBJECT` (a calendar period, its bounds read in
    /// `offset`). Err: the violation, when `rest` names none of the rule's.
    fn fixed_window<'s>(
        &self,
        rest: &'s str,
        offset: i64,
    ) -> Result<(Window, &'s str), &'static str> {
        match self.window {
            RuleWindow::Rolling => unreachable!("a rolling counter is read by Scan::rolling"),
            RuleWindow::Campaign => match rest.strip_prefix("campaign:") {
                Some(s) => Ok((None, s)),
                None => Err("is not rl:RULE:campaign of a campaign-window rule"),
            },
            RuleWindow::Second | RuleWindow::Minute => {
                let (id, s) = rest.split_once(':').unwrap_or((rest, ""));
                let n = if self.window == RuleWindow::Minute {
                    id.strip_prefix('m')
                } else {
                    Some(id)
                };
                match n
                    .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|n| n.parse::<i64>().ok())
                {
                    Some(n) if self.window == RuleWindow::Minute => {
                        Ok((Some((n * 60, n * 60 + 60)), s))
                    }
                    Some(n) => Ok((Some((n, n + 1)), s)),
                    None => Err("does not name a window of its rule"),
                }
            }
            RuleWindow::Period(kind) => {
                let len = match kind {
                    Period::Hour => 18,
                    Period::Day => 14,
                    Period::Week | Period::Month => 13,
                    Period::Total => unreachable!("a rule window is a calendar period"),
                };
                let bounds = rest
                    .get(..len)
                    .filter(|name| name.starts_with(kind_name(kind)))
                    .and_then(|name| parse_period(name, offset))
                    .filter(|_| rest.as_bytes().get(len) == Some(&b':'));
                match bounds {
                    Some((_, start, end)) => Ok((Some((start, end)), &rest[len + 1..])),
                    None => Err("does not name a window of its rule"),
                }
            }
        }
    }
}

/// TYPE, `read` (GET, HGETALL, ...) and EXPIRETIME of every key, then the
/// server's clock, in one MULTI/EXEC: the replies in threes and the clock
/// in microseconds; `None` when the reply is short.
fn typed_reads<'k>(
    con: &mut dyn ConnectionLike,
    keys: impl Iterator<Item = &'k str>,
    read: &str,
) -> RedisResult<Option<(Vec<Value>, i128)>> {
    let mut pipe = redis::pipe();
    let mut n = 0;
    for key in keys {
        pipe.cmd("TYPE").arg(key);
        pipe.cmd(read).arg(key);
        pipe.cmd("EXPIRETIME").arg(key);
        n += 1;
    }
    pipe.cmd("TIME");
    let mut got = exec(con, &mut pipe)?;
    if got.len() != n * 3 + 1 {
        return Ok(None);
    }
    let (secs, micros) = time_of(&got[n * 3]).unwrap_or((0, 0));
    got.truncate(n * 3);
    Ok(Some((got, secs as i128 * 1000000 + micros as i128)))
}

/// A rolling rule's theoretical arrival time as stored,
/// "SECONDS.MICROSECONDS[+R/L]": R/L of a microsecond later.
struct Tat {
    secs: i128,
    micros: i128,
    num: i128,
    den: i128,
}

impl Tat {
    fn parse(value: &str) -> Option<Tat> {
        let (time, frac) = value
            .split_once('+')
            .map_or((value, None), |(t, f)| (t, Some(f)));
        let (s, u) = time.split_once('.')?;
        let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
        if !digits(s) || u.len() != 6 || !digits(u) || s.len() > 15 {
            return None;
        }
        let (secs, micros): (i128, i128) = (s.parse().ok()?, u.parse().ok()?);
        let (num, den) = match frac {
            None => (0, 1),
            Some(f) => {
                let (n, d) = f.split_once('/')?;
                if !digits(n) || !digits(d) || n.len() > 9 || d.len() > 9 {
                    return None;
                }
                let (n, d): (i128, i128) = (n.parse().ok()?, d.parse().ok()?);
                if n == 0 || n >= d {
                    return None;
                }
                (n, d)
            }
        };
        Some(Tat {
            secs,
            micros,
            num,
            den,
        })
    }

    /// When its state may go: one second after it, rounded up.
    fn due(&self) -> i128 {
        self.secs + i128::from(self.micros > 0 || self.num > 0) + 1
    }

    /// Why it is over its rule's allowance at `now_us` (more than
    /// `allowance` emission intervals ahead), or `None`.
    fn over(&self, rule: &Rule, channel: Option<&str>, now_us: i128) -> Option<String> {
        // In units of 1/limit microsecond: TAT - now <= allowance x per x 10^6.
        let l = rule.limit as i128;
        let tat = (self.secs * 1000000 + self.micros) * l + self.num * l / self.den;
        let allowance = rule.allowance(channel);
        (tat - now_us * l > allowance as i128 * rule.per as i128 * 1000000).then(|| {
            format!(
                "is more than {allowance} intervals of {} s / {} ahead: over its rule's allowance",
                rule.per, rule.limit
            )
        })
    }
}

/// The campaign's settings and clock.
struct Settings {
    offset: i64,
    start: Option<i64>,
    end: Option<i64>,
    updated: Option<i64>,
    rules: BTreeMap<String, Rule>,
    /// The server's clock when the check started.
    now: i64,
    /// How old the oldest buffered vote may grow before a vote folds
    /// (`fold_ms`; lib/fold's default when absent).
    fold_ms: i64,
}

impl Settings {
    /// No configure since the campaign started: every vote was cast under
    /// the current settings.
    /// (`updated` is a whole second: a configure in the second a vote was
    /// cast may have come after it, so the comparisons are strict.)
    fn settled(&self) -> bool {
        matches!((self.start, self.updated), (Some(s), Some(u)) if u < s)
    }

    /// Whether data of a calendar period starting at `start` (read in the
    /// current offset; `None`: the total) was written under the current
    /// settings.
    fn settled_period(&self, start: Option<i64>) -> bool {
        self.settled() || matches!((start, self.updated), (Some(s), Some(u)) if s > u + OFFSET_SPAN)
    }

    /// The same for a UTC-aligned window (second, minute) starting at `start`.
    fn settled_since(&self, start: i64) -> bool {
        self.settled() || self.updated.is_some_and(|u| start > u)
    }

    /// Whether a counter of `rule` that ends (or is due) at `end` may have
    /// been written before the last `configure`, under the rule as it was
    /// then (its `by`, its window, the offset): a counter written at `t`
    /// ends at most one window of the rule after `t`.
    fn may_predate(&self, rule: &Rule, end: i64) -> bool {
        if self.settled() {
            return false;
        }
        let span = match rule.window {
            RuleWindow::Second => 1,
            RuleWindow::Minute => 60,
            RuleWindow::Period(Period::Hour) => 3600,
            RuleWindow::Period(Period::Day) => 86400,
            RuleWindow::Period(Period::Week) => 7 * 86400,
            RuleWindow::Period(_) => 31 * 86400,
            RuleWindow::Rolling => rule.allowance(None).saturating_mul(rule.per.max(1)),
            RuleWindow::Campaign => return true,
        };
        self.updated
            .is_none_or(|u| end <= u.saturating_add(span).saturating_add(1))
    }
}

fn settings(
    con: &mut dyn ConnectionLike,
    root: &str,
    r: &mut Report,
) -> RedisResult<Option<Settings>> {
    let mut pipe = redis::pipe();
    pipe.cmd("HGETALL").arg(root);
    pipe.cmd("TIME");
    let got = exec(con, &mut pipe)?;
    if let Some(e) = error_of(&got[0]) {
        r.violation(root, format!("is not a hash: {e}"));
        return Ok(None);
    }
    let now = time_of(&got[1]).map_or(0, |t| t.0);
    let flat = items(&got[0]);
    let fields: HashMap<String, String> = flat
        .chunks(2)
        .filter_map(|kv| Some((text(&kv[0])?, text(kv.get(1)?)?)))
        .collect();
    if fields.is_empty() {
        r.violation(root, "no such campaign (the settings hash is missing)");
        return Ok(None);
    }
    let mut c = Settings {
        offset: 0,
        start: None,
        end: None,
        updated: None,
        rules: BTreeMap::new(),
        now,
        fold_ms: FOLD_MS_DEFAULT,
    };
    if let Some(v) = fields.get("offset") {
        match stored_int(v, -50400, 50400).filter(|n| n % 60 == 0) {
            Some(n) => c.offset = n,
            None => r.violation(
                root,
                format!("offset {v:?} is not seconds within 14 h, in whole minutes"),
            ),
        }
    }
    for (name, slot) in [("start", &mut c.start), ("end", &mut c.end)] {
        if let Some(v) = fields.get(name) {
            *slot = stored_int(v, 0, TIME_MAX);
            if slot.is_none() {
                r.violation(root, format!("{name} {v:?} is not a Unix time"));
            }
        }
    }
    if let (Some(s), Some(e)) = (c.start, c.end) {
        if e <= s {
            r.violation(root, format!("end {e} is not after start {s}"));
        }
    }
    match fields.get("updated") {
        None => r.violation(root, "has no updated time (campaign_configure writes it)"),
        Some(v) => {
            c.updated = stored_int(v, 0, TIME_MAX);
            if c.updated.is_none() {
                r.violation(root, format!("updated {v:?} is not a Unix time"));
            }
        }
    }
    if let Some(v) = fields.get("denying") {
        if v != "0" && v != "1" {
            r.violation(root, format!("denying {v:?} is neither 0 nor 1"));
        }
    }
    if let Some(v) = fields.get("limits") {
        match rules(v) {
            Ok(rules) => c.rules = rules,
            Err(e) => r.violation(root, format!("limits is corrupt: {e}")),
        }
    }
    mode(root, &fields, &mut c, r);
    // The rules' stamp (lib/limits.lua): a copy of `limits` that votes
    // trust. One that differs (rules changed by hand) only costs the votes
    // a validation: counted, not a violation; one equal to corrupt rules
    // is the violation above.
    if let Some(stamp) = fields.get("limits_checked") {
        if fields.get("limits") != Some(stamp) {
            r.count("limits_stamps_stale", 1);
        }
    }
    Ok(Some(c))
}

/// The default `fold_ms` (`FOLD_MS_DEFAULT` in lua/src/lib/fold.lua).
const FOLD_MS_DEFAULT: i64 = 200;

/// How votes reach the boards: `mode` (none, "immediate" or "buffered"),
/// `fold_ms`, `folded` and the data `layout` (1 when absent; 4 exactly on
/// a buffered campaign, lua/src/lib/layout.lua). `fold_due` is checked
/// with the buffer it belongs to ([`crate::buffer`]).
fn mode(root: &str, fields: &HashMap<String, String>, c: &mut Settings, r: &mut Report) {
    let mode = fields.get("mode").map(String::as_str);
    if let Some(m) = mode.filter(|m| *m != "immediate" && *m != "buffered") {
        r.violation(
            root,
            format!("mode {m:?} is neither \"immediate\" nor \"buffered\""),
        );
    }
    if let Some(v) = fields.get("fold_ms") {
        match stored_int(v, 10, 60000) {
            Some(ms) => c.fold_ms = ms,
            None => r.violation(root, format!("fold_ms {v:?} is not ms in 10..60000")),
        }
    }
    if let Some(v) = fields.get("folded") {
        if stored_int(v, 0, 999999999999999).is_none() {
            r.violation(root, format!("folded {v:?} is not a Unix ms"));
        }
    }
    let layout = match fields.get("layout") {
        None => Some(1),
        Some(v) => {
            let l = stored_int(v, 1, 4).filter(|_| !v.starts_with('0'));
            if l.is_none() {
                r.violation(
                    root,
                    format!("layout {v:?} is not a campaign layout (1..4)"),
                );
            }
            l
        }
    };
    let buffered = mode == Some("buffered");
    match layout {
        Some(4) if !buffered => r.violation(
            root,
            format!(
                "layout 4 is a buffered campaign's, but mode is {}",
                mode.map_or("absent (immediate)".to_string(), |m| format!("{m:?}"))
            ),
        ),
        Some(l) if l != 4 && buffered => r.violation(
            root,
            format!("mode \"buffered\" at layout {l}: a buffered campaign is at layout 4"),
        ),
        _ => {}
    }
}

/// A whole JSON number in lo..=hi (the stored rules' numbers).
fn json_int(v: Option<&serde_json::Value>, lo: i64, hi: i64) -> Option<i64> {
    let f = v?.as_f64()?;
    (f.fract() == 0.0 && f >= lo as f64 && f <= hi as f64).then_some(f as i64)
}

/// The stored `limits` as `limit_rules` (lib/limits.lua) accepts them.
fn rules(json: &str) -> Result<BTreeMap<String, Rule>, String> {
    let doc: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
    let list = match &doc {
        serde_json::Value::Array(list) if list.len() <= 32 => list,
        serde_json::Value::Object(o) if o.is_empty() => return Ok(BTreeMap::new()),
        _ => return Err("not a list of at most 32 rules".into()),
    };
    let mut out = BTreeMap::new();
    for (i, r) in list.iter().enumerate() {
        let bad = || format!("rule {} is malformed", i + 1);
        let name = r
            .get("name")
            .and_then(|n| n.as_str())
            .filter(|n| redvote::is_valid_name(n))
            .ok_or_else(bad)?;
        let by: Vec<String> = r
            .get("by")
            .and_then(|b| b.as_array())
            .ok_or_else(bad)?
            .iter()
            .map(|d| d.as_str().map(str::to_string))
            .collect::<Option<_>>()
            .ok_or_else(bad)?;
        let distinct: BTreeSet<&String> = by.iter().collect();
        if by.is_empty()
            || by.len() > 4
            || distinct.len() != by.len()
            || !by
                .iter()
                .all(|d| ["user", "option", "channel", "device"].contains(&d.as_str()))
        {
            return Err(bad());
        }
        let mut extra = BTreeMap::new();
        match r.get("extra") {
            None => {}
            Some(serde_json::Value::Object(map)) => {
                for (channel, n) in map {
                    let n = json_int(Some(n), 0, 1000000000)
                        .filter(|_| redvote::is_valid_name(channel))
                        .ok_or_else(bad)?;
                    extra.insert(channel.clone(), n);
                }
            }
            Some(serde_json::Value::Array(a)) if a.is_empty() => {}
            Some(_) => return Err(bad()),
        }
        let rule = if r.get("rolling") == Some(&serde_json::Value::Bool(true)) {
            let limit = json_int(r.get("limit"), 1, 1000000).ok_or_else(bad)?;
            Rule {
                window: RuleWindow::Rolling,
                by,
                allowance: json_int(r.get("burst"), 1, 1000000).ok_or_else(bad)?,
                limit,
                per: json_int(r.get("per"), 1, 315360000).ok_or_else(bad)?,
                extra,
            }
        } else {
            if r.get("rolling").is_some() {
                return Err(bad());
            }
            let window = match r.get("window").and_then(|w| w.as_str()) {
                Some("second") => RuleWindow::Second,
                Some("minute") => RuleWindow::Minute,
                Some("campaign") => RuleWindow::Campaign,
                Some(w) => RuleWindow::Period(calendar_period(w).ok_or_else(bad)?),
                None => return Err(bad()),
            };
            Rule {
                window,
                by,
                allowance: json_int(r.get("limit"), 1, 1000000000).ok_or_else(bad)?,
                limit: 0,
                per: 0,
                extra,
            }
        };
        out.insert(name.to_string(), rule);
    }
    Ok(out)
}

fn read_seq(con: &mut dyn ConnectionLike, ns: &str, r: &mut Report) -> RedisResult<Option<i64>> {
    let key = format!("{ns}seq");
    let mut pipe = redis::pipe();
    pipe.cmd("GET").arg(&key);
    let got = exec(con, &mut pipe)?;
    if let Some(e) = error_of(&got[0]) {
        r.violation(&key, format!("is not a string: {e}"));
        return Ok(None);
    }
    Ok(match text(&got[0]) {
        None => Some(0),
        Some(v) => {
            let n = stored_int(&v, 0, COUNT_MAX);
            if n.is_none() {
                r.violation(&key, format!("the vote sequence {v:?} is not an integer"));
            }
            n
        }
    })
}

/// A board's settings, options, imported amounts and period index.
#[derive(Debug, Default)]
struct Board {
    /// The periods it keeps ("hour", ..., "total"); empty when corrupt.
    periods: Vec<String>,
    /// The tie rule in effect (what the reads rank by) is first / dense:
    /// its side keys are complete (lib/board.lua: a stored dense or first
    /// without `indexed` 1 nor `ties_next` is in effect competition, and
    /// pending).
    first: bool,
    dense: bool,
    /// A pending tie rule (`ties_next`, or a stored dense / first not
    /// indexed) is first / dense: its side keys are kept by every writer
    /// and built by campaign_reindex, so those present must be right, but
    /// they need not be complete.
    pending_first: bool,
    pending_dense: bool,
    decimals: u32,
    /// The carry in millionths, as board_settings computes it.
    carry: i64,
    /// Retention per period kind, seconds (0: keep).
    keep: HashMap<&'static str, i64>,
    /// Whether the settings parsed: relations are checked only then.
    ok: bool,
    /// Options and their weights (`None`: a corrupt stored weight).
    weights: HashMap<String, Option<i64>>,
    /// Imported amounts, in units of 10^-decimals.
    initial: HashMap<String, i128>,
    /// "real:P" / "shown:P" -> recorded expiry (0: kept).
    index: HashMap<String, i64>,
    /// Options removed whose period board entries are still being taken
    /// off (`<ns>removing:B`, cleaned by campaign_remove).
    removing: HashSet<String>,
    /// The board's removals so far (`remove_gen`), as read at the start.
    remove_gen: i64,
    /// The cursors a pending removal's last step handed out and started
    /// from (`remove_cursor`, `remove_prev`).
    remove_cursors: Vec<(&'static str, String)>,
}

impl Board {
    fn keeps(&self, kind: &str) -> bool {
        self.periods.iter().any(|p| p == kind)
    }

    fn scale(&self) -> f64 {
        10f64.powi(self.decimals as i32)
    }

    /// A stored decimal in units of 10^-decimals (`units_of` in lib/exact.lua).
    fn units(&self, score: f64) -> i128 {
        (score * self.scale() + 0.5).floor() as i128
    }

    /// The carried share of one vote of an option of `weight`, in units,
    /// computed as the vote script computes it (in doubles).
    fn carried(&self, weight: i64) -> i128 {
        (weight as f64 * self.carry as f64 * self.scale() / 1000000.0 + 0.5).floor() as i128
    }

    fn text(&self, units: i128) -> String {
        let d = self.decimals as usize;
        format!("{:.d$}", units as f64 / self.scale())
    }
}

/// Every board of `<ns>boards` with its settings, weights, imports and
/// period index (each read with HGETALL of a hash of at most 8 fields or
/// in HSCAN / ZSCAN pages).
fn boards(
    con: &mut dyn ConnectionLike,
    ns: &str,
    r: &mut Report,
) -> RedisResult<BTreeMap<String, Board>> {
    let set = format!("{ns}boards");
    let mut names = Vec::new();
    scan_checked(con, "SSCAN", &set, r, |_, page, r| {
        for b in page {
            let b = String::from_utf8_lossy(&b).into_owned();
            if redvote::is_valid_name(&b) {
                names.push(b);
            } else {
                r.violation(&set, format!("{b:?} is not a board name"));
            }
        }
        Ok(())
    })?;
    let mut out = BTreeMap::new();
    for name in names {
        r.count("boards", 1);
        let mut b = board_settings(con, ns, &name, r)?;
        hash_pages(
            con,
            &format!("{ns}weights:{name}"),
            r,
            |key, option, v, r| match stored_int(v, 1, 1000000) {
                Some(w) => {
                    b.weights.insert(option.to_string(), Some(w));
                }
                None => {
                    b.weights.insert(option.to_string(), None);
                    r.violation(
                        key,
                        format!("weight of {option} {v:?} is not an integer in 1..1000000"),
                    );
                }
            },
        )?;
        let scale = b.scale();
        hash_pages(
            con,
            &format!("{ns}initial:{name}"),
            r,
            |key, option, v, r| {
                let ok = match v.split_once('.') {
                    Some((i, f)) => {
                        !i.is_empty()
                            && !f.is_empty()
                            && (i.to_string() + f).bytes().all(|c| c.is_ascii_digit())
                    }
                    None => !v.is_empty() && v.bytes().all(|c| c.is_ascii_digit()),
                };
                match v.parse::<f64>() {
                    Ok(x) if ok && x.is_finite() => {
                        b.initial
                            .insert(option.to_string(), (x * scale + 0.5).floor() as i128);
                    }
                    _ => r.violation(
                        key,
                        format!("imported votes of {option} {v:?} are not a decimal >= 0"),
                    ),
                }
            },
        )?;
        let index = format!("{ns}periods:{name}");
        scan_checked(con, "ZSCAN", &index, r, |_, page, r| {
            for pair in page.chunks(2) {
                let member = String::from_utf8_lossy(&pair[0]).into_owned();
                let score = String::from_utf8_lossy(&pair[1]).into_owned();
                let valid = member.split_once(':').is_some_and(|(k, p)| {
                    (k == "real" || k == "shown") && (p == "total" || parse_period(p, 0).is_some())
                });
                let at =
                    score_of(&score).filter(|s| s.is_finite() && s.fract() == 0.0 && *s >= 0.0);
                if !valid {
                    r.violation(
                        &index,
                        format!("member {member:?} is not real:PERIOD or shown:PERIOD"),
                    );
                } else if let Some(at) = at {
                    b.index.insert(member, at as i64);
                } else {
                    r.violation(
                        &index,
                        format!("{member} has the expiry {score}, not a Unix time or 0"),
                    );
                }
            }
            Ok(())
        })?;
        pending_removals(con, ns, &name, &mut b, r)?;
        out.insert(name, b);
    }
    Ok(out)
}

/// A board's pending removal, `<ns>removing:B` (campaign_configure's
/// `remove` on layout 2, until campaign_remove has visited every period
/// board): a set of option names that are no options of the board any
/// more (no weight; read again at the end, configure may have removed one
/// since). Their entries left on the period boards are not judged: the
/// reads skip them, and a removal step takes them off.
fn pending_removals(
    con: &mut dyn ConnectionLike,
    ns: &str,
    name: &str,
    b: &mut Board,
    r: &mut Report,
) -> RedisResult<()> {
    let key = format!("{ns}removing:{name}");
    let mut names = Vec::new();
    scan_checked(con, "SSCAN", &key, r, |_, page, r| {
        for o in page {
            let o = String::from_utf8_lossy(&o).into_owned();
            if redvote::is_valid_name(&o) {
                names.push(o);
            } else {
                r.violation(&key, format!("{o:?} is not an option name"));
            }
        }
        Ok(())
    })?;
    for o in names {
        r.count("pending_removals", 1);
        if b.weights.contains_key(&o) {
            let mut reads = redis::pipe();
            reads.cmd("SISMEMBER").arg(&key).arg(&o);
            reads
                .cmd("HEXISTS")
                .arg(format!("{ns}weights:{name}"))
                .arg(&o);
            let what = format!("{o} is pending removal but still an option of board {name}");
            r.suspect(
                key.clone(),
                Recheck::new(reads, move |got| {
                    (int(&got[0]) == Some(1) && int(&got[1]) == Some(1)).then(|| what.clone())
                }),
            );
        }
        b.removing.insert(o);
    }
    if b.removing.is_empty() && !b.remove_cursors.is_empty() {
        // a removal's cursors live while it is pending: its last step
        // deletes them with the pending set (read again together: a step
        // may have finished the removal since the board was read)
        let board_key = format!("{ns}board:{name}");
        let mut reads = redis::pipe();
        reads.cmd("SCARD").arg(&key);
        reads
            .cmd("HMGET")
            .arg(&board_key)
            .arg(&["remove_cursor", "remove_prev"]);
        let what =
            "holds a removal's cursor (remove_cursor, remove_prev), but no removal is pending"
                .to_string();
        r.suspect(
            board_key,
            Recheck::new(reads, move |got| {
                let cursors = items(&got[1]).iter().any(|v| text(v).is_some());
                (int(&got[0]) == Some(0) && cursors).then(|| what.clone())
            }),
        );
    }
    Ok(())
}

/// `<ns>removed:B` (campaign_configure): option -> the `remove_gen` of its
/// last removal, which campaign_void compares with the generation its vote
/// recorded; every generation is one the board has counted (its
/// `remove_gen`, read after the hash: generations only grow).
fn removed_options(
    con: &mut dyn ConnectionLike,
    ns: &str,
    board: &str,
    key: &str,
    r: &mut Report,
) -> RedisResult<()> {
    let mut highest = 0;
    hash_pages(con, key, r, |key, option, v, r| {
        if !redvote::is_valid_name(option) {
            r.violation(key, format!("{option:?} is not an option name"));
        }
        match stored_int(v, 1, 999999999999999) {
            Some(n) => highest = highest.max(n),
            None => r.violation(
                key,
                format!("{option}: {v:?} is not a removal's generation"),
            ),
        }
    })?;
    let mut pipe = redis::pipe();
    pipe.cmd("HGET")
        .arg(format!("{ns}board:{board}"))
        .arg("remove_gen");
    let got = exec(con, &mut pipe)?;
    let gen = text(&got[0]).and_then(|v| stored_int(&v, 0, 999999999999999));
    if gen.is_some_and(|g| highest > g) {
        r.violation(
            key,
            format!("records generation {highest}, above the board's remove_gen"),
        );
    }
    r.count("removed_options", 1);
    Ok(())
}

/// Every field of hash `key`, HSCAN page by page, given to `each` (key,
/// field, value, report); a key of the wrong type is reported.
fn hash_pages(
    con: &mut dyn ConnectionLike,
    key: &str,
    r: &mut Report,
    mut each: impl FnMut(&str, &str, &str, &mut Report),
) -> RedisResult<()> {
    scan_checked(con, "HSCAN", key, r, |_, page, r| {
        for kv in page.chunks(2) {
            let (f, v) = (
                String::from_utf8_lossy(&kv[0]),
                String::from_utf8_lossy(&kv[1]),
            );
            each(key, &f, &v, r);
        }
        Ok(())
    })?;
    Ok(())
}

/// `<ns>board:B` parsed as `board_settings` (lib/board.lua) parses it.
fn board_settings(
    con: &mut dyn ConnectionLike,
    ns: &str,
    name: &str,
    r: &mut Report,
) -> RedisResult<Board> {
    let key = format!("{ns}board:{name}");
    let kinds = ["hour", "day", "week", "month"];
    let mut pipe = redis::pipe();
    let keeps: Vec<String> = kinds.iter().map(|k| format!("keep_{k}")).collect();
    pipe.cmd("HMGET")
        .arg(&key)
        .arg(&["periods", "ties", "decimals", "carry"])
        .arg(&keeps)
        .arg("indexed")
        .arg("ties_next")
        .arg(&["remove_gen", "remove_cursor", "remove_prev"]);
    let got = exec(con, &mut pipe)?;
    let mut b = Board {
        decimals: 2,
        ..Default::default()
    };
    if let Some(e) = error_of(&got[0]) {
        r.violation(&key, format!("is not a hash: {e}"));
        return Ok(b);
    }
    let fields: Vec<Option<String>> = items(&got[0]).iter().map(text).collect();
    let field = |i: usize| fields.get(i).cloned().flatten();
    let mut ok = true;
    let mut bad = |what: String, r: &mut Report| {
        ok = false;
        r.violation(&key, what);
    };
    match field(0) {
        None => bad(
            "has no periods (the board does not exist for the scripts)".into(),
            r,
        ),
        Some(p) => {
            let list: Vec<&str> = p.split(',').collect();
            let distinct: BTreeSet<&&str> = list.iter().collect();
            if distinct.len() != list.len()
                || !list
                    .iter()
                    .all(|k| ["hour", "day", "week", "month", "total"].contains(k))
            {
                bad(format!("periods {p:?} is corrupt"), r);
            } else {
                b.periods = list.iter().map(|s| s.to_string()).collect();
            }
        }
    }
    let rules = ["competition", "name", "dense", "first"];
    let mut ties = field(1).unwrap_or_else(|| "competition".into());
    if !rules.contains(&ties.as_str()) {
        bad(format!("ties {ties:?} is corrupt"), r);
    }
    let mut pending = field(9);
    if let Some(n) = pending.as_deref().filter(|n| !rules.contains(n)) {
        bad(format!("ties_next {n:?} is corrupt"), r);
    }
    let indexed = match field(8).as_deref() {
        None | Some("0") => false,
        Some("1") => true,
        Some(v) => {
            bad(format!("indexed {v:?} is corrupt"), r);
            false
        }
    };
    // as lib/board.lua reads them: a dense or first without its side keys
    // complete is pending, competition in effect
    if (ties == "dense" || ties == "first") && !indexed && pending.is_none() {
        pending = Some(std::mem::replace(&mut ties, "competition".into()));
    }
    if pending.as_deref() == Some(ties.as_str()) {
        bad(
            format!("ties_next {ties:?} is corrupt: it is the rule in effect"),
            r,
        );
    }
    b.first = ties == "first";
    b.dense = ties == "dense";
    b.pending_first = pending.as_deref() == Some("first");
    b.pending_dense = pending.as_deref() == Some("dense");
    if let Some(d) = field(2) {
        match stored_int(&d, 0, 6) {
            Some(n) => b.decimals = n as u32,
            None => bad(format!("decimals {d:?} is corrupt"), r),
        }
    }
    let carry = field(3).unwrap_or_else(|| "0".into());
    let carry_ok = carry.len() <= 8
        && (carry == "0"
            || carry == "1"
            || carry
                .strip_prefix("0.")
                .is_some_and(|f| !f.is_empty() && f.bytes().all(|c| c.is_ascii_digit()))
            || carry
                .strip_prefix("1.")
                .is_some_and(|f| !f.is_empty() && f.bytes().all(|c| c == b'0')));
    if carry_ok {
        b.carry = (carry.parse::<f64>().unwrap_or(0.0) * 1000000.0 + 0.5).floor() as i64;
    } else {
        bad(format!("carry {carry:?} is corrupt"), r);
    }
    for (i, kind) in kinds.iter().enumerate() {
        let keep = match field(4 + i) {
            None => 0,
            Some(v) => stored_int(&v, 0, 315360000).unwrap_or_else(|| {
                bad(format!("keep_{kind} {v:?} is corrupt"), r);
                0
            }),
        };
        b.keep.insert(kind, keep);
    }
    if let Some(v) = field(10) {
        match stored_int(&v, 0, 999999999999999) {
            Some(n) => b.remove_gen = n,
            None => bad(format!("remove_gen {v:?} is corrupt"), r),
        }
    }
    for (i, name) in [(11, "remove_cursor"), (12, "remove_prev")] {
        let Some(v) = field(i) else { continue };
        match remove_cursor_gen(&v) {
            Some(g) if g <= b.remove_gen => b.remove_cursors.push((name, v)),
            _ => bad(
                format!(
                    "{name} {v:?} is corrupt (campaign_remove's cursors are \"0\" or \
                     GEN|PERIOD|AT with GEN at most remove_gen)"
                ),
                r,
            ),
        }
    }
    b.ok = ok;
    Ok(b)
}

/// The generation of a `campaign_remove` cursor as the script parses it
/// ("GEN|P|AT"; "0" is generation 0), or `None` when it is not one.
fn remove_cursor_gen(cursor: &str) -> Option<i64> {
    if cursor == "0" {
        return Some(0);
    }
    let mut parts = cursor.splitn(3, '|');
    let (gen, p, at) = (parts.next()?, parts.next()?, parts.next()?);
    let digits = |s: &str, max: usize| {
        !s.is_empty() && s.len() <= max && s.bytes().all(|c| c.is_ascii_digit())
    };
    (digits(gen, 15) && !p.is_empty() && !p.contains('|') && digits(at, 5))
        .then(|| gen.parse().ok())
        .flatten()
}

/// The state of one scan.
struct Scan<'a> {
    ns: &'a str,
    c: Settings,
    seq: Option<i64>,
    boards: BTreeMap<String, Board>,
    /// Period boards found: (board, kind, period) -> key.
    board_keys: BTreeMap<(String, String, String), String>,
    /// "first" side keys found: board, kind, period, key.
    first_keys: Vec<(String, String, String, String)>,
    /// Order side keys (`o:`, `d:`) found: letter, board, kind, period, key.
    order_keys: Vec<(char, String, String, String, String)>,
    /// Rate-limit counters not checked yet: key, rule name, the rest.
    counters: Vec<(String, String, String)>,
    /// Voters' counter hashes (`<ns>rlu:USER`) not checked yet.
    voters: Vec<String>,
    /// The boards' removal generations (`<ns>removed:B`): board, key.
    removed: Vec<(String, String)>,
    /// Buckets of per-user fixed-window counters (`<ns>rlb:RULE:REST`) not
    /// checked yet: key, rule name, the rest (`WINDOW:N`).
    buckets: Vec<(String, String, String)>,
    /// Statistics keys and the vote log (`<ns>st:`, `sp:`, `sn:`, `log`)
    /// not checked yet ([`crate::stats`]).
    stats: Vec<String>,
    /// Options' buffers (`<ns>buf:B:O`), checked against the options
    /// `<ns>bufs` lists once the scan is done.
    buffers: Vec<String>,
    /// Keys that name a board or option missing from the settings read at
    /// the start: read again before they are reported (configure may have
    /// added it since).
    pending: Vec<(String, Missing)>,
}

/// What a pending key names: a board (of `<ns>boards`) or an option (of
/// `<ns>weights:B`).
enum Missing {
    Board(String),
    Option(String, String),
}

/// A counter as read: its value (string counters) and expiry.
struct CounterRead<'v> {
    value: &'v Value,
    expires: i64,
    now_us: i128,
}

impl Scan<'_> {
    fn classify(&mut self, key: String, r: &mut Report) {
        let rest = &key[self.ns.len()..];
        let (head, tail) = rest.split_once(':').unwrap_or((rest, ""));
        match head {
            "board" | "weights" | "initial" | "periods" | "removed"
                if !self.boards.contains_key(tail) =>
            {
                let board = tail.to_string();
                self.pending.push((key, Missing::Board(board)));
            }
            "option" | "hll" if !tail.is_empty() => {
                let (board, option) = tail.split_once(':').unwrap_or((tail, ""));
                let recheck = match self.boards.get(board) {
                    None => Missing::Board(board.to_string()),
                    Some(b) if b.ok && !b.weights.contains_key(option) => {
                        Missing::Option(board.to_string(), option.to_string())
                    }
                    _ => return,
                };
                self.pending.push((key, recheck));
            }
            "b" | "f" | "o" | "d" => {
                let parsed = tail.split_once(':').and_then(|(board, rest)| {
                    let (kind, p) = rest.split_once(':')?;
                    let ok = (kind == "real" || kind == "shown")
                        && (p == "total" || parse_period(p, 0).is_some());
                    ok.then(|| (board.to_string(), kind.to_string(), p.to_string()))
                });
                match parsed {
                    None => r.violation(
                        &key,
                        "is not a period board key (b:BOARD:real|shown:PERIOD)",
                    ),
                    Some((board, ..)) if !self.boards.contains_key(&board) => {
                        self.pending.push((key, Missing::Board(board)));
                    }
                    Some((board, kind, p)) if head == "b" => {
                        self.board_keys.insert((board, kind, p), key);
                    }
                    Some((board, kind, p)) if head == "f" => {
                        self.first_keys.push((board, kind, p, key))
                    }
                    Some((board, kind, p)) => {
                        let letter = if head == "o" { 'o' } else { 'd' };
                        self.order_keys.push((letter, board, kind, p, key))
                    }
                }
            }
            "removed" => self.removed.push((tail.to_string(), key)),
            "buf" => self.buffers.push(key),
            "rlu" => self.voters.push(key),
            "rlb" => match tail.split_once(':') {
                Some((rule, rest)) if self.c.rules.contains_key(rule) => {
                    let (rule, rest) = (rule.to_string(), rest.to_string());
                    self.buckets.push((key, rule, rest));
                }
                _ => r.count("counters_of_other_rules", 1),
            },
            "st" | "sp" | "sn" | "log" => {
                if crate::stats::is_stats_key(rest) {
                    self.stats.push(key);
                } else {
                    r.violation(&key, "is not a statistics key (st:BOARD:P, sp:P, sn:P; P an hour or a day) nor the vote log");
                }
            }
            "rl" => match tail.split_once(':') {
                Some((rule, rest)) if self.c.rules.contains_key(rule) => {
                    let (rule, rest) = (rule.to_string(), rest.to_string());
                    self.counters.push((key, rule, rest));
                }
                _ => r.count("counters_of_other_rules", 1),
            },
            _ => {}
        }
    }

    /// A batch of rate-limit counters: values and expiries in one
    /// MULTI/EXEC (with the clock), a campaign-window hash's fields in
    /// HSCAN pages.
    fn counters(
        &mut self,
        con: &mut dyn ConnectionLike,
        batch: &[(String, String, String)],
        r: &mut Report,
    ) -> RedisResult<()> {
        let keys = batch.iter().map(|(key, ..)| key.as_str());
        let Some((got, now_us)) = typed_reads(con, keys, "GET")? else {
            return Ok(());
        };
        let mut hashes = Vec::new();
        for ((key, rule, rest), v) in batch.iter().zip(got.chunks(3)) {
            let expires = int(&v[2]).unwrap_or(-2);
            if expires == -2 {
                continue; // expired since SCAN
            }
            let kind = text(&v[0]).unwrap_or_default();
            let rule = &self.c.rules[rule];
            if rule.window == RuleWindow::Campaign && rest == "campaign" {
                if kind != "hash" {
                    r.violation(
                        key,
                        format!("is a {kind}, not a hash of campaign-window counters"),
                    );
                } else {
                    hashes.push((key.clone(), rule.clone(), expires));
                }
                continue;
            }
            if kind != "string" {
                r.violation(key, format!("is a {kind}, not a counter string"));
                continue;
            }
            r.count("counters", 1);
            let read = CounterRead {
                value: &v[1],
                expires,
                now_us,
            };
            self.counter(key, rule, rest, read, r);
        }
        for (key, rule, expires) in hashes {
            self.campaign_hash(con, &key, &rule, expires, r)?;
        }
        Ok(())
    }

    /// One fixed-window or rolling counter string `<ns>rl:RULE:REST`: a
    /// rolling one goes to [`Scan::rolling`]; a fixed one names a window of
    /// its rule ([`Rule::fixed_window`]) and a subject of its dimensions,
    /// holds a count >= 1 and, settled, within the rule's allowance (the
    /// vote refuses beyond it), and expires as its window ends
    /// ([`Scan::counter_expiry`]).
    fn counter(&self, key: &str, rule: &Rule, rest: &str, read: CounterRead, r: &mut Report) {
        let c = &self.c;
        let value = text(read.value).unwrap_or_default();
        if rule.window == RuleWindow::Rolling {
            return match rest.strip_prefix("rolling:") {
                Some(s) => self.rolling(key, rule, s, &value, read, r),
                None => r.violation(key, "is not rl:RULE:rolling:SUBJECT of a rolling rule"),
            };
        }
        // The window (start, end; None: the campaign) and the subject. A
        // key of the rule as it was before a configure (another window or
        // `by` under the same name) is only counted: the scripts no longer
        // read it, and it expires with its window.
        let (window, subject) = match rule.fixed_window(rest, c.offset) {
            Ok(found) => found,
            Err(_) if !c.settled() => return r.count("counters_of_former_rules", 1),
            Err(what) => return r.violation(key, what),
        };
        let settled = match (rule.window, window) {
            (RuleWindow::Period(_), Some((start, _))) => c.settled_period(Some(start)),
            (_, Some((start, _))) => c.settled_since(start),
            (_, None) => c.settled(),
        };
        let Some(channel) = rule.subject(subject) else {
            if !settled {
                return r.count("counters_of_former_rules", 1);
            }
            return r.violation(
                key,
                format!("subject {subject:?} does not match the rule's dimensions"),
            );
        };
        let Some(count) = stored_int(&value, 1, COUNT_MAX) else {
            return r.violation(key, format!("holds {value:?}, not a count >= 1"));
        };
        let allowance = rule.allowance(channel);
        if settled && count > allowance {
            r.violation(
                key,
                format!("counts {count}, over its rule's allowance of {allowance}"),
            );
        }
        self.counter_expiry(key, window, settled, read.expires, r);
    }

    /// A fixed-window counter's expiry: its window's end (settled; never
    /// none, whatever the history, or the counter would stay forever); a
    /// campaign-window counter string (the layout before they moved into
    /// one hash per rule) the campaign's end, as set at its creation.
    fn counter_expiry(
        &self,
        key: &str,
        window: Window,
        settled: bool,
        expires: i64,
        r: &mut Report,
    ) {
        match window {
            Some((_, end)) => {
                if expires == -1 {
                    r.violation(key, format!("has no expiry (its window ends at {end})"));
                } else if settled && expires != end {
                    r.violation(
                        key,
                        format!("expires at {expires}, but its window ends at {end}"),
                    );
                }
            }
            // The string layout of campaign-window counters (before they
            // moved into one hash per rule): the expiry set at creation.
            None if settled => match (self.c.end, expires) {
                (Some(end), -1) => r.violation(
                    key,
                    format!("has no expiry, but the campaign ends at {end}"),
                ),
                (Some(end), at) if at != end => r.violation(
                    key,
                    format!("expires at {at}, but the campaign ends at {end}"),
                ),
                (None, at) if at != -1 => {
                    r.violation(key, format!("expires at {at}, but the campaign has no end"))
                }
                _ => {}
            },
            None => {}
        }
    }

    /// A rolling (GCRA) counter: "SECONDS.MICROSECONDS[+R/L]", expiring one
    /// second after that time (rounded up); settled, at most the allowance
    /// of emission intervals ahead of now.
    fn rolling(
        &self,
        key: &str,
        rule: &Rule,
        subject: &str,
        value: &str,
        read: CounterRead,
        r: &mut Report,
    ) {
        let Some(channel) = rule.subject(subject) else {
            let due = Tat::parse(value).map_or(i64::MAX, |t| t.due() as i64);
            if self.c.may_predate(rule, due) {
                return r.count("counters_of_former_rules", 1);
            }
            return r.violation(
                key,
                format!("subject {subject:?} does not match the rule's dimensions"),
            );
        };
        let Some(tat) = Tat::parse(value) else {
            return r.violation(
                key,
                format!("holds {value:?}, not a rolling TAT SECONDS.MICROSECONDS[+R/L]"),
            );
        };
        let due = tat.due();
        if read.expires == -1 {
            r.violation(
                key,
                format!("has no expiry (due {due}, one second after its TAT)"),
            );
        } else if read.expires as i128 != due {
            r.violation(
                key,
                format!(
                    "expires at {}, but its TAT {value} gives {due}",
                    read.expires
                ),
            );
        }
        if self.c.settled() {
            if let Some(over) = tat.over(rule, channel, read.now_us) {
                r.violation(key, format!("its TAT {value} {over}"));
            }
        }
    }

    /// A page of buckets (`<ns>rlb:RULE:WINDOW:N`, campaign layout 3,
    /// lib/limits.lua): hashes of a fixed-window rule that counts by user,
    /// naming one of its windows and a bucket 0..[`LIMIT_BUCKETS`], each
    /// field the subject of a user of that bucket (the user included),
    /// holding a count >= 1 (settled: within the allowance), expiring as the
    /// window ends. A bucket of the rule as it was before a configure
    /// (another window, kind or `by` under its name) is only counted.
    fn buckets(
        &mut self,
        con: &mut dyn ConnectionLike,
        batch: &[(String, String, String)],
        r: &mut Report,
    ) -> RedisResult<()> {
        let keys = batch.iter().map(|(key, ..)| key.as_str());
        let Some((got, _)) = typed_reads(con, keys, "HGETALL")? else {
            return Ok(());
        };
        let c = &self.c;
        for ((key, rule, rest), v) in batch.iter().zip(got.chunks(3)) {
            let expires = int(&v[2]).unwrap_or(-2);
            if expires == -2 {
                continue; // expired since SCAN
            }
            let kind = text(&v[0]).unwrap_or_default();
            if kind != "hash" {
                r.violation(key, format!("is a {kind}, not a bucket of counters"));
                continue;
            }
            let rule = &c.rules[rule];
            let fixed = !matches!(rule.window, RuleWindow::Rolling | RuleWindow::Campaign);
            let found = if fixed && rule.per_voter() {
                rule.fixed_window(rest, c.offset)
            } else {
                Err("is a bucket of a rule that keeps no buckets (rolling, campaign, or not by user)")
            };
            let (window, bucket) = match found {
                Ok(found) => found,
                Err(_) if !c.settled() => {
                    r.count("counters_of_former_rules", 1);
                    continue;
                }
                Err(what) => {
                    r.violation(key, what);
                    continue;
                }
            };
            let Some(bucket) = stored_int(bucket, 0, LIMIT_BUCKETS - 1) else {
                r.violation(
                    key,
                    format!("names bucket {bucket:?}, not 0..{}", LIMIT_BUCKETS - 1),
                );
                continue;
            };
            let settled = match (rule.window, window) {
                (RuleWindow::Period(_), Some((start, _))) => c.settled_period(Some(start)),
                (_, Some((start, _))) => c.settled_since(start),
                (_, None) => c.settled(),
            };
            r.count("buckets", 1);
            let fields: Vec<String> = match &v[1] {
                Value::Array(items) => items.iter().map(|i| text(i).unwrap_or_default()).collect(),
                Value::Map(items) => items
                    .iter()
                    .flat_map(|(k, v)| [text(k).unwrap_or_default(), text(v).unwrap_or_default()])
                    .collect(),
                _ => Vec::new(),
            };
            for pair in fields.chunks(2) {
                let [field, value] = pair else { continue };
                self.bucket_field(key, rule, bucket, (field, value), settled, r);
            }
            self.counter_expiry(key, window, settled, expires, r);
        }
        Ok(())
    }

    /// One field of a bucket (see [`Scan::buckets`]): the subject of a user
    /// of the bucket, and a count.
    fn bucket_field(
        &self,
        key: &str,
        rule: &Rule,
        bucket: i64,
        (field, value): (&str, &str),
        settled: bool,
        r: &mut Report,
    ) {
        r.count("counters", 1);
        let Some(channel) = rule.subject(field) else {
            if !settled {
                return r.count("counters_of_former_rules", 1);
            }
            return r.violation(
                key,
                format!("field {field:?} does not match the rule's dimensions"),
            );
        };
        if let Some(user) = rule.user_of(field) {
            if limit_bucket(user) != bucket {
                r.violation(
                    key,
                    format!(
                        "field {field:?}: user {user:?} belongs in bucket {}",
                        limit_bucket(user)
                    ),
                );
            }
        }
        let Some(count) = stored_int(value, 1, COUNT_MAX) else {
            return r.violation(
                key,
                format!("field {field:?} holds {value:?}, not a count >= 1"),
            );
        };
        let allowance = rule.allowance(channel);
        if settled && count > allowance {
            r.violation(
                key,
                format!("field {field:?} counts {count}, over its rule's allowance of {allowance}"),
            );
        }
    }

    /// A page of voters' counter hashes (`<ns>rlu:USER`, lib/limits.lua):
    /// field `@` is the hash's expiry, and the latest end among its
    /// counters; a field `RULE[|SUBJECT]` of a rule that counts by user
    /// holds `END:COUNT:WINDOW` (END: the end of one of the rule's windows;
    /// a value of another window, or a TAT of a fixed rule, is of the rule
    /// before it changed, and only counted) or a
    /// rolling TAT. Fields of rules no longer configured are counted, not
    /// reported (they go with the hash).
    fn voters(
        &mut self,
        con: &mut dyn ConnectionLike,
        batch: &[String],
        r: &mut Report,
    ) -> RedisResult<()> {
        let keys = batch.iter().map(String::as_str);
        let Some((got, now_us)) = typed_reads(con, keys, "HGETALL")? else {
            return Ok(());
        };
        for (key, v) in batch.iter().zip(got.chunks(3)) {
            let expires = int(&v[2]).unwrap_or(-2);
            if expires == -2 {
                continue; // expired since SCAN
            }
            let kind = text(&v[0]).unwrap_or_default();
            if kind != "hash" {
                r.violation(
                    key,
                    format!("is a {kind}, not a hash of a voter's counters"),
                );
                continue;
            }
            let fields: Vec<String> = match &v[1] {
                Value::Array(items) => items.iter().map(|i| text(i).unwrap_or_default()).collect(),
                Value::Map(items) => items
                    .iter()
                    .flat_map(|(k, v)| [text(k).unwrap_or_default(), text(v).unwrap_or_default()])
                    .collect(),
                _ => Vec::new(),
            };
            self.voter(key, expires, &fields, now_us, r);
        }
        Ok(())
    }

    /// One voter's counter hash (see [`Scan::voters`]): `fields` as
    /// HGETALL answers them. Each counter field is checked
    /// ([`Scan::voter_field`]), then field `@` against the hash's expiry and
    /// the latest end among its counters (the hash must outlive every
    /// counter in it).
    fn voter(&self, key: &str, expires: i64, fields: &[String], now_us: i128, r: &mut Report) {
        let mut latest = 0;
        let mut recorded = None;
        for pair in fields.chunks(2) {
            let [field, value] = pair else { continue };
            if field == "@" {
                recorded = Some(value.clone());
                continue;
            }
            latest = latest.max(self.voter_field(key, (field, value), now_us, r));
        }
        match recorded
            .as_deref()
            .and_then(|v| stored_int(v, 1, TIME_MAX + 1))
        {
            None => r.violation(
                key,
                format!("field \"@\" is {recorded:?}, not the hash's expiry (Unix seconds)"),
            ),
            Some(at) => {
                if at != expires {
                    r.violation(
                        key,
                        format!("expires at {expires}, but its field \"@\" records {at}"),
                    );
                }
                if latest > at {
                    r.violation(
                        key,
                        format!(
                            "a counter ends at {latest}, after the hash's recorded expiry {at}"
                        ),
                    );
                }
            }
        }
    }

    /// One counter field `RULE[|SUBJECT]` of a voter's hash: of a rule
    /// that counts by user (fields of others are counted, not reported),
    /// with a subject of the rule's other dimensions, holding a value of
    /// the rule's kind: a rolling TAT (settled: within the allowance) or
    /// END:COUNT:WINDOW ([`Scan::voter_window_count`]). A value of the
    /// rule's former kind (it changed under its name) counts as 0 for the
    /// scripts and goes with the hash: only counted. Returns when the
    /// counter ends (0: unknown), which the hash's expiry may not precede.
    fn voter_field(
        &self,
        key: &str,
        (field, value): (&str, &str),
        now_us: i128,
        r: &mut Report,
    ) -> i64 {
        let c = &self.c;
        let (name, subject) = field.split_once('|').unwrap_or((field, ""));
        let Some(rule) = c.rules.get(name).filter(|rule| rule.per_voter()) else {
            r.count("counters_of_other_rules", 1);
            return 0;
        };
        let Some(channel) = rule.subject_of(subject, true) else {
            // of the rule before its `by` changed under its name?
            let end = match Tat::parse(value) {
                Some(tat) => Some(tat.due() as i64),
                None => value
                    .split(':')
                    .next()
                    .and_then(|e| stored_int(e, 1, TIME_MAX + 1)),
            };
            if let Some(end) = end.filter(|&end| c.may_predate(rule, end)) {
                r.count("counters_of_former_rules", 1);
                return end;
            }
            r.count("counters", 1);
            r.violation(
                key,
                format!(
                    "field {field:?}: subject {subject:?} does not match the rule's dimensions"
                ),
            );
            return 0;
        };
        r.count("counters", 1);
        // a value of the rule's former kind (it changed under its
        // name): counts as 0 for the scripts, goes with the hash
        let counted = value.split(':').nth(2).unwrap_or(rule.window.name());
        let former = match rule.window {
            RuleWindow::Rolling => value.contains(':'),
            _ => Tat::parse(value).is_some() || counted != rule.window.name(),
        };
        if former {
            r.count("counters_of_former_windows", 1);
            return match Tat::parse(value) {
                Some(tat) => tat.due() as i64,
                None => value
                    .split(':')
                    .next()
                    .and_then(|e| stored_int(e, 1, TIME_MAX + 1))
                    .unwrap_or(0),
            };
        }
        if rule.window != RuleWindow::Rolling {
            return self.voter_window_count(key, (field, value), rule, channel, now_us, r);
        }
        let Some(tat) = Tat::parse(value) else {
            r.violation(
                key,
                format!(
                    "field {field:?} holds {value:?}, not a rolling TAT SECONDS.MICROSECONDS[+R/L]"
                ),
            );
            return 0;
        };
        if c.settled() {
            if let Some(over) = tat.over(rule, channel, now_us) {
                r.violation(key, format!("field {field:?}: its TAT {value} {over}"));
            }
        }
        tat.due() as i64
    }

    /// A fixed rule's counter in a voter's hash: END:COUNT:WINDOW
    /// (END:COUNT from redvote 0.3), END the end of one of the rule's
    /// windows, COUNT >= 1 and, settled and the window not over, within the
    /// rule's allowance (the vote refuses beyond it). Returns END (0 when
    /// the value does not parse).
    fn voter_window_count(
        &self,
        key: &str,
        (field, value): (&str, &str),
        rule: &Rule,
        channel: Option<&str>,
        now_us: i128,
        r: &mut Report,
    ) -> i64 {
        let c = &self.c;
        let now = (now_us / 1000000) as i64;
        let mut parts = value.splitn(3, ':');
        let parsed = match (parts.next(), parts.next()) {
            (Some(end), Some(count)) => {
                stored_int(end, 1, TIME_MAX + 1).zip(stored_int(count, 1, COUNT_MAX))
            }
            _ => None,
        };
        let Some((end, count)) = parsed else {
            r.violation(
                key,
                format!("field {field:?} holds {value:?}, not END:COUNT:WINDOW (count >= 1)"),
            );
            return 0;
        };
        // the window that ends at END (None: END is not a window end)
        let start = match rule.window {
            RuleWindow::Second => Some(end - 1),
            RuleWindow::Minute => (end % 60 == 0).then_some(end - 60),
            RuleWindow::Period(kind) => {
                let (_, start, finish) = period(kind, end - 1, c.offset);
                (finish == end).then_some(start)
            }
            RuleWindow::Rolling | RuleWindow::Campaign => None,
        };
        let Some(start) = start else {
            // a window of the offset before a configure changed it?
            if c.may_predate(rule, end) {
                r.count("counters_of_former_offsets", 1);
            } else {
                r.violation(
                    key,
                    format!("field {field:?}: {end} is not the end of a window of its rule"),
                );
            }
            return end;
        };
        let settled = match rule.window {
            RuleWindow::Period(_) => c.settled_period(Some(start)),
            _ => c.settled_since(start),
        };
        let allowance = rule.allowance(channel);
        if settled && end > now && count > allowance {
            r.violation(
                key,
                format!("field {field:?} counts {count}, over its rule's allowance of {allowance}"),
            );
        }
        end
    }

    /// The campaign-window counters of one rule: a hash (field = subject,
    /// value = votes counted) that expires exactly [`COUNTER_GRACE`] after
    /// the campaign's end, or never without one.
    fn campaign_hash(
        &self,
        con: &mut dyn ConnectionLike,
        key: &str,
        rule: &Rule,
        expires: i64,
        r: &mut Report,
    ) -> RedisResult<()> {
        match (self.c.end, expires) {
            (Some(end), -1) => r.violation(
                key,
                format!("has no expiry, but the campaign ends at {end}"),
            ),
            (Some(end), at) if at != end + COUNTER_GRACE => r.violation(
                key,
                format!(
                    "expires at {at}, but the campaign ends at {end} (+{COUNTER_GRACE} s expected)"
                ),
            ),
            (None, at) if at != -1 => {
                r.violation(key, format!("expires at {at}, but the campaign has no end"))
            }
            _ => {}
        }
        let settled = self.c.settled();
        hash_pages(con, key, r, |key, subject, v, r| {
            r.count("counters", 1);
            let Some(channel) = rule.subject(subject) else {
                if !settled {
                    // of the rule before its `by` changed under its name
                    return r.count("counters_of_former_rules", 1);
                }
                return r.violation(
                    key,
                    format!("field {subject:?} does not match the rule's dimensions"),
                );
            };
            match stored_int(v, 1, COUNT_MAX) {
                None => r.violation(
                    key,
                    format!("field {subject:?} holds {v:?}, not a count >= 1"),
                ),
                Some(n) if settled && n > rule.allowance(channel) => r.violation(
                    key,
                    format!(
                        "field {subject:?} counts {n}, over its rule's allowance of {}",
                        rule.allowance(channel)
                    ),
                ),
                _ => {}
            }
        })
    }

    /// One period board: its expiry against the index
    /// ([`Scan::board_expiry`]), the order side key's size
    /// ([`Scan::first_order_count`]), and its entries, page by page
    /// ([`Scan::board_page`]), against the other boards; the side-key gaps
    /// a complete scan found last ([`PeriodBoard::report_gaps`]).
    fn board_key(
        &self,
        con: &mut dyn ConnectionLike,
        id: &(String, String, String),
        key: &str,
        pending: &mut Vec<(String, Missing)>,
        r: &mut Report,
    ) -> RedisResult<()> {
        r.count("board_keys", 1);
        let pb = self.period_board(id, key);
        if !self.board_expiry(con, &pb, r)? || !pb.b.ok {
            return Ok(());
        }
        if pb.b.first {
            self.first_order_count(con, &pb, r)?;
        }
        let mut gaps = BoardGaps {
            first: Vec::new(),
            dense: Vec::new(),
            pending,
        };
        let whole = scan_checked(con, "ZSCAN", key, r, |con, page, r| {
            self.board_page(con, &pb, &page, &mut gaps, r)
        })?;
        if whole {
            pb.report_gaps(gaps, r);
        }
        Ok(())
    }

    /// The period board `key` of `(name, kind, p)` with what its checks
    /// derive from the settings: its period's bounds in the current offset,
    /// whether it was written under the current settings, and the keys its
    /// entries are compared with.
    fn period_board<'s>(
        &'s self,
        (name, kind, p): &'s (String, String, String),
        key: &'s str,
    ) -> PeriodBoard<'s> {
        let (name, kind, p) = (name.as_str(), kind.as_str(), p.as_str());
        let ns = self.ns;
        let b = &self.boards[name];
        let c = &self.c;
        // The period: bounds in the current offset, the one before it. A
        // shown board is written from the start of the period before (the
        // carried shares of its votes, under the carry, weights and
        // decimals of then): it is settled when that period is.
        let bounds = parse_period(p, c.offset);
        let prev = bounds.map(|(k, s, _)| period(k, s - 1, c.offset));
        let real = kind == "real";
        let settled = match (&prev, real) {
            (Some((_, prev_start, _)), false) => c.settled_period(Some(*prev_start)),
            _ => c.settled_period(bounds.map(|(_, s, _)| s)),
        };
        PeriodBoard {
            name,
            kind,
            p,
            key,
            b,
            bounds,
            settled,
            real,
            other: format!("{ns}b:{name}:{}:{p}", if real { "shown" } else { "real" }),
            total_real: format!("{ns}b:{name}:real:total"),
            with_total: real && p != "total" && b.keeps("total") && settled,
            prev_real: prev
                .as_ref()
                .filter(|_| !real && b.carry > 0)
                .map(|(n, s, _)| (format!("{ns}b:{name}:real:{n}"), format!("real:{n}"), *s)),
            first_key: format!("{ns}f:{name}:{kind}:{p}"),
            initial_key: format!("{ns}initial:{name}"),
            dense_key: format!("{ns}d:{name}:{kind}:{p}"),
            dense: b.dense,
        }
    }

    /// The board's expiry against the one its index `<ns>periods:B`
    /// records (read again when the index read at the start lacks it: the
    /// board may have been created since), and, for a settled period the
    /// board keeps, that record against the period's end + the board's
    /// retention: the scripts set both together, and a wrong one keeps a
    /// board forever or drops it early. False when the board has expired
    /// since SCAN (nothing more to check).
    fn board_expiry(
        &self,
        con: &mut dyn ConnectionLike,
        pb: &PeriodBoard,
        r: &mut Report,
    ) -> RedisResult<bool> {
        let (b, key) = (pb.b, pb.key);
        let kept = b.keeps(pb.p.split(':').next().unwrap_or(pb.p));
        let index_key = format!("{}periods:{}", self.ns, pb.name);
        let member = format!("{}:{}", pb.kind, pb.p);
        let mut pipe = redis::pipe();
        pipe.cmd("EXPIRETIME").arg(key);
        pipe.cmd("TIME");
        let got = exec(con, &mut pipe)?;
        let expires = int(&got[0]).unwrap_or(-2);
        if expires == -2 {
            return Ok(false); // expired since SCAN
        }
        // A board created since the index was read is in it now.
        let listed = match b.index.get(&member) {
            Some(&at) => Some(at),
            None => {
                let at: Option<f64> = redis::cmd("ZSCORE")
                    .arg(&index_key)
                    .arg(&member)
                    .query(con)?;
                at.map(|at| at as i64)
            }
        };
        match listed {
            None => {
                let mut reads = redis::pipe();
                reads.cmd("EXISTS").arg(key);
                reads.cmd("ZSCORE").arg(&index_key).arg(&member);
                let what = format!("is not listed in {index_key}");
                r.suspect(
                    key,
                    Recheck::new(reads, move |got| {
                        (int(&got[0]) == Some(1) && matches!(got[1], Value::Nil))
                            .then(|| what.clone())
                    }),
                );
            }
            Some(at) => {
                if let Some(wrong) = expiry_mismatch(expires, at) {
                    r.violation(key, wrong);
                }
                if b.ok && pb.settled && kept {
                    let want = match pb.bounds {
                        Some((k, _, end)) if b.keep[k.as_str()] > 0 => end + b.keep[k.as_str()],
                        _ => 0,
                    };
                    if at != want {
                        r.violation(
                            &index_key,
                            format!("records the expiry {at} for {member}, but the period's end + retention is {want}"),
                        );
                    }
                }
            }
        }
        Ok(true)
    }

    /// Ties first, indexed: the order side key `<ns>o:B:KIND:P` holds one
    /// entry for every member of the board, which the reads rank by
    /// ([`Scan::order_key`] checks that each entry is right, so the counts
    /// tell the rest).
    fn first_order_count(
        &self,
        con: &mut dyn ConnectionLike,
        pb: &PeriodBoard,
        r: &mut Report,
    ) -> RedisResult<()> {
        let key = pb.key;
        let order_key = format!("{}o:{}:{}:{}", self.ns, pb.name, pb.kind, pb.p);
        let mut pipe = redis::pipe();
        pipe.cmd("ZCARD").arg(key);
        pipe.cmd("ZCARD").arg(&order_key);
        let got = exec(con, &mut pipe)?;
        if let (Some(n), Some(o)) = (int(&got[0]), int(&got[1])) {
            if n != o {
                r.violation(
                    &order_key,
                    format!("holds {o} entries for the {n} members of {key} (ties first, indexed)"),
                );
            }
        }
        Ok(())
    }

    /// One ZSCAN page of a period board, read again with the same members
    /// of the boards it is compared with in one MULTI/EXEC (one snapshot:
    /// votes go on while the check runs), then each entry checked
    /// ([`PeriodBoard::entry`]). Ties dense, indexed: each score the scan
    /// saw, if the member still holds it, has exactly one entry in the
    /// dense side key (a gap is reported after a complete scan).
    fn board_page(
        &self,
        con: &mut dyn ConnectionLike,
        pb: &PeriodBoard,
        page: &[Vec<u8>],
        gaps: &mut BoardGaps,
        r: &mut Report,
    ) -> RedisResult<()> {
        let members: Vec<String> = page
            .chunks(2)
            .map(|m| String::from_utf8_lossy(&m[0]).into_owned())
            .collect();
        if members.is_empty() {
            return Ok(());
        }
        // the scores as ZSCAN saw them
        let scanned: Vec<String> = page
            .chunks(2)
            .map(|m| String::from_utf8_lossy(&m[1]).into_owned())
            .collect();
        let got = exec(con, &mut pb.page_reads(&members, &scanned))?;
        let now = time_of(&got[7]).map_or(self.c.now, |t| t.0);
        let read = PageRead {
            prev_known: self.prev_known(pb, &got, now),
            got,
        };
        if pb.dense {
            for (j, m) in members.iter().enumerate() {
                let now_score = read.col(0, j).and_then(|t| score_of(&t));
                if now_score.is_some()
                    && now_score == score_of(&scanned[j])
                    && int(&read.got[8 + j]) != Some(1)
                {
                    gaps.dense.push(format!("{m} ({})", scanned[j]));
                }
            }
        }
        for (j, m) in members.iter().enumerate() {
            pb.entry(&read, (j, m), gaps, r);
        }
        Ok(())
    }

    /// Whether the real votes of the period before (a shown board with a
    /// carry) are known as of this page's read (`got`, at `now`): settled,
    /// and that board exists or has not expired (or was never written).
    /// `None`: no period before is added in.
    fn prev_known(&self, pb: &PeriodBoard, got: &[Value], now: i64) -> Option<bool> {
        pb.prev_real.as_ref().map(|(_, m, start)| {
            let exists = int(&got[6]) == Some(1);
            let listed_alive = match pb.b.index.get(m) {
                None => true,
                Some(&at) => at == 0 || at > now,
            };
            (exists || listed_alive) && self.c.settled_period(Some(*start))
        })
    }

    /// A "first" side key: a board beside it, the same expiry, only its
    /// members, sequence numbers in 1..seq.
    #[allow(clippy::too_many_arguments)]
    fn first_key(
        &self,
        con: &mut dyn ConnectionLike,
        name: &str,
        kind: &str,
        p: &str,
        key: &str,
        beside: bool,
        r: &mut Report,
    ) -> RedisResult<()> {
        let ns = self.ns;
        let b = &self.boards[name];
        let board_key = format!("{ns}b:{name}:{kind}:{p}");
        r.count("first_keys", 1);
        if !self.beside_its_board(con, b, (kind, p), key, beside, r)? {
            return Ok(());
        }
        scan_checked(con, "ZSCAN", key, r, |con, page, r| {
            let members: Vec<String> = page
                .chunks(2)
                .map(|m| String::from_utf8_lossy(&m[0]).into_owned())
                .collect();
            if !members.is_empty() {
                let mut pipe = redis::pipe();
                pipe.cmd("ZMSCORE").arg(key).arg(&members);
                pipe.cmd("ZMSCORE").arg(&board_key).arg(&members);
                pipe.cmd("GET").arg(format!("{ns}seq"));
                let got = exec(con, &mut pipe)?;
                // the sequence as it is now (votes go on); a corrupt one was
                // reported with the settings
                let top = match &self.seq {
                    Some(_) => text(&got[2]).and_then(|t| t.parse::<f64>().ok()),
                    None => None,
                };
                for (j, m) in members.iter().enumerate() {
                    let Some(s) = items(&got[0]).get(j).and_then(text) else {
                        continue;
                    };
                    let seq = score_of(&s).unwrap_or(f64::NAN);
                    let within = top.is_none_or(|top| seq <= top);
                    if !(seq.fract() == 0.0 && seq >= 1.0 && within) {
                        let top = top.map_or("seq".to_string(), |t| t.to_string());
                        r.violation(
                            key,
                            format!(
                                "{m} has the sequence number {s}, not a vote number in 1..{top}"
                            ),
                        );
                    }
                    if items(&got[1]).get(j).and_then(text).is_none() {
                        r.violation(key, format!("holds {m}, which is not on {board_key}"));
                    }
                }
            }
            Ok(())
        })?;
        Ok(())
    }

    /// A side key (`f:`, `o:`, `d:`) of the period board `(kind, p)`: false
    /// when it has expired since SCAN, or has no board beside it (reported);
    /// its expiry is compared with the one the index records.
    fn beside_its_board(
        &self,
        con: &mut dyn ConnectionLike,
        b: &Board,
        (kind, p): (&str, &str),
        key: &str,
        beside: bool,
        r: &mut Report,
    ) -> RedisResult<bool> {
        let expires: i64 = redis::cmd("EXPIRETIME").arg(key).query(con)?;
        if expires == -2 {
            return Ok(false);
        }
        // <ns>X:B:KIND:P beside <ns>b:B:KIND:P
        let board_key = format!("{}b:{}", self.ns, &key[self.ns.len() + 2..]);
        // (a board created while SCAN ran may have escaped it: look)
        if !beside && redis::cmd("EXISTS").arg(&board_key).query::<i64>(con)? == 0 {
            let mut reads = redis::pipe();
            reads.cmd("EXISTS").arg(key);
            reads.cmd("EXISTS").arg(&board_key);
            let what = format!("has no board {board_key} beside it");
            r.suspect(
                key,
                Recheck::new(reads, move |got| {
                    (int(&got[0]) == Some(1) && int(&got[1]) == Some(0)).then(|| what.clone())
                }),
            );
            return Ok(false);
        }
        if let Some(&at) = b.index.get(&format!("{kind}:{p}")) {
            if let Some(wrong) = expiry_mismatch(expires, at) {
                r.violation(key, wrong);
            }
        }
        Ok(true)
    }

    /// An order side key of `lua/src/lib/order.lua` (`o:` of ties first,
    /// `d:` of dense): a board of that rule beside it, the same expiry, and
    /// every entry right ([`OrderSide::page`]). An `o:` entry is 15 digits
    /// of 10^15 - 1 - seq and a member of the board, scored as on the board,
    /// seq its `f:` sequence number (none: 0 digits); a `d:` entry is a
    /// score that some member holds, once. (That every member or score has
    /// its entry is checked with the board, when the board is indexed.)
    fn order_key(
        &self,
        con: &mut dyn ConnectionLike,
        (letter, name, kind, p): (char, &str, &str, &str),
        key: &str,
        beside: bool,
        r: &mut Report,
    ) -> RedisResult<()> {
        let ns = self.ns;
        let b = &self.boards[name];
        let side = OrderSide {
            letter,
            key,
            board_key: format!("{ns}b:{name}:{kind}:{p}"),
            first_key: format!("{ns}f:{name}:{kind}:{p}"),
        };
        r.count("order_keys", 1);
        let rule = if letter == 'o' { "first" } else { "dense" };
        let kept = if letter == 'o' {
            b.first || b.pending_first
        } else {
            b.dense || b.pending_dense
        };
        if b.ok && !kept {
            r.violation(
                key,
                format!("is a side key of ties {rule}, which the board does not have"),
            );
            return Ok(());
        }
        if !self.beside_its_board(con, b, (kind, p), key, beside, r)? {
            return Ok(());
        }
        scan_checked(con, "ZSCAN", key, r, |con, page, r| {
            side.page(con, &page, r)
        })?;
        Ok(())
    }

    /// Every board the index lists, not expired, exists (read again, with
    /// the index entry, when the scan did not find it).
    fn listed_boards_exist(
        &self,
        con: &mut dyn ConnectionLike,
        found: &BTreeMap<(String, String, String), String>,
        r: &mut Report,
    ) -> RedisResult<()> {
        let ns = self.ns;
        for (name, b) in &self.boards {
            let index_key = format!("{ns}periods:{name}");
            for (member, &at) in &b.index {
                let (kind, p) = member.split_once(':').unwrap_or((member, ""));
                if (at != 0 && at <= self.c.now)
                    || found.contains_key(&(name.clone(), kind.to_string(), p.to_string()))
                {
                    continue;
                }
                let key = format!("{ns}b:{name}:{member}");
                let mut pipe = redis::pipe();
                pipe.cmd("ZSCORE").arg(&index_key).arg(member);
                pipe.cmd("EXISTS").arg(&key);
                pipe.cmd("TIME");
                let got = exec(con, &mut pipe)?;
                let now = time_of(&got[2]).map_or(self.c.now, |t| t.0);
                let listed = text(&got[0]).and_then(|s| score_of(&s)).map(|s| s as i64);
                if let Some(at) = listed.filter(|&at| at == 0 || at > now) {
                    if int(&got[1]) == Some(0) {
                        let when = if at == 0 {
                            "kept".to_string()
                        } else {
                            format!("expiring at {at}")
                        };
                        r.violation(
                            &index_key,
                            format!("lists {member} ({when}), but {key} does not exist"),
                        );
                    }
                }
            }
        }
        Ok(())
    }
}

/// An order side key under check ([`Scan::order_key`]).
struct OrderSide<'a> {
    /// `o` (ties first) or `d` (ties dense).
    letter: char,
    key: &'a str,
    /// The board beside it, and that board's "first" side key.
    board_key: String,
    first_key: String,
}

impl OrderSide<'_> {
    /// One ZSCAN page of entries, read again in one MULTI/EXEC with what
    /// they are checked against (one snapshot: votes go on): 0 the entries'
    /// scores here, then for `o:` 1 their members' scores on the board and
    /// 2 in the "first" side key ([`OrderSide::first_entry`]), for `d:`
    /// ZCOUNT of each score on the board, then here
    /// ([`OrderSide::dense_entry`]). An entry gone since ZSCAN is skipped.
    fn page(
        &self,
        con: &mut dyn ConnectionLike,
        page: &[Vec<u8>],
        r: &mut Report,
    ) -> RedisResult<()> {
        let entries: Vec<String> = page
            .chunks(2)
            .map(|m| String::from_utf8_lossy(&m[0]).into_owned())
            .collect();
        let mut pipe = redis::pipe();
        pipe.cmd("ZMSCORE").arg(self.key).arg(&entries);
        let mut members = Vec::new();
        if self.letter == 'o' {
            for e in &entries {
                let ok = e.len() > 15 && e.as_bytes()[..15].iter().all(u8::is_ascii_digit);
                members.push(if ok {
                    e[15..].to_string()
                } else {
                    String::new()
                });
            }
            pipe.cmd("ZMSCORE").arg(&self.board_key).arg(&members);
            pipe.cmd("ZMSCORE").arg(&self.first_key).arg(&members);
        } else {
            let scores: Vec<String> = page
                .chunks(2)
                .map(|m| String::from_utf8_lossy(&m[1]).into_owned())
                .collect();
            for s in &scores {
                pipe.cmd("ZCOUNT").arg(&self.board_key).arg(s).arg(s);
            }
            for s in &scores {
                pipe.cmd("ZCOUNT").arg(self.key).arg(s).arg(s);
            }
        }
        let got = if entries.is_empty() {
            Vec::new()
        } else {
            exec(con, &mut pipe)?
        };
        let n = entries.len();
        for (j, e) in entries.iter().enumerate() {
            let Some(s) = items(&got[0]).get(j).and_then(text) else {
                continue; // gone since ZSCAN
            };
            if self.letter == 'd' {
                self.dense_entry(&got, (j, n), &s, r);
            } else {
                self.first_entry(&got, j, (e, &members[j]), &s, r);
            }
        }
        Ok(())
    }

    /// The `j`th of `n` entries of a `d:` key, the score `s`: some member
    /// of the board holds it (else the dense rank counts a score no one
    /// has), and it is here once.
    fn dense_entry(&self, got: &[Value], (j, n): (usize, usize), s: &str, r: &mut Report) {
        if int(&got[1 + j]) == Some(0) {
            r.violation(
                self.key,
                format!(
                    "holds the score {s}, which no member of {} has",
                    self.board_key
                ),
            );
        } else if int(&got[1 + n + j]) != Some(1) {
            r.violation(self.key, format!("holds the score {s} more than once"));
        }
    }

    /// The `j`th entry `e` of an `o:` key, scored `s`: 15 digits and a
    /// member `m` of the board (empty when `e` is not), scored as on the
    /// board, the digits 10^15 - 1 - its vote sequence number in the
    /// "first" side key (none: 0): the order ties first ranks by.
    fn first_entry(&self, got: &[Value], j: usize, (e, m): (&str, &str), s: &str, r: &mut Report) {
        let (key, board_key) = (self.key, &self.board_key);
        if m.is_empty() {
            r.violation(key, format!("holds {e:?}, not 15 digits and a member"));
            return;
        }
        let Some(on_board) = items(&got[1]).get(j).and_then(text) else {
            r.violation(key, format!("holds {m}, which is not on {board_key}"));
            return;
        };
        if score_of(&on_board) != score_of(s) {
            r.violation(
                key,
                format!("orders {m} at {s}, but {board_key} scores it {on_board}"),
            );
        }
        let seq = items(&got[2])
            .get(j)
            .and_then(text)
            .and_then(|t| score_of(&t));
        let want = 999_999_999_999_999 - seq.map_or(999_999_999_999_999, |x| x as i64);
        if e[..15].parse::<i64>().ok() != Some(want) {
            r.violation(
                key,
                format!(
                    "orders {m} as of the vote {}, but {} records {}",
                    999_999_999_999_999 - e[..15].parse::<i64>().unwrap_or(0),
                    self.first_key,
                    seq.map_or("none".to_string(), |x| x.to_string())
                ),
            );
        }
    }
}

/// A period board under check ([`Scan::board_key`]): where it is, its
/// period, and the keys its entries are compared with.
struct PeriodBoard<'a> {
    /// Its board's name and settings.
    name: &'a str,
    b: &'a Board,
    /// `real` or `shown`, and the period (`total`, `day:...`).
    kind: &'a str,
    p: &'a str,
    key: &'a str,
    /// The period's kind, start and end in the current offset (`None`: the
    /// total, or a name that does not parse).
    bounds: Option<(Period, i64, i64)>,
    /// Written under the current settings ([`Settings::settled_period`]).
    settled: bool,
    real: bool,
    /// The board of the other kind (real / shown) of the same period.
    other: String,
    /// `<ns>b:B:real:total`, which a real entry is compared with when
    /// `with_total` (a real board of a period, the total kept, settled).
    total_real: String,
    with_total: bool,
    /// A shown board with a carry: the real board of the period before,
    /// its index member (`real:P`) and that period's start.
    prev_real: Option<(String, String, i64)>,
    first_key: String,
    initial_key: String,
    dense_key: String,
    /// Ties dense, indexed: every score has one entry in `dense_key`.
    dense: bool,
}

/// What the pages of one period board leave to report or read again.
struct BoardGaps<'p> {
    /// Members without a sequence number in the "first" side key (ties
    /// first, settled).
    first: Vec<String>,
    /// Members (with the score the scan saw) whose score has not exactly one
    /// entry in the dense side key (ties dense, indexed).
    dense: Vec<String>,
    /// Entries of options the settings read at the start lack: read again
    /// at the end ([`confirm`]).
    pending: &'p mut Vec<(String, Missing)>,
}

/// One page of a period board as [`PeriodBoard::page_reads`] read it.
struct PageRead {
    got: Vec<Value>,
    /// See [`Scan::prev_known`].
    prev_known: Option<bool>,
}

impl PageRead {
    /// The `j`th member's reply in the `i`th read (a ZMSCORE or HMGET).
    fn col(&self, i: usize, j: usize) -> Option<String> {
        items(&self.got[i]).get(j).and_then(text)
    }
}

/// One entry of a period board, past the checks every entry has: a finite
/// score, of an option with a valid weight.
struct Entry<'e> {
    j: usize,
    m: &'e str,
    /// The score as stored, and parsed.
    s: String,
    score: f64,
    weight: i64,
    /// The same member's score on the board of the other kind.
    other_score: Option<f64>,
}

impl PeriodBoard<'_> {
    /// The reads of one page of `members` (one MULTI/EXEC): 0 this board,
    /// 1 the other kind's, 2 the "first" side key, 3 the total real board
    /// (ZMSCORE each), 4 the imported amounts (HMGET), 5 and 6 the real
    /// board of the period before (ZMSCORE, EXISTS; PINGs without one), 7
    /// the clock, then ties dense, indexed: ZCOUNT of each `scanned` score
    /// in the dense side key.
    fn page_reads(&self, members: &[String], scanned: &[String]) -> redis::Pipeline {
        let mut pipe = redis::pipe();
        pipe.cmd("ZMSCORE").arg(self.key).arg(members);
        pipe.cmd("ZMSCORE").arg(&self.other).arg(members);
        pipe.cmd("ZMSCORE").arg(&self.first_key).arg(members);
        pipe.cmd("ZMSCORE").arg(&self.total_real).arg(members);
        pipe.cmd("HMGET").arg(&self.initial_key).arg(members);
        if let Some((prev_key, ..)) = &self.prev_real {
            pipe.cmd("ZMSCORE").arg(prev_key).arg(members);
            pipe.cmd("EXISTS").arg(prev_key);
        } else {
            pipe.cmd("PING");
            pipe.cmd("PING");
        }
        pipe.cmd("TIME");
        if self.dense {
            for s in scanned {
                pipe.cmd("ZCOUNT").arg(&self.dense_key).arg(s).arg(s);
            }
        }
        pipe
    }

    /// The `j`th member `m` of a page: a finite score, an option of the
    /// board (else read again at the end: configure may have added it),
    /// its "first" sequence number (ties first, settled), then the checks
    /// of its kind ([`PeriodBoard::real_entry`],
    /// [`PeriodBoard::shown_entry`]). A member removed since ZSCAN, or of
    /// a corrupt weight (reported with the weights), is skipped.
    fn entry(&self, read: &PageRead, (j, m): (usize, &str), gaps: &mut BoardGaps, r: &mut Report) {
        let b = self.b;
        let key = self.key;
        let Some(s) = read.col(0, j) else { return }; // removed since ZSCAN
        r.count("board_entries", 1);
        let Some(score) = score_of(&s).filter(|x| x.is_finite()) else {
            r.violation(key, format!("{m} has the non-finite score {s}"));
            return;
        };
        if b.removing.contains(m) {
            // pending removal: a step takes it off; the reads skip it
            r.count("pending_entries", 1);
            return;
        }
        let Some(&weight) = b.weights.get(m) else {
            let recheck = Missing::Option(self.name.to_string(), m.to_string());
            gaps.pending.push((key.to_string(), recheck));
            return;
        };
        let Some(weight) = weight else { return }; // reported with the weights
        if (b.first || b.pending_first) && self.settled && read.col(2, j).is_none() {
            gaps.first.push(m.to_string());
        }
        let e = Entry {
            j,
            m,
            s,
            score,
            weight,
            other_score: read.col(1, j).and_then(|t| score_of(&t)),
        };
        if self.real {
            self.real_entry(read, &e, r);
        } else {
            self.shown_entry(read, &e, r);
        }
    }

    /// A real entry: a whole count >= 1 (each vote adds 1), its option on
    /// the shown board of the period (a vote writes both), and, a period's
    /// board with the total kept and settled, at most the option's total
    /// real count (every vote of a period is in the total).
    fn real_entry(&self, read: &PageRead, e: &Entry, r: &mut Report) {
        let (key, m, s, score) = (self.key, e.m, &e.s, e.score);
        if score.fract() != 0.0 || score < 1.0 {
            r.violation(
                key,
                format!("{m} counts {s} votes, not a whole number >= 1"),
            );
            return;
        }
        if e.other_score.is_none() {
            r.violation(
                &self.other,
                format!("lacks {m}, which {key} counts {s} votes for"),
            );
        }
        if self.with_total {
            let total = read.col(3, e.j).and_then(|t| score_of(&t)).unwrap_or(0.0);
            if score > total {
                r.violation(
                    key,
                    format!(
                        "{m} counts {s} votes, more than the {total} of {}",
                        self.total_real
                    ),
                );
            }
        }
    }

    /// A shown entry: at most `decimals` decimals (settled), then against
    /// the real votes x weight: exactly where the settings it was written
    /// under are known ([`PeriodBoard::shown_exact`]), else the weaker
    /// bound that holds whatever the history ([`PeriodBoard::shown_weak`]).
    /// A period board of an option with imported votes is not compared
    /// (an import adds to the periods current when it runs, which no key
    /// records), nor one whose real counts are not finite (reported on
    /// their own boards).
    fn shown_entry(&self, read: &PageRead, e: &Entry, r: &mut Report) {
        let (b, key, p) = (self.b, self.key, self.p);
        let (m, s, score) = (e.m, &e.s, e.score);
        if self.settled && format!("{score:.*}", b.decimals as usize).parse::<f64>() != Ok(score) {
            r.violation(
                key,
                format!("{m} shows {s}, not a decimal with {} decimals", b.decimals),
            );
        }
        let prev_score = read.col(5, e.j).and_then(|t| score_of(&t));
        // a real count that is not finite is reported on its
        // own board; nothing can be derived from it here
        if [e.other_score, prev_score]
            .iter()
            .any(|x| x.is_some_and(|x| !x.is_finite()))
        {
            return;
        }
        let shown = Shown {
            votes: e.other_score.unwrap_or(0.0) as i128,
            imported: read
                .col(4, e.j)
                .map(|t| t.parse::<f64>().map_or(0, |x| b.units(x))),
            units: b.units(score),
            prev_votes: prev_score.unwrap_or(0.0) as i128,
        };
        let exact = self.settled
            && read.prev_known.unwrap_or(true)
            && (p == "total" || shown.imported.is_none());
        if exact {
            r.count("exact_entries", 1);
            self.shown_exact(e, &shown, r);
        } else if p == "total" || shown.imported.is_none() {
            r.count("weak_entries", 1);
            self.shown_weak(e, &shown, r);
        }
    }

    /// A settled shown entry: exactly real x weight x 10^decimals units, +
    /// the real votes of the period before x the rounded carried share (a
    /// period's board, with a carry), + the imported amount (the total).
    fn shown_exact(&self, e: &Entry, shown: &Shown, r: &mut Report) {
        let (b, p, weight) = (self.b, self.p, e.weight);
        let Shown {
            votes,
            imported,
            units,
            prev_votes,
        } = *shown;
        let mut want = votes
            .saturating_mul(weight as i128)
            .saturating_mul(b.scale() as i128);
        let mut how = format!("{votes} real x weight {weight}");
        if self.prev_real.is_some() && p != "total" {
            want = want.saturating_add(prev_votes.saturating_mul(b.carried(weight)));
            how += &format!(
                " + {prev_votes} real of the period before x carried {}",
                b.text(b.carried(weight))
            );
        }
        if let Some(i) = imported.filter(|_| p == "total") {
            want = want.saturating_add(i);
            how += &format!(" + imported {}", b.text(i));
        }
        if units != want {
            r.violation(
                self.key,
                format!(
                    "{} shows {}, but {how} = {}",
                    e.m,
                    b.text(units),
                    b.text(want)
                ),
            );
        }
    }

    /// A shown entry written under other settings: whatever the history
    /// (every weight >= 1, carry >= 0), shown >= real (+ imported, on the
    /// total; within one unit then, for a rounding after a change of
    /// `decimals`).
    fn shown_weak(&self, e: &Entry, shown: &Shown, r: &mut Report) {
        let b = self.b;
        let Shown {
            votes,
            imported,
            units,
            ..
        } = *shown;
        let want = votes
            .saturating_mul(b.scale() as i128)
            .saturating_add(if self.p == "total" {
                imported.unwrap_or(0)
            } else {
                0
            });
        let slack = i128::from(imported.is_some());
        if units.saturating_add(slack) < want {
            r.violation(
                self.key,
                format!(
                    "{} shows {}, less than its {votes} real votes{} allow",
                    e.m,
                    b.text(units),
                    if imported.is_some() {
                        " + imported"
                    } else {
                        ""
                    }
                ),
            );
        }
    }

    /// After a complete scan (a scan cut short proves no gap), the side-key
    /// entries the pages found missing, at most 5 of each named: the reads
    /// of ties dense and first rank by these keys.
    fn report_gaps(&self, gaps: BoardGaps, r: &mut Report) {
        let key = self.key;
        let BoardGaps {
            first: mut missing_first,
            dense: mut missing_dense,
            ..
        } = gaps;
        if !missing_dense.is_empty() {
            let n = missing_dense.len();
            missing_dense.truncate(5);
            r.violation(
                &self.dense_key,
                format!(
                    "does not hold the score of {n} member(s) of {key} exactly once (ties dense, indexed): {}",
                    missing_dense.join(", ")
                ),
            );
        }
        if !missing_first.is_empty() {
            let n = missing_first.len();
            missing_first.truncate(5);
            r.violation(
                &self.first_key,
                format!(
                    "lacks {n} member(s) of {key} (ties first): {}",
                    missing_first.join(", ")
                ),
            );
        }
    }
}

/// A shown entry's amounts, in units of 10^-decimals where not votes.
#[derive(Clone, Copy)]
struct Shown {
    /// Real votes of the same period.
    votes: i128,
    /// The option's imported amount (`None`: no import).
    imported: Option<i128>,
    /// The shown score.
    units: i128,
    /// Real votes of the period before (0 without one).
    prev_votes: i128,
}

/// How a key's expiry (`EXPIRETIME`) differs from the one its index
/// records (0: none), if it does.
fn expiry_mismatch(expires: i64, recorded: i64) -> Option<String> {
    match (expires, recorded) {
        (-1, 0) => None,
        (-1, at) => Some(format!("has no expiry, but the index records {at}")),
        (got, 0) => Some(format!("expires at {got}, but the index records none")),
        (got, at) if got != at => Some(format!("expires at {got}, but the index records {at}")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_parse_as_limit_subject_writes_them() {
        let json = r#"[{"name":"a","by":["user","option","channel"],"window":"day","limit":5,"extra":{"partner":3}},
                      {"name":"b","by":["user"],"rolling":true,"limit":7,"per":60,"burst":2}]"#;
        let parsed = rules(json).unwrap();
        let a = &parsed["a"];
        assert_eq!(a.window, RuleWindow::Period(Period::Day));
        assert_eq!(
            a.subject("6:user:1|5:stars3:y:x|7:partner"),
            Some(Some("partner"))
        );
        assert_eq!(a.allowance(Some("partner")), 8);
        assert_eq!(a.allowance(Some("")), 5);
        assert_eq!(a.subject("6:user:1|5:stars3:y:x|0:"), Some(Some("")));
        assert_eq!(a.subject("6:user:1|5:stars3:yx|0:"), None);
        assert_eq!(a.subject("6:user:1"), None);
        let b = &parsed["b"];
        assert_eq!(
            (b.window, b.allowance, b.limit, b.per),
            (RuleWindow::Rolling, 2, 7, 60)
        );
        assert_eq!(b.subject("3:a|b"), Some(None));
        assert_eq!(b.subject("4:a|b"), None);
        assert_eq!(b.allowance(None), 2);
        for bad in [
            "{",
            "[1]",
            r#"[{"name":"x:y","by":["user"],"window":"day","limit":1}]"#,
            r#"[{"name":"x","by":[],"window":"day","limit":1}]"#,
            r#"[{"name":"x","by":["user"],"window":"year","limit":1}]"#,
        ] {
            assert!(rules(bad).is_err(), "{bad}");
        }
        assert!(rules("{}").unwrap().is_empty());
    }

    #[test]
    fn carried_shares_round_as_the_vote_script_rounds() {
        let b = Board {
            decimals: 2,
            carry: 100000, // 0.1
            ..Default::default()
        };
        assert_eq!(b.carried(1), 10);
        assert_eq!(b.carried(3), 30);
        let half = Board {
            decimals: 0,
            carry: 500000,
            ..Default::default()
        };
        assert_eq!(half.carried(1), 1); // 0.5 rounds half up
        assert_eq!(b.units(0.3), 30);
        assert_eq!(b.text(1234), "12.34");
    }
}
