//! Waiting in tests for what they assert, never for a fixed time: a
//! condition polled every few milliseconds until it holds, the test failing
//! (naming what it waited for) only when a generous deadline passes. A fixed
//! sleep is too short on a loaded machine and too long on an idle one.

use std::future::Future;
use std::time::{Duration, Instant};

/// The deadline for a condition that is certain to come: a minute, which a
/// loaded 2-core machine stays far below (the idle figures are
/// milliseconds to a few seconds).
pub const PATIENCE: Duration = Duration::from_secs(60);

/// How often a condition is polled.
pub const POLL: Duration = Duration::from_millis(5);

/// Poll `done` every [`POLL`] until it holds and answer how long that took;
/// fail the test naming `what` when `limit` passes first.
pub fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) -> Duration {
    let start = Instant::now();
    eventually(what, limit, || done().then_some(()));
    start.elapsed()
}

/// Poll `probe` every [`POLL`] until it answers a value and answer it; fail
/// the test naming `what` when `limit` passes first.
pub fn eventually<T>(what: &str, limit: Duration, mut probe: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(value) = probe() {
            return value;
        }
        assert!(start.elapsed() < limit, "not within {limit:?}: {what}");
        std::thread::sleep(POLL);
    }
}

/// [`wait_until`] for an async condition, polled without blocking the
/// runtime's thread.
pub async fn wait_until_async<F, Fut>(what: &str, limit: Duration, mut done: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let start = Instant::now();
    while !done().await {
        assert!(start.elapsed() < limit, "not within {limit:?}: {what}");
        tokio::time::sleep(POLL).await;
    }
    start.elapsed()
}
