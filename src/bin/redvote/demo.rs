//! `redvote demo`: the site's whole flow in one command. Without `--url` it
//! runs on a throwaway `redis-server` (free loopback port, persistence off)
//! that it stops on exit; with `--url` it writes to that server, under
//! `--prefix`.

use anyhow::{Context, Result};
use redvote::testing::TempServer;
use redvote::{Order, Site};

use crate::{connect, print_page, Global};

/// (poster, title, link) of the demo's articles.
const ARTICLES: [(&str, &str, &str); 5] = [
    (
        "user:1",
        "Redis in Action, chapter 1",
        "https://example.com/ria-1",
    ),
    (
        "user:2",
        "Atomic votes with Lua",
        "https://example.com/lua-votes",
    ),
    (
        "user:3",
        "Ranking by time and votes",
        "https://example.com/ranking",
    ),
    (
        "user:4",
        "Wilson score, explained",
        "https://example.com/wilson",
    ),
    (
        "user:5",
        "Why round trips add up",
        "https://example.com/round-trips",
    ),
];

/// Run the demo.
pub fn run(g: &Global) -> Result<()> {
    let server = match &g.url {
        None => Some(TempServer::start().context("cannot start a throwaway redis-server")?),
        Some(_) => None,
    };
    let url = match &server {
        Some(s) => s.url(),
        None => g.url.clone().unwrap_or_default(),
    };
    let say = |line: String| {
        if !g.json {
            println!("{line}");
        }
    };
    if server.is_some() {
        say(format!("started a throwaway redis-server at {url}"));
    }
    let mut con = connect(&url)?;
    let site = Site::new(g.prefix.clone());

    let mut ids = Vec::new();
    for (user, title, link) in ARTICLES {
        let id = site.post(user, title, link).run(&mut con)?;
        say(format!("{user} posted article:{id} \"{title}\""));
        ids.push(id.to_string());
    }
    // Article i gets i extra upvotes, so the ranking is easy to read.
    for (i, id) in ids.iter().enumerate() {
        for voter in 0..i * 3 {
            site.vote(&format!("user:{}", 100 + voter), id)
                .run(&mut con)?;
        }
    }
    say("cast 30 upvotes: article:5 gets 12, article:4 9, article:3 6, article:2 3".to_string());
    let again = site.vote("user:100", &ids[4]).run(&mut con)?;
    say(format!(
        "user:100 upvotes article:{} again: changed = {} (one vote per user)",
        ids[4], again.changed
    ));
    let down = site.downvote("user:100", &ids[4]).run(&mut con)?;
    say(format!(
        "user:100 switches to a downvote on article:{}: votes {}, downvotes {}, score {}",
        ids[4],
        down.votes,
        down.downvotes,
        down.score.unwrap_or_default()
    ));
    site.groups(&ids[1], &["lua", "redis"], &[]).run(&mut con)?;
    site.groups(&ids[2], &["redis"], &[]).run(&mut con)?;
    say(format!(
        "article:{} joined groups lua and redis, article:{} joined redis",
        ids[1], ids[2]
    ));

    say("\nfront page:".to_string());
    print_page(g, &site.page(Order::Score, 1, None).run(&mut con)?)?;
    if !g.json {
        println!("\ngroup redis:");
        print_page(
            g,
            &site
                .group_page("redis", Order::Score, 1, None)
                .run(&mut con)?,
        )?;
    }
    Ok(())
}
