//! `redvote campaign NAME void VOTE_ID` and `void --user U|--channel C
//! --from T --to T`: voiding votes (docs/statistics.md), each applied void
//! written to the campaign's audit log.

use anyhow::{bail, Result};
use clap::Args;
use redvote::campaign::VoidBy;
use redvote::Campaign;
use redvote_serve::audit::Action;
use serde_json::json;

use crate::{print, Global};

/// What to void: one vote by its id, or a user's or channel's votes in a
/// time range (campaigns with a vote log).
#[derive(Args, Debug)]
pub struct VoidArgs {
    /// The vote's id (its --vote-id / Idempotency-Key)
    #[arg(conflicts_with_all = ["user", "channel"], required_unless_present_any = ["user", "channel"])]
    vote_id: Option<String>,
    /// Void this user's logged votes (with --from and --to)
    #[arg(long, conflicts_with = "channel", requires_all = ["from", "to"])]
    user: Option<String>,
    /// Void this channel's logged votes (with --from and --to)
    #[arg(long, requires_all = ["from", "to"])]
    channel: Option<String>,
    /// From this Unix second (server clock), included
    #[arg(long)]
    from: Option<u64>,
    /// To this Unix second, excluded
    #[arg(long)]
    to: Option<u64>,
    /// Log entries read per atomic call (1..1000)
    #[arg(long, default_value_t = 1000)]
    batch: u32,
}

/// Run `void`.
pub fn run(g: &Global, c: &Campaign, args: &VoidArgs) -> Result<()> {
    if let Some(id) = &args.vote_id {
        let voided = crate::fold::folded_first(g, &mut g.connect()?, c, &c.void(id))?;
        if !voided.already {
            crate::audit::note(
                g,
                c,
                Action::Void,
                json!({ "vote_id": id }),
                serde_json::Value::Null,
                serde_json::to_value(voided)?,
            );
        }
        return print(g, &voided, |v| {
            if v.already {
                format!("vote {id} was already voided (at {})", v.at)
            } else {
                format!(
                    "voided vote {id}: {} board entries changed, {} skipped (gone)",
                    v.changed, v.skipped
                )
            }
        });
    }
    let (by, value) = match (&args.user, &args.channel) {
        (Some(u), None) => (VoidBy::User, u.as_str()),
        (None, Some(ch)) => (VoidBy::Channel, ch.as_str()),
        _ => bail!("give a VOTE_ID, or --user or --channel with --from and --to"),
    };
    let (from, to) = (args.from.unwrap_or(0), args.to.unwrap_or(0));
    let mut con = g.connect()?;
    let (mut voided, mut calls) = (0u64, 0u64);
    let mut cursor = "0".to_string();
    // each call reads at most --batch entries of the capped log: the loop
    // ends within the log's length / batch calls
    loop {
        let call = c.void_range(by, value, from, to, &cursor, args.batch);
        let step = crate::fold::folded_first(g, &mut con, c, &call)?;
        calls += 1;
        if step.voided > 0 {
            crate::audit::note(
                g,
                c,
                Action::VoidRange,
                json!({ by.as_str(): value, "from": from, "to": to, "cursor": cursor, "count": args.batch }),
                serde_json::Value::Null,
                serde_json::to_value(&step)?,
            );
        }
        voided += step.voided;
        if step.is_done() {
            break;
        }
        cursor = step.next;
    }
    let done = json!({ "voided": voided, "calls": calls });
    print(g, &done, |_| {
        format!(
            "voided {voided} vote(s) of {} {value} in [{from}, {to}) in {calls} call(s)",
            by.as_str()
        )
    })
}
