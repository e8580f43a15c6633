//! Campaign settings builders (boards, options with weights, a configured
//! campaign) and wall-clock times at a UTC offset, for the campaign, limits,
//! periods and cluster tests.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use redis::Connection;
use redvote::campaign::{BoardSettings, OptionSettings};
use redvote::{Campaign, CampaignSettings, Period};

/// 2026-03-17T12:30:00Z, a Tuesday in ISO week 12: the campaign tests'
/// fixed clock.
pub const T0: u64 = 1_773_750_600;
/// An hour, seconds.
pub const HOUR: u64 = 3600;
/// A day, seconds.
pub const DAY: u64 = 86400;
/// The offset +08:00, in seconds east of UTC.
pub const PLUS8: i64 = 8 * 3600;

/// Unix seconds of a local wall-clock time at `offset` seconds east of UTC.
pub fn local(offset: i64, (y, mo, d): (i32, u32, u32), (h, mi, s): (u32, u32, u32)) -> u64 {
    let naive = NaiveDate::from_ymd_opt(y, mo, d)
        .unwrap()
        .and_hms_opt(h, mi, s)
        .unwrap();
    let t = naive.and_utc().timestamp() - offset;
    assert!(t >= 0);
    t as u64
}

/// Unix seconds of a UTC wall-clock time.
pub fn utc(ymd: (i32, u32, u32), hms: (u32, u32, u32)) -> u64 {
    local(0, ymd, hms)
}

/// Options with explicit weights.
pub fn options<const N: usize>(list: [(&str, u32); N]) -> BTreeMap<String, OptionSettings> {
    list.iter()
        .map(|(name, weight)| (name.to_string(), OptionSettings::weighted(*weight)))
        .collect()
}

/// A board keeping `periods` with `options`, every other setting default.
pub fn board(periods: &[Period], options: BTreeMap<String, OptionSettings>) -> BoardSettings {
    BoardSettings {
        options,
        ..BoardSettings::new(periods)
    }
}

/// Campaign settings holding these boards and nothing else.
pub fn boards<const N: usize>(list: [(&str, BoardSettings); N]) -> CampaignSettings {
    list.into_iter()
        .fold(CampaignSettings::new(), |s, (n, b)| s.with_board(n, b))
}

/// Campaign `name`, configured with `settings`.
pub fn setup(con: &mut Connection, name: &str, settings: CampaignSettings) -> Campaign {
    let campaign = Campaign::new(name);
    campaign.configure(&settings).run(con).unwrap();
    campaign
}

/// The real (one per vote) total of `option` on `board` of campaign `c`
/// (0 when it has no vote).
pub fn real_total(con: &mut Connection, c: &Campaign, board: &str, option: &str) -> u64 {
    let key = format!("{}b:{board}:real:total", c.namespace());
    crate::zscore_text(con, &key, option).map_or(0, |s| s.parse().unwrap())
}
