//! The scenarios: what one is (op, flow, connections, how many ops, the
//! names of its row), everything an op needs (`Ctx`, shared by the tasks),
//! the inputs of op `i` (user, article, option, channel, device, page, vote
//! id), and
//! one op of each flow, on a sync connection and on a multiplexed one. The
//! flows themselves live in their sections' modules (`article`, `campaign`,
//! `limits`); this is where an op picks one.

use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{bail, ensure, Context, Result};
use redis::aio::MultiplexedConnection;
use redvote::campaign::Voter;
use redvote::{Campaign, Order, Site};

use super::article::{
    check_outcome, check_page, check_seeds_page, seeds_page_async, seeds_page_sync,
    seeds_vote_async, seeds_vote_sync, watch_vote_async, watch_vote_sync, ArticleKeys, PER_PAGE,
};
use super::campaign::{
    check_ballots, CampaignNames, CAMPAIGN_BOARD, CAMPAIGN_OPTIONS, SEED_WRITES,
};
use super::limits::{
    check_limited, limits_campaigns, LIMITS_BOARD, LIMITS_CHANNELS, LIMITS_DEVICES,
    LIMIT_RULE_COUNTS,
};

/// Everything an op needs, shared by the tasks.
pub(super) struct Ctx {
    pub(super) site: Site,
    /// The prefix is empty: the 1-connection (a) and seeds page call the
    /// library's `redvote_testing::seed` functions themselves.
    pub(super) seeds_layout: bool,
    pub(super) time_key: String,
    pub(super) score_key: String,
    pub(super) articles: Vec<ArticleKeys>,
    /// The campaign section's names and the seed's key cache.
    pub(super) campaign: CampaignNames,
    /// The rate-limit section's campaigns (0, 4 and 8 rules).
    pub(super) limits: Vec<Campaign>,
}

impl Ctx {
    pub(super) fn new(site: Site, ids: Vec<u64>) -> Self {
        let prefix = site.prefix().to_string();
        Ctx {
            seeds_layout: prefix.is_empty(),
            time_key: format!("{prefix}time:"),
            score_key: format!("{prefix}score:"),
            articles: ids
                .iter()
                .map(|&id| ArticleKeys::new(&prefix, id))
                .collect(),
            campaign: CampaignNames::new(&prefix),
            limits: limits_campaigns(&prefix),
            site,
        }
    }

    /// Pages of `PER_PAGE` in `score:`.
    fn page_count(&self) -> u64 {
        (self.articles.len() as u64).div_ceil(PER_PAGE as u64)
    }

    /// The inputs of op `i` of a scenario whose users start at `base`:
    /// user `user:<base + i>` on an article (an option, a channel, a device)
    /// picked by a hash of that number (fixed, spread evenly), page
    /// `i % pages + 1`.
    pub(super) fn input(&self, base: u64, i: u64) -> Input {
        let n = base + i;
        let hash = splitmix64(n);
        Input {
            user: format!("user:{n}"),
            article: (hash % self.articles.len() as u64) as usize,
            option: (hash % CAMPAIGN_OPTIONS as u64) as usize,
            channel: LIMITS_CHANNELS[(hash >> 40) as usize % LIMITS_CHANNELS.len()],
            device: LIMITS_DEVICES[(hash >> 48) as usize % LIMITS_DEVICES.len()],
            page: self.input_page(i),
            vote_id: format!("bench:{n}"),
            now: unix_now(),
        }
    }

    /// The page op `i` of a page scenario reads: `i % pages + 1`.
    fn input_page(&self, i: u64) -> u32 {
        (i % self.page_count()) as u32 + 1
    }

    /// Articles page `page` must hold.
    pub(super) fn page_len(&self, page: u32) -> usize {
        let before = (page as usize - 1) * PER_PAGE as usize;
        self.articles
            .len()
            .saturating_sub(before)
            .min(PER_PAGE as usize)
    }
}

pub(super) struct Input {
    pub(super) user: String,
    article: usize,
    /// Index into the campaign's options.
    pub(super) option: usize,
    /// The rate-limit votes' channel and device.
    pub(super) channel: &'static str,
    pub(super) device: &'static str,
    page: u32,
    /// The vote id of the campaign votes that carry one: `bench:<n>`, unique
    /// over the run like the user.
    pub(super) vote_id: String,
    /// Client clock, the seeds' `time.time()`.
    now: f64,
}

impl Input {
    /// The rate-limit votes' voter: the user, its channel and device, cost 1.
    fn voter(&self) -> Voter {
        Voter {
            user: self.user.clone(),
            channel: Some(self.channel.into()),
            device: Some(self.device.into()),
            cost: 1,
            id: None,
        }
    }

    /// The campaign section's voter: the user alone, or with its vote id.
    pub(super) fn campaign_voter(&self, vote_id: bool) -> Voter {
        let voter = Voter::new(&self.user);
        if vote_id {
            voter.id(&self.vote_id)
        } else {
            voter
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Flow {
    Seeds,
    /// The campaign seed's 16 commands one after the other.
    SeedsSequential,
    Watch,
    Redvote,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Op {
    Vote,
    Page,
    /// A campaign leaderboard vote; `vote_id`: every vote carries a vote id
    /// (`Voter::id`, recorded by the script with its reply).
    Campaign {
        vote_id: bool,
    },
    /// A rate-limited campaign vote on the `k`-th campaign of the rate-limit
    /// section (`LIMIT_RULE_COUNTS[k]` rules).
    Limits(usize),
}

/// One scenario: what, how, how much.
#[derive(Clone, Copy, Debug)]
pub(super) struct Scenario {
    pub(super) op: Op,
    pub(super) flow: Flow,
    /// False: one sync connection, ops in sequence (`tasks` is 1); true:
    /// `tasks` tokio tasks.
    pub(super) concurrent: bool,
    pub(super) tasks: usize,
    /// With tasks: one multiplexed connection for all of them.
    pub(super) shared: bool,
    /// Without tasks: one multiplexed (async) connection instead of a sync
    /// one, ops still in sequence (the campaign seed's concurrent commands).
    pub(super) async_con: bool,
    pub(super) ops: u64,
    /// Ops sent together in one pipeline on the one connection (1: one
    /// after the other; 16: the `pipe16` rows).
    pub(super) pipeline: u64,
    /// Every vote on the first article (the `pipe16_hot` row: like
    /// redis-benchmark, whose command line names one article).
    pub(super) one_article: bool,
    /// The last part of the row id: `1`, `tasks`, `own`, `pipe16` or
    /// `pipe16_hot`.
    pub(super) suffix: &'static str,
}

impl Scenario {
    pub(super) fn id(&self) -> String {
        match self.op {
            Op::Limits(k) => format!("limits_rules{}_{}", LIMIT_RULE_COUNTS[k], self.suffix),
            Op::Campaign { vote_id: true } => {
                format!("{}_{}_id_{}", self.op_name(), self.flow_name(), self.suffix)
            }
            _ => format!("{}_{}_{}", self.op_name(), self.flow_name(), self.suffix),
        }
    }

    /// The rate-limit rules every vote checks (None outside that section).
    pub(super) fn rules(&self) -> Option<usize> {
        match self.op {
            Op::Limits(k) => Some(LIMIT_RULE_COUNTS[k]),
            _ => None,
        }
    }

    /// Every vote carries a vote id (the `campaign_redvote_id_*` rows).
    pub(super) fn vote_id(&self) -> bool {
        matches!(self.op, Op::Campaign { vote_id: true })
    }

    /// The scenarios compared with one another at the same connections,
    /// whose order rotates every round (see `round_order`): the rate-limit
    /// campaigns, and the redvote campaign vote without and with a vote id;
    /// None for the others, which keep their place.
    pub(super) fn rotation_group(&self) -> Option<(&'static str, &'static str)> {
        match (self.op, self.flow) {
            (Op::Limits(_), _) => Some(("limits", self.suffix)),
            (Op::Campaign { .. }, Flow::Redvote)
                if self.suffix == "1" || self.suffix == "tasks" =>
            {
                Some(("campaign", self.suffix))
            }
            _ => None,
        }
    }

    pub(super) fn op_name(&self) -> &'static str {
        match self.op {
            Op::Vote => "vote",
            Op::Page => "page",
            Op::Campaign { .. } => "campaign",
            Op::Limits(_) => "limits",
        }
    }

    pub(super) fn flow_name(&self) -> &'static str {
        match self.flow {
            Flow::Seeds => "seeds",
            Flow::SeedsSequential => "seeds_sequential",
            Flow::Watch => "watch",
            Flow::Redvote => "redvote",
        }
    }

    pub(super) fn label(&self) -> &'static str {
        match (self.op, self.flow) {
            (Op::Vote, Flow::Seeds | Flow::SeedsSequential) => "vote (a) seeds client-side",
            (Op::Vote, Flow::Watch) => "vote (b) WATCH/MULTI/EXEC",
            (Op::Vote, Flow::Redvote) if self.one_article => "vote (c) pipelined, 1 article",
            (Op::Vote, Flow::Redvote) if self.pipeline > 1 => "vote (c) redvote pipelined",
            (Op::Vote, Flow::Redvote) => "vote (c) redvote EVALSHA",
            (Op::Page, Flow::Seeds | Flow::SeedsSequential) => "page seeds ZREVRANGE+HGETALLs",
            (Op::Page, _) => "page redvote EVALSHA, MULTI/HGETALLs/EXEC",
            (Op::Campaign { .. }, Flow::Seeds) => "campaign (a) seed 16 concurrent",
            (Op::Campaign { .. }, Flow::SeedsSequential) => "campaign (a) seed 16 sequential",
            (Op::Campaign { vote_id: true }, _) => "campaign (c) redvote + id",
            (Op::Campaign { .. }, _) if self.pipeline > 1 => "campaign (c) redvote pipelined",
            (Op::Campaign { .. }, _) => "campaign (c) redvote EVALSHA",
            (Op::Limits(k), _) => [
                "limits 0 rules EVALSHA",
                "limits 4 rules EVALSHA",
                "limits 8 rules EVALSHA",
            ][k],
        }
    }

    /// Round trips per op on average (`retries` more attempts of (b) cost
    /// 4 each); commands sent together count as one (a pipeline of 16: 1/16
    /// a vote).
    pub(super) fn round_trips(&self, ctx: &Ctx, retries: u64) -> f64 {
        if self.pipeline > 1 {
            return 1.0 / self.pipeline as f64;
        }
        match (self.op, self.flow) {
            (Op::Vote, Flow::Seeds) => 4.0,
            (Op::Vote, Flow::Watch) => 4.0 * (self.ops + retries) as f64 / self.ops as f64,
            (Op::Page, Flow::Seeds) => self.page_seeds_commands(ctx),
            // page.lua, then the page's hashes in one MULTI/EXEC (src/site/page.rs)
            (Op::Page, _) => 2.0,
            (Op::Campaign { .. }, Flow::SeedsSequential) => SEED_WRITES as f64,
            // The rest, the campaign vote with a vote id among them: one call.
            _ => 1.0,
        }
    }

    /// Redis commands sent per op on average: (b) sends WATCH, ZSCORE,
    /// SISMEMBER, MULTI, SADD, ZINCRBY, HINCRBY, EXEC per attempt.
    pub(super) fn commands(&self, ctx: &Ctx, retries: u64) -> f64 {
        match (self.op, self.flow) {
            (Op::Vote, Flow::Seeds) => 4.0,
            (Op::Vote, Flow::Watch) => 8.0 * (self.ops + retries) as f64 / self.ops as f64,
            (Op::Page, Flow::Seeds) => self.page_seeds_commands(ctx),
            // EVALSHA, MULTI, the HGETALLs, EXEC
            (Op::Page, _) => self.page_seeds_commands(ctx) + 2.0,
            (Op::Campaign { .. }, Flow::Seeds | Flow::SeedsSequential) => SEED_WRITES as f64,
            _ => 1.0,
        }
    }

    /// The commands the flow sends itself (INFO commandstats names), whose
    /// time is the server's time for the op: never one that also runs
    /// inside another of the list (a script's `redis.call`s and EXEC's
    /// queued commands are counted both in their own line and in the
    /// caller's time, so they are left out).
    pub(super) fn top_commands(&self) -> &'static [&'static str] {
        match (self.op, self.flow) {
            (Op::Vote, Flow::Seeds | Flow::SeedsSequential) => {
                &["zscore", "sadd", "zincrby", "hincrby"]
            }
            (Op::Vote, Flow::Watch) => {
                &["watch", "zscore", "sismember", "multi", "exec", "unwatch"]
            }
            (Op::Page, Flow::Seeds | Flow::SeedsSequential) => &["zrevrange", "hgetall"],
            // EXEC's time holds its queued HGETALLs
            (Op::Page, _) => &["evalsha", "eval", "multi", "exec"],
            (Op::Campaign { .. }, Flow::Seeds | Flow::SeedsSequential) => &["zincrby", "pfadd"],
            // One script call (EVAL only when the script cache was flushed).
            _ => &["evalsha", "eval"],
        }
    }

    /// The seeds' page: ZREVRANGE, then one HGETALL per article read.
    fn page_seeds_commands(&self, ctx: &Ctx) -> f64 {
        let hgetalls: u64 = (0..self.ops)
            .map(|i| ctx.page_len(ctx.input_page(i)) as u64)
            .sum();
        1.0 + hgetalls as f64 / self.ops as f64
    }
}

// ---------------------------------------------------------------------------
// One op of each flow, sync (1 connection) and async (tasks). Each returns
// its retries (aborted transactions, (b) only) and fails on anything but the
// expected result.

pub(super) fn op_sync(
    ctx: &Ctx,
    con: &mut redis::Connection,
    s: Scenario,
    input: &Input,
) -> Result<u64> {
    let a = &ctx.articles[input.article];
    match (s.op, s.flow) {
        (Op::Vote, Flow::Seeds | Flow::SeedsSequential) => {
            let counted = if ctx.seeds_layout {
                redvote_testing::seed::article_vote(con, &input.user, &a.member, input.now)?
            } else {
                seeds_vote_sync(ctx, con, a, &input.user, input.now)?
            };
            ensure!(
                counted,
                "the seeds' vote of {} on {} did not count",
                input.user,
                a.member
            );
            Ok(0)
        }
        (Op::Vote, Flow::Watch) => watch_vote_sync(ctx, con, a, &input.user, input.now),
        (Op::Vote, Flow::Redvote) => {
            check_outcome(&ctx.site.vote(&input.user, &a.id).run(con)?, input, a)
        }
        (Op::Page, Flow::Seeds) => {
            let got = seeds_page_sync(ctx, con, input.page)?;
            check_seeds_page(ctx, &got, input.page)
        }
        (Op::Page, _) => {
            let page = ctx
                .site
                .page(Order::Score, input.page, Some(PER_PAGE))
                .run(con)?;
            check_page(ctx, page.articles.len(), input.page)
        }
        (Op::Campaign { vote_id }, Flow::Redvote) => {
            let option = &ctx.campaign.options[input.option];
            let ballots = ctx
                .campaign
                .redvote
                .vote_by(&input.campaign_voter(vote_id), &[(CAMPAIGN_BOARD, option)])
                .run(con)?;
            check_ballots(&ballots, input, option)
        }
        (Op::Campaign { .. }, Flow::SeedsSequential) => {
            let option = &ctx.campaign.options[input.option];
            let keys = ctx.campaign.seed_keys(input.now as i64);
            for cmd in keys.commands(option, &input.user) {
                cmd.query::<redis::Value>(con)
                    .context("a seed campaign command")?;
            }
            Ok(0)
        }
        (Op::Campaign { .. }, _) => bail!("{} runs on a multiplexed connection", s.id()),
        (Op::Limits(k), _) => {
            let option = &ctx.campaign.options[input.option];
            let reply = ctx.limits[k]
                .vote_by(&input.voter(), &[(LIMITS_BOARD, option)])
                .run(con);
            check_limited(reply, k, input, option)
        }
    }
}

pub(super) async fn op_async(
    ctx: &Ctx,
    con: &mut MultiplexedConnection,
    s: Scenario,
    input: &Input,
) -> Result<u64> {
    let a = &ctx.articles[input.article];
    match (s.op, s.flow) {
        (Op::Vote, Flow::Seeds | Flow::SeedsSequential) => {
            let counted = seeds_vote_async(ctx, con, a, &input.user, input.now).await?;
            ensure!(
                counted,
                "the seeds' vote of {} on {} did not count",
                input.user,
                a.member
            );
            Ok(0)
        }
        (Op::Vote, Flow::Watch) => watch_vote_async(ctx, con, a, &input.user, input.now).await,
        (Op::Vote, Flow::Redvote) => {
            let outcome = ctx.site.vote(&input.user, &a.id).run_async(con).await?;
            check_outcome(&outcome, input, a)
        }
        (Op::Page, Flow::Seeds) => {
            let got = seeds_page_async(ctx, con, input.page).await?;
            check_seeds_page(ctx, &got, input.page)
        }
        (Op::Page, _) => {
            let call = ctx.site.page(Order::Score, input.page, Some(PER_PAGE));
            let page = call.run_async(con).await?;
            check_page(ctx, page.articles.len(), input.page)
        }
        (Op::Campaign { vote_id }, Flow::Redvote) => {
            let option = &ctx.campaign.options[input.option];
            let call = ctx
                .campaign
                .redvote
                .vote_by(&input.campaign_voter(vote_id), &[(CAMPAIGN_BOARD, option)]);
            check_ballots(&call.run_async(con).await?, input, option)
        }
        (Op::Campaign { .. }, Flow::Seeds) => {
            // The seed's "parallel goroutines": all 16 commands in flight at
            // once; the multiplexed connection pipelines them on the wire.
            let option = &ctx.campaign.options[input.option];
            let keys = ctx.campaign.seed_keys(input.now as i64);
            let cmds = keys.commands(option, &input.user);
            let replies = futures::future::join_all(cmds.iter().map(|cmd| {
                let mut con = con.clone();
                async move { cmd.query_async::<redis::Value>(&mut con).await }
            }))
            .await;
            for reply in replies {
                reply.context("a seed campaign command")?;
            }
            Ok(0)
        }
        (Op::Campaign { .. }, _) => bail!("{} runs on a sync connection", s.id()),
        (Op::Limits(k), _) => {
            let option = &ctx.campaign.options[input.option];
            let reply = ctx.limits[k]
                .vote_by(&input.voter(), &[(LIMITS_BOARD, option)])
                .run_async(con)
                .await;
            check_limited(reply, k, input, option)
        }
    }
}

/// Ops `inputs` of a pipelined scenario (`s.pipeline` > 1) on one sync
/// connection: their calls joined in one pipeline (one request, one round
/// trip), every reply decoded by its call and checked as a single op's.
pub(super) fn ops_pipelined(
    ctx: &Ctx,
    con: &mut redis::Connection,
    s: Scenario,
    inputs: &[Input],
) -> Result<u64> {
    fn send<T: redvote::reply::Reply>(
        con: &mut redis::Connection,
        calls: &[redvote::Call<T>],
    ) -> Result<Vec<T>> {
        let mut pipe = redis::pipe();
        for call in calls {
            call.add_to(&mut pipe);
        }
        let replies: Vec<redis::Value> = pipe.query(con)?;
        ensure!(
            replies.len() == calls.len(),
            "a pipeline of {} calls answered {} replies",
            calls.len(),
            replies.len()
        );
        calls
            .iter()
            .zip(replies)
            .map(|(call, reply)| Ok(call.decode(reply)?))
            .collect()
    }
    match (s.op, s.flow) {
        (Op::Vote, Flow::Redvote) => {
            let article = |i: &Input| &ctx.articles[if s.one_article { 0 } else { i.article }];
            let calls: Vec<_> = inputs
                .iter()
                .map(|i| ctx.site.vote(&i.user, &article(i).id))
                .collect();
            for (outcome, input) in send(con, &calls)?.iter().zip(inputs) {
                check_outcome(outcome, input, article(input))?;
            }
        }
        (Op::Campaign { vote_id }, Flow::Redvote) => {
            let calls: Vec<_> = inputs
                .iter()
                .map(|i| {
                    let option = &ctx.campaign.options[i.option];
                    ctx.campaign
                        .redvote
                        .vote_by(&i.campaign_voter(vote_id), &[(CAMPAIGN_BOARD, option)])
                })
                .collect();
            for (ballots, input) in send(con, &calls)?.iter().zip(inputs) {
                check_ballots(ballots, input, &ctx.campaign.options[input.option])?;
            }
        }
        _ => bail!("{} has no pipelined flow", s.id()),
    }
    Ok(0)
}

/// A fixed, well-spread hash (splitmix64): the bench's "random" picks (each
/// vote's article here, the scale section's calls).
pub(super) fn splitmix64(n: u64) -> u64 {
    let mut z = n.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub(super) fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}
