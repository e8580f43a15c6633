//! Team keys (docs/teams.md): the scope matrix (every caller x every route
//! family, on a campaign the keys' pattern matches and on one it does
//! not), printed as a table (`--nocapture`); refusals write nothing; the
//! token shown once and never stored; revocation at the next request; key
//! management's refusals; the lookup's cost.

use reqwest::Method;
use serde_json::{json, Value};

use super::{Service, ADMIN};
use redvote_testing as support;

/// The API token the matrix's service has.
const API: &str = "api-secret-token";

/// The campaign the team keys' pattern (`spring-*`) matches, and one it
/// does not.
const MATCHING: &str = "spring-a";
const OTHER: &str = "autumn";

fn settings() -> Value {
    json!({"vote_log": 100, "boards": {"b": {"options": {"o": {}, "p": {}}}}})
}

/// The service with both operator tokens, two campaigns, and the keys
/// `r`, `v`, `a` (roles read, vote, admin on `spring-*`); answers it and
/// the tokens by key name.
pub fn teams_service(server: &redvote_testing::TempServer) -> (Service, Vec<(String, String)>) {
    let svc = Service::with_options(server, |o| {
        o.admin_token = Some(ADMIN.into());
        o.api_token = Some(API.into());
    });
    for c in [MATCHING, OTHER] {
        svc.admin(
            Method::PUT,
            &format!("/v1/campaigns/{c}/settings"),
            settings(),
        )
        .ok(200);
    }
    let mut tokens = Vec::new();
    for (name, role) in [("r", "read"), ("v", "vote"), ("a", "admin")] {
        let key = svc
            .admin(
                Method::POST,
                "/v1/keys",
                json!({"name": name, "pattern": "spring-*", "role": role}),
            )
            .ok(201);
        tokens.push((name.to_string(), key["token"].as_str().unwrap().to_string()));
    }
    (svc, tokens)
}

/// One route family: its name, and the request on campaign `c`.
struct Family {
    name: &'static str,
    /// Whether it is a campaign route (asked on both campaigns).
    campaign: bool,
    method: Method,
    path: fn(&str) -> String,
    body: Option<Value>,
}

fn families() -> Vec<Family> {
    let f = |name, campaign, method, path, body| Family {
        name,
        campaign,
        method,
        path,
        body,
    };
    vec![
        f(
            "campaign GET (top)",
            true,
            Method::GET,
            |c| format!("/v1/campaigns/{c}/top?boards=b"),
            None,
        ),
        f(
            "campaign vote",
            true,
            Method::POST,
            |c| format!("/v1/campaigns/{c}/votes"),
            Some(json!({"user": "u1", "votes": [{"board": "b", "option": "o"}]})),
        ),
        f(
            "settings PUT",
            true,
            Method::PUT,
            |c| format!("/v1/campaigns/{c}/settings"),
            Some(settings()),
        ),
        f(
            "settings GET",
            true,
            Method::GET,
            |c| format!("/v1/campaigns/{c}/settings"),
            None,
        ),
        f(
            "import",
            true,
            Method::PUT,
            |c| format!("/v1/campaigns/{c}/boards/b/import"),
            Some(json!({"o": 3})),
        ),
        f(
            "limits reset",
            true,
            Method::POST,
            |c| format!("/v1/campaigns/{c}/limits/reset"),
            Some(json!({"user": "u1"})),
        ),
        f(
            "reindex",
            true,
            Method::POST,
            |c| format!("/v1/campaigns/{c}/boards/b/reindex"),
            Some(json!({})),
        ),
        f(
            "void (unknown id)",
            true,
            Method::POST,
            |c| format!("/v1/campaigns/{c}/votes/nope/void"),
            None,
        ),
        f(
            "void range",
            true,
            Method::POST,
            |c| format!("/v1/campaigns/{c}/votes/void"),
            Some(json!({"user": "nobody", "from": 0, "to": 1})),
        ),
        f(
            "audit read",
            true,
            Method::GET,
            |c| format!("/v1/campaigns/{c}/audit"),
            None,
        ),
        f(
            "live-top ticket",
            true,
            Method::POST,
            |c| format!("/v1/campaigns/{c}/boards/b/top/ticket"),
            None,
        ),
        f("keys list", false, Method::GET, |_| "/v1/keys".into(), None),
        f(
            "keys add",
            false,
            Method::POST,
            |_| "/v1/keys".into(),
            Some(json!({"name": "x", "pattern": "*", "role": "admin"})),
        ),
        f(
            "keys revoke",
            false,
            Method::DELETE,
            |_| "/v1/keys/zz".into(),
            None,
        ),
        f(
            "campaign list",
            false,
            Method::GET,
            |_| "/v1/campaigns".into(),
            None,
        ),
        f("site GET", false, Method::GET, |_| "/v1/sites".into(), None),
        f(
            "site config PATCH",
            false,
            Method::PATCH,
            |_| "/v1/sites/default/config".into(),
            Some(json!({"page_size": 10})),
        ),
        f("metrics", false, Method::GET, |_| "/metrics".into(), None),
    ]
}

fn send(svc: &Service, fam: &Family, campaign: &str, token: Option<&str>) -> u16 {
    let mut req = svc.request(fam.method.clone(), &(fam.path)(campaign), token);
    if let Some(body) = &fam.body {
        req = req.json(body.clone());
    }
    let reply = req.send();
    if matches!(reply.status, 401 | 403) {
        assert_eq!(
            reply.header("content-type"),
            Some("application/problem+json"),
            "{}",
            reply.text
        );
    }
    reply.status
}

/// What `caller` may do with family `fam` on a matching (`matching`) or
/// other campaign: `None` allowed (answers what the operator's admin
/// token gets), `Some(status)` refused.
fn refusal(caller: &str, fam: &Family, matching: bool) -> Option<u16> {
    let name = fam.name;
    if name == "metrics" {
        return None;
    }
    let api_family = matches!(name, "campaign GET (top)" | "campaign vote" | "site GET");
    match caller {
        "admin token" => None,
        "api token" if api_family => None,
        "api token" | "no token" | "unknown key" | "revoked key" => Some(401),
        role => {
            // every role lists the campaigns (its own only, checked by
            // team_keys_list_their_campaigns_and_open_the_live_top)
            if name == "campaign list" {
                return None;
            }
            if !fam.campaign || !matching {
                return Some(403);
            }
            let need = match name {
                "campaign GET (top)" | "live-top ticket" => 0,
                "campaign vote" => 1,
                _ => 2,
            };
            let have = match role {
                "key r (read)" => 0,
                "key v (vote)" => 1,
                _ => 2,
            };
            (have < need).then_some(403)
        }
    }
}

#[test]
fn the_scope_matrix() {
    let server = support::server();
    let mut con = support::con(&server);
    let (svc, tokens) = teams_service(&server);
    // a key revoked before the matrix
    let gone = svc
        .admin(
            Method::POST,
            "/v1/keys",
            json!({"name": "gone", "pattern": "*", "role": "admin"}),
        )
        .ok(201)["token"]
        .as_str()
        .unwrap()
        .to_string();
    svc.admin(Method::DELETE, "/v1/keys/gone", json!(null))
        .ok(200);
    let token = |n: &str| tokens.iter().find(|(k, _)| k == n).unwrap().1.clone();
    let callers: Vec<(&str, Option<String>)> = vec![
        ("no token", None),
        ("unknown key", Some(format!("rvk_{}", "A".repeat(43)))),
        ("revoked key", Some(gone)),
        ("api token", Some(API.to_string())),
        ("admin token", Some(ADMIN.to_string())),
        ("key r (read)", Some(token("r"))),
        ("key v (vote)", Some(token("v"))),
        ("key a (admin)", Some(token("a"))),
    ];
    let mut table = String::new();
    let header: Vec<&str> = callers.iter().map(|(n, _)| *n).collect();
    table.push_str(&format!(
        "| route family | campaign | {} |\n",
        header.join(" | ")
    ));
    table.push_str(&format!(
        "| --- | --- |{}\n",
        " --- |".repeat(callers.len())
    ));
    for fam in families() {
        let campaigns: &[(&str, bool)] = if fam.campaign {
            &[(MATCHING, true), (OTHER, false)]
        } else {
            &[(MATCHING, true)]
        };
        for &(c, matching) in campaigns {
            // the allowed answer: the operator's admin token's (api routes
            // too: it is accepted there)
            let allowed = send(&svc, &fam, c, Some(ADMIN));
            if fam.name == "keys add" {
                svc.admin(Method::DELETE, "/v1/keys/x", json!(null)).ok(200);
            }
            let want_allowed = match fam.name {
                "void (unknown id)" => 404,
                "keys add" => 201,
                "keys revoke" => 404,
                _ => 200,
            };
            assert_eq!(allowed, want_allowed, "{} on {c}", fam.name);
            let mut row = Vec::new();
            for (caller, tok) in &callers {
                let before = support::digest(&mut con);
                let status = send(&svc, &fam, c, tok.as_deref());
                if fam.name == "keys add" && status == 201 {
                    svc.admin(Method::DELETE, "/v1/keys/x", json!(null)).ok(200);
                }
                let want = refusal(caller, &fam, matching).unwrap_or(allowed);
                assert_eq!(status, want, "{caller} x {} on {c}", fam.name);
                if matches!(status, 401 | 403) {
                    assert_eq!(
                        support::digest(&mut con),
                        before,
                        "{caller} x {} on {c}: a refusal wrote",
                        fam.name
                    );
                }
                row.push(if matches!(status, 401 | 403) {
                    format!("refused {status}")
                } else {
                    format!("allowed {status}")
                });
            }
            let scope = if !fam.campaign {
                "-"
            } else if matching {
                "matching"
            } else {
                "other"
            };
            table.push_str(&format!(
                "| {} | {scope} | {} |\n",
                fam.name,
                row.join(" | ")
            ));
        }
    }
    println!("\nThe scope matrix (keys r, v, a: pattern spring-*; matching: {MATCHING}, other: {OTHER}):\n\n{table}");
}

/// A team key of any role lists only the campaigns its pattern matches
/// (page by page, never an empty page before the end), and a read key
/// gets a live-top ticket of its campaigns, which opens the stream.
#[test]
fn team_keys_list_their_campaigns_and_open_the_live_top() {
    let server = support::server();
    let (svc, tokens) = teams_service(&server);
    for c in ["spring-b", "alpha", "zulu"] {
        svc.admin(
            Method::PUT,
            &format!("/v1/campaigns/{c}/settings"),
            settings(),
        )
        .ok(200);
    }
    let list = |token: &str, count: u32| {
        let (mut names, mut cursor, mut pages) = (Vec::new(), "0".to_string(), 0);
        loop {
            let page = svc
                .request(
                    Method::GET,
                    &format!("/v1/campaigns?count={count}&cursor={cursor}"),
                    Some(token),
                )
                .send()
                .ok(200);
            let got = page["campaigns"].as_array().unwrap();
            cursor = page["next"].as_str().unwrap().to_string();
            assert!(
                !got.is_empty() || cursor == "0",
                "an empty page before the end: {page}"
            );
            names.extend(got.iter().map(|n| n.as_str().unwrap().to_string()));
            pages += 1;
            if cursor == "0" {
                return (names, pages);
            }
        }
    };
    let (all, _) = list(ADMIN, 100);
    assert_eq!(all, ["alpha", "autumn", "spring-a", "spring-b", "zulu"]);
    for (name, token) in &tokens {
        for count in [1, 2, 100] {
            let (names, pages) = list(token, count);
            assert_eq!(names, ["spring-a", "spring-b"], "key {name}, count {count}");
            assert!(pages <= 3, "key {name}, count {count}: {pages} pages");
        }
    }
    let r = &tokens[0].1;
    let ticket = |c: &str| {
        svc.request(
            Method::POST,
            &format!("/v1/campaigns/{c}/boards/b/top/ticket"),
            Some(r),
        )
        .send()
    };
    ticket(OTHER).problem(403, "REDVOTE_FORBIDDEN");
    let t = ticket(MATCHING).ok(200);
    assert_eq!(t["required"], true, "{t}");
    let events = redvote_testing::http::Events::open(&format!(
        "{}/v1/campaigns/{MATCHING}/boards/b/top/stream?ticket={}",
        svc.base,
        t["ticket"].as_str().unwrap()
    ))
    .expect("the read key's ticket opens the stream");
    assert_eq!(
        events.next(std::time::Duration::from_secs(5)).unwrap().0,
        "top"
    );
}

#[test]
fn refusals_say_which_key_and_what_it_may_do() {
    let server = support::server();
    let (svc, tokens) = teams_service(&server);
    let r = &tokens[0].1;
    let reply = svc
        .request(
            Method::POST,
            &format!("/v1/campaigns/{MATCHING}/votes"),
            Some(r),
        )
        .json(json!({"user": "u1", "votes": [{"board": "b", "option": "o"}]}))
        .send();
    let detail = reply.problem(403, "REDVOTE_FORBIDDEN");
    assert!(
        detail.contains("\"r\"")
            && detail.contains("read")
            && detail.contains("spring-*")
            && detail.contains("vote role"),
        "{detail}"
    );
    let reply = svc
        .request(
            Method::GET,
            &format!("/v1/campaigns/{OTHER}/top?boards=b"),
            Some(r),
        )
        .send();
    let detail = reply.problem(403, "REDVOTE_FORBIDDEN");
    assert!(
        detail.contains("spring-*") && detail.contains(OTHER),
        "{detail}"
    );
    let reply = svc
        .request(Method::GET, "/v1/keys", Some(&tokens[2].1))
        .send();
    let detail = reply.problem(403, "REDVOTE_FORBIDDEN");
    assert!(detail.contains("operator"), "{detail}");
    let reply = svc
        .request(Method::GET, "/v1/keys", Some("rvk_nothing"))
        .send();
    reply.problem(401, "REDVOTE_UNAUTHORIZED");
    assert_eq!(reply.header("www-authenticate"), Some("Bearer"));
}

#[test]
fn the_token_is_shown_once_and_never_stored() {
    let server = support::server();
    let mut con = support::con(&server);
    let svc = Service::start(&server);
    let reply = svc.admin(
        Method::POST,
        "/v1/keys",
        json!({"name": "team1", "pattern": "spring-*", "role": "vote"}),
    );
    assert_eq!(reply.header("cache-control"), Some("no-store"));
    let key = reply.ok(201);
    let token = key["token"].as_str().unwrap().to_string();
    assert!(token.starts_with("rvk_") && token.len() == 47, "{token}");
    assert_eq!(key["name"], "team1");
    assert_eq!(key["role"], "vote");
    assert_eq!(key["pattern"], "spring-*");
    let list = svc.admin(Method::GET, "/v1/keys", json!(null)).ok(200);
    assert_eq!(list["keys"].as_array().unwrap().len(), 1);
    assert_eq!(list["keys"][0]["name"], "team1");
    assert!(list["keys"][0].get("token").is_none());
    assert!(!list.to_string().contains(&token));
    // Redis holds its SHA-256, never the token
    let dump: Vec<String> = redis::cmd("HGETALL")
        .arg(redvote_serve::keys::KEYS)
        .query(&mut con)
        .unwrap();
    let index: Vec<String> = redis::cmd("HGETALL")
        .arg(redvote_serve::keys::TOKENS)
        .query(&mut con)
        .unwrap();
    let stored = format!("{dump:?}{index:?}");
    assert!(!stored.contains(&token[4..]), "{stored}");
    assert!(stored.contains(&redvote_serve::keys::digest(&token)));
    // the same name again: 409, and nothing written
    let before = support::digest(&mut con);
    svc.admin(
        Method::POST,
        "/v1/keys",
        json!({"name": "team1", "pattern": "*", "role": "admin"}),
    )
    .problem(409, "REDVOTE_KEY_EXISTS");
    for bad in [
        json!({"name": "operator", "pattern": "*", "role": "admin"}),
        json!({"name": "a:b", "pattern": "*", "role": "admin"}),
        json!({"name": "t2", "pattern": "a b", "role": "admin"}),
        json!({"name": "t2", "pattern": "", "role": "admin"}),
    ] {
        svc.admin(Method::POST, "/v1/keys", bad)
            .problem(422, "REDVOTE_INVALID_NAME");
    }
    svc.admin(
        Method::POST,
        "/v1/keys",
        json!({"name": "t2", "pattern": "*", "role": "owner"}),
    )
    .problem(400, "REDVOTE_BAD_REQUEST");
    svc.admin(Method::DELETE, "/v1/keys/nope", json!(null))
        .problem(404, "REDVOTE_UNKNOWN_KEY");
    assert_eq!(support::digest(&mut con), before);
}

#[test]
fn a_revoked_key_is_refused_at_its_next_request() {
    let server = support::server();
    let (svc, tokens) = teams_service(&server);
    let a = &tokens[2].1;
    let top = format!("/v1/campaigns/{MATCHING}/top?boards=b");
    svc.request(Method::GET, &top, Some(a)).send().ok(200);
    let revoked = svc.admin(Method::DELETE, "/v1/keys/a", json!(null)).ok(200);
    assert_eq!(revoked["name"], "a");
    assert_eq!(revoked["role"], "admin");
    // the bound is 0: every request looks its token up, nothing is cached
    svc.request(Method::GET, &top, Some(a))
        .send()
        .problem(401, "REDVOTE_UNAUTHORIZED");
    let list = svc.admin(Method::GET, "/v1/keys", json!(null)).ok(200);
    let names: Vec<&str> = list["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["r", "v"]);
    // a new key of the same name has a new token: the old one stays refused
    svc.admin(
        Method::POST,
        "/v1/keys",
        json!({"name": "a", "pattern": "*", "role": "admin"}),
    )
    .ok(201);
    svc.request(Method::GET, &top, Some(a))
        .send()
        .problem(401, "REDVOTE_UNAUTHORIZED");
}

#[test]
fn key_management_is_off_without_the_admin_token() {
    let server = support::server();
    let svc = Service::with_options(&server, |_| {});
    svc.request(Method::GET, "/v1/keys", Some(ADMIN))
        .send()
        .problem(403, "REDVOTE_ADMIN_DISABLED");
}

/// What a team key costs a request: one script call (the lookup: two
/// HGETs inside) before the handler, counted on the server: n requests
/// with a team key send exactly n script calls more than n with the
/// operator's API token.
#[test]
fn the_key_lookup_costs_one_round_trip() {
    let server = support::server();
    let mut con = support::con(&server);
    let (svc, tokens) = teams_service(&server);
    let top = format!("/v1/campaigns/{MATCHING}/top?boards=b");
    // every script call the server ran (EVAL, EVALSHA and their _RO forms)
    let scripts = |con: &mut redis::Connection| -> u64 {
        let info: String = redis::cmd("INFO").arg("commandstats").query(con).unwrap();
        info.lines()
            .filter(|l| l.starts_with("cmdstat_eval"))
            .filter_map(|l| {
                l.split("calls=")
                    .nth(1)?
                    .split(',')
                    .next()?
                    .parse::<u64>()
                    .ok()
            })
            .sum()
    };
    let n = 50;
    let mut count = |token: &str| {
        // one request first: the scripts loaded, the connections made
        svc.request(Method::GET, &top, Some(token)).send().ok(200);
        let before = scripts(&mut con);
        for _ in 0..n {
            svc.request(Method::GET, &top, Some(token)).send().ok(200);
        }
        scripts(&mut con) - before
    };
    let api = count(API);
    let key = count(&tokens[0].1);
    assert_eq!(
        key,
        api + n,
        "{n} requests: {api} script calls with the API token, {key} with a team key"
    );
}
