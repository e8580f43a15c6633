//! The whole campaign manager's flow on the back office, in headless
//! Chromium (the helpers of [`super::browser`]): a campaign, a board,
//! options and a rate limit made on the page; votes over the HTTP API with
//! vote ids, channels and devices; the charts and the live top following
//! them; the export and the statistics' CSV downloaded by Chromium into a
//! directory of the test's own and compared with what the API answers;
//! votes voided on the page (by id, then a user's over a time range) and
//! seen leaving the top and entering the charts as voided; a team key made
//! on the page and used over the API (allowed, 403) and on the page (a read
//! key: its campaigns, the live top, the charts), then revoked (401); the
//! audit view showing those changes; a start date set and cleared; the
//! page's CSV reader on quoted fields. Screenshots in
//! `target/screenshots/`: `manager-desktop.png` (1280 px, the whole page),
//! `manager-phone.png` (390 px, the top of the page),
//! `manager-charts-phone.png` (390 px, the charts),
//! `manager-void-phone.png` (390 px, the void forms),
//! `manager-audit-phone.png` (390 px, the audit log as cards),
//! `manager-confirm-phone.png` (390 px, a void's confirmation),
//! `manager-key-desktop.png` (the token shown once) and
//! `manager-read-key-desktop.png` (the page with a read key).

use std::path::Path;
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};

use super::browser::{free_port, js, run, session_in, target_dir, Guard, Page, A11Y, CONTRAST};
use super::{Service, ADMIN};
use redvote_testing as support;

/// The file named `name` in `dir` once Chromium has finished writing it
/// (no `.crdownload` beside it), for at most `limit`.
fn downloaded(dir: &Path, name: &str, limit: Duration) -> String {
    let start = Instant::now();
    loop {
        let path = dir.join(name);
        let partial = std::fs::read_dir(dir).unwrap().any(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".crdownload")
        });
        if path.exists() && !partial {
            return std::fs::read_to_string(&path).unwrap();
        }
        if start.elapsed() > limit {
            let have: Vec<String> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            panic!("no download {name} in {} (there: {have:?})", dir.display());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_campaign_manager_runs_charts_exports_voids_keys_and_the_audit_log() {
    const API: &str = "api-secret-token";
    let began = Instant::now();
    let server = support::TempServer::start().expect("redis-server");
    let svc = Service::with(&server, &["--admin-token", ADMIN, "--api-token", API], &[]);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let downloads = std::env::temp_dir().join(format!("redvote-downloads-{}", free_port()));
    std::fs::create_dir_all(&downloads).unwrap();
    let _downloads = Guard {
        child: std::process::Command::new("true").spawn().unwrap(),
        dir: Some(downloads.clone()),
    };
    let (_driver, _profile, c) = session_in(&rt, Some(&downloads));
    let limit = support::PATIENCE;
    let shots = target_dir().join("screenshots");
    std::fs::create_dir_all(&shots).unwrap();
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
    // the page's own confirmation dialog, answered with `button`
    let confirm = |button: &str, says: &str| {
        wait(
            &format!(
                "document.querySelector('#confirm').open \
                 && document.querySelector('#confirm-text').textContent.includes({})",
                json!(says)
            ),
            "the confirmation",
        );
        click(button);
        wait(
            "!document.querySelector('#confirm').open",
            "the dialog closed",
        );
    };
    let status_is = |want: &str| {
        wait(
            &format!(
                "document.querySelector('#status').textContent === {}",
                json!(want)
            ),
            want,
        )
    };
    let get = |path: &str, token: &str| svc.request(Method::GET, path, Some(token)).send();

    // the token, a campaign with a vote log and a rate limit, on the page
    run(&rt, c.goto(&format!("{}/admin", svc.base)));
    wait(
        "document.querySelector('#status').textContent === 'enter the admin token'",
        "the page",
    );
    fill("#token", ADMIN);
    click("#token-save");
    wait(
        "document.querySelector('#status').textContent.startsWith('no campaign yet')",
        "the empty list",
    );
    // the page's CSV reader: quoted commas, doubled quotes, newlines in quotes
    let csv = js(
        &rt,
        &c,
        r#"return [
            parseCsv('option,votes\n"a,b",3\r\n"say ""hi""",4\n"two\nlines",5\nplain,6'),
            parseCsv('a,"open\n'), parseCsv('"x"y,1'),
            parseImport('f.csv', 'option,votes\n"alice",10\n"bob",",5"\n', new Set(['alice', 'bob'])).rows
                .map((r) => [r.line, r.option, r.votes, r.problem || 'ok'])];"#,
    );
    assert_eq!(
        csv[0]["records"],
        json!([
            {"line": 1, "fields": ["option", "votes"]},
            {"line": 2, "fields": ["a,b", "3"]},
            {"line": 3, "fields": ["say \"hi\"", "4"]},
            {"line": 4, "fields": ["two\nlines", "5"]},
            {"line": 6, "fields": ["plain", "6"]},
        ]),
        "{csv:#}"
    );
    assert!(
        csv[1]["problem"].as_str().unwrap().contains("never closed"),
        "{csv:#}"
    );
    assert!(
        csv[2]["problem"]
            .as_str()
            .unwrap()
            .contains("after a closing quote"),
        "{csv:#}"
    );
    assert_eq!(
        csv[3],
        json!([
            [2, "alice", "10", "ok"],
            [3, "bob", ",5", "votes must be a number, 0 or more"]
        ]),
        "{csv:#}"
    );

    fill("#campaign-name", "expo");
    click("#open");
    wait(
        "document.querySelector('#campaign-title').textContent === 'expo'",
        "the new campaign's forms",
    );
    fill("#f-vote_log", "1000");
    click("#add-rule");
    fill("#rules fieldset.rule:nth-child(1) .r-name", "user-minute");
    set("#rules fieldset.rule:nth-child(1) .r-window", "minute");
    fill("#rules fieldset.rule:nth-child(1) .r-limit", "50");
    set("#f-start", "2020-01-01T00:00:00");
    click("#save-campaign");
    status_is("campaign expo saved");
    let settings = || get("/v1/campaigns/expo/settings", ADMIN).ok(200);
    let got = settings();
    assert_eq!(got["vote_log"], 1000, "{got}");
    assert_eq!(got["start"], 1_577_836_800, "{got}");
    // the start cleared: an empty field and a save
    set("#f-start", "");
    click("#save-campaign");
    status_is("campaign expo saved");
    let got = settings();
    assert!(got.get("start").is_none(), "{got}");
    assert_eq!(got["limits"][0]["limit"], 50, "{got}");

    // a board and three options; one removed after a confirmation
    fill("#new-board", "songs");
    click("#add-board");
    wait(
        "document.querySelector('#board-name').textContent === 'songs'",
        "the board",
    );
    run(&rt, find("#f-periods input[value=hour]").click());
    run(&rt, find("#f-periods input[value=day]").click());
    for (id, name) in [("aria", "Aria"), ("ballad", "Ballad"), ("coda", "Coda")] {
        fill("#new-option", id);
        click("#add-option");
        fill(
            &format!("fieldset.option[data-option={id}] .opt-name"),
            name,
        );
    }
    click("#save-board");
    status_is("board songs saved");
    run(
        &rt,
        find("fieldset.option[data-option=coda] .opt-remove").click(),
    );
    click("#save-board");
    confirm("#confirm-cancel", "Remove option coda from board songs?");
    status_is("nothing was removed: the board was not saved");
    assert!(settings()["boards"]["songs"]["options"]["coda"].is_object());
    click("#save-board");
    confirm("#confirm-ok", "Their votes on every period are deleted");
    status_is("board songs saved (removed: coda)");
    let got = settings();
    assert_eq!(
        got["boards"]["songs"]["periods"],
        json!(["hour", "day", "total"]),
        "{got}"
    );
    assert!(got["boards"]["songs"]["options"]["coda"].is_null(), "{got}");

    // votes over the API: ids, channels, devices
    let vote = |user: &str, option: &str, id: Option<&str>, channel: &str, device: &str| {
        let mut req = svc
            .request(Method::POST, "/v1/campaigns/expo/votes", Some(API))
            .json(json!({"user": user, "channel": channel, "device": device,
                "votes": [{"board": "songs", "option": option}]}));
        if let Some(id) = id {
            req = req.header("Idempotency-Key", id);
        }
        req.send().ok(200);
    };
    let score = |option: &str| {
        format!(
            "Number((document.querySelector('#top tr[data-member={option}] td.score') || {{}}).textContent)"
        )
    };
    wait(
        "document.querySelector('#live-state').textContent === 'live'",
        "the live top",
    );
    vote("fan-1", "aria", Some("order-1"), "app", "mobile");
    vote("fan-2", "aria", Some("order-2"), "app", "pc");
    vote("fan-3", "ballad", Some("order-3"), "web", "mobile");
    for _ in 0..3 {
        vote("fan-x", "ballad", None, "partner", "pc");
    }
    wait(
        &format!("{} === 2 && {} === 4", score("aria"), score("ballad")),
        "the live top after the votes",
    );
    // the charts follow: 6 votes, none voided, channels and devices named
    wait(
        "document.querySelector('#stats-summary').textContent.includes(': 6 vote(s) in the last') \
         && document.querySelector('#stats-summary').textContent.includes(' 0 of them voided')",
        "the charts after the votes",
    );
    let chart = js(
        &rt,
        &c,
        "const q = (s) => [...document.querySelectorAll(s)]; return { \
           bars: q('#chart-votes svg rect.bar').length, \
           voided: q('#chart-votes svg rect.bar-voided').length, \
           labelled: q('#stats svg').every((s) => s.getAttribute('role') === 'img' && s.getAttribute('aria-labelledby') && s.querySelector('desc').textContent.length > 10), \
           axis: q('#chart-votes svg text').map((t) => t.textContent), \
           channels: q('#chart-channels svg text').map((t) => t.textContent), \
           devices: document.querySelector('#chart-devices desc').textContent, \
           line: q('#chart-participants svg polyline').length, \
           rows: q('#stats-table tbody tr').length };",
    );
    // one hour's bar (two when the votes straddled an hour's end)
    assert!(
        (1..=2).contains(&chart["bars"].as_u64().unwrap()),
        "{chart:#}"
    );
    assert_eq!(chart["voided"], 0, "{chart:#}");
    assert_eq!(chart["labelled"], true, "{chart:#}");
    assert_eq!(chart["line"], 1, "{chart:#}");
    assert!(chart["rows"].as_u64().unwrap() >= 24, "{chart:#}");
    let axis: Vec<&str> = chart["axis"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(
        axis.contains(&"0") && axis.iter().any(|t| t.ends_with(":00")),
        "{axis:?}"
    );
    assert!(
        axis.contains(&"votes") && axis.contains(&"hour of the day (+00:00)"),
        "the axes' titles: {axis:?}"
    );
    assert_eq!(
        chart["channels"],
        json!(["partner", "3", "app", "2", "web", "1"]),
        "{chart:#}"
    );
    assert_eq!(
        chart["devices"], "Votes by device: pc 4, mobile 2.",
        "{chart:#}"
    );

    // per day: the last 30 days, today's bucket holding the 6 votes
    set("#stats-by", "day");
    wait(
        "document.querySelector('#stats-summary').textContent.includes(': 6 vote(s) in the last 30 days') \
         && [...document.querySelectorAll('#chart-votes svg text')].some((t) => t.textContent === 'day (month-day, +00:00)')",
        "the charts per day",
    );
    set("#stats-by", "hour");
    wait(
        "document.querySelector('#stats-summary').textContent.includes(' hours, 0 of them voided')",
        "the charts per hour again",
    );

    // the export: total, both kinds, CSV, then JSON lines, as files
    set("#export-period", "total");
    set("#export-kind", "both");
    set("#export-format", "csv");
    click("#export-download");
    wait(
        "document.querySelector('#export-result').textContent.startsWith('Downloaded expo-songs-both-total.csv')",
        "the export's download",
    );
    let file = downloaded(&downloads, "expo-songs-both-total.csv", limit);
    let api = get(
        "/v1/campaigns/expo/boards/songs/export?period=total&kind=both&format=csv",
        ADMIN,
    );
    assert_eq!(api.status, 200);
    assert_eq!(file, api.text, "the downloaded export is the API's");
    assert_eq!(file.lines().count(), 3, "{file}");
    assert!(file.lines().nth(1).unwrap().contains("ballad"), "{file}");
    set("#export-format", "jsonl");
    set("#export-kind", "shown");
    click("#export-download");
    wait(
        "document.querySelector('#export-result').textContent.startsWith('Downloaded expo-songs-shown-total.jsonl')",
        "the JSON lines download",
    );
    let file = downloaded(&downloads, "expo-songs-shown-total.jsonl", limit);
    let rows: Vec<Value> = file
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2, "{file}");
    assert_eq!(rows[0]["option"], "ballad", "{file}");
    // a named period the page refuses before sending
    set("#export-period", "named");
    fill("#export-named", "last week");
    click("#export-download");
    wait(
        "document.querySelector('#export-error').textContent.startsWith('Name a period as')",
        "the refused period",
    );
    set("#export-period", "total");

    // the statistics' CSV
    click("#stats-csv");
    wait(
        "document.querySelector('#stats-summary').textContent.startsWith('Downloaded expo-songs-stats-hour.csv')",
        "the statistics' download",
    );
    let file = downloaded(&downloads, "expo-songs-stats-hour.csv", limit);
    let api = get(
        "/v1/campaigns/expo/boards/songs/stats?by=hour&format=csv",
        ADMIN,
    );
    assert_eq!(
        file.lines().next(),
        api.text.lines().next(),
        "the statistics' header"
    );
    assert!(
        file.starts_with(
            "period,start,votes,amount,voided,voided_amount,participants,ch:app,ch:partner,ch:web,dev:mobile,dev:pc"
        ),
        "{file}"
    );
    // the columns summed over the hours (the votes may straddle an hour's
    // end): votes, amount, voided, voided amount, then the channels
    // (app, partner, web) and devices (mobile, pc)
    let cols = [2, 3, 4, 5, 7, 8, 9, 10, 11];
    let mut sums = [0u64; 9];
    for line in file.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        for (sum, col) in sums.iter_mut().zip(cols) {
            *sum += cells[col].parse::<u64>().unwrap();
        }
    }
    assert_eq!(sums, [6, 6, 0, 0, 2, 3, 1, 2, 4], "{file}");

    // void a vote by its id: asked first, then said in words
    fill("#void-id", "order-2");
    click("#void-one");
    confirm("#confirm-cancel", "Void vote order-2 of campaign expo?");
    assert_eq!(text("#void-result"), "Nothing was voided.");
    click("#void-one");
    confirm("#confirm-ok", "This cannot be undone.");
    wait(
        "document.querySelector('#void-result').textContent.startsWith('Vote order-2 is voided: ')",
        "the void's result",
    );
    wait(
        &format!("{} === 1", score("aria")),
        "the top after the void",
    );
    wait(
        "document.querySelector('#stats-summary').textContent.includes(' 1 of them voided') \
         && document.querySelectorAll('#chart-votes svg rect.bar-voided').length >= 1",
        "the voided vote in the chart",
    );
    click("#void-one");
    confirm("#confirm-ok", "order-2");
    wait(
        "document.querySelector('#void-result').textContent.startsWith('Vote order-2 was already voided at ')",
        "the second void",
    );
    fill("#void-id", "order-999");
    click("#void-one");
    confirm("#confirm-ok", "order-999");
    wait(
        "document.querySelector('#void-id-error').textContent.startsWith('There is no vote order-999 to void')",
        "the unknown vote id",
    );
    // fan-x's votes of the last hour, through the vote log
    set("#void-by", "user");
    fill("#void-value", "fan-x");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let local = |t: u64| {
        js(&rt, &c, &format!("return toLocal({t}, 0);"))
            .as_str()
            .unwrap()
            .to_string()
    };
    set("#void-from", &local(now - 3600));
    set("#void-to", &local(now + 3600));
    click("#void-range");
    confirm("#confirm-ok", "Void every logged vote of user fan-x");
    wait(
        "document.querySelector('#void-result').textContent.startsWith('Voided 3 vote(s) of user fan-x from ')",
        "the range voided",
    );
    wait(
        &format!("{} === 1", score("ballad")),
        "the top after the range",
    );
    wait(
        "document.querySelector('#stats-summary').textContent.includes(' 4 of them voided')",
        "the range in the charts",
    );

    // a team key made on the page, its token shown once
    wait(
        "document.querySelector('#keys-table tbody').textContent.includes('No team key yet.')",
        "the empty key list",
    );
    fill("#key-name", "expo-reader");
    fill("#key-pattern", "exp*");
    set("#key-role", "read");
    click("#key-add");
    wait(
        "!document.querySelector('#key-made').hidden && document.querySelector('#key-token').value.startsWith('rvk_') \
         && document.querySelector('#keys-table tr[data-key=expo-reader]')",
        "the new key's token",
    );
    assert!(text("#key-once").starts_with("Copy it now: it will not be shown again."));
    let reader = text("#key-token");
    click("#key-copy");
    wait(
        "document.querySelector('#key-copied').textContent !== ''",
        "the copy's outcome",
    );
    js(
        &rt,
        &c,
        "document.activeElement.blur(); window.scrollTo(0, document.querySelector('#keys').offsetTop - 10); return 1;",
    );
    std::fs::write(
        shots.join("manager-key-desktop.png"),
        run(&rt, c.screenshot()),
    )
    .unwrap();
    click("#key-done");
    wait(
        "document.querySelector('#key-made').hidden && document.querySelector('#key-token').value === ''",
        "the token forgotten by the page",
    );
    // the key over the API: its campaigns to read, nothing else
    svc.admin(
        Method::PUT,
        "/v1/campaigns/other/settings",
        json!({"boards": {"b": {"options": {"o": {}}}}}),
    )
    .ok(200);
    get("/v1/campaigns/expo/top?boards=songs", &reader).ok(200);
    get("/v1/campaigns/expo/boards/songs/stats", &reader).ok(200);
    assert_eq!(
        get("/v1/campaigns", &reader).ok(200)["campaigns"],
        json!(["expo"])
    );
    svc.request(
        Method::POST,
        "/v1/campaigns/expo/boards/songs/top/ticket",
        Some(&reader),
    )
    .send()
    .ok(200);
    get("/v1/campaigns/other/top?boards=b", &reader).problem(403, "REDVOTE_FORBIDDEN");
    get("/v1/campaigns/expo/settings", &reader).problem(403, "REDVOTE_FORBIDDEN");
    svc.request(Method::POST, "/v1/campaigns/expo/votes", Some(&reader))
        .json(json!({"user": "u9", "votes": [{"board": "songs", "option": "aria"}]}))
        .send()
        .problem(403, "REDVOTE_FORBIDDEN");
    // the page with the read key: its campaigns only, the live top
    // (through a ticket) and the charts of a board typed by name
    fill("#token", &reader);
    click("#token-save");
    wait(
        "[...document.querySelectorAll('#campaign option')].map((o) => o.value).join() === ',expo' \
         && document.querySelector('#status').textContent.startsWith('this key may not change campaign expo')",
        "the read key's campaign list",
    );
    wait(
        "document.querySelector('#keys-off').textContent.startsWith('This token is a team key')",
        "the keys view closed to a team key",
    );
    let gone = js(
        &rt,
        &c,
        "return ['settings', 'boards', 'import', 'void', 'audit', 'stats', 'export', 'live'] \
           .map((id) => document.getElementById(id).getClientRects().length > 0);",
    );
    assert_eq!(
        gone,
        json!([false, false, false, false, false, true, true, true]),
        "what a read key sees"
    );
    fill("#board-typed", "songs");
    click("#open-board");
    wait(
        &format!(
            "document.querySelector('#live-state').textContent === 'live' && {} === 1",
            score("aria")
        ),
        "the read key's live top",
    );
    wait(
        "document.querySelector('#stats-summary').textContent.includes(' 4 of them voided')",
        "the read key's charts",
    );
    vote("fan-4", "aria", None, "app", "mobile");
    wait(
        &format!("{} === 2", score("aria")),
        "a vote on the read key's live top",
    );
    js(
        &rt,
        &c,
        "document.activeElement.blur(); window.scrollTo(0, 0); return 1;",
    );
    std::fs::write(
        shots.join("manager-read-key-desktop.png"),
        run(&rt, c.screenshot()),
    )
    .unwrap();
    fill("#token", ADMIN);
    click("#token-save");
    wait(
        "document.querySelector('#keys-table tr[data-key=expo-reader]') \
         && document.querySelector('#campaign-title').textContent === 'expo'",
        "the admin token again",
    );
    assert_eq!(
        js(
            &rt,
            &c,
            "return document.getElementById('settings').getClientRects().length > 0;"
        ),
        true
    );
    // revoked from the page, after a confirmation
    click("#keys-table tr[data-key=expo-reader] .key-revoke");
    confirm("#confirm-ok", "Revoke key expo-reader?");
    wait(
        "document.querySelector('#keys-result').textContent === 'Key expo-reader revoked: its token no longer works.' \
         && !document.querySelector('#keys-table tr[data-key=expo-reader]')",
        "the revoked key",
    );
    get("/v1/campaigns/expo/top?boards=songs", &reader).problem(401, "REDVOTE_UNAUTHORIZED");

    // the audit view: newest first, every change made above
    wait(
        "document.querySelector('#audit-table tbody tr') \
         && document.querySelector('#audit-table tbody tr').dataset.action === 'void_range'",
        "the range void, newest in the audit log",
    );
    let actions = js(
        &rt,
        &c,
        "return [...document.querySelectorAll('#audit-table tbody tr')].map((r) => [r.dataset.action, r.children[1].textContent]);",
    );
    assert_eq!(
        actions,
        json!([
            ["void_range", "operator"],
            ["void", "operator"],
            ["configure", "operator"],
            ["configure", "operator"],
            ["configure", "operator"],
            ["configure", "operator"],
            ["configure", "operator"],
        ]),
        "{actions:#}"
    );
    // the removal's row says what changed, before and after
    let removal = text("#audit-table tbody tr:nth-child(3) td:nth-child(4) pre");
    assert!(
        removal.contains("boards.songs.options.coda: {\"weight\":1} \u{2192} (none)"),
        "{removal}"
    );
    assert!(text("#audit-table tbody tr:nth-child(1) td.when").ends_with(" +00:00"));
    // the cleared start, in words
    let cleared = text("#audit-table tbody tr:nth-child(6) td:nth-child(4) pre");
    assert_eq!(cleared, "start: 1577836800 \u{2192} (none)", "{cleared}");
    // a change made elsewhere shows after Newest
    svc.admin(
        Method::PUT,
        "/v1/campaigns/expo/settings",
        json!({"vote_id_ttl": 3600}),
    )
    .ok(200);
    click("#audit-newest");
    wait(
        "document.querySelector('#audit-table tbody tr').dataset.action === 'configure' \
         && document.querySelector('#audit-table tbody tr td:nth-child(4) pre').textContent.includes('vote_id_ttl')",
        "the newest change",
    );
    // ten entries a page: three more changes, and the oldest is on page 2
    for ttl in [3601, 3602, 3603] {
        svc.admin(
            Method::PUT,
            "/v1/campaigns/expo/settings",
            json!({"vote_id_ttl": ttl}),
        )
        .ok(200);
    }
    click("#audit-newest");
    wait(
        "document.querySelectorAll('#audit-table tbody tr').length === 10 \
         && !document.querySelector('#audit-older').disabled",
        "a full first page",
    );
    click("#audit-older");
    wait(
        "document.querySelectorAll('#audit-table tbody tr').length === 1 \
         && document.querySelector('#audit-older').disabled \
         && document.querySelector('#audit-page').textContent === 'page 2: 1 older entry'",
        "the second page",
    );
    assert!(
        text("#audit-table tbody tr td:nth-child(4) pre").starts_with("campaign created\n"),
        "the oldest entry last"
    );
    click("#audit-newest");
    wait(
        "document.querySelectorAll('#audit-table tbody tr').length === 10",
        "the newest page again",
    );

    // every control named, every text at 4.5:1, at 1280 px
    let missing = js(&rt, &c, A11Y);
    assert_eq!(missing, json!([]), "{missing:#}");
    js(
        &rt,
        &c,
        "document.querySelectorAll('#stats details, #audit details').forEach((d) => { d.open = true; }); return 1;",
    );
    let short = js(&rt, &c, CONTRAST);
    assert_eq!(short, json!([]), "under 4.5:1: {short:#}");
    js(
        &rt,
        &c,
        "document.querySelectorAll('#stats details, #audit details').forEach((d) => { d.open = false; }); \
         document.activeElement.blur(); window.scrollTo(0, 0); return 1;",
    );
    let height = js(&rt, &c, "return document.documentElement.scrollHeight;")
        .as_u64()
        .unwrap()
        .min(6000);
    run(&rt, c.set_window_size(1280, height as u32 + 200));
    wait(
        "document.querySelector('#chart-votes svg').getAttribute('width') > 500",
        "the desktop's charts",
    );
    std::fs::write(shots.join("manager-desktop.png"), run(&rt, c.screenshot())).unwrap();

    // a phone: nothing wider than 390 px, the charts redrawn to fit
    run(&rt, c.set_window_size(390, 844));
    wait("window.innerWidth <= 400", "the phone-width window");
    wait(
        "Number(document.querySelector('#chart-votes svg').getAttribute('width')) <= 360",
        "the charts redrawn for the phone",
    );
    let widths = js(
        &rt,
        &c,
        "return [document.documentElement.scrollWidth, window.innerWidth];",
    );
    assert!(
        widths[0].as_u64() <= widths[1].as_u64(),
        "the page is wider than a 390 px phone: {widths}"
    );
    let wide = js(
        &rt,
        &c,
        "return [...document.querySelectorAll('section')].filter((s) => s.scrollWidth > s.clientWidth + 1).map((s) => s.id);",
    );
    assert_eq!(wide, json!([]), "sections scrolling sideways at 390 px");
    let short = js(&rt, &c, CONTRAST);
    assert_eq!(short, json!([]), "under 4.5:1 at 390 px: {short:#}");
    js(&rt, &c, "window.scrollTo(0, 0); return 1;");
    std::fs::write(shots.join("manager-phone.png"), run(&rt, c.screenshot())).unwrap();
    js(
        &rt,
        &c,
        "window.scrollTo(0, document.querySelector('#stats').offsetTop - 6); return 1;",
    );
    std::fs::write(
        shots.join("manager-charts-phone.png"),
        run(&rt, c.screenshot()),
    )
    .unwrap();
    js(
        &rt,
        &c,
        "window.scrollTo(0, document.querySelector('#void').offsetTop - 6); return 1;",
    );
    std::fs::write(
        shots.join("manager-void-phone.png"),
        run(&rt, c.screenshot()),
    )
    .unwrap();
    js(
        &rt,
        &c,
        "window.scrollTo(0, document.querySelector('#audit').offsetTop - 6); return 1;",
    );
    std::fs::write(
        shots.join("manager-audit-phone.png"),
        run(&rt, c.screenshot()),
    )
    .unwrap();
    // the confirmation at 390 px: readable, inside the screen, cancelled
    fill("#void-id", "order-1");
    click("#void-one");
    wait(
        "document.querySelector('#confirm').open",
        "the dialog at 390 px",
    );
    let fits = js(
        &rt,
        &c,
        "const r = document.querySelector('#confirm').getBoundingClientRect(); return r.left >= 0 && r.right <= window.innerWidth;",
    );
    assert_eq!(fits, true, "the dialog is wider than the phone");
    let short = js(&rt, &c, CONTRAST);
    assert_eq!(short, json!([]), "under 4.5:1 in the dialog: {short:#}");
    std::fs::write(
        shots.join("manager-confirm-phone.png"),
        run(&rt, c.screenshot()),
    )
    .unwrap();
    click("#confirm-cancel");
    wait(
        "document.querySelector('#void-result').textContent === 'Nothing was voided.'",
        "the cancelled void",
    );

    let _ = rt.block_on(c.close());
    eprintln!("the manager's flow took {:?}", began.elapsed());
}
