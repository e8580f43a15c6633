//! `redvote campaign NAME ...`: the campaign leaderboards from the command
//! line. Parse, call the library, print (human or `--json`).

use std::collections::{BTreeMap, HashMap};

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use redvote::campaign::{BoardPage, BoardSettings, CampaignSettings, Entry, Voter};
use redvote::{Campaign, Code, Kind, Neighbourhood, Paging, View};
use redvote_serve::audit::Action;
use serde_json::json;

use crate::{print, Global};

/// `redvote campaign NAME <command>`.
#[derive(Args, Debug)]
pub struct CampaignArgs {
    /// Campaign name: keys live under the namespace {c:NAME}:
    #[arg(value_parser = campaign_name)]
    name: String,
    /// Test/import path: act at this Unix time instead of the server's clock
    #[arg(long)]
    at: Option<u64>,
    #[command(subcommand)]
    command: CampaignCommand,
}

/// A campaign name as the service accepts it ([`redvote::is_valid_name`]).
fn campaign_name(s: &str) -> Result<String, String> {
    if redvote::is_valid_name(s) {
        Ok(s.to_string())
    } else {
        Err(NAME_RULE.to_string())
    }
}

/// The rule of [`redvote::is_valid_name`], in words.
const NAME_RULE: &str =
    "a campaign name is 1..64 bytes, none of : { } * ? [ ] \\ , spaces or control characters";

#[derive(Args, Debug)]
struct ViewArgs {
    /// real (one per vote) or shown (weighted, imported, carried)
    #[arg(long, default_value = "shown")]
    kind: Kind,
    /// hour, day, week, month (the current one), total, or a name such as day:2026-03-17
    #[arg(long, default_value = "total")]
    period: String,
}

impl ViewArgs {
    fn view(&self) -> View {
        View::new(self.kind, self.period.clone())
    }
}

/// Who votes, for rate limits.
#[derive(Args, Debug)]
struct VoterArgs {
    /// Voter
    #[arg(long)]
    user: String,
    /// Traffic source (channel) of the vote
    #[arg(long)]
    channel: Option<String>,
    /// Device type of the vote (pc, mobile, ...)
    #[arg(long)]
    device: Option<String>,
    /// What the vote spends of each rate limit
    #[arg(long, default_value_t = 1)]
    cost: u32,
}

impl VoterArgs {
    fn voter(&self) -> Voter {
        Voter {
            user: self.user.clone(),
            channel: self.channel.clone(),
            device: self.device.clone(),
            cost: self.cost,
            id: None,
        }
    }
}

/// Whether a failed call may have been applied (its outcome is unknown):
/// never a call that was not sent.
fn unknown(err: &anyhow::Error) -> bool {
    crate::may_have_applied(err)
}

/// Whether the call was applied but not replicated as --wait-replicas asks.
fn not_replicated(err: &anyhow::Error) -> bool {
    matches!(
        err.downcast_ref::<redvote::Error>(),
        Some(redvote::Error::NotReplicated { .. })
    )
}

fn split_pairs(pairs: &[String]) -> Vec<(&str, &str)> {
    pairs
        .iter()
        .map(|p| p.split_once(':').expect("checked by board_option"))
        .collect()
}

/// A `BOARD:OPTION` argument, both names as [`redvote::is_valid_name`]
/// takes them: anything else is a malformed command line (exit 2).
fn board_option(s: &str) -> Result<String, String> {
    match s.split_once(':') {
        Some((board, option))
            if redvote::is_valid_name(board) && redvote::is_valid_name(option) =>
        {
            Ok(s.to_string())
        }
        _ => Err(
            "expected BOARD:OPTION, each a name of 1..64 bytes, none of : { } * ? [ ] \\ , \
                  spaces or control characters"
                .to_string(),
        ),
    }
}

#[derive(Subcommand, Debug)]
enum CampaignCommand {
    /// Create or update the campaign from a JSON settings document
    Configure {
        /// The settings file (JSON; see docs/campaigns.md), or - for stdin
        file: String,
    },
    /// Print the campaign's stored settings as a configure document (JSON;
    /// read-only: no deny lists, no display data)
    Settings,
    /// Vote for options: BOARD:OPTION pairs, all or nothing (rate limits apply)
    Vote {
        #[command(flatten)]
        voter: VoterArgs,
        /// Idempotency key (1..128 bytes): a vote sent again with the same id
        /// counts once and prints the first answer, marked (replay)
        #[arg(long)]
        vote_id: Option<String>,
        /// BOARD:OPTION pairs
        #[arg(required = true, value_parser = board_option)]
        pairs: Vec<String>,
    },
    /// How many votes each rate limit leaves a voter now (spends nothing)
    Limits {
        #[command(flatten)]
        voter: VoterArgs,
        /// BOARD:OPTION pairs, for rules that count per option
        #[arg(value_parser = board_option)]
        pairs: Vec<String>,
    },
    /// Admin: reset a user's rate-limit counters
    ResetLimits {
        #[command(flatten)]
        voter: VoterArgs,
        /// BOARD:OPTION pairs, for per-user rules that also count per option
        #[arg(value_parser = board_option)]
        pairs: Vec<String>,
    },
    /// Import starting shown votes from a CSV (option,votes) or JSON ({"option": votes}) file
    ///
    /// The whole file is checked before anything is written; a bad row
    /// imports nothing. Idempotent: running it again changes nothing.
    Import {
        /// Board
        board: String,
        /// CSV lines option,votes (an optional first line exactly "option,votes" is the header) or a JSON object {"option": votes}
        file: String,
        /// Options per atomic call
        #[arg(long, default_value_t = 500)]
        batch: usize,
    },
    /// A page of one or more boards
    Top {
        /// Boards
        #[arg(required = true)]
        boards: Vec<String>,
        #[command(flatten)]
        view: ViewArgs,
        /// Page number, from 1
        #[arg(long, default_value_t = 1)]
        page: u32,
        /// Entries per page (1..100)
        #[arg(long, default_value_t = 10)]
        per_page: u32,
    },
    /// Rank, score, the member ahead and the gap, last period's rank
    Standing {
        /// Board
        board: String,
        /// Members
        #[arg(required = true)]
        members: Vec<String>,
        #[command(flatten)]
        view: ViewArgs,
    },
    /// The members around one member, its percentile and page
    Around {
        /// Board
        board: String,
        /// Member
        member: String,
        #[command(flatten)]
        view: ViewArgs,
        /// Window size
        #[arg(long, default_value_t = 5)]
        window: u32,
        /// Page size for the page count
        #[arg(long, default_value_t = 10)]
        per_page: u32,
    },
    /// Write a board's period as CSV or JSON lines, ranked, in batches (docs/export.md)
    Export(crate::export::ExportArgs),
    /// A board's votes per hour or per day, as lines, --json or --csv (docs/export.md)
    Stats(crate::stats::StatsArgs),
    /// Unique participants of the campaign and of options
    Participants {
        /// Board
        board: String,
        /// Options
        options: Vec<String>,
    },
    /// Scan the campaign's keys (read-only) and report every broken invariant; exit 1 if any
    Check,
    /// Build the keys that make a dense or first board's ranks O(log N), in batches (once, for a board written by redvote < 0.2 or after its tie rule changed)
    Reindex {
        /// Board
        board: String,
        /// Members per atomic call (1..5000)
        #[arg(long, default_value_t = 100)]
        batch: u32,
    },
    /// Move the campaign's data layout to the one this version writes, in batches (once no redvote 0.5 client writes it: docs/versions.md)
    Upgrade {
        /// Units of work per atomic call (1..5000)
        #[arg(long, default_value_t = 100)]
        batch: u32,
    },
    /// Write a buffered campaign's accepted votes to its boards: one call, or --all until none is left (docs/hot-campaigns.md)
    Fold(crate::fold::FoldArgs),
    /// Admin: void a vote by its id, or a user's or channel's logged votes in a time range (docs/teams.md)
    Void(crate::void::VoidArgs),
    /// The campaign's audit log, newest first: who changed what, when (docs/teams.md)
    Audit {
        /// Entries to print (1..100)
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=100))]
        count: u32,
    },
    /// Remove options from a board, with their scores on every period board (in bounded steps; no OPTION: finish a pending removal)
    RemoveOptions {
        /// Board
        board: String,
        /// Options (none: only finish the board's pending removal)
        options: Vec<String>,
        /// Units of work (period boards x options) per atomic cleanup call (1..10000)
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=10000))]
        batch: u32,
    },
}

/// Run one campaign command: each has a function of its own below.
pub fn run(g: &Global, args: &CampaignArgs) -> Result<()> {
    let mut campaign = Campaign::new(&args.name);
    if let Some(t) = args.at {
        campaign = campaign.at(t);
    }
    let c = &campaign;
    match &args.command {
        CampaignCommand::Configure { file } => configure(g, c, file),
        CampaignCommand::Vote {
            voter,
            vote_id,
            pairs,
        } => vote(g, c, voter, vote_id.as_deref(), pairs),
        CampaignCommand::Settings => settings(g, c),
        CampaignCommand::Limits { voter, pairs } => limits(g, c, voter, pairs),
        CampaignCommand::ResetLimits { voter, pairs } => reset_limits(g, c, voter, pairs),
        CampaignCommand::Import { board, file, batch } => import(g, c, board, file, *batch),
        CampaignCommand::Top {
            boards,
            view,
            page,
            per_page,
        } => top(g, c, boards, view, Paging::new(*page, *per_page)),
        CampaignCommand::Standing {
            board,
            members,
            view,
        } => standing(g, c, board, members, view),
        CampaignCommand::Around {
            board,
            member,
            view,
            window,
            per_page,
        } => around(
            g,
            c,
            board,
            member,
            view,
            Neighbourhood::new(*window, *per_page),
        ),
        CampaignCommand::Participants { board, options } => participants(g, c, board, options),
        CampaignCommand::Export(export) => crate::export::run(g, c, &args.name, export),
        CampaignCommand::Stats(stats) => crate::stats::run(g, c, stats),
        CampaignCommand::Reindex { board, batch } => reindex(g, c, board, *batch),
        CampaignCommand::Upgrade { batch } => upgrade(g, c, *batch),
        CampaignCommand::Check => {
            let report = redvote_check::check_campaign(g.connect_for(c.root_key())?.redis()?, c)?;
            crate::campaigns::warn_unregistered(g, c)?;
            crate::report(g, &report)
        }
        CampaignCommand::RemoveOptions {
            board,
            options,
            batch,
        } => remove_options(g, c, board, options, *batch),
        CampaignCommand::Fold(fold) => crate::fold::run(g, c, fold),
        CampaignCommand::Void(void) => crate::void::run(g, c, void),
        CampaignCommand::Audit { count } => crate::audit::read(g, c, *count),
    }
}

/// The largest settings document `campaign_configure.lua` takes: the
/// upper bound of its `settings` argument in the manifest.
fn settings_max_bytes() -> u64 {
    let manifest: serde_json::Value =
        serde_json::from_str(redvote::scripts::MANIFEST).expect("the embedded manifest is JSON");
    manifest["scripts"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == "campaign_configure"))
        .and_then(|s| s["argv"][0]["bounds"].as_str())
        .and_then(|b| b.split_once("..")?.1.parse().ok())
        .expect("the manifest bounds campaign_configure's settings")
}

/// `configure FILE`: the settings document of `file` (`-`: stdin), read
/// only up to the size the script takes, so `/dev/zero` is refused at once.
fn configure(g: &Global, campaign: &Campaign, file: &str) -> Result<()> {
    let max = settings_max_bytes();
    let text = read_bounded(file, max).and_then(|text| {
        text.with_context(|| {
            format!(
                "{file}: larger than {} MiB ({max} bytes), nothing configured",
                max >> 20
            )
        })
    })?;
    let settings: CampaignSettings =
        serde_json::from_str(&text).with_context(|| format!("{file}: not campaign settings"))?;
    let before = crate::audit::settings(g, campaign);
    let call = campaign.configure(&settings);
    let done = crate::fold::folded_first(g, &mut g.connect()?, campaign, &call)?;
    let after = crate::audit::settings(g, campaign);
    crate::audit::note(
        g,
        campaign,
        Action::Configure,
        serde_json::to_value(&settings)?,
        before,
        after,
    );
    // the campaign lists read the registry, which configure cannot write
    crate::campaigns::register_configured(g, campaign)?;
    print(g, &done, |d| {
        format!("configured {} board(s), {} option(s)", d.boards, d.options)
    })
}

/// `vote BOARD:OPTION...`: one ballot line per pair; a failure whose
/// outcome is unknown says how to retry it safely.
fn vote(
    g: &Global,
    campaign: &Campaign,
    voter: &VoterArgs,
    vote_id: Option<&str>,
    pairs: &[String],
) -> Result<()> {
    let pairs = split_pairs(pairs);
    let voter = Voter {
        id: vote_id.map(Into::into),
        ..voter.voter()
    };
    let call = campaign.vote_by(&voter, &pairs);
    let ballots = g.run(&call).map_err(|err| match vote_id {
        // the outcome is unknown: say how to find out safely
        Some(id) if unknown(&err) => err.context(format!(
            "retry with the same --vote-id {id}: it counts once"
        )),
        None if not_replicated(&err) => err.context("it counts: a retry would count it twice"),
        None if unknown(&err) => {
            err.context("a retry may count it twice: give votes a --vote-id to retry them safely")
        }
        _ => err,
    })?;
    // every ballot with `replay` (the library's JSON leaves it out when false)
    let json: Vec<serde_json::Value> = ballots
        .iter()
        .map(|b| {
            let mut v = serde_json::to_value(b).unwrap_or_default();
            v["replay"] = b.replay.into();
            v
        })
        .collect();
    print(g, &json!({ "ballots": json }), |_| {
        let lines: Vec<String> = ballots
            .iter()
            .map(|b| {
                let replay = if b.replay { "  (replay)" } else { "" };
                let what = match b.folded {
                    // a buffered campaign's vote: on the boards once folded
                    Some(ms) => format!(
                        "accepted, buffered; boards {}",
                        crate::fold::folded_words(ms)
                    ),
                    None => {
                        let scores: Vec<String> = b
                            .shown
                            .iter()
                            .map(|s| format!("{} {}", s.period, s.score))
                            .collect();
                        scores.join("  ")
                    }
                };
                format!("{}:{}  {what}{replay}", b.board, b.option)
            })
            .collect();
        lines.join("\n")
    })
}

/// `settings`: the stored settings as a configure document.
fn settings(g: &Global, campaign: &Campaign) -> Result<()> {
    let settings = g.run(&campaign.settings())?;
    print(g, &settings, |s| {
        serde_json::to_string_pretty(s).unwrap_or_else(|e| e.to_string())
    })
}

/// `limits`: what each rate limit leaves the voter (spends nothing).
fn limits(g: &Global, campaign: &Campaign, voter: &VoterArgs, pairs: &[String]) -> Result<()> {
    let pairs = split_pairs(pairs);
    let left = g.run(&campaign.limits(&voter.voter(), &pairs))?;
    print(g, &json!({ "limits": left }), |_| {
        let lines: Vec<String> = left
            .iter()
            .map(|l| {
                format!(
                    "{}  remaining {}  resets in {} s",
                    l.rule, l.remaining, l.reset_in
                )
            })
            .collect();
        lines.join("\n")
    })
}

/// `reset-limits`: the voter's rate-limit counters deleted.
fn reset_limits(
    g: &Global,
    campaign: &Campaign,
    voter: &VoterArgs,
    pairs: &[String],
) -> Result<()> {
    let pairs = split_pairs(pairs);
    let n = g.run(&campaign.reset_limits(&voter.voter(), &pairs))?;
    crate::audit::note(
        g,
        campaign,
        Action::LimitsReset,
        json!({ "user": voter.user, "channel": voter.channel, "device": voter.device, "pairs": pairs }),
        serde_json::Value::Null,
        json!({ "reset": n }),
    );
    print(g, &json!({ "reset": n }), |_| {
        format!("reset {n} counter(s)")
    })
}

/// `top BOARD...`: a page of each board, blank lines between.
fn top(
    g: &Global,
    campaign: &Campaign,
    boards: &[String],
    view: &ViewArgs,
    paging: Paging,
) -> Result<()> {
    let names: Vec<&str> = boards.iter().map(String::as_str).collect();
    let pages = g.run(&campaign.top(&names, &view.view(), paging))?;
    print(g, &json!({ "boards": pages }), |_| {
        pages.iter().map(show_page).collect::<Vec<_>>().join("\n\n")
    })
}

/// `standing BOARD MEMBER...`: one line per member (`-`: none), then on a
/// buffered campaign how far the board is folded.
fn standing(
    g: &Global,
    campaign: &Campaign,
    board: &str,
    members: &[String],
    view: &ViewArgs,
) -> Result<()> {
    let names: Vec<&str> = members.iter().map(String::as_str).collect();
    let standings = g.run(&campaign.standing(board, &view.view(), &names))?;
    print(g, &json!({ "standings": standings }), |_| {
        let all = &standings;
        let dash = |o: &Option<String>| o.clone().unwrap_or_else(|| "-".into());
        let num = |o: &Option<u64>| o.map_or("-".into(), |n| n.to_string());
        let lines: Vec<String> = all
            .iter()
            .map(|s| {
                format!(
                    "{}  rank {}  score {}  ahead {} by {}  previous rank {} score {}",
                    s.member,
                    num(&s.rank),
                    dash(&s.score),
                    dash(&s.ahead),
                    dash(&s.gap),
                    num(&s.previous_rank),
                    dash(&s.previous_score)
                )
            })
            .chain(
                // a buffered campaign's: one value for every member
                all.first()
                    .and_then(|s| s.folded)
                    .map(|ms| format!("{board} {}", crate::fold::folded_words(ms))),
            )
            .collect();
        lines.join("\n")
    })
}

/// `around BOARD MEMBER`: the member's rank, percentile and page, then
/// its window of entries.
fn around(
    g: &Global,
    campaign: &Campaign,
    board: &str,
    member: &str,
    view: &ViewArgs,
    neighbourhood: Neighbourhood,
) -> Result<()> {
    let around = g.run(&campaign.around(board, &view.view(), member, neighbourhood))?;
    print(g, &around, |a| {
        let folded = a.folded.map_or(String::new(), |ms| {
            format!("; {}", crate::fold::folded_words(ms))
        });
        let mut out = format!(
            "{member}: rank {}, percentile {}, page {} of {} ({} members{folded})",
            a.rank.map_or("-".into(), |r| r.to_string()),
            a.percentile.clone().unwrap_or_else(|| "-".into()),
            a.page.map_or("-".into(), |p| p.to_string()),
            a.pages,
            a.size
        );
        for e in &a.window {
            out.push('\n');
            out.push_str(&show_entry(e));
        }
        out
    })
}

/// `participants BOARD OPTION...`: the campaign's and each option's unique
/// participants.
fn participants(g: &Global, campaign: &Campaign, board: &str, options: &[String]) -> Result<()> {
    let names: Vec<&str> = options.iter().map(String::as_str).collect();
    let p = g.run(&campaign.participants(board, &names))?;
    let options: Vec<serde_json::Value> = p
        .options
        .iter()
        .map(|(o, n)| json!({ "option": o, "participants": n }))
        .collect();
    let shape = json!({ "campaign": p.campaign, "options": options });
    print(g, &shape, |_| {
        let mut out = format!("campaign {}", p.campaign);
        for (o, n) in &p.options {
            out.push_str(&format!("\n{o} {n}"));
        }
        out
    })
}

/// `reindex BOARD`: campaign_reindex calls of `batch` members until the
/// board is indexed, then their totals.
fn reindex(g: &Global, campaign: &Campaign, board: &str, batch: u32) -> Result<()> {
    let mut con = g.connect()?;
    let mut done = Reindexing {
        board: board.to_string(),
        members: 0,
        period_boards: 0,
        calls: 0,
    };
    let mut cursor = "0".to_string();
    loop {
        let step = g.run_on(&mut con, &campaign.reindex(board, &cursor, batch))?;
        done.members += step.members;
        done.period_boards += step.boards;
        done.calls += 1;
        if step.is_done() {
            break;
        }
        cursor = step.next;
    }
    crate::audit::note(
        g,
        campaign,
        Action::Reindex,
        json!({ "board": board, "batch": batch }),
        serde_json::Value::Null,
        serde_json::to_value(&done)?,
    );
    print(g, &done, |d| {
        format!(
            "board {} indexed: {} member(s) of {} period board(s) in {} call(s)",
            d.board, d.members, d.period_boards, d.calls
        )
    })
}

/// `upgrade`: campaign_upgrade calls of `batch` units until the campaign
/// is at the layout this version writes.
fn upgrade(g: &Global, campaign: &Campaign, batch: u32) -> Result<()> {
    let mut con = g.connect()?;
    let mut cursor = "0".to_string();
    let mut done = Upgrading {
        from: 0,
        to: 0,
        calls: 0,
    };
    loop {
        let step = g.run_on(&mut con, &campaign.upgrade(&cursor, batch))?;
        if done.calls == 0 {
            done.from = step.from;
        }
        done.to = step.to;
        done.calls += 1;
        if step.is_done() {
            break;
        }
        cursor = step.next;
    }
    if done.from != done.to {
        crate::audit::note(
            g,
            campaign,
            Action::Upgrade,
            json!({ "batch": batch }),
            json!({ "layout": done.from }),
            json!({ "layout": done.to }),
        );
    }
    print(g, &done, |d| {
        if d.from == d.to {
            format!(
                "the campaign's data layout is {} already: nothing to do",
                d.to
            )
        } else {
            format!("data layout {} -> {} in {} call(s)", d.from, d.to, d.calls)
        }
    })
}

/// `remove-options BOARD OPTION...`: a configure document that removes
/// them (O(options): the options are gone at once, their period board
/// entries pending), then campaign_remove calls of `batch` units (100 by
/// default: about 0.5 ms a call at 10 options) until the
/// board's pending removal is complete. Without options, only the calls
/// (a removal interrupted before its end).
fn remove_options(
    g: &Global,
    campaign: &Campaign,
    board: &str,
    options: &[String],
    batch: u32,
) -> Result<()> {
    let mut done = Removal {
        boards: 0,
        options: 0,
        entries: 0,
        calls: 0,
    };
    if !options.is_empty() {
        let configured = configure_removal(g, campaign, board, options)?;
        done.boards = configured.boards;
        done.options = configured.options;
    }
    let mut con = g.connect()?;
    let mut cursor = "0".to_string();
    loop {
        let step = match g.run_on(&mut con, &campaign.remove_step(board, &cursor, batch)) {
            // another driver moved the removal on: go on from where it stands
            Err(err)
                if crate::driver_error(&err).and_then(|e| e.code())
                    == Some(Code::InvalidCursor) =>
            {
                cursor = "0".to_string();
                continue;
            }
            step => step?,
        };
        done.entries += step.removed;
        done.calls += 1;
        if step.is_done() {
            break;
        }
        cursor = step.next;
    }
    print(g, &done, |d| {
        format!(
            "removed {} option(s) from {board} ({} period board entr{} in {} call(s))",
            options.len(),
            d.entries,
            if d.entries == 1 { "y" } else { "ies" },
            d.calls
        )
    })
}

/// What `campaign NAME remove-options` did.
#[derive(serde::Serialize)]
struct Removal {
    boards: u64,
    options: u64,
    entries: u64,
    calls: u64,
}

/// The configure call of `remove-options`, audited.
fn configure_removal(
    g: &Global,
    campaign: &Campaign,
    board: &str,
    options: &[String],
) -> Result<redvote::Configured> {
    let settings = CampaignSettings {
        boards: BTreeMap::from([(
            board.to_string(),
            BoardSettings {
                remove: options.to_vec(),
                ..Default::default()
            },
        )]),
        ..Default::default()
    };
    let before = crate::audit::settings(g, campaign);
    let call = campaign.configure(&settings);
    let done = crate::fold::folded_first(g, &mut g.connect()?, campaign, &call)?;
    let after = crate::audit::settings(g, campaign);
    crate::audit::note(
        g,
        campaign,
        Action::Configure,
        serde_json::to_value(&settings)?,
        before,
        after,
    );
    Ok(done)
}

fn show_entry(e: &Entry) -> String {
    format!("{:>4}. {}  {}", e.rank, e.member, e.score)
}

fn show_page(p: &BoardPage) -> String {
    let folded = p.folded.map_or(String::new(), |ms| {
        format!("; {}", crate::fold::folded_words(ms))
    });
    let mut out = format!("{} {} ({} members{folded})", p.board, p.period, p.size);
    for e in &p.entries {
        out.push('\n');
        out.push_str(&show_entry(e));
    }
    out
}

/// The header an import CSV may start with; any other first line is data.
const IMPORT_HEADER: &str = "option,votes";

/// How many bad rows an import error lists before it only counts the rest.
const SHOWN_BAD_ROWS: usize = 5;

/// One row of an import file: where it is (a CSV line number, or the JSON
/// key), the option and its votes.
#[derive(Debug)]
struct Row {
    /// Position in the file, for the order of error messages.
    pos: usize,
    at: String,
    option: String,
    votes: String,
}

/// Whether `s` is votes as `campaign_import.lua` accepts them, apart from
/// the board's `decimals` (checked by the script): a non-negative decimal,
/// digits with optionally `.` and more digits, at most 20 characters.
fn votes_ok(s: &str) -> bool {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    s.len() <= 20
        && match s.split_once('.') {
            Some((int, frac)) => digits(int) && digits(frac),
            None => digits(s),
        }
}

/// Rows of an import file: CSV lines `option,votes` (an optional first
/// line exactly `option,votes` is the header; blank lines are skipped) or a
/// JSON object `{"option": votes}`. Every row is checked as the script
/// would (name, number format, an option given twice) before anything is
/// written: the error lists every bad row (the first few, then a count).
fn rows(file: &str, text: &str) -> Result<Vec<Row>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::new();
    let mut bad = Vec::new();
    if text.trim_start().starts_with('{') {
        let map: JsonRows =
            serde_json::from_str(text).with_context(|| format!("{file}: not a JSON object"))?;
        for (pos, (option, v)) in map.0.into_iter().enumerate() {
            let at = format!("{option:?}");
            match v {
                serde_json::Value::Number(n) => out.push(Row {
                    pos,
                    at,
                    option,
                    votes: n.to_string(),
                }),
                serde_json::Value::String(votes) => out.push(Row {
                    pos,
                    at,
                    option,
                    votes,
                }),
                other => bad.push((pos, format!("{at}: votes must be a number, got {other}"))),
            }
        }
    } else {
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            if n == 0 && fields.join(",") == IMPORT_HEADER {
                continue; // the header
            }
            let at = format!("line {}", n + 1);
            match fields[..] {
                [option, votes] => out.push(Row {
                    pos: n,
                    at,
                    option: option.to_string(),
                    votes: votes.to_string(),
                }),
                _ => bad.push((
                    n,
                    format!("{at}: expected option,votes, got {:?}", clip(line)),
                )),
            }
        }
    }
    let mut seen: HashMap<&str, &str> = HashMap::new();
    for row in &out {
        if !redvote::is_valid_name(&row.option) {
            bad.push((row.pos, format!(
                "{}: {:?} is not an option name (1..64 bytes, none of : {{ }} * ? [ ] \\ , spaces or control characters)",
                row.at,
                clip(&row.option)
            )));
        } else if let Some(first) = seen.insert(&row.option, &row.at) {
            bad.push((
                row.pos,
                format!("{}: option {} again (first at {first})", row.at, row.option),
            ));
        }
        if !votes_ok(&row.votes) {
            bad.push((row.pos, format!(
                "{}: votes must be a non-negative decimal (digits, optionally . and digits, at most 20 characters), got {:?}",
                row.at,
                clip(&row.votes)
            )));
        }
    }
    if !bad.is_empty() {
        bad.sort_by_key(|(pos, _)| *pos); // stable: a row's messages stay in order
        let bad: Vec<String> = bad.into_iter().map(|(_, msg)| msg).collect();
        let more = bad.len().saturating_sub(SHOWN_BAD_ROWS);
        let mut msg = format!(
            "{file}: {} bad row(s), nothing imported: {}",
            bad.len(),
            bad[..bad.len().min(SHOWN_BAD_ROWS)].join("; ")
        );
        if more > 0 {
            msg.push_str(&format!("; and {more} more"));
        }
        bail!(msg);
    }
    Ok(out)
}

/// The members of an import's JSON object in file order, a key given twice
/// kept twice (a map would keep the last value silently): [`rows`] refuses
/// the repeat as it does a CSV's.
struct JsonRows(Vec<(String, serde_json::Value)>);

impl<'de> serde::Deserialize<'de> for JsonRows {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = JsonRows;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<JsonRows, A::Error> {
                let mut out = Vec::new();
                while let Some(member) = map.next_entry()? {
                    out.push(member);
                }
                Ok(JsonRows(out))
            }
        }
        d.deserialize_map(Members)
    }
}

/// The largest import file read (64 MiB, some 700,000 rows): a larger one,
/// or one with no end (`/dev/zero`), is refused before it fills memory.
const IMPORT_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// The text of `file` (`-`: stdin) when it holds at most `max` bytes;
/// `None` when it holds more (never more than `max + 1` bytes are read).
fn read_bounded(file: &str, max: u64) -> Result<Option<String>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    let read = if file == "-" {
        std::io::stdin().take(max + 1).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(file).and_then(|f| f.take(max + 1).read_to_end(&mut bytes))
    };
    read.with_context(|| format!("cannot read {file}"))?;
    if bytes.len() as u64 > max {
        return Ok(None);
    }
    String::from_utf8(bytes)
        .map(Some)
        .with_context(|| format!("cannot read {file}: not UTF-8"))
}

/// The text of an import file, at most [`IMPORT_MAX_BYTES`].
fn read_import_file(file: &str) -> Result<String> {
    read_bounded(file, IMPORT_MAX_BYTES)?.with_context(|| {
        format!("{file}: larger than 64 MiB, nothing imported: split it into smaller files")
    })
}

/// At most 80 characters of a bad value, for an error message.
fn clip(s: &str) -> String {
    s.chars().take(80).collect()
}

fn import(g: &Global, campaign: &Campaign, board: &str, file: &str, batch: usize) -> Result<()> {
    if batch == 0 || batch > 500 {
        bail!("--batch must be in 1..500");
    }
    let text = read_import_file(file)?;
    let rows = rows(file, &text)?;
    let mut con = g.connect()?;
    let bar = if g.json {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(rows.len() as u64)
    };
    bar.set_style(ProgressStyle::with_template("{bar:40} {pos}/{len} options").expect("template"));
    let (mut changed, mut unchanged, mut done_rows) = (0, 0, 0);
    // Each batch is sent in atomic calls of bounded work (a call takes the
    // pairs that fit and answers how many it left, sent again at once); the
    // import as a whole is idempotent, so after an interruption running it
    // again completes it.
    for chunk in rows.chunks(batch) {
        let pairs: Vec<(&str, &str)> = chunk
            .iter()
            .map(|r| (r.option.as_str(), r.votes.as_str()))
            .collect();
        let mut left = &pairs[..];
        while !left.is_empty() {
            let done = match g.run_on(&mut con, &campaign.import(board, left)) {
                Ok(done) => done,
                Err(err) => {
                    bar.finish_and_clear();
                    let at = &chunk[chunk.len() - left.len()].at;
                    let last = &chunk[chunk.len() - 1].at;
                    let what = if done_rows == 0 {
                        "nothing imported".to_string()
                    } else {
                        format!(
                            "{done_rows} rows imported (of {}), then the call of the rows from {at} to {last} \
                             was refused; the import is idempotent: fix the file and rerun it",
                            rows.len()
                        )
                    };
                    return Err(err.context(format!("{file}: {what}")));
                }
            };
            let taken = left.len() - done.rest_of(left).len();
            left = done.rest_of(left);
            changed += done.changed;
            unchanged += done.unchanged;
            done_rows += taken;
            bar.inc(taken as u64);
        }
    }
    bar.finish_and_clear();
    let summary = redvote::campaign::Imported {
        changed,
        unchanged,
        rest: 0,
    };
    crate::audit::note(
        g,
        campaign,
        Action::Import,
        json!({ "board": board, "file": file, "options": rows.len() }),
        serde_json::Value::Null,
        serde_json::to_value(summary)?,
    );
    print(g, &summary, |s| {
        format!(
            "imported {} option(s), {} unchanged",
            s.changed, s.unchanged
        )
    })
}

/// What `campaign NAME upgrade` did.
#[derive(serde::Serialize)]
struct Upgrading {
    from: u32,
    to: u32,
    calls: u64,
}

/// What `campaign NAME reindex` did.
#[derive(serde::Serialize)]
struct Reindexing {
    board: String,
    members: u64,
    period_boards: u64,
    calls: u64,
}
