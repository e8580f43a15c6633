//! Reading script replies into typed results.
//!
//! [`Reply`] is how a result type is read from its script's reply. Every
//! result type needs nothing beyond the reply, so it also implements
//! redis-rs's [`redis::FromRedisValue`](https://docs.rs/redis/1.8/redis/trait.FromRedisValue.html): a reply fetched by hand (a
//! pipeline, a transaction, `EVALSHA` through any client) decodes with
//! `FromRedisValue`, e.g. `let (a, b): (VoteOutcome, Article) =
//! pipe.query(&mut con)?`. A [`crate::Page`] is not one reply: a
//! [`crate::PageCall`] reads it in two round trips, the first of which
//! answers a [`crate::PageIds`].
//!
//! The helpers below turn RESP values into Rust ones with an error naming
//! what did not fit; the caller adds the script's name.

use redis::Value;

/// Why a reply did not fit; [`crate::Call`] adds the script name.
pub(crate) type Shape<T> = Result<T, String>;

/// A result type read from a script's reply. `Send`: a sync cluster
/// [`Connection`](crate::Connection) may read it on a helper thread (when
/// called inside a tokio runtime).
pub trait Reply: Sized + Send {
    /// Read `reply`, or say why it does not fit.
    fn from_reply(reply: Value) -> Result<Self, String>;
}

/// `reply_type!(T => |v| ...)`: `T` is read from the reply alone, by this
/// function; it implements [`Reply`] and
/// [`redis::FromRedisValue`](https://docs.rs/redis/1.8/redis/trait.FromRedisValue.html).
macro_rules! reply_type {
    ($($ty:ty => $read:expr;)+) => {$(
        impl $crate::reply::Reply for $ty {
            fn from_reply(v: redis::Value) -> Result<Self, String> {
                let read: fn(redis::Value) -> $crate::reply::Shape<$ty> = $read;
                read(v)
            }
        }
        impl redis::FromRedisValue for $ty {
            fn from_redis_value(v: redis::Value) -> Result<Self, redis::ParsingError> {
                <$ty as $crate::reply::Reply>::from_reply(v).map_err(Into::into)
            }
        }
    )+};
}
pub(crate) use reply_type;

/// An array's items.
pub(crate) fn items(v: Value) -> Shape<Vec<Value>> {
    match v {
        Value::Array(items) => Ok(items),
        other => Err(format!("expected an array, got {other:?}")),
    }
}

/// Item `i` of an array.
pub(crate) fn get(items: &[Value], i: usize) -> Shape<&Value> {
    items
        .get(i)
        .ok_or_else(|| format!("reply has {} items, wanted at least {}", items.len(), i + 1))
}

/// A string (bulk, simple or an integer's digits).
pub(crate) fn text(v: &Value) -> Shape<String> {
    match v {
        Value::BulkString(b) => Ok(String::from_utf8_lossy(b).into_owned()),
        Value::SimpleString(s) => Ok(s.clone()),
        Value::Int(i) => Ok(i.to_string()),
        other => Err(format!("expected a string, got {other:?}")),
    }
}

/// An integer (an integer reply or its digits).
pub(crate) fn int(v: &Value) -> Shape<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        other => text(other)?
            .parse()
            .map_err(|e| format!("expected an integer: {e}")),
    }
}

/// A count: a non-negative integer.
pub(crate) fn count(v: &Value) -> Shape<u64> {
    let n = int(v)?;
    u64::try_from(n).map_err(|_| format!("expected a count, got {n}"))
}

/// A number sent as a string, or nil.
pub(crate) fn float(v: &Value) -> Shape<Option<f64>> {
    match v {
        Value::Nil => Ok(None),
        other => text(other)?
            .parse()
            .map(Some)
            .map_err(|e| format!("expected a number: {e}")),
    }
}

/// A word of one of the [`crate::words`] enums.
pub(crate) fn word<T: std::str::FromStr<Err = String>>(v: &Value) -> Shape<T> {
    text(v)?.parse()
}

/// A count, or nil.
pub(crate) fn opt_count(v: &Value) -> Shape<Option<u64>> {
    match v {
        Value::Nil => Ok(None),
        v => count(v).map(Some),
    }
}

/// A string, or nil.
pub(crate) fn opt_text(v: &Value) -> Shape<Option<String>> {
    match v {
        Value::Nil => Ok(None),
        v => text(v).map(Some),
    }
}

/// An array read item by item.
pub(crate) fn list<T>(v: Value, read: impl Fn(Vec<Value>) -> Shape<T>) -> Shape<Vec<T>> {
    items(v)?.into_iter().map(|i| read(items(i)?)).collect()
}

/// A flat `field, value, ...` array as pairs of strings.
pub(crate) fn pairs(v: Value) -> Shape<Vec<(String, String)>> {
    let items = items(v)?;
    if items.len() % 2 != 0 {
        return Err("odd number of field/value items".into());
    }
    items
        .chunks(2)
        .map(|c| Ok((text(&c[0])?, text(&c[1])?)))
        .collect()
}

/// A count (`post`'s new id, `reset_limits`'s deleted counters). redis-rs
/// already reads `u64` with `FromRedisValue`.
impl Reply for u64 {
    fn from_reply(v: Value) -> Shape<u64> {
        count(&v)
    }
}
