//! A blocking HTTP client for the tests of `redvote serve` (feature
//! `http`): [`Api`], a running service's base URL and the requests the
//! tests send it; [`Request`], a request being built, whose [`Request::send`]
//! reads the whole answer as a [`Reply`] (status, headers, body as JSON
//! and as text) with the assertions every test makes of it
//! ([`Reply::ok`], [`Reply::problem`]: RFC 9457); and [`Events`], an open
//! SSE stream read line by line (the admin page's live top). Used by the
//! service's in-process tests (crates/redvote-serve/tests/service) and by
//! the process tests of the binary (crates/redvote-cli/tests/serve).

use std::io::{BufRead, BufReader};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use reqwest::blocking::{Body, Client, RequestBuilder};
use reqwest::header::HeaderMap;
use reqwest::Method;
use serde_json::Value;

/// A running service as the tests reach it: its base URL and a client
/// (30 s per request) that sends the admin token where asked.
pub struct Api {
    /// `http://HOST:PORT`.
    pub base: String,
    http: Client,
    admin_token: String,
}

impl Api {
    /// The service at `base` (`http://HOST:PORT`), whose admin token is
    /// `admin_token` (sent by [`Api::admin`]).
    pub fn new(base: String, admin_token: &str) -> Api {
        Api {
            base,
            http: Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap(),
            admin_token: admin_token.to_string(),
        }
    }

    /// A request to `path`, with a bearer `token` when given.
    pub fn request(&self, method: Method, path: &str, token: Option<&str>) -> Request {
        let mut builder = self.http.request(method, format!("{}{path}", self.base));
        if let Some(t) = token {
            builder = builder.bearer_auth(t);
        }
        Request::new(builder)
    }

    /// `GET path` (no token).
    pub fn get(&self, path: &str) -> Reply {
        self.request(Method::GET, path, None).send()
    }

    /// `method path` with a JSON body (no token).
    pub fn json(&self, method: Method, path: &str, body: Value) -> Reply {
        self.request(method, path, None).json(body).send()
    }

    /// `POST /v1/campaigns/CAMPAIGN/votes` of `user`'s vote for `option`
    /// on `board` (no token).
    pub fn vote(&self, campaign: &str, user: &str, board: &str, option: &str) -> Reply {
        self.json(
            Method::POST,
            &format!("/v1/campaigns/{campaign}/votes"),
            serde_json::json!({"user": user, "votes": [{"board": board, "option": option}]}),
        )
    }

    /// `method path` with a JSON body and the admin token.
    pub fn admin(&self, method: Method, path: &str, body: Value) -> Reply {
        self.request(method, path, Some(&self.admin_token))
            .json(body)
            .send()
    }
}

/// A request being built.
pub struct Request {
    builder: RequestBuilder,
}

impl Request {
    /// The request `builder` makes (its method, URL and any auth).
    pub fn new(builder: RequestBuilder) -> Request {
        Request { builder }
    }

    /// With a JSON body.
    pub fn json(self, body: Value) -> Self {
        Request {
            builder: self.builder.json(&body),
        }
    }

    /// With a raw body and content type.
    pub fn body(self, content_type: &str, body: impl Into<Body>) -> Self {
        Request {
            builder: self.builder.header("content-type", content_type).body(body),
        }
    }

    /// With a header.
    pub fn header(self, name: &str, value: &str) -> Self {
        Request {
            builder: self.builder.header(name, value),
        }
    }

    /// Send, and read the whole answer.
    pub fn send(self) -> Reply {
        let response = self.builder.send().expect("HTTP request");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().expect("HTTP body");
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text.clone()));
        Reply {
            status,
            headers,
            body,
            text,
        }
    }
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Reply {
    /// The status.
    pub status: u16,
    /// The headers.
    pub headers: HeaderMap,
    /// The body as JSON (a JSON string of the text when it is not JSON).
    pub body: Value,
    /// The body as text.
    pub text: String,
}

impl Reply {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body, after checking the status is `want`.
    #[track_caller]
    pub fn ok(self, want: u16) -> Value {
        assert_eq!(self.status, want, "{}", self.text);
        assert_eq!(self.header("content-type"), Some("application/json"));
        self.body
    }

    /// This answer is an RFC 9457 problem with `status` and `code`; returns
    /// its detail.
    #[track_caller]
    pub fn problem(&self, status: u16, code: &str) -> String {
        assert_eq!(self.status, status, "{}", self.text);
        assert_eq!(
            self.header("content-type"),
            Some("application/problem+json"),
            "{}",
            self.text
        );
        let b = &self.body;
        assert_eq!(b["status"], status, "{}", self.text);
        assert_eq!(b["code"], code, "{}", self.text);
        assert!(b["type"].as_str().unwrap().starts_with("urn:redvote:"));
        assert!(!b["title"].as_str().unwrap().is_empty());
        let detail = b["detail"].as_str().unwrap().to_string();
        assert!(!detail.is_empty());
        detail
    }
}

/// An open SSE response: its lines as they come (read on a thread of its
/// own).
pub struct Events {
    lines: Receiver<String>,
}

impl Events {
    /// `GET url` without a timeout; the stream when it answers 200 (whose
    /// content type must be `text/event-stream`), else its status and body.
    pub fn open(url: &str) -> Result<Events, (u16, String)> {
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
        let (tx, lines) = mpsc::channel();
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
    pub fn next(&self, limit: Duration) -> Option<(String, Value)> {
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
    pub fn ends(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.lines.recv_timeout(left) {
                Err(RecvTimeoutError::Disconnected) => return true,
                Err(_) => return false,
                Ok(_) => {}
            }
        }
        false
    }
}
