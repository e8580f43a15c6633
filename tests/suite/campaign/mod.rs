//! Every `Campaign` operation and setting against a real redis-server, a
//! file per topic: configure (defaults, partial updates, options and display
//! data, offset, start/end), vote (real/shown/weights, batches, all or
//! nothing), exact decimals and the exact range, idempotent import, top, the
//! four tie rules, standing, around, participants, option removal,
//! retention, concurrency and the bad-input catalogue (every refusal leaves
//! `DEBUG DIGEST` as it was). Here: what those files share (the test clock
//! T0, a board's page, expected entries, standings and period names).

mod around;
mod bad_input;
mod batch_docs;
mod buffered;
mod buffered_diff;
mod chapter_example;
mod concurrency;
mod configure;
mod decimals;
mod import;
mod import_stored;
mod layout;
mod order;
mod participants;
mod rank_model;
mod registry;
mod removal;
mod removal_diff;
mod retention;
mod settings_read;
mod sizes;
mod standing;
mod stats;
mod stored;
mod switch;
mod ties;
mod time_bound;
mod top;
mod void;
mod vote;
mod vote_diff;
mod vote_id_empty;
mod vote_ids;
mod work;

use redis::Connection;
use redvote::campaign::{Ballot, Entry, PeriodScore, Standing};
use redvote::{Campaign, Kind};

use crate::support::T0;

fn e(member: &str, score: &str, rank: u64) -> Entry {
    Entry {
        member: member.to_string(),
        score: score.to_string(),
        rank,
    }
}

/// One board's page.
fn page(
    con: &mut Connection,
    c: &Campaign,
    board: &str,
    kind: Kind,
    period: &str,
    page: u32,
    per_page: u32,
) -> Vec<Entry> {
    let mut pages = c
        .top(
            &[board],
            &redvote::View::new(kind, period),
            redvote::Paging::new(page, per_page),
        )
        .run(con)
        .unwrap();
    assert_eq!(pages.len(), 1);
    assert_eq!(pages[0].board, board);
    pages.remove(0).entries
}

fn shown_scores(ballot: &Ballot) -> Vec<(String, String)> {
    ballot
        .shown
        .iter()
        .map(|p| (p.period.clone(), p.score.clone()))
        .collect()
}

fn ps(period: &str, score: &str) -> PeriodScore {
    PeriodScore {
        period: period.to_string(),
        score: score.to_string(),
    }
}

#[allow(clippy::too_many_arguments)]
fn standing(
    member: &str,
    rank: Option<u64>,
    score: Option<&str>,
    ahead: Option<&str>,
    gap: Option<&str>,
    previous_rank: Option<u64>,
    previous_score: Option<&str>,
) -> Standing {
    Standing {
        member: member.to_string(),
        rank,
        score: score.map(str::to_string),
        ahead: ahead.map(str::to_string),
        gap: gap.map(str::to_string),
        previous_rank,
        previous_score: previous_score.map(str::to_string),
        folded: None,
    }
}

/// `hour:YYYY-MM-DDTHH` of a UTC time (offset 0).
fn hour_name(t: u64) -> String {
    let dt = chrono::DateTime::from_timestamp(t as i64, 0).unwrap();
    use chrono::{Datelike, Timelike};
    format!(
        "hour:{:04}-{:02}-{:02}T{:02}",
        dt.year(),
        dt.month(),
        dt.day(),
        dt.hour()
    )
}

fn day_name(t: u64) -> String {
    let dt = chrono::DateTime::from_timestamp(t as i64, 0).unwrap();
    use chrono::Datelike;
    format!("day:{:04}-{:02}-{:02}", dt.year(), dt.month(), dt.day())
}

/// List the shown board of the day of `t` (offset 0, kept one day after
/// it ends) in `<ns>periods:B`, as the index lists a board that has
/// expired since, without writing the board.
fn list_expired_day(con: &mut redis::Connection, ns: &str, board: &str, t: u64) {
    let _: () = redis::cmd("ZADD")
        .arg(format!("{ns}periods:{board}"))
        .arg(t - t % crate::support::DAY + 2 * crate::support::DAY)
        .arg(format!("shown:{}", day_name(t)))
        .query(con)
        .unwrap();
}
