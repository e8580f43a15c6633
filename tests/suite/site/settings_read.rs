//! `Site::config` reads through `config.lua`, a read-only script;
//! `configure.lua` stays the writer. The read answers the effective
//! settings (defaults for those never set), writes nothing, is not waited
//! for by a client that waits for replicas after writes (a change is), and
//! runs on a replica.

use std::time::Duration;

use redvote::{Code, Config, ConfigUpdate, Error, Ranking, Site};

use crate::support;

fn defaults() -> Config {
    Config {
        vote_score: 432,
        window: 604800,
        page_size: 25,
        rankings: vec![],
    }
}

fn changed() -> ConfigUpdate {
    ConfigUpdate {
        page_size: Some(10),
        window: Some(3600),
        rankings: Some(vec![Ranking::Hot, Ranking::Best]),
        ..ConfigUpdate::default()
    }
}

fn changed_config() -> Config {
    Config {
        vote_score: 432,
        window: 3600,
        page_size: 10,
        rankings: vec![Ranking::Hot, Ranking::Best],
    }
}

#[test]
fn the_read_answers_the_settings_and_writes_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::new("{s1}:");
    let read = site.config();
    assert!(!read.writes(), "config.lua is flagged no-writes");
    assert_eq!(read.script().name(), "config");
    assert!(read
        .script()
        .source()
        .starts_with("#!lua flags=no-writes\n"));
    assert!(
        site.configure(&changed()).writes(),
        "configure stays a writer"
    );

    let before = support::digest(&mut con);
    assert_eq!(read.run(&mut con).unwrap(), defaults());
    assert_eq!(
        support::digest(&mut con),
        before,
        "reading the defaults wrote"
    );

    assert_eq!(
        site.configure(&changed()).run(&mut con).unwrap(),
        changed_config()
    );
    let before = support::digest(&mut con);
    assert_eq!(site.config().run(&mut con).unwrap(), changed_config());
    // the writer with no change answers the same (it stays for callers
    // that send an empty update)
    assert_eq!(
        site.configure(&ConfigUpdate::default())
            .run(&mut con)
            .unwrap(),
        changed_config()
    );
    assert_eq!(support::digest(&mut con), before, "a read wrote");
    // another prefix has its own settings
    assert_eq!(
        Site::new("{s2}:").config().run(&mut con).unwrap(),
        defaults()
    );

    // the read takes no change: arguments are refused, nothing written
    let detail = support::refused_unchanged(&mut con, "config with args", Code::Usage, |con| {
        support::raw(con, "config", site.root_key(), &["page_size", "5"])
    });
    assert!(detail.contains("config"), "{detail}");
    assert_eq!(site.config().run(&mut con).unwrap().page_size, 10);
    // a settings hash of the wrong type is refused as every script does
    redis::cmd("SET")
        .arg("{s3}:redvote:config")
        .arg("x")
        .query::<()>(&mut con)
        .unwrap();
    support::refused_unchanged(&mut con, "wrong type", Code::InvalidConfig, |con| {
        Site::new("{s3}:").config().run(con)
    });
}

#[test]
fn a_client_waiting_for_replicas_reads_settings_on_a_master_without_any() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::default();
    site.configure(&changed()).run(&mut con).unwrap();
    let client = redvote::Client::open(&server.url())
        .unwrap()
        .wait_for_replicas(1, Duration::from_millis(50));
    let mut waited = client.connect().unwrap();
    assert_eq!(waited.run(&site.config()).unwrap(), changed_config());
    // a change waits, and no replica acknowledges it
    let write = waited.run(&site.configure(&ConfigUpdate {
        page_size: Some(20),
        ..ConfigUpdate::default()
    }));
    assert!(
        matches!(
            write,
            Err(Error::NotReplicated {
                acked: 0,
                wanted: 1,
                ..
            })
        ),
        "{write:?}"
    );
}

#[test]
fn settings_are_read_on_a_replica() {
    let master = support::server();
    let mut con = support::con(&master);
    let site = Site::default();
    site.configure(&changed()).run(&mut con).unwrap();
    let replica = support::replica_of(&master);
    let mut rcon = support::con(&replica);
    let before = support::digest(&mut rcon);
    assert_eq!(site.config().run(&mut rcon).unwrap(), changed_config());
    assert_eq!(
        Site::new("{x}:").config().run(&mut rcon).unwrap(),
        defaults()
    );
    assert_eq!(support::digest(&mut rcon), before);
    // the writer is refused on the replica
    let write = site.configure(&changed()).run(&mut rcon);
    assert!(
        matches!(&write, Err(Error::Redis(e)) if e.to_string().contains("read only replica")),
        "{write:?}"
    );
}
