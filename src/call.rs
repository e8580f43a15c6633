//! [`Call`]: one prepared script invocation, plain data, run sync or async
//! or added to a pipeline.
//!
//! Every [`crate::Site`] and [`crate::Campaign`] method builds a `Call` (the
//! script, its one key, its arguments) without touching the network (a page
//! is a [`crate::PageCall`]: a `Call` and a read of the articles' hashes).
//! Then:
//! - [`Call::run`] / [`Call::run_async`] send it with `EVALSHA`, and as
//!   `EVAL` (which loads it) when the server answers `NOSCRIPT`: one round
//!   trip more, on the node that answered, whatever flushes the cache;
//! - [`Call::add_to`] appends it to a [`redis::Pipeline`](https://docs.rs/redis/1.8/redis/struct.Pipeline.html) (plain or
//!   `atomic()`, i.e. `MULTI`/`EXEC`), and [`Call::decode`] reads its item of
//!   the pipeline's reply. Pipelines do not recover from `NOSCRIPT`: load
//!   the scripts first ([`crate::scripts::load_all`], or
//!   `pipe.load_script(call.script().script())`). With
//!   [`redis::Pipeline::ignore_errors`](https://docs.rs/redis/1.8/redis/struct.Pipeline.html#method.ignore_errors) a refused call is one failed item
//!   and the others still decode.
//!
//! The sync and async APIs are the same names with the same results, built
//! by one code path. `run` sends once; [`crate::Client`]'s connections add
//! timeouts and resend a call when that cannot count it twice
//! ([`Call::is_idempotent`]).

use std::fmt;
use std::marker::PhantomData;

use redis::Value;

use crate::error::{Error, Result};
use crate::reply::Reply;
use crate::scripts::{builtin, EmbeddedScript};

/// A prepared call of one script, returning `T`.
///
/// ```
/// use redvote::Site;
/// let call = Site::default().vote("user:1", "7");
/// assert_eq!(call.script().name(), "vote");
/// assert_eq!(call.key(), "article:");
/// assert_eq!(call.args(), ["user:1", "7", "up"]);
/// ```
#[derive(Clone)]
pub struct Call<T: Reply> {
    script: &'static EmbeddedScript,
    key: String,
    args: Vec<String>,
    idempotent: bool,
    /// The index in `args` of an empty vote id that makes the call
    /// idempotent once filled ([`Call::with_vote_id`]).
    id_arg: Option<usize>,
    /// What the reply is read as.
    reply: PhantomData<fn() -> T>,
}

impl<T: Reply> Call<T> {
    /// The call of operation `op` (a built-in script) on `key`.
    pub(crate) fn new(op: &str, key: &str, args: Vec<String>) -> Self {
        Call {
            script: builtin(op),
            key: key.to_string(),
            args,
            idempotent: true,
            id_arg: None,
            reply: PhantomData,
        }
    }

    /// The same call, declared safe (or not) to send twice.
    pub(crate) fn idempotent(self, idempotent: bool) -> Self {
        Call { idempotent, ..self }
    }

    /// The same call, which a vote id at `args[index]` (empty now) would
    /// make idempotent.
    pub(crate) fn vote_id_at(self, index: usize) -> Self {
        Call {
            id_arg: Some(index),
            ..self
        }
    }

    /// The same call with vote id `id`, when it is a campaign vote sent
    /// without one (None otherwise): idempotent, it counts once however
    /// often it is sent. [`crate::Client`] gives one to every such call on
    /// a cluster, whose client resends after a lost connection.
    pub fn with_vote_id(&self, id: &str) -> Option<Self> {
        let index = self.id_arg.filter(|_| !self.idempotent)?;
        let mut args = self.args.clone();
        args[index] = id.to_string();
        Some(Call {
            script: self.script,
            key: self.key.clone(),
            args,
            idempotent: true,
            id_arg: self.id_arg,
            reply: PhantomData,
        })
    }

    /// Whether the script writes (its shebang lacks `flags=no-writes`):
    /// the calls that [`crate::Client::wait_for_replicas`] waits for.
    pub fn writes(&self) -> bool {
        self.script.writes()
    }

    /// Whether sending this call twice has the effect of sending it once, so
    /// that a call whose outcome is unknown (the connection dropped, or no
    /// reply within the timeout) may be retried: every read; the article
    /// votes (they set a state: up, down or none); configure, groups, rerank,
    /// import and reset-limits (they set values); a campaign vote WITH a
    /// vote id ([`crate::Voter::id`]). Not: a campaign vote without an id
    /// (it adds), `post` and `Site::import` (each makes a new article), a
    /// campaign configure that removes options (sent again it would be
    /// refused: the option is gone).
    pub fn is_idempotent(&self) -> bool {
        self.idempotent
    }

    /// The script this call runs.
    pub fn script(&self) -> &'static EmbeddedScript {
        self.script
    }

    /// The one key (`KEYS[1]`: the site or campaign root).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The arguments (`ARGV`).
    pub fn args(&self) -> &[String] {
        &self.args
    }

    /// The redis-rs invocation (`EVALSHA sha1 1 key args...`), for callers
    /// who send it themselves; read its reply with [`Call::decode`].
    pub fn invocation(&self) -> redis::ScriptInvocation<'static> {
        let mut inv = self.script.script().prepare_invoke();
        inv.key(&self.key);
        for arg in &self.args {
            inv.arg(arg);
        }
        inv
    }

    /// Append this call to `pipe` (as `EVALSHA`; load the scripts first).
    pub fn add_to<'p>(&self, pipe: &'p mut redis::Pipeline) -> &'p mut redis::Pipeline {
        pipe.invoke_script(&self.invocation())
    }

    /// Read this call's reply: a script's refusal (a server error value, as
    /// an `ignore_errors` pipeline returns it) becomes its [`Error`].
    pub fn decode(&self, reply: Value) -> Result<T> {
        if let Value::ServerError(err) = reply {
            return Err(redis::RedisError::from(err).into());
        }
        T::from_reply(reply).map_err(|reason| Error::Reply {
            script: self.script.name(),
            reason,
        })
    }

    /// Run on a sync connection (`redis::Connection`, `redis::Client`, a
    /// cluster connection, ...): `EVALSHA`, and on NOSCRIPT `EVAL` with the
    /// source, which also caches the script on that server. Nothing is sent
    /// to other nodes (a `SCRIPT LOAD` to every node of a cluster would
    /// fail while one is down), and a `SCRIPT FLUSH` between the two cannot
    /// fail the call.
    pub fn run(&self, con: &mut dyn redis::ConnectionLike) -> Result<T> {
        match self.command(false).query(con) {
            Err(err) if is_noscript(&err) => self.decode(self.command(true).query(con)?),
            reply => self.decode(reply?),
        }
    }

    /// Run on an async connection (`MultiplexedConnection`,
    /// `ConnectionManager`, a cluster connection, ...), with the same
    /// NOSCRIPT recovery.
    #[cfg(feature = "async")]
    pub async fn run_async<C: redis::aio::ConnectionLike>(&self, con: &mut C) -> Result<T> {
        match self.command(false).query_async(con).await {
            Err(err) if is_noscript(&err) => {
                self.decode(self.command(true).query_async(con).await?)
            }
            reply => self.decode(reply?),
        }
    }

    /// The call as `EVALSHA <sha1> 1 <key> <args>...`, or with `eval` as
    /// `EVAL <source> 1 <key> <args>...` (the NOSCRIPT fallback).
    pub(crate) fn command(&self, eval: bool) -> redis::Cmd {
        let mut cmd = if eval {
            let mut cmd = redis::cmd("EVAL");
            cmd.arg(self.script.source());
            cmd
        } else {
            let mut cmd = redis::cmd("EVALSHA");
            cmd.arg(self.script.sha1());
            cmd
        };
        cmd.arg(1).arg(&self.key).arg(&self.args);
        cmd
    }
}

pub(crate) fn is_noscript(err: &redis::RedisError) -> bool {
    err.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::NoScript)
}

impl<T: Reply> fmt::Debug for Call<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call")
            .field("script", &self.script.name())
            .field("key", &self.key)
            .field("args", &self.args)
            .finish()
    }
}

/// The same call as a `redis-cli` command line: `EVALSHA <sha1> 1 <key> <args>...`
/// (after `redvote load`), for debugging by hand.
impl<T: Reply> fmt::Display for Call<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EVALSHA {} 1 {:?}", self.script.sha1(), self.key)?;
        for arg in &self.args {
            write!(f, " {arg:?}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::{Campaign, Site, Voter};

    /// What a cluster connection does to a call its client may resend.
    #[test]
    fn only_a_campaign_vote_without_an_id_takes_one() {
        let c = Campaign::new("c");
        let vote = c.vote("u", &[("b", "o")]);
        let with = vote
            .with_vote_id("auto-1")
            .expect("a vote without id takes one");
        assert!(with.is_idempotent());
        assert_eq!(with.args()[5], "auto-1");
        assert_eq!(with.args()[..5], vote.args()[..5]);
        assert_eq!(with.args()[6..], vote.args()[6..]);
        let own = c.vote_by(&Voter::new("u").id("mine"), &[("b", "o")]);
        assert!(own.with_vote_id("auto-2").is_none(), "its own id is kept");
        assert!(Site::default()
            .post("u", "t", "https://e.x")
            .with_vote_id("x")
            .is_none());
        assert!(c
            .top(
                &["b"],
                &crate::View::new(crate::Kind::Real, "total"),
                crate::Paging::new(1, 5)
            )
            .with_vote_id("x")
            .is_none());
    }
}
