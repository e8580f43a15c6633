//! A check while the campaign's (or the site's) slot migrates between
//! cluster nodes: the node the check runs on holds only part of the keys,
//! so the check must fail with an error that says so (never a partial
//! check reported as clean, never a raw redirection error); once the
//! migration is over, the new owner's check is clean.

use redis::Value;
use redvote::{Campaign, Period, Site};
use redvote_check::{check_campaign, check_site, Report};
use redvote_testing::cluster::{con, node_id, setslot, Cluster};
use redvote_testing::{board, boards, options, TempServer};

/// Up to `n` keys of `slot` on `node`.
fn keys_in_slot(node: &TempServer, slot: u16, n: usize) -> Vec<String> {
    redis::cmd("CLUSTER")
        .arg("GETKEYSINSLOT")
        .arg(slot)
        .arg(n)
        .query(&mut con(node))
        .unwrap()
}

/// MIGRATE `keys` from `from` to `to` (one command, the 6.x KEYS form).
fn migrate(from: &TempServer, to: &TempServer, keys: &[String]) {
    let _: Value = redis::cmd("MIGRATE")
        .arg("127.0.0.1")
        .arg(to.port())
        .arg("")
        .arg(0)
        .arg(5000)
        .arg("KEYS")
        .arg(keys)
        .query(&mut con(from))
        .unwrap();
}

/// The error a check must give while its slot migrates: it says so, and to
/// retry.
fn assert_migrating(what: &str, result: redis::RedisResult<Report>) {
    match result {
        Ok(report) => panic!("{what}: a check during a migration answered a report:\n{report}"),
        Err(e) => {
            let text = e.to_string();
            assert!(
                text.contains("slot") && text.contains("migrat") && text.contains("retry"),
                "{what}: {text}"
            );
            assert!(!text.contains("Ask"), "{what}: {text}");
        }
    }
}

#[test]
fn a_check_during_a_slot_migration_fails_clearly_and_is_clean_after_it() {
    let cluster = Cluster::start(3, 0);
    let campaign = Campaign::new("mig");
    let site = Site::new("{c:mig}:");
    let slot = redvote::client::key_slot(campaign.root_key().as_bytes());
    assert_eq!(slot, redvote::client::key_slot(site.root_key().as_bytes()));
    let source = cluster.owner(slot);
    let target = cluster
        .masters()
        .into_iter()
        .find(|n| n.port() != source.port())
        .unwrap();

    // data written on the slot's owner, where the scripts run as on any node
    let mut src = con(source);
    let b = board(&[Period::Total, Period::Day], options([("x", 1), ("y", 2)]));
    let c = redvote_testing::setup(&mut src, "mig", boards([("B", b)]));
    for i in 0..20 {
        let option = if i % 2 == 0 { "x" } else { "y" };
        c.vote(&format!("user:{i}"), &[("B", option)])
            .run(&mut src)
            .unwrap();
    }
    for i in 0..20 {
        site.post(&format!("user:{i}"), "t", "https://example.com")
            .run(&mut src)
            .unwrap();
        site.vote("voter", (i + 1).to_string())
            .run(&mut src)
            .unwrap();
    }
    let report = check_campaign(&mut src, &campaign).unwrap();
    assert!(report.is_clean(), "{report}");
    let report = check_site(&mut src, &site).unwrap();
    assert!(report.is_clean(), "{report}");

    // the slot set migrating, nothing moved yet
    let (source_id, target_id) = (node_id(source), node_id(target));
    setslot(target, slot, "IMPORTING", &source_id);
    setslot(source, slot, "MIGRATING", &target_id);
    assert_migrating("nothing moved", check_campaign(&mut src, &campaign));
    assert_migrating("nothing moved (site)", check_site(&mut src, &site));

    // half the keys moved: on the source, SCAN misses them and reads of
    // them are redirected
    let keys = keys_in_slot(source, slot, 1000);
    assert!(keys.len() > 20, "{keys:?}");
    migrate(source, target, &keys[..keys.len() / 2]);
    assert_migrating("half moved", check_campaign(&mut src, &campaign));
    assert_migrating("half moved (site)", check_site(&mut src, &site));
    // the importing node answers no check either
    let mut dst = con(target);
    assert_migrating("on the target", check_campaign(&mut dst, &campaign));

    // the rest moved, the slot given to the target: a check on the old
    // owner fails (the slot is not there), on the new one it is clean
    let rest = keys_in_slot(source, slot, 1000);
    migrate(source, target, &rest);
    setslot(target, slot, "NODE", &target_id);
    setslot(source, slot, "NODE", &target_id);
    for node in cluster.masters() {
        if node.port() != source.port() && node.port() != target.port() {
            setslot(node, slot, "NODE", &target_id);
        }
    }
    assert_migrating(
        "after the move, on the old owner",
        check_campaign(&mut src, &campaign),
    );
    let report = check_campaign(&mut dst, &campaign).unwrap();
    assert!(report.is_clean(), "{report}");
    assert!(report.checked["board_entries"] >= 4, "{report}");
    let report = check_site(&mut dst, &site).unwrap();
    assert!(report.is_clean(), "{report}");
    assert_eq!(report.checked["articles"], 20, "{report}");
}
