//! The admin page's live top over SSE as the process ends: on SIGTERM
//! the open streams end and the process exits 0 within the drain limit.
//! The campaign list, the settings read back, the assets and the
//! stream's events and auth are tested in-process:
//! crates/redvote-serve/tests/service/admin.rs.

use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};

use super::{Service, ADMIN};
use redvote_testing as support;

fn spring() -> Value {
    serde_json::from_str(include_str!("../../../../docs/spring2026.json")).unwrap()
}

/// An open SSE response: its lines as they come.
struct Events {
    lines: std::sync::mpsc::Receiver<String>,
}

impl Events {
    fn open(url: &str) -> Result<Events, (u16, String)> {
        let res = reqwest::blocking::Client::builder()
            .timeout(None)
            .build()
            .unwrap()
            .get(url)
            .send()
            .unwrap();
        let status = res.status().as_u16();
        if status != 200 {
            return Err((status, res.text().unwrap_or_default()));
        }
        assert_eq!(res.headers()["content-type"], "text/event-stream");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(res).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Events { lines })
    }

    /// The next event's (name, data), within `limit`.
    fn next(&self, limit: Duration) -> Option<(String, Value)> {
        let deadline = Instant::now() + limit;
        let (mut name, mut data) = (String::new(), String::new());
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            let line = self.lines.recv_timeout(left).ok()?;
            if let Some(n) = line.strip_prefix("event: ") {
                name = n.to_string();
            } else if let Some(d) = line.strip_prefix("data: ") {
                data.push_str(d);
            } else if line.is_empty() && !data.is_empty() {
                return Some((name, serde_json::from_str(&data).unwrap()));
            }
        }
    }

    /// True when the stream ended within `limit`.
    fn ends(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.lines.recv_timeout(left) {
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return true,
                Err(_) => return false,
                Ok(_) => {}
            }
        }
        false
    }
}

fn cast(svc: &Service, user: &str, option: &str) {
    svc.json(
        Method::POST,
        "/v1/campaigns/spring/votes",
        json!({"user": user, "votes": [{"board": "male-stars", "option": option}]}),
    )
    .ok(200);
}

/// SIGTERM with a stream open: the stream ends and the process exits 0
/// well within the drain limit.
#[test]
fn sigterm_ends_open_streams_within_the_drain() {
    let server = support::server();
    let mut svc = Service::with(
        &server,
        &["--admin-token", ADMIN, "--drain-timeout", "5"],
        &[],
    );
    svc.admin(Method::PUT, "/v1/campaigns/spring/settings", spring())
        .ok(200);
    cast(&svc, "u1", "yyqx");
    let events = Events::open(&format!(
        "{}/v1/campaigns/spring/boards/male-stars/top/stream",
        svc.base
    ))
    .unwrap();
    events
        .next(Duration::from_secs(5))
        .expect("the first event");
    let start = Instant::now();
    svc.signal("TERM");
    let status = svc
        .wait_exit(Duration::from_secs(8))
        .expect("exited with a stream open");
    assert!(status.success(), "{status}: the drain was not cut");
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert!(events.ends(Duration::from_secs(2)), "the stream ended");
}
