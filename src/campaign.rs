//! [`Campaign`]: the campaign leaderboards of seed 002 (period boards,
//! weighted votes, carry-over, unique participants, rank queries, batch
//! votes), one atomic script call per operation.
//!
//! A campaign lives in one namespace, `{c:<name>}:` by default, whose hash
//! tag puts every key of the campaign in one Redis Cluster slot. Every script
//! gets one key, the campaign root `<ns>campaign` (its settings hash), and
//! derives the others from `<ns>`:
//!
//! | key | content |
//! | --- | --- |
//! | `<ns>campaign` | hash: `offset` (seconds east of UTC), `start`, `end`, `updated` |
//! | `<ns>boards` | set of board names |
//! | `<ns>board:B` | hash: `periods`, `ties`, `carry`, `decimals`, `keep_<period>` |
//! | `<ns>weights:B` | hash: option -> weight (the board's options) |
//! | `<ns>option:B:O` | hash: the option's display data |
//! | `<ns>b:B:real:P`, `<ns>b:B:shown:P` | zsets: the period boards (P = `hour:2026-03-17T12`, `day:2026-03-17`, `week:2026-W12`, `month:2026-03`, `total`) |
//! | `<ns>f:B:real:P`, `<ns>f:B:shown:P` | zsets: "first" tie order (boards with `ties = first`) |
//! | `<ns>periods:B` | zset: the period names the board wrote -> their expiry (0: kept) |
//! | `<ns>initial:B` | hash: imported votes per option |
//! | `<ns>hll`, `<ns>hll:B:O` | HyperLogLogs of participants |
//! | `<ns>seq` | vote sequence counter ("first" ties) |

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use redis::Value;
use serde::{Deserialize, Serialize};

use crate::call::Call;
use crate::model::{get, int, items, text, Shape};
use crate::scripts::builtin;

/// Real boards count votes; shown boards count weighted votes, imported
/// votes and carry-over (what a campaign page displays).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// One per vote.
    Real,
    /// Weight per vote, plus imported votes and carry-over.
    #[default]
    Shown,
}

/// A calendar period a board may keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Period {
    /// `hour:2026-03-17T12`.
    Hour,
    /// `day:2026-03-17`.
    Day,
    /// `week:2026-W12` (ISO-8601: Monday start, week 1 holds January 4th).
    Week,
    /// `month:2026-03`.
    Month,
    /// `total`: the whole campaign.
    Total,
}

/// How equal scores rank on a board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ties {
    /// Redis' order: equal scores by member name, descending.
    Name,
    /// Equal scores share the rank, the next skips: 1, 2, 2, 4.
    #[default]
    Competition,
    /// Equal scores share the rank, no gap: 1, 2, 2, 3.
    Dense,
    /// Who reached the score first ranks first (exact for every score:
    /// the order is kept in a side zset of vote sequence numbers).
    First,
}

macro_rules! word_enum {
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
                    _ => Err(format!("expected one of {}, got {s:?}", [$($text),+].join(", "))),
                }
            }
        }
    };
}

word_enum!(Kind { Real => "real", Shown => "shown" });
word_enum!(Period { Hour => "hour", Day => "day", Week => "week", Month => "month", Total => "total" });
word_enum!(Ties { Name => "name", Competition => "competition", Dense => "dense", First => "first" });

/// Campaign settings for [`Campaign::configure`]: every field optional,
/// absent ones left as they are (new boards get the documented defaults).
/// Serialized as the JSON document `campaign_configure.lua` takes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CampaignSettings {
    /// UTC offset where hours, days, weeks and months start: `"+08:00"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<String>,
    /// Votes before this Unix time are refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<u64>,
    /// Votes from this Unix time on are refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<u64>,
    /// Rate limits checked by every vote; replaces the list (`Some(vec![])` removes them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<Vec<LimitRule>>,
    /// Users and channels refused outright; each list given replaces the stored one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deny: Option<DenyLists>,
    /// Boards to create or update.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub boards: BTreeMap<String, BoardSettings>,
}

/// A dimension a rate limit counts by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dimension {
    /// The voting user.
    User,
    /// The voted option (board and option).
    Option,
    /// The vote's traffic source.
    Channel,
    /// The vote's device type.
    Device,
}

/// The window of a fixed-window rate limit (calendar-aligned in the
/// campaign's offset), or the whole campaign.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Window {
    /// One second.
    Second,
    /// One minute.
    Minute,
    /// One hour.
    Hour,
    /// One day.
    Day,
    /// One ISO week.
    Week,
    /// One month.
    Month,
    /// The whole campaign ("one vote per user per campaign").
    Campaign,
}

/// One rate-limit rule: either `window` + `limit` (fixed window) or
/// `rolling` (GCRA).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitRule {
    /// Unique rule name (reported in refusals).
    pub name: String,
    /// What it counts per: any non-empty combination.
    pub by: Vec<Dimension>,
    /// Fixed window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Window>,
    /// Votes per fixed window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// Rolling window (GCRA): no burst at a window edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolling: Option<Rolling>,
    /// Extra allowance per channel (a partner channel: +5).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, u64>,
}

/// A GCRA rolling limit: `limit` votes per `per` seconds, evenly spaced,
/// with up to `burst` at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rolling {
    /// Votes per `per` seconds.
    pub limit: u64,
    /// Seconds.
    pub per: u64,
    /// Votes at once (default: `limit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<u64>,
}

/// Deny lists; a list given replaces the stored one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DenyLists {
    /// Users refused outright.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub users: Option<Vec<String>>,
    /// Channels refused outright.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<Vec<String>>,
}

/// One board's settings; absent fields are left as they are.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardSettings {
    /// Periods kept (default for a new board: `[total]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub periods: Option<Vec<Period>>,
    /// Tie rule (default: competition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ties: Option<Ties>,
    /// Share of a vote's shown weight added to the next period's shown
    /// board, a decimal in [0, 1] with at most 6 decimals (default `"0"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carry: Option<String>,
    /// Decimals shown scores keep (0..=6, default 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decimals: Option<u32>,
    /// Seconds a period board lives after its period ends (0: forever).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub retention: BTreeMap<Period, u64>,
    /// Options to create or update.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, OptionSettings>,
    /// Options to delete, with their scores on every period board.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remove: Vec<String>,
}

/// One option's settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionSettings {
    /// "One vote counts N" on the shown boards (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<u32>,
    /// Display data kept beside the board (name, picture URL, ...); replaces
    /// the option's previous data when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<BTreeMap<String, String>>,
}

/// What [`Campaign::configure`] touched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Configured {
    /// Boards created or updated.
    pub boards: u64,
    /// Options created or updated.
    pub options: u64,
}

/// A score on one period's shown board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeriodScore {
    /// Period name (`day:2026-03-17`, `total`, ...).
    pub period: String,
    /// Score with the board's decimals.
    pub score: String,
}

/// The result of one (board, option) pair of a vote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ballot {
    /// Board.
    pub board: String,
    /// Option.
    pub option: String,
    /// The new shown score in every period the board keeps.
    pub shown: Vec<PeriodScore>,
}

/// One ranked member of a board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The option.
    pub member: String,
    /// Score with the board's decimals (0 on real boards).
    pub score: String,
    /// 1-based rank under the board's tie rule.
    pub rank: u64,
}

/// One page of one board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardPage {
    /// Board.
    pub board: String,
    /// The period read.
    pub period: String,
    /// Members on the board.
    pub size: u64,
    /// This page, best first.
    pub entries: Vec<Entry>,
}

/// Where a member stands on a board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    /// The option.
    pub member: String,
    /// 1-based rank (None: not on the board).
    pub rank: Option<u64>,
    /// Score.
    pub score: Option<String>,
    /// The member just ahead in the board's order (None for the leader).
    pub ahead: Option<String>,
    /// How far ahead it is (0 when tied).
    pub gap: Option<String>,
    /// Rank in the previous period (None for `total` or when absent).
    pub previous_rank: Option<u64>,
    /// Score in the previous period.
    pub previous_score: Option<String>,
}

/// The neighbourhood of a member on a board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Around {
    /// Members on the board.
    pub size: u64,
    /// Pages at the asked page size.
    pub pages: u64,
    /// The member's rank (None: not on the board).
    pub rank: Option<u64>,
    /// Share of the board scoring strictly below the member, percent with 2 decimals.
    pub percentile: Option<String>,
    /// The page the member is on.
    pub page: Option<u64>,
    /// The window of members around it, in board order.
    pub window: Vec<Entry>,
}

/// Unique participants.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Participants {
    /// Of the whole campaign.
    pub campaign: u64,
    /// Of each asked option: (option, participants).
    pub options: Vec<(String, u64)>,
}

/// What an import did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Imported {
    /// Options whose imported amount changed.
    pub changed: u64,
    /// Options already at the asked amount.
    pub unchanged: u64,
}

/// Who votes, for rate limits: the user and the vote's context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Voter<'a> {
    /// The user (1..256 bytes).
    pub user: &'a str,
    /// Traffic source (a partner channel may have extra allowance).
    pub channel: Option<&'a str>,
    /// Device type (`pc`, `mobile`, ...), counted apart by rules `by` device.
    pub device: Option<&'a str>,
    /// What the vote spends of each limit (1..=1000).
    pub cost: u32,
}

impl<'a> Voter<'a> {
    /// A voter with no channel or device, spending 1.
    pub fn new(user: &'a str) -> Self {
        Voter {
            user,
            channel: None,
            device: None,
            cost: 1,
        }
    }

    /// user, time, channel, device, cost: the first ARGV of the vote.
    fn args(&self, time: String) -> Vec<String> {
        vec![
            self.user.to_string(),
            time,
            self.channel.unwrap_or_default().to_string(),
            self.device.unwrap_or_default().to_string(),
            self.cost.to_string(),
        ]
    }
}

/// What one rate-limit counter leaves a voter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitLeft {
    /// The rule.
    pub rule: String,
    /// Votes it still allows now.
    pub remaining: i64,
    /// Seconds until its window resets (-1: never within the campaign).
    pub reset_in: i64,
}

/// One campaign: its namespace and, on the test/import path only, a fixed
/// clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Campaign {
    ns: String,
    root: String,
    at: Option<u64>,
}

impl Campaign {
    /// The campaign `name` in the namespace `{c:<name>}:` (one cluster slot).
    pub fn new(name: &str) -> Self {
        Self::with_namespace(format!("{{c:{name}}}:"))
    }

    /// A campaign under an explicit namespace (keep a hash tag in it for
    /// Redis Cluster).
    pub fn with_namespace(ns: impl Into<String>) -> Self {
        let ns = ns.into();
        let root = format!("{ns}campaign");
        Campaign { ns, root, at: None }
    }

    /// Test/import path: the same campaign with every call at Unix time
    /// `time` instead of the server's clock.
    pub fn at(&self, time: u64) -> Self {
        Campaign {
            at: Some(time),
            ..self.clone()
        }
    }

    /// The namespace.
    pub fn namespace(&self) -> &str {
        &self.ns
    }

    /// The root key every script takes as `KEYS[1]`: `<ns>campaign`.
    pub fn root_key(&self) -> &str {
        &self.root
    }

    fn time_arg(&self) -> String {
        self.at.map(|t| t.to_string()).unwrap_or_default()
    }

    fn call<T>(
        &self,
        op: &str,
        args: Vec<String>,
        read: impl Fn(Value) -> Shape<T> + Send + Sync + 'static,
    ) -> Call<T> {
        Call::new(builtin(op), &self.root, args, read)
    }

    /// Create or update the campaign, its boards, options and settings.
    pub fn configure(&self, settings: &CampaignSettings) -> Call<Configured> {
        let json = serde_json::to_string(settings).expect("settings serialize");
        self.call("campaign_configure", vec![json], |v| {
            let items = items(v)?;
            Ok(Configured {
                boards: int(get(&items, 1)?)? as u64,
                options: int(get(&items, 3)?)? as u64,
            })
        })
    }

    /// `user` votes for each (board, option) pair, all or nothing.
    pub fn vote(&self, user: &str, pairs: &[(&str, &str)]) -> Call<Vec<Ballot>> {
        self.vote_by(&Voter::new(user), pairs)
    }

    /// A vote with its rate-limit context (channel, device, cost). A refusal
    /// is [`crate::Error::RateLimited`] or `Code::Denied`; nothing is written.
    pub fn vote_by(&self, voter: &Voter, pairs: &[(&str, &str)]) -> Call<Vec<Ballot>> {
        let mut args = voter.args(self.time_arg());
        args.extend(flat(pairs));
        self.call("campaign_vote", args, |v| {
            items(v)?
                .into_iter()
                .map(|pair| {
                    let pair = items(pair)?;
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
                    })
                })
                .collect()
        })
    }

    /// Set the imported (starting) shown votes of options of `board`:
    /// `(option, votes)` with votes a decimal string. Idempotent.
    pub fn import(&self, board: &str, votes: &[(&str, &str)]) -> Call<Imported> {
        let mut args = vec![board.to_string(), self.time_arg()];
        args.extend(flat(votes));
        self.call("campaign_import", args, |v| {
            let items = items(v)?;
            Ok(Imported {
                changed: int(get(&items, 0)?)? as u64,
                unchanged: int(get(&items, 1)?)? as u64,
            })
        })
    }

    /// Page `page` (1-based) of each board, for `period` (`"day"`: the
    /// current day; `"day:2026-03-17"`; `"total"`; ...).
    pub fn top(
        &self,
        boards: &[&str],
        kind: Kind,
        period: &str,
        page: u32,
        per_page: u32,
    ) -> Call<Vec<BoardPage>> {
        let mut args = vec![
            kind.as_str().to_string(),
            period.to_string(),
            page.to_string(),
            per_page.to_string(),
            self.time_arg(),
        ];
        args.extend(boards.iter().map(|b| b.to_string()));
        self.call("campaign_top", args, |v| {
            items(v)?
                .into_iter()
                .map(|b| {
                    let b = items(b)?;
                    Ok(BoardPage {
                        board: text(get(&b, 0)?)?,
                        period: text(get(&b, 1)?)?,
                        size: int(get(&b, 2)?)? as u64,
                        entries: entries(get(&b, 3)?.clone())?,
                    })
                })
                .collect()
        })
    }

    /// Rank, score, the member ahead and the gap, and last period's rank and
    /// score, for each of `members`.
    pub fn standing(
        &self,
        board: &str,
        kind: Kind,
        period: &str,
        members: &[&str],
    ) -> Call<Vec<Standing>> {
        let mut args = vec![
            board.to_string(),
            kind.as_str().to_string(),
            period.to_string(),
            self.time_arg(),
        ];
        args.extend(members.iter().map(|m| m.to_string()));
        self.call("campaign_standing", args, |v| {
            items(v)?
                .into_iter()
                .map(|s| {
                    let s = items(s)?;
                    Ok(Standing {
                        member: text(get(&s, 0)?)?,
                        rank: opt_int(get(&s, 1)?)?,
                        score: opt_text(get(&s, 2)?)?,
                        ahead: opt_text(get(&s, 3)?)?,
                        gap: opt_text(get(&s, 4)?)?,
                        previous_rank: opt_int(get(&s, 5)?)?,
                        previous_score: opt_text(get(&s, 6)?)?,
                    })
                })
                .collect()
        })
    }

    /// The `window` members around `member`, its rank, percentile and page
    /// (at `per_page`), and the board's size and page count.
    pub fn around(
        &self,
        board: &str,
        kind: Kind,
        period: &str,
        member: &str,
        window: u32,
        per_page: u32,
    ) -> Call<Around> {
        let args = vec![
            board.to_string(),
            kind.as_str().to_string(),
            period.to_string(),
            self.time_arg(),
            member.to_string(),
            window.to_string(),
            per_page.to_string(),
        ];
        self.call("campaign_around", args, |v| {
            let a = items(v)?;
            Ok(Around {
                size: int(get(&a, 0)?)? as u64,
                pages: int(get(&a, 1)?)? as u64,
                rank: opt_int(get(&a, 2)?)?,
                percentile: opt_text(get(&a, 3)?)?,
                page: opt_int(get(&a, 4)?)?,
                window: entries(get(&a, 5)?.clone())?,
            })
        })
    }

    /// How many votes each rate-limit rule leaves `voter` now, spending
    /// nothing; rules that count per option need the `pairs` to look at.
    pub fn limits(&self, voter: &Voter, pairs: &[(&str, &str)]) -> Call<Vec<LimitLeft>> {
        self.call(
            "campaign_limits",
            self.limits_args("peek", voter, pairs),
            |v| {
                items(v)?
                    .into_iter()
                    .map(|r| {
                        let r = items(r)?;
                        Ok(LimitLeft {
                            rule: text(get(&r, 0)?)?,
                            remaining: int(get(&r, 1)?)?,
                            reset_in: int(get(&r, 2)?)?,
                        })
                    })
                    .collect()
            },
        )
    }

    /// Admin: delete `voter`'s counters of every rule that counts per user
    /// (the current windows and rolling state). Returns how many were deleted.
    pub fn reset_limits(&self, voter: &Voter, pairs: &[(&str, &str)]) -> Call<u64> {
        self.call(
            "campaign_limits",
            self.limits_args("reset", voter, pairs),
            |v| Ok(int(&v)? as u64),
        )
    }

    /// `campaign_limits.lua`'s arguments: mode, user, time, channel, device, pairs.
    fn limits_args(&self, mode: &str, voter: &Voter, pairs: &[(&str, &str)]) -> Vec<String> {
        let mut args = vec![mode.to_string()];
        args.extend(voter.args(self.time_arg()).into_iter().take(4));
        args.extend(flat(pairs));
        args
    }

    /// Unique participants of the campaign and of `options` of `board`.
    pub fn participants(&self, board: &str, options: &[&str]) -> Call<Participants> {
        let mut args = vec![board.to_string()];
        args.extend(options.iter().map(|o| o.to_string()));
        self.call("campaign_participants", args, |v| {
            let mut it = items(v)?.into_iter();
            let campaign = int(&it.next().unwrap_or_default())? as u64;
            let options = it
                .map(|o| {
                    let o = items(o)?;
                    Ok((text(get(&o, 0)?)?, int(get(&o, 1)?)? as u64))
                })
                .collect::<Shape<_>>()?;
            Ok(Participants { campaign, options })
        })
    }
}

/// Pairs as the flat `a, b, a, b, ...` arguments the scripts take.
fn flat<'a>(pairs: &'a [(&str, &str)]) -> impl Iterator<Item = String> + 'a {
    pairs
        .iter()
        .flat_map(|(a, b)| [a.to_string(), b.to_string()])
}

fn opt_int(v: &Value) -> Shape<Option<u64>> {
    match v {
        Value::Nil => Ok(None),
        v => Ok(Some(int(v)? as u64)),
    }
}

fn opt_text(v: &Value) -> Shape<Option<String>> {
    match v {
        Value::Nil => Ok(None),
        v => Ok(Some(text(v)?)),
    }
}

fn entries(v: Value) -> Shape<Vec<Entry>> {
    items(v)?
        .into_iter()
        .map(|e| {
            let e = items(e)?;
            Ok(Entry {
                member: text(get(&e, 0)?)?,
                score: text(get(&e, 1)?)?,
                rank: int(get(&e, 2)?)? as u64,
            })
        })
        .collect()
}
