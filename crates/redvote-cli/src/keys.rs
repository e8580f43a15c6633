//! `redvote keys add|list|revoke`: the team keys (docs/teams.md), written
//! in Redis through redvote-serve's key store, as `/v1/keys` does.

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use redvote_serve::keys::{self, Role};

use crate::{print, Global};

/// `redvote keys <command>`.
#[derive(Args, Debug)]
pub struct KeysArgs {
    #[command(subcommand)]
    command: KeysCommand,
}

#[derive(Subcommand, Debug)]
enum KeysCommand {
    /// Make a team key; prints its token once (only its SHA-256 is stored)
    Add {
        /// Key name (the board name rule; not "operator"): who, in the audit log
        name: String,
        /// Campaigns the key may touch: a name where * stands for any characters (*, spring-*, spring2026)
        #[arg(long)]
        campaigns: String,
        /// read (GET routes), vote (read and vote) or admin (everything on its campaigns)
        #[arg(long)]
        role: Role,
    },
    /// List the team keys (names, patterns, roles; never tokens)
    List,
    /// Revoke a team key: its token is refused from the service's next request on
    Revoke {
        /// Key name
        name: String,
    },
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Run one keys command.
pub fn run(g: &Global, args: &KeysArgs) -> Result<()> {
    let mut con = g.connect()?;
    match &args.command {
        KeysCommand::Add {
            name,
            campaigns,
            role,
        } => {
            let key = keys::add(con.redis()?, name, campaigns, *role, now())
                .with_context(|| format!("cannot add key {name:?}"))?;
            print(g, &key, |k| {
                format!(
                    "key {} ({} on campaigns {})\ntoken: {}\nshown once: store it now (only its SHA-256 is kept)",
                    k.key.name,
                    k.key.role.as_str(),
                    k.key.pattern,
                    k.token
                )
            })
        }
        KeysCommand::List => {
            let list = keys::list(con.redis()?)?;
            print(g, &serde_json::json!({ "keys": list }), |_| {
                if list.is_empty() {
                    return "no keys".to_string();
                }
                list.iter()
                    .map(|k| format!("{} {} {} {}", k.name, k.role.as_str(), k.pattern, k.created))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        }
        KeysCommand::Revoke { name } => {
            let key = keys::revoke(con.redis()?, name)
                .with_context(|| format!("cannot revoke key {name:?}"))?;
            print(g, &key, |k| format!("revoked key {}", k.name))
        }
    }
}
