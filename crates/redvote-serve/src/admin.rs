//! The admin page and what only it needs: the page itself (`GET /admin`,
//! its script and style under `/admin/...`, embedded in the binary: no
//! CDN, no build step), the campaign list and settings read-back (admin
//! token), and the live top of a board as Server-Sent Events.
//!
//! The stream (`GET /v1/campaigns/{campaign}/boards/{board}/top/stream`)
//! reads the board's top and its participants every `STEP` and sends an
//! event only when they changed (one at once); a comment every 15 s keeps
//! proxies from closing it. It ends when the server shuts down
//! ([`AppState::shutdown`]: the drain is not held) and after `seconds`
//! (default 300; EventSource reconnects by itself). An event is two
//! reads (the top, then the participants of its options), each atomic but
//! not together: a vote between them shows in the participants first and
//! in the scores at the next event.
//!
//! Auth of the stream: without an API token it is open, like every other
//! read (the page then sends nothing). With one, it takes the API or the
//! admin token as `Authorization: Bearer` or, for EventSource (which
//! cannot send headers), a stream ticket as `?ticket=`: `POST
//! .../top/ticket` (the admin token, or a team key of any role on its
//! campaigns) answers one, valid for that campaign and
//! board for [`TICKET_SECONDS`] (HMAC-signed, nothing stored:
//! [`super::auth`]). A ticket is checked when the stream opens; the
//! stream then lasts its `seconds`. No token ever goes in the URL (the
//! former `?access_token=` is gone: a proxy in front may log URLs).

use std::convert::Infallible;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::campaigns::{list_all_campaigns, read_settings};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::IntoResponse;
use futures_util::stream::{self, Stream};
use redvote::campaign::Entry;
use redvote::{CampaignSettings, Code, Kind, Paging, View};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::{Admin, Lister, Reader, Ticket, TICKET_SECONDS};
use super::campaign::{campaign, zero};
use super::extract::{Json, NoQuery, Path, Query};
use super::problem::{codes, Problem};
use super::AppState;

/// How often a stream reads the board.
const STEP: Duration = Duration::from_millis(500);

const INDEX_HTML: &str = include_str!("admin/index.html");
const ADMIN_JS: &str = include_str!("admin/admin.js");
const ADMIN_CSS: &str = include_str!("admin/admin.css");

/// The page, the admin-only reads and the stream.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .route("/admin", axum::routing::get(page))
        .route("/admin/", axum::routing::get(page))
        .route("/admin/admin.js", axum::routing::get(script))
        .route("/admin/admin.css", axum::routing::get(style))
        .routes(routes!(campaigns))
        .routes(routes!(settings))
        .routes(routes!(deny))
        .routes(routes!(board_options))
        .routes(routes!(top_ticket))
        .routes(routes!(top_stream))
}

fn asset(content_type: &'static str, body: &'static str) -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
}

async fn page() -> impl IntoResponse {
    (
        [(
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
        )],
        asset("text/html; charset=utf-8", INDEX_HTML),
    )
}

async fn script() -> impl IntoResponse {
    asset("text/javascript; charset=utf-8", ADMIN_JS)
}

async fn style() -> impl IntoResponse {
    asset("text/css; charset=utf-8", ADMIN_CSS)
}

/// Which page of campaign names.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct CampaignsQuery {
    /// "0" first, then the previous answer's `next`.
    #[serde(default = "zero")]
    #[param(default = "0")]
    pub cursor: String,
    /// Names per page (1..1000, default 200).
    #[serde(default = "two_hundred")]
    #[param(minimum = 1, maximum = 1000, default = 200)]
    pub count: u32,
}

fn two_hundred() -> u32 {
    200
}

/// A page of campaign names.
#[derive(Serialize, ToSchema)]
pub struct CampaignList {
    /// Campaign names of this page, sorted; each name comes once in a
    /// listing, and a page is not empty while `next` is not "0".
    pub campaigns: Vec<String>,
    /// The next page's cursor (the rank of its first name in the
    /// registry); "0": the list is complete.
    pub next: String,
}

/// Admin: one page of the campaign registry (`{c}:campaigns`, every
/// campaign configured through the service or registered by `redvote
/// campaigns register --scan`), O(log N + count) whatever else the
/// database holds. The cursor is the rank of the page's first name: "0"
/// first, then the previous answer's `next`, until it is "0" again. A
/// team key (any role) gets only the names its pattern matches.
#[utoipa::path(
    get,
    path = "/v1/campaigns",
    tag = "campaign",
    params(CampaignsQuery),
    responses(
        (status = 200, description = "Names and the next cursor", body = CampaignList),
        (status = 422, description = "A cursor that is not \"0\" or a previous answer's next (decimal digits), or a count out of range"),
    ),
    security(("admin_token" = []))
)]
async fn campaigns(
    who: Lister,
    State(state): State<AppState>,
    Query(q): Query<CampaignsQuery>,
) -> Result<Json<CampaignList>, Problem> {
    // a rank in the registry: decimal digits (list_all_campaigns also
    // bounds it; the former SCAN listing's NODE-CURSOR is refused)
    let well_formed = !q.cursor.is_empty()
        && q.cursor.len() <= 20
        && q.cursor.bytes().all(|b| b.is_ascii_digit())
        && q.cursor.parse::<u64>().is_ok();
    if !well_formed {
        return Err(Problem::invalid(
            Code::Usage,
            "cursor: \"0\" or a previous answer's next",
        ));
    }
    if !(1..=1000).contains(&q.count) {
        return Err(Problem::invalid(Code::Usage, "count: 1..1000"));
    }
    // through the retry policy: a connection that broke while idle is
    // replaced (the list is a read: resending it is safe)
    let count = q.count;
    let mut cursor = q.cursor.clone();
    let mut names = Vec::new();
    // a team key sees the names its pattern matches: registry pages are
    // read (at most TEAM_PAGES of them) until one name matches or the
    // registry ends, so a page is not empty while next is not "0" unless
    // that bound was reached
    for _ in 0..TEAM_PAGES {
        let page = state
            .with_redis("campaign_registry", true, |mut con| {
                let cursor = cursor.clone();
                async move { list_all_campaigns(&mut con, &cursor, count).await }
            })
            .await
            .map_err(|e| match e {
                // a rank beyond any the registry answers
                redvote::Error::Config(_) => {
                    Problem::invalid(Code::Usage, "cursor: \"0\" or a previous answer's next")
                }
                other => other.into(),
            })?;
        cursor = page.next;
        match &who {
            Lister::Operator => {
                names = page.names;
                break;
            }
            Lister::Team(pattern) => names.extend(
                page.names
                    .into_iter()
                    .filter(|n| super::keys::pattern_matches(pattern, n)),
            ),
        }
        if !names.is_empty() || cursor == "0" {
            break;
        }
    }
    Ok(Json(CampaignList {
        campaigns: names,
        next: cursor,
    }))
}

/// The registry pages one campaign-list request of a team key reads at
/// most while none of their names matches its pattern.
const TEAM_PAGES: usize = 20;

/// Admin: the campaign's stored settings, in the shape the settings PUT
/// takes: offset, start, end, vote_id_ttl, limits, and every board's
/// periods, ties, carry, decimals, retention and option weights (not the
/// deny lists, not the options' display data). One read-only script call
/// (`campaign_settings.lua`): one atomic snapshot, O(boards + options), a
/// campaign over one configure call's caps (64 boards, 1000 options)
/// refused with REDVOTE_INVALID_CONFIG.
#[utoipa::path(
    get,
    path = "/v1/campaigns/{campaign}/settings",
    tag = "campaign",
    params(("campaign" = String, Path, description = "Campaign name (the board name rule)")),
    responses(
        (status = 200, description = "The stored settings", body = CampaignSettings),
        (status = 404, description = "No such campaign"),
        (status = 422, description = "A malformed campaign name; a corrupt stored setting, or a campaign over 64 boards or 1000 options (REDVOTE_INVALID_CONFIG)"),
    ),
    security(("admin_token" = []))
)]
async fn settings(
    _: Admin,
    State(state): State<AppState>,
    Path(name): Path<String>,
    _: NoQuery,
) -> Result<Json<CampaignSettings>, Problem> {
    let c = campaign(&name)?;
    match read_settings(&state, &c).await? {
        Some(mut s) => {
            // a cleared date (the PUT's null) is absent again
            if s.start == Some(0) {
                s.start = None;
            }
            if s.end == Some(super::campaign::NO_END) {
                s.end = None;
            }
            Ok(Json(s))
        }
        None => Err(unknown_campaign(&name)),
    }
}

/// A campaign's deny lists.
#[derive(Serialize, ToSchema)]
pub struct DenyView {
    /// Users refused outright, sorted.
    pub users: Vec<String>,
    /// Channels refused outright, sorted.
    pub channels: Vec<String>,
}

/// Admin: the campaign's deny lists (which the settings read leaves out),
/// for the back office's deny form: one atomic read (`EXISTS` of the
/// campaign, `SMEMBERS` of `{c:NAME}:deny:users` and `...:deny:channels`,
/// one slot), O(entries), at most 10000 entries a list (configure's cap).
/// The settings PUT replaces a list given in its `deny`.
#[utoipa::path(
    get,
    path = "/v1/campaigns/{campaign}/deny",
    tag = "campaign",
    params(("campaign" = String, Path, description = "Campaign name (the board name rule)")),
    responses(
        (status = 200, description = "The deny lists", body = DenyView),
        (status = 404, description = "No such campaign"),
        (status = 422, description = "A malformed campaign name"),
    ),
    security(("admin_token" = []))
)]
async fn deny(
    _: Admin,
    State(state): State<AppState>,
    Path(name): Path<String>,
    _: NoQuery,
) -> Result<Json<DenyView>, Problem> {
    let c = campaign(&name)?;
    let ns = c.namespace().to_string();
    let root = c.root_key().to_string();
    let (exists, mut users, mut channels): (bool, Vec<String>, Vec<String>) = state
        .with_redis("deny_lists", true, |mut con| {
            let (ns, root) = (ns.clone(), root.clone());
            async move {
                Ok(redis::pipe()
                    .atomic()
                    .exists(&root)
                    .smembers(format!("{ns}deny:users"))
                    .smembers(format!("{ns}deny:channels"))
                    .query_async(&mut con)
                    .await?)
            }
        })
        .await?;
    if !exists {
        return Err(unknown_campaign(&name));
    }
    users.sort();
    channels.sort();
    Ok(Json(DenyView { users, channels }))
}

/// One option of a board, with its display data.
#[derive(Serialize, ToSchema)]
pub struct OptionView {
    /// The option's id (what votes name).
    pub option: String,
    /// "One vote counts N" on the shown boards.
    pub weight: u32,
    /// Display data (name, picture URL, ...): field -> value; empty when
    /// none was set.
    pub data: std::collections::BTreeMap<String, String>,
}

/// A board's options.
#[derive(Serialize, ToSchema)]
pub struct BoardOptions {
    /// Board.
    pub board: String,
    /// Its options, sorted by id.
    pub options: Vec<OptionView>,
}

/// Admin: a board's options with their weights and display data (which
/// the settings read leaves out), for the back office's option table.
/// Two reads: the settings (one atomic script call, as `GET .../settings`:
/// the options and weights), then one atomic pipeline of `HGETALL
/// {c:NAME}:option:BOARD:OPTION` per option (one slot): an option removed
/// between them shows with empty data. O(options + data), at most 1000
/// options (the settings read's cap) of at most 100 fields.
#[utoipa::path(
    get,
    path = "/v1/campaigns/{campaign}/boards/{board}/options",
    tag = "campaign",
    params(
        ("campaign" = String, Path, description = "Campaign name (the board name rule)"),
        ("board" = String, Path, description = "Board (the board name rule)"),
    ),
    responses(
        (status = 200, description = "The board's options, weights and display data", body = BoardOptions),
        (status = 404, description = "No such campaign or board"),
        (status = 422, description = "A malformed campaign or board name; a campaign over 64 boards or 1000 options"),
    ),
    security(("admin_token" = []))
)]
async fn board_options(
    _: Admin,
    State(state): State<AppState>,
    Path((name, board)): Path<(String, String)>,
    _: NoQuery,
) -> Result<Json<BoardOptions>, Problem> {
    let c = campaign(&name)?;
    board_name(&board)?;
    let Some(settings) = read_settings(&state, &c).await? else {
        return Err(unknown_campaign(&name));
    };
    let Some(spec) = settings.boards.get(&board) else {
        return Err(Problem::new(
            StatusCode::NOT_FOUND,
            Code::UnknownBoard.as_str(),
            format!("no board {} in this campaign", super::site::clip(&board)),
        ));
    };
    let ids: Vec<String> = spec.options.keys().cloned().collect();
    let data: Vec<std::collections::BTreeMap<String, String>> = if ids.is_empty() {
        Vec::new()
    } else {
        let keys: Vec<String> = ids
            .iter()
            .map(|o| format!("{}option:{board}:{o}", c.namespace()))
            .collect();
        state
            .with_redis("board_options", true, |mut con| {
                let keys = keys.clone();
                async move {
                    let mut pipe = redis::pipe();
                    pipe.atomic();
                    for k in &keys {
                        pipe.hgetall(k);
                    }
                    Ok(pipe.query_async(&mut con).await?)
                }
            })
            .await?
    };
    let options = ids
        .into_iter()
        .zip(data)
        .map(|(option, data)| OptionView {
            weight: spec.options[&option].weight.unwrap_or(1),
            option,
            data,
        })
        .collect();
    Ok(Json(BoardOptions { board, options }))
}

pub(crate) fn unknown_campaign(name: &str) -> Problem {
    Problem::new(
        StatusCode::NOT_FOUND,
        Code::UnknownCampaign.as_str(),
        format!("no campaign {}", super::site::clip(name)),
    )
}

/// What a stream shows.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct StreamQuery {
    /// shown (default) or real.
    #[serde(default)]
    #[param(inline)]
    pub kind: Kind,
    /// hour, day, week, month (the current one), total (default), or a
    /// named period.
    #[serde(default = "total")]
    #[param(default = "total")]
    pub period: String,
    /// Entries (1..100, default 10).
    #[serde(default = "ten")]
    #[param(minimum = 1, maximum = 100, default = 10)]
    pub n: u32,
    /// Seconds before the stream ends (1..3600, default 300; EventSource
    /// then reconnects).
    #[serde(default = "five_minutes")]
    #[param(minimum = 1, maximum = 3600, default = 300)]
    pub seconds: u32,
    /// A stream ticket of this campaign and board (`POST .../top/ticket`),
    /// for clients that cannot send an Authorization header
    /// (EventSource). Only needed when the service has an API token; a
    /// ticket that is sent must be valid.
    pub ticket: Option<String>,
}

fn total() -> String {
    "total".to_string()
}

fn ten() -> u32 {
    10
}

fn five_minutes() -> u32 {
    300
}

/// An entry of the live top, with its option's participants.
#[derive(Serialize, ToSchema)]
pub struct LiveEntry {
    /// The entry.
    #[serde(flatten)]
    pub entry: Entry,
    /// Unique voters of the option (HyperLogLog estimate).
    pub participants: u64,
}

/// The data of a `top` event.
#[derive(Serialize, ToSchema)]
pub struct LiveTop {
    /// Board.
    pub board: String,
    /// The period read.
    pub period: String,
    /// The kind read.
    pub kind: Kind,
    /// Members on the board.
    pub size: u64,
    /// Unique voters of the whole campaign.
    pub participants: u64,
    /// The top, best first.
    pub entries: Vec<LiveEntry>,
}

/// One event of the stream: an `event:` line (`top` or `problem`) and a
/// `data:` line, one line of JSON (a [`LiveTop`] or a [`Problem`]), then
/// an empty line. Its schema describes an event as its fields (`event`,
/// `data`), the way OpenAPI describes `text/event-stream` items: `data`
/// is a string whose `contentSchema` is the JSON it holds. The response
/// body is a sequence of them (with keep-alive comments between).
pub enum TopEvent {
    /// `event: top`: the board's top now (at once, then at each change).
    Top(LiveTop),
    /// `event: problem`: a read failed; the stream goes on and the next
    /// good read sends `top` again.
    Problem(Problem),
}

impl utoipa::PartialSchema for TopEvent {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
        use utoipa::openapi::Ref;
        let event = |name: &str, data: &str, what: &str| {
            ObjectBuilder::new()
                .description(Some(what))
                .property(
                    "event",
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .enum_values(Some([name])),
                )
                .required("event")
                .property(
                    "data",
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .description(Some(format!("A {data}, as one line of JSON")))
                        .content_media_type("application/json")
                        .content_schema(Some(Ref::from_schema_name(data))),
                )
                .required("data")
        };
        OneOfBuilder::new()
            .description(Some(
                "One Server-Sent Event of the live top: `event: top` with a LiveTop, \
                 or `event: problem` with a Problem (a failed read; the stream goes on)",
            ))
            .item(event(
                "top",
                "LiveTop",
                "The board's top now (at once, then at each change)",
            ))
            .item(event(
                "problem",
                "Problem",
                "A read failed; the next good read sends top again",
            ))
            .into()
    }
}

impl ToSchema for TopEvent {
    fn schemas(
        out: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        use utoipa::PartialSchema;
        out.push((LiveTop::name().into(), LiveTop::schema()));
        <LiveTop as ToSchema>::schemas(out);
        out.push((Problem::name().into(), Problem::schema()));
        <Problem as ToSchema>::schemas(out);
    }
}

/// A stream ticket.
#[derive(Serialize, ToSchema)]
pub struct StreamTicket {
    /// Opaque: send it as `?ticket=` to this board's stream.
    pub ticket: String,
    /// Seconds it opens the stream for (then ask for another).
    pub expires_in: u64,
    /// Whether the stream needs it: false when the service has no API
    /// token (the stream is open: send nothing).
    pub required: bool,
}

/// `board` is a well-formed board name, else the 422 that says so.
fn board_name(board: &str) -> Result<(), Problem> {
    if redvote::is_valid_name(board) {
        return Ok(());
    }
    Err(Problem::invalid(
        Code::InvalidName,
        format!(
            "board name {:?}: the campaign name rule",
            super::site::clip(board)
        ),
    ))
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The admin token, or a team key of any role whose pattern matches the
/// campaign: a ticket that opens this board's live top
/// (`.../top/stream?ticket=`) for 60 s, so that a browser's EventSource,
/// which cannot send headers, needs no token in its URL. HMAC-signed with
/// a key derived from the admin token: nothing is stored, any instance
/// with the same admin token accepts it. Reads nothing from Redis (an
/// unknown board is the stream's 404).
#[utoipa::path(
    post,
    path = "/v1/campaigns/{campaign}/boards/{board}/top/ticket",
    tag = "campaign",
    params(
        ("campaign" = String, Path, description = "Campaign name (the board name rule)"),
        ("board" = String, Path, description = "Board"),
    ),
    responses(
        (status = 200, description = "A ticket, valid 60 s for this campaign and board", body = StreamTicket),
        (status = 422, description = "A malformed campaign or board name"),
    ),
    security(("admin_token" = []))
)]
async fn top_ticket(
    _: Reader,
    State(state): State<AppState>,
    Path((name, board)): Path<(String, String)>,
    _: NoQuery,
) -> Result<impl IntoResponse, Problem> {
    campaign(&name)?;
    board_name(&board)?;
    let Some(key) = &state.tokens.admin else {
        // tickets are signed with the admin token: a team key gets none
        // without one (the operator's token was refused by the extractor)
        return Err(Problem::new(
            StatusCode::FORBIDDEN,
            codes::ADMIN_DISABLED,
            "stream tickets are off: the service was started without --admin-token, which signs them",
        ));
    };
    let ticket = Ticket::mint(key, &name, &board, unix_now() + TICKET_SECONDS);
    Ok((
        [(header::CACHE_CONTROL, "no-store")],
        Json(StreamTicket {
            ticket,
            expires_in: TICKET_SECONDS,
            required: state.tokens.api.is_some(),
        }),
    ))
}

/// The board's top and participants now.
async fn read_top(
    state: &AppState,
    c: &redvote::Campaign,
    board: &str,
    view: &View,
    n: u32,
) -> Result<LiveTop, Problem> {
    let mut pages = state
        .con
        .run(&c.top(&[board], view, Paging::new(1, n)))
        .await?;
    let page = pages.pop().ok_or_else(|| Problem::bad_request("no page"))?;
    let members: Vec<&str> = page.entries.iter().map(|e| e.member.as_str()).collect();
    let p = state.run(&c.participants(board, &members)).await?;
    let entries = page
        .entries
        .into_iter()
        .zip(p.options)
        .map(|(entry, (_, participants))| LiveEntry {
            entry,
            participants,
        })
        .collect();
    Ok(LiveTop {
        board: page.board,
        period: page.period,
        kind: view.kind,
        size: page.size,
        participants: p.campaign,
        entries,
    })
}

/// Whether the request may read the stream of `campaign`/`board`: a
/// ticket, when one is sent, must be valid for them; else no API token is
/// set, or the bearer token is the API or the admin token (the
/// [`super::auth::Api`] rule).
fn stream_allowed(
    state: &AppState,
    headers: &HeaderMap,
    campaign: &str,
    board: &str,
    ticket: Option<&str>,
) -> Result<(), Problem> {
    let refuse = |detail: &str| {
        Err(Problem::new(
            StatusCode::UNAUTHORIZED,
            codes::UNAUTHORIZED,
            detail,
        ))
    };
    if let Some(ticket) = ticket {
        let now = unix_now();
        let valid = state
            .tokens
            .admin
            .as_ref()
            .is_some_and(|a| Ticket::check(a, ticket, campaign, board, now));
        return if valid {
            Ok(())
        } else {
            refuse("the ticket is expired, forged or for another board: POST .../top/ticket for a new one")
        };
    }
    let Some(api) = &state.tokens.api else {
        return Ok(());
    };
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .filter(|(s, _)| s.eq_ignore_ascii_case("bearer"))
        .map(|(_, t)| t.trim());
    match given {
        Some(t)
            if api.matches(t) || state.tokens.admin.as_ref().is_some_and(|a| a.matches(t)) =>
        {
            Ok(())
        }
        _ => refuse(
            "this service needs the API token: Authorization: Bearer <token>, or ?ticket= from POST .../top/ticket",
        ),
    }
}

/// The top `n` of a board with each option's participants, live: a `top`
/// event at once and then whenever it changes (read every 500 ms), a
/// `problem` event (a problem+json body) when a read fails, keep-alive
/// comments every 15 s. The stream ends after `seconds` and when the
/// server shuts down. Open without an API token; with one, takes it (or
/// the admin token) as a header or, for EventSource, a ticket of this
/// board as `?ticket=` (`POST .../top/ticket`).
#[utoipa::path(
    get,
    path = "/v1/campaigns/{campaign}/boards/{board}/top/stream",
    tag = "campaign",
    params(
        ("campaign" = String, Path, description = "Campaign name (the board name rule)"),
        ("board" = String, Path, description = "Board"),
        StreamQuery
    ),
    responses(
        (status = 200, description = "Server-Sent Events, each a TopEvent: `event: top` with a LiveTop as data, `event: problem` with a Problem as data (one line of JSON each)", content_type = "text/event-stream", body = TopEvent),
        (status = 401, description = "A ticket that is expired, forged or of another board; or the API token is set and neither the header nor a ticket is sent"),
        (status = 404, description = "No such campaign or board"),
        (status = 422, description = "A malformed name or period, or n or seconds out of range"),
    ),
    security((), ("api_token" = []))
)]
async fn top_stream(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path((name, board)): Path<(String, String)>,
    Query(q): Query<StreamQuery>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, Problem> {
    stream_allowed(&state, &headers, &name, &board, q.ticket.as_deref())?;
    let c = campaign(&name)?;
    if !(1..=100).contains(&q.n) {
        return Err(Problem::invalid(Code::Usage, "n: 1..100"));
    }
    if !(1..=3600).contains(&q.seconds) {
        return Err(Problem::invalid(Code::Usage, "seconds: 1..3600"));
    }
    let view = View::new(q.kind, q.period.clone());
    // The first read answers the request: a bad board is a 404, not a stream.
    let first = read_top(&state, &c, &board, &view, q.n).await?;
    let until = tokio::time::Instant::now() + Duration::from_secs(u64::from(q.seconds));
    let shutdown = state.shutdown.clone();
    struct Live {
        state: AppState,
        c: redvote::Campaign,
        board: String,
        view: View,
        n: u32,
        last: Option<String>,
        pending: Option<Result<LiveTop, Problem>>,
    }
    let live = Live {
        state,
        c,
        board,
        view,
        n: q.n,
        last: None,
        pending: Some(Ok(first)),
    };
    let events = stream::unfold(live, move |mut live| {
        let mut shutdown = shutdown.clone();
        async move {
            loop {
                if *shutdown.borrow() {
                    return None;
                }
                let read = match live.pending.take() {
                    Some(r) => r,
                    None => {
                        tokio::select! {
                            _ = shutdown.wait_for(|s| *s) => return None,
                            () = tokio::time::sleep_until(until) => return None,
                            () = tokio::time::sleep(STEP) => {}
                        }
                        read_top(&live.state, &live.c, &live.board, &live.view, live.n).await
                    }
                };
                let event = match read {
                    Ok(top) => TopEvent::Top(top),
                    Err(p) => TopEvent::Problem(p),
                };
                let (name, data) = match &event {
                    TopEvent::Top(top) => ("top", serde_json::to_string(top).unwrap_or_default()),
                    TopEvent::Problem(p) => {
                        ("problem", serde_json::to_string(p).unwrap_or_default())
                    }
                };
                if live.last.as_deref() == Some(data.as_str()) {
                    continue;
                }
                live.last = Some(data.clone());
                return Some((Ok(Event::default().event(name).data(data)), live));
            }
        }
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}
