//! Voters that vote while a test breaks the deployment under them (a
//! failover, a reshard): tokio tasks on one shared `AsyncConnection` and
//! threads with a sync `Connection` each, running one loop. A test says what
//! a voter sends and what it makes of each reply ([`Ballots`]); the loop is
//! written once.

use std::time::{Duration, Instant};

use redvote::{Ballot, Call, Client};

/// One vote of a voter: the call (with its vote id) and the option it is for.
pub struct Vote {
    /// The voter's number.
    pub voter: u64,
    /// The vote call (with its vote id).
    pub call: Call<Vec<Ballot>>,
    /// The option voted for.
    pub option: &'static str,
    /// The vote id.
    pub id: String,
}

impl Vote {
    /// Voter `t`'s `n`th vote on `board` of `campaign`, as user `u{t}`: the
    /// `options` in turn, vote id `{prefix}{t}-{n}`.
    pub fn in_turn(
        campaign: &redvote::Campaign,
        board: &str,
        options: &[&'static str],
        prefix: &str,
        (t, n): (u64, u64),
    ) -> Vote {
        let option = options[((t + n) % options.len() as u64) as usize];
        let id = format!("{prefix}{t}-{n}");
        let user = format!("u{t}");
        let voter = redvote::Voter::new(&user).id(&id);
        Vote {
            voter: t,
            call: campaign.vote_by(&voter, &[(board, option)]),
            option,
            id,
        }
    }
}

/// What the voters of a test send, and what they count.
pub trait Ballots: Clone + Send + Sync + 'static {
    /// What one voter counts (returned by [`Voters::join`]).
    type Tally: Default + Send + 'static;

    /// True once the voters should stop (checked before each new vote).
    fn stopped(&self) -> bool;

    /// Voter `t`'s `n`th vote (`n` from 1).
    fn vote(&self, t: u64, n: u64) -> Vote;

    /// A voter's pause before each new vote (none by default).
    fn pace(&self) -> Duration {
        Duration::ZERO
    }

    /// One send of `vote` (first sent at `started`) answered `result`: true
    /// when the voter is done with it (acknowledged, or given up); false to
    /// send the same call again, `pause` later.
    fn settle(
        &self,
        tally: &mut Self::Tally,
        vote: &Vote,
        result: redvote::Result<Vec<Ballot>>,
        started: Instant,
    ) -> bool;
}

/// Running voters; [`Voters::join`] waits for them once they are stopped.
pub struct Voters<T> {
    tasks: Vec<tokio::task::JoinHandle<T>>,
    threads: Vec<std::thread::JoinHandle<T>>,
}

impl<T> Voters<T> {
    /// Every voter's tally: the tasks' first, then the threads'.
    pub fn join(self, rt: &tokio::runtime::Runtime) -> Vec<T> {
        let mut tallies: Vec<T> = self
            .tasks
            .into_iter()
            .map(|task| rt.block_on(task).expect("a voter task panicked"))
            .collect();
        tallies.extend(
            self.threads
                .into_iter()
                .map(|thread| thread.join().expect("a voter thread panicked")),
        );
        tallies
    }
}

/// Start `tasks` voters as tokio tasks on `rt`, sharing one
/// `AsyncConnection` of `client` (voters `0..tasks`), and `threads` voters
/// as threads with a sync `Connection` each (the next numbers). Each votes
/// until [`Ballots::stopped`] ([`Ballots::pace`] apart), sending a vote
/// `pause` apart until
/// [`Ballots::settle`] is done with it.
pub fn start<B: Ballots>(
    rt: &tokio::runtime::Runtime,
    client: &Client,
    tasks: u64,
    threads: u64,
    pause: Duration,
    ballots: &B,
) -> Voters<B::Tally> {
    let shared = if tasks > 0 {
        Some(
            rt.block_on(client.connect_async())
                .expect("connect the voters' shared connection"),
        )
    } else {
        None
    };
    let tasks: Vec<_> = (0..tasks)
        .map(|t| {
            let (con, b) = (shared.clone().unwrap(), ballots.clone());
            rt.spawn(async move {
                let mut tally = B::Tally::default();
                let mut n = 0;
                while !b.stopped() {
                    n += 1;
                    if !b.pace().is_zero() {
                        tokio::time::sleep(b.pace()).await;
                    }
                    let vote = b.vote(t, n);
                    let started = Instant::now();
                    while !b.settle(&mut tally, &vote, con.run(&vote.call).await, started) {
                        tokio::time::sleep(pause).await;
                    }
                }
                tally
            })
        })
        .collect();
    let first = tasks.len() as u64;
    let threads = (first..first + threads)
        .map(|t| {
            let (client, b) = (client.clone(), ballots.clone());
            std::thread::spawn(move || {
                let mut con = client.connect().expect("connect a voter");
                let mut tally = B::Tally::default();
                let mut n = 0;
                while !b.stopped() {
                    n += 1;
                    std::thread::sleep(b.pace());
                    let vote = b.vote(t, n);
                    let started = Instant::now();
                    while !b.settle(&mut tally, &vote, con.run(&vote.call), started) {
                        std::thread::sleep(pause);
                    }
                }
                tally
            })
        })
        .collect();
    Voters { tasks, threads }
}
