//! `participants`: distinct users of the campaign and of each option, each
//! counted once; refusals write nothing, even right after a vote changed the
//! HyperLogLogs.

use redvote::campaign::Participants;
use redvote::{Campaign, Code, Period};

use super::T0;
use crate::support::{self, board, boards, options, refused, refused_unchanged, setup};

#[test]
fn participants_count_each_user_once() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = setup(
        &mut con,
        "pp",
        boards([
            (
                "B",
                board(&[Period::Total], options([("x", 1), ("y", 1), ("z", 1)])),
            ),
            ("C", board(&[Period::Total], options([("w", 1)]))),
        ]),
    );
    let at = c.at(T0);
    at.vote("u1", &[("B", "x")]).run(&mut con).unwrap();
    at.vote("u1", &[("B", "x")]).run(&mut con).unwrap();
    at.vote("u2", &[("B", "x")]).run(&mut con).unwrap();
    at.vote("u3", &[("B", "y")]).run(&mut con).unwrap();
    at.vote("u1", &[("C", "w")]).run(&mut con).unwrap();
    assert_eq!(
        c.participants("B", &["x", "y", "z"]).run(&mut con).unwrap(),
        Participants {
            campaign: 3,
            options: vec![
                ("x".to_string(), 2),
                ("y".to_string(), 1),
                ("z".to_string(), 0)
            ],
        }
    );
    assert_eq!(
        c.participants("B", &[]).run(&mut con).unwrap(),
        Participants {
            campaign: 3,
            options: vec![],
        }
    );
    assert_eq!(
        c.participants("C", &["w"]).run(&mut con).unwrap(),
        Participants {
            campaign: 3,
            options: vec![("w".to_string(), 1)],
        }
    );
    refused(
        c.participants("B", &["w"]).run(&mut con),
        Code::UnknownOption,
    );
    refused(
        c.participants("nope", &[]).run(&mut con),
        Code::UnknownBoard,
    );
    refused(
        c.participants("B", &["a,b"]).run(&mut con),
        Code::InvalidName,
    );
    refused(
        Campaign::new("nope").participants("B", &[]).run(&mut con),
        Code::UnknownCampaign,
    );
}

/// A refused participants call leaves the data set as it was, even when a
/// vote has just changed the HyperLogLogs (whose cached count PFCOUNT
/// rewrites).
#[test]
fn participants_refusals_change_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = setup(
        &mut con,
        "ppbad",
        boards([("B", board(&[Period::Total], options([("x", 1)])))]),
    );
    c.at(T0).vote("u1", &[("B", "x")]).run(&mut con).unwrap();
    refused_unchanged(&mut con, "unknown option", Code::UnknownOption, |con| {
        c.participants("B", &["x", "nope"]).run(con)
    });
    c.at(T0).vote("u2", &[("B", "x")]).run(&mut con).unwrap();
    refused_unchanged(&mut con, "key-like option", Code::InvalidName, |con| {
        c.participants("B", &["x", "a,b"]).run(con)
    });
}
