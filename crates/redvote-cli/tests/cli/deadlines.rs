//! `--timeout` is the deadline of a command's calls: against a stopped
//! server, a stalled sentinel and a stalled Sentinel master, every command
//! ends within it. A command connects and then calls, each bounded by
//! `--timeout` (docs/cli.md), so the bound checked is twice `--timeout`
//! plus [`MARGIN`] for the process itself; the measured times are printed
//! (`--nocapture`).

use std::process::Output;
use std::time::{Duration, Instant};

use redvote::{Campaign, Site};
use redvote_testing::readme::spring_settings;
use redvote_testing::sentinel::Deployment;

use crate::support::{self, redvote};

/// Beyond twice `--timeout`: the process start and the scheduler of a
/// loaded 2-core machine.
const MARGIN: Duration = Duration::from_millis(1500);

/// Run `redvote --url URL --timeout T ARGS...` and check it ended within
/// twice `timeout` plus the margin.
fn timed(url: &str, timeout: f64, args: &[&str]) -> Output {
    let t = timeout.to_string();
    let mut all = vec!["--timeout", &t];
    all.extend_from_slice(args);
    let start = Instant::now();
    let out = redvote(Some(url), &all);
    let took = start.elapsed();
    let bound = Duration::from_secs_f64(2.0 * timeout) + MARGIN;
    eprintln!(
        "--timeout {timeout}: {args:?} exited {:?} after {took:?}",
        out.status.code()
    );
    assert!(
        took <= bound,
        "{args:?} took {took:?}, past 2 x --timeout {timeout} + {MARGIN:?}"
    );
    out
}

/// Item 4: a stopped (SIGSTOP) standalone server, default retries: reads
/// and writes of both systems end within `--timeout`, exit 1, one line.
#[test]
fn a_stopped_server_ends_every_command_within_its_timeout() {
    let server = support::server();
    let mut con = support::con(&server);
    let spring = Campaign::new("spring2026");
    spring.configure(&spring_settings()).run(&mut con).unwrap();
    let id = Site::default()
        .post("user:1", "t", "https://e.x")
        .run(&mut con)
        .unwrap()
        .to_string();
    server.signal("-STOP");
    for args in [
        &["vote", "--user", "u", &id][..],
        &["articles"],
        &["campaign", "spring2026", "vote", "--user", "u", "stars:wjk"],
        &[
            "campaign",
            "spring2026",
            "top",
            "stars",
            "--period",
            "total",
        ],
    ] {
        let out = timed(&server.url(), 0.5, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    }
    server.signal("-CONT");
}

/// Item 1: the first sentinel stalls: commands still find the master
/// through the others; then the master stalls: commands fail within the
/// deadline instead of hanging until it resumes.
#[test]
fn a_stalled_sentinel_or_master_does_not_hang_the_cli() {
    let d = Deployment::start();
    let spring = Campaign::new("spring2026");
    spring
        .configure(&spring_settings())
        .run(&mut d.master.client().get_connection().unwrap())
        .unwrap();
    let vote = [
        "campaign",
        "spring2026",
        "vote",
        "--user",
        "u1",
        "stars:wjk",
    ];

    d.sentinels[0].signal("-STOP");
    let out = timed(&d.url(), 2.0, &vote);
    d.sentinels[0].signal("-CONT");
    assert!(
        out.status.success(),
        "through the other sentinels: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    d.master.signal("-STOP");
    let out = timed(
        &d.url(),
        1.0,
        &["--retries", "0", "campaign", "spring2026", "top", "stars"],
    );
    d.master.signal("-CONT");
    assert_eq!(out.status.code(), Some(1));
}
