//! The seeds' own client-side flow ("Redis in Action" ch. 1, seed 000/004),
//! command for command, for the benchmark's baseline and the compatibility
//! tests. NOT for production: each operation is several round trips, and two
//! clients can interleave between them (a vote can be counted twice in
//! `score:` or land after the window closed). `redvote::Site` is the atomic
//! version of the same operations over the same keys.
//!
//! Fixed seed bugs: 003's `hmget` (a read) for the write and its `socre:`
//! typo; the Python's `time.time()` float publish time is kept as is.

use redis::{Commands, Connection, RedisResult};

/// The seeds' `ONE_WEEK_IN_SECONDS`.
pub const ONE_WEEK_IN_SECONDS: f64 = 7.0 * 86400.0;
/// The seeds' `VOTE_SCORE` (86400 / 200).
pub const VOTE_SCORE: f64 = 432.0;
/// The seeds' `ARTICLES_PER_PAGE`.
pub const ARTICLES_PER_PAGE: isize = 25;

/// `post_article(conn, user, title, link)` with the publish time `now`
/// (the seed uses `time.time()`). Returns the id.
pub fn post_article(
    con: &mut Connection,
    user: &str,
    title: &str,
    link: &str,
    now: f64,
) -> RedisResult<String> {
    let id: u64 = con.incr("article:", 1)?;
    let voted = format!("voted:{id}");
    let _: () = con.sadd(&voted, user)?;
    let _: () = con.expire(&voted, ONE_WEEK_IN_SECONDS as i64)?;
    let article = format!("article:{id}");
    let _: () = con.hset_multiple(
        &article,
        &[
            ("title", title.to_string()),
            ("link", link.to_string()),
            ("poster", user.to_string()),
            ("time", now.to_string()),
            ("votes", "1".to_string()),
        ],
    )?;
    let _: () = con.zadd("score:", &article, now + VOTE_SCORE)?;
    let _: () = con.zadd("time:", &article, now)?;
    Ok(id.to_string())
}

/// `article_vote(conn, user, article)` at time `now`: ZSCORE, SADD, then
/// ZINCRBY and HINCRBY, four round trips. Returns whether the vote counted.
pub fn article_vote(
    con: &mut Connection,
    user: &str,
    article: &str,
    now: f64,
) -> RedisResult<bool> {
    let cutoff = now - ONE_WEEK_IN_SECONDS;
    let time: Option<f64> = con.zscore("time:", article)?;
    if time.unwrap_or(0.0) < cutoff {
        return Ok(false);
    }
    let id = article.rsplit(':').next().unwrap_or(article);
    let added: i64 = con.sadd(format!("voted:{id}"), user)?;
    if added == 1 {
        let _: () = con.zincr("score:", article, VOTE_SCORE)?;
        let _: () = con.hincr(article, "votes", 1)?;
    }
    Ok(added == 1)
}

/// `get_articles(conn, page, order)`: ZREVRANGE, then one HGETALL per
/// article (1 + 25 round trips for a full page). Each map gets its `id`
/// (the member, `article:N`), as in seed 004.
pub fn get_articles(
    con: &mut Connection,
    page: isize,
    order: &str,
) -> RedisResult<Vec<std::collections::HashMap<String, String>>> {
    let start = (page - 1) * ARTICLES_PER_PAGE;
    let end = start + ARTICLES_PER_PAGE - 1;
    let ids: Vec<String> = con.zrevrange(order, start, end)?;
    let mut articles = Vec::with_capacity(ids.len());
    for id in ids {
        let mut data: std::collections::HashMap<String, String> = con.hgetall(&id)?;
        data.insert("id".to_string(), id);
        articles.push(data);
    }
    Ok(articles)
}

/// `add_remove_groups(conn, article_id, to_add, to_remove)`.
pub fn add_remove_groups(
    con: &mut Connection,
    article_id: &str,
    to_add: &[&str],
    to_remove: &[&str],
) -> RedisResult<()> {
    let article = format!("article:{article_id}");
    for group in to_add {
        let _: () = con.sadd(format!("group:{group}"), &article)?;
    }
    for group in to_remove {
        let _: () = con.srem(format!("group:{group}"), &article)?;
    }
    Ok(())
}

/// `get_group_articles(conn, group, page, order)`: the 60-second
/// ZINTERSTORE cache (AGGREGATE MAX), then [`get_articles`].
pub fn get_group_articles(
    con: &mut Connection,
    group: &str,
    page: isize,
    order: &str,
) -> RedisResult<Vec<std::collections::HashMap<String, String>>> {
    let key = format!("{order}{group}");
    let exists: bool = con.exists(&key)?;
    if !exists {
        let _: () = redis::cmd("ZINTERSTORE")
            .arg(&key)
            .arg(2)
            .arg(format!("group:{group}"))
            .arg(order)
            .arg("AGGREGATE")
            .arg("MAX")
            .query(con)?;
        let _: () = con.expire(&key, 60)?;
    }
    get_articles(con, page, &key)
}
