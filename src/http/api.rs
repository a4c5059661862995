//! The JSON API: the same actions as the WebSocket, for bots and scripts. Seat secrets travel as
//! bearer tokens (or the browser's seat cookie).

use super::error::ApiError;
use super::limits::client_ip;
use super::{AppState, base_url, presented_secret, seat_cookie};
use crate::clock::TimeControl;
use crate::protocol::{ErrorCode, GameState, Geometry};
use crate::rooms::{Actor, ColorChoice, Ending, OfferAction, SeatGrant};
use crate::rules::Color;
use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE, SET_COOKIE};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::net::SocketAddr;

/// `GET /healthz`: the process is alive.
pub async fn healthz() -> &'static str {
    "ok\n"
}

/// `GET /readyz`: the database answers.
pub async fn readyz(State(app): State<AppState>) -> Result<&'static str, ApiError> {
    app.rooms
        .store()
        .ping()
        .await
        .map(|()| "ready\n")
        .map_err(|e| ApiError::new(ErrorCode::Unavailable, e.to_string()))
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
}

/// Reads a time control from a request.
pub fn time_control(text: Option<&str>) -> Result<TimeControl, ApiError> {
    TimeControl::parse(text.unwrap_or_default())
        .map_err(|e| ApiError::new(ErrorCode::BadVariant, e.to_string()))
}

fn random() -> ColorChoice {
    ColorChoice::Random
}

/// A seat handed out, with the links that go with it.
#[derive(Debug, Serialize)]
pub struct SeatView {
    id: String,
    url: String,
    seat: Color,
    secret: String,
    handoff_url: String,
}

fn granted(app: &AppState, headers: &HeaderMap, grant: SeatGrant, status: StatusCode) -> Response {
    let base = base_url(&app.config, headers);
    let cookie = seat_cookie(&grant.id, &grant.secret);
    let body = SeatView {
        url: format!("{base}/g/{}", grant.id),
        handoff_url: format!("{base}/g/{}?seat={}", grant.id, grant.secret),
        id: grant.id,
        seat: grant.color,
        secret: grant.secret,
    };
    (status, [(SET_COOKIE, cookie)], Json(body)).into_response()
}

fn body<T>(app: &AppState, json: Result<Json<T>, JsonRejection>) -> Result<T, ApiError> {
    json.map(|Json(t)| t).map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            app.rooms.metrics().limit("body_size");
            ApiError::new(ErrorCode::TooLarge, e.body_text())
        } else {
            ApiError::new(ErrorCode::Malformed, e.body_text())
        }
    })
}

/// Refuses a new game when the client's address has created too many this minute.
pub fn check_game_rate(
    app: &AppState,
    headers: &HeaderMap,
    peer: SocketAddr,
) -> Result<(), ApiError> {
    let ip = client_ip(&app.config, headers, peer);
    if app.limits.allow_game(ip) {
        Ok(())
    } else {
        app.rooms.metrics().limit("games_per_minute");
        Err(ApiError::new(
            ErrorCode::RateLimited,
            format!(
                "at most {} new games a minute from one address; try again shortly",
                app.config.games_per_minute
            ),
        ))
    }
}

/// `GET /metrics`: Prometheus text format.
pub async fn metrics(State(app): State<AppState>) -> Response {
    let metrics = app.rooms.metrics();
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
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    json: Result<Json<CreateRequest>, JsonRejection>,
) -> Result<Response, ApiError> {
    let req = body(&app, json)?;
    let clock = time_control(req.clock.as_deref())?;
    check_game_rate(&app, &headers, peer)?;
    let grant = app
        .rooms
        .create(&req.variant, &req.options, clock, req.color)
        .await?;
    Ok(granted(&app, &headers, grant, StatusCode::CREATED))
}

/// `POST /api/games/{id}/join`: takes the empty seat, or 409.
pub async fn join(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let grant = app.rooms.join(&id).await?;
    Ok(granted(&app, &headers, grant, StatusCode::OK))
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
    headers: HeaderMap,
    json: Result<Json<MoveRequest>, JsonRejection>,
) -> Result<Json<GameState>, ApiError> {
    let req = body(&app, json)?;
    let actor = Actor::Secret(presented_secret(&headers, &id));
    Ok(Json(app.rooms.play(&id, actor, &req.turn).await?))
}

/// `POST /api/games/{id}/resign`: the bearer's seat resigns.
pub async fn resign(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Json<GameState>, ApiError> {
    let actor = Actor::Secret(presented_secret(&headers, &id));
    Ok(Json(app.rooms.end(&id, actor, Ending::Resign).await?))
}

/// `POST /api/games/{id}/abort`: calls the game off before both players have moved.
pub async fn abort(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Json<GameState>, ApiError> {
    let actor = Actor::Secret(presented_secret(&headers, &id));
    Ok(Json(app.rooms.end(&id, actor, Ending::Abort).await?))
}

/// `POST /api/games/{id}/claim/{win|draw}`: the bearer's opponent has been gone too long on
/// their turn; the bearer takes the win or a draw.
pub async fn claim(
    State(app): State<AppState>,
    Path((id, what)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Json<GameState>, ApiError> {
    let ending = match what.as_str() {
        "win" => Ending::ClaimWin,
        "draw" => Ending::ClaimDraw,
        _ => {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                "claim/win or claim/draw",
            ));
        }
    };
    let actor = Actor::Secret(presented_secret(&headers, &id));
    Ok(Json(app.rooms.end(&id, actor, ending).await?))
}

fn offer_action(action: &str) -> Result<OfferAction, ApiError> {
    match action {
        "offer" => Ok(OfferAction::Offer),
        "accept" => Ok(OfferAction::Accept),
        "decline" => Ok(OfferAction::Decline),
        _ => Err(ApiError::new(
            ErrorCode::NotFound,
            "offer, accept or decline",
        )),
    }
}

/// `POST /api/games/{id}/draw/{offer|accept|decline}`: the bearer's seat acts on a draw.
pub async fn draw(
    State(app): State<AppState>,
    Path((id, action)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Json<GameState>, ApiError> {
    let action = offer_action(&action)?;
    let actor = Actor::Secret(presented_secret(&headers, &id));
    Ok(Json(app.rooms.draw(&id, actor, action).await?))
}

/// `POST /api/games/{id}/takeback/{offer|accept|decline}`: the bearer's seat acts on a takeback.
pub async fn takeback(
    State(app): State<AppState>,
    Path((id, action)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Json<GameState>, ApiError> {
    let action = offer_action(&action)?;
    let actor = Actor::Secret(presented_secret(&headers, &id));
    Ok(Json(app.rooms.takeback(&id, actor, action).await?))
}

/// The answer to `POST /api/games/{id}/rematch`.
#[derive(Debug, Serialize)]
pub struct RematchView {
    state: GameState,
    /// Your seat in the rematch, once it has started.
    rematch: Option<SeatView>,
}

/// `POST /api/games/{id}/rematch`: asks for a rematch; once both players have asked, the answer
/// carries the asker's seat in the new game (asking again gives it again).
pub async fn rematch(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Json<RematchView>, ApiError> {
    let actor = Actor::Secret(presented_secret(&headers, &id));
    let (state, grant) = app.rooms.rematch(&id, actor).await?;
    let base = base_url(&app.config, &headers);
    let rematch = grant.map(|g| SeatView {
        url: format!("{base}/g/{}", g.id),
        handoff_url: format!("{base}/g/{}?seat={}", g.id, g.secret),
        id: g.id,
        seat: g.color,
        secret: g.secret,
    });
    Ok(Json(RematchView { state, rematch }))
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
