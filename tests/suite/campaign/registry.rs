//! The campaign registry: `campaign_register.lua` adds validated names to
//! `{c}:campaigns` (ZADD NX, idempotent, registration order kept),
//! `campaign_registry.lua` reads it a page at a time by rank (no-writes);
//! every refusal writes nothing (`DEBUG DIGEST` unchanged).

use redvote::{Campaign, CampaignRegistry, Code, RegistryPage};

use crate::support;

/// Every page from cursor 0, `count` names each.
fn all_pages(con: &mut redis::Connection, count: u32) -> Vec<RegistryPage> {
    let registry = CampaignRegistry::new();
    let (mut pages, mut cursor) = (Vec::new(), 0);
    loop {
        let page = registry.page(cursor, count).run(con).unwrap();
        cursor = page.next;
        pages.push(page);
        if cursor == 0 {
            return pages;
        }
    }
}

#[test]
fn names_are_registered_once_in_registration_order_and_paged() {
    let server = support::server();
    let mut con = support::con(&server);
    let registry = CampaignRegistry::new();
    assert_eq!(
        registry.page(0, 10).run(&mut con).unwrap(),
        RegistryPage {
            names: vec![],
            next: 0,
            total: 0
        }
    );
    assert_eq!(
        registry.register(&["zeta", "alpha"]).run(&mut con).unwrap(),
        2
    );
    assert_eq!(
        registry
            .register(&["alpha", "mid", "mid"])
            .run(&mut con)
            .unwrap(),
        1
    );
    // a later millisecond than the names above
    std::thread::sleep(std::time::Duration::from_millis(2));
    let spring = Campaign::new("spring2026");
    assert_eq!(spring.name(), Some("spring2026"));
    assert_eq!(spring.register().unwrap().run(&mut con).unwrap(), 1);
    assert_eq!(spring.register().unwrap().run(&mut con).unwrap(), 0);
    assert!(!registry.page(0, 1).writes() && registry.register(&["a"]).writes());

    let pages = all_pages(&mut con, 2);
    let names: Vec<Vec<String>> = pages.iter().map(|p| p.names.clone()).collect();
    // within one millisecond, names sort by name; later ones come after
    assert_eq!(names.concat().len(), 4);
    assert_eq!(names.concat().last().unwrap(), "spring2026");
    assert_eq!(pages.iter().map(|p| p.next).collect::<Vec<_>>(), [2, 0]);
    assert!(pages.iter().all(|p| p.total == 4));
    // a cursor past the end: an empty last page
    let past = registry.page(99, 5).run(&mut con).unwrap();
    assert_eq!((past.names.len(), past.next, past.total), (0, 0, 4));
    // the first registration time is kept (NX), in milliseconds
    let score: f64 = redis::cmd("ZSCORE")
        .arg("{c}:campaigns")
        .arg("alpha")
        .query(&mut con)
        .unwrap();
    let now_ms = support::now_float(&mut con) * 1000.0;
    assert!(
        score > now_ms - 60_000.0 && score <= now_ms,
        "{score} {now_ms}"
    );

    // a name registered while a listing runs comes after the cursor
    let first = registry.page(0, 2).run(&mut con).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2));
    registry.register(&["aaa-new"]).run(&mut con).unwrap();
    let rest = all_pages_from(&mut con, first.next, 2);
    let mut seen = first.names.clone();
    seen.extend(rest);
    assert_eq!(seen.len(), 5, "{seen:?}");
    assert_eq!(seen.last().unwrap(), "aaa-new");
}

fn all_pages_from(con: &mut redis::Connection, mut cursor: u64, count: u32) -> Vec<String> {
    let mut names = Vec::new();
    while cursor != 0 {
        let page = CampaignRegistry::new()
            .page(cursor, count)
            .run(con)
            .unwrap();
        names.extend(page.names);
        cursor = page.next;
    }
    names
}

#[test]
fn refusals_write_nothing() {
    let server = support::server();
    let mut con = support::con(&server);
    let registry = CampaignRegistry::new();
    registry.register(&["kept"]).run(&mut con).unwrap();
    let too_many: Vec<String> = (0..1001).map(|i| format!("c{i}")).collect();
    let too_many: Vec<&str> = too_many.iter().map(String::as_str).collect();
    let long = "x".repeat(65);
    let bad_names: [&[&str]; 8] = [
        &["a}b"],
        &["ok", "{c:x}"],
        &["a b"],
        &["a:b"],
        &[""],
        &[long.as_str()],
        &["ok", "tab\there"],
        &["star*"],
    ];
    for names in bad_names {
        support::refused_unchanged(&mut con, &format!("{names:?}"), Code::InvalidName, |c| {
            registry.register(names).run(c)
        });
    }
    support::refused_unchanged(&mut con, "1001 names", Code::Usage, |c| {
        registry.register(&too_many).run(c)
    });
    support::refused_unchanged(&mut con, "no name", Code::Usage, |c| {
        registry.register(&[]).run(c)
    });
    // another key than a registry
    support::refused_unchanged(&mut con, "a campaign root", Code::Usage, |c| {
        support::raw(c, "campaign_register", "{c:x}:campaign", &["x"])
    });
    for (cursor, count, code) in [
        ("-1", "10", Code::InvalidNumber),
        ("x", "10", Code::InvalidNumber),
        ("1000000000000", "10", Code::InvalidNumber),
        ("0", "0", Code::InvalidNumber),
        ("0", "1001", Code::InvalidNumber),
        ("0", "", Code::InvalidNumber),
    ] {
        support::refused_unchanged(&mut con, &format!("page {cursor} {count}"), code, |c| {
            support::raw(c, "campaign_registry", "{c}:campaigns", &[cursor, count])
        });
    }
    support::refused_unchanged(&mut con, "page without count", Code::Usage, |c| {
        support::raw(c, "campaign_registry", "{c}:campaigns", &["0"])
    });
    // a registry of the wrong type
    let _: () = redis::cmd("SET")
        .arg("{x}:campaigns")
        .arg("s")
        .query(&mut con)
        .unwrap();
    let other = CampaignRegistry::with_key("{x}:campaigns");
    support::refused_unchanged(&mut con, "wrong type", Code::InvalidConfig, |c| {
        other.register(&["a"]).run(c)
    });
    support::refused_unchanged(&mut con, "wrong type read", Code::InvalidConfig, |c| {
        other.page(0, 10).run(c)
    });
    assert_eq!(registry.page(0, 10).run(&mut con).unwrap().names, ["kept"]);
    // 1000 names is the cap, not a refusal
    assert_eq!(
        registry.register(&too_many[..1000]).run(&mut con).unwrap(),
        1000
    );
}

#[test]
fn only_the_default_family_has_a_name() {
    assert_eq!(
        Campaign::with_namespace("{c:spring}:").name(),
        Some("spring")
    );
    assert_eq!(Campaign::with_namespace("{x:spring}:").name(), None);
    assert_eq!(Campaign::with_namespace("{c:a b}:").name(), None);
    assert!(Campaign::with_namespace("custom:").register().is_none());
}
