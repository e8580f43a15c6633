//! docs/campaigns.md's Rust example, as the chapter shows it, run on a
//! fresh server: it configures before it votes, and reads only periods
//! its boards keep.

use redvote::{Campaign, CampaignSettings, View};

use crate::support;

mod example {
    #![allow(dead_code)]
    include!("../../readme_examples/campaign.rs");
}

#[test]
fn the_campaign_chapter_example_runs_on_a_fresh_server() {
    support::readme::assert_shows_example("campaign.rs");
    let server = support::server();
    let mut con = support::con(&server);
    let spring = Campaign::new("spring2026");
    example::configure(&mut con, &spring).unwrap();
    let wjk = example::vote_and_read(&mut con, &spring, 1).unwrap();
    // weight 2: one vote shows 2 today, and wjk leads its board
    assert_eq!((wjk.score.as_deref(), wjk.rank), (Some("2.00"), Some(1)));
    // the same request again counts once; a new one counts
    let again = example::vote_and_read(&mut con, &spring, 1).unwrap();
    assert_eq!(again.score.as_deref(), Some("2.00"));
    let next = example::vote_and_read(&mut con, &spring, 2).unwrap();
    assert_eq!(next.score.as_deref(), Some("4.00"));
    // configure again changes nothing it set; the rules are both there
    example::configure(&mut con, &spring).unwrap();
    let stored: CampaignSettings = spring.settings().run(&mut con).unwrap();
    let rules: Vec<&str> = stored
        .limits
        .iter()
        .flatten()
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(rules, ["user-day", "smooth"]);
    let top = spring
        .top(
            &["female-stars"],
            &View::shown("total"),
            redvote::Paging::top(3),
        )
        .run(&mut con)
        .unwrap();
    assert_eq!(top[0].entries[0].member, "zly");
}
