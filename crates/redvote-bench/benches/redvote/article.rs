//! The article section's flows other than redvote's own calls: the seeds'
//! client-side vote (a) with prefixed keys and its async twin, the same vote
//! made safe with WATCH/MULTI/EXEC (b), sync and async, the seeds' page
//! read (ZREVRANGE, then one HGETALL per article) and its async twin, and
//! the checks every vote's and page's reply must pass.

use anyhow::{bail, ensure, Result};
use redis::aio::MultiplexedConnection;
use redis::{AsyncCommands, Commands};
use redvote::{Vote, VoteOutcome};
use redvote_testing::seed::{ONE_WEEK_IN_SECONDS, VOTE_SCORE};

use super::scenario::{Ctx, Input};

/// Articles per page, as in the seeds.
pub(super) const PER_PAGE: u32 = 25;
/// (b) gives up on a vote after this many aborted transactions.
const MAX_WATCH_ATTEMPTS: u64 = 1000;

/// One posted article's names, built once.
pub(super) struct ArticleKeys {
    /// `7`
    pub(super) id: String,
    /// `article:7` (sorted-set member, no prefix)
    pub(super) member: String,
    /// `<prefix>article:7`
    pub(super) hash: String,
    /// `<prefix>voted:7`
    pub(super) voted: String,
}

impl ArticleKeys {
    pub(super) fn new(prefix: &str, id: u64) -> Self {
        ArticleKeys {
            id: id.to_string(),
            member: format!("article:{id}"),
            hash: format!("{prefix}article:{id}"),
            voted: format!("{prefix}voted:{id}"),
        }
    }
}

pub(super) fn check_outcome(o: &VoteOutcome, input: &Input, a: &ArticleKeys) -> Result<u64> {
    ensure!(
        o.changed && o.previous == Vote::None && o.vote == Vote::Up,
        "redvote's vote of {} on {} was not a new upvote: {o:?}",
        input.user,
        a.member
    );
    Ok(0)
}

type SeedArticle = std::collections::HashMap<String, String>;

pub(super) fn check_seeds_page(ctx: &Ctx, got: &[SeedArticle], page: u32) -> Result<u64> {
    ensure!(
        got.iter().all(|a| a.contains_key("title")),
        "the seeds' page {page} holds an article without a title"
    );
    check_page(ctx, got.len(), page)
}

pub(super) fn check_page(ctx: &Ctx, len: usize, page: u32) -> Result<u64> {
    let want = ctx.page_len(page);
    ensure!(len == want, "page {page} holds {len} articles, want {want}");
    Ok(0)
}

/// The seeds' `article_vote` with prefixed keys (members stay
/// `article:ID`): ZSCORE, SADD, ZINCRBY, HINCRBY.
pub(super) fn seeds_vote_sync(
    ctx: &Ctx,
    con: &mut redis::Connection,
    a: &ArticleKeys,
    user: &str,
    now: f64,
) -> Result<bool> {
    let time: Option<f64> = con.zscore(&ctx.time_key, &a.member)?;
    if time.unwrap_or(0.0) < now - ONE_WEEK_IN_SECONDS {
        return Ok(false);
    }
    let added: i64 = con.sadd(&a.voted, user)?;
    if added == 1 {
        let _: () = con.zincr(&ctx.score_key, &a.member, VOTE_SCORE)?;
        let _: () = con.hincr(&a.hash, "votes", 1)?;
    }
    Ok(added == 1)
}

/// Async twin of the seeds' `article_vote`, command for command.
pub(super) async fn seeds_vote_async(
    ctx: &Ctx,
    con: &mut MultiplexedConnection,
    a: &ArticleKeys,
    user: &str,
    now: f64,
) -> Result<bool> {
    let time: Option<f64> = con.zscore(&ctx.time_key, &a.member).await?;
    if time.unwrap_or(0.0) < now - ONE_WEEK_IN_SECONDS {
        return Ok(false);
    }
    let added: i64 = con.sadd(&a.voted, user).await?;
    if added == 1 {
        let _: () = con.zincr(&ctx.score_key, &a.member, VOTE_SCORE).await?;
        let _: () = con.hincr(&a.hash, "votes", 1).await?;
    }
    Ok(added == 1)
}

/// The transaction (b) sends: MULTI SADD ZINCRBY HINCRBY EXEC, one request.
fn watch_transaction(ctx: &Ctx, a: &ArticleKeys, user: &str) -> redis::Pipeline {
    let mut p = redis::pipe();
    p.atomic()
        .sadd(&a.voted, user)
        .zincr(&ctx.score_key, &a.member, VOTE_SCORE)
        .hincr(&a.hash, "votes", 1);
    p
}

/// What (b) found before MULTI; anything but `Open` is a failed op here.
fn watch_refusal(
    time: Option<f64>,
    voted: bool,
    now: f64,
    user: &str,
    a: &ArticleKeys,
) -> Option<String> {
    if time.unwrap_or(0.0) < now - ONE_WEEK_IN_SECONDS {
        Some(format!("voting on {} is closed", a.member))
    } else if voted {
        Some(format!("{user} already voted on {}", a.member))
    } else {
        None
    }
}

/// (b), sync: WATCH voted:ID, ZSCORE, SISMEMBER, MULTI..EXEC; again while
/// EXEC aborts. Returns the aborted attempts.
pub(super) fn watch_vote_sync(
    ctx: &Ctx,
    con: &mut redis::Connection,
    a: &ArticleKeys,
    user: &str,
    now: f64,
) -> Result<u64> {
    for attempt in 0..MAX_WATCH_ATTEMPTS {
        redis::cmd("WATCH").arg(&a.voted).exec(con)?;
        let time: Option<f64> = con.zscore(&ctx.time_key, &a.member)?;
        let voted: bool = con.sismember(&a.voted, user)?;
        if let Some(why) = watch_refusal(time, voted, now, user, a) {
            redis::cmd("UNWATCH").exec(con)?;
            bail!("WATCH vote refused: {why}");
        }
        let done: Option<(i64, f64, i64)> = watch_transaction(ctx, a, user).query(con)?;
        match done {
            Some((1, _, _)) => return Ok(attempt),
            Some(other) => bail!(
                "WATCH vote of {user} on {}: SADD answered {other:?}",
                a.member
            ),
            None => continue, // another client changed voted:ID: retry
        }
    }
    bail!(
        "WATCH vote of {user} on {} aborted {MAX_WATCH_ATTEMPTS} times",
        a.member
    )
}

/// (b), async, on a connection no other task uses (WATCH is per connection).
pub(super) async fn watch_vote_async(
    ctx: &Ctx,
    con: &mut MultiplexedConnection,
    a: &ArticleKeys,
    user: &str,
    now: f64,
) -> Result<u64> {
    for attempt in 0..MAX_WATCH_ATTEMPTS {
        redis::cmd("WATCH").arg(&a.voted).exec_async(con).await?;
        let time: Option<f64> = con.zscore(&ctx.time_key, &a.member).await?;
        let voted: bool = con.sismember(&a.voted, user).await?;
        if let Some(why) = watch_refusal(time, voted, now, user, a) {
            redis::cmd("UNWATCH").exec_async(con).await?;
            bail!("WATCH vote refused: {why}");
        }
        let done: Option<(i64, f64, i64)> =
            watch_transaction(ctx, a, user).query_async(con).await?;
        match done {
            Some((1, _, _)) => return Ok(attempt),
            Some(other) => bail!(
                "WATCH vote of {user} on {}: SADD answered {other:?}",
                a.member
            ),
            None => continue,
        }
    }
    bail!(
        "WATCH vote of {user} on {} aborted {MAX_WATCH_ATTEMPTS} times",
        a.member
    )
}

/// The seeds' `get_articles(conn, page)` by score: the library's own
/// function for the seeds' layout, else the same commands with prefixed keys.
pub(super) fn seeds_page_sync(
    ctx: &Ctx,
    con: &mut redis::Connection,
    page: u32,
) -> Result<Vec<SeedArticle>> {
    if ctx.seeds_layout {
        return Ok(redvote_testing::seed::get_articles(
            con,
            page as isize,
            "score:",
        )?);
    }
    let start = (page as isize - 1) * PER_PAGE as isize;
    let ids: Vec<String> = con.zrevrange(&ctx.score_key, start, start + PER_PAGE as isize - 1)?;
    let mut articles = Vec::with_capacity(ids.len());
    for id in ids {
        let mut data: SeedArticle = con.hgetall(format!("{}{id}", ctx.site.prefix()))?;
        data.insert("id".to_string(), id);
        articles.push(data);
    }
    Ok(articles)
}

/// Async twin of the seeds' `get_articles`: ZREVRANGE, then one HGETALL
/// after the other.
pub(super) async fn seeds_page_async(
    ctx: &Ctx,
    con: &mut MultiplexedConnection,
    page: u32,
) -> Result<Vec<SeedArticle>> {
    let start = (page as isize - 1) * PER_PAGE as isize;
    let ids: Vec<String> = con
        .zrevrange(&ctx.score_key, start, start + PER_PAGE as isize - 1)
        .await?;
    let mut articles = Vec::with_capacity(ids.len());
    for id in ids {
        let mut data: SeedArticle = con.hgetall(format!("{}{id}", ctx.site.prefix())).await?;
        data.insert("id".to_string(), id);
        articles.push(data);
    }
    Ok(articles)
}
