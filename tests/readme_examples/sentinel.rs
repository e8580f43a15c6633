use std::time::Duration;

use redvote::{Ballot, Campaign, Client, Retry, Voter};

fn main() -> redvote::Result<()> {
    let url = "redis+sentinel://10.0.0.1:26379,10.0.0.2:26379,10.0.0.3:26379/mymaster";
    println!("{:?}", vote_through_sentinels(url)?);
    Ok(())
}

/// One campaign vote on the master the sentinels name, acknowledged only
/// once a replica has it; retried (with its id) through a failover.
pub fn vote_through_sentinels(url: &str) -> redvote::Result<Vec<Ballot>> {
    let client = Client::open(url)?
        .retry(Retry {
            max_delay: Duration::from_millis(500),
            ..Retry::new(60, Duration::from_millis(100)) // ~30 s in all
        })
        .wait_for_replicas(1, Duration::from_secs(1));
    let mut con = client.connect()?;
    let spring = Campaign::new("spring2026");
    con.run(&spring.vote_by(&Voter::new("user:1").id("req-1"), &[("stars", "wjk")]))
}
