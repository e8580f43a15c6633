//! `redvote_serve::campaigns::list_all_campaigns` on a cluster: the list
//! reads the campaign registry (`{c}:campaigns`, one key on one node), so
//! it finds every campaign wherever its slot is, in pages of `count`
//! names, whatever else the nodes hold. (It used to SCAN every primary in
//! turn: 122 pages of SCAN to list 8 campaigns among a day of vote-id
//! records.)

use std::collections::BTreeSet;

use redvote::client::key_slot;
use redvote::{Campaign, Client};
use redvote_serve::campaigns::list_all_campaigns;
use redvote_testing::cluster::shared;
use redvote_testing::readme::spring_settings;

/// Configure and register each of `names` (as the service's configure
/// route does); assert they spread over the 3 primaries.
async fn configured(con: &redvote::AsyncConnection, names: &[String]) {
    let cluster = shared();
    for name in names {
        let c = Campaign::new(name);
        con.run(&c.configure(&spring_settings())).await.unwrap();
        con.run(&c.register().unwrap()).await.unwrap();
    }
    let owners: BTreeSet<u16> = names
        .iter()
        .map(|n| {
            cluster
                .owner(key_slot(Campaign::new(n).root_key().as_bytes()))
                .port()
        })
        .collect();
    assert_eq!(owners.len(), 3, "the names spread over every primary");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_campaign_of_every_primary_is_listed() {
    let cluster = shared();
    let client = Client::open(&cluster.url()).unwrap();
    let con = client.connect_async().await.unwrap();
    let names: Vec<String> = (0..24).map(|i| format!("listed{i}")).collect();
    configured(&con, &names).await;

    let mut redis = con.redis().await.unwrap();
    let (mut listed, mut cursor, mut pages) = (BTreeSet::new(), "0".to_string(), 0);
    loop {
        let page = list_all_campaigns(&mut redis, &cursor, 5).await.unwrap();
        assert!(page.names.len() <= 5);
        listed.extend(page.names);
        pages += 1;
        assert!(pages < 10_000, "the listing does not end");
        if page.next == "0" {
            break;
        }
        assert!(
            page.next.bytes().all(|b| b.is_ascii_digit()),
            "{}",
            page.next
        );
        cursor = page.next;
    }
    for name in &names {
        assert!(listed.contains(name), "{name} not listed: {listed:?}");
    }
    // pages of 5 names: no empty steps
    assert_eq!(pages, listed.len().div_ceil(5), "{listed:?}");
    // a cursor of another form (the former NODE-CURSOR among them) is
    // refused, not sent
    assert!(list_all_campaigns(&mut redis, "x-1", 5).await.is_err());
    assert!(list_all_campaigns(&mut redis, "1-17", 5).await.is_err());
    assert!(list_all_campaigns(&mut redis, "", 5).await.is_err());
}

/// 8 campaigns spread over the 3 primaries, among thousands of other keys
/// on every node (a day of vote-id records is one key per vote), are all on
/// the first page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_campaigns_over_three_primaries_are_one_page() {
    let cluster = shared();
    let client = Client::open(&cluster.url()).unwrap();
    let con = client.connect_async().await.unwrap();
    // 5,000 keys on each primary, in a slot of its own (keys of other
    // slots would break the shared cluster), gone at the end
    let mut others = Vec::new();
    for node in cluster.masters() {
        let tag = (0..)
            .map(|i| format!("{{other{i}}}"))
            .find(|t| cluster.owner(key_slot(t.as_bytes())).port() == node.port())
            .unwrap();
        let keys: Vec<String> = (0..5000).map(|i| format!("{tag}:vid:{i}")).collect();
        let mut c = redvote_testing::cluster::con(node);
        let mut mset = redis::cmd("MSET");
        for k in &keys {
            mset.arg(k).arg("x");
        }
        let _: () = mset.query(&mut c).unwrap();
        others.push((c, keys));
    }
    let names: Vec<String> = (0..8).map(|i| format!("spread{i}")).collect();
    configured(&con, &names).await;

    let mut redis = con.redis().await.unwrap();
    let page = list_all_campaigns(&mut redis, "0", 1000).await.unwrap();
    assert_eq!(page.next, "0", "one page");
    for name in &names {
        assert!(
            page.names.contains(name),
            "{name} not listed: {:?}",
            page.names
        );
    }
    for (mut c, keys) in others {
        let _: () = redis::cmd("DEL").arg(&keys).query(&mut c).unwrap();
    }
}
