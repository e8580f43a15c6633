//! The admin page in a real browser: Debian's headless Chromium driven
//! through chromedriver (WebDriver) by fantoccini, which downloads nothing.
//! The test enters the token, picks a campaign and board, sees a refused
//! weight explained next to its field, changes a weight, casts votes over
//! HTTP and watches the live top follow (SSE), then peeks a user's rate
//! limits and saves a screenshot to `target/admin-screenshot.png` (a CI
//! artifact), then one at a phone's width (390 px) to
//! `target/admin-screenshot-phone.png`. With `REDVOTE_UPDATE_SCREENSHOT=1`
//! it also writes `docs/admin.png` (the desktop one), the README's picture.
//! It drives `redvote serve` as started from the command line (the
//! harness of crates/redvote-cli/tests/serve).
//!
//! Without `/usr/bin/chromium` and `/usr/bin/chromedriver` (or the paths in
//! `REDVOTE_CHROMIUM` / `REDVOTE_CHROMEDRIVER`) it fails and says how to
//! install them: it never skips.

use std::future::Future;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use reqwest::Method;
use serde_json::{json, Value};

use super::{Service, ADMIN};
use redvote_testing as support;
use redvote_testing::readme::WORKSPACE;

/// A child process killed on drop, and a directory removed on drop.
struct Guard {
    child: Child,
    dir: Option<PathBuf>,
}

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(d) = &self.dir {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

fn tool(var: &str, default: &str) -> PathBuf {
    let path = PathBuf::from(std::env::var(var).unwrap_or_else(|_| default.to_string()));
    assert!(
        path.exists(),
        "{} is missing: the admin page's browser test needs Debian's chromium and \
         chromium-driver (`sudo apt-get install -y chromium chromium-driver`), or set {var}",
        path.display()
    );
    path
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// chromedriver on a free port, once it answers /status.
fn chromedriver(path: &Path) -> (Guard, String) {
    let port = free_port();
    let child = Command::new(path)
        .arg(format!("--port={port}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", path.display()));
    let guard = Guard { child, dir: None };
    let url = format!("http://127.0.0.1:{port}");
    let start = Instant::now();
    loop {
        let ready = reqwest::blocking::get(format!("{url}/status"))
            .ok()
            .and_then(|r| r.json::<Value>().ok())
            .is_some_and(|v| v["value"]["ready"] == true);
        if ready {
            return (guard, url);
        }
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "chromedriver did not start"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Polls `check` (a JavaScript expression) until it is truthy, for at most
/// `limit`; panics with `what` otherwise.
fn wait_js(rt: &tokio::runtime::Runtime, c: &Client, check: &str, what: &str, limit: Duration) {
    let start = Instant::now();
    let script = format!("return Boolean({check});");
    loop {
        let ok = rt
            .block_on(c.execute(&script, vec![]))
            .map(|v| v == Value::Bool(true))
            .unwrap_or(false);
        if ok {
            return;
        }
        if start.elapsed() > limit {
            let body = rt
                .block_on(c.execute("return document.body.innerText;", vec![]))
                .unwrap_or_default();
            panic!(
                "timed out waiting for {what} ({check}); the page says:\n{}",
                body.as_str().unwrap_or("")
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn run<T>(
    rt: &tokio::runtime::Runtime,
    f: impl Future<Output = Result<T, fantoccini::error::CmdError>>,
) -> T {
    rt.block_on(f).expect("WebDriver command")
}

fn js(rt: &tokio::runtime::Runtime, c: &Client, script: &str) -> Value {
    run(rt, c.execute(script, vec![]))
}

/// The workspace's target directory (`CARGO_TARGET_DIR` when the build
/// set one).
fn target_dir() -> PathBuf {
    option_env!("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(WORKSPACE).join("target"))
}

#[test]
fn the_admin_page_edits_a_weight_and_follows_votes_live() {
    let began = Instant::now();
    let chromium = tool("REDVOTE_CHROMIUM", "/usr/bin/chromium");
    let driver = tool("REDVOTE_CHROMEDRIVER", "/usr/bin/chromedriver");

    let server = support::server();
    let svc = Service::start(&server);
    let spring: Value =
        serde_json::from_str(include_str!("../../../../docs/spring2026.json")).unwrap();
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", spring)
        .ok(200);
    let vote = |user: &str, option: &str| {
        svc.json(
            Method::POST,
            "/v1/campaigns/spring/votes",
            json!({"user": user, "votes": [{"board": "male-stars", "option": option}]}),
        )
        .ok(200);
    };
    vote("fan-1", "wjk");

    let (_driver, driver_url) = chromedriver(&driver);
    let profile = std::env::temp_dir().join(format!(
        "redvote-chromium-{}-{}",
        std::process::id(),
        free_port()
    ));
    let _profile = Guard {
        child: Command::new("true").spawn().unwrap(),
        dir: Some(profile.clone()),
    };
    let caps = json!({
        "goog:chromeOptions": {
            "binary": chromium,
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--window-size=1280,1250",
                format!("--user-data-dir={}", profile.display()),
            ]
        }
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut builder = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new());
    builder.capabilities(caps.as_object().unwrap().clone());
    let c = rt
        .block_on(builder.connect(&driver_url))
        .expect("a Chromium session through chromedriver");
    // generous: the suite runs beside it on two cores
    let limit = Duration::from_secs(15);

    // the token, once
    run(&rt, c.goto(&format!("{}/admin", svc.base)));
    let token = run(&rt, c.find(Locator::Css("#token")));
    run(&rt, token.send_keys(ADMIN));
    run(&rt, run(&rt, c.find(Locator::Css("#token-save"))).click());
    wait_js(
        &rt,
        &c,
        "document.querySelector('#campaign').value === 'spring'",
        "the campaign list",
        limit,
    );

    // the board, live (once the campaign's boards are listed)
    wait_js(
        &rt,
        &c,
        "document.querySelector('#board option[value=\"male-stars\"]')",
        "the board list",
        limit,
    );
    js(&rt, &c, "const b = document.querySelector('#board'); b.value = 'male-stars'; b.dispatchEvent(new Event('change')); return 1;");
    wait_js(
        &rt,
        &c,
        "document.querySelector('#live-state').textContent === 'live'",
        "the stream",
        limit,
    );
    wait_js(
        &rt,
        &c,
        "document.querySelector('tr[data-member=\"wjk\"] td.score')",
        "the first vote on the board",
        limit,
    );
    wait_js(
        &rt,
        &c,
        "document.querySelector('input.weight[data-option=\"yyqx\"]')",
        "the weights",
        limit,
    );

    // a refused weight: explained next to its field, nothing saved
    let wy = run(
        &rt,
        c.find(Locator::Css("input.weight[data-option=\"wy\"]")),
    );
    run(&rt, wy.clear());
    run(&rt, wy.send_keys("0"));
    run(&rt, run(&rt, c.find(Locator::Css("#save-board"))).click());
    wait_js(
        &rt,
        &c,
        "document.querySelector('.error[data-field=\"weight:wy\"]').textContent.includes('REDVOTE_INVALID_CONFIG')",
        "the weight's refusal next to it",
        limit,
    );
    let shown = js(
        &rt,
        &c,
        "return document.querySelector('.error[data-field=\"weight:wy\"]').textContent;",
    );
    assert!(shown.as_str().unwrap().contains("weight"), "{shown}");
    let stored = svc
        .request(Method::GET, "/v1/campaigns/spring/settings", Some(ADMIN))
        .send()
        .ok(200);
    assert_eq!(
        stored["boards"]["male-stars"]["options"]["wy"]["weight"], 1,
        "nothing saved"
    );

    // a weight changed through the form
    run(&rt, wy.clear());
    run(&rt, wy.send_keys("1"));
    let yyqx = run(
        &rt,
        c.find(Locator::Css("input.weight[data-option=\"yyqx\"]")),
    );
    run(&rt, yyqx.clear());
    run(&rt, yyqx.send_keys("5"));
    run(&rt, run(&rt, c.find(Locator::Css("#save-board"))).click());
    wait_js(
        &rt,
        &c,
        "document.querySelector('#status').textContent === 'board male-stars saved'",
        "the save",
        limit,
    );
    let stored = svc
        .request(Method::GET, "/v1/campaigns/spring/settings", Some(ADMIN))
        .send()
        .ok(200);
    assert_eq!(
        stored["boards"]["male-stars"]["options"]["yyqx"]["weight"],
        5
    );

    // votes over the API; the board follows without a reload
    js(&rt, &c, "window.__not_reloaded = true; return 1;");
    vote("fan-2", "yyqx");
    wait_js(
        &rt,
        &c,
        "Number((document.querySelector('tr[data-member=\"yyqx\"] td.score') || {}).textContent) === 5",
        "yyqx at 5 (one vote of weight 5)",
        limit,
    );
    vote("fan-3", "yyqx");
    vote("fan-4", "wy");
    wait_js(
        &rt,
        &c,
        "Number((document.querySelector('tr[data-member=\"yyqx\"] td.score') || {}).textContent) === 10 \
         && document.querySelector('#top tbody tr td.member').textContent === 'yyqx' \
         && document.querySelector('tr[data-member=\"yyqx\"] td.participants').textContent === '2' \
         && document.querySelector('tr[data-member=\"wy\"]') !== null",
        "the live top after three more votes",
        limit,
    );
    assert_eq!(
        js(&rt, &c, "return window.__not_reloaded === true;"),
        Value::Bool(true)
    );

    // a rate-limit peek
    let user = run(&rt, c.find(Locator::Css("#peek-user")));
    run(&rt, user.send_keys("fan-2"));
    run(&rt, run(&rt, c.find(Locator::Css("#peek"))).click());
    wait_js(
        &rt,
        &c,
        "document.querySelectorAll('#peek-result tbody tr').length > 0",
        "the peek",
        limit,
    );
    let peek = js(
        &rt,
        &c,
        "return document.querySelector('#peek-result tbody').innerText;",
    );
    assert!(peek.as_str().unwrap().contains("user-minute"), "{peek}");

    let png = run(&rt, c.screenshot());
    let out = target_dir().join("admin-screenshot.png");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    std::fs::write(&out, &png).unwrap();
    if std::env::var_os("REDVOTE_UPDATE_SCREENSHOT").is_some() {
        std::fs::write(Path::new(WORKSPACE).join("docs/admin.png"), &png).unwrap();
    }
    // the same page at a phone's width
    run(&rt, c.set_window_size(390, 844));
    wait_js(
        &rt,
        &c,
        "window.innerWidth <= 400",
        "the phone-width window",
        limit,
    );
    let phone = run(&rt, c.screenshot());
    std::fs::write(target_dir().join("admin-screenshot-phone.png"), &phone).unwrap();
    // nothing wider than the phone: no sideways scrolling (issue 20, item 12)
    let widths = js(
        &rt,
        &c,
        "return [document.documentElement.scrollWidth, window.innerWidth];",
    );
    assert!(
        widths[0].as_u64() <= widths[1].as_u64(),
        "the page is wider than a 390 px phone: {widths}"
    );
    let _ = rt.block_on(c.close());
    assert!(
        began.elapsed() < Duration::from_secs(60),
        "{:?}",
        began.elapsed()
    );
}
