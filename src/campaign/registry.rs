//! [`CampaignRegistry`]: the list of the campaigns, kept in one sorted set
//! so that listing them never scans the keyspace.
//!
//! Campaigns live in namespaces `{c:NAME}:` ([`Campaign::new`]), each its
//! own cluster slot, and nothing else joins them: a `SCAN MATCH
//! {c:*}:campaign` walks every key of the database (of every primary on a
//! cluster) to find a handful of campaigns, and gives up or takes pages
//! by the hundred when other data (vote-id records, a site, another
//! application) holds most keys. The registry is one sorted set per
//! namespace family, `{c}:campaigns` for the default one (the hash tag `c`
//! is no campaign's `{c:NAME}`), member the campaign name, score the time
//! of its first registration (Unix milliseconds, server clock).
//!
//! `campaign_configure.lua` cannot write it: on Redis Cluster a script
//! touches only keys of its own slot, and the registry's slot is not the
//! campaign's. Registration is therefore its own small script call,
//! [`CampaignRegistry::register`] (`campaign_register.lua`, idempotent),
//! made after a successful configure by the service (`PUT
//! /v1/campaigns/{campaign}/settings`) and the CLI (`redvote campaign NAME
//! configure`). A library user who creates campaigns with
//! [`Campaign::configure`] registers them too, or the listing will not show
//! them ([`Campaign::register`] is the call for one campaign); `redvote
//! campaigns register --scan` registers those made before the registry or
//! with `redis-cli --eval`. The driver's `run` does not register by
//! itself: it sends the one call it is given, whatever the call (a second
//! call to another slot, with its own failure, has no place in it).
//!
//! [`CampaignRegistry::page`] (`campaign_registry.lua`, read-only) reads
//! one page in O(log N + count).

use crate::call::Call;
use crate::names::is_valid_name;
use crate::reply::{count, get, items, reply_type, text};

use super::Campaign;

/// The registry key of the campaigns of [`Campaign::new`].
pub const REGISTRY_KEY: &str = "{c}:campaigns";

/// A campaign registry: the sorted set `<family>campaigns` that lists
/// campaign names.
///
/// ```
/// use redvote::{Campaign, CampaignRegistry};
///
/// let registry = CampaignRegistry::new();
/// assert_eq!(registry.key(), "{c}:campaigns");
/// let call = registry.register(&["spring2026", "autumn"]);
/// assert_eq!(call.args(), ["spring2026", "autumn"]);
/// let one = Campaign::new("spring2026").register().expect("a default namespace");
/// assert_eq!(one.key(), "{c}:campaigns");
/// assert!(Campaign::with_namespace("{x}:").register().is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CampaignRegistry {
    key: String,
}

impl Default for CampaignRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl CampaignRegistry {
    /// The registry of the campaigns of [`Campaign::new`] (namespaces
    /// `{c:NAME}:`): the key `{c}:campaigns`.
    pub fn new() -> Self {
        Self::with_key(REGISTRY_KEY)
    }

    /// A registry under another key, for campaigns of a namespace family of
    /// one's own (it must end with `campaigns`; keep a hash tag in it for
    /// Redis Cluster).
    pub fn with_key(key: impl Into<String>) -> Self {
        CampaignRegistry { key: key.into() }
    }

    /// The registry key, `KEYS[1]` of its scripts.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Register `names` (1..=1000, each a valid name,
    /// [`crate::is_valid_name`]): answers how many were not registered yet.
    /// Idempotent (`ZADD NX`: a name keeps its first registration time). A
    /// bad name or more than 1000 are refused (`Code::InvalidName`,
    /// `Code::Usage`), nothing written. It does not check that the
    /// campaigns exist.
    pub fn register(&self, names: &[&str]) -> Call<u64> {
        let args = names.iter().map(|n| n.to_string()).collect();
        Call::new("campaign_register", &self.key, args)
    }

    /// One page of registered names, oldest registration first: `cursor`
    /// 0 first, then the previous page's [`RegistryPage::next`] until it
    /// is 0; `count` names a page (1..=1000). Read-only
    /// (`campaign_registry.lua`, flagged no-writes), O(log N + count)
    /// whatever else the database holds. Names are only added, each after
    /// the names already there, so a listing sees every name registered
    /// before it started, once.
    pub fn page(&self, cursor: u64, count: u32) -> Call<RegistryPage> {
        let args = vec![cursor.to_string(), count.to_string()];
        Call::new("campaign_registry", &self.key, args)
    }
}

impl Campaign {
    /// The campaign's name when it is in the default namespace family
    /// (`Campaign::new(name)`, namespace `{c:NAME}:`), else `None`.
    pub fn name(&self) -> Option<&str> {
        let name = self.ns.strip_prefix("{c:")?.strip_suffix("}:")?;
        is_valid_name(name).then_some(name)
    }

    /// Register this campaign in [`CampaignRegistry::new`], so that the
    /// campaign list (the admin page, `redvote campaigns`) shows it: `None`
    /// for a campaign outside the default namespace family (register it in
    /// a [`CampaignRegistry::with_key`] of your own). Call it after
    /// [`Campaign::configure`] created the campaign: the configure script
    /// cannot write the registry (another cluster slot). Idempotent.
    pub fn register(&self) -> Option<Call<u64>> {
        Some(CampaignRegistry::new().register(&[self.name()?]))
    }
}

/// One page of a [`CampaignRegistry`] ([`CampaignRegistry::page`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RegistryPage {
    /// The names of this page, in registration order.
    pub names: Vec<String>,
    /// The cursor of the next page; 0 when this page is the last.
    pub next: u64,
    /// How many names are registered.
    pub total: u64,
}

reply_type! {
    // `campaign_registry.lua`: `{ next, total, name... }`.
    RegistryPage => |v| {
        let items = items(v)?;
        Ok(RegistryPage {
            next: count(get(&items, 0)?)?,
            total: count(get(&items, 1)?)?,
            names: items[2..].iter().map(text).collect::<Result<_, _>>()?,
        })
    };
}
