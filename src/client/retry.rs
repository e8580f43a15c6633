//! The retry policy: [`Retry`] (how many sends, how long in between) and
//! the classification of a failure by what it tells about the call: it did
//! not run (resent whatever the call), it may have been applied (resent
//! only when the call is idempotent; [`Error::may_have_applied`]), or it is
//! final. The table of which error is which is the parent module's
//! documentation; the sync and async connections share this one loop
//! ([`Retry::run_sync`], [`Retry::run_async`]), so a call and a page are
//! retried alike.

use std::time::Duration;

use crate::call::Call;
use crate::error::{Error, Result};
use crate::reply::Reply;

/// How many times a call is sent at most, and how long to wait in between
/// (doubling from `delay` up to `max_delay`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// Sends at most (1: no retry).
    pub attempts: u32,
    /// Wait before the first retry.
    pub delay: Duration,
    /// The longest wait between two sends.
    pub max_delay: Duration,
}

impl Retry {
    /// Up to `attempts` sends, waiting `delay`, then twice as long each time
    /// (at most 2 s).
    pub fn new(attempts: u32, delay: Duration) -> Self {
        Retry {
            attempts: attempts.max(1),
            delay,
            max_delay: Duration::from_secs(2),
        }
    }

    /// Send once, never retry.
    pub fn never() -> Self {
        Retry::new(1, Duration::ZERO)
    }

    /// The wait before send `n + 1` (`n` sends done), if one is allowed
    /// after `err` for a call that is (or not) idempotent.
    pub(super) fn after(&self, n: u32, err: &Error, idempotent: bool) -> Option<Duration> {
        let again = match err.outcome() {
            Outcome::NotRun => true,
            Outcome::Unknown => idempotent,
            Outcome::Final => false,
        };
        (again && n < self.attempts).then(|| {
            let factor = 1u32.checked_shl(n.saturating_sub(1)).unwrap_or(u32::MAX);
            self.delay.saturating_mul(factor).min(self.max_delay)
        })
    }
}

/// The time one call may take, from its start ([`super::Client::deadline`]):
/// every connect, send and wait between retries is capped by what remains.
#[derive(Debug, Clone, Copy)]
pub(super) struct Budget {
    end: std::time::Instant,
    total: Duration,
}

impl Budget {
    /// `total` from now.
    pub(super) fn new(total: Duration) -> Budget {
        Budget {
            end: std::time::Instant::now() + total,
            total,
        }
    }

    /// What is left (zero once it passed).
    pub(super) fn remaining(&self) -> Duration {
        self.end
            .saturating_duration_since(std::time::Instant::now())
    }

    /// `timeout`, but no longer than what is left (and at least 1 ms: a
    /// socket timeout of zero would mean none).
    pub(super) fn cap(&self, timeout: Duration) -> Duration {
        timeout.min(self.remaining()).max(Duration::from_millis(1))
    }

    /// When it ends, for tokio.
    #[cfg(feature = "async")]
    pub(super) fn end(&self) -> tokio::time::Instant {
        self.end.into()
    }

    /// The error of a call whose deadline passed.
    pub(super) fn expired(&self, sent: bool, last: Option<Error>) -> Error {
        Error::Timeout {
            deadline_ms: self.total.as_millis() as u64,
            sent: sent || last.as_ref().is_some_and(Error::may_have_applied),
            last: last.map(Box::new),
        }
    }
}

/// What one attempt answers: its result, whether a resend is safe after an
/// unknown outcome (the call is idempotent, or was never sent), and
/// whether it was sent at all (false: it failed while connecting).
pub(super) type Attempt<T> = (Result<T>, bool, bool);

impl Retry {
    /// What follows a failed attempt: `Ok(wait)` before the next one, or
    /// the error to answer (`err` itself, or [`Error::Timeout`] when the
    /// deadline passed or the next send could not start before it).
    fn next(
        &self,
        n: u32,
        err: Error,
        safe: bool,
        sent: bool,
        budget: &Budget,
    ) -> std::result::Result<Duration, Error> {
        if err.outcome() == Outcome::Final {
            return Err(err);
        }
        let left = budget.remaining();
        match self.after(n, &err, safe) {
            Some(wait) if wait < left => Ok(wait),
            Some(_) => Err(budget.expired(sent, Some(err))),
            None if left.is_zero() => Err(budget.expired(sent, Some(err))),
            None => Err(err),
        }
    }

    /// Run `attempt` until it succeeds, the policy stops it, or `budget`
    /// runs out (each attempt caps its own timeouts by it: a sync attempt
    /// cannot be cut).
    pub(super) fn run_sync<T>(
        &self,
        budget: &Budget,
        mut attempt: impl FnMut(&Budget) -> Attempt<T>,
    ) -> Result<T> {
        let (mut n, mut sent) = (0, false);
        loop {
            n += 1;
            match attempt(budget) {
                (Err(err), safe, was_sent) => {
                    sent |= was_sent && err.may_have_applied();
                    std::thread::sleep(self.next(n, err, safe, sent, budget)?);
                }
                (ok, _, _) => return ok,
            }
        }
    }

    /// [`Retry::run_sync`] for async attempts, each cut when `budget` runs
    /// out. `sending` is set by an attempt once it starts to send (so a cut
    /// attempt tells whether the call may have been applied).
    #[cfg(feature = "async")]
    pub(super) async fn run_async<T, F>(
        &self,
        budget: &Budget,
        sending: &std::sync::atomic::AtomicBool,
        mut attempt: impl FnMut() -> F,
    ) -> Result<T>
    where
        F: std::future::Future<Output = Attempt<T>>,
    {
        use std::sync::atomic::Ordering;
        let (mut n, mut sent) = (0, false);
        loop {
            n += 1;
            sending.store(false, Ordering::Relaxed);
            match tokio::time::timeout_at(budget.end(), attempt()).await {
                Err(_elapsed) => {
                    return Err(budget.expired(sent || sending.load(Ordering::Relaxed), None))
                }
                Ok((Err(err), safe, was_sent)) => {
                    sent |= was_sent && err.may_have_applied();
                    tokio::time::sleep(self.next(n, err, safe, sent, budget)?).await;
                }
                Ok((ok, _, _)) => return ok,
            }
        }
    }
}

/// Whether `err` leaves a connection unusable (it failed, or may still
/// deliver a late reply), or its server may no longer be the master (it
/// answered `READONLY`, or `NOREPLICAS`, or its replicas did not
/// acknowledge: after a Sentinel failover the old master lives on and
/// accepts writes until Sentinel demotes it, seconds later): it is
/// replaced before the next send, through the sentinels again for a
/// Sentinel URL.
pub(super) fn broken(err: &Error) -> bool {
    match err {
        Error::Redis(e) => {
            e.is_io_error()
                || e.is_timeout()
                || e.is_connection_dropped()
                || matches!(e.code(), Some("READONLY" | "NOREPLICAS"))
        }
        Error::NotReplicated { .. } | Error::Timeout { .. } => true,
        Error::MayHaveApplied { source } => broken(source),
        _ => false,
    }
}

/// The default policy: 4 sends, waiting 50 ms, 100 ms, 200 ms.
impl Default for Retry {
    fn default() -> Self {
        Retry::new(4, Duration::from_millis(50))
    }
}

/// What a failed call tells about whether it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    /// It did not run: safe to send again.
    NotRun,
    /// It may have run: safe to send again only if it is idempotent.
    Unknown,
    /// Sending it again would fail the same way (or it was refused).
    Final,
}

/// Whether `err` is a TLS failure (a certificate refused by either side,
/// a failed handshake, a TLS alert from the server): the server ran
/// nothing on that connection, and a new one would fail the same way, so
/// it is neither retried nor "may have applied".
fn is_tls_failure(err: &redis::RedisError) -> bool {
    #[cfg(feature = "tls")]
    {
        // redis-rs keeps (in an Arc) a rustls::Error, or the io::Error
        // that rustls' streams wrap theirs in
        type Shared = std::sync::Arc<dyn std::error::Error + Send + Sync>;
        let Some(source) = std::error::Error::source(err) else {
            return false;
        };
        let source: &(dyn std::error::Error + 'static) = match source.downcast_ref::<Shared>() {
            Some(shared) => shared.as_ref(),
            None => source,
        };
        source.is::<rustls::Error>()
            || source
                .downcast_ref::<std::io::Error>()
                .and_then(|io| io.get_ref())
                .is_some_and(|inner| inner.is::<rustls::Error>())
    }
    #[cfg(not(feature = "tls"))]
    {
        let _ = err;
        false
    }
}

impl Error {
    /// What `self` tells about whether the call ran.
    pub(super) fn outcome(&self) -> Outcome {
        let err = match self {
            Error::Redis(err) => err,
            Error::NotReplicated { .. } | Error::MayHaveApplied { .. } => return Outcome::Unknown,
            Error::Timeout { sent: true, .. } => return Outcome::Unknown,
            Error::Timeout { sent: false, .. } => return Outcome::NotRun,
            _ => return Outcome::Final,
        };
        if err.is_connection_refusal() {
            return Outcome::NotRun;
        }
        if is_tls_failure(err) {
            return Outcome::Final;
        }
        // the sentinels name no master that answers as one (it is down, or
        // a failover is under way): nothing was sent
        if matches!(
            err.kind(),
            redis::ErrorKind::MasterNameNotFoundBySentinel
                | redis::ErrorKind::NoValidReplicasFoundBySentinel
        ) {
            return Outcome::NotRun;
        }
        if matches!(
            err.code(),
            Some(
                "LOADING"
                    | "BUSY"
                    | "TRYAGAIN"
                    | "MASTERDOWN"
                    | "CLUSTERDOWN"
                    | "READONLY"
                    | "NOREPLICAS"
                    | "ASK"
                    | "MOVED"
            )
        ) {
            return Outcome::NotRun;
        }
        if err.is_io_error() || err.is_timeout() || err.is_connection_dropped() {
            return Outcome::Unknown;
        }
        Outcome::Final
    }

    /// True when the call may have been applied although it failed: the
    /// connection dropped after the call was sent, no reply came within
    /// the response timeout, or it was applied but not acknowledged by the
    /// replicas asked for ([`Error::NotReplicated`]). Retrying is safe for idempotent calls (a
    /// campaign vote with the same vote id); a campaign vote without an id
    /// retried may count twice.
    pub fn may_have_applied(&self) -> bool {
        self.outcome() == Outcome::Unknown
    }
}

/// `err`, after a call that was sent and may have been applied.
pub(super) fn applied(err: Error) -> Error {
    match err {
        Error::MayHaveApplied { .. } | Error::NotReplicated { .. } => err,
        err => Error::MayHaveApplied {
            source: Box::new(err),
        },
    }
}

/// A call's failure as the caller sees it. On a cluster redis-rs resends a
/// call by itself (after a lost connection, `TRYAGAIN`, `CLUSTERDOWN`, up
/// to 16 times) and answers the last attempt's error: that a refused
/// connection ended it does not tell that an earlier attempt did not run.
/// So on a cluster, a call that is not idempotent and failed as "not run"
/// may have been applied (and is not resent).
pub(super) fn sent<T, R: Reply>(result: Result<T>, call: &Call<R>, cluster: bool) -> Result<T> {
    match result {
        Err(err) if cluster && !call.is_idempotent() && err.outcome() == Outcome::NotRun => {
            Err(applied(err))
        }
        result => result,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io(kind: std::io::ErrorKind) -> Error {
        Error::Redis(redis::RedisError::from(std::io::Error::from(kind)))
    }

    #[test]
    fn the_policy_retries_what_cannot_double() {
        let retry = Retry::new(3, Duration::from_millis(10));
        let dropped = io(std::io::ErrorKind::UnexpectedEof);
        assert!(dropped.may_have_applied());
        assert_eq!(
            retry.after(1, &dropped, true),
            Some(Duration::from_millis(10))
        );
        assert_eq!(
            retry.after(2, &dropped, true),
            Some(Duration::from_millis(20))
        );
        assert_eq!(retry.after(3, &dropped, true), None, "3 sends at most");
        assert_eq!(retry.after(1, &dropped, false), None, "not idempotent");
        let refused = io(std::io::ErrorKind::ConnectionRefused);
        assert!(!refused.may_have_applied());
        assert!(retry.after(1, &refused, false).is_some(), "never sent");
        let script = Error::Script {
            code: crate::Code::Usage,
            detail: String::new(),
        };
        assert_eq!(retry.after(1, &script, true), None);
        assert!(Retry::never().after(1, &dropped, true).is_none());
        // the sentinels name no master that answers (a failover under way)
        let no_master = Error::Redis(redis::RedisError::from((
            redis::ErrorKind::MasterNameNotFoundBySentinel,
            "Master with given name not found in sentinel",
        )));
        assert!(!no_master.may_have_applied());
        assert!(retry.after(1, &no_master, false).is_some(), "never sent");
        // a master whose replicas did not acknowledge: asked for again
        let unreplicated = Error::NotReplicated {
            acked: 0,
            wanted: 1,
            timeout_ms: 10,
        };
        assert!(broken(&unreplicated) && unreplicated.may_have_applied());
        // a redirection: the node did not run the call
        for reply in [
            &b"-ASK 5634 127.0.0.1:7001\r\n"[..],
            b"-MOVED 5634 127.0.0.1:7001\r\n",
        ] {
            let redis::Value::ServerError(e) = redis::parse_redis_value(reply).unwrap() else {
                panic!("not an error reply")
            };
            let redirect = Error::Redis(e.into());
            assert!(!redirect.may_have_applied());
            assert!(retry.after(1, &redirect, false).is_some(), "never run");
        }
    }

    /// Every server error that means "not run", and the ones that do not.
    #[test]
    fn server_errors_that_mean_not_run() {
        for code in [
            "LOADING",
            "BUSY",
            "TRYAGAIN",
            "MASTERDOWN",
            "CLUSTERDOWN",
            "READONLY",
            "NOREPLICAS",
        ] {
            let reply = format!("-{code} x\r\n");
            let redis::Value::ServerError(e) = redis::parse_redis_value(reply.as_bytes()).unwrap()
            else {
                panic!("not an error reply")
            };
            let err = Error::Redis(e.into());
            assert_eq!(err.outcome(), Outcome::NotRun, "{code}");
        }
        let redis::Value::ServerError(e) = redis::parse_redis_value(b"-NOPERM x\r\n").unwrap()
        else {
            panic!("not an error reply")
        };
        assert_eq!(Error::Redis(e.into()).outcome(), Outcome::Final);
        assert_eq!(io(std::io::ErrorKind::TimedOut).outcome(), Outcome::Unknown);
    }

    /// Which failures replace the connection before the next send.
    #[test]
    fn broken_connections_are_replaced() {
        assert!(broken(&io(std::io::ErrorKind::ConnectionReset)));
        let readonly = redis::parse_redis_value(b"-READONLY x\r\n").unwrap();
        let redis::Value::ServerError(e) = readonly else {
            panic!("not an error reply")
        };
        assert!(broken(&Error::Redis(e.into())));
        assert!(broken(&applied(io(std::io::ErrorKind::UnexpectedEof))));
        let busy = redis::parse_redis_value(b"-BUSY x\r\n").unwrap();
        let redis::Value::ServerError(e) = busy else {
            panic!("not an error reply")
        };
        assert!(
            !broken(&Error::Redis(e.into())),
            "BUSY: the server is there"
        );
        let script = Error::Script {
            code: crate::Code::Usage,
            detail: String::new(),
        };
        assert!(!broken(&script));
    }

    /// On a cluster, what reads as "not run" after a call that is not
    /// idempotent is not trusted (redis-rs may have sent it before).
    #[test]
    fn what_follows_a_sent_call_may_have_applied() {
        use crate::{Campaign, Site, Voter};
        let refused = || io(std::io::ErrorKind::ConnectionRefused);
        assert!(!refused().may_have_applied());
        let post = Site::new("{s}:").post("u", "t", "https://e.x");
        let err = sent::<(), _>(Err(refused()), &post, true).unwrap_err();
        assert!(err.may_have_applied(), "{err}");
        assert!(err.to_string().contains("may have been applied"), "{err}");
        let retry = Retry::new(3, Duration::from_millis(10));
        assert_eq!(retry.after(1, &err, post.is_idempotent()), None);
        // on one server, or for an idempotent call, it stays "not run"
        assert!(!sent::<(), _>(Err(refused()), &post, false)
            .unwrap_err()
            .may_have_applied());
        let vote = Campaign::new("c").vote_by(&Voter::new("u").id("v"), &[("b", "o")]);
        assert!(!sent::<(), _>(Err(refused()), &vote, true)
            .unwrap_err()
            .may_have_applied());
        // marked once, not wrapped twice
        let twice = applied(applied(refused()));
        assert!(
            matches!(&twice, Error::MayHaveApplied { source } if !matches!(**source, Error::MayHaveApplied { .. }))
        );
    }

    /// The loop stops at the first success, after `attempts` sends, or at
    /// once on a final error.
    #[test]
    fn the_loop_sends_at_most_attempts_times() {
        let retry = Retry::new(3, Duration::from_millis(1));
        let budget = Budget::new(Duration::from_secs(10));
        let mut sends = 0;
        let err = retry
            .run_sync::<()>(&budget, |_| {
                sends += 1;
                (Err(io(std::io::ErrorKind::ConnectionRefused)), false, false)
            })
            .unwrap_err();
        assert_eq!(sends, 3);
        assert!(!err.may_have_applied());
        let mut sends = 0;
        let ok = retry.run_sync(&budget, |_| {
            sends += 1;
            match sends {
                1 => (Err(io(std::io::ErrorKind::UnexpectedEof)), true, true),
                n => (Ok(n), true, true),
            }
        });
        assert_eq!(ok.unwrap(), 2);
        let mut sends = 0;
        let _ = retry.run_sync::<()>(&budget, |_| {
            sends += 1;
            (Err(io(std::io::ErrorKind::UnexpectedEof)), false, true)
        });
        assert_eq!(
            sends, 1,
            "an unknown outcome of a call that may count twice"
        );
    }

    #[cfg(feature = "async")]
    #[test]
    fn the_async_loop_is_the_same_loop() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let retry = Retry::new(4, Duration::from_millis(1));
        let sends = std::sync::atomic::AtomicU32::new(0);
        let sending = std::sync::atomic::AtomicBool::new(false);
        let budget = Budget::new(Duration::from_secs(10));
        let result = rt.block_on(retry.run_async(&budget, &sending, || async {
            let n = sends.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            match n {
                1..=2 => (Err(io(std::io::ErrorKind::ConnectionRefused)), false, false),
                n => (Ok(n), false, true),
            }
        }));
        assert_eq!(result.unwrap(), 3);
        // an attempt that outlives the deadline is cut: Timeout, "sent"
        // once it started to send
        let budget = Budget::new(Duration::from_millis(50));
        let start = std::time::Instant::now();
        let err = rt
            .block_on(retry.run_async::<(), _>(&budget, &sending, || async {
                sending.store(true, std::sync::atomic::Ordering::Relaxed);
                tokio::time::sleep(Duration::from_secs(5)).await;
                (Ok(()), true, true)
            }))
            .unwrap_err();
        // cut at 50 ms, with a loaded machine's slack: not the 5 s attempt
        assert!(start.elapsed() < Duration::from_secs(3));
        assert!(
            matches!(err, Error::Timeout { sent: true, .. }) && err.may_have_applied(),
            "{err}"
        );
    }

    /// The deadline stops the sync loop too: a wait that would end past it
    /// is not waited, the error is Timeout with the last failure.
    #[test]
    fn the_deadline_stops_the_loop() {
        let retry = Retry::new(100, Duration::from_millis(20));
        let budget = Budget::new(Duration::from_millis(100));
        let start = std::time::Instant::now();
        let err = retry
            .run_sync::<()>(&budget, |_| {
                (Err(io(std::io::ErrorKind::ConnectionRefused)), true, false)
            })
            .unwrap_err();
        // the 100 ms deadline, with a loaded machine's slack: not the
        // minutes of 100 attempts
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "{:?}",
            start.elapsed()
        );
        assert!(
            matches!(
                &err,
                Error::Timeout {
                    sent: false,
                    last: Some(_),
                    ..
                }
            ),
            "{err}"
        );
        assert!(!err.may_have_applied(), "{err}");
        assert!(err.to_string().contains("deadline of 100 ms"), "{err}");
        // a final error is answered as it is
        let script = || Error::Script {
            code: crate::Code::Usage,
            detail: String::new(),
        };
        let err = retry
            .run_sync::<()>(&Budget::new(Duration::ZERO), |_| {
                (Err(script()), true, true)
            })
            .unwrap_err();
        assert!(matches!(err, Error::Script { .. }));
        // an unknown outcome at the deadline: may have applied
        let err = retry
            .run_sync::<()>(&Budget::new(Duration::ZERO), |_| {
                (Err(io(std::io::ErrorKind::TimedOut)), false, true)
            })
            .unwrap_err();
        assert!(matches!(err, Error::Timeout { sent: true, .. }) && err.may_have_applied());
    }

    #[cfg(feature = "tls")]
    #[test]
    fn a_tls_failure_is_final() {
        let certificate =
            rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer);
        let err = Error::Redis(redis::RedisError::from(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            certificate,
        )));
        assert!(!err.may_have_applied(), "{err}");
        assert_eq!(Retry::default().after(1, &err, true), None, "{err}");
        let err = Error::Redis(redis::RedisError::from(
            rustls::Error::NoCertificatesPresented,
        ));
        assert!(!err.may_have_applied(), "{err}");
        // another io error stays "outcome unknown"
        let reset = io(std::io::ErrorKind::ConnectionReset);
        assert!(reset.may_have_applied());
    }
}
