//! What the docs say against what the code does: an option named twice in
//! one batch vote ranks (ties `first`) at its first pair, as
//! docs/campaigns.md now says (it said "an earlier pair reached its score
//! first", which reads as the later of its pairs); and a user is part of
//! one key name, `<ns>rlu:USER`, which docs/layout.md says (the docs said a
//! user was never part of a key name).

use redvote::campaign::BoardSettings;
use redvote::{Kind, Period, Ties};
use redvote_testing::readme::{doc, DOCS};

use super::{page, T0};
use crate::support::{self, board, boards, options, setup};

#[test]
fn an_option_named_twice_in_one_call_ranks_at_its_first_pair() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = setup(
        &mut con,
        "twice",
        boards([(
            "b",
            BoardSettings {
                ties: Some(Ties::First),
                ..board(&[Period::Total], options([("m", 1), ("n", 1)]))
            },
        )]),
    );
    // n reaches 2 at the third pair, m at the fourth: m still ranks first,
    // at its first pair (the first of the call)
    let pairs = [("b", "m"), ("b", "n"), ("b", "n"), ("b", "m")];
    c.at(T0).vote("u1", &pairs).run(&mut con).unwrap();
    let order: Vec<(String, u64)> = page(&mut con, &c, "b", Kind::Real, "total", 1, 10)
        .into_iter()
        .map(|e| (e.member, e.rank))
        .collect();
    assert_eq!(order, [("m".to_string(), 1), ("n".to_string(), 2)]);
}

#[test]
fn the_docs_say_how_a_batch_ranks_and_where_a_user_is_in_a_key_name() {
    let campaigns = doc("docs/campaigns.md");
    assert!(
        !campaigns.contains("an earlier pair reached its score"),
        "campaigns.md: the batch sentence of old"
    );
    assert!(
        campaigns.contains("an option named twice takes all its\nvotes at its first pair"),
        "campaigns.md does not say where an option named twice ranks"
    );
    for (path, text) in DOCS {
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            !flat.contains("never part of a key name"),
            "{path} says a user is never part of a key name"
        );
    }
    let layout = doc("docs/layout.md");
    let row = layout
        .lines()
        .find(|l| l.starts_with("| `<ns>rlu:USER`"))
        .expect("layout.md lists <ns>rlu:USER");
    assert!(row.contains("the one key whose name holds a user"), "{row}");
}
