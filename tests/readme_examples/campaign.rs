use redvote::{
    BoardSettings, Campaign, CampaignSettings, Dimension, LimitRule, OptionSettings, Paging,
    Period, Rolling, Standing, View, Voter, Window,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::var("REDVOTE_URL")?; // your server's redis:// URL
    let mut con = redis::Client::open(url)?.get_connection()?;
    let spring = Campaign::new("spring2026");
    configure(&mut con, &spring)?;
    let wjk = vote_and_read(&mut con, &spring, 42)?;
    println!("wjk today: {:?} votes, rank {:?}", wjk.score, wjk.rank);
    Ok(())
}

/// Two boards of today and the whole campaign, one weighted option, and
/// two rate limits. Safe to run again: a configure sets, it never adds.
pub fn configure(con: &mut redis::Connection, spring: &Campaign) -> redvote::Result<()> {
    let male = BoardSettings::new(&[Period::Day, Period::Total])
        .with_option("wjk", OptionSettings::weighted(2))
        .with_options(&["yyqx"]);
    let female = BoardSettings::new(&[Period::Day, Period::Total]).with_options(&["zly"]);
    let settings = CampaignSettings::new()
        .with_offset("+08:00")
        .with_board("male-stars", male)
        .with_board("female-stars", female)
        .with_limit(LimitRule::fixed("user-day", &[Dimension::User], Window::Day, 10))
        .with_limit(LimitRule::rolling("smooth", &[Dimension::User], Rolling::new(5, 60)));
    spring.configure(&settings).run(con)?;
    Ok(())
}

/// Request `request` of user 1: one vote on both boards (its id makes a
/// resend count once), then today's top 10 and wjk's standing.
pub fn vote_and_read(
    con: &mut redis::Connection,
    spring: &Campaign,
    request: u32,
) -> redvote::Result<Standing> {
    let voter = Voter::new("user:1").id(format!("req-{request}"));
    let pairs = [("male-stars", "wjk"), ("female-stars", "zly")];
    for ballot in spring.vote_by(&voter, &pairs).run(con)? {
        println!("{}:{} now {:?}", ballot.board, ballot.option, ballot.shown);
    }
    let today = View::shown("day");
    for page in spring.top(&["male-stars"], &today, Paging::top(10)).run(con)? {
        println!("{}: {:?}", page.board, page.entries);
    }
    let mut standing = spring.standing("male-stars", &today, &["wjk"]).run(con)?;
    Ok(standing.remove(0))
}
