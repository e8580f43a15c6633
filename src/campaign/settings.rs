//! A campaign's settings, as the JSON document `campaign_configure.lua`
//! takes: the campaign (offset, start, end), its rate limits and deny
//! lists, its boards and their options. Every field is optional (absent
//! ones are left as they are); constructors and `with_*` methods build the
//! common shapes without struct literals.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::model::{Period, Ties};

/// Campaign settings for [`crate::Campaign::configure`]: every field optional,
/// absent ones left as they are (new boards get the documented defaults).
/// Serialized as the JSON document `campaign_configure.lua` takes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
    /// Seconds a vote id ([`crate::Voter::id`]) is remembered, 1..=31536000
    /// (the campaign's default: 86400, a day). A retry after that counts again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vote_id_ttl: Option<u64>,
    /// Entries of the capped vote log (`<ns>log`, at least this many of the
    /// latest votes, each with its user, channel and what it added), which
    /// [`crate::Campaign::void_range`] voids by user or channel; 0..=1000000,
    /// 0 (the default): no log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vote_log: Option<u64>,
    /// How votes reach the boards: [`Mode::Immediate`] (the default: each
    /// vote writes them) or [`Mode::Buffered`] (votes are accepted into a
    /// buffer and folded into the boards in batches; docs/hot-campaigns.md).
    /// Changing it folds what is buffered first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// Buffered campaigns: how old (ms, 10..=60000; default
    /// [`FOLD_MS_DEFAULT`]) the oldest buffered vote grows before the next
    /// vote folds the buffer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fold_ms: Option<u64>,
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

/// A buffered campaign's `fold_ms` when its settings set none (the
/// scripts' `FOLD_MS_DEFAULT`, lua/src/lib/fold_settings.lua: a test holds
/// the two together).
pub const FOLD_MS_DEFAULT: u64 = 200;

/// How a campaign's votes reach its boards (docs/hot-campaigns.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Every vote writes its boards in its own call.
    Immediate,
    /// Votes are accepted into the campaign's buffer and folded into the
    /// boards many at once ([`crate::Campaign::fold`]).
    Buffered,
}

/// A dimension a rate limit counts by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct BoardSettings {
    /// Periods kept (default for a new board: `[total]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub periods: Option<Vec<Period>>,
    /// Tie rule (default: competition). Switching a board that already has
    /// votes to `Dense` or `First` takes effect once
    /// [`crate::Campaign::reindex`] has run to the end (until then reads
    /// rank by the rule before: see `ties_pending`); any other switch takes
    /// effect at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ties: Option<Ties>,
    /// Read-only, as [`crate::Campaign::settings`] reports it: `Some(true)`
    /// while the switch to `ties` is pending (its side keys are being
    /// built by [`crate::Campaign::reindex`]). Configure accepts it back
    /// and ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ties_pending: Option<bool>,
    /// Read-only, beside `ties_pending`: the rule reads rank by until the
    /// switch is made. Configure accepts it back and ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ties_effective: Option<Ties>,
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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

impl CampaignSettings {
    /// No change at all; add what to change with the `with_*` methods.
    pub fn new() -> Self {
        Self::default()
    }

    /// The UTC offset where hours, days, weeks and months start (`"+08:00"`).
    pub fn with_offset(self, offset: &str) -> Self {
        CampaignSettings {
            offset: Some(offset.to_string()),
            ..self
        }
    }

    /// Votes are taken from `start` (Unix seconds) until just before `end`.
    pub fn with_dates(self, start: u64, end: u64) -> Self {
        CampaignSettings {
            start: Some(start),
            end: Some(end),
            ..self
        }
    }

    /// Replace the rate limits (an empty list removes them).
    pub fn with_limits(self, limits: Vec<LimitRule>) -> Self {
        CampaignSettings {
            limits: Some(limits),
            ..self
        }
    }

    /// Add one rate-limit rule to the rules this change sets (like
    /// [`CampaignSettings::with_limits`], the list replaces the campaign's
    /// rules when configured).
    pub fn with_limit(mut self, rule: LimitRule) -> Self {
        self.limits.get_or_insert_with(Vec::new).push(rule);
        self
    }

    /// Keep a capped vote log of at least `entries` of the latest votes
    /// (0: none), for [`crate::Campaign::void_range`].
    pub fn with_vote_log(self, entries: u64) -> Self {
        CampaignSettings {
            vote_log: Some(entries),
            ..self
        }
    }

    /// Set how votes reach the boards ([`Mode`]).
    pub fn with_mode(self, mode: Mode) -> Self {
        CampaignSettings {
            mode: Some(mode),
            ..self
        }
    }

    /// Replace the deny lists that are given.
    pub fn with_deny(self, deny: DenyLists) -> Self {
        CampaignSettings {
            deny: Some(deny),
            ..self
        }
    }

    /// Create or update board `name`.
    pub fn with_board(mut self, name: &str, board: BoardSettings) -> Self {
        self.boards.insert(name.to_string(), board);
        self
    }
}

impl LimitRule {
    /// At most `limit` votes per calendar `window` (or per campaign), counted
    /// per combination of the `by` dimensions.
    pub fn fixed(name: &str, by: &[Dimension], window: Window, limit: u64) -> Self {
        LimitRule {
            name: name.to_string(),
            by: by.to_vec(),
            window: Some(window),
            limit: Some(limit),
            rolling: None,
            extra: BTreeMap::new(),
        }
    }

    /// A rolling (GCRA) limit counted per combination of the `by` dimensions.
    pub fn rolling(name: &str, by: &[Dimension], rolling: Rolling) -> Self {
        LimitRule {
            window: None,
            limit: None,
            rolling: Some(rolling),
            ..LimitRule::fixed(name, by, Window::Campaign, 0)
        }
    }

    /// The same rule allowing `extra` more votes through `channel`.
    pub fn with_extra(mut self, channel: &str, extra: u64) -> Self {
        self.extra.insert(channel.to_string(), extra);
        self
    }
}

impl Rolling {
    /// `limit` votes per `per` seconds, evenly spaced, `limit` at once.
    pub fn new(limit: u64, per: u64) -> Self {
        Rolling {
            limit,
            per,
            burst: None,
        }
    }

    /// The same limit allowing `burst` votes at once.
    pub fn with_burst(self, burst: u64) -> Self {
        Rolling {
            burst: Some(burst),
            ..self
        }
    }
}

impl DenyLists {
    /// Replace the denied users.
    pub fn users(users: &[&str]) -> Self {
        DenyLists {
            users: Some(users.iter().map(|u| u.to_string()).collect()),
            channels: None,
        }
    }

    /// Also replace the denied channels.
    pub fn with_channels(self, channels: &[&str]) -> Self {
        DenyLists {
            channels: Some(channels.iter().map(|c| c.to_string()).collect()),
            ..self
        }
    }
}

impl BoardSettings {
    /// A board keeping `periods`; the other settings as they are (defaults
    /// for a new board).
    pub fn new(periods: &[Period]) -> Self {
        BoardSettings {
            periods: Some(periods.to_vec()),
            ..Self::default()
        }
    }

    /// The tie rule.
    pub fn with_ties(self, ties: Ties) -> Self {
        BoardSettings {
            ties: Some(ties),
            ..self
        }
    }

    /// The carry share, a decimal in [0, 1] (`"0.5"`).
    pub fn with_carry(self, carry: &str) -> Self {
        BoardSettings {
            carry: Some(carry.to_string()),
            ..self
        }
    }

    /// Decimals kept by shown scores (0..=6).
    pub fn with_decimals(self, decimals: u32) -> Self {
        BoardSettings {
            decimals: Some(decimals),
            ..self
        }
    }

    /// Keep `period` boards `seconds` after their period ends (0: forever).
    pub fn with_retention(mut self, period: Period, seconds: u64) -> Self {
        self.retention.insert(period, seconds);
        self
    }

    /// Create or update option `name`.
    pub fn with_option(mut self, name: &str, option: OptionSettings) -> Self {
        self.options.insert(name.to_string(), option);
        self
    }

    /// Create or update each of `names` with weight 1 and no data change.
    pub fn with_options(self, names: &[&str]) -> Self {
        names.iter().fold(self, |board, name| {
            board.with_option(name, OptionSettings::default())
        })
    }

    /// Delete option `name` with its scores.
    pub fn with_removed(mut self, name: &str) -> Self {
        self.remove.push(name.to_string());
        self
    }
}

impl OptionSettings {
    /// An option whose vote counts `weight` on the shown boards.
    pub fn weighted(weight: u32) -> Self {
        OptionSettings {
            weight: Some(weight),
            data: None,
        }
    }

    /// The same option with its display data replaced by `data`.
    pub fn with_data(self, data: &[(&str, &str)]) -> Self {
        let data = data
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        OptionSettings {
            data: Some(data),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::FOLD_MS_DEFAULT;
    use crate::scripts::builtin;

    /// The default is the one the scripts apply.
    #[test]
    fn fold_ms_default_is_the_scripts() {
        let text = format!("local FOLD_MS_DEFAULT = {FOLD_MS_DEFAULT}\n");
        for script in ["campaign_vote", "campaign_fold", "campaign_configure"] {
            assert!(
                builtin(script).source().contains(&text),
                "lua/{script}.lua does not say {text:?}"
            );
        }
    }
}
