//! `/readyz` warns, as `redvote check` does, when Redis may evict keys:
//! under any `maxmemory-policy` but `noeviction` a campaign's settings, its
//! boards or its vote-id records can vanish silently once `maxmemory` is
//! reached. The probe stays 200: the service can serve, but its promises do
//! not hold.

use super::Service;
use redvote_testing as support;

#[test]
fn readyz_warns_about_an_evicting_policy() {
    let server = support::server();
    let mut con = support::con(&server);
    let svc = Service::start(&server);
    let set = |con: &mut redis::Connection, policy: &str| {
        redis::cmd("CONFIG")
            .arg("SET")
            .arg("maxmemory-policy")
            .arg(policy)
            .exec(con)
            .unwrap()
    };
    set(&mut con, "noeviction");
    assert_eq!(
        svc.get("/readyz").ok(200)["warnings"],
        serde_json::json!([])
    );
    for policy in ["allkeys-lru", "volatile-ttl"] {
        set(&mut con, policy);
        let ready = svc.get("/readyz").ok(200);
        let warnings = ready["warnings"].as_array().expect("a list of warnings");
        assert_eq!(warnings.len(), 1, "{ready}");
        let text = warnings[0].as_str().unwrap();
        assert!(
            text.contains(policy) && text.contains("noeviction") && text.contains("vote-id"),
            "{text}"
        );
    }
    set(&mut con, "noeviction");
    assert_eq!(
        svc.get("/readyz").ok(200)["warnings"],
        serde_json::json!([])
    );
}

/// A user that may neither `CONFIG GET` nor `INFO` gets a warning saying
/// the policy is unknown, and the probe still answers 200.
#[test]
fn readyz_says_when_the_policy_cannot_be_read() {
    let server = support::server();
    let mut con = support::con(&server);
    redis::cmd("ACL")
        .arg("SETUSER")
        .arg("probe")
        .arg("on")
        .arg(">probe-pass")
        .arg("~*")
        .arg("+@all")
        .arg("-config")
        .arg("-info")
        .exec(&mut con)
        .unwrap();
    let url = format!("redis://probe:probe-pass@127.0.0.1:{}/", server.port());
    let svc = Service::with_setup(&server, |s| s.url = Some(url));
    let ready = svc.get("/readyz").ok(200);
    let text = ready["warnings"][0]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(text.contains("maxmemory-policy unknown"), "{ready}");
}
