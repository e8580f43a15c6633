//! The admin page in a real browser: Debian's headless Chromium driven
//! through chromedriver (WebDriver) by fantoccini, which downloads nothing.
//! The test enters the token, checks that every control has an accessible
//! name and every checkbox group a legend, that nothing is saved without
//! an open campaign, opens a campaign by typing its name, picks a board,
//! sees a refused weight explained next to its field (aria-invalid,
//! aria-describedby, a role="alert" summary), changes a weight, casts
//! votes over HTTP and watches the live top follow (SSE, through a stream
//! ticket: no token in any URL), peeks a user's rate limits, then kills
//! and restarts Redis and sees the table marked stale and live again
//! (by itself, then through the Reconnect button). Screenshots go to
//! `target/screenshots/` (CI artifacts): `admin-desktop.png` (1280 px),
//! `admin-phone.png` (390 px), `admin-errors.png` and `admin-stale.png`.
//! The back office's test (the manager's flow) writes
//! `backoffice-desktop.png`, `backoffice-phone.png` and
//! `backoffice-import.png`; with `REDVOTE_UPDATE_SCREENSHOT=1` also
//! `docs/admin.png` (its desktop one), the docs' picture. The rest of the
//! manager's flow (charts, export, voiding, keys, audit) is in
//! `manager.rs`, which uses the helpers here.
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
pub(super) struct Guard {
    pub(super) child: Child,
    pub(super) dir: Option<PathBuf>,
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

pub(super) fn tool(var: &str, default: &str) -> PathBuf {
    let path = PathBuf::from(std::env::var(var).unwrap_or_else(|_| default.to_string()));
    assert!(
        path.exists(),
        "{} is missing: the admin page's browser test needs Debian's chromium and \
         chromium-driver (`sudo apt-get install -y chromium chromium-driver`), or set {var}",
        path.display()
    );
    path
}

pub(super) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// chromedriver on a free port, once it answers /status.
pub(super) fn chromedriver(path: &Path) -> (Guard, String) {
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
            start.elapsed() < support::PATIENCE,
            "chromedriver did not start"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The page of one WebDriver session, driven as a person would: find a
/// control, click it, type into it, set a widget's value, read a text, and
/// wait (at most `limit`) for a JavaScript condition. The browser tests'
/// one way to drive the page.
pub(super) struct Page<'a> {
    pub rt: &'a tokio::runtime::Runtime,
    pub c: &'a Client,
    pub limit: Duration,
}

impl Page<'_> {
    /// The element `sel` (CSS) selects; panics when there is none.
    pub fn find(&self, sel: &str) -> fantoccini::elements::Element {
        run(self.rt, self.c.find(Locator::Css(sel)))
    }

    pub fn click(&self, sel: &str) {
        run(self.rt, self.find(sel).click())
    }

    /// Clears the field `sel`, then types `text` into it.
    pub fn fill(&self, sel: &str, text: &str) {
        let e = self.find(sel);
        run(self.rt, e.clear());
        run(self.rt, e.send_keys(text));
    }

    /// A value set as the browser's own widgets would (date-times,
    /// selects): the value, then `input` and `change` events.
    pub fn set(&self, sel: &str, value: &str) {
        run(
            self.rt,
            self.c.execute(
                "const e = document.querySelector(arguments[0]); e.value = arguments[1]; \
                 e.dispatchEvent(new Event('input', {bubbles: true})); \
                 e.dispatchEvent(new Event('change', {bubbles: true})); return 1;",
                vec![json!(sel), json!(value)],
            ),
        );
    }

    /// A control's value, or another element's text ("" when none).
    pub fn text(&self, sel: &str) -> String {
        run(
            self.rt,
            self.c.execute(
                "const e = document.querySelector(arguments[0]); return e ? (e.value !== undefined && e.matches('input, select, textarea') ? e.value : e.textContent) : null;",
                vec![json!(sel)],
            ),
        )
        .as_str()
        .unwrap_or("")
        .to_string()
    }

    /// Waits for `check` (see [`wait_js`]).
    pub fn wait(&self, check: &str, what: &str) {
        wait_js(self.rt, self.c, check, what, self.limit)
    }
}

/// Polls `check` (a JavaScript expression) until it is truthy, for at most
/// `limit`; panics with `what` otherwise.
pub(super) fn wait_js(
    rt: &tokio::runtime::Runtime,
    c: &Client,
    check: &str,
    what: &str,
    limit: Duration,
) {
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

pub(super) fn run<T>(
    rt: &tokio::runtime::Runtime,
    f: impl Future<Output = Result<T, fantoccini::error::CmdError>>,
) -> T {
    rt.block_on(f).expect("WebDriver command")
}

pub(super) fn js(rt: &tokio::runtime::Runtime, c: &Client, script: &str) -> Value {
    run(rt, c.execute(script, vec![]))
}

/// The workspace's target directory (`CARGO_TARGET_DIR` when the build
/// set one).
pub(super) fn target_dir() -> PathBuf {
    option_env!("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(WORKSPACE).join("target"))
}

/// Every control's accessible name and every checkbox group's legend, as
/// a list of what lacks one (empty: all is well).
pub(super) const A11Y: &str = r#"
const named = (e) => e.labels.length > 0 || (e.getAttribute('aria-label') || '').trim() !== ''
  || (e.getAttribute('aria-labelledby') || '').trim() !== '';
const missing = [...document.querySelectorAll('input, select, textarea')]
  .filter((e) => e.type !== 'hidden' && !named(e)).map((e) => 'no name: ' + e.outerHTML);
const names = new Set([...document.querySelectorAll('input[type=checkbox]')].map((c) => c.name));
for (const n of names) {
  const boxes = [...document.querySelectorAll('input[type=checkbox][name="' + n + '"]')];
  const fs = boxes[0].closest('fieldset');
  const legend = fs && fs.querySelector(':scope > legend');
  if (!legend || !legend.textContent.trim() || boxes.some((b) => b.closest('fieldset') !== fs)) {
    missing.push('checkbox group without a fieldset and legend: ' + n);
  }
}
return missing;
"#;

/// The error tied to the control `sel`: its aria-invalid, the text of the
/// element its aria-describedby names, and the text of its form's summary.
pub(super) const TIED: &str = r#"
const input = document.querySelector(arguments[0]);
const ids = (input.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);
const text = ids.map((id) => (document.getElementById(id) || {}).textContent || '').join(' ');
const summary = input.form && input.form.querySelector('[role=alert]');
return [input.getAttribute('aria-invalid'), text, summary ? summary.textContent : null];
"#;

/// Every visible text's contrast with its background (WCAG AA: 4.5:1),
/// as a list of what falls short. The background is the first opaque one
/// up the tree; a hatched one (a background image) counts as its darker
/// stripe; placeholders are read from `::placeholder`.
pub(super) const CONTRAST: &str = r#"
const rgb = (c) => { const p = (c.match(/rgba?\(([^)]+)\)/) || [0, '0,0,0,0'])[1].split(',').map(Number);
  return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 }; };
const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
const back = (el) => {
  for (let e = el; e; e = e.parentElement) {
    const s = getComputedStyle(e);
    if (s.backgroundImage !== 'none') return { r: 243, g: 243, b: 243, a: 1 };
    const c = rgb(s.backgroundColor);
    if (c.a > 0) return c;
  }
  return { r: 255, g: 255, b: 255, a: 1 };
};
const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
const short = [];
for (const el of document.querySelectorAll('body *')) {
  if (el.closest('.visually-hidden') || el.getClientRects().length === 0) continue;
  const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  const input = el.matches('input:not([type=checkbox]), select, textarea');
  if (!own && !input) continue;
  const r = ratio(rgb(getComputedStyle(el).color), back(el));
  if (r < 4.5) short.push(el.outerHTML.slice(0, 80) + ': ' + r.toFixed(2));
  if (input && el.placeholder) {
    const p = ratio(rgb(getComputedStyle(el, '::placeholder').color), back(el));
    if (p < 4.5) short.push('placeholder of ' + el.outerHTML.slice(0, 60) + ': ' + p.toFixed(2));
  }
}
return short;
"#;

#[test]
fn the_admin_page_edits_a_weight_and_follows_votes_live() {
    const API: &str = "api-secret-token";
    let began = Instant::now();
    let chromium = tool("REDVOTE_CHROMIUM", "/usr/bin/chromium");
    let driver = tool("REDVOTE_CHROMEDRIVER", "/usr/bin/chromedriver");

    // every write on disk at once: Redis is killed and restarted below
    let mut server =
        support::TempServer::start_with(&["--appendonly", "yes", "--appendfsync", "always"])
            .expect("redis-server");
    let svc = Service::with(&server, &["--admin-token", ADMIN, "--api-token", API], &[]);
    let spring: Value =
        serde_json::from_str(include_str!("../../../../docs/spring2026.json")).unwrap();
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", spring)
        .ok(200);
    let vote = |user: &str, option: &str| {
        svc.request(Method::POST, "/v1/campaigns/spring/votes", Some(API))
            .json(json!({"user": user, "votes": [{"board": "male-stars", "option": option}]}))
            .send()
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
    let limit = support::PATIENCE;
    let shots = target_dir().join("screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let click = |sel: &str| run(&rt, run(&rt, c.find(Locator::Css(sel))).click());
    let text = |sel: &str| {
        js(
            &rt,
            &c,
            &format!("return document.querySelector('{sel}').textContent;"),
        )
        .as_str()
        .unwrap()
        .to_string()
    };

    // the token, once
    run(&rt, c.goto(&format!("{}/admin", svc.base)));
    let token = run(&rt, c.find(Locator::Css("#token")));
    run(&rt, token.send_keys(ADMIN));
    click("#token-save");
    wait_js(
        &rt,
        &c,
        "document.querySelector('#campaign').value === 'spring'",
        "the campaign list",
        limit,
    );
    wait_js(
        &rt,
        &c,
        "document.querySelector('input.weight')",
        "the first board's weights",
        limit,
    );
    // every control named, every checkbox group a fieldset with a legend
    let missing = js(&rt, &c, A11Y);
    assert_eq!(missing, json!([]), "{missing:#}");

    // no campaign open: nothing is saved, and the page says why
    js(&rt, &c, "const s = document.querySelector('#campaign'); s.value = ''; s.dispatchEvent(new Event('change')); return 1;");
    wait_js(
        &rt,
        &c,
        "document.querySelector('#board').value === '' && !document.querySelector('input.weight')",
        "no campaign open",
        limit,
    );
    click("#save-campaign");
    click("#save-board");
    for sel in [
        "#f-campaign-error",
        "#f-board-error",
        "#campaign-name-error",
    ] {
        wait_js(
            &rt,
            &c,
            &format!("document.querySelector('{sel}').offsetParent !== null && document.querySelector('{sel}').textContent.includes('No campaign is open')"),
            "the refusal to save without a campaign",
            limit,
        );
    }
    assert_eq!(
        js(
            &rt,
            &c,
            "return document.querySelector('#campaign-name').getAttribute('aria-invalid');"
        ),
        "true"
    );
    svc.request(Method::GET, "/v1/campaigns/null/settings", Some(ADMIN))
        .send()
        .problem(404, "REDVOTE_UNKNOWN_CAMPAIGN");
    let list = svc
        .request(Method::GET, "/v1/campaigns?count=1000", Some(ADMIN))
        .send()
        .ok(200);
    assert_eq!(list["campaigns"], json!(["spring"]), "{list}");

    // a malformed typed name: refused next to the field, nothing opened
    let name = run(&rt, c.find(Locator::Css("#campaign-name")));
    run(&rt, name.send_keys("no pe"));
    click("#open");
    wait_js(
        &rt,
        &c,
        "document.querySelector('#campaign-name-error').textContent.startsWith('That name is not valid') \
         && document.querySelector('#campaign-name').getAttribute('aria-invalid') === 'true' \
         && document.querySelector('#campaign').value === ''",
        "the malformed name's refusal",
        limit,
    );
    // a campaign opened by typing its name
    run(&rt, name.clear());
    run(&rt, name.send_keys("spring"));
    click("#open");
    wait_js(
        &rt,
        &c,
        "document.querySelector('#campaign').value === 'spring' \
         && document.querySelector('#board option[value=\"male-stars\"]') \
         && document.querySelector('#campaign-title').textContent === 'spring'",
        "the typed campaign, open",
        limit,
    );

    // the board, live; the stream's URLs recorded (EventSource wrapped)
    js(&rt, &c, "window.__streams = []; const E = window.EventSource; \
        window.EventSource = class extends E { constructor(u, o) { super(u, o); window.__streams.push(String(u)); } }; return 1;");
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
    // the stream's URL: a ticket, never a token
    let urls = js(
        &rt,
        &c,
        "return window.__streams.concat(performance.getEntriesByType('resource').map((e) => e.name));",
    );
    let streams: Vec<&str> = urls
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_str().unwrap())
        .collect();
    assert!(
        streams
            .iter()
            .any(|u| u.contains("/top/stream?") && u.contains("ticket=")),
        "{streams:?}"
    );
    for u in &streams {
        assert!(
            !u.contains(ADMIN) && !u.contains(API) && !u.contains("access_token"),
            "a token in a URL: {u}"
        );
    }
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
    click("#save-board");
    wait_js(
        &rt,
        &c,
        "document.querySelector('.error[data-field=\"weight:wy\"]').textContent.includes('REDVOTE_INVALID_CONFIG')",
        "the weight's refusal next to it",
        limit,
    );
    let shown = text(".error[data-field=\"weight:wy\"]");
    assert!(
        shown.contains("weight") && shown.starts_with("These settings are not valid"),
        "{shown}"
    );
    let tied = run(
        &rt,
        c.execute(TIED, vec![json!("input.weight[data-option=\"wy\"]")]),
    );
    assert_eq!(tied[0], "true", "aria-invalid: {tied}");
    // the error first, then the "future votes only" hint
    assert!(
        tied[1].as_str().unwrap().starts_with(shown.as_str())
            && tied[1].as_str().unwrap().contains("future votes only"),
        "aria-describedby: {tied}"
    );
    assert!(
        tied[2]
            .as_str()
            .unwrap()
            .starts_with("The board was not saved: "),
        "the summary: {tied}"
    );
    std::fs::write(shots.join("admin-errors.png"), run(&rt, c.screenshot())).unwrap();
    let short = js(&rt, &c, CONTRAST);
    assert_eq!(short, json!([]), "under 4.5:1 with errors shown: {short:#}");
    // a value the page refuses itself, next to its field
    let decimals = run(&rt, c.find(Locator::Css("#f-decimals")));
    run(&rt, decimals.clear());
    run(&rt, decimals.send_keys("two"));
    click("#save-board");
    let tied = run(&rt, c.execute(TIED, vec![json!("#f-decimals")]));
    assert_eq!(tied[0], "true", "{tied}");
    assert!(tied[1].as_str().unwrap().contains("whole number"), "{tied}");
    assert_eq!(
        js(
            &rt,
            &c,
            "return document.querySelectorAll('[aria-invalid=\"true\"]').length;"
        ),
        1,
        "the earlier error is cleared"
    );
    run(&rt, decimals.clear());
    let stored = svc
        .request(Method::GET, "/v1/campaigns/spring/settings", Some(ADMIN))
        .send()
        .ok(200);
    assert_eq!(
        stored["boards"]["male-stars"]["options"]["wy"]["weight"], 1,
        "nothing saved"
    );
    if let Some(d) = stored["boards"]["male-stars"]["decimals"].as_u64() {
        run(&rt, decimals.send_keys(&d.to_string()));
    }

    // a weight changed through the form
    run(&rt, wy.clear());
    run(&rt, wy.send_keys("1"));
    let yyqx = run(
        &rt,
        c.find(Locator::Css("input.weight[data-option=\"yyqx\"]")),
    );
    run(&rt, yyqx.clear());
    run(&rt, yyqx.send_keys("5"));
    click("#save-board");
    wait_js(
        &rt,
        &c,
        "document.querySelector('#status').textContent === 'board male-stars saved'",
        "the save",
        limit,
    );
    assert_eq!(
        js(
            &rt,
            &c,
            "return document.querySelectorAll('[aria-invalid=\"true\"]').length;"
        ),
        0
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
    click("#peek");
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
    let missing = js(&rt, &c, A11Y);
    assert_eq!(missing, json!([]), "{missing:#}");

    let short = js(&rt, &c, CONTRAST);
    assert_eq!(short, json!([]), "under 4.5:1: {short:#}");
    js(
        &rt,
        &c,
        "document.activeElement.blur(); window.scrollTo(0, 0); return 1;",
    );
    let png = run(&rt, c.screenshot());
    std::fs::write(shots.join("admin-desktop.png"), &png).unwrap();
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
    std::fs::write(shots.join("admin-phone.png"), &phone).unwrap();
    // nothing wider than the phone: no sideways scrolling
    let widths = js(
        &rt,
        &c,
        "return [document.documentElement.scrollWidth, window.innerWidth];",
    );
    assert!(
        widths[0].as_u64() <= widths[1].as_u64(),
        "the page is wider than a 390 px phone: {widths}"
    );
    run(&rt, c.set_window_size(1280, 1250));

    // Redis gone with the stream open: the stream's reads fail, the table
    // is marked stale; Redis back: live again by itself
    server.kill().unwrap();
    wait_js(
        &rt,
        &c,
        "document.querySelector('#live').classList.contains('stale') \
         && document.querySelector('#live-state').textContent === 'stale' \
         && document.querySelector('#live-stale').offsetParent !== null \
         && document.querySelector('#live-stale-text').textContent.startsWith('Live updates stopped at ')",
        "the stale table",
        limit,
    );
    server.restart().unwrap();
    wait_js(
        &rt,
        &c,
        "!document.querySelector('#live').classList.contains('stale') \
         && document.querySelector('#live-state').textContent === 'live' \
         && document.querySelector('#live-stale').offsetParent === null",
        "the live table again",
        limit,
    );
    // Redis gone while the stream (re)opens: the stream fails, the page
    // retries with backoff, then gives up with a Reconnect button
    server.kill().unwrap();
    js(&rt, &c, "const k = document.querySelector('#kind'); k.value = 'real'; k.dispatchEvent(new Event('change')); return 1;");
    wait_js(
        &rt,
        &c,
        "document.querySelector('#live-stale-text').textContent.includes('retrying in') \
         && document.querySelector('#live-state').textContent === 'stale'",
        "a retry with backoff",
        limit,
    );
    // (skip the rest of the backoff: the next failure is the last)
    js(&rt, &c, "live.attempts = MAX_ATTEMPTS; return 1;");
    wait_js(
        &rt,
        &c,
        "document.querySelector('#live-state').textContent === 'stopped' \
         && document.querySelector('#live-reconnect').offsetParent !== null \
         && document.querySelector('#live-stale-text').textContent.includes('gave up')",
        "the Reconnect button",
        limit,
    );
    assert!(
        text("#live-stale-text").contains("Redis is unavailable"),
        "{}",
        text("#live-stale-text")
    );
    let short = js(&rt, &c, CONTRAST);
    assert_eq!(short, json!([]), "under 4.5:1 when stale: {short:#}");
    js(&rt, &c, "window.scrollTo(0, 0); return 1;");
    std::fs::write(shots.join("admin-stale.png"), run(&rt, c.screenshot())).unwrap();
    server.restart().unwrap();
    click("#live-reconnect");
    wait_js(
        &rt,
        &c,
        "document.querySelector('#live-state').textContent === 'live' \
         && !document.querySelector('#live').classList.contains('stale') \
         && document.querySelector('tr[data-member=\"yyqx\"]') !== null",
        "the live table after Reconnect",
        limit,
    );
    let urls = js(&rt, &c, "return window.__streams;");
    assert!(urls.as_array().unwrap().len() >= 3, "{urls}");
    assert!(!urls.to_string().contains(ADMIN) && !urls.to_string().contains(API));

    let _ = rt.block_on(c.close());
    eprintln!("the admin page's flow took {:?}", began.elapsed());
}

/// chromedriver, a fresh Chromium profile and a WebDriver session at
/// 1280 px (the guards stop them on drop).
pub(super) fn session(rt: &tokio::runtime::Runtime) -> (Guard, Guard, Client) {
    session_in(rt, None)
}

/// [`session`], with Chromium's downloads saved to `downloads` without a
/// prompt (the profile's preference, and `Browser.setDownloadBehavior`
/// through chromedriver's DevTools command).
pub(super) fn session_in(
    rt: &tokio::runtime::Runtime,
    downloads: Option<&Path>,
) -> (Guard, Guard, Client) {
    let chromium = tool("REDVOTE_CHROMIUM", "/usr/bin/chromium");
    let driver = tool("REDVOTE_CHROMEDRIVER", "/usr/bin/chromedriver");
    let (driver, driver_url) = chromedriver(&driver);
    let profile = std::env::temp_dir().join(format!(
        "redvote-chromium-{}-{}",
        std::process::id(),
        free_port()
    ));
    let profile_guard = Guard {
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
                "--lang=en-US",
                format!("--user-data-dir={}", profile.display()),
            ],
            "prefs": downloads.map_or(json!({}), |d| json!({
                "download.default_directory": d,
                "download.prompt_for_download": false,
                "download.directory_upgrade": true,
            })),
        }
    });
    let mut builder = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new());
    builder.capabilities(caps.as_object().unwrap().clone());
    let c = rt
        .block_on(builder.connect(&driver_url))
        .expect("a Chromium session through chromedriver");
    if let Some(dir) = downloads {
        let id = rt
            .block_on(c.session_id())
            .expect("the session id")
            .expect("a session");
        let reply = reqwest::blocking::Client::new()
            .post(format!("{driver_url}/session/{id}/goog/cdp/execute"))
            .json(&json!({
                "cmd": "Browser.setDownloadBehavior",
                "params": {"behavior": "allow", "downloadPath": dir, "eventsEnabled": false},
            }))
            .send()
            .expect("chromedriver's DevTools command");
        assert!(reply.status().is_success(), "{:?}", reply.text());
    }
    (driver, profile_guard, c)
}

const TAB: &str = "\u{E004}";
const ENTER: &str = "\u{E007}";

/// The manager's flow on the back office: a campaign created from nothing
/// with the keyboard alone, two boards with options and their display data,
/// periods, ties, retention, two rate-limit rules from the form and their
/// preview in words, start and end in the campaign's offset (stored as the
/// Unix times the offset implies, shown back the same after a reload), a
/// deny list, a CSV import previewed then applied (a bad file shows its
/// rows' problems and applies nothing), votes over the API followed by the
/// live top, a tie switch made pending by votes and then reindexed from the
/// page, a user's limits reset; every control named, every visible text at
/// 4.5:1, no sideways scrolling at 390 px. Screenshots:
/// `backoffice-desktop.png`, `backoffice-phone.png`,
/// `backoffice-import.png` in `target/screenshots/`.
#[test]
fn the_back_office_runs_a_campaign_from_nothing() {
    const API: &str = "api-secret-token";
    let began = Instant::now();
    let server = support::TempServer::start().expect("redis-server");
    let svc = Service::with(&server, &["--admin-token", ADMIN, "--api-token", API], &[]);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (_driver, _profile, c) = session(&rt);
    let limit = support::PATIENCE;
    let shots = target_dir().join("screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let files = std::env::temp_dir().join(format!("redvote-import-{}", free_port()));
    std::fs::create_dir_all(&files).unwrap();
    let _files = Guard {
        child: Command::new("true").spawn().unwrap(),
        dir: Some(files.clone()),
    };
    let page = Page {
        rt: &rt,
        c: &c,
        limit,
    };
    let find = |sel: &str| page.find(sel);
    let click = |sel: &str| page.click(sel);
    let fill = |sel: &str, text: &str| page.fill(sel, text);
    let set = |sel: &str, value: &str| page.set(sel, value);
    let text = |sel: &str| page.text(sel);
    let wait = |check: &str, what: &str| page.wait(check, what);
    let keys = |k: &str| run(&rt, run(&rt, c.active_element()).send_keys(k));
    // Tab until the element `id` has the focus (a bounded number of times)
    let tab_to = |id: &str| {
        for _ in 0..150 {
            let at = js(
                &rt,
                &c,
                "return document.activeElement ? document.activeElement.id : '';",
            );
            if at == id {
                return;
            }
            keys(TAB);
        }
        panic!("Tab never reached #{id}");
    };
    let settings = || {
        svc.request(Method::GET, "/v1/campaigns/gala/settings", Some(ADMIN))
            .send()
    };

    // the token, then a campaign created from nothing with the keyboard alone
    run(&rt, c.goto(&format!("{}/admin", svc.base)));
    wait(
        "document.querySelector('#status').textContent === 'enter the admin token'",
        "the page",
    );
    run(&rt, find("#token").click());
    keys(&format!("{ADMIN}{ENTER}"));
    wait(
        "document.querySelector('#status').textContent.startsWith('no campaign yet')",
        "the empty list",
    );
    tab_to("campaign-name");
    keys(&format!("gala{ENTER}"));
    wait("document.querySelector('#campaign-title').textContent === 'gala' \
          && document.querySelector('#status').textContent.includes('save its settings to create it')",
        "the new campaign's empty forms");
    settings().problem(404, "REDVOTE_UNKNOWN_CAMPAIGN");
    tab_to("save-campaign");
    keys(ENTER);
    wait(
        "document.querySelector('#status').textContent === 'campaign gala saved'",
        "the created campaign",
    );
    settings().ok(200);
    tab_to("new-board");
    keys(&format!("singers{ENTER}"));
    wait(
        "document.querySelector('#board').value === 'singers' \
          && document.querySelector('#board-name').textContent === 'singers'",
        "the first board",
    );
    // the new board's first setting has the focus: tick it, save it
    wait(
        "document.activeElement.matches('#f-periods input[value=hour]')",
        "the focus on the new board's periods",
    );
    keys(" ");
    tab_to("save-board");
    keys(ENTER);
    wait(
        "document.querySelector('#status').textContent === 'board singers saved'",
        "the board saved from the keyboard",
    );
    let got = settings().ok(200);
    assert_eq!(
        got["boards"]["singers"]["periods"],
        json!(["hour", "total"]),
        "{got}"
    );
    let missing = js(&rt, &c, A11Y);
    assert_eq!(missing, json!([]), "{missing:#}");

    // the campaign: offset, dates in it, two rules in words, a deny list
    fill("#f-offset", "+08:00");
    wait(
        "document.querySelector('#f-dates-offset').textContent === '+08:00'",
        "the offset beside the dates",
    );
    set("#f-start", "2026-03-01T20:00:00");
    set("#f-end", "2030-12-31T23:59:00");
    click("#add-rule");
    fill("#rules fieldset.rule:nth-child(1) .r-name", "user-minute");
    set("#rules fieldset.rule:nth-child(1) .r-window", "minute");
    fill("#rules fieldset.rule:nth-child(1) .r-limit", "5");
    click("#add-rule");
    fill("#rules fieldset.rule:nth-child(2) .r-name", "user-hour");
    set("#rules fieldset.rule:nth-child(2) .r-window", "hour");
    fill("#rules fieldset.rule:nth-child(2) .r-limit", "10");
    wait(
        "document.querySelector('#limits-preview').textContent === 'A user may vote 5 times a minute, 10 an hour.'",
        "the limits in words",
    );
    // a rolling rule per option, then taken out again
    click("#add-rule");
    fill("#rules fieldset.rule:nth-child(3) .r-name", "smooth");
    set("#rules fieldset.rule:nth-child(3) .r-kind", "rolling");
    run(
        &rt,
        find("#rules fieldset.rule:nth-child(3) input[value=user]").click(),
    );
    run(
        &rt,
        find("#rules fieldset.rule:nth-child(3) input[value=option]").click(),
    );
    fill("#rules fieldset.rule:nth-child(3) .r-limit", "7");
    fill("#rules fieldset.rule:nth-child(3) .r-per", "60");
    fill("#rules fieldset.rule:nth-child(3) .r-burst", "2");
    wait(
        "document.querySelector('#limits-preview').textContent === 'A user may vote 5 times a minute, 10 an hour. \
         An option may be voted for 7 times every 60 seconds, evenly spaced (2 at once).'",
        "the rolling rule in words",
    );
    click("#rules fieldset.rule:nth-child(3) .r-remove");
    // a rule's name the page refuses, next to that rule
    fill("#rules fieldset.rule:nth-child(2) .r-name", "user hour");
    click("#save-campaign");
    let tied = run(
        &rt,
        c.execute(
            TIED,
            vec![json!("#rules fieldset.rule:nth-child(2) .r-name")],
        ),
    );
    assert_eq!(tied[0], "true", "{tied}");
    assert!(
        tied[1]
            .as_str()
            .unwrap()
            .starts_with("A rule's name is 1 to 64 characters"),
        "{tied}"
    );
    assert!(
        tied[2]
            .as_str()
            .unwrap()
            .starts_with("The campaign was not saved: "),
        "{tied}"
    );
    fill("#rules fieldset.rule:nth-child(2) .r-name", "user-hour");
    // a value the service refuses, in words next to its field
    fill("#f-vote_id_ttl", "0");
    click("#save-campaign");
    wait("document.querySelector('#f-vote_id_ttl-error').textContent.startsWith('These settings are not valid') \
          && document.querySelector('#f-vote_id_ttl').getAttribute('aria-invalid') === 'true'",
        "the refused vote id TTL next to its field");
    run(&rt, find("#f-vote_id_ttl").clear());
    fill("#f-deny-users", "user:bot\nuser:banned\n");
    click("#save-campaign");
    wait(
        "document.querySelector('#status').textContent === 'campaign gala saved'",
        "the campaign's settings",
    );
    let got = settings().ok(200);
    assert_eq!(got["offset"], "+08:00");
    // 2026-03-01T20:00:00 at +08:00 is 12:00 UTC
    assert_eq!(got["start"], 1_772_366_400, "{got}");
    assert_eq!(got["end"], 1_924_963_140, "{got}");
    assert_eq!(
        got["limits"],
        json!([
            {"name": "user-minute", "by": ["user"], "window": "minute", "limit": 5},
            {"name": "user-hour", "by": ["user"], "window": "hour", "limit": 10},
        ])
    );
    let deny = svc
        .request(Method::GET, "/v1/campaigns/gala/deny", Some(ADMIN))
        .send()
        .ok(200);
    assert_eq!(deny["users"], json!(["user:banned", "user:bot"]));
    // a reload shows the same date-times, rules and deny list
    run(&rt, c.refresh());
    wait(
        "document.querySelector('#campaign-title').textContent === 'gala' \
          && document.querySelector('#f-start').value !== ''",
        "the campaign after a reload",
    );
    assert_eq!(text("#f-start"), "2026-03-01T20:00");
    assert_eq!(text("#f-end"), "2030-12-31T23:59");
    assert_eq!(
        text("#limits-preview"),
        "A user may vote 5 times a minute, 10 an hour."
    );
    assert_eq!(text("#f-deny-users"), "user:banned\nuser:bot");

    // the first board: periods, ties, retention, options with display data
    wait(
        "document.querySelector('#board').value === 'singers'",
        "the board after the reload",
    );
    run(&rt, find("#f-periods input[value=day]").click());
    set("#f-ties", "dense");
    fill("#f-keep_hour", "86400");
    for (id, name) in [
        ("alice", "Alice A."),
        ("bob", "Bob B."),
        ("carol", "Carol C."),
    ] {
        fill("#new-option", id);
        keys(ENTER);
        wait(
            &format!(
                "document.activeElement.matches('fieldset.option[data-option=\"{id}\"] .opt-name')"
            ),
            "the new option's display name, focused",
        );
        keys(name);
    }
    fill(
        "fieldset.option[data-option=alice] .opt-image",
        "https://example.com/alice.jpg",
    );
    fill("fieldset.option[data-option=alice] .opt-other", "team: red");
    click("#save-board");
    wait("document.querySelector('#status').textContent === 'board singers saved' \
          && document.querySelector('fieldset.option[data-option=carol]:not([data-new])') \
          && document.querySelector('fieldset.option[data-option=alice] .opt-name').value === 'Alice A.'",
        "the board saved");
    let got = settings().ok(200);
    let b = &got["boards"]["singers"];
    assert_eq!(b["periods"], json!(["hour", "day", "total"]), "{b}");
    assert_eq!(b["ties"], "dense");
    assert_eq!(b["retention"]["hour"], 86400);
    // rename what people see; remove carol (and her votes)
    fill(
        "fieldset.option[data-option=alice] .opt-name",
        "Alice Anders",
    );
    run(
        &rt,
        find("fieldset.option[data-option=carol] .opt-remove").click(),
    );
    click("#save-board");
    // the page asks first; the removal is confirmed in its dialog
    wait(
        "document.querySelector('#confirm').open           && document.querySelector('#confirm-text').textContent.includes('carol')",
        "the removal's confirmation",
    );
    click("#confirm-ok");
    wait(
        "document.querySelector('#status').textContent === 'board singers saved (removed: carol)'",
        "the removal",
    );
    let opts = svc
        .request(
            Method::GET,
            "/v1/campaigns/gala/boards/singers/options",
            Some(ADMIN),
        )
        .send()
        .ok(200);
    assert_eq!(
        opts["options"],
        json!([
            {"option": "alice", "weight": 1, "data": {"name": "Alice Anders", "picture": "https://example.com/alice.jpg", "team": "red"}},
            {"option": "bob", "weight": 1, "data": {"name": "Bob B."}},
        ])
    );
    // the second board, typed and added
    fill("#new-board", "bands");
    click("#add-board");
    wait(
        "document.querySelector('#board').value === 'bands'",
        "the second board",
    );
    fill("#new-option", "metal");
    click("#add-option");
    fill("fieldset.option[data-option=metal] .opt-name", "Metal Band");
    click("#save-board");
    wait(
        "document.querySelector('#status').textContent === 'board bands saved'",
        "the second board saved",
    );
    let got = settings().ok(200);
    assert_eq!(
        got["boards"]["bands"]["options"]["metal"]["weight"], 1,
        "{got}"
    );

    // import into singers: a bad file shows its rows and applies nothing
    set("#board", "singers");
    wait(
        "document.querySelector('#board-name').textContent === 'singers' \
          && document.querySelector('fieldset.option[data-option=bob]')",
        "singers again",
    );
    let bad = files.join("bad.csv");
    std::fs::write(&bad, "option,votes\nalice,10\nbob,-3\nzed,5\n").unwrap();
    run(&rt, find("#import-file").send_keys(bad.to_str().unwrap()));
    wait(
        "document.querySelectorAll('#import-preview tbody tr').length === 3 \
          && document.querySelector('#import-file-error').textContent.includes('Line(s) 3, 4')",
        "the bad file's preview",
    );
    assert_eq!(
        text("#import-preview tbody tr:nth-child(2) td:nth-child(4)"),
        "votes must be a number, 0 or more"
    );
    assert!(
        text("#import-preview tbody tr:nth-child(3) td:nth-child(4)").contains("no option zed")
    );
    assert_eq!(
        js(
            &rt,
            &c,
            "return document.querySelector('#import-apply').disabled;"
        ),
        true
    );
    let tied = run(&rt, c.execute(TIED, vec![json!("#import-file")]));
    assert_eq!(tied[0], "true", "{tied}");
    std::fs::write(
        shots.join("backoffice-import.png"),
        run(&rt, c.screenshot()),
    )
    .unwrap();
    let short = js(&rt, &c, CONTRAST);
    assert_eq!(
        short,
        json!([]),
        "under 4.5:1 with the import's errors: {short:#}"
    );
    let top = |board: &str| {
        svc.request(
            Method::GET,
            &format!("/v1/campaigns/gala/top?boards={board}&period=total"),
            Some(API),
        )
        .send()
        .ok(200)
    };
    assert_eq!(
        top("singers")["boards"][0]["entries"],
        json!([]),
        "nothing imported"
    );
    let good = files.join("good.csv");
    std::fs::write(&good, "option,votes\nalice,100\nbob,50\n").unwrap();
    run(&rt, find("#import-file").send_keys(good.to_str().unwrap()));
    wait(
        "document.querySelectorAll('#import-preview tbody tr').length === 2 \
          && !document.querySelector('#import-apply').disabled",
        "the good file's preview",
    );
    assert!(text("#import-counts").starts_with("2 row(s) into board singers, 0 with a problem"));
    click("#import-apply");
    wait("document.querySelector('#import-counts').textContent === 'Imported 2 row(s) into board singers.'", "the import");

    // votes over the API; the live top follows
    wait("document.querySelector('#live-state').textContent === 'live' \
          && Number((document.querySelector('tr[data-member=alice] td.score') || {}).textContent) === 100",
        "the live top of singers");
    // a JSON file sets alice's starting votes to 120: 20 more on the board
    let json_file = files.join("start.json");
    std::fs::write(&json_file, r#"{"alice": 120, "bob": "50"}"#).unwrap();
    run(
        &rt,
        find("#import-file").send_keys(json_file.to_str().unwrap()),
    );
    wait(
        "document.querySelectorAll('#import-preview tbody tr').length === 2 \
          && !document.querySelector('#import-apply').disabled",
        "the JSON file's preview",
    );
    click("#import-apply");
    wait(
        "Number((document.querySelector('tr[data-member=alice] td.score') || {}).textContent) === 120",
        "alice's new starting votes on the live top",
    );
    let vote = |user: &str, option: &str| {
        svc.request(Method::POST, "/v1/campaigns/gala/votes", Some(API))
            .json(json!({"user": user, "votes": [{"board": "singers", "option": option}]}))
            .send()
    };
    // fan-1 until a rule refuses (5 a minute; 10 an hour across a minute's edge)
    let mut passed = 0;
    while vote("fan-1", "bob").status == 200 {
        passed += 1;
        assert!(passed <= 10, "no rule refused fan-1");
    }
    assert!(passed >= 5, "{passed}");
    vote("fan-1", "bob").problem(429, "REDVOTE_RATE_LIMITED");
    vote("user:bot", "bob").problem(403, "REDVOTE_DENIED");
    wait(&format!("Number((document.querySelector('tr[data-member=bob] td.score') || {{}}).textContent) === {}", 50 + passed),
        "bob's votes on the live top");

    // a tie switch after votes is pending until the page reindexes
    run(&rt, c.refresh());
    wait(
        "document.querySelector('#board option[value=singers]')",
        "the boards after a reload",
    );
    set("#board", "singers");
    wait("document.querySelector('#board-name').textContent === 'singers' && document.querySelector('#f-ties').value === 'dense'",
        "singers after a reload");
    set("#f-ties", "first");
    click("#save-board");
    wait("document.querySelector('#status').textContent === 'board singers saved' \
          && document.querySelector('#f-ties-hint').textContent.startsWith('The switch to first is pending') \
          && !document.querySelector('#reindex').hidden", "the pending switch");
    assert_eq!(
        settings().ok(200)["boards"]["singers"]["ties_pending"],
        true
    );
    click("#reindex");
    wait(
        "document.querySelector('#status').textContent.startsWith('board singers reindexed') \
          && document.querySelector('#reindex').hidden",
        "the reindex",
    );
    let got = settings().ok(200);
    let b = &got["boards"]["singers"];
    assert_eq!(b["ties"], "first");
    assert!(b.get("ties_pending").is_none(), "{b}");

    // a user's limits reset from the page: fan-1 votes again
    fill("#peek-user", "fan-1");
    click("#reset-limits");
    wait("document.querySelector('#reset-result').textContent.startsWith('Reset the limits of fan-1: ')", "the reset");
    vote("fan-1", "bob").ok(200);
    wait(&format!("Number((document.querySelector('tr[data-member=bob] td.score') || {{}}).textContent) === {}", 51 + passed),
        "the vote after the reset on the live top");

    let missing = js(&rt, &c, A11Y);
    assert_eq!(missing, json!([]), "{missing:#}");
    let short = js(&rt, &c, CONTRAST);
    assert_eq!(short, json!([]), "under 4.5:1: {short:#}");
    js(
        &rt,
        &c,
        "document.activeElement.blur(); window.scrollTo(0, 0); return 1;",
    );
    // the whole page in one picture
    let height = js(&rt, &c, "return document.documentElement.scrollHeight;")
        .as_u64()
        .unwrap()
        .min(4000);
    run(&rt, c.set_window_size(1280, height as u32 + 200));
    let png = run(&rt, c.screenshot());
    std::fs::write(shots.join("backoffice-desktop.png"), &png).unwrap();
    if std::env::var_os("REDVOTE_UPDATE_SCREENSHOT").is_some() {
        std::fs::write(Path::new(WORKSPACE).join("docs/admin.png"), &png).unwrap();
    }
    run(&rt, c.set_window_size(390, 844));
    wait("window.innerWidth <= 400", "the phone-width window");
    let widths = js(
        &rt,
        &c,
        "return [document.documentElement.scrollWidth, window.innerWidth];",
    );
    assert!(
        widths[0].as_u64() <= widths[1].as_u64(),
        "the page is wider than a 390 px phone: {widths}"
    );
    // nothing inside a section wider than it either (a section scrolls on its own)
    let wide = js(
        &rt,
        &c,
        "return [...document.querySelectorAll('section')].filter((s) => s.scrollWidth > s.clientWidth + 1).map((s) => s.id);",
    );
    assert_eq!(wide, json!([]), "sections scrolling sideways at 390 px");
    js(
        &rt,
        &c,
        "window.scrollTo(0, document.querySelector('#settings').offsetTop); return 1;",
    );
    std::fs::write(shots.join("backoffice-phone.png"), run(&rt, c.screenshot())).unwrap();
    js(
        &rt,
        &c,
        "window.scrollTo(0, document.querySelector('#options').offsetTop - 40); return 1;",
    );
    std::fs::write(
        shots.join("backoffice-phone-options.png"),
        run(&rt, c.screenshot()),
    )
    .unwrap();

    let _ = rt.block_on(c.close());
    eprintln!("the back office's flow took {:?}", began.elapsed());
}
