//! Command help: each command's own options under "Options:", the ten
//! global ones after them under "Global options:" (they were interleaved
//! with the command's own).

use crate::support::redvote;

/// The global options, as `--help` names them.
const GLOBAL: [&str; 10] = [
    "--url",
    "--tls-ca",
    "--tls-cert",
    "--tls-key",
    "--wait-replicas",
    "--wait-timeout",
    "--prefix",
    "--json",
    "--timeout",
    "--retries",
];

/// The option names of the help section that starts with `heading`: up
/// to the next heading (a line that is neither blank nor indented; long
/// help, as `serve`'s, has blank lines between its options).
fn section(help: &str, heading: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| *l != heading)
        .skip(1)
        .take_while(|l| l.trim().is_empty() || l.starts_with(' '))
        .filter(|l| l.trim_start().starts_with('-'))
        .filter_map(|l| {
            l.split_whitespace()
                .find(|w| w.starts_with("--"))
                .map(|w| w.trim_end_matches(',').to_string())
        })
        .collect()
}

#[test]
fn global_options_have_their_own_heading() {
    for args in [
        &["--help"][..],
        &["post", "--help"],
        &["articles", "--help"],
        &["campaign", "x", "vote", "--help"],
        &["campaign", "x", "top", "--help"],
        &["serve", "--help"],
    ] {
        let out = redvote(None, args);
        assert!(out.status.success(), "{args:?}");
        let help = String::from_utf8_lossy(&out.stdout);
        let own = section(&help, "Options:");
        for g in GLOBAL {
            assert!(
                !own.iter().any(|o| o == g),
                "{args:?}: {g} among the command's own: {help}"
            );
        }
        assert_eq!(
            section(&help, "Global options:"),
            GLOBAL,
            "{args:?}: {help}"
        );
        let (own_at, global_at) = (help.find("Options:"), help.find("Global options:"));
        assert!(
            own_at < global_at,
            "{args:?}: the command's own first: {help}"
        );
    }
}
