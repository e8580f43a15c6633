//! `GET /v1/campaigns/{campaign}/boards/{board}/export`: one period board
//! as CSV or JSON lines, ranked under the board's tie rule, streamed in
//! bounded batches; and the parts the CLI's `redvote campaign NAME export`
//! shares with it (columns, rendering, the check of a board that moved
//! between batches).
//!
//! A batch is one page of [`BATCH`] members of `campaign_top` (the paged
//! read every client uses: O(log N + page) under every tie rule), then,
//! for `kind=both`, one `campaign_standing` of the same members on the
//! real board, then one pipeline of `HGET {c:NAME}:option:BOARD:OPTION
//! name` (the options' display names). Each is a call of its own: Redis is
//! never blocked longer than one page. The first batch is read before the
//! response starts (an unknown board or a bad period is a problem, not a
//! broken download); each next one when the client has taken the one
//! before (the body is a stream: a slow reader slows the reads, nothing
//! is buffered ahead). The period is resolved once: `day` reads the day
//! of the first batch to the end, even across midnight.
//!
//! What it promises: every batch is a snapshot (one atomic read); the
//! export as a whole is not. A vote between two batches may move a member
//! across their boundary (it then shows twice, or not at all) or shift
//! ranks. The export detects it cheaply (the board's size changed, or a
//! batch starts above where the one before ended) and, with
//! `strict=true`, ends the download early and abnormally (no last chunk:
//! the client sees a truncated transfer) rather than hand out rows that
//! may be inconsistent; without, it logs a warning and goes on. Export a
//! past period (`month:2026-10`), which no vote writes, for a consistent
//! file.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use redvote::campaign::{BoardPage, Standing};
use redvote::{Campaign, Code, Kind, Paging, View};
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::Api;
use super::campaign::campaign;
use super::extract::{Path, Query};
use super::problem::Problem;
use super::AppState;

/// Members a batch reads: the page size cap of `campaign_top`.
pub const BATCH: u32 = redvote::caps::PER_PAGE;

/// Which scores an export carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportKind {
    /// The shown board (weights, imported votes, carry), ranked by it.
    Shown,
    /// The real board (one per vote), ranked by it.
    Real,
    /// The shown board's members in its order, with their real score and
    /// real rank beside.
    Both,
}

impl ExportKind {
    /// `shown`, `real` or `both`.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "shown" => ExportKind::Shown,
            "real" => ExportKind::Real,
            "both" => ExportKind::Both,
            _ => return None,
        })
    }

    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            ExportKind::Shown => "shown",
            ExportKind::Real => "real",
            ExportKind::Both => "both",
        }
    }

    /// The board whose order the rows follow.
    pub fn ranked(self) -> Kind {
        match self {
            ExportKind::Real => Kind::Real,
            _ => Kind::Shown,
        }
    }
}

/// How an export is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// RFC 4180 CSV with a header line, `\n` line ends.
    Csv,
    /// One JSON object a line.
    Jsonl,
}

impl ExportFormat {
    /// `csv` or `jsonl`.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "csv" => ExportFormat::Csv,
            "jsonl" => ExportFormat::Jsonl,
            _ => return None,
        })
    }

    /// The file name's extension.
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Csv => "csv",
            ExportFormat::Jsonl => "jsonl",
        }
    }

    /// The response's `Content-Type`.
    pub fn content_type(self) -> &'static str {
        match self {
            ExportFormat::Csv => "text/csv; charset=utf-8",
            ExportFormat::Jsonl => "application/x-ndjson",
        }
    }
}

/// One exported member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// Its rank under the board's tie rule (the shown board's for `both`).
    pub rank: u64,
    /// The option's id.
    pub option: String,
    /// Its display name (the `name` of its display data), if it has one.
    pub name: Option<String>,
    /// Shown score, with the board's decimals (`shown` and `both`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shown: Option<String>,
    /// Real score (`real` and `both`; `0` for a member of the shown
    /// board without real votes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real: Option<String>,
    /// Its rank on the real board (`both` only; null: not on it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real_rank: Option<u64>,
}

/// The CSV header line of `kind` (with its `\n`).
pub fn csv_header(kind: ExportKind) -> &'static str {
    match kind {
        ExportKind::Shown => "rank,option,name,shown\n",
        ExportKind::Real => "rank,option,name,real\n",
        ExportKind::Both => "rank,option,name,shown,real,real_rank\n",
    }
}

/// A CSV field: quoted (quotes doubled) when it holds a comma, a quote,
/// a line end or starts or ends with a space. Option ids and scores never
/// need it; display names may.
fn csv_field(s: &str, out: &mut String) {
    let quote = s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ');
    if quote {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// Append `row` in `format` (with its `\n`) to `out`.
pub fn render(row: &Row, kind: ExportKind, format: ExportFormat, out: &mut String) {
    match format {
        ExportFormat::Jsonl => {
            let text = |s: &Option<String>| serde_json::to_string(s).unwrap_or_default();
            out.push_str(&format!(
                "{{\"rank\":{},\"option\":{},\"name\":{}",
                row.rank,
                serde_json::to_string(&row.option).unwrap_or_default(),
                text(&row.name)
            ));
            if kind != ExportKind::Real {
                out.push_str(&format!(",\"shown\":{}", text(&row.shown)));
            }
            if kind != ExportKind::Shown {
                out.push_str(&format!(",\"real\":{}", text(&row.real)));
            }
            if kind == ExportKind::Both {
                let rank = row.real_rank.map_or("null".to_string(), |r| r.to_string());
                out.push_str(&format!(",\"real_rank\":{rank}"));
            }
            out.push('}');
        }
        ExportFormat::Csv => {
            out.push_str(&row.rank.to_string());
            out.push(',');
            out.push_str(&row.option);
            out.push(',');
            csv_field(row.name.as_deref().unwrap_or(""), out);
            if kind != ExportKind::Real {
                out.push(',');
                out.push_str(row.shown.as_deref().unwrap_or(""));
            }
            if kind != ExportKind::Shown {
                out.push(',');
                out.push_str(row.real.as_deref().unwrap_or(""));
            }
            if kind == ExportKind::Both {
                out.push(',');
                if let Some(r) = row.real_rank {
                    out.push_str(&r.to_string());
                }
            }
        }
    }
    out.push('\n');
}

/// The rows of one batch: `page` (read on the board `kind` ranks by),
/// `real` (the same members' standing on the real board, for `both`) and
/// the display names, in the page's order.
pub fn rows(
    kind: ExportKind,
    page: &BoardPage,
    real: Option<&[Standing]>,
    names: Vec<Option<String>>,
) -> Vec<Row> {
    page.entries
        .iter()
        .zip(names.into_iter().chain(std::iter::repeat(None)))
        .enumerate()
        .map(|(i, (e, name))| {
            let standing = real.and_then(|r| r.get(i));
            let (shown, real) = match kind {
                ExportKind::Shown => (Some(e.score.clone()), None),
                ExportKind::Real => (None, Some(e.score.clone())),
                ExportKind::Both => (
                    Some(e.score.clone()),
                    Some(
                        standing
                            .and_then(|s| s.score.clone())
                            .unwrap_or_else(|| "0".to_string()),
                    ),
                ),
            };
            Row {
                rank: e.rank,
                option: e.member.clone(),
                name,
                shown,
                real,
                real_rank: standing.and_then(|s| s.rank),
            }
        })
        .collect()
}

/// The keys of the display data of `members` of `board`.
pub fn name_keys(c: &Campaign, board: &str, members: &[&str]) -> Vec<String> {
    members
        .iter()
        .map(|m| format!("{}option:{board}:{m}", c.namespace()))
        .collect()
}

/// A download's file name: `CAMPAIGN-BOARD-KIND-PERIOD.EXT`, the period's
/// colons as dashes (`spring2026-stars-shown-month-2026-10.csv`).
pub fn filename(
    campaign: &str,
    board: &str,
    kind: ExportKind,
    period: &str,
    format: ExportFormat,
) -> String {
    format!(
        "{}-{}-{}-{}.{}",
        safe(campaign),
        safe(board),
        kind.as_str(),
        safe(period),
        format.extension()
    )
}

/// `s` for a file name: ASCII letters, digits, `-`, `_` and `.` kept,
/// any other character a `-`.
pub fn safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// Where an export stands between batches: the next page, the period it
/// resolved, and whether the board moved under it.
#[derive(Debug, Clone)]
pub struct Progress {
    /// The next page to read, from 1.
    pub page: u32,
    /// The period as asked, then as the first batch resolved it
    /// (`day` -> `day:2026-03-17`).
    pub period: String,
    /// The board's size at the first batch.
    pub size: Option<u64>,
    /// Rows written so far.
    pub rows: u64,
    /// Batches read so far.
    pub batches: u64,
    /// Whether a batch saw the board moved since the one before: another
    /// size, or a first row ranked above the last row before it.
    pub shifted: bool,
    /// The last row's rank and score.
    last: Option<(u64, f64)>,
    /// No more batches.
    pub done: bool,
}

impl Progress {
    /// An export of `period` from its first page.
    pub fn new(period: &str) -> Self {
        Progress {
            page: 1,
            period: period.to_string(),
            size: None,
            rows: 0,
            batches: 0,
            shifted: false,
            last: None,
            done: false,
        }
    }

    /// Take in the batch read at `self.page`: the resolved period, the
    /// size and boundary checks, the next page. Returns whether this batch
    /// saw the board moved.
    pub fn advance(&mut self, page: &BoardPage) -> bool {
        let mut moved = false;
        if self.batches == 0 {
            self.period = page.period.clone();
        }
        match self.size {
            None => self.size = Some(page.size),
            Some(s) if s != page.size => moved = true,
            _ => {}
        }
        if let (Some((rank, score)), Some(first)) = (self.last, page.entries.first()) {
            let s: f64 = first.score.parse().unwrap_or(f64::NAN);
            if first.rank < rank || s > score {
                moved = true;
            }
        }
        if let Some(e) = page.entries.last() {
            self.last = Some((e.rank, e.score.parse().unwrap_or(f64::NAN)));
        }
        self.shifted |= moved;
        self.batches += 1;
        self.rows += page.entries.len() as u64;
        let read = u64::from(self.page) * u64::from(BATCH);
        self.done = page.entries.len() < BATCH as usize
            || read >= page.size
            || self.page >= redvote::caps::PAGE;
        self.page += 1;
        moved
    }
}

/// The export's query.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ExportQuery {
    /// hour, day, week, month (the current one), total (default), or a
    /// named period such as month:2026-10 (last month: name it).
    #[serde(default = "total")]
    #[param(default = "total")]
    pub period: String,
    /// shown (default), real, or both (the shown order, the real score
    /// and rank beside).
    #[serde(default = "shown")]
    #[param(default = "shown")]
    pub kind: String,
    /// csv (default, `text/csv`) or jsonl (JSON lines,
    /// `application/x-ndjson`).
    #[serde(default = "csv")]
    #[param(default = "csv")]
    pub format: String,
    /// End the download abnormally (a truncated transfer) when the board
    /// moved between two batches, rather than go on (default false).
    #[serde(default)]
    #[param(default = false)]
    pub strict: bool,
}

fn total() -> String {
    "total".to_string()
}

fn shown() -> String {
    "shown".to_string()
}

fn csv() -> String {
    "csv".to_string()
}

/// The export route.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(export))
}

/// One export in flight.
struct Job {
    state: AppState,
    campaign: Campaign,
    board: String,
    kind: ExportKind,
    format: ExportFormat,
    strict: bool,
    progress: Progress,
    /// Each batch's deadline (the service's request timeout).
    deadline: Duration,
}

impl Job {
    /// Read the next batch and render it.
    async fn batch(&mut self) -> Result<String, Problem> {
        let view = View::new(self.kind.ranked(), self.progress.period.clone());
        let call = self.campaign.top(
            &[self.board.as_str()],
            &view,
            Paging::new(self.progress.page, BATCH),
        );
        let pages = self.state.run(&call).await?;
        let page = pages.into_iter().next().ok_or_else(|| {
            Problem::from(redvote::Error::Reply {
                script: "campaign_top",
                reason: "no page for the board".into(),
            })
        })?;
        if self.progress.advance(&page) {
            tracing::warn!(
                board = %self.board,
                batch = self.progress.batches,
                "export: the board moved between two batches"
            );
            if self.strict {
                return Err(Problem::new(
                    StatusCode::CONFLICT,
                    Code::Usage.as_str(),
                    "the board moved during the export",
                ));
            }
        }
        let members: Vec<&str> = page.entries.iter().map(|e| e.member.as_str()).collect();
        let real = if self.kind == ExportKind::Both && !members.is_empty() {
            let real = View::new(Kind::Real, self.progress.period.clone());
            Some(
                self.state
                    .run(&self.campaign.standing(&self.board, &real, &members))
                    .await?,
            )
        } else {
            None
        };
        let names = if members.is_empty() {
            Vec::new()
        } else {
            let keys = name_keys(&self.campaign, &self.board, &members);
            self.state
                .with_redis("display_names", true, |mut con| {
                    let keys = keys.clone();
                    async move {
                        let mut pipe = redis::pipe();
                        for k in &keys {
                            pipe.hget(k, "name");
                        }
                        Ok(pipe.query_async(&mut con).await?)
                    }
                })
                .await?
        };
        let mut out = String::new();
        for row in rows(self.kind, &page, real.as_deref(), names) {
            render(&row, self.kind, self.format, &mut out);
        }
        Ok(out)
    }
}

/// Export a board's period as CSV or JSON lines, ranked under the board's
/// tie rule, streamed in batches of 100 members (each batch one atomic
/// read, the next read when the client has taken the one before; a
/// snapshot per batch, not of the whole board: see `strict`). A failure
/// after the first batch ends the transfer abnormally (no last chunk).
#[utoipa::path(
    get,
    path = "/v1/campaigns/{campaign}/boards/{board}/export",
    operation_id = "campaign_export",
    tag = "campaign",
    params(
        ("campaign" = String, Path, description = "Campaign name (the board name rule)"),
        ("board" = String, Path, description = "Board"),
        ExportQuery
    ),
    responses(
        (status = 200, description = "The rows, best first: CSV (header rank,option,name and the kind's score columns) or one JSON object a line",
            content(
                (String = "text/csv"),
                (String = "application/x-ndjson"),
            ),
            headers(("content-disposition" = String, description = "attachment; filename=CAMPAIGN-BOARD-KIND-PERIOD.csv (or .jsonl)"))),
        (status = 404, description = "No such campaign or board"),
        (status = 422, description = "A malformed name or period, a period the board does not keep, or a kind or format not listed"),
    ),
    security((), ("api_token" = []))
)]
async fn export(
    _: Api,
    State(state): State<AppState>,
    Path((name, board)): Path<(String, String)>,
    Query(q): Query<ExportQuery>,
) -> Result<Response, Problem> {
    let c = campaign(&name)?;
    let kind = ExportKind::parse(&q.kind).ok_or_else(|| {
        Problem::invalid(
            Code::Usage,
            format!(
                "kind must be shown, real or both, got {:?}",
                super::site::clip(&q.kind)
            ),
        )
    })?;
    let format = ExportFormat::parse(&q.format).ok_or_else(|| {
        Problem::invalid(
            Code::Usage,
            format!(
                "format must be csv or jsonl, got {:?}",
                super::site::clip(&q.format)
            ),
        )
    })?;
    let deadline = state.request_timeout;
    let mut job = Job {
        state: state.clone(),
        campaign: c,
        board: board.clone(),
        kind,
        format,
        strict: q.strict,
        progress: Progress::new(&q.period),
        deadline,
    };
    let mut first = String::new();
    if format == ExportFormat::Csv {
        first.push_str(csv_header(kind));
    }
    first.push_str(&job.batch().await?);
    let file = filename(&name, &board, kind, &job.progress.period, format);
    let rest = futures_util::stream::unfold(Some(job), |job| async move {
        let mut job = job?;
        if job.progress.done {
            return None;
        }
        if *job.state.shutdown.borrow() {
            let err = std::io::Error::other("the service is shutting down");
            return Some((Err(err), None));
        }
        match tokio::time::timeout(job.deadline, job.batch()).await {
            Ok(Ok(text)) => Some((Ok(Bytes::from(text)), Some(job))),
            Ok(Err(p)) => {
                tracing::warn!(detail = %p.detail, "export: a batch failed; the transfer ends abnormally");
                Some((Err(std::io::Error::other(p.detail)), None))
            }
            Err(_) => {
                tracing::warn!(
                    "export: a batch ran past its deadline; the transfer ends abnormally"
                );
                Some((
                    Err(std::io::Error::other("a batch ran past its deadline")),
                    None,
                ))
            }
        }
    });
    let first =
        futures_util::stream::once(async move { Ok::<_, std::io::Error>(Bytes::from(first)) });
    let body = Body::from_stream(
        // fused: the compression layer polls the body again after its end
        futures_util::StreamExt::fuse(futures_util::StreamExt::chain(first, rest)),
    );
    let mut response = (StatusCode::OK, body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(format.content_type()),
    );
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{file}\"")) {
        headers.insert(header::CONTENT_DISPOSITION, v);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;
    use redvote::campaign::Entry;

    fn page(size: u64, entries: &[(&str, &str, u64)]) -> BoardPage {
        BoardPage {
            board: "b".into(),
            period: "day:2026-03-17".into(),
            size,
            entries: entries
                .iter()
                .map(|(m, s, r)| Entry {
                    member: m.to_string(),
                    score: s.to_string(),
                    rank: *r,
                })
                .collect(),
            folded: None,
        }
    }

    #[test]
    fn rows_render_as_csv_and_json_lines() {
        let p = page(2, &[("a", "3.50", 1), ("b", "1.00", 2)]);
        let names = vec![Some("Ann, \"A\"".to_string()), None];
        let rows = rows(ExportKind::Shown, &p, None, names);
        let mut csv = csv_header(ExportKind::Shown).to_string();
        let mut jsonl = String::new();
        for r in &rows {
            render(r, ExportKind::Shown, ExportFormat::Csv, &mut csv);
            render(r, ExportKind::Shown, ExportFormat::Jsonl, &mut jsonl);
        }
        assert_eq!(
            csv,
            "rank,option,name,shown\n1,a,\"Ann, \"\"A\"\"\",3.50\n2,b,,1.00\n"
        );
        assert_eq!(
            jsonl,
            "{\"rank\":1,\"option\":\"a\",\"name\":\"Ann, \\\"A\\\"\",\"shown\":\"3.50\"}\n\
             {\"rank\":2,\"option\":\"b\",\"name\":null,\"shown\":\"1.00\"}\n"
        );
    }

    #[test]
    fn a_board_that_moved_between_batches_is_seen() {
        let full: Vec<(String, String, u64)> = (0..100)
            .map(|i| (format!("m{i}"), format!("{}", 1000 - i), i + 1))
            .collect();
        let entries: Vec<(&str, &str, u64)> = full
            .iter()
            .map(|(m, s, r)| (m.as_str(), s.as_str(), *r))
            .collect();
        let mut p = Progress::new("day");
        assert!(!p.advance(&page(150, &entries)));
        assert_eq!(p.period, "day:2026-03-17");
        assert!(!p.done);
        // the next batch starts above where the first ended
        assert!(p.advance(&page(150, &[("x", "2000", 1)])));
        assert!(p.shifted && p.done);
        let mut p = Progress::new("total");
        p.advance(&page(150, &entries));
        assert!(
            p.advance(&page(151, &[("y", "1", 101)])),
            "the size changed"
        );
    }

    #[test]
    fn file_names_hold_no_colon() {
        assert_eq!(
            filename(
                "spring",
                "stars",
                ExportKind::Both,
                "month:2026-10",
                ExportFormat::Jsonl
            ),
            "spring-stars-both-month-2026-10.jsonl"
        );
    }
}
