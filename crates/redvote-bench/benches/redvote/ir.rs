//! The server-instructions section (`ir`): what a call costs the server in
//! instructions (Ir), counted by callgrind, side by side with what it is
//! measured against, in one run on one server.
//!
//! Why instructions: on a shared 2-core machine a microsecond figure moves
//! with the neighbours' load, while callgrind counts the same instructions
//! for the same binary, data and calls whatever else runs. The server is a
//! throwaway `redis-server` started under `valgrind --tool=callgrind
//! --collect-atstart=no --toggle-collect=processCommand`: only what runs
//! inside `processCommand` is counted, which is once per top-level command
//! a client sends (the whole script for an `EVALSHA`, its own commands
//! included; a script's inner commands do not enter `processCommand`), and
//! not the socket reads and writes or the parsing of the request. So a
//! plain command and a script are counted alike. The server is
//! `redvote_testing::callgrind::CallgrindServer` (a `TempServer` under
//! valgrind); a phase is its `measure` (zero, the calls, dump) divided by
//! the calls.
//!
//! The rows compare (each with its target ratio): the article vote with a
//! lean 4-call script (1.6x), the campaign vote with the seed's 16 commands
//! (1.5x), the vote with `first` ties with the same vote with `competition`
//! (1.3x; and the memory per option of their boards, 1.5x), 4 rate-limit
//! rules with none (1.3x), and a pair of a batch vote with a single vote
//! (1.0x); and the floor of the campaign vote (`VoteFloor`). Every call
//! goes through the library (`Site::vote`, `Campaign::vote_by`, ...), so
//! the rows measure whatever scripts are checked out.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::Instant;

use anyhow::{Context, Result};
use redvote::campaign::Voter;
use redvote::{Campaign, CampaignSettings, Site, Ties};
use redvote_testing::callgrind::CallgrindServer;
use serde::Serialize;

use crate::campaign::{campaign_settings, CampaignNames, CAMPAIGN_BOARD};
use crate::limits::{limits_settings, LIMITS_BOARD, LIMITS_CHANNELS, LIMITS_DEVICES};
use crate::measure::{command_stats, CommandStats};

/// The lean article vote: the seeds' four commands in one script, nothing
/// checked. KEYS: time:, voted:ID, score:, article:ID; ARGV: user, member.
const LEAN_VOTE: &str = "local t = redis.call('ZSCORE', KEYS[1], ARGV[2]) \
    redis.call('SADD', KEYS[2], ARGV[1]) \
    redis.call('ZINCRBY', KEYS[3], '432', ARGV[2]) \
    redis.call('HINCRBY', KEYS[4], 'votes', '1') return 1";

/// Articles of the site the article votes spread over.
const ARTICLES: u64 = 100;
/// Pairs of the batch row: the most a call takes on the 5-period
/// competition board (lua/campaign_vote.lua, Bounded work).
const BATCH: usize = 16;

/// The settings the rows configure, which `ir-settings` prints (as JSON)
/// for `crates/redvote-bench/tools/vote_phases.sh`, so that its phases are
/// measured on the rows' boards.
#[derive(Debug, Clone, Serialize)]
pub(super) struct IrSettings {
    /// The campaign rows' board (the campaign section's: 5 periods, carry,
    /// weight 2), competition ties.
    pub(super) campaign: CampaignSettings,
    /// The same, first ties.
    pub(super) first: CampaignSettings,
    /// The rate-limit row's: the limits section's campaign with 4 rules
    /// (`limits_settings`).
    pub(super) limits: CampaignSettings,
    /// The same without rules.
    pub(super) limits_none: CampaignSettings,
    /// The board the campaign rows vote on.
    pub(super) board: &'static str,
    /// The board the rate-limit row votes on.
    pub(super) limits_board: &'static str,
    /// The options: the i-th call votes for `options[i * 7 % len]`.
    pub(super) options: Vec<String>,
    /// The rate-limit row's voters' channel and device.
    pub(super) voter: [&'static str; 2],
}

impl IrSettings {
    /// The rows' settings for these options.
    pub(super) fn new(options: &[String]) -> Self {
        IrSettings {
            campaign: campaign_settings(options),
            first: tied(options, Ties::First),
            limits: limits_settings(options, 4),
            limits_none: limits_settings(options, 0),
            board: CAMPAIGN_BOARD,
            limits_board: LIMITS_BOARD,
            options: options.to_vec(),
            voter: LIMITS_VOTER,
        }
    }
}

/// The rate-limit row's voters' channel and device: the limits section's
/// first ones.
const LIMITS_VOTER: [&str; 2] = [LIMITS_CHANNELS[0], LIMITS_DEVICES[0]];

/// The campaign section's settings for `options`, every board's ties
/// `ties`.
fn tied(options: &[String], ties: Ties) -> CampaignSettings {
    let mut settings = campaign_settings(options);
    for board in settings.boards.values_mut() {
        board.ties = Some(ties);
    }
    settings
}

/// A call's Ir, and of them those of the commands its script sent.
#[derive(Debug, Clone, Copy)]
struct Measured {
    ir: u64,
    commands: Option<u64>,
}

impl From<u64> for Measured {
    /// A count that is not split (bytes).
    fn from(ir: u64) -> Self {
        Measured { ir, commands: None }
    }
}

/// One row: a call, its Ir, what it is measured against and the target.
#[derive(Debug, Clone, Serialize)]
pub(super) struct IrRow {
    /// The call measured.
    pub(super) what: String,
    /// Its Ir a call (a pair for the batch row).
    pub(super) ir: u64,
    /// Of them, the Ir of the commands the script sent (callgrind's
    /// inclusive count of `scriptCall`): the rest is Lua and the passing of
    /// arguments and replies. None: not a script, or not split.
    pub(super) ir_in_commands: Option<u64>,
    /// What it is measured against.
    pub(super) against: String,
    /// That one's Ir a call.
    pub(super) against_ir: u64,
    /// That one's Ir in its script's commands (as `ir_in_commands`).
    pub(super) against_in_commands: Option<u64>,
    /// ir / against_ir.
    pub(super) ratio: f64,
    /// The most the ratio may be (the row's target).
    pub(super) target: f64,
    /// ratio <= target.
    pub(super) pass: bool,
}

/// The section's result.
#[derive(Debug, Clone, Serialize)]
pub(super) struct IrReport {
    /// `REDVOTE_BENCH_COMMIT`, else `git rev-parse --short HEAD`.
    pub(super) commit: Option<String>,
    /// The server's version.
    pub(super) redis_version: String,
    /// Calls a row measures (each side).
    pub(super) calls: u64,
    /// The rows, in the module doc's order.
    pub(super) rows: Vec<IrRow>,
    /// The whole batch call's Ir (its pairs times the batch row's Ir).
    pub(super) batch_call_ir: u64,
    /// Pairs of that batch.
    pub(super) batch_pairs: usize,
    /// First ties against competition by board size, with the least
    /// memory a first-ties index could take: on the rows' boards, then on
    /// boards of `WIDE_OPTIONS` options.
    pub(super) first_by_size: Vec<FirstBySize>,
    /// The floor of the campaign vote's commands (`VoteFloor`).
    pub(super) vote_floor: VoteFloor,
    /// Seconds the section took.
    pub(super) seconds: f64,
}

/// The least any script sending the campaign vote's commands could cost,
/// with no other Lua: a script `return 1` (the call itself), the vote's
/// commands (its row's `ir_in_commands`), and for each command what a
/// `redis.call` costs beyond its command (from a script of as many
/// `redis.call('EXISTS', KEYS[1])`: a lower bound, since the vote's
/// commands pass more arguments and longer replies), against the seed's
/// 16 commands. What the campaign row's target leaves the vote's own Lua
/// is the target times the seed's Ir less this floor.
#[derive(Debug, Clone, Serialize)]
pub(super) struct VoteFloor {
    /// Commands the vote sends a call (INFO commandstats over its row's
    /// calls).
    pub(super) commands: f64,
    /// Ir a call of a script `return 1`.
    pub(super) bare_ir: u64,
    /// Ir a `redis.call('EXISTS', KEYS[1])` costs beyond its command.
    pub(super) call_ir: u64,
    /// bare_ir + the vote's commands' Ir + commands (rounded) x call_ir.
    pub(super) floor_ir: u64,
    /// The seed's 16 commands' Ir (the campaign row's `against_ir`).
    pub(super) seed_ir: u64,
    /// floor_ir / seed_ir.
    pub(super) ratio: f64,
}

/// Options of the second pair of boards (competition, first) the section
/// compares first ties on: over `zset-max-listpack-entries` (128), so
/// Redis keeps their period boards as skiplists, where the rows' boards
/// (100 options) are listpacks.
const WIDE_OPTIONS: usize = 1000;
/// Pairs a vote call when those boards are filled (each option voted
/// once): the most a call takes on the 5-period board with first ties
/// (lua/campaign_vote.lua, Bounded work).
const WIDE_BATCH: usize = 5;

/// First ties against competition on boards of one size: the vote's Ir
/// (the rows' measure), the memory an option, and the memory target
/// (1.5x competition's) against the least any order index could cost.
/// Ranking by who reached a score first in O(log N) needs the members of a
/// tie sorted by arrival, which the seeds' board (member: the option,
/// score: its count) is not; on these boards nearly every option shares
/// its count (the votes go round the options), so that is one more sorted
/// entry an option a period board, whatever else the design keeps. The
/// floor is that entry at its smallest: a copy of each period board's `o:` key whose member is 6
/// bytes of the sequence (big-endian, 2^48 votes) and the option, and
/// whose score is whole units (no decimal text to store), and no `f:` key
/// at all (which a real design needs, to find the entry it replaces):
/// MEMORY USAGE of the copies, next to the competition boards'.
#[derive(Debug, Clone, Serialize)]
pub(super) struct FirstBySize {
    /// Options of the boards.
    pub(super) options: usize,
    /// Ir a vote, competition ties.
    pub(super) competition_ir: u64,
    /// Ir a vote, first ties.
    pub(super) first_ir: u64,
    /// first_ir / competition_ir.
    pub(super) ir_ratio: f64,
    /// Of competition_ir, the Ir of the script's commands (as
    /// `IrRow::ir_in_commands`).
    pub(super) competition_in_commands: Option<u64>,
    /// Of first_ir, the Ir of the script's commands.
    pub(super) first_in_commands: Option<u64>,
    /// Bytes an option of the competition board's keys.
    pub(super) competition_bytes: u64,
    /// Bytes an option of the first board's keys today (board, `o:`, `f:`).
    pub(super) first_bytes: u64,
    /// first_bytes / competition_bytes.
    pub(super) bytes_ratio: f64,
    /// Bytes an option of the competition board's keys and the smallest
    /// index.
    pub(super) floor_bytes: u64,
    /// floor_bytes / competition_bytes.
    pub(super) floor_ratio: f64,
}

/// The units of a shown score: 10^decimals, the boards' default 2.
const SCORE_UNITS: u32 = 100;

/// Builds, beside each `o:` key of the first campaign's board, the
/// smallest index copy described at `FirstBySize`, and returns its MEMORY
/// USAGE summed (the copies are deleted). KEYS: the `o:` keys; ARGV[1]:
/// the units of a score (10^decimals).
const INDEX_FLOOR: &str = r#"
local total = 0
for _, key in ipairs(KEYS) do
  local copy = key .. ':floor'
  local r = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  for i = 1, #r, 2 do
    local seq, option = tonumber(r[i]:sub(1, 15)), r[i]:sub(16)
    local bytes = {}
    for j = 6, 1, -1 do bytes[j] = string.char(seq % 256); seq = math.floor(seq / 256) end
    redis.call('ZADD', copy, string.format('%d', math.floor(tonumber(r[i + 1]) * ARGV[1] + 0.5)),
      table.concat(bytes) .. option)
  end
  total = total + (redis.call('MEMORY', 'USAGE', copy, 'SAMPLES', '0') or 0)
  redis.call('DEL', copy)
end
return total
"#;

/// The commands scripts sent between two INFO commandstats snapshots
/// (`measure::command_stats`), the clients' own left out: the scripts'
/// calls, the connection's and the snapshots'.
fn script_commands(before: &CommandStats, after: &CommandStats) -> u64 {
    const OWN: [&str; 8] = [
        "eval", "evalsha", "script", "info", "config", "ping", "client", "hello",
    ];
    after
        .iter()
        .filter(|(name, _)| {
            !OWN.iter()
                .any(|own| *name == own || name.starts_with(&format!("{own}|")))
        })
        .map(|(name, (calls, _))| calls - before.get(name).map_or(0, |b| b.0))
        .sum()
}

/// The floor of the campaign vote (`VoteFloor`): `vote` its row's
/// measure, `commands` the commands it sent a call, `seed` the seed's.
fn vote_floor(
    server: &mut CallgrindServer,
    con: &mut redis::Connection,
    calls: u64,
    (vote, commands): (Measured, f64),
    seed: Measured,
) -> Result<VoteFloor> {
    let n = (commands.round() as u64).max(1);
    let bare = redis::Script::new("return 1");
    let many = redis::Script::new(&format!(
        "{}return 1",
        "redis.call('EXISTS', KEYS[1]) ".repeat(n as usize)
    ));
    let mut run = |script: &redis::Script| {
        measure(server, calls, calls, |i| {
            script.key("floor").arg(i).invoke::<i64>(&mut *con)?;
            Ok(())
        })
    };
    let bare_ir = run(&bare)?;
    let many_ir = run(&many)?;
    let call_ir = many_ir
        .ir
        .saturating_sub(many_ir.commands.unwrap_or(0) + bare_ir.ir)
        / n;
    let floor_ir = bare_ir.ir + vote.commands.unwrap_or(0) + n * call_ir;
    Ok(VoteFloor {
        commands: (commands * 10.0).round() / 10.0,
        bare_ir: bare_ir.ir,
        call_ir,
        floor_ir,
        seed_ir: seed.ir,
        ratio: ratio_of(floor_ir, seed.ir),
    })
}

/// Two rounded ratios.
fn ratio_of(a: u64, b: u64) -> f64 {
    (a as f64 / b.max(1) as f64 * 100.0).round() / 100.0
}

/// First ties against competition on the boards of these two campaigns
/// (`options` options; their votes' Ir measured already): their memory,
/// and the floor's (`FirstBySize`).
fn first_by_size(
    con: &mut redis::Connection,
    (competition, competition_ir): (&Campaign, Measured),
    (first, first_ir): (&Campaign, Measured),
    options: usize,
) -> Result<FirstBySize> {
    let competition_bytes = board_bytes_per_option(con, competition.namespace(), options)?;
    let first_bytes = board_bytes_per_option(con, first.namespace(), options)?;
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{}o:{CAMPAIGN_BOARD}:*", first.namespace()))
        .query(con)?;
    let script = redis::Script::new(INDEX_FLOOR);
    let mut copies = script.prepare_invoke();
    for key in &keys {
        copies.key(key);
    }
    let index: u64 = copies.arg(SCORE_UNITS).invoke(con)?;
    let floor_bytes = competition_bytes + index / options as u64;
    Ok(FirstBySize {
        options,
        competition_ir: competition_ir.ir,
        first_ir: first_ir.ir,
        ir_ratio: ratio_of(first_ir.ir, competition_ir.ir),
        competition_in_commands: competition_ir.commands,
        first_in_commands: first_ir.commands,
        competition_bytes,
        first_bytes,
        bytes_ratio: ratio_of(first_bytes, competition_bytes),
        floor_bytes,
        floor_ratio: ratio_of(floor_bytes, competition_bytes),
    })
}

/// The Ir of `calls` calls of `f` (a call: `f(i)` for i in 0..calls) on
/// `server`, divided by `per` (the calls, or the pairs), and of them those
/// in the commands scripts sent. One call `f(calls)` first, not counted:
/// it loads the script (NOSCRIPT, then EVAL).
fn measure(
    server: &mut CallgrindServer,
    calls: u64,
    per: u64,
    mut f: impl FnMut(u64) -> Result<()>,
) -> Result<Measured> {
    f(calls)?;
    server.zero()?;
    for i in 0..calls {
        f(i)?;
    }
    let split = server.dump_split()?;
    let per = per.max(1);
    Ok(Measured {
        ir: split.total / per,
        commands: split.in_script_commands.map(|c| c / per),
    })
}

fn row(what: &str, m: Measured, against: &str, a: Measured, target: f64) -> IrRow {
    let (ir, against_ir) = (m.ir, a.ir);
    let ratio = ratio_of(ir, against_ir);
    IrRow {
        what: what.to_string(),
        ir,
        ir_in_commands: m.commands,
        against: against.to_string(),
        against_ir,
        against_in_commands: a.commands,
        ratio,
        target,
        pass: ratio <= target,
    }
}

/// The memory of every board key of `ns` (board, side keys), MEMORY USAGE
/// summed, per option.
fn board_bytes_per_option(con: &mut redis::Connection, ns: &str, options: usize) -> Result<u64> {
    let mut total = 0u64;
    for letter in ["b", "o", "f", "d"] {
        let keys: Vec<String> = redis::cmd("KEYS")
            .arg(format!("{ns}{letter}:{CAMPAIGN_BOARD}:*"))
            .query(con)?;
        for key in keys {
            let bytes: Option<u64> = redis::cmd("MEMORY")
                .arg("USAGE")
                .arg(&key)
                .arg("SAMPLES")
                .arg(0)
                .query(con)?;
            total += bytes.unwrap_or(0);
        }
    }
    Ok(total / options as u64)
}

/// Run the section: `calls` calls a side of each row.
pub(super) fn run_ir(calls: u64) -> Result<IrReport> {
    let started = Instant::now();
    let mut server =
        CallgrindServer::start(&[]).context("starting redis-server under callgrind")?;
    let mut con = server.server().client().get_connection()?;
    let info: String = redis::cmd("INFO").arg("server").query(&mut con)?;
    let redis_version = info
        .lines()
        .find_map(|l| l.strip_prefix("redis_version:"))
        .unwrap_or("?")
        .trim()
        .to_string();
    let mut rows = Vec::new();

    // The article vote against the lean script, a new voter a call.
    let site = Site::default();
    for a in 0..ARTICLES {
        site.post("poster", &format!("t{a}"), "https://e.x/")
            .run(&mut con)?;
    }
    let vote = measure(&mut server, calls, calls, |i| {
        site.vote(&format!("sv:{i}"), (i % ARTICLES + 1).to_string())
            .run(&mut con)?;
        Ok(())
    })?;
    let lean = redis::Script::new(LEAN_VOTE);
    let lean_ir = measure(&mut server, calls, calls, |i| {
        let id = i % ARTICLES + 1;
        lean.key("time:")
            .key(format!("voted:{id}"))
            .key("score:")
            .key(format!("article:{id}"))
            .arg(format!("lv:{i}"))
            .arg(format!("article:{id}"))
            .invoke::<i64>(&mut con)?;
        Ok(())
    })?;
    rows.push(row(
        "article vote (vote.lua, a new voter up)",
        vote,
        "a lean 4-call script",
        lean_ir,
        1.6,
    ));

    // The campaign vote (the bench's 5-period board) against the seed's 16
    // commands; the same vote with first ties; a batch.
    let names = CampaignNames::new("");
    let settings = IrSettings::new(&names.options);
    names.redvote.configure(&settings.campaign).run(&mut con)?;
    let first = Campaign::with_namespace("{c:bench-first}:");
    first.configure(&settings.first).run(&mut con)?;
    let option = |i: u64| &names.options[(i * 7 % names.options.len() as u64) as usize];
    // (the commands it sends: its calls and the one measure makes first)
    let stats_before = command_stats(&mut con)?;
    let competition = measure(&mut server, calls, calls, |i| {
        names
            .redvote
            .vote(&format!("cv:{i}"), &[(CAMPAIGN_BOARD, option(i))])
            .run(&mut con)?;
        Ok(())
    })?;
    let vote_commands =
        script_commands(&stats_before, &command_stats(&mut con)?) as f64 / (calls + 1) as f64;
    let seed = measure(&mut server, calls, calls, |i| {
        let keys = names.seed_keys(crate::scenario::unix_now() as i64);
        for cmd in keys.commands(option(i), &format!("sd:{i}")) {
            cmd.query::<redis::Value>(&mut con)?;
        }
        Ok(())
    })?;
    rows.push(row(
        "campaign vote (5 periods, carry, competition)",
        competition,
        "the seed's 16 commands",
        seed,
        1.5,
    ));
    let floor = vote_floor(
        &mut server,
        &mut con,
        calls,
        (competition, vote_commands),
        seed,
    )?;
    let first_ir = measure(&mut server, calls, calls, |i| {
        first
            .vote(&format!("fv:{i}"), &[(CAMPAIGN_BOARD, option(i))])
            .run(&mut con)?;
        Ok(())
    })?;
    rows.push(row(
        "campaign vote, first ties",
        first_ir,
        "the same vote, competition ties",
        competition,
        1.3,
    ));
    let options = names.options.len();
    let mut by_size = vec![first_by_size(
        &mut con,
        (&names.redvote, competition),
        (&first, first_ir),
        options,
    )?];
    rows.push(row(
        "memory an option, first ties (bytes, MEMORY USAGE of its boards)",
        by_size[0].first_bytes.into(),
        "competition ties",
        by_size[0].competition_bytes.into(),
        1.5,
    ));
    // The same at a size Redis keeps as skiplists: a pair of boards of
    // WIDE_OPTIONS options, each option voted once, then a vote a call as
    // the rows'.
    let wide: Vec<String> = (1..=WIDE_OPTIONS).map(|i| format!("opt{i}")).collect();
    let mut wide_votes = Vec::new();
    for ties in [Ties::Competition, Ties::First] {
        let campaign = Campaign::with_namespace(format!("{{c:bench-wide-{ties:?}}}:"));
        campaign.configure(&tied(&wide, ties)).run(&mut con)?;
        for (i, chunk) in wide.chunks(WIDE_BATCH).enumerate() {
            let pairs: Vec<(&str, &str)> =
                chunk.iter().map(|o| (CAMPAIGN_BOARD, o.as_str())).collect();
            campaign.vote(&format!("wf:{i}"), &pairs).run(&mut con)?;
        }
        let ir = measure(&mut server, calls, calls, |i| {
            let option = &wide[(i * 7 % WIDE_OPTIONS as u64) as usize];
            campaign
                .vote(&format!("wv:{i}"), &[(CAMPAIGN_BOARD, option)])
                .run(&mut con)?;
            Ok(())
        })?;
        wide_votes.push((campaign, ir));
    }
    by_size.push(first_by_size(
        &mut con,
        (&wide_votes[0].0, wide_votes[0].1),
        (&wide_votes[1].0, wide_votes[1].1),
        WIDE_OPTIONS,
    )?);
    let batch_calls = (calls / 4).max(2);
    let per_pair = measure(&mut server, batch_calls, batch_calls * BATCH as u64, |i| {
        let pairs: Vec<(&str, &str)> = (0..BATCH as u64)
            .map(|k| (CAMPAIGN_BOARD, option(i * BATCH as u64 + k).as_str()))
            .collect();
        names
            .redvote
            .vote(&format!("bv:{i}"), &pairs)
            .run(&mut con)?;
        Ok(())
    })?;
    rows.push(row(
        &format!("a pair of a {BATCH}-pair batch vote (5 periods, competition)"),
        per_pair,
        "a single vote",
        competition,
        1.0,
    ));

    // Rate limits: the limits section's light board with 4 rules and none.
    let mut limited = BTreeMap::new();
    for rules in [0, 4] {
        let campaign = Campaign::with_namespace(format!("{{c:bench-limits{rules}}}:"));
        let limits = if rules == 0 {
            &settings.limits_none
        } else {
            &settings.limits
        };
        campaign.configure(limits).run(&mut con)?;
        let ir = measure(&mut server, calls, calls, |i| {
            let user = format!("lv{rules}:{i}");
            let voter = Voter {
                user,
                channel: Some(LIMITS_VOTER[0].into()),
                device: Some(LIMITS_VOTER[1].into()),
                cost: 1,
                id: None,
            };
            campaign
                .vote_by(&voter, &[(LIMITS_BOARD, option(i))])
                .run(&mut con)?;
            Ok(())
        })?;
        limited.insert(rules, ir);
    }
    rows.push(row(
        "campaign vote, 4 rate-limit rules (day + total board)",
        limited[&4],
        "the same vote, no rule",
        limited[&0],
        1.3,
    ));

    Ok(IrReport {
        commit: crate::scale::commit(),
        redis_version,
        calls,
        batch_call_ir: per_pair.ir * BATCH as u64,
        first_by_size: by_size,
        batch_pairs: BATCH,
        rows,
        vote_floor: floor,
        seconds: (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
    })
}

/// The section's table.
pub(super) fn write_ir(out: &mut impl Write, r: &IrReport) -> Result<()> {
    writeln!(
        out,
        "\nServer instructions (Ir, callgrind, processCommand): {} calls a side, commit {}, Redis {}",
        r.calls,
        r.commit.as_deref().unwrap_or("?"),
        r.redis_version
    )?;
    writeln!(
        out,
        "\n| call | Ir | in its commands | against | Ir | in its commands | ratio | target | |"
    )?;
    writeln!(
        out,
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    )?;
    let split = |c: Option<u64>| c.map_or("-".to_string(), |c| c.to_string());
    for row in &r.rows {
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {:.2}x | {:.1}x | {} |",
            row.what,
            row.ir,
            split(row.ir_in_commands),
            row.against,
            row.against_ir,
            split(row.against_in_commands),
            row.ratio,
            row.target,
            if row.pass { "met" } else { "**missed**" }
        )?;
    }
    let f = &r.vote_floor;
    writeln!(
        out,
        "\nThe floor of the campaign vote: any script sending its {} commands a call, with no \
         other Lua: {} Ir (a script `return 1` {} + its commands {} + {} x {}, a redis.call's own \
         cost beyond its command), {:.2}x the seed's 16 commands ({})",
        f.commands,
        f.floor_ir,
        f.bare_ir,
        f.floor_ir - f.bare_ir - f.commands.round() as u64 * f.call_ir,
        f.commands.round(),
        f.call_ir,
        f.ratio,
        f.seed_ir
    )?;
    writeln!(
        out,
        "\nFirst ties against competition by board size (a vote's Ir; bytes an option; the \
         floor: competition's boards and the least a first-ties index could add, one zset entry \
         an option a period board of 6 bytes of sequence, the option and whole units, no f: key):\n"
    )?;
    writeln!(
        out,
        "| options | vote, competition (in its commands) | first (in its commands) | ratio | \
         bytes, competition | first | ratio | floor | ratio |"
    )?;
    writeln!(
        out,
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    )?;
    for f in &r.first_by_size {
        writeln!(
            out,
            "| {} | {} ({}) | {} ({}) | {:.2}x | {} B | {} B | {:.2}x | {} B | {:.2}x |",
            f.options,
            f.competition_ir,
            split(f.competition_in_commands),
            f.first_ir,
            split(f.first_in_commands),
            f.ir_ratio,
            f.competition_bytes,
            f.first_bytes,
            f.bytes_ratio,
            f.floor_bytes,
            f.floor_ratio
        )?;
    }
    writeln!(
        out,
        "\nA {}-pair batch call: {} Ir. ({:.1} s)",
        r.batch_pairs, r.batch_call_ir, r.seconds
    )?;
    Ok(())
}
