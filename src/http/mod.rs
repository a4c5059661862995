//! HTTP: the routes, the JSON API for bots and scripts, the game's WebSocket ([`ws`]), the
//! server-rendered pages, the embedded static client, and (in [`error`]) the one place where
//! errors become status codes and close codes. With several instances, [`forward`] passes a
//! request or socket for a game another instance owns to that instance, and serves the others
//! on the internal address; with a bus, [`relay`] serves such a socket here instead.

pub mod api;
mod assets;
pub mod browser;
pub mod budget;
pub mod error;
pub mod forward;
mod html;
pub mod images;
pub mod lang;
pub mod limits;
pub mod listen;
mod pages;
pub mod puzzles;
pub mod relay;
pub mod trainer;
pub mod variants;
pub mod ws;

use crate::config::Config;
use crate::metrics::Metrics;
use crate::rooms::Rooms;
use axum::Router;
use axum::extract::State;
use axum::http::header::{self, AUTHORIZATION, COOKIE, HOST};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Uri};
use axum::response::{AppendHeaders, Redirect};
use axum::routing::{get, post};
use std::sync::Arc;

/// What every handler can reach: one pointer, cloned for every extractor and middleware that
/// takes the state (several times a request), so a clone is one count rather than one for each
/// part.
#[derive(Debug, Clone)]
pub struct AppState(Arc<Shared>);

/// The parts of [`AppState`], reached through it.
#[derive(Debug)]
pub struct Shared {
    /// The live games.
    pub rooms: Rooms,
    /// The configuration.
    pub config: Arc<Config>,
    /// The abuse limits' state.
    pub limits: Arc<limits::Limits>,
    /// What `/metrics` reports.
    pub metrics: Arc<Metrics>,
    /// The other instances on the same database, when there can be any (PostgreSQL).
    pub peers: Option<forward::Peers>,
    /// The bus to the other instances, when one is configured: sockets are then served where
    /// they land.
    pub relay: Option<relay::Relay>,
    /// The pictures of games drawn, and the drawing's limits.
    pub images: images::Images,
}

impl AppState {
    /// The state for a configuration.
    pub fn new(
        rooms: Rooms,
        config: Config,
        metrics: Arc<Metrics>,
        peers: Option<forward::Peers>,
        relay: Option<relay::Relay>,
    ) -> AppState {
        AppState(Arc::new(Shared {
            limits: Arc::new(limits::Limits::new(&config)),
            rooms,
            config: Arc::new(config),
            metrics,
            peers,
            relay,
            images: images::Images::default(),
        }))
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// Refuses with 403 a request that would change something when a browser sends it from
/// another site's page (a form or script there would ride the seat cookie), unless it carries a
/// bearer token, which no other site's page can have; answers 413 at once for a body announced
/// larger than the limit (waiting for it would only end in a timeout), and 408 for a request
/// that takes longer than the configured limit. Each is counted. (Not tower-http's
/// `TimeoutLayer`: this one answers with the API's JSON error and counts the limit.)
async fn request_limits(
    State(app): State<AppState>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let headers = request.headers();
    if !request.method().is_safe()
        && bearer(headers).is_none()
        && !limits::from_own_pages(&app.config, headers)
    {
        app.metrics.limit("origin");
        return error::ApiError::new(
            crate::protocol::ErrorCode::ForbiddenOrigin,
            "changes come only from this site's own pages (or with a bearer token)",
        )
        .into_response();
    }
    let announced = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > app.config.max_body_bytes as u64) {
        app.metrics.limit("body_size");
        return error::ApiError::new(
            crate::protocol::ErrorCode::TooLarge,
            format!(
                "request bodies are at most {} bytes",
                app.config.max_body_bytes
            ),
        )
        .into_response();
    }
    let limit = std::time::Duration::from_secs(app.config.request_timeout_secs);
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            app.metrics.limit("request_timeout");
            error::ApiError::new(
                crate::protocol::ErrorCode::Timeout,
                "the request took too long",
            )
            .into_response()
        }
    }
}

/// The whole application: every route, ready to serve or to drive from a test.
pub fn router(state: AppState) -> Router {
    let body_limit = state.config.max_body_bytes;
    let router = Router::new()
        .route("/", get(pages::home))
        .route("/games", post(pages::create))
        .route("/g/{id}", get(pages::game))
        .route("/my-games", get(pages::my_games))
        .route("/embed/{id}", get(pages::embed))
        .route("/variants", get(|| async { Redirect::permanent("/") }))
        .route("/variants/{slug}", get(variants::page))
        .route("/lang/{code}", get(lang::switch))
        .route("/favicon.ico", get(assets::favicon))
        .route("/g/{id}/record", get(api::record))
        .route("/g/{id}/analysis", get(pages::analysis))
        .route("/g/{id}/rematch", get(pages::rematch))
        .route("/g/{id}/image.png", get(images::position))
        .route("/g/{id}/preview.png", get(images::preview))
        .route("/g/{id}/game.gif", get(images::gif))
        .route("/variants/{slug}/image.png", get(images::variant))
        .route("/static/{*path}", get(assets::serve))
        .route("/healthz", get(api::healthz))
        .route("/readyz", get(api::readyz))
        .route("/api/variants", get(api::variants))
        .route("/api/games", post(api::create))
        .route("/api/challenges", get(api::challenges))
        .route("/api/games/{id}", get(api::state))
        .route("/api/games/{id}/join", post(api::join))
        .route("/api/games/{id}/handoff", post(api::handoff))
        .route("/api/games/{id}/handoff/take", post(api::take_handoff))
        .route("/api/my-games", get(api::my_games))
        .route("/api/games/{id}/analysis", get(api::analysis))
        .route("/api/analysis", get(api::analysis_of_turns))
        .route("/api/games/{id}/move", post(api::play))
        .route("/api/games/{id}/name", post(api::name))
        .route("/api/games/{id}/{action}", post(api::action))
        .route("/api/games/{id}/{action}/{answer}", post(api::answer))
        .route("/api/games/{id}/ws", get(ws::upgrade))
        .route("/puzzles", get(puzzles::page_boards))
        .route("/puzzles/daily", get(puzzles::page_daily))
        .route("/puzzles/{id}", get(puzzles::page))
        .route("/api/puzzles/next", get(puzzles::next))
        .route("/api/puzzles/daily", get(puzzles::daily))
        .route("/api/puzzles/{id}/attempt", post(puzzles::attempt))
        .route("/trainer", get(trainer::page_boards))
        .route("/trainer/{variant}", get(trainer::page_starts))
        .route("/trainer/{variant}/{n}", get(trainer::page))
        .route("/api/trainer/{variant}", get(trainer::starts))
        .route("/api/trainer/{variant}/turn", post(trainer::turn))
        .route("/metrics", get(api::metrics))
        .layer(axum::extract::DefaultBodyLimit::max(body_limit))
        // Inside the limits: a forwarded request has the same time limit as any other.
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            forward::to_owner,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            request_limits,
        ))
        // Outside the forwarding: a new browser's cookie goes with the request to its owner.
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            browser::give_cookie,
        ))
        // A span per request, and its method, path, status and time at `debug`: the path
        // alone, never the query, so that nothing a link carries lands in a log.
        .layer(
            tower_http::trace::TraceLayer::new_for_http().make_span_with(
                |request: &axum::http::Request<axum::body::Body>| {
                    tracing::debug_span!(
                        "request",
                        method = %request.method(),
                        path = request.uri().path(),
                    )
                },
            ),
        );
    let headers = Arc::new([false, true].map(|framed| security_headers(&state.config, framed)));
    router
        .layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                let headers = headers.clone();
                async move { set_security_headers(&headers, request, next).await }
            },
        ))
        .with_state(state)
}

/// The application as the internal address serves it: the same routes, for the other
/// instances only ([`forward`]).
pub fn internal_router(state: AppState) -> Router {
    let from_peer = axum::middleware::from_fn_with_state(state.clone(), forward::from_peer);
    router(state).layer(from_peer)
}

/// The cookie that holds a seat's secret for one game.
pub fn seat_cookie_name(id: &str) -> String {
    format!("merels_seat_{id}")
}

/// The `Set-Cookie` values that give the browser a seat: HttpOnly, SameSite=Lax, a year long,
/// `Secure` when the site is served over HTTPS, and each scoped to the game's own paths (its page
/// and its API, socket included). A cookie for the whole site per game made every request carry
/// the seats of every game the browser ever played: some 8 KB after about 100 games, past a
/// default nginx's header limit. Scoped, a request carries one seat at most.
pub fn seat_cookies(
    config: &Config,
    id: &str,
    secret: &str,
) -> AppendHeaders<[(HeaderName, String); 2]> {
    let site = cookie_site(config);
    let name = seat_cookie_name(id);
    AppendHeaders(
        [format!("/g/{id}"), format!("/api/games/{id}")].map(|path| {
            (
                header::SET_COOKIE,
                format!(
                    "{name}={secret}; Path={path}; HttpOnly; SameSite=Lax; Max-Age=31536000{site}"
                ),
            )
        }),
    )
}

/// The attributes every cookie of the site ends with: `Secure` when it is served over HTTPS,
/// and the configured `Domain`, if any.
pub(super) fn cookie_site(config: &Config) -> String {
    let secure = if config.https() { "; Secure" } else { "" };
    let domain = config
        .cookie_domain
        .as_deref()
        .map(|d| format!("; Domain={d}"))
        .unwrap_or_default();
    format!("{secure}{domain}")
}

/// The value of the request's cookie `name`, if it sends one.
pub(super) fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// The Content-Security-Policy of every answer: the client's own scripts, styles and sockets
/// only (it has no inline script or style; sockets may also go to this instance's own address,
/// where a game's page, which its owner serves, is sent), and no framing, so that a page of
/// another site cannot frame a game and trick a player into clicking "Resign"; but any site may
/// frame the embed (`framed`), which only watches.
fn content_security_policy(direct_url: Option<&str>, framed: bool) -> String {
    let direct = direct_url
        .map(|url| format!(" {}", forward::socket_origin(url)))
        .unwrap_or_default();
    let ancestors = if framed { "*" } else { "'none'" };
    format!(
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; \
         connect-src 'self'{direct}; base-uri 'none'; form-action 'self'; \
         frame-ancestors {ancestors}"
    )
}

/// The headers every answer carries: the CSP above and its older equivalent (but on the
/// embed, `framed`, which any site may frame), no MIME sniffing, no `Referer` to other sites (a
/// game's address may carry a seat; `no-referrer` would also make browsers send `Origin: null`
/// on the site's own forms), and HSTS behind HTTPS.
fn security_headers(config: &Config, framed: bool) -> Vec<(HeaderName, HeaderValue)> {
    let csp = content_security_policy(config.direct_url.as_deref(), framed);
    let mut headers = vec![
        (
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::try_from(csp)
                .expect("a direct URL is printable ASCII (checked when parsed)"),
        ),
        (
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
        (
            header::REFERRER_POLICY,
            HeaderValue::from_static("same-origin"),
        ),
    ];
    if !framed {
        headers.push((header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")));
    }
    if config.https() {
        headers.push((
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static("max-age=31536000"),
        ));
    }
    headers
}

/// Whether any site may frame the answer to `path`: the embed's (`/embed/{id}`, its errors
/// too, so that a frame shows why it is empty), and nothing else.
fn may_be_framed(path: &str) -> bool {
    path.starts_with("/embed/")
}

/// Runs a request, then sets the headers its answer lacks: `headers[1]` (framed) where
/// [`may_be_framed`], else `headers[0]` (each from [`security_headers`]).
async fn set_security_headers(
    headers: &[Vec<(HeaderName, HeaderValue)>; 2],
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let framed = may_be_framed(request.uri().path());
    let mut response = next.run(request).await;
    for (name, value) in &headers[usize::from(framed)] {
        response
            .headers_mut()
            .entry(name)
            .or_insert_with(|| value.clone());
    }
    response
}

/// Whether a request's query holds `pair` (`direct=0`, `watch=1`) among its `&`-separated parts.
pub(super) fn query_has(uri: &Uri, pair: &str) -> bool {
    uri.query()
        .is_some_and(|q| q.split('&').any(|part| part == pair))
}

/// The token of an `Authorization: Bearer` header, if the request has one.
pub(super) fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
}

/// The seat secret a request presents for game `id`: a bearer token, or else the seat cookie.
pub fn presented_secret(headers: &HeaderMap, id: &str) -> Option<String> {
    if let Some(token) = bearer(headers) {
        return Some(token.trim().to_string());
    }
    cookie(headers, &seat_cookie_name(id)).map(str::to_string)
}

/// The base of share links: the configured public URL, or the request's own host.
pub fn base_url(config: &Config, headers: &HeaderMap) -> String {
    if let Some(url) = &config.public_url {
        return url.trim_end_matches('/').to_string();
    }
    let host = headers
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| {
            h.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
        })
        .unwrap_or("localhost");
    format!("http://{host}")
}
