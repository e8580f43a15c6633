//! The typed results of every operation, and how each is read from a
//! script's reply. All of them serialize with serde (the CLI's `--json`).

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use redis::Value;
use serde::{Deserialize, Serialize};

/// A user's vote on an article.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Vote {
    /// An upvote: the user is in `voted:ID` (as in the seeds).
    Up,
    /// A downvote: the user is in `downvoted:ID`.
    Down,
    /// No vote.
    #[default]
    None,
}

/// The sorted set a page is read from, highest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// `score:`: time + vote_score x (votes - downvotes) (the seeds' ranking).
    #[default]
    Score,
    /// `time:`: newest first.
    Time,
    /// `hot:`: Reddit's hot ranking (when switched on).
    Hot,
    /// `best:`: Wilson lower bound of the upvote share (when switched on).
    Best,
}

/// An extra ranking a site may keep beside `score:` (see [`Config`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ranking {
    /// `hot:` = sign(s) x log10(max(|s|, 1)) + (time - 1134028003) / 45000, s = up - down.
    Hot,
    /// `best:` = Wilson lower bound of up / (up + down), z = 1.281551565545.
    Best,
}

macro_rules! string_enum {
    ($ty:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        impl $ty {
            /// The wire and CLI spelling.
            pub fn as_str(self) -> &'static str {
                match self { $($ty::$variant => $text),+ }
            }
        }
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
        impl FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s {
                    $($text => Ok($ty::$variant),)+
                    _ => Err(format!(
                        "expected one of {}, got {s:?}",
                        [$($text),+].join(", ")
                    )),
                }
            }
        }
    };
}

string_enum!(Vote { Up => "up", Down => "down", None => "none" });
string_enum!(Order { Score => "score", Time => "time", Hot => "hot", Best => "best" });
string_enum!(Ranking { Hot => "hot", Best => "best" });

/// One article: its hash fields, its id and its score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Article {
    /// The number, as a string (`"7"` for `article:7`).
    pub id: String,
    /// Title.
    pub title: String,
    /// Link.
    pub link: String,
    /// The user who posted it.
    pub poster: String,
    /// Publish time, Unix seconds (the seeds' Python writes fractions: floored).
    pub time: i64,
    /// Upvotes, the poster's own included (hash field `votes`).
    pub votes: i64,
    /// Downvotes (hash field `downvotes`; absent in seed data, read as 0).
    pub downvotes: i64,
    /// The article's `score:` value, if it has one.
    pub score: Option<f64>,
    /// 1-based rank in `score:` (only from [`crate::Site::article`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u64>,
    /// The asking user's vote (only from [`crate::Site::article`] given a user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_vote: Option<Vote>,
    /// Hash fields other than the ones above, kept as they are.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, String>,
}

/// One page of articles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page {
    /// The order the page was read in.
    pub order: Order,
    /// The group, for a group page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// 1-based page number.
    pub page: u32,
    /// Articles per page.
    pub per_page: u32,
    /// Articles in the whole ordering (to compute the page count).
    pub total: u64,
    /// This page's articles, highest first.
    pub articles: Vec<Article>,
}

/// What a vote did.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct VoteOutcome {
    /// False when the user's vote already was the requested one (a repeated
    /// upvote): nothing was written.
    pub changed: bool,
    /// The user's vote before the call.
    pub previous: Vote,
    /// The user's vote now.
    pub vote: Vote,
    /// The article's score after the call.
    pub score: Option<f64>,
    /// Upvotes after the call.
    pub votes: i64,
    /// Downvotes after the call.
    pub downvotes: i64,
}

/// What a [`crate::Site::rerank`] batch did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reranked {
    /// Articles ranked in this batch.
    pub ranked: u64,
    /// Where the next batch starts; 0 when this one reached the end.
    pub next: u64,
}

/// What a group change did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupChange {
    /// Groups the article newly joined.
    pub added: u64,
    /// Groups the article left.
    pub removed: u64,
}

/// A site's settings, stored in Redis at `<prefix>redvote:config` so every
/// client of the site applies the same ones (defaults when absent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// Score of one net vote (default 432 = 86400 / 200). Fixed once the site has articles.
    pub vote_score: u32,
    /// Voting window after the publish time, seconds (default 604800, a week).
    pub window: u64,
    /// Default articles per page (default 25, at most 100).
    pub page_size: u32,
    /// Extra rankings kept beside `score:` (default none).
    pub rankings: Vec<Ranking>,
}

/// A change to a site's settings: `None` leaves a setting as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigUpdate {
    /// New vote score (refused with `REDVOTE_CONFIG_LOCKED` once articles exist).
    pub vote_score: Option<u32>,
    /// New voting window, seconds (60 ..= 315360000).
    pub window: Option<u64>,
    /// New default page size (1 ..= 100).
    pub page_size: Option<u32>,
    /// New set of extra rankings.
    pub rankings: Option<Vec<Ranking>>,
}

impl ConfigUpdate {
    /// The `field, value` pairs `configure.lua` takes.
    pub(crate) fn to_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        let mut push = |field: &str, value: String| {
            args.push(field.to_string());
            args.push(value);
        };
        if let Some(v) = self.vote_score {
            push("vote_score", v.to_string());
        }
        if let Some(v) = self.window {
            push("window", v.to_string());
        }
        if let Some(v) = self.page_size {
            push("page_size", v.to_string());
        }
        if let Some(v) = &self.rankings {
            let names: Vec<&str> = v.iter().map(|r| r.as_str()).collect();
            push("rankings", names.join(","));
        }
        args
    }
}

// ---- reading replies -------------------------------------------------------

/// Why a reply did not fit; the caller adds the script name.
pub(crate) type Shape<T> = Result<T, String>;

pub(crate) fn items(v: Value) -> Shape<Vec<Value>> {
    match v {
        Value::Array(items) => Ok(items),
        other => Err(format!("expected an array, got {other:?}")),
    }
}

pub(crate) fn text(v: &Value) -> Shape<String> {
    match v {
        Value::BulkString(b) => Ok(String::from_utf8_lossy(b).into_owned()),
        Value::SimpleString(s) => Ok(s.clone()),
        Value::Int(i) => Ok(i.to_string()),
        other => Err(format!("expected a string, got {other:?}")),
    }
}

pub(crate) fn int(v: &Value) -> Shape<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        other => text(other)?
            .parse()
            .map_err(|e| format!("expected an integer: {e}")),
    }
}

fn float(v: &Value) -> Shape<Option<f64>> {
    match v {
        Value::Nil => Ok(None),
        other => text(other)?
            .parse()
            .map(Some)
            .map_err(|e| format!("expected a number: {e}")),
    }
}

fn parse<T: FromStr<Err = String>>(v: &Value) -> Shape<T> {
    text(v)?.parse()
}

pub(crate) fn get(items: &[Value], i: usize) -> Shape<&Value> {
    items
        .get(i)
        .ok_or_else(|| format!("reply has {} items, wanted at least {}", items.len(), i + 1))
}

/// An article from its id, its score and its flat `HGETALL` field list.
fn article(id: &Value, score: &Value, fields: Value) -> Shape<Article> {
    let fields = items(fields)?;
    let mut map = BTreeMap::new();
    for pair in fields.chunks(2) {
        let [k, v] = pair else {
            return Err("odd number of hash items".into());
        };
        map.insert(text(k)?, text(v)?);
    }
    let mut take = |name: &str| map.remove(name).unwrap_or_default();
    let number = |s: String| -> i64 { s.parse::<f64>().map(|f| f.floor() as i64).unwrap_or(0) };
    Ok(Article {
        id: text(id)?,
        title: take("title"),
        link: take("link"),
        poster: take("poster"),
        time: number(take("time")),
        votes: number(take("votes")),
        downvotes: number(take("downvotes")),
        score: float(score)?,
        rank: None,
        user_vote: None,
        extra: map,
    })
}

/// `article.lua`: `{ id, score, rank, vote, fields }`.
pub(crate) fn read_article(v: Value) -> Shape<Article> {
    let mut items = items(v)?;
    if items.len() != 5 {
        return Err(format!("expected 5 items, got {}", items.len()));
    }
    let fields = items.pop().unwrap_or_default();
    let mut a = article(&items[0], &items[1], fields)?;
    a.rank = match &items[2] {
        Value::Nil => None,
        v => Some(int(v)? as u64),
    };
    let vote = text(&items[3])?;
    a.user_vote = if vote.is_empty() {
        None
    } else {
        Some(vote.parse()?)
    };
    Ok(a)
}

/// `page.lua` / `group_page.lua`: `{ total, per_page, { id, score, fields }... }`.
pub(crate) fn read_page(v: Value, order: Order, group: Option<String>, page: u32) -> Shape<Page> {
    let items = items(v)?;
    let total = int(get(&items, 0)?)? as u64;
    let per_page = int(get(&items, 1)?)? as u32;
    let mut articles = Vec::new();
    for entry in items.into_iter().skip(2) {
        let mut entry = self::items(entry)?;
        if entry.len() != 3 {
            return Err(format!("page entry has {} items, expected 3", entry.len()));
        }
        let fields = entry.pop().unwrap_or_default();
        articles.push(article(&entry[0], &entry[1], fields)?);
    }
    Ok(Page {
        order,
        group,
        page,
        per_page,
        total,
        articles,
    })
}

/// `vote.lua`: `{ changed, previous, vote, score, votes, downvotes }`.
pub(crate) fn read_vote(v: Value) -> Shape<VoteOutcome> {
    let items = items(v)?;
    if items.len() != 6 {
        return Err(format!("expected 6 items, got {}", items.len()));
    }
    Ok(VoteOutcome {
        changed: int(&items[0])? == 1,
        previous: parse(&items[1])?,
        vote: parse(&items[2])?,
        score: float(&items[3])?,
        votes: int(&items[4])?,
        downvotes: int(&items[5])?,
    })
}

/// `groups.lua`: `{ added, removed }`.
pub(crate) fn read_groups(v: Value) -> Shape<GroupChange> {
    let items = items(v)?;
    Ok(GroupChange {
        added: int(get(&items, 0)?)? as u64,
        removed: int(get(&items, 1)?)? as u64,
    })
}

/// `configure.lua`: `{ field, value, ... }`.
pub(crate) fn read_config(v: Value) -> Shape<Config> {
    let items = items(v)?;
    let mut map = BTreeMap::new();
    for pair in items.chunks(2) {
        if let [k, v] = pair {
            map.insert(text(k)?, text(v)?);
        }
    }
    let field = |name: &str| -> Shape<&String> {
        map.get(name)
            .ok_or_else(|| format!("setting {name} missing"))
    };
    let num = |name: &str| -> Shape<u64> {
        field(name)?
            .parse()
            .map_err(|e| format!("setting {name}: {e}"))
    };
    let rankings = field("rankings")?
        .split(',')
        .filter(|s| !s.is_empty())
        .map(str::parse)
        .collect::<Shape<Vec<Ranking>>>()?;
    Ok(Config {
        vote_score: num("vote_score")? as u32,
        window: num("window")?,
        page_size: num("page_size")? as u32,
        rankings,
    })
}

/// `rerank.lua`: `{ ranked, next }`.
pub(crate) fn read_reranked(v: Value) -> Shape<Reranked> {
    let items = items(v)?;
    Ok(Reranked {
        ranked: int(get(&items, 0)?)? as u64,
        next: int(get(&items, 1)?)? as u64,
    })
}

/// `post.lua`: the new id.
pub(crate) fn read_id(v: Value) -> Shape<u64> {
    Ok(int(&v)? as u64)
}
