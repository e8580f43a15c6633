use redvote::{Ballot, Campaign, Client, Voter};

#[tokio::main]
async fn main() -> redvote::Result<()> {
    let url = "redis+cluster://n1:7000,n2:7001";
    println!("{:?}", vote_on_a_cluster(url).await?);
    Ok(())
}

/// Campaign votes on a cluster through one async connection: each goes to
/// the primary of its campaign's slot (`{c:NAME}:` is one hash tag).
pub async fn vote_on_a_cluster(url: &str) -> redvote::Result<Vec<Ballot>> {
    let con = Client::open(url)?.connect_async().await?; // clones share it
    let spring = Campaign::new("spring2026");
    let autumn = Campaign::new("autumn2026"); // most likely another slot, another master
    let voter = Voter::new("user:1").id("req-1");
    let mut ballots = con.run(&spring.vote_by(&voter, &[("stars", "wjk")])).await?;
    ballots.extend(con.run(&autumn.vote_by(&voter, &[("stars", "wjk")])).await?);
    Ok(ballots)
}
