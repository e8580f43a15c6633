//! Pages in two round trips: [`PageCall`].
//!
//! A page of 25 read inside one script cost the server 4.2x the seeds' own
//! flow (ZREVRANGE, then 25 HGETALL), because Redis 7.0 turns every reply a
//! script reads into Lua values and every value it returns back into RESP:
//! each article's 10 hash strings went through that twice. Even the
//! leanest script (HMGET of the six fields, one flat reply) stayed at 2.5x
//! (docs/site.md, Pages). So a page is two round trips:
//!
//! 1. `page.lua` / `group_page.lua` (one `EVALSHA`, [`PageCall::ids`]):
//!    checks the arguments, reads the site's `page_size` when needed,
//!    builds a group's cached ordering when absent, and answers the page's
//!    members with the ordering's size ([`PageIds`]);
//! 2. one `MULTI` / `HGETALL <prefix>article:ID` x n / `EXEC`
//!    ([`PageCall::articles`]; `ZMSCORE <prefix>score:` first
//!    [`PageCall::with_scores`]): plain commands, whose replies Redis writes
//!    once.
//!
//! What a page is consistent with: its order and `total` are those of the
//! first call; every article's fields (and scores) come from one atomic
//! read, one round trip later. An article whose votes changed in between
//! shows its new counts in its old place (the seeds' 26 round trips mix 26
//! moments). Articles are never deleted, so none goes missing.
//!
//! Scores are left out unless asked for: Redis 7.0 formats each score with
//! `%.17g`, 25 of them cost the server about a third of the seeds' whole
//! page. [`crate::Site::article`] gives one article's score and rank.

use std::collections::BTreeMap;

use redis::Value;

use super::model::{Article, Order, Page};
use crate::call::Call;
use crate::error::{Code, Error, Result};
use crate::reply::{count, items, reply_type, text, Shape};

/// The first call of a page (`page.lua`, `group_page.lua`): which articles
/// the page holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageIds {
    /// Members of the whole ordering (to compute the page count).
    pub total: u64,
    /// Articles per page (the site's `page_size` when not asked for).
    pub per_page: u32,
    /// The page's members, highest first (`article:ID`, without the prefix).
    pub members: Vec<String>,
    /// Whether this call built the group's cached ordering (group pages).
    pub built: bool,
}

reply_type! {
    // `page.lua`: `{ total, per_page, members, n }` (the n members joined
    // by spaces); `group_page.lua`: the same and `built` (1 or 0).
    PageIds => |v| {
        let items = items(v)?;
        if items.len() != 4 && items.len() != 5 {
            return Err(format!("expected 4 or 5 items, got {}", items.len()));
        }
        let total = count(&items[0])?;
        let per_page = u32::try_from(count(&items[1])?).map_err(|e| format!("per_page: {e}"))?;
        let joined = text(&items[2])?;
        let n = count(&items[3])? as usize;
        let members: Vec<String> = match n {
            0 => Vec::new(),
            _ => joined.split(' ').map(str::to_string).collect(),
        };
        if members.len() != n {
            return Err(format!(
                "{n} members do not split into {n} at spaces: a member holds a space \
                 (redvote and the seeds write article:ID)"
            ));
        }
        let built = match items.get(4) {
            Some(v) => count(v)? == 1,
            None => false,
        };
        Ok(PageIds { total, per_page, members, built })
    };
}

/// What a page echoes of its request (its replies hold only the articles).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageOf {
    /// The order asked for.
    pub order: Order,
    /// The group, for a group page.
    pub group: Option<String>,
    /// The page number asked for.
    pub page: u32,
}

/// A prepared page read: plain data until run. [`PageCall::run`] /
/// [`PageCall::run_async`] make both round trips once, on any redis-rs
/// connection; [`crate::Connection::page`] / `AsyncConnection::page` make
/// them with a [`crate::Client`]'s timeouts and retry policy. The parts
/// ([`PageCall::ids`], [`PageCall::articles`], [`PageCall::decode`]) are
/// there for callers who send them their own way.
///
/// ```
/// use redvote::{Order, Site};
/// let page = Site::default().page(Order::Score, 1, None);
/// assert_eq!(page.ids().script().name(), "page");
/// assert_eq!(page.ids().args(), ["score", "1"]);
/// ```
#[derive(Debug, Clone)]
pub struct PageCall {
    ids: Call<PageIds>,
    of: PageOf,
    prefix: String,
    scores: bool,
}

impl PageCall {
    pub(crate) fn new(ids: Call<PageIds>, of: PageOf, prefix: &str) -> Self {
        PageCall {
            ids,
            of,
            prefix: prefix.to_string(),
            scores: false,
        }
    }

    /// The same page with every article's `score:` value ([`Article::score`];
    /// `None` otherwise): one `ZMSCORE` more in the second round trip, which
    /// costs the server about a third more than the page without it.
    pub fn with_scores(self) -> Self {
        PageCall {
            scores: true,
            ..self
        }
    }

    /// The first call: `page.lua` or `group_page.lua`.
    pub fn ids(&self) -> &Call<PageIds> {
        &self.ids
    }

    /// A page only reads (a group page's cached ordering is a cache): safe
    /// to send again.
    pub fn is_idempotent(&self) -> bool {
        true
    }

    /// The second round trip for the members `ids` named: `MULTI`,
    /// (`ZMSCORE <prefix>score: members` with scores), `HGETALL` of each
    /// `article:ID` member, `EXEC`; errors are kept as items (for
    /// [`PageCall::decode`]). Empty when the page is.
    pub fn articles(&self, ids: &PageIds) -> redis::Pipeline {
        let mut pipe = redis::pipe();
        if ids.members.is_empty() {
            return pipe;
        }
        pipe.atomic().ignore_errors();
        if self.scores {
            pipe.cmd("ZMSCORE")
                .arg(format!("{}score:", self.prefix))
                .arg(&ids.members);
        }
        for member in &ids.members {
            if article_id(member).is_some() {
                pipe.cmd("HGETALL").arg(format!("{}{member}", self.prefix));
            }
        }
        pipe
    }

    /// The page from the first reply and the second round trip's items. A
    /// key of the wrong type is `REDVOTE_INVALID_CONFIG`, as in the scripts.
    pub fn decode(&self, ids: PageIds, replies: Vec<Value>) -> Result<Page> {
        let mut replies = replies.into_iter();
        let bad = |reason: String| Error::Reply {
            script: self.ids.script().name(),
            reason,
        };
        let scores = match self.scores && !ids.members.is_empty() {
            true => scores(
                refused(replies.next().unwrap_or_default())?,
                ids.members.len(),
            )
            .map_err(bad)?,
            false => Vec::new(),
        };
        let mut articles = Vec::with_capacity(ids.members.len());
        for (i, member) in ids.members.into_iter().enumerate() {
            let score = scores.get(i).copied().flatten();
            let article = match article_id(&member) {
                Some(id) => {
                    let id = id.to_string();
                    read_article(id, score, refused(replies.next().unwrap_or_default())?)
                        .map_err(bad)?
                }
                None => super::page::article(member, score, BTreeMap::new()),
            };
            articles.push(article);
        }
        Ok(Page {
            order: self.of.order,
            group: self.of.group.clone(),
            page: self.of.page,
            per_page: ids.per_page,
            total: ids.total,
            articles,
        })
    }

    /// Both round trips on a sync connection. A group page refused in the
    /// second (a key of the wrong type) deletes the ordering the first one
    /// built (a third command), so a refused page leaves the data set as it
    /// was, as when the script read the hashes itself.
    pub fn run(&self, con: &mut dyn redis::ConnectionLike) -> Result<Page> {
        let ids = self.ids.run(con)?;
        self.finish(con, ids)
    }

    /// The second round trip on a sync connection, after [`PageCall::ids`]
    /// answered `ids` ([`crate::Connection::page`] runs both, retried).
    pub fn finish(&self, con: &mut dyn redis::ConnectionLike, ids: PageIds) -> Result<Page> {
        let pipe = self.articles(&ids);
        let replies = match pipe.is_empty() {
            true => Ok(Vec::new()),
            // As `pipe.query(con)` does, but a sync cluster connection
            // refuses `query` (it routes the transaction to the key's node
            // all the same): one reply, EXEC's.
            false => con
                .req_packed_commands(&pipe.get_packed_pipeline(), pipe.len() + 1, 1)
                .map_err(wrong_type)
                .and_then(|mut r| exec_items(r.pop().unwrap_or_default())),
        };
        let built = ids.built;
        let page = replies.and_then(|replies| self.decode(ids, replies));
        if let Some(cache) = self.undo(&page, built) {
            // (a connection that fails here fails the next call too)
            let _ = redis::cmd("DEL").arg(cache).exec(con);
        }
        page
    }

    /// Both round trips on an async connection, as [`PageCall::run`].
    #[cfg(feature = "async")]
    pub async fn run_async<C: redis::aio::ConnectionLike>(&self, con: &mut C) -> Result<Page> {
        let ids = self.ids.run_async(con).await?;
        self.finish_async(con, ids).await
    }

    /// The second round trip on an async connection, after [`PageCall::ids`]
    /// answered `ids` (`AsyncConnection::page` runs both, retried), as
    /// [`PageCall::finish`].
    #[cfg(feature = "async")]
    pub async fn finish_async<C: redis::aio::ConnectionLike>(
        &self,
        con: &mut C,
        ids: PageIds,
    ) -> Result<Page> {
        let pipe = self.articles(&ids);
        let replies = match pipe.is_empty() {
            true => Ok(Vec::new()),
            false => pipe.query_async(con).await.map_err(wrong_type),
        };
        let built = ids.built;
        let page = replies.and_then(|replies| self.decode(ids, replies));
        if let Some(cache) = self.undo(&page, built) {
            let _ = redis::cmd("DEL").arg(cache).exec_async(con).await;
        }
        page
    }

    /// The group ordering to delete again after `page`: the one the first
    /// call `built` (`<prefix><order>:<group>`), when the second refused
    /// the page.
    fn undo(&self, page: &Result<Page>, built: bool) -> Option<String> {
        let group = self.of.group.as_ref()?;
        let refused = matches!(page, Err(Error::Script { .. }));
        (built && refused).then(|| format!("{}{}:{group}", self.prefix, self.of.order))
    }
}

/// `N` of a member `article:N` (the members whose hash a page reads).
fn article_id(member: &str) -> Option<&str> {
    let id = member.strip_prefix("article:")?;
    (!id.is_empty() && id.bytes().all(|b| b.is_ascii_digit())).then_some(id)
}

/// An item of the second round trip, or the refusal it stands for.
fn refused(v: Value) -> Result<Value> {
    match v {
        Value::ServerError(err) => Err(wrong_type(err.into())),
        v => Ok(v),
    }
}

/// A key of the wrong type is `REDVOTE_INVALID_CONFIG`, as the scripts
/// answer it; any other error stays Redis'.
fn wrong_type(err: redis::RedisError) -> Error {
    if err.code() == Some("WRONGTYPE") {
        return Error::Script {
            code: Code::InvalidConfig,
            detail: format!("a key of the wrong type: {err}"),
        };
    }
    err.into()
}

/// `EXEC`'s reply: the transaction's items.
fn exec_items(v: Value) -> Result<Vec<Value>> {
    match v {
        Value::Array(items) => Ok(items),
        Value::ServerError(err) => Err(wrong_type(err.into())),
        other => Err(Error::Redis(redis::RedisError::from((
            redis::ErrorKind::Client,
            "unexpected EXEC reply",
            format!("{other:?}"),
        )))),
    }
}

/// `ZMSCORE`'s answer: `n` scores (bulk strings in RESP2, doubles in RESP3), or nils.
fn scores(v: Value, n: usize) -> Shape<Vec<Option<f64>>> {
    let items = items(v)?;
    if items.len() != n {
        return Err(format!("expected {n} scores, got {}", items.len()));
    }
    items
        .iter()
        .map(|v| match v {
            Value::Nil => Ok(None),
            Value::Double(d) => Ok(Some(*d)),
            v => text(v)?
                .parse()
                .map(Some)
                .map_err(|e| format!("expected a score: {e}")),
        })
        .collect()
}

/// An article from `HGETALL`'s answer (a flat field/value array in RESP2, a
/// map in RESP3), its strings moved, not copied: a page decodes 250 of them.
fn read_article(id: String, score: Option<f64>, v: Value) -> Shape<Article> {
    let mut a = article(id, score, BTreeMap::new());
    let mut set = |field: Value, value: Value| -> Shape<()> {
        let Value::BulkString(name) = field else {
            return Err(format!("expected a field name, got {field:?}"));
        };
        let value = owned_text(value)?;
        match &name[..] {
            b"title" => a.title = value,
            b"link" => a.link = value,
            b"poster" => a.poster = value,
            b"time" => a.time = number(&value),
            b"votes" => a.votes = number(&value),
            b"downvotes" => a.downvotes = number(&value),
            _ => {
                a.extra.insert(owned_text(Value::BulkString(name))?, value);
            }
        }
        Ok(())
    };
    match v {
        Value::Map(pairs) => pairs.into_iter().try_for_each(|(f, v)| set(f, v))?,
        v => {
            let items = items(v)?;
            if items.len() % 2 != 0 {
                return Err("odd number of field/value items".into());
            }
            let mut it = items.into_iter();
            while let (Some(f), Some(v)) = (it.next(), it.next()) {
                set(f, v)?;
            }
        }
    }
    Ok(a)
}

/// A bulk string's bytes as a `String` (moved when UTF-8, as they are).
fn owned_text(v: Value) -> Shape<String> {
    match v {
        Value::BulkString(b) => Ok(String::from_utf8(b)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())),
        v => text(&v),
    }
}

/// A stored count or time as an integer: the seeds' Python writes float
/// times (floored); anything unreadable is 0.
fn number(s: &str) -> i64 {
    s.parse::<i64>()
        .unwrap_or_else(|_| s.parse::<f64>().map(|f| f.floor() as i64).unwrap_or(0))
}

/// An article from its id, its score and its hash fields (`article.lua`'s
/// reply, and a page's).
pub(super) fn article(
    id: String,
    score: Option<f64>,
    mut map: BTreeMap<String, String>,
) -> Article {
    let mut take = |name: &str| map.remove(name).unwrap_or_default();
    Article {
        id,
        title: take("title"),
        link: take("link"),
        poster: take("poster"),
        time: number(&take("time")),
        votes: number(&take("votes")),
        downvotes: number(&take("downvotes")),
        score,
        rank: None,
        user_vote: None,
        extra: map,
    }
}
