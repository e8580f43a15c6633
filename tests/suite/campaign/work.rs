//! Bounded work of a batch vote (`lua/campaign_vote.lua`, Bounded work;
//! `lua/src/lib/board.lua`, CALL_WORK): the largest batch the header states
//! for each board shape is taken, one pair more is refused with
//! `REDVOTE_USAGE` naming how many fit, and the refusal writes nothing.
//! A single pair always fits, on the costliest board too. (The time these
//! batches take is the benchmark's: docs/benchmark.md, Bounded work.)

use redvote::campaign::{BoardSettings, OptionSettings};
use redvote::{Code, Period, Ties};

use crate::support::{self, boards, refused_unchanged, setup, T0};

const FIVE: [Period; 5] = [
    Period::Hour,
    Period::Day,
    Period::Week,
    Period::Month,
    Period::Total,
];

/// A board of 60 options `o0`..`o59` keeping `periods` with `ties`
/// (and carry 0.1 when it keeps more than one period).
fn shaped(periods: &[Period], ties: Ties) -> BoardSettings {
    let mut b = BoardSettings::new(periods).with_ties(ties);
    if periods.len() > 1 {
        b = b.with_carry("0.1");
    }
    for i in 0..60 {
        b = b.with_option(&format!("o{i}"), OptionSettings::default());
    }
    b
}

#[test]
fn a_batch_over_the_bound_is_refused_whole_and_the_largest_stated_one_passes() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = setup(
        &mut con,
        "work",
        boards([
            ("c1", shaped(&[Period::Total], Ties::Competition)),
            ("f1", shaped(&[Period::Total], Ties::First)),
            ("c5", shaped(&FIVE, Ties::Competition)),
            ("f5", shaped(&FIVE, Ties::First)),
        ]),
    );
    let names: Vec<String> = (0..60).map(|i| format!("o{i}")).collect();
    // (board, the most pairs a call takes: the header's figures; 50 is the
    // script's most pairs a call whatever the work)
    for (board, most) in [("c1", 50), ("f1", 25), ("c5", 16), ("f5", 5)] {
        let pairs = |n: usize| -> Vec<(&str, &str)> {
            names[..n].iter().map(|o| (board, o.as_str())).collect()
        };
        let at = c.at(T0);
        at.vote(&format!("{board}-most"), &pairs(most))
            .run(&mut con)
            .unwrap_or_else(|e| panic!("{board}: {most} pairs: {e}"));
        at.vote(&format!("{board}-one"), &pairs(1))
            .run(&mut con)
            .unwrap();
        // one pair more: over the work bound, or (c1) over 50 pairs
        let over = most + 1;
        let detail = refused_unchanged(&mut con, board, Code::Usage, |con| {
            at.vote(&format!("{board}-over"), &pairs(over)).run(con)
        });
        if over <= 50 {
            assert!(
                detail.contains(&format!("send at most {most} pairs of these boards a call")),
                "{board}: {detail}"
            );
        }
    }
}
