//! The consistency checks, read back from the server with the admin
//! connection: every article's votes and score after each vote slice, both
//! page flows' page 1, each campaign side's and each rate-limit campaign's
//! boards after each slice and at the end (HyperLogLogs, rate-limit
//! counters), the campaign's vote id records and a replay, and what the
//! end-of-run checks found, for the report. A failed check is an error: the
//! bench exits 1.

use std::collections::BTreeMap;

use anyhow::{bail, ensure, Context, Result};
use redis::Commands;
use redvote::campaign::{Dimension, Window};
use redvote::{Order, Period};
use redvote_testing::seed::VOTE_SCORE;
use serde::Serialize;

use super::article::{seeds_page_sync, PER_PAGE};
use super::campaign::{
    period_at, CAMPAIGN_BOARD, CAMPAIGN_CARRY_VALUE, CAMPAIGN_OFFSET_SECONDS, CAMPAIGN_WEIGHT,
    PERIODS, VOTE_ID_TTL,
};
use super::limits::{limit_rules, LIMITS_BOARD, LIMITS_PERIODS, LIMITS_WEIGHT, LIMIT_RULE_COUNTS};
use super::measure::round;
use super::Bench;

impl Bench {
    /// Every article must satisfy `votes == |voted:ID|` and `score == time +
    /// 432 * votes`, and all votes must add up to the posts plus every vote
    /// the scenarios cast so far.
    pub(super) fn check(&mut self, after: &str) -> Result<()> {
        let ctx = &*self.ctx;
        let con = &mut self.admin;
        let mut times = redis::pipe();
        let mut scores = redis::pipe();
        let mut votes = redis::pipe();
        let mut voters = redis::pipe();
        for a in &ctx.articles {
            times.zscore(&ctx.time_key, &a.member);
            scores.zscore(&ctx.score_key, &a.member);
            votes.hget(&a.hash, "votes");
            voters.scard(&a.voted);
        }
        let times: Vec<Option<f64>> = times.query(con)?;
        let scores: Vec<Option<f64>> = scores.query(con)?;
        let votes: Vec<Option<u64>> = votes.query(con)?;
        let voters: Vec<u64> = voters.query(con)?;
        let mut sum = 0;
        for (i, a) in ctx.articles.iter().enumerate() {
            let (Some(time), Some(score), Some(v)) = (times[i], scores[i], votes[i]) else {
                bail!(
                    "check after {after}: {} lost its time, score or votes",
                    a.hash
                );
            };
            ensure!(
                v == voters[i],
                "check after {after}: {} has votes {v} but {} holds {} voters",
                a.hash,
                a.voted,
                voters[i]
            );
            let want = time + VOTE_SCORE * v as f64;
            ensure!(
                (score - want).abs() < 1e-3,
                "check after {after}: {} has score {score}, want time + 432 x votes = {want}",
                a.member
            );
            sum += v;
        }
        let want = self.posts + self.votes_cast;
        ensure!(
            sum == want,
            "check after {after}: the articles hold {sum} votes, want {} posts + {} votes cast = {want}",
            self.posts,
            self.votes_cast
        );
        self.votes_found = sum;
        Ok(())
    }

    /// After a campaign slice: `side`'s (0: redvote, 1: seed) `real:total`
    /// board sums to its votes, its `shown:total` board to twice that.
    pub(super) fn check_campaign_totals(&mut self, side: usize, after: &str) -> Result<()> {
        let ns = self.ctx.campaign.ns(side).to_string();
        let votes = self.campaign_votes[side] as f64;
        for (kind, want) in [
            ("real", votes),
            ("shown", votes * f64::from(CAMPAIGN_WEIGHT)),
        ] {
            let key = format!("{ns}b:{CAMPAIGN_BOARD}:{kind}:total");
            let sum = zset_sum(&mut self.admin, &key)?;
            ensure!(
                close(sum, want),
                "campaign check after {after}: {key} sums to {sum}, want {want}"
            );
        }
        Ok(())
    }

    /// After the rounds: every period board of `side`, found by SCAN, per
    /// kind: real boards sum to the votes, shown boards to weight x votes
    /// plus the carry (none into total); the HyperLogLogs count the voters.
    pub(super) fn check_campaign(&mut self, side: usize) -> Result<CampaignCheck> {
        let names = &self.ctx.campaign;
        let ns = names.ns(side).to_string();
        let who = if side == 0 { "redvote" } else { "seed" };
        let votes = self.campaign_votes[side];
        let boards = scan_keys(&mut self.admin, &format!("{ns}b:{CAMPAIGN_BOARD}:"))?;
        // (real or shown, period kind) -> sum over that kind's boards.
        let mut sums: BTreeMap<(String, String), f64> = BTreeMap::new();
        for key in &boards {
            let rest = &key[ns.len() + CAMPAIGN_BOARD.len() + 3..];
            let (kind, period) = rest
                .split_once(':')
                .with_context(|| format!("unexpected campaign key {key}"))?;
            let period_kind = period.split(':').next().unwrap_or(period);
            *sums
                .entry((kind.to_string(), period_kind.to_string()))
                .or_default() += zset_sum(&mut self.admin, key)?;
        }
        let weight = f64::from(CAMPAIGN_WEIGHT);
        let v = votes as f64;
        for period in PERIODS {
            let p = period.as_str().to_string();
            let carry = if period == Period::Total {
                0.0
            } else {
                weight * CAMPAIGN_CARRY_VALUE
            };
            for (kind, want) in [("real", v), ("shown", v * (weight + carry))] {
                let got = sums.get(&(kind.to_string(), p.clone())).copied();
                let got = got.unwrap_or(0.0);
                ensure!(
                    close(got, want),
                    "campaign check ({who}): the {kind} {p} boards sum to {got}, want {want} \
                     for {votes} votes"
                );
            }
        }
        ensure!(
            sums.len() == 2 * PERIODS.len(),
            "campaign check ({who}): unexpected boards {:?}",
            sums.keys().collect::<Vec<_>>()
        );
        // HyperLogLogs: approximate counts (redvote's campaign HLL also
        // holds the setup's probe voter).
        let probe = u64::from(side == 0);
        let participants: u64 = redis::cmd("PFCOUNT")
            .arg(format!("{ns}hll"))
            .query(&mut self.admin)?;
        let mut pipe = redis::pipe();
        for o in &names.options {
            pipe.cmd("PFCOUNT")
                .arg(format!("{ns}hll:{CAMPAIGN_BOARD}:{o}"));
        }
        let per_option: Vec<u64> = pipe.query(&mut self.admin)?;
        let option_sum: u64 = per_option.iter().sum();
        for (what, got, want) in [
            ("the campaign's", participants, votes + probe),
            ("the options'", option_sum, votes),
        ] {
            let slack = want as f64 * 0.03 + 2.0;
            ensure!(
                (got as f64 - want as f64).abs() <= slack,
                "campaign check ({who}): {what} HyperLogLogs count {got} voters, want about {want}"
            );
        }
        let total = |kind: &str| {
            sums.get(&(kind.to_string(), "total".to_string()))
                .copied()
                .unwrap_or(0.0)
        };
        Ok(CampaignCheck {
            votes,
            real_total: round(total("real"), 2),
            shown_total: round(total("shown"), 2),
            participants,
            boards: boards.len() as u64,
        })
    }

    /// After the rounds, the vote ids of the redvote campaign: its `vid:`
    /// records (SCAN) must be one per vote cast with an id, each named
    /// `bench:<n>`; then the first of them is replayed (the same voter, id
    /// and pair, on the admin connection): it must answer the recorded
    /// ballots marked `replay` and change nothing: the totals, the records,
    /// the record's TTL (still set, at most the default `vote_id_ttl`) and,
    /// on the throwaway server (`debug`: DEBUG is enabled there only), the
    /// DEBUG DIGEST-VALUE of every key of the namespace. The namespace's
    /// keys rather than DEBUG DIGEST of the whole database: the rate-limit
    /// campaigns' counters (1-second windows) may expire in between.
    pub(super) fn check_vote_ids(&mut self, debug: bool) -> Result<VoteIdCheck> {
        let ctx = std::sync::Arc::clone(&self.ctx);
        let campaign = &ctx.campaign.redvote;
        let ns = campaign.namespace().to_string();
        let votes = self.campaign_id_votes;
        let records = scan_keys(&mut self.admin, &format!("{ns}vid:"))?;
        ensure!(
            records.len() as u64 == votes,
            "vote id check: {} {ns}vid:* records, want one per vote cast with an id ({votes})",
            records.len()
        );
        let mut numbers = Vec::with_capacity(records.len());
        for key in &records {
            let n = key[ns.len() + 4..]
                .strip_prefix("bench:")
                .and_then(|n| n.parse::<u64>().ok())
                .with_context(|| format!("vote id check: unexpected record {key}"))?;
            numbers.push(n);
        }
        let Some(&first) = numbers.iter().min() else {
            bail!("vote id check: no vote with an id was cast");
        };
        // The vote with the id `bench:<first>` was op `first` of a scenario
        // whose users start at 0 (inputs depend on the user number only).
        let input = ctx.input(first, 0);
        let key = format!("{ns}vid:{}", input.vote_id);
        let option = &ctx.campaign.options[input.option];
        let stored: String = self.admin.get(&key)?;
        let recorded = recorded_reply(&stored).with_context(|| format!("vote id check: {key}"))?;

        let keys = scan_keys(&mut self.admin, &ns)?;
        let digest = |con: &mut redis::Connection| -> Result<Option<Vec<String>>> {
            if !debug {
                return Ok(None);
            }
            let mut digests = Vec::with_capacity(keys.len());
            for chunk in keys.chunks(1000) {
                let got: Vec<String> = redis::cmd("DEBUG")
                    .arg("DIGEST-VALUE")
                    .arg(chunk)
                    .query(con)?;
                digests.extend(got);
            }
            Ok(Some(digests))
        };
        let before = digest(&mut self.admin)?;
        let ballots = campaign
            .vote_by(
                &input.campaign_voter(true),
                &[(CAMPAIGN_BOARD, option.as_str())],
            )
            .run(&mut self.admin)
            .with_context(|| format!("vote id check: replaying {}", input.vote_id))?;
        let after = digest(&mut self.admin)?;
        let replayed: Vec<BallotText> = ballots
            .iter()
            .map(|b| {
                let shown = b.shown.iter().map(|p| (p.period.clone(), p.score.clone()));
                (b.board.clone(), b.option.clone(), shown.collect())
            })
            .collect();
        ensure!(
            ballots.iter().all(|b| b.replay) && !ballots.is_empty() && replayed == recorded,
            "vote id check: replaying {} answered {ballots:?}, want the recorded {recorded:?} \
             marked replay",
            input.vote_id
        );
        ensure!(
            before == after,
            "vote id check: replaying {} changed the DEBUG DIGEST-VALUE of keys of {ns}",
            input.vote_id
        );
        self.check_campaign_totals(0, "the vote id replay")?;
        let now = scan_keys(&mut self.admin, &format!("{ns}vid:"))?;
        ensure!(
            now == records,
            "vote id check: the replay of {} changed the vid: records ({} -> {})",
            input.vote_id,
            records.len(),
            now.len()
        );
        let ttl: i64 = self.admin.ttl(&key)?;
        ensure!(
            0 < ttl && ttl <= VOTE_ID_TTL as i64,
            "vote id check: {key} has TTL {ttl}, want 1..={VOTE_ID_TTL}"
        );
        Ok(VoteIdCheck {
            votes,
            records: records.len() as u64,
            replayed: input.vote_id.clone(),
            replay: true,
            ttl,
            digest_keys: before.map(|d| d.len() as u64),
        })
    }

    /// After a rate-limit slice: campaign `k`'s `real:total` board sums to
    /// its votes, its `shown:total` board to weight x that.
    pub(super) fn check_limits_totals(&mut self, k: usize, after: &str) -> Result<()> {
        let ns = self.ctx.limits[k].namespace().to_string();
        let votes = self.limits_votes[k] as f64;
        for (kind, want) in [("real", votes), ("shown", votes * f64::from(LIMITS_WEIGHT))] {
            let key = format!("{ns}b:{LIMITS_BOARD}:{kind}:total");
            let sum = zset_sum(&mut self.admin, &key)?;
            ensure!(
                close(sum, want),
                "limits check after {after}: {key} sums to {sum}, want {want}"
            );
        }
        Ok(())
    }

    /// After the rounds, for rate-limit campaign `k`: every board (found by
    /// SCAN) of each period kind sums to the votes (real and shown, weight
    /// 1); the unlimited campaign has no rate-limit counter; and when every
    /// vote fell on one day that is still the server's day, each day rule's
    /// counters sum to the votes (every rule was checked and spent).
    pub(super) fn check_limits(&mut self, k: usize) -> Result<LimitsCheck> {
        let ns = self.ctx.limits[k].namespace().to_string();
        let rules = LIMIT_RULE_COUNTS[k];
        let who = format!("{rules} rules");
        let votes = self.limits_votes[k];
        let boards = scan_keys(&mut self.admin, &format!("{ns}b:{LIMITS_BOARD}:"))?;
        let mut sums: BTreeMap<(String, String), f64> = BTreeMap::new();
        let mut days = std::collections::BTreeSet::new();
        for key in &boards {
            let rest = &key[ns.len() + LIMITS_BOARD.len() + 3..];
            let (kind, period) = rest
                .split_once(':')
                .with_context(|| format!("unexpected limits campaign key {key}"))?;
            let period_kind = period.split(':').next().unwrap_or(period);
            if period_kind == "day" {
                days.insert(period.to_string());
            }
            *sums
                .entry((kind.to_string(), period_kind.to_string()))
                .or_default() += zset_sum(&mut self.admin, key)?;
        }
        let v = votes as f64;
        for period in LIMITS_PERIODS {
            let p = period.as_str().to_string();
            for (kind, want) in [("real", v), ("shown", v * f64::from(LIMITS_WEIGHT))] {
                let got = sums.get(&(kind.to_string(), p.clone())).copied();
                let got = got.unwrap_or(0.0);
                ensure!(
                    close(got, want),
                    "limits check ({who}): the {kind} {p} boards sum to {got}, want {want} \
                     for {votes} votes"
                );
            }
        }
        ensure!(
            sums.len() == 2 * LIMITS_PERIODS.len(),
            "limits check ({who}): unexpected boards {:?}",
            sums.keys().collect::<Vec<_>>()
        );
        // string counters (rl:...), the buckets (rlb:..., campaign layout
        // 3) and the voters' hashes (rlu:USER)
        let counters = scan_keys(&mut self.admin, &format!("{ns}rl"))?;
        if rules == 0 {
            ensure!(
                counters.is_empty(),
                "limits check ({who}): the unlimited campaign holds rate-limit counters {:?}",
                &counters[..counters.len().min(5)]
            );
        }
        // What the counters hold in memory (MEMORY USAGE: key, value and
        // allocator overhead; not the expiry's entry), per voter: every
        // bench vote is a new voter's.
        let mut counter_bytes = 0u64;
        for chunk in counters.chunks(1000) {
            let mut pipe = redis::pipe();
            for k in chunk {
                pipe.cmd("MEMORY").arg("USAGE").arg(k).arg("SAMPLES").arg(0);
            }
            let sizes: Vec<Option<u64>> = pipe.query(&mut self.admin)?;
            counter_bytes += sizes.iter().flatten().sum::<u64>();
        }
        let mut day_counters = BTreeMap::new();
        for rule in limit_rules(rules) {
            if rule.window != Some(Window::Day) {
                continue;
            }
            let mut sum = 0u64;
            if rule.by.contains(&Dimension::User) {
                // campaign layout 3: in the rule's buckets
                // rlb:RULE:WINDOW:N, each field a voter's count
                let prefix = format!("{ns}rlb:{}:", rule.name);
                let keys: Vec<&String> =
                    counters.iter().filter(|k| k.starts_with(&prefix)).collect();
                for chunk in keys.chunks(1000) {
                    let mut pipe = redis::pipe();
                    for k in chunk {
                        pipe.cmd("HVALS").arg(k);
                    }
                    let buckets: Vec<Vec<u64>> = pipe.query(&mut self.admin)?;
                    sum += buckets.iter().flatten().sum::<u64>();
                }
                // layouts 1 and 2: in each voter's hash, field RULE or
                // RULE|SUBJECT: "END:COUNT:WINDOW"
                let voters = format!("{ns}rlu:");
                let keys: Vec<&String> =
                    counters.iter().filter(|k| k.starts_with(&voters)).collect();
                for chunk in keys.chunks(1000) {
                    let mut pipe = redis::pipe();
                    for k in chunk {
                        pipe.cmd("HGETALL").arg(k);
                    }
                    let hashes: Vec<BTreeMap<String, String>> = pipe.query(&mut self.admin)?;
                    for (field, value) in hashes.iter().flatten() {
                        let name = field.split_once('|').map_or(field.as_str(), |(n, _)| n);
                        if name == rule.name {
                            let count = value.split(':').nth(1).and_then(|c| c.parse::<u64>().ok());
                            sum += count.unwrap_or(0);
                        }
                    }
                }
            } else {
                let prefix = format!("{ns}rl:{}:", rule.name);
                let keys: Vec<&String> =
                    counters.iter().filter(|k| k.starts_with(&prefix)).collect();
                for chunk in keys.chunks(1000) {
                    let values: Vec<Option<u64>> =
                        redis::cmd("MGET").arg(chunk).query(&mut self.admin)?;
                    sum += values.iter().flatten().sum::<u64>();
                }
            }
            day_counters.insert(rule.name, sum);
        }
        // The counters expire when their day ends: compare them only when the
        // votes fell on one day and the server is still in it (TIME after the
        // reads, so they were all read before it ended).
        let (secs, _): (i64, i64) = redis::cmd("TIME").query(&mut self.admin)?;
        let today = period_at(Period::Day, secs, CAMPAIGN_OFFSET_SECONDS).0;
        let one_day = days.len() == 1 && days.contains(&today);
        if one_day {
            for (rule, sum) in &day_counters {
                ensure!(
                    *sum == votes,
                    "limits check ({who}): the {rule} counters of {today} sum to {sum}, want \
                     the {votes} votes"
                );
            }
        }
        let total = |kind: &str| {
            sums.get(&(kind.to_string(), "total".to_string()))
                .copied()
                .unwrap_or(0.0)
        };
        Ok(LimitsCheck {
            rules,
            votes,
            real_total: round(total("real"), 2),
            shown_total: round(total("shown"), 2),
            boards: boards.len() as u64,
            counters: counters.len() as u64,
            bytes_per_voter: counter_bytes / votes.max(1),
            day_counters: one_day.then_some(day_counters),
        })
    }

    /// Both page flows must read the same first page.
    pub(super) fn check_pages_agree(&mut self) -> Result<()> {
        let ctx = &*self.ctx;
        let seeds: Vec<String> = seeds_page_sync(ctx, &mut self.admin, 1)?
            .into_iter()
            .map(|a| a.get("id").cloned().unwrap_or_default())
            .collect();
        let redvote: Vec<String> = ctx
            .site
            .page(Order::Score, 1, Some(PER_PAGE))
            .run(&mut self.admin)?
            .articles
            .into_iter()
            .map(|a| format!("article:{}", a.id))
            .collect();
        ensure!(
            seeds == redvote,
            "page 1 differs: seeds {seeds:?}, redvote {redvote:?}"
        );
        Ok(())
    }
}

/// Every key starting with `prefix` (SCAN MATCH, glob characters escaped).
pub(super) fn scan_keys(con: &mut redis::Connection, prefix: &str) -> Result<Vec<String>> {
    let mut pattern = String::with_capacity(prefix.len() + 1);
    for c in prefix.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('*');
    let mut keys = Vec::new();
    let mut cursor = 0u64;
    loop {
        let (next, batch): (u64, Vec<String>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(&pattern)
            .arg("COUNT")
            .arg(1000)
            .query(con)?;
        keys.extend(batch);
        if next == 0 {
            break;
        }
        cursor = next;
    }
    keys.sort();
    keys.dedup();
    Ok(keys)
}

/// A ballot as text: (board, option, [(period, shown score)]).
type BallotText = (String, String, Vec<(String, String)>);

/// The reply recorded in a vote id record (`[request, reply, added]`,
/// JSON; `[request, reply]` before 0.6), one `BallotText` per ballot.
fn recorded_reply(stored: &str) -> Result<Vec<BallotText>> {
    let record: Vec<serde_json::Value> =
        serde_json::from_str(stored).context("not a [request, reply, ...] record")?;
    ensure!(
        (2..=3).contains(&record.len()),
        "a record of {} elements",
        record.len()
    );
    let reply: Vec<(String, String, Vec<String>)> =
        serde_json::from_value(record[1].clone()).context("not a recorded reply")?;
    reply
        .into_iter()
        .map(|(board, option, shown)| {
            ensure!(shown.len() % 2 == 0, "odd period/score list {shown:?}");
            let pairs = shown
                .chunks(2)
                .map(|p| (p[0].clone(), p[1].clone()))
                .collect();
            Ok((board, option, pairs))
        })
        .collect()
}

/// The sum of a zset's scores.
pub(super) fn zset_sum(con: &mut redis::Connection, key: &str) -> Result<f64> {
    let members: Vec<(String, f64)> = con.zrange_withscores(key, 0, -1)?;
    Ok(members.iter().map(|(_, score)| score).sum())
}

/// Equal up to float noise (the seed's ZINCRBY 0.2 accumulates some).
fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-6 * want.abs() + 1e-6
}

#[derive(Serialize)]
pub(super) struct Checks {
    pub(super) ok: bool,
    pub(super) articles: u64,
    pub(super) votes_cast: u64,
    pub(super) votes_found: u64,
    pub(super) campaign: CampaignChecks,
    pub(super) limits: Vec<LimitsCheck>,
}

/// What the end-of-run check found on one campaign of the rate-limit
/// section.
#[derive(Serialize)]
pub(super) struct LimitsCheck {
    pub(super) rules: usize,
    pub(super) votes: u64,
    pub(super) real_total: f64,
    pub(super) shown_total: f64,
    boards: u64,
    /// Rate-limit counter keys at the end (the fixed windows' and rolling
    /// state still alive).
    pub(super) counters: u64,
    /// MEMORY USAGE of the rate-limit keys (`rl:...`, `rlb:...`, `rlu:USER`) at the
    /// end, divided by the votes (each by a new voter).
    pub(super) bytes_per_voter: u64,
    /// Day rule -> the sum of its counters (each equal to `votes`); null
    /// when the votes spread over two days or the day ended before the check.
    pub(super) day_counters: Option<BTreeMap<String, u64>>,
}

#[derive(Serialize)]
pub(super) struct CampaignChecks {
    pub(super) redvote: CampaignCheck,
    pub(super) seed: CampaignCheck,
    pub(super) vote_ids: VoteIdCheck,
}

/// What the end-of-run check found on the redvote campaign's vote ids.
#[derive(Serialize)]
pub(super) struct VoteIdCheck {
    /// Votes cast with a vote id.
    pub(super) votes: u64,
    /// `<ns>vid:*` records found by SCAN (equal to `votes`).
    pub(super) records: u64,
    /// The vote id replayed.
    pub(super) replayed: String,
    /// The replay answered the recorded ballots marked `replay` (always
    /// true: anything else fails the check).
    pub(super) replay: bool,
    /// The replayed record's TTL (seconds) after the replay.
    pub(super) ttl: i64,
    /// Keys of the namespace whose DEBUG DIGEST-VALUE the replay left
    /// unchanged; None with `--url` (no DEBUG there: not compared).
    pub(super) digest_keys: Option<u64>,
}

/// What the end-of-run check found on one side of the campaign section.
#[derive(Serialize)]
pub(super) struct CampaignCheck {
    pub(super) votes: u64,
    pub(super) real_total: f64,
    pub(super) shown_total: f64,
    pub(super) participants: u64,
    pub(super) boards: u64,
}
