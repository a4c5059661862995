//! The JSON API: the same actions as the WebSocket, for bots and scripts. Seat secrets travel as
//! bearer tokens (or the browser's seat cookie).

use super::browser::BrowserId;
use super::error::ApiError;
use super::limits::ClientIp;
use super::{AppState, base_url, presented_secret, seat_cookies};
use crate::clock::TimeControl;
use crate::config::Config;
use crate::engine::Level;
use crate::protocol::{Analysis, ClientMessage, ErrorCode, GameState, Geometry, PlayerName};
use crate::rooms::{Action, Actor, ColorChoice, Opponent, RoomError, SeatGrant};
use crate::rules::Color;
use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, Query, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::net::IpAddr;

/// `GET /api/challenges`: the open challenges listed now, newest first, as the home page
/// lists them (a player whose game was called off is offered them again).
pub async fn challenges(State(app): State<AppState>) -> Json<Vec<super::pages::Challenge>> {
    Json(super::pages::open_challenges(&app).await)
}

/// `GET /healthz`: the process is alive.
pub async fn healthz() -> &'static str {
    "ok\n"
}

/// What `/readyz` and the start-up log say when no public URL is set.
pub const NO_PUBLIC_URL: &str = "warning: MERELS_PUBLIC_URL is unset, so share and seat links \
     are built from each request's Host header; set it to the site's address";

/// `GET /readyz`: this instance holds a valid registration, and the database answers. A
/// configuration that a public site should not run with is named below the answer.
pub async fn readyz(State(app): State<AppState>) -> Result<String, ApiError> {
    if !app.rooms.lease().holds() {
        return Err(ApiError::new(
            ErrorCode::Unavailable,
            "this instance holds no valid registration (its lease lapsed); renewing",
        ));
    }
    app.rooms
        .store()
        .ping()
        .await
        .map_err(|e| ApiError::new(ErrorCode::Unavailable, e.to_string()))?;
    Ok(match app.config.public_url {
        Some(_) => "ready\n".to_string(),
        None => format!("ready\n{NO_PUBLIC_URL}\n"),
    })
}

/// A table option as the API lists it.
#[derive(Debug, Serialize)]
pub struct OptionView {
    key: String,
    label: String,
    description: String,
    default: String,
    values: Vec<ValueView>,
}

/// One value of a table option.
#[derive(Debug, Serialize)]
pub struct ValueView {
    value: String,
    label: String,
}

/// A variant as the API lists it.
#[derive(Debug, Serialize)]
pub struct VariantView {
    slug: String,
    title: String,
    summary: String,
    board: Geometry,
    options: Vec<OptionView>,
}

/// `GET /api/variants`: every variant, its options and its board (with default options).
pub async fn variants(State(app): State<AppState>) -> Json<Vec<VariantView>> {
    let catalog = app.rooms.catalog();
    let list = catalog
        .variants()
        .iter()
        .filter_map(|info| {
            let variant = info.spec.configure(&BTreeMap::new()).ok()?;
            Some(VariantView {
                slug: info.slug().to_string(),
                title: info.title.clone(),
                summary: info.summary.clone(),
                board: Geometry::of(variant.board()),
                options: info
                    .spec
                    .options
                    .iter()
                    .map(|o| OptionView {
                        key: o.key.clone(),
                        label: o.label.clone(),
                        description: o.description.clone(),
                        default: o.default.clone(),
                        values: o
                            .values
                            .iter()
                            .map(|v| ValueView {
                                value: v.value.clone(),
                                label: v.label.clone(),
                            })
                            .collect(),
                    })
                    .collect(),
            })
        })
        .collect();
    Json(list)
}

/// The body of `POST /api/games`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateRequest {
    variant: String,
    #[serde(default)]
    options: BTreeMap<String, String>,
    #[serde(default = "random")]
    color: ColorChoice,
    /// The time control: `untimed` (the default), `M+S` or `Nd`.
    #[serde(default)]
    clock: Option<String>,
    /// Play the computer at this level (1 to 6) instead of a friend.
    #[serde(default)]
    computer: Option<u8>,
    /// Let anyone take the empty seat: the game is listed among the open challenges.
    #[serde(default)]
    open: bool,
    /// The creator's name, if they give one.
    #[serde(default)]
    name: Option<String>,
}

/// The body of `POST /api/games/{id}/join` (optional) and of `POST /api/games/{id}/name`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NameRequest {
    /// The player's name.
    name: String,
}

/// Reads a player's name from a request: refused as `bad_name` (400), and nothing is done.
pub fn player_name(text: &str) -> Result<PlayerName, ApiError> {
    PlayerName::parse(text).map_err(|e| ApiError::new(ErrorCode::BadName, e.to_string()))
}

/// The opponent a request asks for: the computer at `level`, anyone (`open`), or a friend.
pub fn opponent(level: Option<u8>, open: bool) -> Result<Opponent, ApiError> {
    let bad = |why: String| ApiError::new(ErrorCode::BadVariant, why);
    match (level, open) {
        (Some(_), true) => Err(bad("a game against the computer has no seat to open".into())),
        (Some(n), false) => Level::new(n)
            .map(Opponent::Computer)
            .ok_or_else(|| bad(format!("no computer level {n}: 1 to 6"))),
        (None, true) => Ok(Opponent::Anyone),
        (None, false) => Ok(Opponent::Friend),
    }
}

/// Reads a time control from a request.
pub fn time_control(text: Option<&str>) -> Result<TimeControl, ApiError> {
    TimeControl::parse(text.unwrap_or_default())
        .map_err(|e| ApiError::new(ErrorCode::BadVariant, e.to_string()))
}

fn random() -> ColorChoice {
    ColorChoice::Random
}

/// A seat handed out, with the game's link: the secret is in this answer alone, never in a link.
#[derive(Debug, Serialize)]
pub struct SeatView {
    id: String,
    url: String,
    seat: Color,
    secret: String,
    /// Where to open the game's socket, when the server that runs it is reached at an address
    /// of its own; else at `/api/games/{id}/ws` on this site.
    #[serde(skip_serializing_if = "Option::is_none")]
    socket: Option<String>,
}

/// A seat as the API hands it out, with links under `base`.
fn seat_view(config: &Config, base: &str, grant: SeatGrant) -> SeatView {
    SeatView {
        url: format!("{base}/g/{}", grant.id),
        socket: super::forward::own_socket(config, &grant.id),
        id: grant.id,
        seat: grant.color,
        secret: grant.secret,
    }
}

async fn granted(
    app: &AppState,
    headers: &HeaderMap,
    browser: &BrowserId,
    grant: SeatGrant,
    status: StatusCode,
) -> Response {
    super::browser::hold_seat(app, browser, &grant.id, grant.color).await;
    let base = base_url(&app.config, headers);
    let cookies = seat_cookies(&app.config, &grant.id, &grant.secret);
    (status, cookies, Json(seat_view(&app.config, &base, grant))).into_response()
}

pub(super) fn body<T>(app: &AppState, json: Result<Json<T>, JsonRejection>) -> Result<T, ApiError> {
    json.map(|Json(t)| t).map_err(|e| rejected(app, e))
}

/// Why a JSON body was refused: too large, or not what the endpoint takes.
fn rejected(app: &AppState, e: JsonRejection) -> ApiError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        app.metrics.limit("body_size");
        ApiError::new(ErrorCode::TooLarge, e.body_text())
    } else {
        ApiError::new(ErrorCode::Malformed, e.body_text())
    }
}

/// `GET /metrics`: Prometheus text format.
pub async fn metrics(
    State(app): State<AppState>,
    ClientIp(from): ClientIp,
    headers: HeaderMap,
) -> Response {
    // What the server does, and how much, is for its operator: by token, or from the host.
    let allowed = match (&app.config.metrics_token, super::bearer(&headers)) {
        (Some(token), Some(given)) => {
            subtle::ConstantTimeEq::ct_eq(token.as_bytes(), given.trim().as_bytes()).into()
        }
        (Some(_), None) => false,
        (None, _) => from.to_canonical().is_loopback(),
    };
    if !allowed {
        app.metrics.limit("metrics_token");
        return ApiError::new(
            ErrorCode::Unauthenticated,
            "/metrics needs the token set in MERELS_METRICS_TOKEN (or a request from the host itself)",
        )
        .into_response();
    }
    let metrics = &app.metrics;
    metrics.games_in_memory.set(app.rooms.live() as i64);
    if let Ok(counts) = app.rooms.store().count_by_status().await {
        for (status, n) in counts {
            metrics.set_games(&status, n);
        }
    }
    (
        [(CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")],
        metrics.encode(),
    )
        .into_response()
}

/// `POST /api/games`: creates a game; the creator is seated.
pub async fn create(
    State(app): State<AppState>,
    ClientIp(from): ClientIp,
    browser: BrowserId,
    headers: HeaderMap,
    json: Result<Json<CreateRequest>, JsonRejection>,
) -> Result<Response, ApiError> {
    let req = body(&app, json)?;
    let clock = time_control(req.clock.as_deref())?;
    let opponent = opponent(req.computer, req.open)?;
    let name = req.name.as_deref().map(player_name).transpose()?;
    let grant = app
        .rooms
        .create(
            from,
            &req.variant,
            &req.options,
            clock,
            req.color,
            opponent,
            name,
        )
        .await?;
    Ok(granted(&app, &headers, &browser, grant, StatusCode::CREATED).await)
}

/// `POST /api/games/{id}/join`, with `{"name": ...}` or no body: takes the empty seat, or 409.
pub async fn join(
    State(app): State<AppState>,
    Path(id): Path<String>,
    browser: BrowserId,
    headers: HeaderMap,
    json: Result<Option<Json<NameRequest>>, JsonRejection>,
) -> Result<Response, ApiError> {
    let name = body(&app, json.map(|j| Json(j.map(|Json(r)| r))))?
        .map(|r| player_name(&r.name))
        .transpose()?;
    let grant = app.rooms.join(&id, name).await?;
    Ok(granted(&app, &headers, &browser, grant, StatusCode::OK).await)
}

/// How long an analysis may take: what is not reached by then is left out, within the
/// request's own timeout.
pub const ANALYSIS_TIME: std::time::Duration = std::time::Duration::from_secs(6);

/// `GET /api/games/{id}/analysis`: the engine's judgement of every turn of a finished game.
pub async fn analysis(
    State(app): State<AppState>,
    ClientIp(from): ClientIp,
    Path(id): Path<String>,
) -> Result<Json<Analysis>, ApiError> {
    Ok(Json(app.rooms.analysis(from, &id, ANALYSIS_TIME).await?))
}

/// `GET /api/analysis?variant=SLUG&moves=TURNS[&position=POS][&OPTION=VALUE...]`: the engine's
/// judgement of turns sent in, for scripts and bots. `moves` is notation separated by spaces or
/// commas; every other field is one of the variant's options.
pub async fn analysis_of_turns(
    State(app): State<AppState>,
    ClientIp(from): ClientIp,
    Query(mut query): Query<BTreeMap<String, String>>,
) -> Result<Json<Analysis>, ApiError> {
    let variant = query
        .remove("variant")
        .ok_or_else(|| RoomError::BadVariant("which variant? (variant=SLUG)".into()))?;
    let moves = query.remove("moves").unwrap_or_default();
    let position = query.remove("position");
    let turns: Vec<&str> = moves
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .collect();
    let analysis = app
        .rooms
        .analyse_turns(
            from,
            &variant,
            &query,
            position.as_deref(),
            &turns,
            ANALYSIS_TIME,
        )
        .await?;
    Ok(Json(analysis))
}

/// `GET /api/games/{id}`: the state, the same object as the WebSocket `state` message.
pub async fn state(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<GameState>, ApiError> {
    Ok(Json(app.rooms.state(&id).await?))
}

/// The body of `POST /api/games/{id}/move`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    #[serde(rename = "move")]
    turn: String,
}

/// `POST /api/games/{id}/move`: plays a turn for the seat whose secret is the bearer token.
pub async fn play(
    State(app): State<AppState>,
    Path(id): Path<String>,
    ClientIp(from): ClientIp,
    headers: HeaderMap,
    json: Result<Json<MoveRequest>, JsonRejection>,
) -> Result<Response, ApiError> {
    let turn = body(&app, json)?.turn;
    act(&app, &id, from, &headers, Action::Turn(turn)).await
}

/// `POST /api/games/{id}/name` with `{"name": ...}`: names the bearer's seat (anew); answers
/// with the state, which everyone in the game sees.
pub async fn name(
    State(app): State<AppState>,
    Path(id): Path<String>,
    ClientIp(from): ClientIp,
    headers: HeaderMap,
    json: Result<Json<NameRequest>, JsonRejection>,
) -> Result<Response, ApiError> {
    let name = player_name(&body(&app, json)?.name)?;
    act(&app, &id, from, &headers, Action::Name(name)).await
}

/// The body of [`handoff`], which may be left out.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandOffAsk {
    /// Keep the seat here and open it on the other device too; without it (or `false`) the
    /// link moves the seat, and this device loses it once the link is used.
    #[serde(default)]
    keep: bool,
}

/// `POST /api/games/{id}/handoff` (body `{"keep": true}` or none): a one-time link that moves
/// the asker's seat (by cookie or bearer token) to another device, or with `keep` opens it there
/// too: it works once, for minutes. The code rides in the link's fragment
/// (`/g/{id}#code=CODE`), which a browser never sends to a server, so it lands in no server's or
/// proxy's log; the page reads it and redeems it with [`take_handoff`]. The QR code of the link
/// comes in the answer (markup), not from a URL that would carry the code.
pub async fn handoff(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    json: Result<Option<Json<HandOffAsk>>, JsonRejection>,
) -> Result<Response, ApiError> {
    let keep = json
        .map_err(|e| rejected(&app, e))?
        .map(|Json(ask)| ask)
        .unwrap_or_default()
        .keep;
    let code = app
        .rooms
        .hand_off(&id, presented_secret(&headers, &id), keep)
        .await?;
    let url = format!("{}/g/{id}#code={code}", base_url(&app.config, &headers));
    let body = serde_json::json!({
        "qr": super::html::qr_svg(&url, "QR code of the link that carries your seat"),
        "url": url,
        "code": code,
        "keep": keep,
        "expires_in_secs": app.config.handoff_secs,
    });
    Ok(([(CACHE_CONTROL, "no-store")], Json(body)).into_response())
}

/// The body of [`take_handoff`].
#[derive(Debug, Deserialize)]
pub struct TakeHandoff {
    /// The one-time code from the link's fragment.
    code: String,
}

/// `POST /api/games/{id}/handoff/take` with `{"code": CODE}`: redeems a one-time code (once,
/// within its time) for the seat it carries, whose cookie this browser then gets; the answer
/// names the seat and holds its secret, as a join's does, and says whether the seat `moved`
/// (the device that asked for the code lost it: its secret no longer works, its sockets were
/// closed with 4410) or is shared (`moved: false`). A code used already, expired, of another
/// game, or whose seat has moved since: `not_allowed` (409), and nothing changes.
pub async fn take_handoff(
    State(app): State<AppState>,
    Path(id): Path<String>,
    browser: BrowserId,
    json: Result<Json<TakeHandoff>, JsonRejection>,
) -> Result<Response, ApiError> {
    let code = body(&app, json)?.code;
    if !crate::rooms::secrets::is_code(&code) {
        return Err(ApiError::new(
            ErrorCode::Malformed,
            "\"code\" takes a hand-off code",
        ));
    }
    let Some((grant, moved)) = app.rooms.take_handoff(&id, &code, browser.as_str()).await? else {
        return Err(ApiError::new(
            ErrorCode::NotAllowed,
            "that link to a seat was used already or has expired: open a new one on the device \
             that holds the seat",
        ));
    };
    let cookies = seat_cookies(&app.config, &id, &grant.secret);
    let body = serde_json::json!({
        "id": id,
        "seat": grant.color.name(),
        "secret": grant.secret,
        "moved": moved,
    });
    Ok(([(CACHE_CONTROL, "no-store")], cookies, Json(body)).into_response())
}

/// `GET /api/my-games`: this browser's games (by its `merels_browser` cookie): those not
/// finished, with whose turn it is and how long is left, then its recent finished ones.
pub async fn my_games(
    State(app): State<AppState>,
    browser: BrowserId,
) -> Result<Response, ApiError> {
    let games = app.rooms.my_games(browser.as_str()).await?;
    // Private to this browser: no shared cache may keep it.
    Ok(([(CACHE_CONTROL, "private, no-store")], Json(games)).into_response())
}

/// `POST /api/games/{id}/{action}`: a WebSocket message without fields, for the bearer's seat:
/// `resign`, `abort`, `rematch`.
pub async fn action(
    State(app): State<AppState>,
    Path((id, action)): Path<(String, String)>,
    ClientIp(from): ClientIp,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    act(&app, &id, from, &headers, named_action(&action)?).await
}

/// `POST /api/games/{id}/{action}/{answer}`: the same for the messages named in two words:
/// `draw/offer` is `draw_offer`, and so on for `draw`, `takeback` and `claim`.
pub async fn answer(
    State(app): State<AppState>,
    Path((id, action, answer)): Path<(String, String, String)>,
    ClientIp(from): ClientIp,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let action = named_action(&format!("{action}_{answer}"))?;
    act(&app, &id, from, &headers, action).await
}

/// The action of the client message without fields whose type is `name`.
fn named_action(name: &str) -> Result<Action, ApiError> {
    ClientMessage::without_fields(name)
        .and_then(Action::of)
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::NotFound,
                "no such action: resign, abort, rematch, rematch/decline, draw/{offer,accept,decline}, \
                 takeback/{offer,accept,decline}, claim/{win,draw}",
            )
        })
}

/// Does an action for the seat the request presents, and answers with the new state (a
/// rematch also with the asker's seat in it, once it has started).
async fn act(
    app: &AppState,
    id: &str,
    from: IpAddr,
    headers: &HeaderMap,
    action: Action,
) -> Result<Response, ApiError> {
    let rematch = action == Action::Rematch;
    let actor = Actor::Secret(presented_secret(headers, id));
    let acted = app.rooms.act(id, actor, from, action).await?;
    if !rematch {
        return Ok(Json(acted.state).into_response());
    }
    let base = base_url(&app.config, headers);
    if let Some(grant) = &acted.rematch
        && let Some(browser) = BrowserId::of(headers)
    {
        super::browser::hold_seat(app, &browser, &grant.id, grant.color).await;
    }
    let seat = acted
        .rematch
        .map(|grant| seat_view(&app.config, &base, grant));
    Ok(Json(RematchView {
        state: acted.state,
        rematch: seat,
    })
    .into_response())
}

/// The answer to `POST /api/games/{id}/rematch`.
#[derive(Debug, Serialize)]
pub struct RematchView {
    state: GameState,
    /// Your seat in the rematch, once it has started.
    rematch: Option<SeatView>,
}

/// `GET /g/{id}/record`: the game record as a text file.
pub async fn record(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let text = app.rooms.record(&id).await?;
    Ok((
        [
            (CONTENT_TYPE, "text/plain; charset=utf-8".to_string()),
            (
                CONTENT_DISPOSITION,
                format!("attachment; filename=\"merels-{id}.txt\""),
            ),
        ],
        text,
    )
        .into_response())
}
