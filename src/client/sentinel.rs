//! Asking the sentinels for the master, and checking that it answers as
//! one, each step within the call's [`Budget`] (sync and async alike).
//!
//! redis-rs's sync Sentinel client sets no timeout while it asks the
//! sentinels and checks the master: one stalled (SIGSTOPped) sentinel hung
//! every new connection forever. Here each sentinel gets a share of what
//! remains of the deadline (so a stalled one leaves time to ask the next),
//! capped by the client's connect and response timeouts; the sentinel that
//! answered is asked first next time. The master is connected to with the
//! same caps and must answer `ROLE` as `master` (a stalled or demoted one
//! fails the attempt, which the retry policy reads as "not run" and asks
//! the sentinels again).

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::retry::Budget;
use super::target::Sentinel;
use crate::error::Result;

/// A failure to find a master that answers as one: nothing was sent (the
/// retry policy reads it as "not run").
fn no_master(detail: String) -> crate::Error {
    redis::RedisError::from((
        redis::ErrorKind::MasterNameNotFoundBySentinel,
        "no master found through the sentinels",
        detail,
    ))
    .into()
}

/// The sentinels in the order to ask them: the last that answered first.
fn order(s: &Sentinel) -> impl Iterator<Item = (usize, &redis::Client)> {
    let n = s.sentinels.len();
    let first = s.first.load(Ordering::Relaxed) % n.max(1);
    (0..n).map(move |k| {
        let i = (first + k) % n;
        (i, &s.sentinels[i])
    })
}

/// The share of `budget` the `k`th of `n` sentinels gets (what remains,
/// split among those not asked yet), no longer than `timeout`.
fn share(budget: &Budget, k: usize, n: usize, timeout: Duration) -> Duration {
    let left = (n - k).max(1) as u32;
    budget.cap(timeout.min(budget.remaining() / left))
}

/// `ROLE`'s first element: `master`, `slave`, `sentinel`.
fn role_of(reply: &redis::Value) -> Option<String> {
    match reply {
        redis::Value::Array(items) => items
            .first()
            .and_then(|v| redis::from_redis_value_ref::<String>(v).ok()),
        _ => None,
    }
}

/// Whether `ROLE` answered `master`; otherwise the failure.
fn check_master(role: redis::RedisResult<redis::Value>, host: &str, port: u16) -> Result<()> {
    match role.map(|r| role_of(&r)) {
        Ok(Some(role)) if role == "master" => Ok(()),
        Ok(role) => Err(no_master(format!(
            "{host}:{port} answers ROLE as {} (a failover under way?)",
            role.as_deref().unwrap_or("something else")
        ))),
        Err(e) => Err(no_master(format!("{host}:{port} did not answer ROLE: {e}"))),
    }
}

/// The master's address, from the first sentinel that names one.
fn master_addr_sync(
    s: &Sentinel,
    budget: &Budget,
    connect: Duration,
    response: Duration,
) -> Result<(String, u16)> {
    let n = s.sentinels.len();
    let mut failures = Vec::new();
    for (k, (i, sentinel)) in order(s).enumerate() {
        let asked = (|| -> redis::RedisResult<Option<(String, u16)>> {
            let c = share(budget, k, n, connect) / 4; // see setup_cap
            let mut con = sentinel.get_connection_with_timeout(c.max(Duration::from_millis(1)))?;
            let t = share(budget, k, n, response);
            con.set_read_timeout(Some(t))?;
            con.set_write_timeout(Some(t))?;
            redis::cmd("SENTINEL")
                .arg("GET-MASTER-ADDR-BY-NAME")
                .arg(&s.master)
                .query(&mut con)
        })();
        match asked {
            Ok(Some(addr)) => {
                s.first.store(i, Ordering::Relaxed);
                return Ok(addr);
            }
            Ok(None) => failures.push(format!("sentinel {i} knows no master {}", s.master)),
            Err(e) => failures.push(format!("sentinel {i}: {e}")),
        }
    }
    Err(no_master(failures.join("; ")))
}

/// A sync connection to the master the sentinels name, checked with
/// `ROLE`, its read and write timeouts set to `response`.
pub(super) fn connect_sync(
    s: &Sentinel,
    budget: &Budget,
    connect: Duration,
    response: Duration,
) -> Result<redis::Connection> {
    let (host, port) = master_addr_sync(s, budget, connect, response)?;
    let master = s.master_client(&host, port)?;
    let mut con = master.get_connection_with_timeout(super::sync::setup_cap(budget, connect))?;
    con.set_read_timeout(Some(budget.cap(response)))?;
    con.set_write_timeout(Some(budget.cap(response)))?;
    check_master(redis::cmd("ROLE").query(&mut con), &host, port)?;
    con.set_read_timeout(Some(response))?;
    con.set_write_timeout(Some(response))?;
    Ok(con)
}

/// [`connect_sync`], async: a multiplexed connection to the master.
#[cfg(feature = "async")]
pub(super) async fn connect_async(
    s: &Sentinel,
    budget: &Budget,
    connect: Duration,
    response: Duration,
) -> Result<redis::aio::MultiplexedConnection> {
    let config = |c: Duration, r: Duration| {
        redis::AsyncConnectionConfig::new()
            .set_connection_timeout(Some(c))
            .set_response_timeout(Some(r))
    };
    let n = s.sentinels.len();
    let mut failures = Vec::new();
    let mut found = None;
    for (k, (i, sentinel)) in order(s).enumerate() {
        let (c, r) = (share(budget, k, n, connect), share(budget, k, n, response));
        let asked = tokio::time::timeout(c + r, async {
            let mut con = sentinel
                .get_multiplexed_async_connection_with_config(&config(c, r))
                .await?;
            redis::cmd("SENTINEL")
                .arg("GET-MASTER-ADDR-BY-NAME")
                .arg(&s.master)
                .query_async::<Option<(String, u16)>>(&mut con)
                .await
        })
        .await;
        match asked {
            Ok(Ok(Some(addr))) => {
                s.first.store(i, Ordering::Relaxed);
                found = Some(addr);
                break;
            }
            Ok(Ok(None)) => failures.push(format!("sentinel {i} knows no master {}", s.master)),
            Ok(Err(e)) => failures.push(format!("sentinel {i}: {e}")),
            Err(_) => failures.push(format!("sentinel {i}: no answer within {:?}", c + r)),
        }
    }
    let Some((host, port)) = found else {
        return Err(no_master(failures.join("; ")));
    };
    let master = s.master_client(&host, port)?;
    let mut con = master
        .get_multiplexed_async_connection_with_config(&config(budget.cap(connect), response))
        .await?;
    let role = tokio::time::timeout(
        budget.cap(response),
        redis::cmd("ROLE").query_async(&mut con),
    )
    .await
    .unwrap_or_else(|_| Err(std::io::Error::from(std::io::ErrorKind::TimedOut).into()));
    check_master(role, &host, port)?;
    Ok(con)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentinel_gets_a_share_of_what_remains() {
        let budget = Budget::new(Duration::from_secs(2));
        let first = share(&budget, 0, 2, Duration::from_secs(5));
        assert!(first <= Duration::from_secs(1) && first > Duration::from_millis(900));
        let last = share(&budget, 1, 2, Duration::from_secs(5));
        assert!(last > Duration::from_millis(1900), "{last:?}");
        assert_eq!(
            share(&budget, 0, 2, Duration::from_millis(10)),
            Duration::from_millis(10)
        );
    }

    #[test]
    fn role_reads_the_first_element() {
        let master = redis::Value::Array(vec![
            redis::Value::BulkString(b"master".to_vec()),
            redis::Value::Int(0),
        ]);
        assert_eq!(role_of(&master).as_deref(), Some("master"));
        assert!(check_master(Ok(master), "h", 1).is_ok());
        let replica = redis::Value::Array(vec![redis::Value::BulkString(b"slave".to_vec())]);
        let err = check_master(Ok(replica), "h", 1).unwrap_err();
        assert!(!err.may_have_applied(), "{err}");
        assert!(err.to_string().contains("slave"), "{err}");
    }
}
