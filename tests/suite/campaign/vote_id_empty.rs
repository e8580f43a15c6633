//! An empty vote id: `Voter::id("")` used to be sent as `""`, which the
//! script reads as "no id", so the vote counted on every send while the
//! driver (and the CLI's message) treated it as idempotent. The driver now
//! refuses it with `REDVOTE_INVALID_VOTE_ID`, writing nothing; a raw `""`
//! stays the script's documented "no id".

use redvote::campaign::Voter;
use redvote::Code;

use super::T0;
use crate::support::vote_ids_campaign as campaign;
use crate::support::{self, raw, real_total, refused_unchanged};

#[test]
fn an_empty_vote_id_is_refused_and_writes_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con);
    c.at(T0).vote("u0", &[("B", "y")]).run(&mut con).unwrap();
    let voter = Voter::new("u1").id("");
    let call = c.at(T0).vote_by(&voter, &[("B", "x")]);
    for n in 0..2 {
        let detail = refused_unchanged(
            &mut con,
            &format!("vote with an empty id, send {n}"),
            Code::InvalidVoteId,
            |con| call.run(con),
        );
        assert!(detail.contains("1..128 bytes"), "{detail}");
    }
    assert_eq!(real_total(&mut con, &c, "B", "x"), 0);
    // the same through the struct's field
    let voter = Voter {
        id: Some(String::new()),
        ..Voter::new("u2")
    };
    refused_unchanged(
        &mut con,
        "Voter { id: Some(\"\") }",
        Code::InvalidVoteId,
        |con| c.at(T0).vote_by(&voter, &[("B", "x")]).run(con),
    );
    // no id at all still counts, once per send
    c.at(T0)
        .vote_by(&Voter::new("u3"), &[("B", "x")])
        .run(&mut con)
        .unwrap();
    assert_eq!(real_total(&mut con, &c, "B", "x"), 1);
}

/// What a raw caller (`redis-cli EVALSHA`) gets: `""` is the script's
/// documented "no id" (ARGV[6]), counted as a vote without an id; any
/// other id it cannot store is refused.
#[test]
fn a_raw_empty_id_is_the_scripts_no_id() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = campaign(&mut con);
    let args = c
        .at(T0)
        .vote_by(&Voter::new("u1"), &[("B", "x")])
        .args()
        .to_vec();
    assert_eq!(args[5], "", "ARGV[6] is the id");
    let root = c.root_key().to_string();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    raw(&mut con, "campaign_vote", &root, &args).unwrap();
    assert_eq!(real_total(&mut con, &c, "B", "x"), 1);
    let mut bad = args.clone();
    bad[5] = "\0";
    refused_unchanged(&mut con, "raw id NUL", Code::InvalidVoteId, |con| {
        raw(con, "campaign_vote", &root, &bad)
    });
}
