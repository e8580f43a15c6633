//! The campaign list reads the campaign registry (`{c}:campaigns`, filled
//! by the configure route), not SCAN. With 300,000 other keys the SCAN
//! listing found nothing in the admin page's 50 steps of 500 keys; the
//! registry's first page holds the campaign.

use std::time::Instant;

use reqwest::Method;
use serde_json::Value;

use super::{Service, ADMIN};
use redvote_testing as support;

fn spring() -> Value {
    serde_json::from_str(include_str!("../../../../docs/spring2026.json")).unwrap()
}

/// The commands the server processed so far (INFO stats), this one not
/// included.
fn processed(con: &mut redis::Connection) -> u64 {
    info_field(con, "stats", "total_commands_processed:")
}

/// The SCANs the server ran so far (INFO commandstats).
fn scans(con: &mut redis::Connection) -> u64 {
    let line: String = redis::cmd("INFO").arg("commandstats").query(con).unwrap();
    line.lines()
        .find_map(|l| l.strip_prefix("cmdstat_scan:calls="))
        .and_then(|v| v.split(',').next()?.parse().ok())
        .unwrap_or(0)
}

fn info_field(con: &mut redis::Connection, section: &str, field: &str) -> u64 {
    let info: String = redis::cmd("INFO").arg(section).query(con).unwrap();
    info.lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in INFO {section}"))
}

/// The admin page's call: the first page, as many names as it asks.
fn first_page(svc: &Service, count: u32) -> Value {
    svc.request(
        Method::GET,
        &format!("/v1/campaigns?count={count}&cursor=0"),
        Some(ADMIN),
    )
    .send()
    .ok(200)
}

#[test]
fn a_configured_campaign_is_on_the_first_page_whatever_else_the_database_holds() {
    let server = support::server();
    let mut con = support::con(&server);
    // 300,000 keys that are no campaign's (key:0 .. key:299999)
    let _: () = redis::cmd("DEBUG")
        .arg("POPULATE")
        .arg(300_000)
        .query(&mut con)
        .unwrap();
    let svc = Service::start(&server);
    svc.admin(Method::PUT, "/v1/campaigns/spring2026/settings", spring())
        .ok(200);
    let (commands, scanned) = (processed(&mut con), scans(&mut con));
    let started = Instant::now();
    let page = first_page(&svc, 500);
    let took = started.elapsed();
    assert_eq!(page["campaigns"], serde_json::json!(["spring2026"]));
    assert_eq!(page["next"], "0", "one page lists everything");
    // one O(log N + count) read, not a walk of 300,000 keys: a few
    // commands (counted by the server, so whatever the machine's load;
    // the INFO below is one), none of them a SCAN
    let sent = processed(&mut con) - commands;
    eprintln!("the first page: {sent} commands, {took:?}");
    assert!(sent <= 20, "the first page sent {sent} commands");
    assert_eq!(scans(&mut con), scanned, "the first page scanned the keys");

    // a second campaign, and pages of one name: each listed once
    svc.admin(Method::PUT, "/v1/campaigns/autumn/settings", spring())
        .ok(200);
    let first = first_page(&svc, 1);
    assert_eq!(first["campaigns"], serde_json::json!(["spring2026"]));
    assert_eq!(first["next"], "1");
    let second = svc
        .request(Method::GET, "/v1/campaigns?count=1&cursor=1", Some(ADMIN))
        .send()
        .ok(200);
    assert_eq!(second["campaigns"], serde_json::json!(["autumn"]));
    assert_eq!(second["next"], "0");

    // configure again (idempotent registration): still listed once
    svc.admin(Method::PUT, "/v1/campaigns/spring2026/settings", spring())
        .ok(200);
    let page = first_page(&svc, 500);
    assert_eq!(
        page["campaigns"],
        serde_json::json!(["autumn", "spring2026"])
    );
    let registered: Vec<String> = redis::cmd("ZRANGE")
        .arg("{c}:campaigns")
        .arg(0)
        .arg(-1)
        .query(&mut con)
        .unwrap();
    assert_eq!(
        registered,
        ["spring2026", "autumn"],
        "in registration order"
    );
}

/// A configure that the script refuses registers nothing.
#[test]
fn a_refused_configure_registers_nothing() {
    let server = support::server();
    let svc = Service::start(&server);
    let mut bad = spring();
    bad["offset"] = "+99:00".into();
    svc.admin(Method::PUT, "/v1/campaigns/nope/settings", bad)
        .problem(422, "REDVOTE_INVALID_CONFIG");
    let page = first_page(&svc, 500);
    assert_eq!(page["campaigns"], serde_json::json!([]));
    assert_eq!(page["next"], "0");
}

/// A registry that cannot be written (a key of the wrong type): the
/// configure was applied, and the problem says so.
#[test]
fn a_failed_registration_says_the_settings_were_applied() {
    let server = support::server();
    let mut con = support::con(&server);
    let _: () = redis::cmd("SET")
        .arg("{c}:campaigns")
        .arg("not a zset")
        .query(&mut con)
        .unwrap();
    let svc = Service::start(&server);
    let detail = svc
        .admin(Method::PUT, "/v1/campaigns/spring2026/settings", spring())
        .problem(422, "REDVOTE_INVALID_CONFIG");
    assert!(
        detail.starts_with("the settings were applied, but the campaign is not yet listed"),
        "{detail}"
    );
    let exists: bool = redis::cmd("EXISTS")
        .arg("{c:spring2026}:campaign")
        .query(&mut con)
        .unwrap();
    assert!(exists, "the configure itself was applied");
}
