//! `redvote demo`: the site's whole flow, then a short campaign (configure,
//! weighted votes with carry-over, a top and a standing), in one command.
//! Without `--url` it
//! runs on a throwaway `redis-server` (free loopback port, persistence off)
//! that it stops on exit; with `--url` it writes to that server, under
//! `--prefix`.

use anyhow::{Context, Result};
use redvote::{
    BoardSettings, Campaign, CampaignSettings, OptionSettings, Order, Paging, Period, Site, View,
};
use redvote_testing::TempServer;

use crate::{connect, out, print_page, redact, Global};

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
    let say = |line: String| -> Result<()> {
        if !g.json {
            out(&line)?;
        }
        Ok(())
    };
    if server.is_some() {
        say(format!(
            "started a throwaway redis-server at {}",
            redact(&url)
        ))?;
    }
    let mut client = connect(&url, g)?;
    let con = client.redis()?;
    let site = Site::new(g.prefix.clone());

    let mut ids = Vec::new();
    for (user, title, link) in ARTICLES {
        let id = site.post(user, title, link).run(con)?;
        say(format!("{user} posted article:{id} \"{title}\""))?;
        ids.push(id.to_string());
    }
    // Article i gets i extra upvotes, so the ranking is easy to read.
    for (i, id) in ids.iter().enumerate() {
        for voter in 0..i * 3 {
            site.vote(&format!("user:{}", 100 + voter), id).run(con)?;
        }
    }
    say("cast 30 upvotes: article:5 gets 12, article:4 9, article:3 6, article:2 3".to_string())?;
    let again = site.vote("user:100", &ids[4]).run(con)?;
    say(format!(
        "user:100 upvotes article:{} again: changed = {} (one vote per user)",
        ids[4], again.changed
    ))?;
    let down = site.downvote("user:100", &ids[4]).run(con)?;
    say(format!(
        "user:100 switches to a downvote on article:{}: votes {}, downvotes {}, score {}",
        ids[4],
        down.votes,
        down.downvotes,
        down.score.unwrap_or_default()
    ))?;
    site.groups(&ids[1], &["lua", "redis"], &[]).run(con)?;
    site.groups(&ids[2], &["redis"], &[]).run(con)?;
    say(format!(
        "article:{} joined groups lua and redis, article:{} joined redis",
        ids[1], ids[2]
    ))?;

    say("\nfront page:".to_string())?;
    let front = site.page(Order::Score, 1, None).with_scores();
    print_page(g, &client.page(&front)?)?;
    if !g.json {
        out("\ngroup redis:")?;
        print_page(
            g,
            &client.page(&site.group_page("redis", Order::Score, 1, None))?,
        )?;
    }
    campaign(client.redis()?, g, &say)
}

/// A campaign with one board: "stars", kept per day and in total, where a
/// vote for "nova" counts 3 on the shown boards and half of each shown vote
/// carries over to the next day.
fn campaign(
    con: &mut dyn redis::ConnectionLike,
    g: &Global,
    say: &dyn Fn(String) -> Result<()>,
) -> Result<()> {
    let campaign = Campaign::with_namespace(format!("{}{{c:demo}}:", g.prefix));
    let board = BoardSettings::new(&[Period::Day, Period::Total])
        .with_carry("0.5")
        .with_options(&["orion", "vega"])
        .with_option(
            "nova",
            OptionSettings::weighted(3).with_data(&[("name", "Nova")]),
        );
    let settings = CampaignSettings::new()
        .with_offset("+08:00")
        .with_board("stars", board);
    campaign.configure(&settings).run(con)?;
    say("\ncampaign demo: board stars (day and total, carry 0.5), nova weighs 3".to_string())?;
    let votes = [
        ("user:1", "orion"),
        ("user:2", "orion"),
        ("user:3", "vega"),
        ("user:4", "orion"),
        ("user:5", "nova"),
    ];
    for (user, option) in votes {
        campaign.vote(user, &[("stars", option)]).run(con)?;
    }
    say("5 votes: orion 3, vega 1, nova 1 (shown 3)".to_string())?;
    for kind in [View::real("total"), View::shown("total")] {
        let top = campaign.top(&["stars"], &kind, Paging::top(3)).run(con)?;
        let line: Vec<String> = top[0]
            .entries
            .iter()
            .map(|e| format!("{}. {} {}", e.rank, e.member, e.score))
            .collect();
        say(format!("top ({} total): {}", kind.kind, line.join(", ")))?;
    }
    let standing = campaign
        .standing("stars", &View::shown("day"), &["vega"])
        .run(con)?;
    let vega = &standing[0];
    say(format!(
        "vega today: rank {}, score {}, {} ahead by {}",
        vega.rank.unwrap_or_default(),
        vega.score.clone().unwrap_or_default(),
        vega.ahead.clone().unwrap_or_default(),
        vega.gap.clone().unwrap_or_default()
    ))?;
    Ok(())
}
