//! [`check_site`]: the article site's invariants.

use redis::{ConnectionLike, RedisResult, Value};

use super::{
    error_of, exec, int, items, scan_checked, scan_keys, scan_pages, score_of, stored_int, text,
    time_of, Recheck, Report, PAGE,
};
use redvote::Site;

const DEFAULT_VOTE_SCORE: i64 = 432;
const DEFAULT_WINDOW: i64 = 604800;
const VOTE_SCORE_MAX: i64 = 1000000;
const WINDOW_MIN: i64 = 60;
const WINDOW_MAX: i64 = 315360000;
/// The orderings a site keeps (`<order>:`), and whose group caches are
/// `<order>:NAME`.
const ORDERS: [&str; 4] = ["score:", "time:", "hot:", "best:"];

/// Check every invariant of the article site `site` (see docs/checking.md,
/// "Checking a data set"), reading only:
///
/// - per article (`article:ID`): `time`, `votes` and `downvotes` are
///   integers; `time:` holds the article with its `time`; `score:` holds it
///   with `time + vote_score * (votes - downvotes)` (`vote_score` from
///   `redvote:config`, default 432); while the voter sets can exist (until
///   `time + window + 1`), `votes` is the size of `voted:ID` and
///   `downvotes` the size of `downvoted:ID`, and no user is in both; a
///   voter set has an expiry, no earlier than `time + window + 1` (the
///   window can only be lowered once articles exist, so an older set may
///   expire later) and no later than the longest window allows; the id is
///   at most the `article:` counter. When the hash, the sets and `score:`
///   disagree, the violation names the one the two others agree against.
/// - every member of `score:`, `time:`, `hot:`, `best:`, `group:NAME` and
///   the group caches `<order>:NAME` is `article:ID` of an existing article,
///   with a finite score; a cache member is in its group, and a cache has
///   its expiry; a voter set belongs to an existing article.
/// - site data layout 2 (`layout` 2 in `redvote:config`): each group board
///   `gboard:<order>:NAME` holds exactly the members of `group:NAME` that
///   are in `<order>:`, with the same score (what the seeds' ZINTERSTORE
///   gives), and each reverse index `groups:ID` exactly the groups holding
///   `article:ID`. While an upgrade runs (`layout_next` 2) the boards and
///   indexes are partial: what they hold must still be right. On layout 1
///   without an upgrade, no board or index exists. A mismatch is a suspect,
///   read again atomically (a vote or a group change in between moves
///   both).
/// - `redvote:config`: `vote_score` 1..1000000, `window` 60..315360000 and
///   `page_size` 1..100 written as plain integers, `rankings` a subset of
///   `hot,best`; the `article:` counter is an integer.
///
/// `hot:`/`best:` scores are not recomputed (a ranking switched on late
/// holds what `rerank` last wrote).
///
/// On Redis Cluster the check fails (an error of kind `TryAgain` saying
/// so) while the site's slot migrates: the node would hold part of the keys.
pub fn check_site(con: &mut dyn ConnectionLike, site: &Site) -> RedisResult<Report> {
    super::on_stable_slot(con, site.root_key(), |con| check(con, site))
}

fn check(con: &mut dyn ConnectionLike, site: &Site) -> RedisResult<Report> {
    let prefix = site.prefix();
    let mut r = Report::new(super::target("site", prefix));
    let settings = settings(con, prefix, &mut r)?;
    let mut scan = Scan {
        prefix,
        settings,
        articles: Vec::new(),
        voter_sets: Vec::new(),
        orders: Vec::new(),
        groups: Vec::new(),
        caches: Vec::new(),
        boards: Vec::new(),
        indexes: Vec::new(),
        group_names: Vec::new(),
        overlaps: Vec::new(),
    };
    r.keys_scanned = scan_keys(con, prefix, |con, keys| {
        for key in keys {
            scan.classify(key, &mut r);
        }
        scan.flush(con, PAGE, &mut r)
    })?;
    scan.flush(con, 1, &mut r)?;
    for id in std::mem::take(&mut scan.overlaps) {
        scan.overlap(con, &id, &mut r)?;
    }
    for zset in std::mem::take(&mut scan.orders) {
        scan.members(con, "ZSCAN", &zset, None, &mut r)?;
    }
    for group in std::mem::take(&mut scan.groups) {
        scan.members(con, "SSCAN", &group, None, &mut r)?;
    }
    for (cache, group) in std::mem::take(&mut scan.caches) {
        scan.members(con, "ZSCAN", &cache, Some(&group), &mut r)?;
    }
    scan.layout_2(con, &mut r)?;
    r.confirm(con)?;
    Ok(r.finish())
}

/// The site's settings and id counter as the checks need them (`None`:
/// corrupt, reported, and the checks that need it skipped).
struct Settings {
    vote_score: Option<i64>,
    window: Option<i64>,
    counter: Option<i64>,
    /// The data layout (1 when absent; `None`: corrupt).
    layout: Option<i64>,
    /// An upgrade to layout 2 is under way (`layout_next`).
    building: bool,
}

fn settings(con: &mut dyn ConnectionLike, prefix: &str, r: &mut Report) -> RedisResult<Settings> {
    let config = format!("{prefix}redvote:config");
    let root = format!("{prefix}article:");
    let mut pipe = redis::pipe();
    pipe.cmd("HMGET").arg(&config).arg(&[
        "vote_score",
        "window",
        "page_size",
        "rankings",
        "layout",
        "layout_next",
    ]);
    pipe.cmd("GET").arg(&root);
    let got = exec(con, &mut pipe)?;
    let mut s = Settings {
        vote_score: Some(DEFAULT_VOTE_SCORE),
        window: Some(DEFAULT_WINDOW),
        counter: Some(0),
        layout: Some(1),
        building: false,
    };
    if let Some(e) = error_of(&got[0]) {
        r.violation(&config, format!("is not a hash: {e}"));
        s.vote_score = None;
        s.window = None;
    } else {
        let fields = items(&got[0]);
        let field = |i: usize| fields.get(i).and_then(text);
        for (i, name, lo, hi) in [
            (0, "vote_score", 1, VOTE_SCORE_MAX),
            (1, "window", WINDOW_MIN, WINDOW_MAX),
            (2, "page_size", 1, 100),
        ] {
            let Some(v) = field(i) else { continue };
            let n = stored_int(&v, lo, hi);
            if n.is_none() {
                r.violation(
                    &config,
                    format!("{name} {v:?} is not an integer in {lo}..{hi}"),
                );
            }
            match i {
                0 => s.vote_score = n,
                1 => s.window = n,
                _ => {}
            }
        }
        if let Some(v) = field(4) {
            s.layout = stored_int(&v, 1, 2);
            if s.layout.is_none() {
                r.violation(&config, format!("layout {v:?} is not a site layout (1..2)"));
            }
        }
        if let Some(v) = field(5) {
            s.building = true;
            if v != "2" || s.layout != Some(1) {
                r.violation(
                    &config,
                    format!("layout_next {v:?} must be 2, on layout 1 (an upgrade under way)"),
                );
            }
        }
        if let Some(v) = field(3) {
            let ok = v.is_empty() || v.split(',').all(|item| item == "hot" || item == "best");
            if !ok {
                r.violation(
                    &config,
                    format!("rankings {v:?} is not a comma-separated subset of hot,best"),
                );
            }
        }
    }
    if let Some(e) = error_of(&got[1]) {
        r.violation(&root, format!("the id counter is not a string: {e}"));
        s.counter = None;
    } else if let Some(v) = text(&got[1]) {
        s.counter = stored_int(&v, 0, i64::MAX);
        if s.counter.is_none() {
            r.violation(&root, format!("the id counter {v:?} is not an integer"));
        }
    }
    Ok(s)
}

/// An article id as the scripts write it: 1..15 digits, no leading zero.
fn article_id(s: &str) -> Option<&str> {
    let ok = !s.is_empty()
        && s.len() <= 15
        && !s.starts_with('0')
        && s.bytes().all(|b| b.is_ascii_digit());
    ok.then_some(s)
}

/// The non-finite-score message (the same text wherever it is found, so
/// the report lists it once).
fn non_finite(member: &str, score: &str) -> String {
    format!("{member} has the non-finite score {score}")
}

/// The state of one scan: what was found and is still to be checked.
struct Scan<'a> {
    prefix: &'a str,
    settings: Settings,
    /// Article ids not checked yet.
    articles: Vec<String>,
    /// Voter sets (key, article id) whose article is to be looked for.
    voter_sets: Vec<(String, String)>,
    /// The site's orderings found (`score:`, ...).
    orders: Vec<String>,
    /// Group sets found.
    groups: Vec<String>,
    /// Group caches found, with their group set.
    caches: Vec<(String, String)>,
    /// Layout 2's group boards found: (board, its order set, its group set).
    boards: Vec<(String, String, String)>,
    /// Layout 2's reverse indexes found: (key, article id).
    indexes: Vec<(String, String)>,
    /// Every group set found (kept for layout 2's checks).
    group_names: Vec<String>,
    /// Articles with both upvoters and downvoters: to check that no user is
    /// in both sets.
    overlaps: Vec<String>,
}

/// One voter set as read with its article: members, and expiry as
/// `EXPIRETIME` gives it (-2: absent, -1: none).
struct VoterSet {
    key: String,
    card: Option<i64>,
    expires: i64,
}

impl Scan<'_> {
    /// Check the articles and voter sets found, PAGE at a time, once at
    /// least `least` of them wait.
    fn flush(
        &mut self,
        con: &mut dyn ConnectionLike,
        least: usize,
        r: &mut Report,
    ) -> RedisResult<()> {
        if self.articles.len() >= least {
            for page in std::mem::take(&mut self.articles).chunks(PAGE) {
                self.articles(con, page, r)?;
            }
        }
        if self.voter_sets.len() >= least {
            for page in std::mem::take(&mut self.voter_sets).chunks(PAGE) {
                self.orphans(con, page, r)?;
            }
        }
        Ok(())
    }

    fn classify(&mut self, key: String, r: &mut Report) {
        let rest = &key[self.prefix.len()..];
        if let Some(id) = rest.strip_prefix("article:").and_then(article_id) {
            self.articles.push(id.to_string());
        } else if let Some(id) = rest
            .strip_prefix("voted:")
            .or_else(|| rest.strip_prefix("downvoted:"))
            .and_then(article_id)
        {
            self.voter_sets.push((key.clone(), id.to_string()));
            r.count("voter_sets", 1);
        } else if let Some((order, group)) = rest
            .strip_prefix("gboard:")
            .and_then(|r| r.split_once(':'))
            .filter(|(o, g)| {
                ORDERS.contains(&format!("{o}:").as_str()) && redvote::is_valid_name(g)
            })
        {
            r.count("group_boards", 1);
            let p = self.prefix;
            self.boards.push((
                key.clone(),
                format!("{p}{order}:"),
                format!("{p}group:{group}"),
            ));
        } else if let Some(id) = rest.strip_prefix("groups:").and_then(article_id) {
            r.count("group_indexes", 1);
            self.indexes.push((key.clone(), id.to_string()));
        } else if ORDERS.contains(&rest) {
            self.orders.push(key);
        } else if let Some(group) = rest
            .strip_prefix("group:")
            .filter(|g| redvote::is_valid_name(g))
        {
            r.count("groups", 1);
            let group = format!("{}group:{group}", self.prefix);
            self.group_names.push(group.clone());
            self.groups.push(group);
        } else if let Some(group) = ORDERS
            .iter()
            .find_map(|o| rest.strip_prefix(o))
            .filter(|g| redvote::is_valid_name(g))
        {
            let group = format!("{}group:{group}", self.prefix);
            self.caches.push((key, group));
        }
    }

    /// A batch of articles, read in one MULTI/EXEC with their zset entries
    /// and voter sets.
    fn articles(
        &mut self,
        con: &mut dyn ConnectionLike,
        ids: &[String],
        r: &mut Report,
    ) -> RedisResult<()> {
        const READS: usize = 7;
        let p = self.prefix;
        let mut pipe = redis::pipe();
        for id in ids {
            let member = format!("article:{id}");
            pipe.cmd("HMGET")
                .arg(format!("{p}{member}"))
                .arg(&["time", "votes", "downvotes"]);
            pipe.cmd("ZSCORE").arg(format!("{p}score:")).arg(&member);
            pipe.cmd("ZSCORE").arg(format!("{p}time:")).arg(&member);
            for set in ["voted:", "downvoted:"] {
                pipe.cmd("SCARD").arg(format!("{p}{set}{id}"));
                pipe.cmd("EXPIRETIME").arg(format!("{p}{set}{id}"));
            }
        }
        pipe.cmd("GET").arg(format!("{p}article:"));
        pipe.cmd("TIME");
        let got = exec(con, &mut pipe)?;
        if got.len() != ids.len() * READS + 2 {
            return Ok(()); // nothing to read
        }
        // the id counter as it is now (posts go on); a corrupt one was
        // reported with the settings
        if self.settings.counter.is_some() {
            self.settings.counter = text(&got[got.len() - 2]).and_then(|t| t.parse().ok());
        }
        let (secs, micros) = time_of(&got[got.len() - 1]).unwrap_or((0, 0));
        let now_ms = secs * 1000 + micros / 1000;
        for (id, v) in ids.iter().zip(got.chunks(READS)) {
            r.count("articles", 1);
            self.article(id, v, now_ms, r);
        }
        Ok(())
    }

    fn article(&mut self, id: &str, v: &[Value], now_ms: i64, r: &mut Report) {
        let p = self.prefix;
        let member = format!("article:{id}");
        let key = format!("{p}{member}");
        let (score_key, time_key) = (format!("{p}score:"), format!("{p}time:"));
        if let Some(e) = error_of(&v[0]) {
            r.violation(&key, format!("is not a hash: {e}"));
            return;
        }
        let fields = items(&v[0]);
        let field = |i: usize| fields.get(i).and_then(text);
        let count = |name: &str, value: Option<String>, r: &mut Report| match value {
            None => Some(0),
            Some(t) => {
                let n = stored_int(&t, 0, i64::MAX);
                if n.is_none() {
                    r.violation(&key, format!("{name} {t:?} is not an integer >= 0"));
                }
                n
            }
        };
        let Some(time_text) = field(0) else {
            r.violation(&key, "has no time field");
            return;
        };
        let Some(time) = stored_int(&time_text, 0, i64::MAX) else {
            r.violation(&key, format!("time {time_text:?} is not an integer"));
            return;
        };
        let (Some(votes), Some(downvotes)) =
            (count("votes", field(1), r), count("downvotes", field(2), r))
        else {
            return;
        };
        if let Some(counter) = self.settings.counter {
            if id.parse::<i64>().is_ok_and(|n| n > counter) {
                r.violation(
                    format!("{p}article:"),
                    format!("the id counter {counter} is below the id of {member}"),
                );
            }
        }

        // The three witnesses of the vote counts: the hash, the voter sets
        // (while they can exist) and score:.
        let mut sets = Vec::new();
        for (i, name) in [(3, "voted:"), (5, "downvoted:")] {
            let set_key = format!("{p}{name}{id}");
            if let Some(e) = error_of(&v[i]) {
                r.violation(&set_key, format!("is not a set: {e}"));
                sets.push(None);
                continue;
            }
            let expires = int(&v[i + 1]).unwrap_or(-2);
            let card = if expires != -2 {
                int(&v[i])
            } else if let Some(window) = self.settings.window {
                // absent: empty while the window lasts, else expired
                (now_ms < (time + window + 1) * 1000).then_some(0)
            } else {
                None
            };
            self.voter_set_expiry(&set_key, &member, time, expires, r);
            sets.push(Some(VoterSet {
                key: set_key,
                card,
                expires,
            }));
        }

        let time_score = match v[2].clone() {
            Value::Nil => {
                r.violation(&time_key, format!("lacks {member}"));
                None
            }
            other => match text(&other) {
                Some(t) => match score_of(&t) {
                    Some(s) if s.is_finite() => Some(s),
                    _ => {
                        r.violation(&time_key, non_finite(&member, &t));
                        None
                    }
                },
                None => None, // wrong type: reported by the zset pass
            },
        };
        let score = match v[1].clone() {
            Value::Nil => {
                r.violation(&score_key, format!("lacks {member}"));
                None
            }
            other => match text(&other) {
                Some(t) => match score_of(&t) {
                    Some(s) if s.is_finite() => Some(s),
                    _ => {
                        r.violation(&score_key, non_finite(&member, &t));
                        None
                    }
                },
                None => None,
            },
        };

        let vote_score = self.settings.vote_score;
        let expect = |t: i64, up: i64, down: i64| -> Option<f64> {
            vote_score.map(|vs| (t as i128 + vs as i128 * (up as i128 - down as i128)) as f64)
        };
        let agrees = |t: i64, up: i64, down: i64| match (score, expect(t, up, down)) {
            (Some(s), Some(e)) => Some(s == e),
            _ => None,
        };
        let card = |i: usize| sets[i].as_ref().and_then(|s| s.card);
        let (up, down) = (card(0), card(1));
        let up_off = up.is_some_and(|n| n != votes);
        let down_off = down.is_some_and(|n| n != downvotes);
        let mut time_reported = false;
        if let Some(ts) = time_score {
            if ts != time as f64 {
                // time: disagrees with the hash: score: tells which is wrong
                let (t2, up2, down2) = (ts as i64, up.unwrap_or(votes), down.unwrap_or(downvotes));
                if agrees(time, up2, down2) == Some(false) && agrees(t2, up2, down2) == Some(true) {
                    r.violation(
                        &key,
                        format!("time {time} disagrees with time: ({ts}) and score:"),
                    );
                } else {
                    r.violation(
                        &time_key,
                        format!("{member} has the score {ts}, but the article's time is {time}"),
                    );
                }
                time_reported = true;
            }
        }
        if !up_off && !down_off {
            if agrees(time, votes, downvotes) == Some(false) && !time_reported {
                r.violation(
                    &score_key,
                    format!(
                        "{member} scores {}, but time + vote_score x (votes - downvotes) = {}",
                        score.unwrap_or_default(),
                        expect(time, votes, downvotes).unwrap_or_default()
                    ),
                );
            }
        } else {
            let (set_up, set_down) = (up.unwrap_or(votes), down.unwrap_or(downvotes));
            let by_sets = agrees(time, set_up, set_down);
            let by_hash = agrees(time, votes, downvotes);
            if by_sets == Some(true) && by_hash == Some(false) {
                r.violation(
                    &key,
                    format!(
                        "votes {votes} and downvotes {downvotes}, but the voter sets hold \
                         {set_up} and {set_down} (and score: agrees with the sets)"
                    ),
                );
            } else if by_hash == Some(true) && by_sets == Some(false) {
                for (set, off, n) in [(&sets[0], up_off, votes), (&sets[1], down_off, downvotes)] {
                    if let (true, Some(s)) = (off, set) {
                        r.violation(
                            &s.key,
                            format!(
                                "has {} members, but {member} counts {n} (and score: agrees \
                                 with the count)",
                                s.card.unwrap_or_default()
                            ),
                        );
                    }
                }
            } else {
                r.violation(
                    &key,
                    format!(
                        "votes {votes} and downvotes {downvotes} disagree with the voter sets \
                         ({set_up} and {set_down} members) and with score: ({})",
                        score.map_or("absent".to_string(), |s| s.to_string())
                    ),
                );
            }
        }
        let exists = |i: usize| sets[i].as_ref().is_some_and(|s| s.expires != -2);
        if exists(0) && exists(1) && up.unwrap_or(0) > 0 && down.unwrap_or(0) > 0 {
            self.overlaps.push(id.to_string());
        }
    }

    /// A voter set's expiry: present, no earlier than the end of the
    /// article's window (+1 s), no later than the longest window allows.
    fn voter_set_expiry(&self, key: &str, member: &str, time: i64, expires: i64, r: &mut Report) {
        match expires {
            -2 => {}
            -1 => r.violation(
                key,
                format!("has no expiry (it must expire when the voting window of {member} ends)"),
            ),
            at => {
                if let Some(window) = self.settings.window {
                    let due = time + window + 1;
                    if at < due {
                        r.violation(
                            key,
                            format!(
                                "expires at {at}, before the voting window of {member} ends \
                                 (time + window + 1 = {due})"
                            ),
                        );
                    }
                }
                let latest = time + WINDOW_MAX + 1;
                if at > latest {
                    r.violation(
                        key,
                        format!("expires at {at}, later than any voting window of {member} ends ({latest})"),
                    );
                }
            }
        }
    }

    /// Voter sets whose article is to be looked for.
    fn orphans(
        &mut self,
        con: &mut dyn ConnectionLike,
        sets: &[(String, String)],
        r: &mut Report,
    ) -> RedisResult<()> {
        let mut pipe = redis::pipe();
        for (_, id) in sets {
            pipe.cmd("EXISTS")
                .arg(format!("{}article:{id}", self.prefix));
        }
        let got = exec(con, &mut pipe)?;
        for ((key, id), v) in sets.iter().zip(&got) {
            if int(v) == Some(0) {
                // the set and the article, read again together
                let mut reads = redis::pipe();
                reads.cmd("EXISTS").arg(key);
                reads
                    .cmd("EXISTS")
                    .arg(format!("{}article:{id}", self.prefix));
                let what = format!("is the voter set of article:{id}, which does not exist");
                r.suspect(
                    key,
                    Recheck::new(reads, move |got| {
                        (int(&got[0]) == Some(1) && int(&got[1]) == Some(0)).then(|| what.clone())
                    }),
                );
            }
        }
        Ok(())
    }

    /// No user both in `voted:ID` and in `downvoted:ID`: the smaller set is
    /// scanned, its members looked up in the other, and a user found in both
    /// is a suspect, read again from both sets at once (a vote in between
    /// moves a user).
    fn overlap(
        &mut self,
        con: &mut dyn ConnectionLike,
        id: &str,
        r: &mut Report,
    ) -> RedisResult<()> {
        let up = format!("{}voted:{id}", self.prefix);
        let down = format!("{}downvoted:{id}", self.prefix);
        let (a, b): (i64, i64) = redis::pipe().scard(&up).scard(&down).query(con)?;
        let (small, other) = if b <= a { (&down, &up) } else { (&up, &down) };
        // a set of the wrong type: reported already
        let _ = scan_pages(con, "SSCAN", small, r, |con, members, r| {
            if !members.is_empty() {
                let found: Vec<i64> = redis::cmd("SMISMEMBER")
                    .arg(other)
                    .arg(&members)
                    .query(con)?;
                for (m, _) in members.iter().zip(found).filter(|(_, f)| *f == 1) {
                    let mut reads = redis::pipe();
                    reads.cmd("SISMEMBER").arg(&up).arg(m);
                    reads.cmd("SISMEMBER").arg(&down).arg(m);
                    let what = format!(
                        "user {:?} is also in {up}: a user has one vote",
                        String::from_utf8_lossy(m)
                    );
                    r.suspect(
                        &down,
                        Recheck::new(reads, move |got| {
                            got.iter().all(|v| int(v) == Some(1)).then(|| what.clone())
                        }),
                    );
                }
            }
            Ok(())
        })?;
        Ok(())
    }

    /// Every member of `key` (a zset with `ZSCAN`, a set with `SSCAN`) is
    /// `article:ID` of an existing article with a finite score; a group
    /// cache (`group` given) also has an expiry and only members of its
    /// group. A member without its article or outside its group is a
    /// suspect: `groups` moves articles and drops the caches while the scan
    /// runs, so the member, its hash and its group are read again together.
    fn members(
        &mut self,
        con: &mut dyn ConnectionLike,
        command: &str,
        key: &str,
        group: Option<&str>,
        r: &mut Report,
    ) -> RedisResult<()> {
        let zset = command == "ZSCAN";
        if group.is_some() {
            let at: i64 = redis::cmd("EXPIRETIME").arg(key).query(con)?;
            if at == -1 {
                r.violation(key, "a group's cached ordering without an expiry (60 s)");
            }
        }
        scan_checked(con, command, key, r, |con, flat, r| {
            let step = if zset { 2 } else { 1 };
            let mut articles = Vec::new();
            for item in flat.chunks(step) {
                let member = String::from_utf8_lossy(&item[0]).into_owned();
                r.count("zset_members", u64::from(zset));
                r.count("group_members", u64::from(!zset));
                if zset {
                    let score = String::from_utf8_lossy(&item[1]).into_owned();
                    if !score_of(&score).is_some_and(f64::is_finite) {
                        r.violation(key, non_finite(&member, &score));
                    }
                }
                match member.strip_prefix("article:").and_then(article_id) {
                    Some(_) => articles.push(member),
                    None => r.violation(key, format!("member {member:?} is not article:ID")),
                }
            }
            if !articles.is_empty() {
                let mut pipe = redis::pipe();
                for m in &articles {
                    pipe.cmd("EXISTS").arg(format!("{}{m}", self.prefix));
                }
                if let Some(group) = group {
                    pipe.cmd("SMISMEMBER").arg(group).arg(&articles);
                }
                let got = exec(con, &mut pipe)?;
                // is `m` still a member of `key`: the first read of a recheck
                let here = |m: &str| {
                    let mut reads = redis::pipe();
                    match zset {
                        true => reads.cmd("ZSCORE").arg(key).arg(m),
                        false => reads.cmd("SISMEMBER").arg(key).arg(m),
                    };
                    reads
                };
                let is_here = move |v: &Value| match zset {
                    true => text(v).is_some(),
                    false => int(v) == Some(1),
                };
                for (m, v) in articles.iter().zip(&got) {
                    if int(v) == Some(0) {
                        let mut reads = here(m);
                        reads.cmd("EXISTS").arg(format!("{}{m}", self.prefix));
                        let what = format!("{m} has no hash {}{m}", self.prefix);
                        r.suspect(
                            key,
                            Recheck::new(reads, move |got| {
                                (is_here(&got[0]) && int(&got[1]) == Some(0)).then(|| what.clone())
                            }),
                        );
                    }
                }
                if let (Some(group), Some(found)) = (group, got.get(articles.len())) {
                    for (m, v) in articles.iter().zip(items(found)) {
                        if int(v) == Some(0) {
                            let mut reads = here(m);
                            reads.cmd("SISMEMBER").arg(group).arg(m);
                            let what = format!("{m} is not in {group}");
                            r.suspect(
                                key,
                                Recheck::new(reads, move |got| {
                                    (is_here(&got[0]) && int(&got[1]) == Some(0))
                                        .then(|| what.clone())
                                }),
                            );
                        }
                    }
                }
            }
            Ok(())
        })?;
        Ok(())
    }
}

impl Scan<'_> {
    /// Site data layout 2's group boards and reverse indexes (see
    /// [`check_site`]).
    fn layout_2(&mut self, con: &mut dyn ConnectionLike, r: &mut Report) -> RedisResult<()> {
        let boards = std::mem::take(&mut self.boards);
        let indexes = std::mem::take(&mut self.indexes);
        let (layout, building) = (self.settings.layout, self.settings.building);
        if layout == Some(1) && !building {
            for key in boards
                .iter()
                .map(|b| &b.0)
                .chain(indexes.iter().map(|i| &i.0))
            {
                r.violation(
                    key,
                    "a layout-2 key on a site at layout 1 with no upgrade under way",
                );
            }
            return Ok(());
        }
        if layout.is_none() {
            return Ok(());
        }
        let p = self.prefix.to_string();
        // what each board holds is right: in its group, with its order's score
        for (board, order, group) in &boards {
            scan_checked(con, "ZSCAN", board, r, |con, flat, r| {
                let mut pipe = redis::pipe();
                for item in flat.chunks(2) {
                    pipe.cmd("ZSCORE").arg(order).arg(&item[0]);
                    pipe.cmd("SISMEMBER").arg(group).arg(&item[0]);
                }
                let got = exec(con, &mut pipe)?;
                for (item, v) in flat.chunks(2).zip(got.chunks(2)) {
                    r.count("board_members", 1);
                    let score = String::from_utf8_lossy(&item[1]).into_owned();
                    if text(&v[0]).as_deref() != Some(score.as_str()) || int(&v[1]) != Some(1) {
                        let m = String::from_utf8_lossy(&item[0]).into_owned();
                        board_suspect(r, board, order, group, &m);
                    }
                }
                Ok(())
            })?;
        }
        // what each index holds is right: the article is in each group
        for (index, id) in &indexes {
            let member = format!("article:{id}");
            scan_checked(con, "SSCAN", index, r, |con, flat, r| {
                let mut pipe = redis::pipe();
                for g in &flat {
                    let g = String::from_utf8_lossy(g);
                    pipe.cmd("SISMEMBER")
                        .arg(format!("{p}group:{g}"))
                        .arg(&member);
                }
                let got = exec(con, &mut pipe)?;
                for (g, v) in flat.iter().zip(&got) {
                    if int(v) != Some(1) {
                        let g = String::from_utf8_lossy(g).into_owned();
                        index_suspect(r, index, &format!("{p}group:{g}"), &g, &member);
                    }
                }
                Ok(())
            })?;
        }
        if layout != Some(2) {
            return Ok(());
        }
        // on layout 2, nothing is missing: every member of every group is
        // in its index and in the board of each order that holds it
        for group in std::mem::take(&mut self.group_names) {
            let name = group[p.len() + "group:".len()..].to_string();
            scan_checked(con, "SSCAN", &group, r, |con, flat, r| {
                let mut pipe = redis::pipe();
                let mut members = Vec::new();
                for m in &flat {
                    let m = String::from_utf8_lossy(m).into_owned();
                    let Some(id) = m.strip_prefix("article:").and_then(article_id) else {
                        continue; // reported by the group's own check
                    };
                    pipe.cmd("SISMEMBER")
                        .arg(format!("{p}groups:{id}"))
                        .arg(&name);
                    for o in ORDERS {
                        pipe.cmd("ZSCORE").arg(format!("{p}{o}")).arg(&m);
                        let board = format!("{p}gboard:{}:{name}", &o[..o.len() - 1]);
                        pipe.cmd("ZSCORE").arg(board).arg(&m);
                    }
                    members.push((id.to_string(), m));
                }
                if members.is_empty() {
                    return Ok(());
                }
                let got = exec(con, &mut pipe)?;
                for ((id, m), v) in members.iter().zip(got.chunks(1 + 2 * ORDERS.len())) {
                    if int(&v[0]) != Some(1) {
                        let index = format!("{p}groups:{id}");
                        index_suspect(r, &index, &group, &name, m);
                    }
                    for (i, o) in ORDERS.iter().enumerate() {
                        let (want, have) = (text(&v[1 + 2 * i]), text(&v[2 + 2 * i]));
                        if want.is_some() && want != have {
                            let board = format!("{p}gboard:{}:{name}", &o[..o.len() - 1]);
                            board_suspect(r, &board, &format!("{p}{o}"), &group, m);
                        }
                    }
                }
                Ok(())
            })?;
        }
        Ok(())
    }
}

/// `m` of `board` disagrees with `group` and `order`: read the three again
/// at once; still a violation when the board's score differs from the
/// order's (absent on one side included) while `m` is in the group, or when
/// the board holds `m` outside the group.
fn board_suspect(r: &mut Report, board: &str, order: &str, group: &str, m: &str) {
    let mut reads = redis::pipe();
    reads.cmd("ZSCORE").arg(board).arg(m);
    reads.cmd("ZSCORE").arg(order).arg(m);
    reads.cmd("SISMEMBER").arg(group).arg(m);
    let (board_name, m) = (board.to_string(), m.to_string());
    r.suspect(
        board,
        Recheck::new(reads, move |got| {
            let (have, want, member) = (text(&got[0]), text(&got[1]), int(&got[2]) == Some(1));
            if member && have != want {
                Some(format!(
                    "{m} has {have:?} in {board_name}, its order has {want:?}"
                ))
            } else if !member && have.is_some() {
                Some(format!("{m} is in {board_name} but not in its group"))
            } else {
                None
            }
        }),
    );
}

/// `index` (`groups:ID`) and `group` disagree about `m`: read both again at
/// once.
fn index_suspect(r: &mut Report, index: &str, group: &str, name: &str, m: &str) {
    let mut reads = redis::pipe();
    reads.cmd("SISMEMBER").arg(index).arg(name);
    reads.cmd("SISMEMBER").arg(group).arg(m);
    let what = format!("{index} and {group} disagree about {m}");
    r.suspect(
        index,
        Recheck::new(reads, move |got| {
            (int(&got[0]) != int(&got[1])).then(|| what.clone())
        }),
    );
}
