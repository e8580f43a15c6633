//! `redvote campaigns`: the campaign registry (`{c}:campaigns`,
//! [`redvote::CampaignRegistry`]) from the command line: list it, register
//! names, or rebuild it from the keyspace (`register --scan`) for
//! campaigns made before the registry or with `redis-cli --eval`.

use std::collections::BTreeSet;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use redvote::{Campaign, CampaignRegistry};
use serde_json::json;

use crate::{print, Global};

/// `redvote campaigns [register ...]`.
#[derive(Args, Debug)]
pub struct CampaignsArgs {
    #[command(subcommand)]
    command: Option<CampaignsCommand>,
}

#[derive(Subcommand, Debug)]
enum CampaignsCommand {
    /// Register campaigns in the list: NAME..., or every campaign found by
    /// --scan (idempotent)
    Register {
        /// Scan every primary for campaign roots {c:NAME}:campaign
        /// (SCAN COUNT 1000 steps until each is done) and register them all
        #[arg(long, conflicts_with = "names")]
        scan: bool,
        /// Campaign names
        #[arg(required_unless_present = "scan", value_parser = name)]
        names: Vec<String>,
    },
}

/// A campaign name as the registry script accepts it.
fn name(s: &str) -> Result<String, String> {
    if redvote::is_valid_name(s) {
        Ok(s.to_string())
    } else {
        Err("a campaign name is 1..64 bytes, none of : { } * ? [ ] \\ , spaces or control characters".into())
    }
}

/// Names a registration call takes at most (`campaign_register.lua`).
const REGISTER_BATCH: usize = 1000;
/// Names a page of the list (`campaign_registry.lua`'s cap).
const LIST_PAGE: u32 = 1000;
/// SCAN's COUNT for `register --scan`.
const SCAN_COUNT: u32 = 1000;

/// Run `redvote campaigns ...`.
pub fn run(g: &Global, args: &CampaignsArgs) -> Result<()> {
    match &args.command {
        None => list(g),
        Some(CampaignsCommand::Register { scan: true, .. }) => register_scan(g),
        Some(CampaignsCommand::Register { names, .. }) => {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let registered = register(g, &names)?;
            print(g, &json!({ "registered": registered }), |_| {
                format!("registered {registered} new campaign(s)")
            })
        }
    }
}

/// Every registered name, page by page (oldest registration first).
fn list(g: &Global) -> Result<()> {
    let mut con = g.connect()?;
    let registry = CampaignRegistry::new();
    let (mut names, mut cursor) = (Vec::new(), 0);
    loop {
        let page = g.run_on(&mut con, &registry.page(cursor, LIST_PAGE))?;
        names.extend(page.names);
        if page.next == 0 {
            break;
        }
        cursor = page.next;
    }
    print(g, &json!({ "campaigns": names }), |_| {
        if names.is_empty() {
            "no campaigns registered (redvote campaigns register --scan finds those made before the registry)".to_string()
        } else {
            names.join("\n")
        }
    })
}

/// Register `names` in calls of at most [`REGISTER_BATCH`]; how many were
/// new.
fn register(g: &Global, names: &[&str]) -> Result<u64> {
    let mut con = g.connect()?;
    let registry = CampaignRegistry::new();
    let mut registered = 0;
    for batch in names.chunks(REGISTER_BATCH) {
        registered += g.run_on(&mut con, &registry.register(batch))?;
    }
    Ok(registered)
}

/// `register --scan`: SCAN MATCH `{c:*}:campaign` on every primary, all
/// steps, then register what it found.
fn register_scan(g: &Global) -> Result<()> {
    let client = crate::client(g.url(), g)?;
    let primaries = client
        .primaries()
        .with_context(|| format!("cannot list the primaries of {}", crate::redact(g.url())))?;
    let mut found = BTreeSet::new();
    let mut steps: u64 = 0;
    for node in &primaries {
        let mut con = node
            .connect()
            .with_context(|| format!("cannot connect to Redis at {}", node.url()))?;
        let con = con.redis()?;
        let mut cursor: u64 = 0;
        loop {
            let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg("{c:*}:campaign")
                .arg("COUNT")
                .arg(SCAN_COUNT)
                .query(con)
                .with_context(|| format!("SCAN on {}", node.url()))?;
            steps += 1;
            found.extend(keys.iter().filter_map(|k| {
                let name = k.strip_prefix("{c:")?.strip_suffix("}:campaign")?;
                redvote::is_valid_name(name).then(|| name.to_string())
            }));
            if next == 0 {
                break;
            }
            cursor = next;
        }
    }
    let names: Vec<&str> = found.iter().map(String::as_str).collect();
    let registered = register(g, &names)?;
    let shape = json!({
        "found": found.len(),
        "registered": registered,
        "primaries": primaries.len(),
        "scan_steps": steps,
    });
    print(g, &shape, |_| {
        format!(
            "found {} campaign(s) in {steps} SCAN step(s) over {} primary(ies); registered {registered} new",
            found.len(),
            primaries.len()
        )
    })
}

/// After `campaign NAME configure`: register the campaign, so that the
/// lists show it. A failure says the settings were applied.
pub fn register_configured(g: &Global, campaign: &Campaign) -> Result<()> {
    let Some(call) = campaign.register() else {
        return Ok(());
    };
    g.run(&call).map(drop).context(
        "the settings were applied, but the campaign is not yet listed (registering it \
         failed); run the configure again (safe without option removals) or `redvote \
         campaigns register NAME`",
    )
}

/// After `campaign NAME check`: a warning on stderr when the campaign
/// exists but is not registered (one EXISTS, one ZSCORE).
pub fn warn_unregistered(g: &Global, campaign: &Campaign) -> Result<()> {
    let Some(name) = campaign.name() else {
        return Ok(());
    };
    let mut con = g.connect()?;
    let con = con.redis()?;
    let exists: bool = redis::cmd("EXISTS").arg(campaign.root_key()).query(con)?;
    let score: Option<f64> = redis::cmd("ZSCORE")
        .arg(redvote::campaign::REGISTRY_KEY)
        .arg(name)
        .query(con)?;
    if exists && score.is_none() {
        let text = format!(
            "campaign {name} exists but is not in the campaign registry ({}): the campaign \
             lists do not show it; `redvote campaigns register {name}` (or --scan) lists it",
            redvote::campaign::REGISTRY_KEY
        );
        if g.json {
            eprintln!("{}", json!({ "warning": text }));
        } else {
            eprintln!("redvote: warning: {text}");
        }
    }
    Ok(())
}
