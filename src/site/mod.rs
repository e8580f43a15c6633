//! [`Site`]: the article-voting site of "Redis in Action" chapter 1, one
//! atomic script call per operation (a page: a script call, then its
//! articles' hashes in one `MULTI`/`EXEC`, see [`PageCall`]).
//!
//! Keys are exactly the seeds' (`article:`, `article:ID`, `time:`, `score:`,
//! `voted:ID`, `group:NAME`, `score:NAME`, `time:NAME`) plus `downvoted:ID`,
//! `hot:`, `best:` and `redvote:config`, all under the site's prefix; on
//! site data layout 2 ([`Site::upgrade`]) also each group's boards
//! `gboard:<order>:NAME` and each article's groups `groups:ID`.
//! Sorted-set and group members are `article:ID` without the prefix, as in
//! the seeds. Every script gets one key, the root `<prefix>article:`, and
//! derives the others from its prefix: a hash-tagged prefix (`{site1}:`)
//! keeps every call in one Redis Cluster slot.

mod model;
mod page;
mod reply;

pub use model::{
    Article, Config, ConfigUpdate, GroupChange, Order, Page, Ranking, Reranked, SiteUpgraded, Vote,
    VoteOutcome,
};
pub use page::{PageCall, PageIds, PageOf};

use std::fmt::Display;

use crate::call::Call;

/// One voting site: a key prefix (empty by default, as in the seeds).
///
/// Methods build a [`Call`] (pages a [`PageCall`]); nothing is sent until
/// `run` / `run_async`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    prefix: String,
    root: String,
}

impl Site {
    /// A site under `prefix` (`""` for the seeds' layout, `"{site1}:"` for a
    /// site confined to one cluster slot).
    pub fn new(prefix: impl Into<String>) -> Self {
        let prefix = prefix.into();
        let root = format!("{prefix}article:");
        Site { prefix, root }
    }

    /// The key prefix.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The root key every script takes as `KEYS[1]`: `<prefix>article:`.
    pub fn root_key(&self) -> &str {
        &self.root
    }

    /// Post an article at the server's time; the poster's own upvote counts.
    /// Returns the new id.
    pub fn post(&self, user: &str, title: &str, link: &str) -> Call<u64> {
        Call::new("post", &self.root, strings([user, title, link])).idempotent(false)
    }

    /// Import/backfill path: post an article with an explicit publish time
    /// (Unix seconds), e.g. when migrating a site. Its voting window runs
    /// from that time.
    pub fn import(&self, user: &str, title: &str, link: &str, time: u64) -> Call<u64> {
        let mut args = strings([user, title, link]);
        args.push(time.to_string());
        Call::new("post", &self.root, args).idempotent(false)
    }

    /// Set `user`'s vote on `article` (the id [`Site::post`] returned, `7`,
    /// or `"7"` or `"article:7"`) to `vote`.
    pub fn set_vote(&self, user: &str, article: impl Display, vote: Vote) -> Call<VoteOutcome> {
        let args = vec![
            user.to_string(),
            article.to_string(),
            vote.as_str().to_string(),
        ];
        Call::new("vote", &self.root, args)
    }

    /// Upvote (the seeds' `article_vote`); a repeated upvote changes nothing.
    pub fn vote(&self, user: &str, article: impl Display) -> Call<VoteOutcome> {
        self.set_vote(user, article, Vote::Up)
    }

    /// Downvote (switches an upvote to a downvote in the same call).
    pub fn downvote(&self, user: &str, article: impl Display) -> Call<VoteOutcome> {
        self.set_vote(user, article, Vote::Down)
    }

    /// Retract the user's vote, up or down.
    pub fn unvote(&self, user: &str, article: impl Display) -> Call<VoteOutcome> {
        self.set_vote(user, article, Vote::None)
    }

    /// One article with its score and rank, and `user`'s vote when given.
    pub fn article(&self, article: impl Display, user: Option<&str>) -> Call<Article> {
        let mut args = vec![article.to_string()];
        args.extend(user.map(str::to_string));
        Call::new("article", &self.root, args)
    }

    /// Page `page` (1-based) in `order`, `per_page` articles (default: the
    /// site's `page_size`; at most 100), in two round trips: `page.lua`
    /// names the articles, one `MULTI`/`EXEC` reads their hashes (see
    /// [`PageCall`] for the cost and the consistency). Scores only
    /// [`PageCall::with_scores`].
    pub fn page(&self, order: Order, page: u32, per_page: Option<u32>) -> PageCall {
        let mut args = strings([order.as_str()]);
        args.push(page.to_string());
        args.extend(per_page.map(|n| n.to_string()));
        let of = PageOf {
            order,
            group: None,
            page,
        };
        PageCall::new(Call::new("page", &self.root, args), of, &self.prefix)
    }

    /// Page `page` of group `group` in `order`, as [`Site::page`]
    /// (`group_page.lua` first): on site layout 1 through the seeds'
    /// 60-second cache `<prefix><order>:<group>`, on layout 2 from the
    /// group's board `<prefix>gboard:<order>:<group>`, kept up to date by
    /// the writers (O(log N + page)).
    pub fn group_page(
        &self,
        group: &str,
        order: Order,
        page: u32,
        per_page: Option<u32>,
    ) -> PageCall {
        let mut args = strings([group, order.as_str()]);
        args.push(page.to_string());
        args.extend(per_page.map(|n| n.to_string()));
        let of = PageOf {
            order,
            group: Some(group.to_string()),
            page,
        };
        PageCall::new(Call::new("group_page", &self.root, args), of, &self.prefix)
    }

    /// Add `article` to the groups in `add` and remove it from those in
    /// `remove`, atomically.
    pub fn groups(
        &self,
        article: impl Display,
        add: &[&str],
        remove: &[&str],
    ) -> Call<GroupChange> {
        let mut args = vec![article.to_string()];
        args.extend(add.iter().map(|g| format!("+{g}")));
        args.extend(remove.iter().map(|g| format!("-{g}")));
        Call::new("groups", &self.root, args)
    }

    /// Write the `hot:`/`best:` entries of up to `count` articles (1..=1000)
    /// from position `start` of `time:` (oldest first): for a site that
    /// switched those rankings on after articles were posted. Call again
    /// with [`Reranked::next`] until it is 0.
    pub fn rerank(&self, start: u64, count: u32) -> Call<Reranked> {
        let args = vec![start.to_string(), count.to_string()];
        Call::new("rerank", &self.root, args)
    }

    /// One step of the move from site data layout 1 to 2 (`upgrade.lua`,
    /// docs/versions.md): start with cursor `"0"` and call again with
    /// [`SiteUpgraded::next`] until [`SiteUpgraded::is_done`]; each call
    /// visits about `count` (1..=5000) keys or group members (about 25 µs
    /// a member: 100 keeps a call near 3 ms, docs/versions.md). Votes and
    /// group changes may go on meanwhile. Idempotent: a site at layout 2
    /// answers done and nothing is written.
    pub fn upgrade(&self, cursor: &str, count: u32) -> Call<SiteUpgraded> {
        Call::new(
            "upgrade",
            &self.root,
            vec![cursor.to_string(), count.to_string()],
        )
    }

    /// The site's settings (defaults for those never set). Read-only
    /// (`config.lua`, flagged no-writes): it runs on a replica, and
    /// [`crate::Client::wait_for_replicas`] does not wait after it.
    pub fn config(&self) -> Call<Config> {
        Call::new("config", &self.root, Vec::new())
    }

    /// Change the site's settings; returns them all (`configure.lua`, a
    /// writer: read them with [`Site::config`]).
    pub fn configure(&self, update: &ConfigUpdate) -> Call<Config> {
        Call::new("configure", &self.root, update.to_args())
    }
}

/// The seeds' layout: no prefix.
impl Default for Site {
    fn default() -> Self {
        Site::new("")
    }
}

fn strings<const N: usize>(items: [&str; N]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}
