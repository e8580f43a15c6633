//! The largest sizes the scripts accept, for callers that document or
//! pre-check them (the `redvote serve` OpenAPI document states them as
//! maxima). The scripts are the authority: a call beyond a cap is refused
//! there (`REDVOTE_INVALID_NUMBER` for a number, `REDVOTE_USAGE` for too
//! many items) and writes nothing; these constants only repeat, in Rust,
//! what their headers say, and a test holds the two together.

/// Articles per site page (`page.lua`, `group_page.lua`, the site's
/// `page_size`) and members per campaign page (`campaign_top.lua`, and the
/// page size `campaign_around.lua` counts pages in).
pub const PER_PAGE: u32 = 100;

/// The highest page number a page read accepts (site and campaign pages).
pub const PAGE: u32 = 1_000_000;

/// Boards one `campaign_top.lua` call reads.
pub const TOP_BOARDS: usize = 20;

/// Members one `campaign_standing.lua` call reads.
pub const STANDING_MEMBERS: usize = 100;

/// Members in the window of one `campaign_around.lua` call.
pub const AROUND_WINDOW: u32 = 101;

/// Options one `campaign_participants.lua` call counts.
pub const PARTICIPANT_OPTIONS: usize = 100;

/// (board, option) pairs one campaign vote casts (`campaign_vote.lua`).
pub const VOTE_PAIRS: usize = 50;

/// What one campaign vote may spend of each rate limit ([`crate::Voter::cost`]).
pub const VOTE_COST: u32 = 1000;

/// (option, votes) pairs one `campaign_import.lua` call sets.
pub const IMPORT_PAIRS: usize = 500;

/// Group changes one `groups.lua` call makes.
pub const GROUPS: usize = 100;

/// Buffered votes one `campaign_fold.lua` call folds ([`crate::Campaign::fold`]).
pub const FOLD_VOTES: u32 = 1000;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scripts::builtin;

    /// Each cap is the one its script's header (or code) states.
    #[test]
    fn caps_are_the_scripts() {
        let per_page = format!("1..{PER_PAGE}");
        for (script, text) in [
            ("page", per_page.clone()),
            ("group_page", per_page.clone()),
            ("campaign_top", format!("per_page  <integer {per_page}>")),
            ("campaign_top", format!("1..{TOP_BOARDS} board")),
            ("campaign_top", format!("'page', 1, {PAGE})")),
            ("page", format!("page must be an integer in 1..{PAGE}")),
            (
                "campaign_around",
                format!("window  <integer 1..{AROUND_WINDOW}>"),
            ),
            ("campaign_around", format!("'per_page', 1, {PER_PAGE})")),
            (
                "campaign_standing",
                format!("members  <name, repeat 1..{STANDING_MEMBERS}>"),
            ),
            (
                "campaign_participants",
                format!("options  <name, repeat 0..{PARTICIPANT_OPTIONS}>"),
            ),
            ("campaign_vote", format!("1..{VOTE_PAIRS} pairs")),
            ("campaign_vote", format!("'cost', 1, {VOTE_COST})")),
            ("campaign_import", format!("1..{IMPORT_PAIRS} pairs")),
            ("groups", format!("at most {GROUPS}")),
            (
                "campaign_fold",
                format!("max  <integer 1..{FOLD_VOTES}, \"\" = {FOLD_VOTES}>"),
            ),
        ] {
            assert!(
                builtin(script).source().contains(&text),
                "lua/{script}.lua does not say {text:?}"
            );
        }
    }
}
