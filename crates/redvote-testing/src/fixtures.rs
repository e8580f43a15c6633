//! Data sets several crates' tests start from.

use redvote::{Campaign, ConfigUpdate, Order, Period, Site};

use crate::TempServer;

/// A server holding a small site: 3 articles (one too old to vote on),
/// votes both ways, groups, a cached group page and a setting.
pub fn populated_site() -> (TempServer, redis::Connection, Site) {
    let server = crate::server();
    let mut con = crate::con(&server);
    let site = Site::default();
    let now = crate::server_time(&mut con) as u64;
    site.post("user:1", "one", "https://example.com/1")
        .run(&mut con)
        .unwrap();
    site.post("user:2", "two", "https://example.com/2")
        .run(&mut con)
        .unwrap();
    site.import("user:3", "old", "https://example.com/3", now - 8 * 86400)
        .run(&mut con)
        .unwrap();
    site.vote("user:9", "1").run(&mut con).unwrap();
    site.downvote("user:8", "2").run(&mut con).unwrap();
    site.groups("1", &["redis"], &[]).run(&mut con).unwrap();
    site.group_page("redis", Order::Score, 1, None)
        .run(&mut con)
        .unwrap();
    site.configure(&ConfigUpdate {
        page_size: Some(20),
        ..Default::default()
    })
    .run(&mut con)
    .unwrap();
    (server, con, site)
}

/// The campaign "ids" of the vote id tests: board B (day and total) with
/// options x (weight 3) and y.
pub fn vote_ids_campaign(con: &mut redis::Connection) -> Campaign {
    crate::setup(
        con,
        "ids",
        crate::boards([(
            "B",
            crate::board(
                &[Period::Day, Period::Total],
                crate::options([("x", 3), ("y", 1)]),
            ),
        )]),
    )
}
