//! The endgame trainer over HTTP: `GET /api/trainer/{variant}` (a board's won endgames to play
//! out), `POST /api/trainer/{variant}/turn` (the player's turn in a position, its value, and the
//! table's best defence to it), and the pages `/trainer` (the boards), `/trainer/{variant}` (its
//! endgames) and `/trainer/{variant}/{n}` (one on the board, brought to life by
//! `static/trainer.js`).
//!
//! Nothing is stored: the page sends the position it stands at with each turn, and the table
//! judges both. A board's starts ([`crate::engine::trainer::starts`]) are chosen from its solved
//! table the first time they are asked for, with the puzzles' seed, and kept in memory.

use super::AppState;
use super::error::ApiError;
use super::html::{Message, layout, render, script_json};
use super::lang::Reader;
use super::puzzles::{Stand, board, outcome, table_of};
use crate::engine::Value;
use crate::engine::trainer::{self, Start, StepError};
use crate::i18n::Lang;
use crate::protocol::{ErrorCode, TurnView};
use crate::rules::{Color, Variant};
use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

/// How many endgames each board offers.
pub const STARTS_PER_BOARD: usize = 6;

/// A won endgame as the API and the pages give it.
#[derive(Debug, Serialize)]
pub struct StartView {
    /// Its number on the board (from 1).
    pub n: usize,
    /// Why it was chosen: `longest` (one of the longest wins) or `few-men` (the longest with the
    /// fewest men).
    pub kind: &'static str,
    /// The side to play it out (the winning side, to move).
    pub to_move: Color,
    /// Plies to the end with perfect play from both sides.
    pub plies: u16,
    /// The position.
    #[serde(flatten)]
    pub stand: Stand,
}

/// A board's endgames: `GET /api/trainer/{variant}`.
#[derive(Debug, Serialize)]
pub struct StartsView {
    /// The variant's slug.
    pub variant: String,
    /// The variant's name.
    pub title: String,
    /// The endgames, longest first within each kind.
    pub starts: Vec<StartView>,
}

/// The body of `POST /api/trainer/{variant}/turn`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnRequest {
    /// The position the player is to move in.
    position: String,
    /// The player's turn, in notation.
    turn: String,
}

/// What a turn came to.
#[derive(Debug, Serialize)]
pub struct StepView {
    /// The turn played.
    pub turn: TurnView,
    /// What the position was worth for the player before it: `win in 9`.
    pub before: String,
    /// What the turn was worth for the player: `win in 9`, `draw`, `loss in 4`.
    pub value: String,
    /// `win`, `draw` or `loss`: the turn's result alone.
    pub outcome: &'static str,
    /// Whether the turn gave something away (a win let go to a draw or a loss, a draw to a loss).
    pub slipped: bool,
    /// The table's best defence, when the game goes on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply: Option<TurnView>,
    /// The position after the turn and the reply: the player's to move again unless it is over.
    pub then: Stand,
    /// Plies to the end from `then` with perfect play, when it is won or lost.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance: Option<u16>,
    /// The winner (`white`, `black`) or `draw`, once the game is over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over: Option<&'static str>,
}

/// The starts of `variant`, chosen once per server from its table (`unavailable` until the
/// table is ready).
async fn starts_of(app: &AppState, variant: &Arc<Variant>) -> Result<Arc<Vec<Start>>, ApiError> {
    static MADE: LazyLock<Mutex<HashMap<String, Arc<Vec<Start>>>>> = LazyLock::new(Mutex::default);
    let key = crate::engine::Table::file_name(variant);
    let cached = MADE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&key)
        .cloned();
    if let Some(starts) = cached {
        return Ok(starts);
    }
    let table = table_of(app, variant)?;
    let made = Arc::clone(variant);
    let starts = tokio::task::spawn_blocking(move || {
        trainer::starts(&made, &table, super::puzzles::SEED, STARTS_PER_BOARD)
    })
    .await
    .map_err(|_| ApiError::new(ErrorCode::Internal, "choosing the endgames failed"))?;
    let starts = Arc::new(starts);
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    made.insert(key, Arc::clone(&starts));
    Ok(starts)
}

fn start_view(variant: &Variant, n: usize, start: &Start) -> StartView {
    StartView {
        n,
        kind: start.kind.as_str(),
        to_move: start.position.to_move(),
        plies: start.plies,
        stand: Stand::of(variant, &start.position),
    }
}

async fn starts_view(app: &AppState, slug: &str) -> Result<StartsView, ApiError> {
    let (variant, title) = board(app, slug)?;
    let starts = starts_of(app, &variant).await?;
    Ok(StartsView {
        variant: variant.slug().to_string(),
        title: title.to_string(),
        starts: starts
            .iter()
            .enumerate()
            .map(|(i, s)| start_view(&variant, i + 1, s))
            .collect(),
    })
}

/// `GET /api/trainer/{variant}`: the board's won endgames to play out.
pub async fn starts(
    State(app): State<AppState>,
    Path(slug): Path<String>,
) -> Result<Json<StartsView>, ApiError> {
    Ok(Json(starts_view(&app, &slug).await?))
}

/// `POST /api/trainer/{variant}/turn` with `{"position": ..., "turn": ...}`: the turn judged by
/// the table and answered with its best defence. Any position of the board the table holds may
/// be sent, not only a start.
pub async fn turn(
    State(app): State<AppState>,
    Path(slug): Path<String>,
    json: Result<Json<TurnRequest>, JsonRejection>,
) -> Result<Json<StepView>, ApiError> {
    let (variant, _) = board(&app, &slug)?;
    let request = super::api::body(&app, json)?;
    let pos = variant.parse_position(&request.position).map_err(|e| {
        ApiError::new(
            ErrorCode::BadNotation,
            format!("not a position of this board: {e}"),
        )
    })?;
    let played = variant
        .parse_turn(&request.turn)
        .map_err(|e| ApiError::new(ErrorCode::BadNotation, format!("the turn: {e}")))?;
    let table = table_of(&app, &variant)?;
    let step = trainer::step(&variant, &table, &pos, played).map_err(|e| {
        let code = match e {
            StepError::Unknown => ErrorCode::NotFound,
            StepError::Over => ErrorCode::GameOver,
            StepError::Illegal => ErrorCode::IllegalTurn,
        };
        ApiError::new(code, e.to_string())
    })?;
    let mut then = Stand::of(&variant, &step.then);
    let over = step.over.map(|o| match o.winner {
        Some(Color::White) => "white",
        Some(Color::Black) => "black",
        None => "draw",
    });
    if over.is_some() {
        then.legal.clear();
    }
    let distance = match table.value(&step.then) {
        Some(Value::Win(d) | Value::Loss(d)) if over.is_none() => Some(d),
        _ => None,
    };
    Ok(Json(StepView {
        turn: TurnView::of(&variant, played),
        before: step.before.to_string(),
        value: step.after.to_string(),
        outcome: outcome(step.after),
        slipped: step.slipped(),
        reply: step.reply.map(|r| TurnView::of(&variant, r)),
        then,
        distance,
        over,
    }))
}

/// The boards page (`static/trainer-boards.html`).
#[derive(askama::Template)]
#[template(path = "trainer-boards.html")]
struct Boards {
    lang: Lang,
    boards: Vec<(String, &'static str)>,
}

/// A board's endgames (`static/trainer-starts.html`).
#[derive(askama::Template)]
#[template(path = "trainer-starts.html")]
struct Starts<'a> {
    lang: Lang,
    view: &'a StartsView,
    /// Each endgame's number and who wins in how many plies, in words.
    rows: Vec<(usize, String)>,
}

/// An endgame on the board (`static/trainer.html`).
#[derive(askama::Template)]
#[template(path = "trainer.html")]
struct Page<'a> {
    lang: Lang,
    /// "White to play and win", in the page's language.
    task: String,
    /// "endgame 2 of 6", in the page's language.
    of: String,
    title: &'a str,
    variant: &'a str,
    start: &'a StartView,
    count: usize,
    data: String,
}

/// `GET /trainer`: the boards with endgames.
pub async fn page_boards(State(app): State<AppState>, reader: Reader) -> Response {
    let lang = reader.lang;
    let boards = super::puzzles::boards(&app)
        .into_iter()
        .map(|(v, title)| (v.slug().to_string(), title))
        .collect();
    let title = lang.t1("title-page", "page", lang.t("trainer"));
    layout(&reader, &title, &render(&Boards { lang, boards }), None)
}

/// `GET /trainer/{variant}`: the board's endgames.
pub async fn page_starts(
    State(app): State<AppState>,
    reader: Reader,
    Path(slug): Path<String>,
) -> Response {
    let lang = reader.lang;
    match starts_view(&app, &slug).await {
        Ok(view) => {
            let heading = lang.t1("trainer-board-endgames", "variant", view.title.as_str());
            let title = lang.t1("title-page", "page", heading);
            let rows = view
                .starts
                .iter()
                .map(|start| {
                    let side = ("side", start.to_move.name());
                    let wins = lang.t2("trainer-wins-in", side, ("plies", start.plies));
                    let few = if start.kind == "few-men" {
                        format!(" {}", lang.t("trainer-few-men"))
                    } else {
                        String::new()
                    };
                    (start.n, wins + &few)
                })
                .collect();
            let page = Starts {
                lang,
                view: &view,
                rows,
            };
            layout(&reader, &title, &render(&page), None)
        }
        Err(e) => error_page(&reader, e),
    }
}

/// `GET /trainer/{variant}/{n}`: endgame `n` of the board, to play out.
pub async fn page(
    State(app): State<AppState>,
    reader: Reader,
    Path((slug, n)): Path<(String, String)>,
) -> Response {
    let lang = reader.lang;
    let view = match starts_view(&app, &slug).await {
        Ok(view) => view,
        Err(e) => return error_page(&reader, e),
    };
    let not_found = || {
        error_page(
            &reader,
            ApiError::new(
                ErrorCode::NotFound,
                format!("{} has endgames 1 to {}", view.title, view.starts.len()),
            ),
        )
    };
    let Some(start) = n
        .parse::<usize>()
        .ok()
        .and_then(|n| view.starts.get(n.wrapping_sub(1)))
    else {
        return not_found();
    };
    let board: Arc<RawValue> = match board(&app, &slug) {
        Ok((variant, _)) => app.rooms.catalog().board_json(variant.board()),
        Err(e) => return error_page(&reader, e),
    };
    let data = serde_json::json!({
        "variant": view.variant,
        "start": start,
        "board": board,
    });
    let page = Page {
        lang,
        task: lang.t2(
            "puzzle-task",
            ("side", start.to_move.name()),
            ("goal", "win"),
        ),
        of: lang.t2("trainer-of", ("n", start.n), ("count", view.starts.len())),
        title: &view.title,
        variant: &view.variant,
        start,
        count: view.starts.len(),
        data: script_json(&data),
    };
    let heading = lang.t2(
        "trainer-endgame-title",
        ("variant", view.title.as_str()),
        ("n", start.n),
    );
    let title = lang.t1("title-page", "page", heading);
    layout(&reader, &title, &render(&page), Some("trainer.js"))
}

fn error_page(reader: &Reader, e: ApiError) -> Response {
    let lang = reader.lang;
    let status = ApiError::status(e.code);
    let back = lang.t("trainer-back");
    Message {
        heading: &lang.t(if status == StatusCode::NOT_FOUND {
            "trainer-no-such-endgame"
        } else {
            "trainer"
        }),
        message: &e.message,
        back: ("/trainer".into(), &back),
    }
    .page(reader, status)
}
