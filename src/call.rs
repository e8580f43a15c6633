//! [`Call`]: one prepared script invocation, run sync or async.
//!
//! Every [`crate::Site`] method builds a `Call` (script, key, arguments, how to
//! read the reply) without touching the network; `run` and `run_async` then
//! send it. That keeps the sync and async APIs the same names with the same
//! results, built by one code path.

use std::fmt;

use redis::Value;

use crate::error::{Error, Result};
use crate::model::Shape;
use crate::scripts::EmbeddedScript;

type Reader<T> = Box<dyn Fn(Value) -> Shape<T> + Send + Sync>;

/// A prepared call of one script: run it with [`Call::run`] on a sync
/// connection or [`Call::run_async`] on an async one.
pub struct Call<T> {
    script: &'static EmbeddedScript,
    key: String,
    args: Vec<String>,
    read: Reader<T>,
}

impl<T> Call<T> {
    pub(crate) fn new(
        script: &'static EmbeddedScript,
        key: &str,
        args: Vec<String>,
        read: impl Fn(Value) -> Shape<T> + Send + Sync + 'static,
    ) -> Self {
        Call {
            script,
            key: key.to_string(),
            args,
            read: Box::new(read),
        }
    }

    /// The script this call runs.
    pub fn script(&self) -> &'static EmbeddedScript {
        self.script
    }

    /// The one key (`KEYS[1]`, the site root).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The arguments (`ARGV`).
    pub fn args(&self) -> &[String] {
        &self.args
    }

    fn invocation(&self) -> redis::ScriptInvocation<'static> {
        let mut inv = self.script.script().prepare_invoke();
        inv.key(&self.key);
        for arg in &self.args {
            inv.arg(arg);
        }
        inv
    }

    fn finish(&self, reply: redis::RedisResult<Value>) -> Result<T> {
        (self.read)(reply?).map_err(|reason| Error::Reply {
            script: self.script.name(),
            reason,
        })
    }

    /// Run on a sync connection (`redis::Connection`, `redis::Client`, ...):
    /// `EVALSHA`, loading the script first if the server answers NOSCRIPT.
    pub fn run(&self, con: &mut dyn redis::ConnectionLike) -> Result<T> {
        self.finish(self.invocation().invoke(con))
    }

    /// Run on an async connection (`MultiplexedConnection`,
    /// `ConnectionManager`, ...), with the same NOSCRIPT recovery.
    pub async fn run_async<C: redis::aio::ConnectionLike>(&self, con: &mut C) -> Result<T> {
        let reply = self.invocation().invoke_async(con).await;
        self.finish(reply)
    }
}

impl<T> fmt::Debug for Call<T> {
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
impl<T> fmt::Display for Call<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EVALSHA {} 1 {:?}", self.script.sha1(), self.key)?;
        for arg in &self.args {
            write!(f, " {arg:?}")?;
        }
        Ok(())
    }
}
