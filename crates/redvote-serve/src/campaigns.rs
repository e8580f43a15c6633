//! What an operator's screen (the admin page of `redvote serve`) reads of
//! the campaigns: the campaign names, from the campaign registry
//! ([`redvote::CampaignRegistry`], the sorted set `{c}:campaigns` that the
//! configure route fills), and a campaign's settings in the configure
//! document's shape, which the driver's [`Campaign::settings`] reads in one
//! read-only atomic script call (`campaign_settings.lua`, flagged
//! no-writes). Nothing here writes.
//!
//! The list used to SCAN for `{c:*}:campaign` keys: O(keys of the whole
//! database) for a full list, one primary after the other on a cluster, so
//! 300,000 unrelated keys (or a day of vote-id records) made the admin
//! page give up before it found a campaign. The registry page is O(log N +
//! count) whatever else the database holds, on one node of a cluster.

use redis::aio::ConnectionLike;

use redvote::{Campaign, CampaignRegistry, CampaignSettings, Code, Error, Result};

/// One page of campaign names ([`list_campaigns`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CampaignNames {
    /// Campaign names of this page (sorted).
    pub names: Vec<String>,
    /// The cursor of the next page; 0 when the list is complete.
    pub next: u64,
}

/// One page (`cursor` 0 first, then the previous answer's `next`) of the
/// campaigns of the default namespace family (`Campaign::new`) that the
/// campaign registry holds: `count` (1..=1000) names, O(log N + count),
/// one read-only script call (`campaign_registry.lua`) on the node of
/// `{c}:campaigns`. The pages follow the order of registration (a listing
/// sees every campaign registered before it started, once); each page's
/// names are sorted.
pub async fn list_campaigns<C>(con: &mut C, cursor: u64, count: u32) -> Result<CampaignNames>
where
    C: ConnectionLike + Send,
{
    let page = CampaignRegistry::new()
        .page(cursor, count.clamp(1, 1000))
        .run_async(con)
        .await?;
    let mut names = page.names;
    names.sort();
    Ok(CampaignNames {
        names,
        next: page.next,
    })
}

/// [`list_campaigns`] on an [`AsyncRedis`](redvote::AsyncRedis) of any URL
/// form (single server, Sentinel, Cluster: the registry is one key), with a
/// text cursor: `"0"` first, then the previous page's `next`, `"0"` again
/// when complete. A cursor is decimal digits (the rank of the page's first
/// name in the registry); anything else (the `NODE-CURSOR` of the former
/// SCAN listing among them) is `Error::Config`. Complete and O(log N +
/// count) whatever else the database holds.
pub async fn list_all_campaigns(
    con: &mut redvote::AsyncRedis,
    cursor: &str,
    count: u32,
) -> Result<CampaignPage> {
    let bad = || Error::Config(format!("not a campaign list cursor: {cursor:?}"));
    if cursor.is_empty() || cursor.len() > 20 || !cursor.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    // the script's bound on a cursor: no page ever answers a larger one
    let at: u64 = cursor
        .parse()
        .ok()
        .filter(|&at| at <= 999_999_999_999)
        .ok_or_else(bad)?;
    let page = list_campaigns(con, at, count).await?;
    Ok(CampaignPage {
        names: page.names,
        next: page.next.to_string(),
    })
}

/// One page of campaign names ([`list_all_campaigns`]): the cursor is text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CampaignPage {
    /// Campaign names of this page (sorted).
    pub names: Vec<String>,
    /// The cursor of the next page; `"0"` when the list is complete.
    pub next: String,
}

/// The stored settings of `campaign`, as the document
/// [`Campaign::configure`] takes (`None`: no such campaign): the offset,
/// start, end, vote id TTL, rate limits, and each board's periods, tie
/// rule, carry, decimals, retention and options with their weights. Left
/// out, as they can be large: the deny lists and the options' display
/// data. One call of [`Campaign::settings`]: a read-only script, one
/// atomic snapshot, O(boards + options), a campaign of more than 64
/// boards or 1000 options refused (`Code::InvalidConfig`, one configure
/// call's caps). Through the service's connection, counted in its Redis
/// metrics as every script call of the service.
pub async fn read_settings(
    state: &crate::AppState,
    campaign: &Campaign,
) -> Result<Option<CampaignSettings>> {
    match state.run(&campaign.settings()).await {
        Ok(settings) => Ok(Some(settings)),
        Err(Error::Script {
            code: Code::UnknownCampaign,
            ..
        }) => Ok(None),
        Err(err) => Err(err),
    }
}
