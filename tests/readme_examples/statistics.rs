use std::time::{SystemTime, UNIX_EPOCH};

use redvote::{Campaign, Granularity, VoidBy, Voter};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::var("REDVOTE_URL")?; // your server
    let mut con = redis::Client::open(url)?.get_connection()?;
    let csv = back_office(&mut con, &Campaign::new("spring2026"))?;
    print!("{csv}");
    Ok(())
}

/// Take back one vote by its id and every vote of `user:666` of the last
/// hour, then answer today's hours of `male-stars` as CSV.
pub fn back_office(con: &mut redis::Connection, spring: &Campaign) -> redvote::Result<String> {
    let voter = Voter::new("user:1").channel("app").device("mobile").id("req-7");
    spring.vote_by(&voter, &[("male-stars", "wjk")]).run(con)?;
    // while the id's record lives (the campaign's vote_id_ttl), once
    let voided = spring.void("req-7").run(con)?;
    assert!(!voided.already);
    assert!(spring.void("req-7").run(con)?.already);

    // a user's votes of the vote log (vote_log > 0), 100 entries a call
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
    let mut cursor = "0".to_string();
    loop {
        let step = spring
            .void_range(VoidBy::User, "user:666", now - 3600, now + 1, &cursor, 100)
            .run(con)?;
        if step.is_done() {
            break;
        }
        cursor = step.next;
    }

    let day = now - now % 86400;
    let stats = spring
        .stats("male-stars", Granularity::Hour, day, day + 86400)
        .run(con)?;
    Ok(stats.to_csv())
}
