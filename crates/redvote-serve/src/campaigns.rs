//! What an operator's screen (the admin page of `redvote serve`) reads of
//! the campaigns: the campaign names found in the keyspace (SCAN), and a
//! campaign's settings in the configure document's shape, which the
//! driver's [`Campaign::settings`] reads in one read-only atomic script
//! call (`campaign_settings.lua`, flagged no-writes). Nothing here writes.

use redis::aio::ConnectionLike;

use redvote::{Campaign, CampaignSettings, Code, Error, Result};

/// One page of campaign names ([`list_campaigns`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CampaignNames {
    /// Campaign names of this page (sorted; a name may appear again on a
    /// later page, as SCAN promises no more).
    pub names: Vec<String>,
    /// The cursor of the next page; 0 when the scan is complete.
    pub next: u64,
}

/// One SCAN step (`cursor` 0 first, then the previous answer's `next`)
/// over the keys `{c:*}:campaign`: the campaigns in the default namespace
/// (`Campaign::new`). `count` is SCAN's COUNT hint (1..=1000 is sensible):
/// each call costs O(count), and a page may be empty while `next` is not 0.
/// On Redis Cluster SCAN sees only the node it reaches: use
/// [`list_all_campaigns`] there.
pub async fn list_campaigns<C>(con: &mut C, cursor: u64, count: u32) -> Result<CampaignNames>
where
    C: ConnectionLike + Send,
{
    let (next, keys): (u64, Vec<String>) = scan_campaigns(cursor, count).query_async(con).await?;
    Ok(CampaignNames {
        names: campaign_names(&keys),
        next,
    })
}

/// [`list_campaigns`] on an [`AsyncRedis`](redvote::AsyncRedis) of any URL
/// form, with a text cursor (`"0"` first, then the previous page's `next`;
/// `"0"` again when complete): on a single server the SCAN cursor itself;
/// on a Redis Cluster the primaries are scanned one after the other (each
/// SCAN sent to its node; the cursor reads `NODE-CURSOR`, the node's place
/// among the primaries sorted by address), so every campaign of the
/// cluster is listed. A failover or a new primary between two pages may
/// skip or repeat a node's names (SCAN's promise holds per node). A cursor
/// that is neither is `Error::Config`.
pub async fn list_all_campaigns(
    con: &mut redvote::AsyncRedis,
    cursor: &str,
    count: u32,
) -> Result<CampaignPage> {
    let bad = || redvote::Error::Config(format!("not a campaign list cursor: {cursor:?}"));
    let Some(primaries) = con.primaries().await? else {
        let page = list_campaigns(con, cursor.parse().map_err(|_| bad())?, count).await?;
        return Ok(CampaignPage {
            names: page.names,
            next: page.next.to_string(),
        });
    };
    let (node, at): (usize, u64) = match cursor.split_once('-') {
        None if cursor == "0" => (0, 0),
        Some((node, at)) => (
            node.parse().map_err(|_| bad())?,
            at.parse().map_err(|_| bad())?,
        ),
        None => return Err(bad()),
    };
    let Some(address) = primaries.get(node) else {
        // the cluster lost primaries since the last page: the scan is over
        return Ok(CampaignPage {
            names: Vec::new(),
            next: "0".into(),
        });
    };
    let reply = con.on_node(&scan_campaigns(at, count), address).await?;
    let (next, keys): (u64, Vec<String>) =
        redis::from_redis_value(reply).map_err(|e| redvote::Error::Redis(e.into()))?;
    let next = match (next, node + 1 < primaries.len()) {
        (0, false) => "0".to_string(),
        (0, true) => format!("{}-0", node + 1),
        (next, _) => format!("{node}-{next}"),
    };
    Ok(CampaignPage {
        names: campaign_names(&keys),
        next,
    })
}

/// One page of campaign names ([`list_all_campaigns`]): the cursor is text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CampaignPage {
    /// Campaign names of this page (sorted; a name may appear again on a
    /// later page, as SCAN promises no more).
    pub names: Vec<String>,
    /// The cursor of the next page; `"0"` when the scan is complete.
    pub next: String,
}

/// `SCAN cursor MATCH {c:*}:campaign COUNT count`.
fn scan_campaigns(cursor: u64, count: u32) -> redis::Cmd {
    let mut cmd = redis::cmd("SCAN");
    cmd.arg(cursor)
        .arg("MATCH")
        .arg("{c:*}:campaign")
        .arg("COUNT")
        .arg(count.max(1));
    cmd
}

/// The campaign names of SCAN's keys, sorted, once each.
fn campaign_names(keys: &[String]) -> Vec<String> {
    let mut names: Vec<String> = keys
        .iter()
        .filter_map(|k| k.strip_prefix("{c:")?.strip_suffix("}:campaign"))
        .filter(|n| redvote::is_valid_name(n))
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The stored settings of `campaign`, as the document
/// [`Campaign::configure`] takes (`None`: no such campaign): the offset,
/// start, end, vote id TTL, rate limits, and each board's periods, tie
/// rule, carry, decimals, retention and options with their weights. Left
/// out, as they can be large: the deny lists and the options' display
/// data. One call of [`Campaign::settings`]: a read-only script, one
/// atomic snapshot, O(boards + options), a campaign of more than 64
/// boards or 1000 options refused (`Code::InvalidConfig`, one configure
/// call's caps).
pub async fn read_settings(
    con: &redvote::AsyncConnection,
    campaign: &Campaign,
) -> Result<Option<CampaignSettings>> {
    match con.run(&campaign.settings()).await {
        Ok(settings) => Ok(Some(settings)),
        Err(Error::Script {
            code: Code::UnknownCampaign,
            ..
        }) => Ok(None),
        Err(err) => Err(err),
    }
}
