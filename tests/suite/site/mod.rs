//! Every `Site` operation against a real redis-server, a file per topic: the
//! keys each script writes (exactly the seeds' layout), the vote arithmetic,
//! the voting window, articles, pages, groups and group pages, rankings,
//! settings, prefixes, transport (NOSCRIPT recovery, async) and the error
//! model. Here: the small helpers those files share. The site's bad-input
//! catalogue is the top-level `bad_input` module.

mod article;
mod configure_args;
mod errors;
mod groups;
mod layout2;
mod page_retry;
mod post;
mod prefixes;
mod rankings;
mod settings;
mod settings_read;
mod stored;
mod transport;
mod vote;
mod vote_diff;

use redis::Connection;

/// A sorted set's members, highest score first.
fn zrevrange(con: &mut Connection, key: &str) -> Vec<String> {
    redis::cmd("ZREVRANGE")
        .arg(key)
        .arg(0)
        .arg(-1)
        .query(con)
        .unwrap()
}

/// The ids of a page's articles, in order.
fn ids(page: &redvote::Page) -> Vec<String> {
    page.articles.iter().map(|a| a.id.clone()).collect()
}

fn id_strings(ids: &[u64]) -> Vec<String> {
    ids.iter().map(u64::to_string).collect()
}
