//! `/v1/sites/{site}/...`: the article site over HTTP: post, vote (up,
//! down, none), one article, pages by every order, group membership and
//! group pages, the site's settings (changing them is admin), rerank
//! (admin).
//!
//! A site is chosen by name from the ones the service was started with
//! (`--site NAME=PREFIX`); a caller never names a key. Article votes are
//! idempotent by construction (they set the user's vote: up, down or
//! none), so an `Idempotency-Key` header is accepted and needs no record.

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use redvote::{
    Article, Config, ConfigUpdate, GroupChange, Order, Page, Ranking, Reranked, Site, Vote,
    VoteOutcome,
};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::{Admin, Api};
use super::extract::{Json, NoQuery, Path, Query};
use super::metrics::System;
use super::problem::{codes, Problem};
use super::AppState;

/// The site routes.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_sites))
        .routes(routes!(post_article, page))
        .routes(routes!(article))
        .routes(routes!(vote))
        .routes(routes!(groups))
        .routes(routes!(group_page))
        .routes(routes!(config, configure))
        .routes(routes!(rerank))
}

/// The site of `name`, or 404.
fn site<'s>(state: &'s AppState, name: &str) -> Result<&'s Site, Problem> {
    state.sites.get(name).ok_or_else(|| {
        Problem::new(
            StatusCode::NOT_FOUND,
            codes::UNKNOWN_SITE,
            format!(
                "no site {:?} (this service serves: {})",
                clip(name),
                state.site_names()
            ),
        )
    })
}

/// At most 80 characters of a caller's value, for a message.
pub fn clip(s: &str) -> String {
    s.chars().take(80).collect()
}

/// The sites this service serves.
#[derive(Serialize, ToSchema)]
pub struct Sites {
    /// Site names, sorted.
    pub sites: Vec<String>,
}

/// The names of the sites this service serves.
#[utoipa::path(
    get,
    path = "/v1/sites",
    tag = "site",
    responses((status = 200, description = "The site names", body = Sites)),
    security((), ("api_token" = []))
)]
async fn list_sites(_: Api, _: NoQuery, State(state): State<AppState>) -> Json<Sites> {
    Json(Sites {
        sites: state.sites.keys().cloned().collect(),
    })
}

/// A new article.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewArticle {
    /// The poster (1..256 bytes); the poster's own upvote counts.
    pub user: String,
    /// Title.
    pub title: String,
    /// Link.
    pub link: String,
}

/// A posted article's id.
#[derive(Serialize, ToSchema)]
pub struct Posted {
    /// The new article's id (`7` for `article:7`).
    pub id: String,
}

/// Post an article at the server's time. Not idempotent: each call makes a
/// new article.
#[utoipa::path(
    post,
    path = "/v1/sites/{site}/articles",
    tag = "site",
    params(("site" = String, Path, description = "Site name")),
    request_body = NewArticle,
    responses(
        (status = 201, description = "Posted; Location names the article", body = Posted,
            headers(("location" = String, description = "/v1/sites/{site}/articles/{id}"))),
        (status = 404, description = "No such site"),
        (status = 422, description = "A user, title or link the script refuses"),
    ),
    security((), ("api_token" = []))
)]
async fn post_article(
    _: Api,
    _: NoQuery,
    State(state): State<AppState>,
    Path(name): Path<String>,
    Json(body): Json<NewArticle>,
) -> Result<impl IntoResponse, Problem> {
    let site = site(&state, &name)?;
    let id = state
        .run(&site.post(&body.user, &body.title, &body.link))
        .await?;
    let location = format!("/v1/sites/{name}/articles/{id}");
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, location)],
        Json(Posted { id: id.to_string() }),
    ))
}

/// Which page to read.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PageQuery {
    /// The order: score (default), time, hot or best (hot and best once
    /// the site keeps them).
    #[serde(default)]
    #[param(inline)]
    pub order: Order,
    /// Page number, from 1.
    #[serde(default = "first_page")]
    #[param(minimum = 1, default = 1)]
    pub page: u32,
    /// Articles per page (default: the site's page_size; at most
    /// `redvote::caps::PER_PAGE`).
    #[param(minimum = 1)]
    pub per_page: Option<u32>,
    /// Also each article's score (costs Redis about a third more).
    #[serde(default)]
    pub scores: bool,
}

fn first_page() -> u32 {
    1
}

/// One page of articles, with the totals to page on.
#[derive(Serialize, ToSchema)]
pub struct ArticlePage {
    /// The order read.
    pub order: Order,
    /// The group, for a group page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// This page's number, from 1.
    pub page: u32,
    /// Articles per page.
    pub per_page: u32,
    /// Articles in the whole ordering.
    pub total: u64,
    /// Pages at this page size.
    pub pages: u64,
    /// Whether a page follows this one.
    pub has_next: bool,
    /// This page's articles, highest first.
    pub articles: Vec<Article>,
}

impl From<Page> for ArticlePage {
    fn from(p: Page) -> Self {
        let per_page = u64::from(p.per_page.max(1));
        ArticlePage {
            order: p.order,
            group: p.group,
            page: p.page,
            per_page: p.per_page,
            total: p.total,
            pages: p.total.div_ceil(per_page),
            has_next: u64::from(p.page) * per_page < p.total,
            articles: p.articles,
        }
    }
}

/// Read a page with the retrying connection: the ids call, then the
/// articles' hashes in one transaction, the two retried together.
async fn read_page(state: &AppState, call: redvote::PageCall) -> Result<ArticlePage, Problem> {
    Ok(state.page(&call).await?.into())
}

/// 422 `REDVOTE_INVALID_ORDER` when `order` is a ranking (hot, best) the
/// site does not keep: its page would be empty whatever the articles.
/// Costs one read of the settings, for those two orders only.
async fn check_order(state: &AppState, site: &Site, order: Order) -> Result<(), Problem> {
    let ranking = match order {
        Order::Hot => Ranking::Hot,
        Order::Best => Ranking::Best,
        _ => return Ok(()),
    };
    let config = state.run(&site.config()).await?;
    if config.rankings.contains(&ranking) {
        return Ok(());
    }
    Err(Problem::invalid(
        redvote::Code::InvalidOrder,
        format!(
            "order {order}: the site does not keep that ranking (its rankings: [{}]; \
             an admin switches it on in the site's config, then reranks)",
            config
                .rankings
                .iter()
                .map(|r| format!("{r}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ))
}

/// A page of the site's articles in an order.
#[utoipa::path(
    get,
    path = "/v1/sites/{site}/articles",
    tag = "site",
    params(("site" = String, Path, description = "Site name"), PageQuery),
    responses(
        (status = 200, description = "The page", body = ArticlePage),
        (status = 404, description = "No such site"),
        (status = 422, description = "A page or page size out of range, or an order the site does not keep"),
    ),
    security((), ("api_token" = []))
)]
async fn page(
    _: Api,
    State(state): State<AppState>,
    Path(name): Path<String>,
    Query(q): Query<PageQuery>,
) -> Result<Json<ArticlePage>, Problem> {
    let site = site(&state, &name)?;
    check_order(&state, site, q.order).await?;
    let mut call = site.page(q.order, q.page, q.per_page);
    if q.scores {
        call = call.with_scores();
    }
    Ok(Json(read_page(&state, call).await?))
}

/// Whose vote to show with an article.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ArticleQuery {
    /// Also this user's vote (`user_vote`).
    pub user: Option<String>,
}

/// One article: its fields, score and rank (and a user's vote).
#[utoipa::path(
    get,
    path = "/v1/sites/{site}/articles/{id}",
    tag = "site",
    params(
        ("site" = String, Path, description = "Site name"),
        ("id" = String, Path, description = "Article id: 7 or article:7"),
        ArticleQuery
    ),
    responses(
        (status = 200, description = "The article", body = Article),
        (status = 404, description = "No such site or article"),
        (status = 422, description = "A malformed id or user"),
    ),
    security((), ("api_token" = []))
)]
async fn article(
    _: Api,
    State(state): State<AppState>,
    Path((name, id)): Path<(String, String)>,
    Query(q): Query<ArticleQuery>,
) -> Result<Json<Article>, Problem> {
    let site = site(&state, &name)?;
    Ok(Json(
        state.run(&site.article(&id, q.user.as_deref())).await?,
    ))
}

/// A user's vote on an article.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ArticleVote {
    /// The voter (1..256 bytes), as the calling backend knows it.
    pub user: String,
    /// The vote to hold: up, down or none (retract).
    pub vote: Vote,
}

/// Set a user's vote on an article: up, down or none. Idempotent by
/// construction (the vote is a state); an `Idempotency-Key` header is
/// accepted and not needed.
#[utoipa::path(
    put,
    path = "/v1/sites/{site}/articles/{id}/vote",
    operation_id = "site_vote",
    tag = "site",
    params(
        ("site" = String, Path, description = "Site name"),
        ("id" = String, Path, description = "Article id: 7 or article:7"),
        ("Idempotency-Key" = Option<String>, Header, description = "Accepted and ignored: setting a vote twice changes nothing the second time"),
    ),
    request_body = ArticleVote,
    responses(
        (status = 200, description = "The vote and the article's counts after it", body = VoteOutcome),
        (status = 404, description = "No such site or article"),
        (status = 409, description = "The article's voting window has closed (REDVOTE_VOTING_CLOSED)"),
        (status = 422, description = "A malformed id or user"),
    ),
    security((), ("api_token" = []))
)]
async fn vote(
    _: Api,
    _: NoQuery,
    State(state): State<AppState>,
    Path((name, id)): Path<(String, String)>,
    Json(body): Json<ArticleVote>,
) -> Result<Json<VoteOutcome>, Problem> {
    let site = site(&state, &name)?;
    let result = state.run(&site.set_vote(&body.user, &id, body.vote)).await;
    let result = result.map_err(Problem::from);
    state.metrics.vote(
        System::Site,
        result.as_ref().map(|_| false).map_err(|p| p.code.as_str()),
    );
    Ok(Json(result?))
}

/// Groups to join and leave.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GroupRequest {
    /// Groups the article joins.
    #[serde(default)]
    pub add: Vec<String>,
    /// Groups the article leaves.
    #[serde(default)]
    pub remove: Vec<String>,
}

/// Add an article to groups and remove it from others, atomically (1..100
/// changes in all).
#[utoipa::path(
    post,
    path = "/v1/sites/{site}/articles/{id}/groups",
    tag = "site",
    params(
        ("site" = String, Path, description = "Site name"),
        ("id" = String, Path, description = "Article id: 7 or article:7"),
    ),
    request_body = GroupRequest,
    responses(
        (status = 200, description = "How many groups it joined and left", body = GroupChange),
        (status = 404, description = "No such site or article"),
        (status = 422, description = "A malformed id or group name, or no change or more than 100"),
    ),
    security((), ("api_token" = []))
)]
async fn groups(
    _: Api,
    _: NoQuery,
    State(state): State<AppState>,
    Path((name, id)): Path<(String, String)>,
    Json(body): Json<GroupRequest>,
) -> Result<Json<GroupChange>, Problem> {
    let site = site(&state, &name)?;
    let add: Vec<&str> = body.add.iter().map(String::as_str).collect();
    let remove: Vec<&str> = body.remove.iter().map(String::as_str).collect();
    Ok(Json(state.run(&site.groups(&id, &add, &remove)).await?))
}

/// A page of a group's articles in an order (through the seeds' 60-second
/// cache of the group's ordering).
#[utoipa::path(
    get,
    path = "/v1/sites/{site}/groups/{group}/articles",
    tag = "site",
    params(
        ("site" = String, Path, description = "Site name"),
        ("group" = String, Path, description = "Group name"),
        PageQuery
    ),
    responses(
        (status = 200, description = "The page", body = ArticlePage),
        (status = 404, description = "No such site"),
        (status = 422, description = "A malformed group name, a page or page size out of range, or an order the site does not keep"),
    ),
    security((), ("api_token" = []))
)]
async fn group_page(
    _: Api,
    State(state): State<AppState>,
    Path((name, group)): Path<(String, String)>,
    Query(q): Query<PageQuery>,
) -> Result<Json<ArticlePage>, Problem> {
    let site = site(&state, &name)?;
    check_order(&state, site, q.order).await?;
    let mut call = site.group_page(&group, q.order, q.page, q.per_page);
    if q.scores {
        call = call.with_scores();
    }
    Ok(Json(read_page(&state, call).await?))
}

/// The site's settings.
#[utoipa::path(
    get,
    path = "/v1/sites/{site}/config",
    tag = "site",
    params(("site" = String, Path, description = "Site name")),
    responses(
        (status = 200, description = "The settings (defaults for those never set)", body = Config),
        (status = 404, description = "No such site"),
        (status = 422, description = "A stored setting is corrupt (REDVOTE_INVALID_CONFIG)"),
    ),
    security((), ("api_token" = []))
)]
async fn config(
    _: Api,
    _: NoQuery,
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<Config>, Problem> {
    let site = site(&state, &name)?;
    Ok(Json(state.run(&site.config()).await?))
}

/// A change to the site's settings: absent fields stay as they are.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfigChange {
    /// Score of one net vote (fixed once the site has articles).
    pub vote_score: Option<u32>,
    /// Voting window, seconds (60..315360000).
    pub window: Option<u64>,
    /// Default articles per page (1..100).
    pub page_size: Option<u32>,
    /// The extra rankings to keep (replaces the set).
    pub rankings: Option<Vec<Ranking>>,
}

/// Admin: change the site's settings; answers them all.
#[utoipa::path(
    patch,
    path = "/v1/sites/{site}/config",
    operation_id = "site_configure",
    tag = "site",
    params(("site" = String, Path, description = "Site name")),
    request_body = ConfigChange,
    responses(
        (status = 200, description = "The settings after the change", body = Config),
        (status = 404, description = "No such site"),
        (status = 409, description = "vote_score, or a longer window, once articles exist (REDVOTE_CONFIG_LOCKED)"),
        (status = 422, description = "A setting out of range"),
    ),
    security(("admin_token" = []))
)]
async fn configure(
    _: Admin,
    _: NoQuery,
    State(state): State<AppState>,
    Path(name): Path<String>,
    Json(body): Json<ConfigChange>,
) -> Result<Json<Config>, Problem> {
    let site = site(&state, &name)?;
    let update = ConfigUpdate {
        vote_score: body.vote_score,
        window: body.window,
        page_size: body.page_size,
        rankings: body.rankings,
    };
    Ok(Json(state.run(&site.configure(&update)).await?))
}

/// One batch of a rerank.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RerankRequest {
    /// Position in `time:` (oldest first) to start at: 0 first, then the
    /// previous answer's `next`.
    #[serde(default)]
    pub start: u64,
    /// Articles in this batch (1..1000, default 500).
    #[serde(default = "rerank_batch")]
    pub count: u32,
}

fn rerank_batch() -> u32 {
    500
}

/// Admin: write the hot/best entries of one batch of articles (after
/// switching those rankings on); call again from `next` until it is 0.
#[utoipa::path(
    post,
    path = "/v1/sites/{site}/rerank",
    tag = "site",
    params(("site" = String, Path, description = "Site name")),
    request_body = RerankRequest,
    responses(
        (status = 200, description = "What the batch ranked, and where the next starts (0: done)", body = Reranked),
        (status = 404, description = "No such site"),
        (status = 422, description = "A batch size out of range"),
    ),
    security(("admin_token" = []))
)]
async fn rerank(
    _: Admin,
    _: NoQuery,
    State(state): State<AppState>,
    Path(name): Path<String>,
    Json(body): Json<RerankRequest>,
) -> Result<Json<Reranked>, Problem> {
    let site = site(&state, &name)?;
    Ok(Json(state.run(&site.rerank(body.start, body.count)).await?))
}
