//! The campaign section (a leaderboard vote, seed 002): its board, options,
//! weight, carry and offset; the redvote campaign's and the seed's names;
//! the 16 keys the seed computes client-side for a vote, with the period
//! names at the campaign's offset (the same civil-date arithmetic as
//! `campaign_vote.lua`); the setup that configures the campaign and checks
//! those period names against the Lua's; and the check of a vote's reply.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use anyhow::{ensure, Context, Result};
use redvote::campaign::{Ballot, BoardSettings, OptionSettings};
use redvote::{Campaign, CampaignSettings, Period, Ties};

use super::scenario::{unix_now, Input};
use super::Bench;

/// The campaign section's board, its options (`opt1` ..), their weight and
/// the board's carry-over, the campaign's UTC offset (text and seconds).
pub(super) const CAMPAIGN_BOARD: &str = "stars";
pub(super) const CAMPAIGN_OPTIONS: usize = 100;
pub(super) const CAMPAIGN_WEIGHT: u32 = 2;
pub(super) const CAMPAIGN_CARRY: &str = "0.1";
pub(super) const CAMPAIGN_CARRY_VALUE: f64 = 0.1;
pub(super) const CAMPAIGN_OFFSET: &str = "+08:00";
pub(super) const CAMPAIGN_OFFSET_SECONDS: i64 = 8 * 3600;
/// A second board of the redvote campaign, for the setup's period check
/// (its votes stay off the checked board).
const PROBE_BOARD: &str = "probe";
/// The periods the board keeps, in the order the vote reply lists them.
pub(super) const PERIODS: [Period; 5] = [
    Period::Hour,
    Period::Day,
    Period::Week,
    Period::Month,
    Period::Total,
];
/// The campaign's `vote_id_ttl`: the default (the bench configures none),
/// how long a vote id record lives, seconds.
pub(super) const VOTE_ID_TTL: u64 = 86_400;
/// Commands of the seed's campaign vote: 5 ZINCRBY real + 5 ZINCRBY shown +
/// 4 ZINCRBY carry + 2 PFADD.
pub(super) const SEED_WRITES: usize = 16;

/// The campaign section: the redvote campaign, the seed's namespace, the
/// option names, and the seed's keys for the current hour.
pub(super) struct CampaignNames {
    /// `{<prefix>c:bench}:`
    pub(super) redvote: Campaign,
    /// `{<prefix>c:bench-seed}:`
    pub(super) seed_ns: String,
    /// `opt1` .. `opt100`
    pub(super) options: Vec<String>,
    /// The seed's period keys, recomputed when the hour changes.
    seed_keys: Mutex<Arc<SeedKeys>>,
}

impl CampaignNames {
    pub(super) fn new(prefix: &str) -> Self {
        let seed_ns = format!("{{{prefix}c:bench-seed}}:");
        let seed_keys = Mutex::new(Arc::new(SeedKeys::new(&seed_ns, unix_now() as i64)));
        CampaignNames {
            redvote: Campaign::with_namespace(format!("{{{prefix}c:bench}}:")),
            options: (1..=CAMPAIGN_OPTIONS).map(|i| format!("opt{i}")).collect(),
            seed_ns,
            seed_keys,
        }
    }

    /// The seed's keys at Unix second `now` (cached for the hour: every
    /// period boundary at a whole-hour offset is an hour boundary).
    pub(super) fn seed_keys(&self, now: i64) -> Arc<SeedKeys> {
        let mut cached = self.seed_keys.lock().unwrap_or_else(|e| e.into_inner());
        if !(cached.from..cached.until).contains(&now) {
            *cached = Arc::new(SeedKeys::new(&self.seed_ns, now));
        }
        Arc::clone(&cached)
    }

    /// The namespace of a side (0: redvote, 1: seed).
    pub(super) fn ns(&self, side: usize) -> &str {
        if side == 0 {
            self.redvote.namespace()
        } else {
            &self.seed_ns
        }
    }
}

/// The keys one seed vote writes in the hour `from..until`, computed
/// client-side as the seed does.
pub(super) struct SeedKeys {
    from: i64,
    until: i64,
    /// (key, increment) of the 14 ZINCRBYs: real +1 and shown +weight for
    /// each period, shown +weight x carry for each next period.
    zincrby: Vec<(String, f64)>,
    /// `<ns>hll:stars:` (the option follows) and `<ns>hll`.
    option_hll: String,
    campaign_hll: String,
}

impl SeedKeys {
    pub(super) fn new(ns: &str, now: i64) -> Self {
        let offset = CAMPAIGN_OFFSET_SECONDS;
        let board = format!("{ns}b:{CAMPAIGN_BOARD}:");
        let weight = f64::from(CAMPAIGN_WEIGHT);
        let mut zincrby = Vec::with_capacity(14);
        for kind in PERIODS {
            let (name, _) = period_at(kind, now, offset);
            zincrby.push((format!("{board}real:{name}"), 1.0));
            zincrby.push((format!("{board}shown:{name}"), weight));
        }
        for kind in PERIODS {
            if let (_, Some(end)) = period_at(kind, now, offset) {
                let (next, _) = period_at(kind, end, offset);
                zincrby.push((
                    format!("{board}shown:{next}"),
                    weight * CAMPAIGN_CARRY_VALUE,
                ));
            }
        }
        let local = now + offset;
        let from = local.div_euclid(3600) * 3600 - offset;
        SeedKeys {
            from,
            until: from + 3600,
            zincrby,
            option_hll: format!("{ns}hll:{CAMPAIGN_BOARD}:"),
            campaign_hll: format!("{ns}hll"),
        }
    }

    /// The seed's 16 commands for `user` voting for `option`.
    pub(super) fn commands(&self, option: &str, user: &str) -> Vec<redis::Cmd> {
        let mut cmds = Vec::with_capacity(SEED_WRITES);
        for (key, by) in &self.zincrby {
            let mut c = redis::cmd("ZINCRBY");
            c.arg(key).arg(*by).arg(option);
            cmds.push(c);
        }
        let mut c = redis::cmd("PFADD");
        c.arg(format!("{}{option}", self.option_hll)).arg(user);
        cmds.push(c);
        let mut c = redis::cmd("PFADD");
        c.arg(&self.campaign_hll).arg(user);
        cmds.push(c);
        cmds
    }
}

/// A board of the campaign section: all periods, competition ties, the
/// carry, `options` of weight `CAMPAIGN_WEIGHT`.
fn campaign_board(options: &[String]) -> BoardSettings {
    let board = BoardSettings::new(&PERIODS)
        .with_ties(Ties::Competition)
        .with_carry(CAMPAIGN_CARRY);
    options.iter().fold(board, |b, o| {
        b.with_option(o, OptionSettings::weighted(CAMPAIGN_WEIGHT))
    })
}

/// The campaign section's settings: its offset and the board `stars` of
/// `options` (the redvote campaign's and the ceiling's).
pub(super) fn campaign_settings(options: &[String]) -> CampaignSettings {
    CampaignSettings {
        offset: Some(CAMPAIGN_OFFSET.to_string()),
        boards: BTreeMap::from([(CAMPAIGN_BOARD.to_string(), campaign_board(options))]),
        ..CampaignSettings::default()
    }
}

impl Bench {
    /// Configure the redvote campaign (the seed's namespace needs no
    /// settings: its client knows them), then check the seed's client-side
    /// period names against `campaign_vote.lua`'s: at now, at the first
    /// second of each next period (the carry's target) and at New Year and
    /// 29 February across the offset, on the probe board.
    pub(super) fn campaign_setup(&mut self) -> Result<()> {
        let campaign = self.ctx.campaign.redvote.clone();
        let mut settings = campaign_settings(&self.ctx.campaign.options);
        settings.boards.insert(
            PROBE_BOARD.to_string(),
            campaign_board(&["opt1".to_string()]),
        );
        campaign
            .configure(&settings)
            .run(&mut self.admin)
            .context("configuring the bench campaign")?;
        let now = unix_now() as i64;
        let mut times = vec![now, 1_798_732_799, 1_798_732_800, 1_835_366_400];
        for kind in PERIODS {
            if let (_, Some(end)) = period_at(kind, now, CAMPAIGN_OFFSET_SECONDS) {
                times.push(end);
            }
        }
        for t in times {
            let ballots = campaign
                .at(t as u64)
                .vote("probe", &[(PROBE_BOARD, "opt1")])
                .run(&mut self.admin)
                .context("the campaign's probe vote")?;
            let lua: Vec<&str> = ballots
                .iter()
                .flat_map(|b| b.shown.iter().map(|p| p.period.as_str()))
                .collect();
            let rust: Vec<String> = PERIODS
                .iter()
                .map(|&k| period_at(k, t, CAMPAIGN_OFFSET_SECONDS).0)
                .collect();
            ensure!(
                lua == rust,
                "the seed's period names at {t} are {rust:?}, campaign_vote.lua's {lua:?}"
            );
        }
        Ok(())
    }
}

/// redvote's campaign vote must answer one ballot for the board and option
/// with a shown score in each of the 5 periods, not a replay (every vote id
/// is new).
pub(super) fn check_ballots(ballots: &[Ballot], input: &Input, option: &str) -> Result<u64> {
    ensure!(
        ballots.len() == 1
            && ballots[0].board == CAMPAIGN_BOARD
            && ballots[0].option == option
            && ballots[0].shown.len() == PERIODS.len()
            && !ballots[0].replay,
        "redvote's campaign vote of {} for {option} answered {ballots:?}",
        input.user
    );
    Ok(0)
}

/// The period of `kind` holding Unix second `t` at UTC offset `offset`
/// seconds, as `campaign_vote.lua` names it, and its end (None for total):
/// [`redvote_check::calendar::period_of`].
pub(super) fn period_at(kind: Period, t: i64, offset: i64) -> (String, Option<i64>) {
    redvote_check::calendar::period_of(kind, t, offset)
}
