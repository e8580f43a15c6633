//! How each campaign result is read from its script's reply (the shapes are
//! documented in each script's header, `Output:`).

use redis::Value;

use super::model::{
    Around, Ballot, BoardPage, Configured, Entry, Folded, Imported, LimitLeft, Participants,
    PeriodScore, Reindexed, RemoveStep, Standing, Upgraded,
};
use super::settings::CampaignSettings;
use crate::reply::{
    count, get, int, items, list, opt_count, opt_text, reply_type, text, Reply, Shape,
};

fn entries(v: Value) -> Shape<Vec<Entry>> {
    list(v, |e| {
        Ok(Entry {
            member: text(get(&e, 0)?)?,
            score: text(get(&e, 1)?)?,
            rank: count(get(&e, 2)?)?,
        })
    })
}

/// An optional trailing `folded` (lib/folded) of a vote's pair or a board
/// read: Unix ms as text on a buffered campaign, absent on an immediate one.
fn folded(v: Option<&Value>) -> Shape<Option<u64>> {
    v.map(|v| {
        text(v)?
            .parse()
            .map_err(|_| format!("expected Unix ms, got {v:?}"))
    })
    .transpose()
}

/// A list of results, each read by its element type.
macro_rules! reply_list {
    ($($ty:ty),+) => {$(
        impl Reply for Vec<$ty> {
            fn from_reply(v: Value) -> Shape<Self> {
                items(v)?.into_iter().map(<$ty as Reply>::from_reply).collect()
            }
        }
    )+};
}
reply_list!(Ballot, BoardPage, Standing, LimitLeft);

reply_type! {
    // `campaign_configure.lua`: `{ "boards", n, "options", n }`.
    Configured => |v| {
        let items = items(v)?;
        Ok(Configured {
            boards: count(get(&items, 1)?)?,
            options: count(get(&items, 3)?)?,
        })
    };
    // `campaign_vote.lua`, per pair: `{ board, option, { period, score, ... } }`,
    // plus `"replay"` when the vote id had already been applied, then
    // `folded` on a buffered campaign.
    Ballot => |v| {
        let pair = items(v)?;
        let scores = items(get(&pair, 2)?.clone())?;
        Ok(Ballot {
            board: text(get(&pair, 0)?)?,
            option: text(get(&pair, 1)?)?,
            shown: scores
                .chunks(2)
                .map(|c| {
                    Ok(PeriodScore {
                        period: text(get(c, 0)?)?,
                        score: text(get(c, 1)?)?,
                    })
                })
                .collect::<Shape<_>>()?,
            replay: match pair.get(3) {
                None => false,
                Some(v) => match text(v)?.as_str() {
                    "replay" => true,
                    "" => false,
                    other => return Err(format!("expected \"replay\" or \"\", got {other:?}")),
                },
            },
            folded: folded(pair.get(4))?,
        })
    };
    // `campaign_fold.lua`: `{ folded, left, until, overflow }`.
    Folded => |v| {
        let items = items(v)?;
        Ok(Folded {
            folded: count(get(&items, 0)?)?,
            left: count(get(&items, 1)?)?,
            until: text(get(&items, 2)?)?
                .parse()
                .map_err(|_| "expected Unix ms".to_string())?,
            overflow: count(get(&items, 3)?)?,
        })
    };
    // `campaign_import.lua`: `{ changed, unchanged, rest }`.
    Imported => |v| {
        let items = items(v)?;
        Ok(Imported {
            changed: count(get(&items, 0)?)?,
            unchanged: count(get(&items, 1)?)?,
            rest: count(get(&items, 2)?)?,
        })
    };
    // `campaign_reindex.lua`: `{ members, boards, next cursor }`.
    Reindexed => |v| {
        let items = items(v)?;
        Ok(Reindexed {
            members: count(get(&items, 0)?)?,
            boards: count(get(&items, 1)?)?,
            next: text(get(&items, 2)?)?,
        })
    };
    // `campaign_remove.lua`: `{ removed, boards, next cursor }`.
    RemoveStep => |v| {
        let items = items(v)?;
        Ok(RemoveStep {
            removed: count(get(&items, 0)?)?,
            boards: count(get(&items, 1)?)?,
            next: text(get(&items, 2)?)?,
        })
    };
    // `campaign_upgrade.lua`: `{ from, to, next cursor }`.
    Upgraded => |v| {
        let items = items(v)?;
        let layout = |i| -> Result<u32, String> {
            u32::try_from(count(get(&items, i)?)?).map_err(|_| "a layout beyond u32".to_string())
        };
        Ok(Upgraded {
            from: layout(0)?,
            to: layout(1)?,
            next: text(get(&items, 2)?)?,
        })
    };
    // `campaign_top.lua`, per board: `{ board, period, size, entries
    // [, folded] }`.
    BoardPage => |v| {
        let b = items(v)?;
        Ok(BoardPage {
            board: text(get(&b, 0)?)?,
            period: text(get(&b, 1)?)?,
            size: count(get(&b, 2)?)?,
            entries: entries(get(&b, 3)?.clone())?,
            folded: folded(b.get(4))?,
        })
    };
    // `campaign_standing.lua`, per member: `{ member, rank, score, ahead,
    // gap, previous rank, previous score [, folded] }`.
    Standing => |v| {
        let s = items(v)?;
        Ok(Standing {
            member: text(get(&s, 0)?)?,
            rank: opt_count(get(&s, 1)?)?,
            score: opt_text(get(&s, 2)?)?,
            ahead: opt_text(get(&s, 3)?)?,
            gap: opt_text(get(&s, 4)?)?,
            previous_rank: opt_count(get(&s, 5)?)?,
            previous_score: opt_text(get(&s, 6)?)?,
            folded: folded(s.get(7))?,
        })
    };
    // `campaign_around.lua`: `{ size, pages, rank, percentile, page, window
    // [, folded] }`.
    Around => |v| {
        let a = items(v)?;
        Ok(Around {
            size: count(get(&a, 0)?)?,
            pages: count(get(&a, 1)?)?,
            rank: opt_count(get(&a, 2)?)?,
            percentile: opt_text(get(&a, 3)?)?,
            page: opt_count(get(&a, 4)?)?,
            window: entries(get(&a, 5)?.clone())?,
            folded: folded(a.get(6))?,
        })
    };
    // `campaign_limits.lua`, per rule: `{ rule, remaining, reset_in }`.
    LimitLeft => |v| {
        let r = items(v)?;
        Ok(LimitLeft {
            rule: text(get(&r, 0)?)?,
            remaining: int(get(&r, 1)?)?,
            reset_in: int(get(&r, 2)?)?,
        })
    };
    // `campaign_participants.lua`: `{ campaign, { option, count }, ... }`.
    Participants => |v| {
        let mut it = items(v)?.into_iter();
        let campaign = count(&it.next().unwrap_or_default())?;
        let options = it
            .map(|o| {
                let o = items(o)?;
                Ok((text(get(&o, 0)?)?, count(get(&o, 1)?)?))
            })
            .collect::<Shape<_>>()?;
        Ok(Participants { campaign, options })
    };
    // `campaign_settings.lua`: the JSON text of the settings document.
    CampaignSettings => |v| {
        let json = text(&v)?;
        serde_json::from_str(&json).map_err(|e| format!("not a settings document: {e}"))
    };
}
