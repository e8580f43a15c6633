//! The back office's buffered campaigns in Debian's headless Chromium
//! (chromedriver, fantoccini; it never skips: without `/usr/bin/chromium`
//! and `/usr/bin/chromedriver`, or `REDVOTE_CHROMIUM` /
//! `REDVOTE_CHROMEDRIVER`, it fails saying how to install them). The
//! manager's whole flow is crates/redvote-cli/tests/serve/browser.rs;
//! here: a buffered campaign's mode and fold lag shown with votes
//! waiting, the settings form's mode and fold interval, a switch to
//! immediate saved from the page (which folds the buffer), and a campaign
//! created buffered. Every control named, every text at 4.5:1, nothing
//! wider than a 390 px phone. Screenshots in `target/screenshots/`:
//! `buffered-desktop.png` (1280 px, the whole page),
//! `buffered-settings-desktop.png` (the settings section),
//! `buffered-phone.png` (390 x 844 px, scrolled to the settings),
//! `buffered-settings-phone.png` (390 px, the settings section whole) and
//! `buffered-folded-phone.png` (the same after the switches).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use fantoccini::{Client, ClientBuilder, Locator};
use reqwest::Method;
use serde_json::{json, Value};

use super::{Service, ADMIN};
use redvote_testing::{self as support, readme::WORKSPACE};

/// chromedriver, killed on drop; and the profile directory, removed.
struct Driver {
    child: Child,
    profile: PathBuf,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

fn tool(var: &str, default: &str) -> PathBuf {
    let path = PathBuf::from(std::env::var(var).unwrap_or_else(|_| default.to_string()));
    assert!(
        path.exists(),
        "{} is missing: the back office's browser test needs Debian's chromium and \
         chromium-driver (`sudo apt-get install -y chromium chromium-driver`), or set {var}",
        path.display()
    );
    path
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// chromedriver on a free port, once its /status says ready.
fn chromedriver() -> (Driver, String) {
    let path = tool("REDVOTE_CHROMEDRIVER", "/usr/bin/chromedriver");
    let port = free_port();
    let child = Command::new(&path)
        .arg(format!("--port={port}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", path.display()));
    let profile = std::env::temp_dir().join(format!(
        "redvote-serve-chromium-{}-{port}",
        std::process::id()
    ));
    let driver = Driver { child, profile };
    let url = format!("http://127.0.0.1:{port}");
    support::wait_until("chromedriver ready", support::PATIENCE, || {
        reqwest::blocking::get(format!("{url}/status"))
            .ok()
            .and_then(|r| r.json::<Value>().ok())
            .is_some_and(|v| v["value"]["ready"] == true)
    });
    (driver, url)
}

/// The workspace's target directory (`CARGO_TARGET_DIR` when the build
/// set one).
fn target_dir() -> PathBuf {
    option_env!("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(WORKSPACE).join("target"))
}

/// What lacks an accessible name among the page's controls.
const UNNAMED: &str = r#"
const named = (e) => e.labels.length > 0 || (e.getAttribute('aria-label') || '').trim() !== ''
  || (e.getAttribute('aria-labelledby') || '').trim() !== '';
return [...document.querySelectorAll('input, select, textarea')]
  .filter((e) => e.type !== 'hidden' && !named(e)).map((e) => 'no name: ' + e.outerHTML);
"#;

/// Every visible text of `arguments[0]` (a selector) whose contrast with
/// its background is under 4.5:1 (WCAG AA); the background is the first
/// opaque one up the tree.
const CONTRAST: &str = r#"
const rgb = (c) => { const p = (c.match(/rgba?\(([^)]+)\)/) || [0, '0,0,0,0'])[1].split(',').map(Number);
  return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 }; };
const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
const back = (el) => {
  for (let e = el; e; e = e.parentElement) {
    const c = rgb(getComputedStyle(e).backgroundColor);
    if (c.a > 0) return c;
  }
  return { r: 255, g: 255, b: 255, a: 1 };
};
const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
const short = [];
for (const el of document.querySelectorAll(arguments[0] + ' *')) {
  if (el.closest('.visually-hidden') || el.getClientRects().length === 0) continue;
  const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  if (!own && !el.matches('input, select, textarea')) continue;
  const r = ratio(rgb(getComputedStyle(el).color), back(el));
  if (r < 4.5) short.push(el.outerHTML.slice(0, 80) + ': ' + r.toFixed(2));
}
return short;
"#;

/// The page of one WebDriver session.
struct Page<'a> {
    rt: &'a tokio::runtime::Runtime,
    c: &'a Client,
}

impl Page<'_> {
    fn run<T>(
        &self,
        f: impl std::future::Future<Output = Result<T, fantoccini::error::CmdError>>,
    ) -> T {
        self.rt.block_on(f).expect("WebDriver command")
    }

    fn js(&self, script: &str, args: Vec<Value>) -> Value {
        self.run(self.c.execute(script, args))
    }

    fn click(&self, sel: &str) {
        let e = self.run(self.c.find(Locator::Css(sel)));
        self.run(e.click());
    }

    fn fill(&self, sel: &str, text: &str) {
        let e = self.run(self.c.find(Locator::Css(sel)));
        self.run(e.clear());
        self.run(e.send_keys(text));
    }

    /// A select's value, as a person picks it (then `change`).
    fn choose(&self, sel: &str, value: &str) {
        self.js(
            "const e = document.querySelector(arguments[0]); e.value = arguments[1]; \
             e.dispatchEvent(new Event('change', {bubbles: true})); return 1;",
            vec![json!(sel), json!(value)],
        );
    }

    fn text(&self, sel: &str) -> String {
        self.js(
            "const e = document.querySelector(arguments[0]); \
             return e.matches('input, select, textarea') ? e.value : e.textContent;",
            vec![json!(sel)],
        )
        .as_str()
        .unwrap_or("")
        .to_string()
    }

    /// Waits (at most PATIENCE) for the JavaScript condition `check`.
    fn wait(&self, check: &str, what: &str) {
        let script = format!("return Boolean({check});");
        let start = Instant::now();
        loop {
            let ok =
                self.rt.block_on(self.c.execute(&script, vec![])).ok() == Some(Value::Bool(true));
            if ok {
                return;
            }
            if start.elapsed() > support::PATIENCE {
                let body = self.js("return document.body.innerText;", vec![]);
                panic!(
                    "timed out waiting for {what} ({check}); the page says:\n{}",
                    body.as_str().unwrap_or("")
                );
            }
            std::thread::sleep(support::POLL * 10);
        }
    }

    /// The viewport's picture, or `sel`'s alone.
    fn shot(&self, sel: Option<&str>) -> Vec<u8> {
        match sel {
            None => self.run(self.c.screenshot()),
            Some(sel) => {
                let e = self.run(self.c.find(Locator::Css(sel)));
                self.run(e.screenshot())
            }
        }
    }

    /// A window `width` px wide and as tall as the page (at most 6000
    /// px), so that an element's picture is whole.
    fn tall(&self, width: u32) {
        let height = self
            .js("return document.documentElement.scrollHeight;", vec![])
            .as_u64()
            .unwrap()
            .min(6000);
        self.run(self.c.set_window_size(width, height as u32 + 200));
    }

    /// Nothing wider than the window, no section scrolling sideways.
    fn fits(&self) {
        let widths = self.js(
            "return [document.documentElement.scrollWidth, window.innerWidth];",
            vec![],
        );
        assert!(
            widths[0].as_u64() <= widths[1].as_u64(),
            "the page is wider than the window: {widths}"
        );
        let wide = self.js(
            "return [...document.querySelectorAll('section')].filter((s) => s.scrollWidth > s.clientWidth + 1).map((s) => s.id);",
            vec![],
        );
        assert_eq!(wide, json!([]), "sections scrolling sideways");
    }
}

#[test]
fn the_back_office_shows_a_buffered_campaigns_mode_and_fold_lag() {
    let server = support::server();
    let mut con = support::con(&server);
    // "hot": configured through the driver, so not in the campaign
    // registry: the background folder leaves its buffer alone and the
    // page shows votes waiting (opened by name)
    let hot = redvote::Campaign::new("hot");
    let settings: redvote::CampaignSettings = serde_json::from_value(json!({
        "mode": "buffered", "fold_ms": 60000,
        "boards": {"stars": {"options": {"wjk": {}, "yyqx": {}}}}
    }))
    .unwrap();
    hot.configure(&settings).run(&mut con).unwrap();
    let svc = Service::start(&server);
    for (user, option) in [("fan-1", "wjk"), ("fan-2", "wjk"), ("fan-3", "yyqx")] {
        svc.vote("hot", user, "stars", option).ok(200);
    }

    let (driver, driver_url) = chromedriver();
    let chromium = tool("REDVOTE_CHROMIUM", "/usr/bin/chromium");
    let caps = json!({
        "goog:chromeOptions": {
            "binary": chromium,
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--window-size=1280,1250",
                format!("--user-data-dir={}", driver.profile.display()),
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
    let page = Page { rt: &rt, c: &c };
    let shots = target_dir().join("screenshots");
    std::fs::create_dir_all(&shots).unwrap();

    page.run(c.goto(&format!("{}/admin", svc.base)));
    page.fill("#token", ADMIN);
    page.click("#token-save");
    page.wait(
        "document.querySelector('#status').textContent.includes('no campaign yet')",
        "the empty campaign list",
    );
    page.fill("#campaign-name", "hot");
    page.click("#open");
    page.wait(
        "!document.querySelector('#fold-state').hidden && document.querySelector('#fold-lag').textContent.includes('3 votes waiting')",
        "the buffered campaign's fold lag",
    );
    assert_eq!(page.text("#fold-mode"), "buffered");
    let lag = page.text("#fold-lag");
    assert!(lag.starts_with("folded every 60000 ms: fold lag "), "{lag}");
    assert_eq!(
        (page.text("#f-mode"), page.text("#f-fold_ms")),
        ("buffered".into(), "60000".into())
    );
    assert!(page
        .text("#f-mode-hint")
        .contains("Choose buffered for a hot campaign"));
    assert_eq!(page.js(UNNAMED, vec![]), json!([]));
    assert_eq!(
        page.js(CONTRAST, vec![json!("body")]),
        json!([]),
        "under 4.5:1"
    );

    // the whole page at 1280 px, and its settings section
    page.js(
        "document.activeElement.blur(); window.scrollTo(0, 0); return 1;",
        vec![],
    );
    page.fits();
    page.tall(1280);
    std::fs::write(shots.join("buffered-desktop.png"), page.shot(None)).unwrap();
    std::fs::write(
        shots.join("buffered-settings-desktop.png"),
        page.shot(Some("#settings")),
    )
    .unwrap();

    // a phone: the same, nothing wider than 390 px
    page.run(c.set_window_size(390, 844));
    page.wait("window.innerWidth <= 400", "the phone-width window");
    page.fits();
    assert_eq!(
        page.js(CONTRAST, vec![json!("#settings")]),
        json!([]),
        "under 4.5:1 at 390 px"
    );
    page.js(
        "window.scrollTo(0, document.querySelector('#settings').offsetTop); return 1;",
        vec![],
    );
    std::fs::write(shots.join("buffered-phone.png"), page.shot(None)).unwrap();
    page.tall(390);
    std::fs::write(
        shots.join("buffered-settings-phone.png"),
        page.shot(Some("#settings")),
    )
    .unwrap();

    // switched to immediate from the page: the save folds the buffer
    page.choose("#f-mode", "immediate");
    page.click("#save-campaign");
    page.wait(
        "document.querySelector('#status').textContent === 'campaign hot saved' && document.querySelector('#fold-mode').textContent === 'immediate'",
        "the switch to immediate",
    );
    assert_eq!(
        page.text("#fold-lag"),
        "each vote is on the boards when it is answered"
    );
    let top = svc
        .get("/v1/campaigns/hot/top?boards=stars&kind=real")
        .ok(200);
    assert_eq!(top["boards"][0]["size"], 2, "{top}");
    // and back to buffered, every 250 ms
    page.choose("#f-mode", "buffered");
    page.fill("#f-fold_ms", "250");
    page.click("#save-campaign");
    page.wait(
        "document.querySelector('#fold-lag').textContent === 'folded every 250 ms: all votes on the boards'",
        "the switch back to buffered",
    );
    std::fs::write(
        shots.join("buffered-folded-phone.png"),
        page.shot(Some("#settings")),
    )
    .unwrap();
    // a fold interval out of range: refused next to its field, nothing sent
    page.fill("#f-fold_ms", "5");
    page.click("#save-campaign");
    page.wait(
        "document.querySelector('#f-fold_ms').getAttribute('aria-invalid') === 'true' && document.querySelector('#f-fold_ms-error').textContent.includes('10 to 60000')",
        "the refused fold interval",
    );
    let stored = svc
        .request(Method::GET, "/v1/campaigns/hot/settings", Some(ADMIN))
        .send()
        .ok(200);
    assert_eq!(
        (&stored["mode"], &stored["fold_ms"]),
        (&json!("buffered"), &json!(250))
    );

    // a campaign created buffered from the page
    page.fill("#campaign-name", "fresh");
    page.click("#open");
    page.wait(
        "document.querySelector('#status').textContent.includes('no campaign fresh yet') && document.querySelector('#fold-state').hidden",
        "the new campaign's empty form",
    );
    assert_eq!(page.text("#f-mode"), "immediate");
    page.choose("#f-mode", "buffered");
    page.click("#save-campaign");
    page.wait(
        "document.querySelector('#status').textContent === 'campaign fresh saved' && document.querySelector('#fold-lag').textContent === 'folded every 200 ms: all votes on the boards'",
        "the new buffered campaign",
    );
    let stored = svc
        .request(Method::GET, "/v1/campaigns/fresh/settings", Some(ADMIN))
        .send()
        .ok(200);
    assert_eq!(stored["mode"], "buffered", "{stored}");
    let _ = rt.block_on(c.close());
    drop(driver);
}
