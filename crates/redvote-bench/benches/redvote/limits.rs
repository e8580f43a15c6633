//! The rate-limit section: the same light campaign vote with 0, 4 and 8
//! rules. Its constants, the rules of its three campaigns (and their
//! allowances and descriptions), the campaigns' names, the setup that
//! configures them and peeks at their rules, and the check of a vote's
//! reply (a refusal fails the bench).

use std::collections::BTreeMap;

use anyhow::{bail, ensure, Context, Result};
use redvote::campaign::{
    Ballot, BoardSettings, Dimension, LimitRule, OptionSettings, Rolling, Voter, Window,
};
use redvote::{Campaign, CampaignSettings, Period, Ties};

use super::campaign::CAMPAIGN_OFFSET;
use super::scenario::Input;
use super::Bench;

/// The rate-limit section: the rules of its three campaigns (identical but
/// for their limits), their board (the campaign section's `opt1` ..
/// `opt100`, at weight 1, no carry) and the periods it keeps.
pub(super) const LIMIT_RULE_COUNTS: [usize; 3] = [0, 4, 8];
pub(super) const LIMITS_BOARD: &str = "stars";
pub(super) const LIMITS_WEIGHT: u32 = 1;
pub(super) const LIMITS_PERIODS: [Period; 2] = [Period::Day, Period::Total];
/// The rate-limit votes' channels and devices (picked by a hash of the user).
pub(super) const LIMITS_CHANNELS: [&str; 2] = ["web", "partner"];
pub(super) const LIMITS_DEVICES: [&str; 2] = ["pc", "mobile"];
/// "4 rules cost <= 1.5x": ops/s with 0 rules over ops/s with 4 rules.
pub(super) const LIMITS_TARGET: f64 = 1.5;
/// Limits no bench vote can reach (the most `campaign_configure` takes).
const NEVER: u64 = 1_000_000_000;

/// The settings of the rate-limit campaign with `n` rules (`limit_rules`):
/// offset +08:00, one board keeping day and total, `options` at weight
/// `LIMITS_WEIGHT` (the section's campaigns and the ir section's row).
pub(super) fn limits_settings(options: &[String], n: usize) -> CampaignSettings {
    let board = options.iter().fold(
        BoardSettings::new(&LIMITS_PERIODS).with_ties(Ties::Competition),
        |b, o| b.with_option(o, OptionSettings::weighted(LIMITS_WEIGHT)),
    );
    CampaignSettings {
        offset: Some(CAMPAIGN_OFFSET.to_string()),
        limits: Some(limit_rules(n)),
        boards: BTreeMap::from([(LIMITS_BOARD.to_string(), board)]),
        ..CampaignSettings::default()
    }
}

/// The rules of the rate-limit campaign with `n` (0, 4 or 8) rules. Every
/// bench vote is by a new user, so the per-user rules keep realistic limits
/// (as `docs/spring2026.json`) and still never refuse; the option and
/// channel rules get limits no bench reaches.
pub(super) fn limit_rules(n: usize) -> Vec<LimitRule> {
    let fixed = LimitRule::fixed;
    let (user, option) = (Dimension::User, Dimension::Option);
    let mut rules = vec![
        // 4 rules.
        fixed("user-minute", &[user], Window::Minute, 5),
        fixed("user-hour", &[user], Window::Hour, 10),
        fixed("option-second", &[option], Window::Second, NEVER),
        fixed(
            "user-device-day",
            &[user, Dimension::Device],
            Window::Day,
            20,
        ),
        // 8 rules.
        fixed("channel-day", &[Dimension::Channel], Window::Day, NEVER),
        fixed(
            "user-channel-day",
            &[user, Dimension::Channel],
            Window::Day,
            20,
        )
        .with_extra(LIMITS_CHANNELS[1], 5),
        fixed("option-hour", &[option], Window::Hour, NEVER),
        LimitRule::rolling("user-rolling", &[user], Rolling::new(5, 60).with_burst(5)),
    ];
    rules.truncate(n);
    rules
}

/// What `rule` allows a fresh voter on `channel`: its limit (a rolling
/// rule: its burst) plus the channel's extra allowance.
fn allowance(rule: &LimitRule, channel: &str) -> u64 {
    let base = match (&rule.rolling, rule.limit) {
        (Some(r), _) => r.burst.unwrap_or(r.limit),
        (None, limit) => limit.unwrap_or(0),
    };
    base + rule.extra.get(channel).copied().unwrap_or(0)
}

/// `user-channel-day 20/day +5 partner`, `user-rolling GCRA 5 per 60 s
/// burst 5`: a rule in a few words (`1e9`: never reached).
pub(super) fn describe_rule(rule: &LimitRule) -> String {
    let amount = |n: u64| {
        if n >= NEVER {
            "1e9".to_string()
        } else {
            n.to_string()
        }
    };
    let mut text = match (&rule.rolling, rule.window, rule.limit) {
        (Some(r), _, _) => format!(
            "{} GCRA {} per {} s burst {}",
            rule.name,
            r.limit,
            r.per,
            r.burst.unwrap_or(r.limit)
        ),
        (None, Some(w), Some(limit)) => {
            let window = serde_json::to_value(w)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            format!("{} {}/{window}", rule.name, amount(limit))
        }
        _ => rule.name.clone(),
    };
    for (channel, n) in &rule.extra {
        text.push_str(&format!(" +{n} {channel}"));
    }
    text
}

/// The rate-limit section's campaigns, one per entry of
/// `LIMIT_RULE_COUNTS`: `{<prefix>c:bench-limits<rules>}:`.
pub(super) fn limits_campaigns(prefix: &str) -> Vec<Campaign> {
    LIMIT_RULE_COUNTS
        .iter()
        .map(|n| Campaign::with_namespace(format!("{{{prefix}c:bench-limits{n}}}:")))
        .collect()
}

impl Bench {
    /// Configure the rate-limit section's campaigns, identical but for their
    /// limits (offset +08:00, one board keeping day and total, the options
    /// at weight 1), then peek at each one's rules for a fresh voter on the
    /// `partner` channel: they must be the configured ones, in order, each
    /// leaving its whole allowance (extra included).
    pub(super) fn limits_setup(&mut self) -> Result<()> {
        let options = &self.ctx.campaign.options;
        for (k, campaign) in self.ctx.limits.iter().enumerate() {
            let settings = limits_settings(options, LIMIT_RULE_COUNTS[k]);
            let rules = settings.limits.as_deref().unwrap_or_default();
            campaign
                .configure(&settings)
                .run(&mut self.admin)
                .with_context(|| format!("configuring the {}-rule campaign", rules.len()))?;
            let channel = LIMITS_CHANNELS[1];
            let voter = Voter {
                user: "bench:limits-probe".into(),
                channel: Some(channel.into()),
                device: Some(LIMITS_DEVICES[1].into()),
                cost: 1,
                id: None,
            };
            let got: Vec<(String, i64)> = campaign
                .limits(&voter, &[(LIMITS_BOARD, "opt1")])
                .run(&mut self.admin)
                .context("peeking at the rate-limit campaign's rules")?
                .into_iter()
                .map(|l| (l.rule, l.remaining))
                .collect();
            let want: Vec<(String, i64)> = rules
                .iter()
                .map(|r| (r.name.clone(), allowance(r, channel) as i64))
                .collect();
            ensure!(
                got == want,
                "the {}-rule campaign leaves a fresh voter {got:?}, want {want:?}",
                rules.len()
            );
        }
        Ok(())
    }
}

/// A rate-limited vote must pass (a refusal fails the bench: its limits are
/// meant never to refuse) and answer one ballot for the board and option
/// with a shown score in each of its periods.
pub(super) fn check_limited(
    reply: redvote::Result<Vec<Ballot>>,
    k: usize,
    input: &Input,
    option: &str,
) -> Result<u64> {
    let rules = LIMIT_RULE_COUNTS[k];
    let ballots = match reply {
        Err(redvote::Error::RateLimited(refusal)) => bail!(
            "the {rules}-rule campaign refused the vote of {} (channel {}, device {}) for \
             {option}: {refusal}; the bench's limits must never refuse a vote",
            input.user,
            input.channel,
            input.device
        ),
        reply => reply.with_context(|| format!("a vote on the {rules}-rule campaign"))?,
    };
    ensure!(
        ballots.len() == 1
            && ballots[0].board == LIMITS_BOARD
            && ballots[0].option == option
            && ballots[0].shown.len() == LIMITS_PERIODS.len(),
        "the {rules}-rule campaign's vote of {} for {option} answered {ballots:?}",
        input.user
    );
    Ok(0)
}
