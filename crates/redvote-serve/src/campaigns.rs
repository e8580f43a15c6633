//! Reading back what `campaign_configure.lua` stored, for an operator's
//! screen (the admin page of `redvote serve`): the campaign names found in
//! the keyspace, and a campaign's settings in the configure document's
//! shape. Plain reads (SCAN, HGETALL, SMEMBERS), no script: nothing here
//! writes.
//!
//! Consistency: [`read_settings`] reads the campaign hash and its board set
//! in one MULTI/EXEC, then every board's settings and weights in a second
//! one. Each transaction is a snapshot; a configure landing between the two
//! can show a board listed by the first whose hashes the second finds empty
//! (it is then left out) or settings newer than the campaign hash. An admin
//! screen reloads; nothing votes on these values.

use std::collections::{BTreeMap, HashMap};

use redis::aio::ConnectionLike;

use redvote::campaign::{BoardSettings, OptionSettings};
use redvote::{Campaign, CampaignSettings, LimitRule, Period, Result, Ties};

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
/// [`Campaign::configure`] takes (`None`: no such campaign). It holds the
/// offset, start, end, vote id TTL, rate limits, and each board's periods,
/// tie rule, carry, decimals, retention and options with their weights.
/// Left out, as they can be large: the deny lists and the options'
/// display data. Costs O(boards + options); see the module's note on
/// consistency.
pub async fn read_settings<C>(con: &mut C, campaign: &Campaign) -> Result<Option<CampaignSettings>>
where
    C: ConnectionLike + Send,
{
    let ns = campaign.namespace();
    let (root, boards): (HashMap<String, String>, Vec<String>) = redis::pipe()
        .atomic()
        .cmd("HGETALL")
        .arg(campaign.root_key())
        .cmd("SMEMBERS")
        .arg(format!("{ns}boards"))
        .query_async(con)
        .await?;
    if root.is_empty() {
        return Ok(None);
    }
    let mut settings = CampaignSettings {
        offset: root
            .get("offset")
            .and_then(|v| v.parse::<i64>().ok())
            .map(offset_text),
        start: int(&root, "start"),
        end: int(&root, "end"),
        vote_id_ttl: int(&root, "vote_id_ttl"),
        limits: root
            .get("limits")
            .and_then(|v| serde_json::from_str::<Vec<LimitRule>>(v).ok()),
        deny: None,
        boards: BTreeMap::new(),
    };
    let mut boards = boards;
    boards.sort();
    if boards.is_empty() {
        return Ok(Some(settings));
    }
    let mut pipe = redis::pipe();
    pipe.atomic();
    for b in &boards {
        pipe.cmd("HGETALL").arg(format!("{ns}board:{b}"));
        pipe.cmd("HGETALL").arg(format!("{ns}weights:{b}"));
    }
    let hashes: Vec<HashMap<String, String>> = pipe.query_async(con).await?;
    for (b, pair) in boards.iter().zip(hashes.chunks(2)) {
        let (fields, weights) = (&pair[0], &pair[1]);
        if fields.is_empty() {
            continue;
        }
        settings.boards.insert(b.clone(), board(fields, weights));
    }
    Ok(Some(settings))
}

/// `+08:00` from seconds east of UTC.
fn offset_text(seconds: i64) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let m = seconds.unsigned_abs() / 60;
    format!("{sign}{:02}:{:02}", m / 60, m % 60)
}

fn int(h: &HashMap<String, String>, field: &str) -> Option<u64> {
    h.get(field)?.parse().ok()
}

/// A lowercase word as one of the settings' enums (`Period`, `Ties`).
fn word<T: serde::de::DeserializeOwned>(s: &str) -> Option<T> {
    serde_json::from_value(serde_json::Value::String(s.to_string())).ok()
}

fn board(fields: &HashMap<String, String>, weights: &HashMap<String, String>) -> BoardSettings {
    let periods = fields
        .get("periods")
        .map(|p| p.split(',').filter_map(word::<Period>).collect::<Vec<_>>());
    let retention = [Period::Hour, Period::Day, Period::Week, Period::Month]
        .into_iter()
        .filter_map(|p| {
            let name = serde_json::to_value(p).ok()?;
            Some((p, int(fields, &format!("keep_{}", name.as_str()?))?))
        })
        .collect();
    let options = weights
        .iter()
        .map(|(o, w)| {
            let s = OptionSettings {
                weight: w.parse().ok(),
                ..OptionSettings::default()
            };
            (o.clone(), s)
        })
        .collect();
    BoardSettings {
        periods,
        ties: fields.get("ties").and_then(|t| word::<Ties>(t)),
        carry: fields.get("carry").cloned(),
        decimals: fields.get("decimals").and_then(|d| d.parse().ok()),
        retention,
        options,
        remove: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::offset_text;

    #[test]
    fn offsets_read_back_as_configured() {
        assert_eq!(offset_text(28800), "+08:00");
        assert_eq!(offset_text(-16200), "-04:30");
        assert_eq!(offset_text(0), "+00:00");
    }
}
