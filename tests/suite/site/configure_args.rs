//! `configure` takes at most the four settings, as 8 arguments: more is
//! refused with REDVOTE_USAGE before anything is read or written (thousands
//! of pairs once reached Lua's `unpack` limit and answered INTERNAL).

use redvote::{Code, Site};

use crate::support::{self, raw, refused_unchanged};

#[test]
fn configure_refuses_more_than_four_settings() {
    let server = support::server();
    let mut con = support::con(&server);
    let site = Site::new("");
    let root = site.root_key().to_string();
    let four = [
        "vote_score",
        "400",
        "window",
        "3600",
        "page_size",
        "10",
        "rankings",
        "hot",
    ];
    raw(&mut con, "configure", &root, &four).unwrap();
    let five: Vec<&str> = four.iter().copied().chain(["page_size", "5"]).collect();
    refused_unchanged(&mut con, "5 settings", Code::Usage, |con| {
        raw(con, "configure", &root, &five)
    });
    let many: Vec<&str> = (0..5000).flat_map(|_| ["page_size", "5"]).collect();
    refused_unchanged(&mut con, "5000 settings", Code::Usage, |con| {
        raw(con, "configure", &root, &many)
    });
}
