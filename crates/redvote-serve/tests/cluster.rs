//! `redvote_serve::campaigns::list_all_campaigns` on a cluster: SCAN sees one
//! node, so the listing walks every primary in turn (`NODE-CURSOR`) and
//! finds every campaign, wherever its slot is.

use std::collections::BTreeSet;

use redvote::client::key_slot;
use redvote::{Campaign, Client};
use redvote_serve::campaigns::list_all_campaigns;
use redvote_testing::cluster::shared;
use redvote_testing::readme::spring_settings;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_campaign_of_every_primary_is_listed() {
    let cluster = shared();
    let client = Client::open(&cluster.url()).unwrap();
    let con = client.connect_async().await.unwrap();
    let names: Vec<String> = (0..24).map(|i| format!("listed{i}")).collect();
    for name in &names {
        con.run(&Campaign::new(name).configure(&spring_settings()))
            .await
            .unwrap();
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

    let mut redis = con.redis().await.unwrap();
    let (mut listed, mut cursor, mut pages, mut nodes) =
        (BTreeSet::new(), "0".to_string(), 0, BTreeSet::new());
    loop {
        let page = list_all_campaigns(&mut redis, &cursor, 5).await.unwrap();
        listed.extend(page.names);
        pages += 1;
        assert!(pages < 10_000, "the listing does not end");
        if page.next == "0" {
            break;
        }
        let (node, _) = page.next.split_once('-').expect("NODE-CURSOR on a cluster");
        nodes.insert(node.to_string());
        cursor = page.next;
    }
    for name in &names {
        assert!(listed.contains(name), "{name} not listed: {listed:?}");
    }
    assert_eq!(nodes.len(), 3, "every primary scanned: {nodes:?}");
    // a cursor of another form is refused, not sent
    assert!(list_all_campaigns(&mut redis, "x-1", 5).await.is_err());
    assert!(list_all_campaigns(&mut redis, "17", 5).await.is_err());
}
