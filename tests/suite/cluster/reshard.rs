//! A live reshard: a campaign's slot moves from its master to another (and
//! on to the third) key by key, as `redis-cli --cluster reshard` does it,
//! while 20 voters (16 async tasks, 4 sync threads) vote with vote ids. Every acknowledged vote counts exactly
//! once, the campaign's keys end on one node, `redvote campaign NAME check`
//! passes there, and the migration window was hit: the scripts answered
//! TRYAGAIN (INFO errorstats) and the votes went on after it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::TempServer;
use redvote::client::key_slot;
use redvote::{Campaign, CampaignSettings, Client};

use super::{con, count_keys_in_slot, node_id, setslot, shared, tryagain_count, Cluster};
use crate::support::voters::{self, Ballots, Vote};
use crate::support::{wait_until, PATIENCE};

const OPTIONS: [&str; 3] = ["a", "b", "c"];

/// Move `slot` from `src` to `dst` the way `redis-cli --cluster reshard`
/// does: IMPORTING on the target, MIGRATING on the source, the keys in
/// small MIGRATE batches (with short pauses, so votes land mid-migration),
/// then SETSLOT NODE on every master (target first). Answers the keys moved
/// and how many keys votes made in the slot from the 3rd batch to the last
/// one (each vote id is a key: the slot's keys on both nodes, counted
/// between batches): none can be made, no vote applied, the slot being
/// split between two nodes then. Counted on the servers, not from the
/// acknowledgements, which a loaded machine delivers late.
fn migrate_slot(
    cluster: &Cluster,
    slot: u16,
    src: &TempServer,
    dst: &TempServer,
) -> (usize, Option<u64>) {
    let (src_id, dst_id) = (node_id(src), node_id(dst));
    setslot(dst, slot, "IMPORTING", &src_id);
    setslot(src, slot, "MIGRATING", &dst_id);
    let mut source = con(src);
    let (mut moved, mut batches, mut window_start) = (0, 0, None);
    loop {
        let keys: Vec<String> = redis::cmd("CLUSTER")
            .arg("GETKEYSINSLOT")
            .arg(slot)
            .arg(16)
            .query(&mut source)
            .unwrap();
        if keys.is_empty() {
            break;
        }
        let _: () = redis::cmd("MIGRATE")
            .arg("127.0.0.1")
            .arg(dst.port())
            .arg("")
            .arg(0)
            .arg(5000)
            .arg("KEYS")
            .arg(&keys)
            .query(&mut source)
            .unwrap();
        moved += keys.len();
        batches += 1;
        if batches == 3 {
            window_start = Some(keys_on(&[src, dst], slot));
        }
        std::thread::sleep(Duration::from_millis(15));
    }
    let mid_window = window_start.map(|start| keys_on(&[src, dst], slot) - start);
    setslot(dst, slot, "NODE", &dst_id);
    setslot(src, slot, "NODE", &dst_id);
    for master in cluster.masters() {
        if master.port() != src.port() && master.port() != dst.port() {
            setslot(master, slot, "NODE", &dst_id);
        }
    }
    (moved, mid_window)
}

/// The keys of `slot` on `nodes`, all told.
fn keys_on(nodes: &[&TempServer], slot: u16) -> u64 {
    nodes.iter().map(|n| count_keys_in_slot(n, slot)).sum()
}

/// The reshard's voters: voter `t` as user `u{t}`, options in turn, vote
/// ids `r{t}-{n}`, each sent again (20 ms apart) until acknowledged.
#[derive(Clone)]
struct Moving {
    campaign: Campaign,
    stop: Arc<AtomicBool>,
    /// Sends that failed (TRYAGAIN past the retries).
    errors: Arc<AtomicU64>,
    /// Votes acknowledged so far.
    done: Arc<AtomicU64>,
}

impl Ballots for Moving {
    type Tally = HashMap<&'static str, u64>;

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    fn vote(&self, t: u64, n: u64) -> Vote {
        Vote::in_turn(&self.campaign, "stars", &OPTIONS, "r", (t, n))
    }

    /// Only TRYAGAIN may outlast the retries (a long migration); an ASK or
    /// MOVED the cluster client gave up following is retried by the
    /// driver, never answered. Counted; sent again with the same id.
    fn settle(
        &self,
        acked: &mut Self::Tally,
        vote: &Vote,
        result: redvote::Result<Vec<redvote::Ballot>>,
        started: Instant,
    ) -> bool {
        let Err(e) = result else {
            *acked.entry(vote.option).or_default() += 1;
            self.done.fetch_add(1, Ordering::SeqCst);
            return true;
        };
        self.errors.fetch_add(1, Ordering::Relaxed);
        let tryagain = matches!(&e, redvote::Error::Redis(r) if r.code() == Some("TRYAGAIN"));
        assert!(tryagain, "vote {}: {e}", vote.id);
        assert!(
            started.elapsed() < PATIENCE,
            "vote {} never acknowledged: {e}",
            vote.id
        );
        false
    }
}

#[test]
fn a_campaign_resharded_while_20_tasks_vote_counts_every_vote_once() {
    let cluster = shared();
    let t0 = Instant::now();
    let name = "moving";
    let campaign = Campaign::new(name);
    let slot = key_slot(campaign.root_key().as_bytes());
    let client = Client::open(&cluster.url()).unwrap();
    let settings: CampaignSettings = serde_json::from_str(
        r#"{"boards": {"stars": {"periods": ["day", "total"],
                                 "options": {"a": {}, "b": {}, "c": {}}}}}"#,
    )
    .unwrap();
    client
        .connect()
        .unwrap()
        .run(&campaign.configure(&settings))
        .unwrap();
    let tryagain_before: u64 = cluster.masters().iter().map(|m| tryagain_count(m)).sum();

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let moving = Moving {
        campaign: campaign.clone(),
        stop: Arc::new(AtomicBool::new(false)),
        errors: Arc::new(AtomicU64::new(0)),
        done: Arc::new(AtomicU64::new(0)),
    };
    let (stop, errors, done) = (&moving.stop, &moving.errors, &moving.done);
    // 16 async tasks on one shared AsyncConnection, 4 threads with a sync
    // Connection each: 20 voters
    let voters = voters::start(&rt, &client, 16, 4, Duration::from_millis(20), &moving);

    // votes before, during and after two moves: owner -> another -> the third;
    // each vote id is a key, so 100 votes make a migration of 7 batches
    wait_until(
        "100 votes acknowledged before the first move",
        PATIENCE,
        || done.load(Ordering::Relaxed) >= 100,
    );
    let first = cluster.owner(slot).port();
    let mut path = vec![first];
    for _ in 0..2 {
        let src = cluster.owner(slot);
        let dst = cluster
            .masters()
            .into_iter()
            .find(|m| !path.contains(&m.port()))
            .unwrap();
        let moving = Instant::now();
        let before = done.load(Ordering::Relaxed);
        let (keys, mid_window) = migrate_slot(&cluster, slot, src, dst);
        eprintln!(
            "slot {slot}: {keys} keys moved {} -> {} in {:?}; keys votes made while it was \
             split: {mid_window:?}",
            src.port(),
            dst.port(),
            moving.elapsed()
        );
        assert_eq!(
            mid_window,
            Some(0),
            "a vote was applied while the slot was split"
        );
        assert!(keys > 20, "too few keys to migrate ({keys}) for a window");
        path.push(dst.port());
        let during = done.load(Ordering::Relaxed) - before;
        // the votes refused during the move go on once it ends
        let resumed = wait_until("the votes go on after the move", PATIENCE, || {
            done.load(Ordering::Relaxed) - before > during
        });
        std::thread::sleep(Duration::from_millis(300));
        let after = done.load(Ordering::Relaxed) - before - during;
        eprintln!(
            "  votes acknowledged during the move: {during}; the first one after it {resumed:?} \
             after its end, {after} within 300 ms more"
        );
    }
    stop.store(true, Ordering::Relaxed);
    let mut acked: HashMap<&str, u64> = HashMap::new();
    for tally in voters.join(&rt) {
        for (option, n) in tally {
            *acked.entry(option).or_default() += n;
        }
    }

    let owner = cluster.owner(slot);
    assert_eq!(owner.port(), *path.last().unwrap());
    let mut on_owner = con(owner);
    for option in OPTIONS {
        let key = format!("{}b:stars:real:total", campaign.namespace());
        let total: Option<u64> = redis::cmd("ZSCORE")
            .arg(&key)
            .arg(option)
            .query(&mut on_owner)
            .unwrap();
        assert_eq!(
            total.unwrap_or(0),
            acked.get(option).copied().unwrap_or(0),
            "option {option}: the count is not the acknowledged votes"
        );
    }
    // the campaign's keys are on the new owner only
    for master in cluster.masters() {
        let n = count_keys_in_slot(master, slot);
        if master.port() == owner.port() {
            assert!(n > 0);
        } else {
            assert_eq!(n, 0, "keys of slot {slot} left on {}", master.port());
        }
    }
    // the checker (what `redvote campaign NAME check` runs) on the new owner
    let report = redvote_check::check_campaign(&mut con(owner), &Campaign::new(name)).unwrap();
    assert!(report.is_clean(), "check on the new owner:\n{report}");
    // the migration window was hit: scripts answered TRYAGAIN, and retried
    let tryagain: u64 = cluster.masters().iter().map(|m| tryagain_count(m)).sum();
    let refusals = tryagain - tryagain_before;
    let total: u64 = acked.values().sum();
    eprintln!(
        "reshard: {total} votes acknowledged {acked:?}, {refusals} TRYAGAIN answered by the nodes, \
         {} TRYAGAIN errors that outlasted the retries (sent again), path {path:?}, {:?}",
        errors.load(Ordering::Relaxed),
        t0.elapsed()
    );
    assert!(refusals > 0, "no vote landed in the migration window");
    assert!(total > 100, "too few votes: {total}");
}
