//! [`Site`]: the article-voting site of "Redis in Action" chapter 1, one
//! atomic script call per operation.
//!
//! Keys are exactly the seeds' (`article:`, `article:ID`, `time:`, `score:`,
//! `voted:ID`, `group:NAME`, `score:NAME`, `time:NAME`) plus `downvoted:ID`,
//! `hot:`, `best:` and `redvote:config`, all under the site's prefix.
//! Sorted-set and group members are `article:ID` without the prefix, as in
//! the seeds. Every script gets one key, the root `<prefix>article:`, and
//! derives the others from its prefix: a hash-tagged prefix (`{site1}:`)
//! keeps every call in one Redis Cluster slot.

use crate::call::Call;
use crate::model::{
    read_article, read_config, read_groups, read_id, read_page, read_reranked, read_vote, Article,
    Config, ConfigUpdate, GroupChange, Order, Page, Reranked, Vote, VoteOutcome,
};
use crate::scripts::builtin;

/// One voting site: a key prefix (empty by default, as in the seeds).
///
/// Methods build a [`Call`]; nothing is sent until `run` / `run_async`.
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

    fn call<T>(
        &self,
        op: &str,
        args: Vec<String>,
        read: impl Fn(redis::Value) -> crate::model::Shape<T> + Send + Sync + 'static,
    ) -> Call<T> {
        Call::new(builtin(op), &self.root, args, read)
    }

    /// Post an article at the server's time; the poster's own upvote counts.
    /// Returns the new id.
    pub fn post(&self, user: &str, title: &str, link: &str) -> Call<u64> {
        self.call("post", strings([user, title, link]), read_id)
    }

    /// Import/backfill path: post an article with an explicit publish time
    /// (Unix seconds), e.g. when migrating a site. Its voting window runs
    /// from that time.
    pub fn import(&self, user: &str, title: &str, link: &str, time: u64) -> Call<u64> {
        let mut args = strings([user, title, link]);
        args.push(time.to_string());
        self.call("post", args, read_id)
    }

    /// Set `user`'s vote on `article` (`"7"` or `"article:7"`) to `vote`.
    pub fn set_vote(&self, user: &str, article: &str, vote: Vote) -> Call<VoteOutcome> {
        self.call("vote", strings([user, article, vote.as_str()]), read_vote)
    }

    /// Upvote (the seeds' `article_vote`); a repeated upvote changes nothing.
    pub fn vote(&self, user: &str, article: &str) -> Call<VoteOutcome> {
        self.set_vote(user, article, Vote::Up)
    }

    /// Downvote (switches an upvote to a downvote in the same call).
    pub fn downvote(&self, user: &str, article: &str) -> Call<VoteOutcome> {
        self.set_vote(user, article, Vote::Down)
    }

    /// Retract the user's vote, up or down.
    pub fn unvote(&self, user: &str, article: &str) -> Call<VoteOutcome> {
        self.set_vote(user, article, Vote::None)
    }

    /// One article with its score and rank, and `user`'s vote when given.
    pub fn article(&self, article: &str, user: Option<&str>) -> Call<Article> {
        let mut args = vec![article.to_string()];
        args.extend(user.map(str::to_string));
        self.call("article", args, read_article)
    }

    /// Page `page` (1-based) in `order`, `per_page` articles (default: the
    /// site's `page_size`; at most 100).
    pub fn page(&self, order: Order, page: u32, per_page: Option<u32>) -> Call<Page> {
        let mut args = strings([order.as_str()]);
        args.push(page.to_string());
        args.extend(per_page.map(|n| n.to_string()));
        self.call("page", args, move |v| read_page(v, order, None, page))
    }

    /// Page `page` of group `group` in `order`, through the seeds' 60-second
    /// cache `<prefix><order>:<group>`.
    pub fn group_page(
        &self,
        group: &str,
        order: Order,
        page: u32,
        per_page: Option<u32>,
    ) -> Call<Page> {
        let mut args = strings([group, order.as_str()]);
        args.push(page.to_string());
        args.extend(per_page.map(|n| n.to_string()));
        let name = group.to_string();
        self.call("group_page", args, move |v| {
            read_page(v, order, Some(name.clone()), page)
        })
    }

    /// Add `article` to the groups in `add` and remove it from those in
    /// `remove`, atomically.
    pub fn groups(&self, article: &str, add: &[&str], remove: &[&str]) -> Call<GroupChange> {
        let mut args = vec![article.to_string()];
        args.extend(add.iter().map(|g| format!("+{g}")));
        args.extend(remove.iter().map(|g| format!("-{g}")));
        self.call("groups", args, read_groups)
    }

    /// Write the `hot:`/`best:` entries of up to `count` articles (1..=1000)
    /// from position `start` of `time:` (oldest first): for a site that
    /// switched those rankings on after articles were posted. Call again
    /// with [`Reranked::next`] until it is 0.
    pub fn rerank(&self, start: u64, count: u32) -> Call<Reranked> {
        self.call(
            "rerank",
            vec![start.to_string(), count.to_string()],
            read_reranked,
        )
    }

    /// The site's settings (defaults for those never set).
    pub fn config(&self) -> Call<Config> {
        self.call("configure", Vec::new(), read_config)
    }

    /// Change the site's settings; returns them all.
    pub fn configure(&self, update: &ConfigUpdate) -> Call<Config> {
        self.call("configure", update.to_args(), read_config)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Ranking;

    /// `(index, name, optional)` of every `ARGV[i]` line in a script header;
    /// `usize::MAX` marks a variadic `ARGV[i..]`.
    fn documented_argv(source: &str) -> (usize, Vec<(usize, String, bool)>) {
        let header = &source[..source.find("]]").expect("header")];
        let keys = header.matches("KEYS[").count();
        let mut argv = Vec::new();
        for line in header.lines().map(str::trim) {
            let Some(rest) = line.strip_prefix("ARGV[") else {
                continue;
            };
            let (index, rest) = rest.split_once(']').unwrap();
            let words: Vec<&str> = rest.split_whitespace().collect();
            let index = match index.strip_suffix("..") {
                Some(i) => {
                    argv.push((i.parse().unwrap(), "...".to_string(), true));
                    usize::MAX
                }
                None => index.parse().unwrap(),
            };
            if index != usize::MAX {
                let optional = words.get(1) == Some(&"optional") || rest.contains("optional");
                argv.push((index, words[0].to_string(), optional));
            }
        }
        (keys, argv)
    }

    fn check<T>(call: Call<T>, names: &[&str]) {
        let script = call.script();
        let (keys, argv) = documented_argv(script.source());
        assert_eq!(
            keys,
            1,
            "{}: the header documents one key, KEYS[1]",
            script.name()
        );
        assert!(!call.key().is_empty());
        let variadic = argv.iter().any(|(_, n, _)| n == "...");
        let fixed: Vec<&(usize, String, bool)> =
            argv.iter().filter(|(_, n, _)| n != "...").collect();
        for (i, (index, name, _)) in fixed.iter().enumerate() {
            assert_eq!(*index, i + 1, "{}: ARGV numbering", script.name());
            if let Some(expected) = names.get(i) {
                assert_eq!(name, expected, "{}: ARGV[{index}]", script.name());
            }
        }
        let required = fixed.iter().filter(|(_, _, optional)| !optional).count();
        assert!(
            call.args().len() >= required,
            "{}: {} args < {required} required",
            script.name(),
            call.args().len()
        );
        assert!(
            variadic || call.args().len() <= fixed.len(),
            "{}: {} args > {} documented",
            script.name(),
            call.args().len(),
            fixed.len()
        );
    }

    /// Every call the driver builds matches its script's documented header.
    #[test]
    fn calls_match_the_script_headers() {
        let site = Site::new("{t}:");
        check(site.post("u", "t", "l"), &["user", "title", "link"]);
        check(
            site.import("u", "t", "l", 1),
            &["user", "title", "link", "time"],
        );
        check(site.vote("u", "1"), &["user", "article", "vote"]);
        check(site.unvote("u", "1"), &["user", "article", "vote"]);
        check(site.article("1", None), &["article", "user"]);
        check(site.article("1", Some("u")), &["article", "user"]);
        check(
            site.page(Order::Score, 1, None),
            &["order", "page", "per_page"],
        );
        check(
            site.page(Order::Time, 1, Some(5)),
            &["order", "page", "per_page"],
        );
        check(
            site.group_page("g", Order::Hot, 2, Some(5)),
            &["group", "order", "page", "per_page"],
        );
        check(site.groups("1", &["a", "b"], &["c"]), &["article"]);
        check(site.config(), &[]);
        let update = ConfigUpdate {
            vote_score: Some(1),
            window: Some(60),
            page_size: Some(1),
            rankings: Some(vec![Ranking::Hot]),
        };
        check(site.configure(&update), &[]);
        assert_eq!(site.root_key(), "{t}:article:");
    }

    #[test]
    fn calls_display_as_evalsha_command_lines() {
        let call = Site::default().vote("user:1", "7");
        let sha = crate::scripts::get("vote").unwrap().sha1();
        assert_eq!(
            call.to_string(),
            format!("EVALSHA {sha} 1 \"article:\" \"user:1\" \"7\" \"up\"")
        );
    }
}
