//! One set of test bodies (site and campaign) run against a single server
//! and against the cluster, through `redvote::Connection` (sync) and
//! `redvote::AsyncConnection` (async) alike: a body takes a [`Runner`].

use std::time::Instant;

use redvote::client::key_slot;
use redvote::reply::Reply;
use redvote::{
    AsyncConnection, Call, Campaign, CampaignSettings, Client, Connection, Error, Neighbourhood,
    Order, Page, PageCall, Paging, Site, View, Voter,
};

use super::{count_keys_in_slot, own_slots, shared};

/// Sends calls one way: a sync connection, or an async one driven by a
/// current-thread runtime.
pub enum Runner {
    Sync(Connection),
    Async(tokio::runtime::Runtime, AsyncConnection),
}

impl Runner {
    pub fn sync(client: &Client) -> Runner {
        Runner::Sync(client.connect().unwrap())
    }

    pub fn r#async(client: &Client) -> Runner {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let con = rt.block_on(client.connect_async()).unwrap();
        Runner::Async(rt, con)
    }

    pub fn run<T: Reply>(&mut self, call: &Call<T>) -> redvote::Result<T> {
        match self {
            Runner::Sync(con) => con.run(call),
            Runner::Async(rt, con) => rt.block_on(con.run(call)),
        }
    }

    pub fn page(&mut self, call: &PageCall) -> redvote::Result<Page> {
        match self {
            Runner::Sync(con) => call.run(con.redis()?),
            Runner::Async(rt, con) => rt.block_on(async {
                let mut redis = con.redis().await?;
                call.run_async(&mut redis).await
            }),
        }
    }
}

/// The article site under the hash-tagged prefix `{s:<name>}:`: post,
/// vote, downvote, page, groups and a group page.
pub fn site_body(run: &mut Runner, name: &str) {
    let site = Site::new(format!("{{s:{name}}}:"));
    let id = run.run(&site.post("user:1", "Hello", "https://x")).unwrap();
    let id = id.to_string();
    let other = run
        .run(&site.post("user:1", "Other", "https://y"))
        .unwrap()
        .to_string();
    assert_eq!(run.run(&site.vote("user:2", &id)).unwrap().votes, 2);
    assert_eq!(run.run(&site.vote("user:3", &id)).unwrap().votes, 3);
    let down = run.run(&site.downvote("user:4", &other)).unwrap();
    assert!(down.changed);
    run.run(&site.groups(&id, &["redis"], &[])).unwrap();
    let page = run.page(&site.page(Order::Score, 1, None)).unwrap();
    assert_eq!(page.articles.len(), 2);
    assert_eq!(page.articles[0].id, id, "the upvoted article leads");
    let group = run
        .page(&site.group_page("redis", Order::Time, 1, None))
        .unwrap();
    assert_eq!(group.articles.len(), 1);
    assert_eq!(group.articles[0].id, id);
}

/// The campaign `name` (namespace `{c:<name>}:`): configure, a vote with
/// and one without an id, top / standing / around, a limit's refusal, an
/// import.
pub fn campaign_body(run: &mut Runner, name: &str) {
    let c = Campaign::new(name);
    let settings: CampaignSettings = serde_json::from_str(
        r#"{"limits": [{"name": "u", "by": ["user"], "window": "day", "limit": 3}],
            "boards": {"stars": {"periods": ["day", "total"],
                                 "options": {"a": {}, "b": {}, "c": {}}}}}"#,
    )
    .unwrap();
    run.run(&c.configure(&settings)).unwrap();
    // without an id (on a cluster the driver gives it one)
    run.run(&c.vote("user:1", &[("stars", "a"), ("stars", "b")]))
        .unwrap();
    // with an id, sent twice: counts once
    let id = format!("{name}-v1");
    let voter = Voter::new("user:2").id(&id);
    let first = run.run(&c.vote_by(&voter, &[("stars", "a")])).unwrap();
    assert!(!first[0].replay);
    let again = run.run(&c.vote_by(&voter, &[("stars", "a")])).unwrap();
    assert!(again[0].replay);

    let real = View::real("total");
    let top = run
        .run(&c.top(&["stars"], &real, Paging::new(1, 10)))
        .unwrap();
    assert_eq!(top[0].size, 2, "{top:?}");
    assert_eq!(top[0].entries[0].member, "a");
    let standing = run.run(&c.standing("stars", &real, &["a", "b"])).unwrap();
    assert_eq!(standing[0].rank, Some(1));
    assert_eq!(standing[1].rank, Some(2));
    assert_eq!(standing[1].ahead.as_deref(), Some("a"));
    let around = run
        .run(&c.around("stars", &real, "b", Neighbourhood::new(1, 10)))
        .unwrap();
    assert_eq!(around.rank, Some(2));

    // the limit: 3 votes a day per user, the 4th refused (nothing written)
    for _ in 0..3 {
        run.run(&c.vote("user:9", &[("stars", "b")])).unwrap();
    }
    match run.run(&c.vote("user:9", &[("stars", "b")])) {
        Err(Error::RateLimited(r)) => assert_eq!(r.rule, "u"),
        other => panic!("the 4th vote was not refused: {other:?}"),
    }
    let standing = run.run(&c.standing("stars", &real, &["b"])).unwrap();
    assert_eq!(
        standing[0].rank,
        Some(1),
        "b has 4 real votes: {standing:?}"
    );

    // an import of shown votes
    let imported = run.run(&c.import("stars", &[("c", "100")])).unwrap();
    assert_eq!(imported.changed, 1);
    let shown = run
        .run(&c.top(&["stars"], &View::shown("total"), Paging::new(1, 10)))
        .unwrap();
    assert_eq!(shown[0].entries[0].member, "c", "{shown:?}");
}

/// Every body for `n` names, half sync, half async; the names used.
fn run_all(client: &Client, n: usize) -> Vec<String> {
    let (mut sync, mut r#async) = (Runner::sync(client), Runner::r#async(client));
    let names: Vec<String> = (0..n).map(|i| format!("n{i}")).collect();
    for (i, name) in names.iter().enumerate() {
        let run = if i % 2 == 0 { &mut sync } else { &mut r#async };
        site_body(run, name);
        campaign_body(run, name);
    }
    names
}

#[test]
fn the_bodies_pass_on_one_server() {
    let server = crate::support::server();
    let client = Client::open(&server.url()).unwrap();
    run_all(&client, 4);
}

#[test]
fn the_bodies_pass_on_a_cluster_with_names_on_every_master() {
    let cluster = shared();
    let t0 = Instant::now();
    let client = Client::open(&cluster.url()).unwrap();
    assert!(client.is_cluster());
    let names = run_all(&client, 30);
    eprintln!(
        "30 sites + 30 campaigns on the cluster in {:?}",
        t0.elapsed()
    );

    // every master holds some of them, in the slot its name hashes to
    for master in cluster.masters() {
        let slots = own_slots(master);
        let mine: Vec<&String> = names
            .iter()
            .filter(|n| slots.contains(&key_slot(Campaign::new(n).root_key().as_bytes())))
            .collect();
        assert!(!mine.is_empty(), "no campaign on master {}", master.port());
        for name in mine {
            let key = Campaign::new(name).root_key().to_string();
            let slot: u16 = redis::cmd("CLUSTER")
                .arg("KEYSLOT")
                .arg(&key)
                .query(&mut super::con(master))
                .unwrap();
            assert_eq!(slot, key_slot(key.as_bytes()));
            assert!(
                count_keys_in_slot(master, slot) > 0,
                "{key} not on its master"
            );
        }
    }

    // WAIT after each writing call: the sync path (WAIT routed to the
    // slot's primary right after the script) and the async one (a
    // pipeline of the script and WAIT to that node)
    let waiting = client
        .clone()
        .wait_for_replicas(1, std::time::Duration::from_secs(2));
    for (i, mut run) in [Runner::sync(&waiting), Runner::r#async(&waiting)]
        .into_iter()
        .enumerate()
    {
        site_body(&mut run, &format!("w{i}"));
        campaign_body(&mut run, &format!("w{i}"));
    }

    // Without a hash tag the site's keys spread over slots: the driver
    // refuses the call before sending it (sync and async), so nothing is
    // written; sent raw, Redis refuses the script only at its first key of
    // another slot, after post.lua's INCR of `site2:article:`.
    let untagged = Site::new("site2:");
    let post = untagged.post("user:1", "t", "https://x");
    let mut con = client.connect().unwrap();
    let refusals = [
        con.run(&post).unwrap_err(),
        Runner::r#async(&client).run(&post).unwrap_err(),
    ];
    for err in refusals {
        assert!(matches!(err, Error::Config(_)), "{err}");
        assert!(err.to_string().contains("has no hash tag"), "{err}");
        assert!(!err.may_have_applied(), "{err}");
    }
    let owner = cluster.owner(key_slot(b"site2:article:"));
    let counter: Option<i64> = redis::cmd("GET")
        .arg("site2:article:")
        .query(&mut super::con(owner))
        .unwrap();
    assert_eq!(counter, None, "the refused post wrote");
    let raw = post.run(con.redis().unwrap()).unwrap_err().to_string();
    assert!(
        raw.starts_with("REDVOTE_INTERNAL ")
            && (raw.contains("non local key") || raw.contains("same slot")),
        "{raw}"
    );
}

/// A sync cluster connection drives its calls on a runtime of its own
/// (that is how it holds them to the deadline); inside a tokio runtime,
/// where that runtime cannot block, it drives them on a helper thread. A
/// connection made there or made before runs calls and pages on a
/// current-thread and on a multi-thread runtime alike.
#[test]
fn a_sync_cluster_connection_runs_inside_a_tokio_runtime() {
    let cluster = shared();
    let client = Client::open(&cluster.url()).unwrap();
    let site = Site::new("{in-rt}:");
    let mut before = client.connect().unwrap();
    let runtimes = [
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap(),
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap(),
    ];
    for rt in runtimes {
        rt.block_on(async {
            let mut inside = client.connect().unwrap();
            for con in [&mut inside, &mut before] {
                let id = con.run(&site.post("user:1", "t", "https://e.x")).unwrap();
                con.run(&site.vote("user:2", id.to_string())).unwrap();
                let page = con.page(&site.page(Order::Score, 1, None)).unwrap();
                assert!(
                    page.articles.iter().any(|a| a.id == id.to_string()),
                    "{page:?}"
                );
            }
        });
    }
}
