//! How each site result is read from its script's reply (the shapes are
//! documented in each script's header, `Output:`).

use std::collections::BTreeMap;

use redis::Value;

use super::model::{Article, Config, GroupChange, Order, Page, Ranking, Reranked, VoteOutcome};
use crate::reply::{count, float, get, int, items, pairs, reply_type, text, word, Reply, Shape};

/// An article from its id, its score and its flat `HGETALL` field list.
fn article(id: &Value, score: &Value, fields: Value) -> Shape<Article> {
    let mut map: BTreeMap<String, String> = pairs(fields)?.into_iter().collect();
    let mut take = |name: &str| map.remove(name).unwrap_or_default();
    // The seeds' Python writes float times; counts are integers.
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

/// Exactly `n` items.
fn exactly(v: Value, n: usize) -> Shape<Vec<Value>> {
    let items = items(v)?;
    if items.len() != n {
        return Err(format!("expected {n} items, got {}", items.len()));
    }
    Ok(items)
}

/// What a page echoes of its request (its reply holds only the articles).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageOf {
    /// The order asked for.
    pub order: Order,
    /// The group, for a group page.
    pub group: Option<String>,
    /// The page number asked for.
    pub page: u32,
}

/// `page.lua` / `group_page.lua`: `{ total, per_page, { id, score, fields }... }`.
impl Reply for Page {
    type Context = PageOf;
    fn from_reply(v: Value, of: &PageOf) -> Shape<Page> {
        let items = items(v)?;
        let total = count(get(&items, 0)?)?;
        let per_page = count(get(&items, 1)?)? as u32;
        let mut articles = Vec::new();
        for entry in items.into_iter().skip(2) {
            let mut entry = exactly(entry, 3)?;
            let fields = entry.pop().unwrap_or_default();
            articles.push(article(&entry[0], &entry[1], fields)?);
        }
        Ok(Page {
            order: of.order,
            group: of.group.clone(),
            page: of.page,
            per_page,
            total,
            articles,
        })
    }
}

reply_type! {
    // `article.lua`: `{ id, score, rank, vote, fields }`.
    Article => |v| {
        let mut items = exactly(v, 5)?;
        let fields = items.pop().unwrap_or_default();
        let mut a = article(&items[0], &items[1], fields)?;
        a.rank = match &items[2] {
            Value::Nil => None,
            v => Some(count(v)?),
        };
        let vote = text(&items[3])?;
        a.user_vote = if vote.is_empty() { None } else { Some(vote.parse()?) };
        Ok(a)
    };
    // `vote.lua`: `{ changed, previous, vote, score, votes, downvotes }`.
    VoteOutcome => |v| {
        let items = exactly(v, 6)?;
        Ok(VoteOutcome {
            changed: int(&items[0])? == 1,
            previous: word(&items[1])?,
            vote: word(&items[2])?,
            score: float(&items[3])?,
            votes: int(&items[4])?,
            downvotes: int(&items[5])?,
        })
    };
    // `groups.lua`: `{ added, removed }`.
    GroupChange => |v| {
        let items = items(v)?;
        Ok(GroupChange {
            added: count(get(&items, 0)?)?,
            removed: count(get(&items, 1)?)?,
        })
    };
    // `rerank.lua`: `{ ranked, next }`.
    Reranked => |v| {
        let items = items(v)?;
        Ok(Reranked {
            ranked: count(get(&items, 0)?)?,
            next: count(get(&items, 1)?)?,
        })
    };
    // `configure.lua`: `{ field, value, ... }`.
    Config => |v| {
        let map: BTreeMap<String, String> = pairs(v)?.into_iter().collect();
        let field = |name: &str| -> Shape<&String> {
            map.get(name).ok_or_else(|| format!("setting {name} missing"))
        };
        let num = |name: &str| -> Shape<u64> {
            field(name)?.parse().map_err(|e| format!("setting {name}: {e}"))
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
    };
}
