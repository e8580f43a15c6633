//! `Campaign::settings` (`campaign_settings.lua`, flagged no-writes): the
//! stored settings read back in the configure document's shape, in one
//! read-only call. It answers what was configured (less the deny lists and
//! the options' display data), configures the same campaign when sent back,
//! writes nothing, refuses an unknown campaign and one over a configure
//! call's caps, is not waited for by a client that waits for replicas after
//! writes, and runs on a replica.

use std::time::Duration;

use redvote::campaign::{BoardSettings, OptionSettings};
use redvote::{
    Campaign, CampaignSettings, Code, DenyLists, Dimension, Error, LimitRule, Period, Rolling,
    Ties, Window,
};

use crate::support::{self, DAY, T0};

/// A campaign touching every setting the read returns, and the two it
/// leaves out (deny lists, display data).
fn configured() -> CampaignSettings {
    let stars = BoardSettings::new(&[Period::Hour, Period::Day, Period::Total])
        .with_ties(Ties::First)
        .with_carry("0.25")
        .with_decimals(3)
        .with_retention(Period::Hour, 2 * DAY)
        .with_retention(Period::Day, 0)
        .with_option(
            "a/b",
            OptionSettings::weighted(7).with_data(&[("name", "A")]),
        )
        .with_option("wy", OptionSettings::weighted(1_000_000))
        .with_options(&["yyqx"]);
    let plain = BoardSettings::new(&[Period::Total]).with_options(&["x"]);
    CampaignSettings::new()
        .with_offset("-04:30")
        .with_dates(T0 - DAY, T0 + 30 * DAY)
        .with_limits(vec![
            LimitRule::fixed("user-day", &[Dimension::User], Window::Day, 10)
                .with_extra("partner", 5),
            LimitRule::rolling(
                "smooth",
                &[Dimension::User, Dimension::Option],
                Rolling::new(7, 60).with_burst(3),
            ),
            LimitRule::fixed(
                "once",
                &[Dimension::Device],
                Window::Campaign,
                1_000_000_000,
            ),
        ])
        .with_deny(DenyLists::users(&["mallory"]).with_channels(&["spam"]))
        .with_board("stars", stars)
        .with_board("plain", plain)
}

/// What the read answers for [`configured`]: the same document without
/// the deny lists and the display data, every option's weight filled in,
/// a new board's defaults (ties, carry, decimals) as stored.
fn expected() -> CampaignSettings {
    let mut want = configured();
    want.deny = None;
    want.vote_id_ttl = None;
    for board in want.boards.values_mut() {
        for option in board.options.values_mut() {
            option.data = None;
            option.weight.get_or_insert(1);
        }
    }
    let plain = want.boards.get_mut("plain").unwrap();
    plain.ties = Some(Ties::Competition);
    plain.carry = Some("0".into());
    plain.decimals = Some(2);
    want
}

#[test]
fn settings_read_back_what_was_configured_and_write_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = support::setup(&mut con, "spring", configured());
    let call = c.settings();
    assert!(!call.writes(), "campaign_settings is flagged no-writes");
    assert!(call
        .script()
        .source()
        .starts_with("#!lua flags=no-writes\n"));
    assert!(call.is_idempotent());

    let before = support::digest(&mut con);
    let got = call.run(&mut con).unwrap();
    assert_eq!(support::digest(&mut con), before, "the read wrote");
    assert_eq!(got, expected());
    // the stored vote id TTL is read back too
    c.configure(&CampaignSettings {
        vote_id_ttl: Some(3600),
        ..CampaignSettings::new()
    })
    .run(&mut con)
    .unwrap();
    assert_eq!(c.settings().run(&mut con).unwrap().vote_id_ttl, Some(3600));

    // sent back, it configures the same campaign
    let read = c.settings().run(&mut con).unwrap();
    let copy = Campaign::new("copy");
    copy.configure(&read).run(&mut con).unwrap();
    assert_eq!(copy.settings().run(&mut con).unwrap(), read);

    // the JSON text redis-cli prints is the configure document
    let text = support::raw(&mut con, "campaign_settings", c.root_key(), &[]).unwrap();
    let redis::Value::BulkString(bytes) = text else {
        panic!("not a bulk string: {text:?}")
    };
    let doc: CampaignSettings = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(doc, read);
}

#[test]
fn a_campaign_without_boards_or_limits_reads_as_stored() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = support::setup(&mut con, "bare", CampaignSettings::new());
    assert_eq!(c.settings().run(&mut con).unwrap(), CampaignSettings::new());
    // an empty rule list is kept apart from no list
    let none = CampaignSettings::new().with_limits(vec![]);
    c.configure(&none).run(&mut con).unwrap();
    assert_eq!(c.settings().run(&mut con).unwrap(), none);
}

/// A cleared date (start 0, end 9999-12-31T23:59:59, what the service
/// stores for `"start": null` / `"end": null`) refuses no vote and reads as
/// absent, as one never set.
#[test]
fn a_cleared_start_or_end_reads_as_absent() {
    let server = support::server();
    let mut con = support::con(&server);
    let dated = CampaignSettings {
        start: Some(T0),
        end: Some(T0 + DAY),
        ..CampaignSettings::new()
    };
    let c = support::setup(&mut con, "dates", dated.clone());
    assert_eq!(c.settings().run(&mut con).unwrap(), dated);
    let cleared = CampaignSettings {
        start: Some(0),
        end: Some(253_402_300_799),
        ..CampaignSettings::new()
    };
    c.configure(&cleared).run(&mut con).unwrap();
    assert_eq!(c.settings().run(&mut con).unwrap(), CampaignSettings::new());
}

#[test]
fn an_unknown_campaign_and_one_over_the_caps_are_refused_writing_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    support::refused_unchanged(&mut con, "unknown", Code::UnknownCampaign, |con| {
        Campaign::new("nope").settings().run(con)
    });

    // 64 boards read; a 65th (configured by a second call) is over the cap
    let boards = |from: usize, to: usize| {
        (from..to).fold(CampaignSettings::new(), |s, i| {
            s.with_board(&format!("b{i}"), BoardSettings::new(&[Period::Total]))
        })
    };
    let wide = support::setup(&mut con, "wide", boards(0, 64));
    assert_eq!(wide.settings().run(&mut con).unwrap().boards.len(), 64);
    wide.configure(&boards(64, 65)).run(&mut con).unwrap();
    let detail = support::refused_unchanged(&mut con, "65 boards", Code::InvalidConfig, |con| {
        wide.settings().run(con)
    });
    assert!(detail.contains("64"), "{detail}");

    // 1000 options read; a 1001st is over the cap
    let names: Vec<String> = (0..1000).map(|i| format!("o{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let board = BoardSettings::new(&[Period::Total]).with_options(&names);
    let many = support::setup(
        &mut con,
        "many",
        CampaignSettings::new().with_board("b", board),
    );
    assert_eq!(
        many.settings().run(&mut con).unwrap().boards["b"]
            .options
            .len(),
        1000
    );
    let more = BoardSettings::default().with_options(&["o1000"]);
    many.configure(&CampaignSettings::new().with_board("c", more))
        .run(&mut con)
        .unwrap();
    let detail = support::refused_unchanged(&mut con, "1001 options", Code::InvalidConfig, |con| {
        many.settings().run(con)
    });
    assert!(detail.contains("1000"), "{detail}");
}

#[test]
fn a_client_waiting_for_replicas_reads_settings_on_a_master_without_any() {
    let server = support::server();
    let mut con = support::con(&server);
    let c = support::setup(&mut con, "spring", configured());
    let client = redvote::Client::open(&server.url())
        .unwrap()
        .wait_for_replicas(1, Duration::from_millis(50));
    let mut waited = client.connect().unwrap();
    // the read sends no WAIT: no replica needed
    assert_eq!(waited.run(&c.settings()).unwrap(), expected());
    // a writer waits, and no replica acknowledges it
    let write = waited.run(&c.configure(&CampaignSettings::new().with_offset("+01:00")));
    assert!(
        matches!(
            write,
            Err(Error::NotReplicated {
                acked: 0,
                wanted: 1,
                ..
            })
        ),
        "{write:?}"
    );
}

#[test]
fn settings_are_read_on_a_replica() {
    let master = support::server();
    let mut con = support::con(&master);
    let c = support::setup(&mut con, "spring", configured());
    let replica = support::replica_of(&master);
    let mut rcon = support::con(&replica);
    let before = support::digest(&mut rcon);
    assert_eq!(c.settings().run(&mut rcon).unwrap(), expected());
    assert_eq!(support::digest(&mut rcon), before);
    // a writer is refused there
    let write = c.configure(&CampaignSettings::new()).run(&mut rcon);
    assert!(
        matches!(&write, Err(Error::Redis(e)) if e.to_string().contains("read only replica")),
        "{write:?}"
    );
    // and a refusal reads the same on the replica
    support::refused(
        Campaign::new("nope").settings().run(&mut rcon),
        Code::UnknownCampaign,
    );
}

/// The options' part of the read takes a fast path for plain names and
/// canonical weights (a 1000-option read in half the instructions): a
/// weight stored with leading zeros reads as its number, a name that needs
/// JSON escaping reads escaped, and a stored weight or option name that
/// configure could not have written is refused, naming it, with nothing
/// written.
#[test]
fn stored_weights_and_option_names_read_exactly_or_are_refused() {
    let server = support::server();
    let mut con = support::con(&server);
    let board = BoardSettings::new(&[Period::Total])
        .with_option("plain-1.x_y", OptionSettings::weighted(999_999))
        .with_option("quote\"é/", OptionSettings::weighted(1_000_000))
        .with_option("seven", OptionSettings::weighted(7));
    let c = support::setup(
        &mut con,
        "odd",
        CampaignSettings::new().with_board("b", board),
    );
    let weights = format!("{}weights:b", c.namespace());
    let weight = |con: &mut redis::Connection, option: &str, value: &str| {
        redis::cmd("HSET")
            .arg(&weights)
            .arg(option)
            .arg(value)
            .exec(con)
            .unwrap();
    };
    weight(&mut con, "seven", "007");
    let read = c.settings().run(&mut con).unwrap();
    let options = &read.boards["b"].options;
    assert_eq!(options["seven"].weight, Some(7));
    assert_eq!(options["plain-1.x_y"].weight, Some(999_999));
    assert_eq!(options["quote\"é/"].weight, Some(1_000_000));
    assert_eq!(options.len(), 3);

    for bad in ["0", "1000001", "12x", "", "-3", "1e3", " 5"] {
        weight(&mut con, "seven", bad);
        let detail = support::refused_unchanged(&mut con, bad, Code::InvalidConfig, |con| {
            c.settings().run(con)
        });
        assert!(detail.contains("seven"), "{bad}: {detail}");
    }
    weight(&mut con, "seven", "7");
    weight(&mut con, "a b", "1");
    let detail = support::refused_unchanged(&mut con, "a b", Code::InvalidConfig, |con| {
        c.settings().run(con)
    });
    assert!(detail.contains("not an option name"), "{detail}");
}
