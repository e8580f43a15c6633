//! Refusals: the code (and detail) of a call that must fail, the
//! digest-unchanged assertion every refusal test relies on, and raw script
//! calls (what `redis-cli --eval` can send and the typed driver cannot).

use redis::{Connection, Value};
use redvote::{Code, Error};

/// One article-site call, its success value discarded: a refusal table's
/// entry, run on the table's site.
pub type SiteCall = fn(&redvote::Site, &mut Connection) -> redvote::Result<()>;

/// One campaign call (on a campaign fixed at a time with `Campaign::at`),
/// its success value discarded: a refusal table's entry.
pub type CampaignCall = fn(&redvote::Campaign, &mut Connection) -> redvote::Result<()>;

/// Forget a call's success value: refusal tables only look at the error.
pub fn discard<T>(result: redvote::Result<T>) -> redvote::Result<()> {
    result.map(|_| ())
}

/// The refusal code and detail of a call that must fail.
#[track_caller]
pub fn refused<T: std::fmt::Debug>(result: redvote::Result<T>, want: Code) -> String {
    match result {
        Err(Error::Script { code, detail }) => {
            assert_eq!(code, want, "wrong code (detail: {detail})");
            detail
        }
        other => panic!("expected a {want} refusal, got {other:?}"),
    }
}

/// Run `call` and require `DEBUG DIGEST` to be the same before and after:
/// the call wrote nothing. `what` names the case in the failure.
#[track_caller]
pub fn unchanged<T>(
    con: &mut Connection,
    what: &str,
    call: impl FnOnce(&mut Connection) -> T,
) -> T {
    let before = crate::digest(con);
    let out = call(con);
    assert_eq!(crate::digest(con), before, "{what}: the refusal wrote");
    out
}

/// A refusal with code `want` that must also leave the data set exactly as
/// it was; returns the detail.
#[track_caller]
pub fn refused_unchanged<T: std::fmt::Debug>(
    con: &mut Connection,
    what: &str,
    want: Code,
    call: impl FnOnce(&mut Connection) -> redvote::Result<T>,
) -> String {
    let before = crate::digest(con);
    let detail = match call(con) {
        Err(Error::Script { code, detail }) => {
            assert_eq!(code, want, "{what}: wrong code (detail: {detail})");
            detail
        }
        other => panic!("{what}: expected a {want} refusal, got {other:?}"),
    };
    assert_eq!(crate::digest(con), before, "{what}: the refusal wrote");
    detail
}

/// A script call with raw arguments, its error mapped to `redvote::Error`.
pub fn raw(con: &mut Connection, script: &str, key: &str, args: &[&str]) -> redvote::Result<Value> {
    let script = redvote::scripts::get(script).unwrap().script();
    let mut inv = script.prepare_invoke();
    inv.key(key);
    for a in args {
        inv.arg(*a);
    }
    inv.invoke::<Value>(con).map_err(Error::from)
}
