use std::path::Path;

use redvote::{Ballot, Campaign, Client, Tls, Voter};

fn main() -> redvote::Result<()> {
    let ballots = vote_over_tls("rediss://redis.internal:6380/", Path::new("/etc/redvote/tls"))?;
    println!("{ballots:?}");
    Ok(())
}

/// One campaign vote over TLS: the server must chain to `dir/ca.pem`; the
/// client shows `dir/client.pem` (a server with `tls-auth-clients yes` wants it).
pub fn vote_over_tls(url: &str, dir: &Path) -> redvote::Result<Vec<Ballot>> {
    let tls = Tls::from_files(
        Some(dir.join("ca.pem").as_path()),
        Some(dir.join("client.pem").as_path()), // both or neither
        Some(dir.join("client.key").as_path()),
    )?;
    let mut con = Client::open_tls(url, &tls)?.connect()?;
    let spring = Campaign::new("spring2026");
    con.run(&spring.vote_by(&Voter::new("user:1").id("req-1"), &[("stars", "wjk")]))
}
