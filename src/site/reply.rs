//! How each site result is read from its script's reply (the shapes are
//! documented in each script's header, `Output:`).

use std::collections::BTreeMap;

use redis::Value;

use super::model::{Article, Config, GroupChange, Ranking, Reranked, SiteUpgraded, VoteOutcome};
use crate::reply::{count, float, get, int, items, pairs, reply_type, text, word, Shape};

/// An article from its id, its score and its flat `HGETALL` field list.
fn article(id: &Value, score: &Value, fields: Value) -> Shape<Article> {
    let map: BTreeMap<String, String> = pairs(fields)?.into_iter().collect();
    Ok(super::page::article(text(id)?, float(score)?, map))
}

/// Exactly `n` items.
fn exactly(v: Value, n: usize) -> Shape<Vec<Value>> {
    let items = items(v)?;
    if items.len() != n {
        return Err(format!("expected {n} items, got {}", items.len()));
    }
    Ok(items)
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
    // `upgrade.lua`: `{ from, to, next }`.
    SiteUpgraded => |v| {
        let items = items(v)?;
        let layout = |i| -> Result<u32, String> {
            u32::try_from(count(get(&items, i)?)?).map_err(|_| "a layout beyond u32".to_string())
        };
        Ok(SiteUpgraded {
            from: layout(0)?,
            to: layout(1)?,
            next: text(get(&items, 2)?)?,
        })
    };
    // `config.lua` and `configure.lua`: `{ field, value, ... }`.
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
