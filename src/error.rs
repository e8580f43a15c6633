//! The error model: one table of stable codes shared by every script, and the
//! [`Error`] the driver returns.
//!
//! A script refuses with `redis.error_reply('REDVOTE_<CODE> <detail>')`;
//! redis-rs hands that over as a server error whose `code()` is the code word,
//! which [`Code::parse`] maps back. Nothing here parses message text.

use std::fmt;

/// `codes! { Name => "REDVOTE_WIRE", ... }`: the [`Code`] enum, its `ALL`
/// list and its wire forms, from one table.
macro_rules! codes {
    ($($(#[doc = $doc:literal])+ $name:ident => $wire:literal,)+) => {
        /// Every error code a script can answer with (`REDVOTE_<NAME>`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
        pub enum Code {
            $($(#[doc = $doc])+ $name,)+
        }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: [Code; [$($wire),+].len()] = [$(Code::$name),+];

            /// The wire form, e.g. `REDVOTE_UNKNOWN_ARTICLE`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$name => $wire,)+
                }
            }
        }
    };
}

codes! {
    /// Wrong number of keys or arguments, or a key that is not the site or campaign root.
    Usage => "REDVOTE_USAGE",
    /// Empty, oversized (> 256 bytes) or control-character user.
    InvalidUser => "REDVOTE_INVALID_USER",
    /// A campaign vote id that is oversized (> 128 bytes) or holds control characters.
    InvalidVoteId => "REDVOTE_INVALID_VOTE_ID",
    /// A campaign vote id already applied to a vote with other arguments.
    VoteIdReused => "REDVOTE_VOTE_ID_REUSED",
    /// `campaign_void`: no vote with that id is recorded (never applied,
    /// or its record expired after the campaign's `vote_id_ttl`).
    UnknownVote => "REDVOTE_UNKNOWN_VOTE",
    /// `campaign_void`: the vote's record was written by a redvote that kept
    /// no amounts (0.5 or before), so there is nothing exact to subtract.
    NotVoidable => "REDVOTE_NOT_VOIDABLE",
    /// An article reference that is not `N` or `article:N` (e.g. `1:x`, `{a}`).
    InvalidId => "REDVOTE_INVALID_ID",
    /// Empty, oversized or malformed title or link.
    InvalidText => "REDVOTE_INVALID_TEXT",
    /// A number that is malformed, negative, zero where 1.. is needed, or out of range.
    InvalidNumber => "REDVOTE_INVALID_NUMBER",
    /// A vote other than `up`, `down` or `none`.
    InvalidVote => "REDVOTE_INVALID_VOTE",
    /// An order other than `score`, `time`, `hot` or `best`.
    InvalidOrder => "REDVOTE_INVALID_ORDER",
    /// A group name that is empty, oversized or could address another key.
    InvalidGroup => "REDVOTE_INVALID_GROUP",
    /// A setting that is unknown or out of range, a stored setting that is corrupt, or a key of the wrong type.
    InvalidConfig => "REDVOTE_INVALID_CONFIG",
    /// A setting that can no longer change (vote_score, or a longer window, once articles exist).
    ConfigLocked => "REDVOTE_CONFIG_LOCKED",
    /// No such article.
    UnknownArticle => "REDVOTE_UNKNOWN_ARTICLE",
    /// The article's voting window has closed.
    VotingClosed => "REDVOTE_VOTING_CLOSED",
    /// A board or option name that is empty, oversized or could address another key.
    InvalidName => "REDVOTE_INVALID_NAME",
    /// No such campaign (never configured).
    UnknownCampaign => "REDVOTE_UNKNOWN_CAMPAIGN",
    /// No such board in the campaign.
    UnknownBoard => "REDVOTE_UNKNOWN_BOARD",
    /// No such option on the board.
    UnknownOption => "REDVOTE_UNKNOWN_OPTION",
    /// A vote before the campaign's start or from its end on.
    CampaignClosed => "REDVOTE_CAMPAIGN_CLOSED",
    /// A period name that is malformed, or a period the board does not keep.
    InvalidPeriod => "REDVOTE_INVALID_PERIOD",
    /// `campaign_remove`: a cursor that is not the one the removal's last
    /// step handed out (nor the one that step was sent): go on with `"0"`.
    InvalidCursor => "REDVOTE_INVALID_CURSOR",
    /// A buffered campaign holds more votes than the call (a configure, a
    /// void) folds first: fold them ([`crate::Campaign::fold`]) and send it
    /// again; nothing was written.
    Unfolded => "REDVOTE_UNFOLDED",
    /// A rate limit refused the vote (see [`Error::RateLimited`]).
    RateLimited => "REDVOTE_RATE_LIMITED",
    /// The user or channel is on the campaign's deny list.
    Denied => "REDVOTE_DENIED",
    /// A write that would take a score beyond the range doubles hold exactly.
    OutOfRange => "REDVOTE_OUT_OF_RANGE",
    /// The site's or campaign's stored data layout is one these scripts do
    /// not read or write (written by a newer or much older redvote), or a
    /// campaign still at layout 1 was asked for what needs layout 2 (see
    /// docs/versions.md); nothing was written.
    LayoutVersion => "REDVOTE_LAYOUT_VERSION",
    /// Redis refused a command inside a script, or the script hit a bug.
    Internal => "REDVOTE_INTERNAL",
}

impl Code {
    /// The code for a wire form, if it is one of ours.
    pub fn parse(code: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.as_str() == code)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a redvote call can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A script refused the call; nothing was written.
    #[error("{code} {detail}")]
    Script {
        /// The stable code.
        code: Code,
        /// The script's human-readable detail (names the offending value).
        detail: String,
    },
    /// A campaign vote was refused by a rate limit; nothing was spent or written.
    #[error("{}", .0)]
    RateLimited(RateLimited),
    /// Redis could not be reached, or answered with an error of its own.
    #[error("redis: {}{}", .0, tls_hint(.0))]
    Redis(redis::RedisError),
    /// A connection setting that cannot work (a URL form this build does
    /// not know, a certificate file that cannot be read); the message never
    /// holds a password.
    #[error("connection setting: {0}")]
    Config(String),
    /// The call was applied on the primary, but fewer replicas than
    /// [`crate::Client::wait_for_replicas`] asked for acknowledged it in
    /// time: a failover now may lose it. Sending an idempotent call again
    /// is safe (a campaign vote with its vote id answers its first reply).
    #[error(
        "applied on the primary but acknowledged by {acked} of {wanted} replicas within {timeout_ms} ms: a failover may lose it"
    )]
    NotReplicated {
        /// Replicas that acknowledged the write.
        acked: u32,
        /// Replicas asked for.
        wanted: u32,
        /// The WAIT timeout.
        timeout_ms: u64,
    },
    /// The call was sent and may have been applied, but what came after
    /// failed with `source`, which alone would read as "not run" or as a
    /// plain failure: the `WAIT` after a script that had answered (the
    /// write happened; whether a replica has it is unknown), or, on a
    /// Redis Cluster, the last of redis-rs's own resends of a call that is
    /// not idempotent (a refused connection, `TRYAGAIN` or `CLUSTERDOWN`
    /// after an attempt that may have run). [`Error::may_have_applied`] is
    /// true; the driver resends it only when the call is idempotent.
    #[error("{source} (the call may have been applied)")]
    MayHaveApplied {
        /// The failure itself.
        source: Box<Error>,
    },
    /// The call's deadline ([`crate::Client::deadline`]) passed before it
    /// finished: connecting (Sentinel discovery and cluster routing
    /// included), every send, and the waits between retries all count
    /// against it. [`Error::may_have_applied`] is true when the call may have
    /// been sent (`sent`); otherwise it certainly did not run.
    #[error("{}", timeout_message(*.deadline_ms, *.sent, .last.as_deref()))]
    Timeout {
        /// The deadline, in ms.
        deadline_ms: u64,
        /// Whether the call may have been sent (and applied) before it.
        sent: bool,
        /// The last failure before the deadline, if an attempt failed.
        last: Option<Box<Error>>,
    },
    /// A script answered with a reply this driver does not understand
    /// (a script from another redvote version, or a hand-edited one).
    #[error("unexpected reply from lua/{script}.lua: {reason}")]
    Reply {
        /// The script's operation name.
        script: &'static str,
        /// What did not fit.
        reason: String,
    },
}

impl Error {
    /// The script's code, when a script refused the call.
    pub fn code(&self) -> Option<Code> {
        match self {
            Error::Script { code, .. } => Some(*code),
            Error::RateLimited(_) => Some(Code::RateLimited),
            _ => None,
        }
    }
}

/// What a TLS handshake that rustls refused for the server's certificate
/// itself means, in words (empty for any other error): a self-signed
/// certificate (`CaUsedAsEndEntity`) or an X.509 v1 one
/// (`UnsupportedCertVersion`) cannot be a server's certificate.
fn tls_hint(e: &redis::RedisError) -> &'static str {
    let text = format!("{e} {e:?}");
    if text.contains("CaUsedAsEndEntity") {
        " (the server's certificate is a CA certificate, e.g. self-signed: a TLS server needs \
         a certificate signed by a CA, with basicConstraints CA:FALSE and a subjectAltName for \
         the host; give that CA with --tls-ca / Tls::ca; docs/connecting.md, \"A CA-signed \
         server certificate\")"
    } else if text.contains("UnsupportedCertVersion") {
        " (the server's certificate is X.509 v1, e.g. made by `openssl x509 -req` without \
         extensions: a TLS server needs a v3 certificate signed by a CA, with a subjectAltName \
         for the host; docs/connecting.md, \"A CA-signed server certificate\")"
    } else {
        ""
    }
}

/// What [`Error::Timeout`] says.
fn timeout_message(deadline_ms: u64, sent: bool, last: Option<&Error>) -> String {
    let mut m = format!("no result within the deadline of {deadline_ms} ms");
    if let Some(last) = last {
        m.push_str(&format!(" (last failure: {last})"));
    }
    if sent {
        m.push_str(" (the call may have been applied)");
    }
    m
}

/// Which rate limit refused a vote, what every rule leaves, and when a vote
/// would pass. Carried by `REDVOTE_RATE_LIMITED` as a JSON detail.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RateLimited {
    /// The (first) rule that refused.
    pub rule: String,
    /// Seconds until a vote would pass; -1 when not within the campaign
    /// (a whole-campaign limit is used up, or the vote asks for more than a
    /// whole window allows).
    pub retry_after: i64,
    /// Votes each rule still allows this voter now.
    pub remaining: std::collections::BTreeMap<String, i64>,
}

impl fmt::Display for RateLimited {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "REDVOTE_RATE_LIMITED rule {} refused the vote",
            self.rule
        )?;
        match self.retry_after {
            -1 => write!(f, " for the rest of the campaign")?,
            s => write!(f, "; retry after {s} s")?,
        }
        let left: Vec<String> = self
            .remaining
            .iter()
            .map(|(r, n)| format!("{r} {n}"))
            .collect();
        write!(f, " (remaining: {})", left.join(", "))
    }
}

impl From<redis::RedisError> for Error {
    fn from(err: redis::RedisError) -> Self {
        if err.code() == Some(Code::RateLimited.as_str()) {
            if let Ok(refusal) = serde_json::from_str(err.detail().unwrap_or_default()) {
                return Error::RateLimited(refusal);
            }
        }
        match err.code().and_then(Code::parse) {
            Some(code) => Error::Script {
                code,
                detail: err.detail().unwrap_or_default().to_string(),
            },
            None => Error::Redis(err),
        }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for code in Code::ALL {
            assert_eq!(Code::parse(code.as_str()), Some(code));
        }
        assert_eq!(Code::parse("ERR"), None);
    }

    /// Both ways: every code a script can raise is in the table, and every
    /// code in the table (but the catch-all) is raised by some script.
    #[test]
    fn table_matches_the_scripts() {
        let mut raised = std::collections::BTreeSet::new();
        for s in crate::scripts::all() {
            for (i, _) in s.source().match_indices("fail('") {
                let rest = &s.source()[i + 6..];
                let word = &rest[..rest.find('\'').unwrap()];
                raised.insert(format!("REDVOTE_{word}"));
            }
        }
        for code in &raised {
            assert!(
                Code::parse(code).is_some(),
                "{code} raised by a script but missing from Code"
            );
        }
        for code in Code::ALL {
            if code != Code::Internal {
                assert!(
                    raised.contains(code.as_str()),
                    "{code} is in Code but no script raises it"
                );
            }
        }
    }
}
