//! The wait for replicas after a write ([`Client::wait_for_replicas`]):
//! the script and `WAIT` in one pipeline whose errors come back as values
//! (sent as `EVAL` again after `NOSCRIPT`), and the reading of its two
//! replies: the script's result, then whether enough replicas acknowledged
//! ([`Error::NotReplicated`]; a failed `WAIT` after the script ran leaves
//! the call "may have applied"). The sync and async connections send the
//! pipeline their own way and share the rest: [`run_waited!`].
//!
//! [`Client::wait_for_replicas`]: super::Client::wait_for_replicas

use std::time::Duration;

use super::retry::applied;
use crate::call::Call;
use crate::error::{Error, Result};
use crate::reply::Reply;

/// `call` (as EVALSHA, or with `eval` as EVAL) then `WAIT`, in one
/// pipeline whose errors come back as values.
pub(super) fn wait_pipeline<T: Reply>(
    call: &Call<T>,
    replicas: u32,
    timeout: Duration,
    eval: bool,
) -> redis::Pipeline {
    let mut pipe = redis::pipe();
    pipe.add_command(call.command(eval))
        .add_command(wait_cmd(replicas, timeout))
        .ignore_errors();
    pipe
}

/// The two values of a pipeline of two.
pub(super) fn two<T: Reply>(
    call: &Call<T>,
    values: Vec<redis::Value>,
) -> Result<(redis::Value, redis::Value)> {
    let mut values = values.into_iter();
    match (values.next(), values.next()) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err(Error::Reply {
            script: call.script().name(),
            reason: "a pipeline of 2 answered fewer replies".into(),
        }),
    }
}

/// `WAIT replicas timeout` (at least 1 ms: 0 would wait for ever).
pub(super) fn wait_cmd(replicas: u32, timeout: Duration) -> redis::Cmd {
    let mut cmd = redis::cmd("WAIT");
    cmd.arg(replicas).arg(timeout.as_millis().max(1) as u64);
    cmd
}

/// Whether a pipeline's item is a `NOSCRIPT` refusal.
pub(super) fn is_noscript_value(value: &redis::Value) -> bool {
    matches!(value, redis::Value::ServerError(e) if e.code() == "NOSCRIPT")
}

/// WAIT's reply against what was asked.
pub(super) fn check_acks(reply: redis::Value, wanted: u32, timeout: Duration) -> Result<()> {
    let acked = match reply {
        redis::Value::Int(n) => u32::try_from(n).unwrap_or(0),
        // the script ran: a failed WAIT leaves its replication unknown
        redis::Value::ServerError(e) => return Err(applied(redis::RedisError::from(e).into())),
        other => {
            return Err(applied(Error::Reply {
                script: "WAIT",
                reason: format!("{other:?}"),
            }))
        }
    };
    if acked >= wanted {
        return Ok(());
    }
    Err(Error::NotReplicated {
        acked,
        wanted,
        timeout_ms: timeout.as_millis() as u64,
    })
}

/// Run a [`wait_pipeline`] through `send` (sync or async alike: `send`
/// answers the pipeline's two values), again as EVAL after NOSCRIPT, and
/// read both replies.
macro_rules! run_waited {
    ($call:expr, $replicas:expr, $timeout:expr, |$pipe:ident| $send:expr) => {{
        let (call, replicas, timeout) = ($call, $replicas, $timeout);
        let mut reply = {
            let $pipe = $crate::client::wait::wait_pipeline(call, replicas, timeout, false);
            $send
        };
        if $crate::client::wait::is_noscript_value(&reply.0) {
            let $pipe = $crate::client::wait::wait_pipeline(call, replicas, timeout, true);
            reply = $send;
        }
        let value = call.decode(reply.0)?;
        $crate::client::wait::check_acks(reply.1, replicas, timeout)?;
        Ok(value)
    }};
}
pub(super) use run_waited;

#[cfg(test)]
mod tests {
    use super::*;

    fn error(reply: &[u8]) -> redis::Value {
        let value = redis::parse_redis_value(reply).unwrap();
        assert!(matches!(value, redis::Value::ServerError(_)));
        value
    }

    /// A WAIT that fails after the script answered leaves the call
    /// "may have applied"; too few acknowledgements are NotReplicated.
    #[test]
    fn a_failed_wait_may_have_applied() {
        let ms5 = Duration::from_millis(5);
        let err = check_acks(error(b"-TRYAGAIN x\r\n"), 1, ms5).unwrap_err();
        assert!(err.may_have_applied(), "{err}");
        assert!(check_acks(redis::Value::Int(1), 1, ms5).is_ok());
        assert!(check_acks(redis::Value::Int(2), 1, ms5).is_ok());
        let err = check_acks(redis::Value::Int(0), 1, ms5).unwrap_err();
        assert!(err.may_have_applied());
        assert!(matches!(
            err,
            Error::NotReplicated {
                acked: 0,
                wanted: 1,
                timeout_ms: 5
            }
        ));
        let odd = check_acks(redis::Value::Nil, 1, ms5).unwrap_err();
        assert!(odd.may_have_applied(), "{odd}");
    }

    /// The pipeline: the script (EVALSHA, or EVAL with its source), then
    /// WAIT with the timeout in ms (at least 1).
    #[test]
    fn the_pipeline_is_the_script_then_wait() {
        let call = crate::Site::default().vote("u", "1");
        let packed = |eval| {
            let pipe = wait_pipeline(&call, 2, Duration::from_micros(10), eval);
            String::from_utf8_lossy(&pipe.get_packed_pipeline()).into_owned()
        };
        let sha = packed(false);
        assert!(sha.contains("EVALSHA") && sha.contains(call.script().sha1()));
        assert!(
            sha.ends_with("$4\r\nWAIT\r\n$1\r\n2\r\n$1\r\n1\r\n"),
            "{sha:?}"
        );
        let eval = packed(true);
        assert!(eval.contains("$4\r\nEVAL\r\n"), "{eval:?}");
        assert!(!eval.contains("EVALSHA"));
        assert_eq!(
            wait_cmd(1, Duration::from_secs(2)).get_packed_command(),
            redis::cmd("WAIT").arg(1).arg(2000).get_packed_command()
        );
    }

    #[test]
    fn two_replies_or_a_reply_error() {
        let call = crate::Site::default().vote("u", "1");
        let (a, b) = two(&call, vec![redis::Value::Int(1), redis::Value::Int(2)]).unwrap();
        assert_eq!((a, b), (redis::Value::Int(1), redis::Value::Int(2)));
        let err = two(&call, vec![redis::Value::Int(1)]).unwrap_err();
        assert!(matches!(err, Error::Reply { script: "vote", .. }), "{err}");
        assert!(is_noscript_value(&error(
            b"-NOSCRIPT No matching script\r\n"
        )));
        assert!(!is_noscript_value(&error(b"-BUSY x\r\n")));
        assert!(!is_noscript_value(&redis::Value::Nil));
    }

    /// The macro: a NOSCRIPT answer is sent again as EVAL, then both
    /// replies are read.
    #[test]
    fn noscript_is_answered_with_eval() {
        let call = crate::Site::default().config();
        let mut sends = Vec::new();
        let mut replies = vec![
            (error(b"-NOSCRIPT x\r\n"), redis::Value::Int(1)),
            (error(b"-REDVOTE_USAGE refused\r\n"), redis::Value::Int(1)),
        ]
        .into_iter();
        let result: Result<crate::Config> = (|| {
            run_waited!(&call, 1, Duration::from_millis(5), |pipe| {
                sends.push(String::from_utf8_lossy(&pipe.get_packed_pipeline()).into_owned());
                replies.next().unwrap()
            })
        })();
        assert_eq!(sends.len(), 2);
        assert!(sends[0].contains("EVALSHA") && !sends[1].contains("EVALSHA"));
        assert!(matches!(result, Err(Error::Script { .. })), "{result:?}");
    }
}
