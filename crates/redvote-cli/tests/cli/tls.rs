//! The CLI over TLS (`rediss://`, `--tls-ca`) and the connecting chapter's
//! TLS examples.

use std::time::{Duration, Instant};

use redvote::campaign::{Paging, View};
use redvote::{Campaign, Client};

use crate::support::redvote;
use crate::support::tls::{certs, client, real, says_unknown_issuer, settings, Certs, TlsServer};

/// The TLS example of the docs, compiled into the tests as the docs show it.
mod readme_example {
    #![allow(dead_code)]
    include!("../../../../tests/readme_examples/tls.rs");
}

fn cli(certs: &Certs, url: &str, ca: &str, args: &[&str]) -> std::process::Output {
    let ca = certs.path(ca);
    let mut all = vec!["--tls-ca", ca.to_str().unwrap(), "--timeout", "3"];
    all.extend(args);
    redvote(Some(url), &all)
}

#[test]
fn the_cli_votes_over_tls_and_names_a_wrong_ca() {
    let certs = certs();
    let server = TlsServer::start(&certs, "optional");
    let url = server.url();
    let file = certs.path("settings.json");
    std::fs::write(&file, serde_json::to_string(&settings()).unwrap()).unwrap();
    let ok = |args: &[&str]| {
        let out = cli(&certs, &url, "ca.pem", args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    ok(&["campaign", "clitls", "configure", file.to_str().unwrap()]);
    ok(&["campaign", "clitls", "vote", "--user", "u1", "B:x"]);
    ok(&[
        "campaign",
        "clitls",
        "vote",
        "--user",
        "u2",
        "--vote-id",
        "r2",
        "B:x",
    ]);
    ok(&[
        "campaign",
        "clitls",
        "vote",
        "--user",
        "u2",
        "--vote-id",
        "r2",
        "B:x",
    ]);
    let top = Client::open_tls(&url, &certs.tls("ca.pem", false))
        .unwrap()
        .connect()
        .unwrap()
        .run(&Campaign::new("clitls").top(
            &["B"],
            &View::real("total"),
            Paging {
                page: 1,
                per_page: 10,
            },
        ))
        .unwrap();
    assert_eq!(real(&top, "x"), "2", "{top:?}");

    let started = Instant::now();
    let out = cli(
        &certs,
        &url,
        "other-ca.pem",
        &["campaign", "clitls", "vote", "--user", "u3", "B:x"],
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    eprintln!("CLI, wrong CA: {stderr}");
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with("redvote: "), "{stderr}");
    assert!(says_unknown_issuer(&stderr.to_lowercase()), "{stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn readme_tls_examples_run() {
    use crate::support::readme::{
        assert_shows_example, quoted_url, run_ok, section, sh_commands, spring_settings, stars_top,
        wjk, Hosts,
    };
    assert_shows_example("tls.rs");
    let certs = certs();
    let server = TlsServer::start(&certs, "optional");
    let hosts = Hosts(vec![(
        "redis.internal:6380".into(),
        format!("127.0.0.1:{}", server.port),
    )]);
    let dir = certs.path("ca.pem").parent().unwrap().to_path_buf();
    let mut admin = client(&server, &certs.tls("ca.pem", true))
        .connect()
        .unwrap();
    let spring = Campaign::new("spring2026");
    admin.run(&spring.configure(&spring_settings())).unwrap();

    // the Rust example, on README's URL with the host replaced
    let url = hosts.apply(quoted_url(include_str!(
        "../../../../tests/readme_examples/tls.rs"
    )));
    let ballots = readme_example::vote_over_tls(&url, &dir).unwrap();
    assert_eq!(ballots.len(), 1);
    assert!(!ballots[0].replay, "{ballots:?}");

    // the CLI lines, in the certificates' directory (ca.pem, client.pem)
    let lines = sh_commands(section("### TLS"), &["redvote "]);
    assert_eq!(lines.len(), 2, "{lines:?}");
    for line in &lines {
        let out = run_ok(&hosts.apply(line), &dir);
        eprintln!("{line}\n{out}");
    }
    // the Rust example's vote and the first line's (the second lists articles)
    assert_eq!(wjk(&admin.run(&stars_top(&spring)).unwrap()), "2");
}
