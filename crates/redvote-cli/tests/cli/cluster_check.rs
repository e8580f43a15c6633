//! `redvote check` and `redvote campaign NAME check` through a
//! `redis+cluster://` URL: they read with SCAN, which sees one node, so the
//! CLI runs them on the primary that owns the campaign's (or the tagged
//! site's) slot (`Client::for_key`). A site prefix without a hash tag is
//! refused with a message saying why.

use redvote::client::key_slot;
use redvote::{Campaign, Client, Site};

use crate::support::cluster::{con, shared};
use crate::support::readme::{spring_settings, stars_top, wjk};
use crate::support::redvote;

/// stdout and stderr of a CLI run, for messages.
fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn check_through_a_cluster_url_runs_on_the_owner_of_the_slot() {
    let cluster = shared();
    let url = cluster.url();
    let client = Client::open(&url).unwrap();
    let mut admin = client.connect().unwrap();

    // the library: for_key names the slot's primary, primaries all three
    let c = Campaign::new("checked");
    let owner = cluster.owner(key_slot(c.root_key().as_bytes()));
    let node = client.for_key(c.root_key()).unwrap();
    assert!(!node.is_cluster());
    assert_eq!(node.url(), format!("redis://127.0.0.1:{}", owner.port()));
    let primaries: Vec<String> = client
        .primaries()
        .unwrap()
        .iter()
        .map(|p| p.url().to_string())
        .collect();
    assert_eq!(primaries.len(), 3, "{primaries:?}");
    for master in cluster.masters() {
        assert!(primaries.contains(&format!("redis://127.0.0.1:{}", master.port())));
    }

    // a campaign: clean, with its keys seen; then a planted violation
    admin.run(&c.configure(&spring_settings())).unwrap();
    for user in ["u1", "u2"] {
        admin.run(&c.vote(user, &[("stars", "wjk")])).unwrap();
    }
    assert_eq!(wjk(&admin.run(&stars_top(&c)).unwrap()), "2");
    let out = redvote(Some(&url), &["campaign", "checked", "check"]);
    assert!(out.status.success(), "{}", text(&out));
    let scanned: u64 = text(&out)
        .split(" keys scanned")
        .next()
        .and_then(|s| s.rsplit('(').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no key count: {}", text(&out)));
    assert!(scanned > 3, "check saw the campaign's keys: {}", text(&out));
    let _: () = redis::cmd("ZADD")
        .arg(format!("{}b:stars:real:total", c.namespace()))
        .arg("inf")
        .arg("wjk")
        .query(&mut con(owner))
        .unwrap();
    let out = redvote(Some(&url), &["campaign", "checked", "check"]);
    assert!(!out.status.success(), "the planted inf: {}", text(&out));
    assert!(text(&out).contains("real:total"), "{}", text(&out));

    // a site with a tagged prefix, and one without
    let site = Site::new("{s:checked}:");
    let id = admin.run(&site.post("u1", "t", "https://x")).unwrap();
    admin.run(&site.vote("u2", id.to_string())).unwrap();
    let out = redvote(Some(&url), &["--prefix", "{s:checked}:", "check"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("checked 1 articles"), "{}", text(&out));
    let out = redvote(Some(&url), &["--prefix", "plain:", "check"]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("has no hash tag"),
        "the refusal says why: {}",
        text(&out)
    );
}
