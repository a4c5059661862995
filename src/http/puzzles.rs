//! Puzzles over HTTP: `GET /api/puzzles/next` (a puzzle near the browser's rating),
//! `POST /api/puzzles/{id}/attempt` (the solver's turns judged against the table, ratings moved
//! once a puzzle is solved or failed), and the pages `/puzzles` (the boards) and `/puzzles/{id}`
//! (a puzzle on the board, brought to life by `static/puzzle.js`).
//!
//! Each board's set is generated from its solved table the first time a puzzle of it is asked
//! for ([`crate::engine::puzzles`]), with a fixed seed, so every server makes the same set, and
//! stored; until the table is ready (Six and Seven Men's take a minute or more to solve) the API
//! answers `unavailable`.

use super::AppState;
use super::browser::BrowserId;
use super::error::ApiError;
use super::html::{Message, layout, render, script_json};
use super::lang::Reader;
use crate::engine::puzzles::{self, AttemptError, Goal, Puzzle, Verdict, Wanted};
use crate::engine::{Table, Value};
use crate::i18n::Lang;
use crate::protocol::{ErrorCode, Men, Sides, TurnView};
use crate::rating::Rating;
use crate::rules::board::points;
use crate::rules::{Color, Position, Variant};
use crate::store::{Attempt, PuzzleRow};
use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::sync::Arc;

/// How many puzzles a board's set holds, at most.
pub const PUZZLES_PER_BOARD: usize = 300;
/// The seed every server generates its sets from: the same set everywhere.
pub const SEED: u64 = 50;
/// The most turns the solver makes in one puzzle.
const DEPTH: usize = 3;
/// The most turns an attempt may carry (more than any puzzle asks).
const MAX_TURNS: usize = 16;

/// A position as the puzzle page draws it and plays on it.
#[derive(Debug, Serialize)]
pub struct Stand {
    /// The position string.
    pub position: String,
    /// The men on the board.
    pub men: Men,
    /// The men in hand.
    pub hand: Sides<u8>,
    /// The legal turns of the side to move, in notation and in their parts.
    pub legal: Vec<TurnView>,
}

impl Stand {
    /// `pos` of `variant`, drawn.
    pub fn of(variant: &Variant, pos: &Position) -> Stand {
        let board = variant.board();
        Stand {
            position: variant.position_string(pos),
            men: Sides::from_fn(|c| points(pos.men(c)).map(|p| board.name(p).into()).collect()),
            hand: Sides::from_fn(|c| pos.hand(c)),
            legal: variant
                .legal_turns(pos)
                .into_iter()
                .map(|t| TurnView::of(variant, t))
                .collect(),
        }
    }
}

/// A puzzle as the API and the page give it: where it starts, never its line.
#[derive(Debug, Serialize)]
pub struct PuzzleView {
    /// Its number.
    pub id: i64,
    /// The variant's slug.
    pub variant: String,
    /// Its table options.
    pub options: String,
    /// The variant's name.
    pub title: String,
    /// The start.
    #[serde(flatten)]
    pub start: Stand,
    /// The side the solver plays.
    pub to_move: Color,
    /// `win` or `draw`.
    pub goal: &'static str,
    /// The task in words: "White to play and win".
    pub task: String,
    /// How many turns the solver makes.
    pub solver_turns: usize,
    /// The puzzle's rating, rounded.
    pub rating: i64,
    /// The browser's puzzle rating, rounded.
    pub your_rating: i64,
    /// The board to draw.
    pub board: Arc<RawValue>,
}

/// The body of `POST /api/puzzles/{id}/attempt`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttemptRequest {
    /// The solver's turns so far, in notation, from the puzzle's start (the computer's answers
    /// between are the server's).
    turns: Vec<String>,
}

/// What an attempt came to.
#[derive(Debug, Serialize)]
pub struct AttemptView {
    /// `continue` (right so far: play on after `reply`), `solved` or `wrong`.
    pub result: &'static str,
    /// The computer's answer to the last turn, when the solver plays on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply: Option<TurnView>,
    /// The position after the answer, to play on from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub then: Option<Stand>,
    /// The wrong turn, what it was worth, and the right one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wrong: Option<WrongView>,
    /// The whole line, once the puzzle is over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// The browser's rating after the attempt, once the puzzle is over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<i64>,
    /// How much the browser's rating moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating_change: Option<i64>,
    /// The puzzle's rating after the attempt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub puzzle_rating: Option<i64>,
}

/// A wrong turn, judged.
#[derive(Debug, Serialize)]
pub struct WrongView {
    /// Which of the solver's turns (0 the first).
    pub at: usize,
    /// The turn played.
    pub turn: String,
    /// What it was worth for the solver: `win`, `draw` or `loss`.
    pub outcome: &'static str,
    /// Exactly: `loss in 8`, `draw`.
    pub value: String,
    /// The one right turn.
    pub right: TurnView,
    /// What the right turn was worth: `win in 5`, `draw`.
    pub right_value: String,
}

/// The task in words: "White to play and win", "Black to play and hold the draw".
pub fn task(side: Color, goal: Goal) -> String {
    let side = match side {
        Color::White => "White",
        Color::Black => "Black",
    };
    match goal {
        Goal::Win => format!("{side} to play and win"),
        Goal::Draw => format!("{side} to play and hold the draw"),
    }
}

/// A value's result alone: `win`, `draw` or `loss`.
pub(super) fn outcome(value: Value) -> &'static str {
    match value {
        Value::Win(_) => "win",
        Value::Draw => "draw",
        Value::Loss(_) => "loss",
    }
}

/// The boards that have puzzles: those with a solved table, with their default options.
pub(super) fn boards(app: &AppState) -> Vec<(Arc<Variant>, &'static str)> {
    let catalog = app.rooms.catalog();
    catalog
        .variants()
        .iter()
        .filter_map(|info| {
            let variant = catalog.configure(info.slug(), &BTreeMap::new()).ok()?;
            crate::engine::solvable(&variant).ok()?;
            Some((variant, info.title.as_str()))
        })
        .collect()
}

pub(super) fn board(app: &AppState, slug: &str) -> Result<(Arc<Variant>, &'static str), ApiError> {
    let all = boards(app);
    let names: Vec<&str> = all.iter().map(|(v, _)| v.slug()).collect();
    let wrong = || {
        ApiError::new(
            ErrorCode::BadVariant,
            format!("puzzles are on the solved boards: {}", names.join(", ")),
        )
    };
    let found = all
        .iter()
        .find(|(v, _)| v.slug() == slug)
        .ok_or_else(wrong)?;
    Ok(found.clone())
}

fn store_error(e: crate::store::StoreError) -> ApiError {
    tracing::error!(error = %e, "store error");
    let code = if e.is_outage() {
        ErrorCode::Unavailable
    } else {
        ErrorCode::Internal
    };
    ApiError::new(code, "the database failed; nothing changed")
}

/// The board's solved table, or `unavailable` saying why not: being made (or read) in the
/// tables folder, or, on a server that keeps no tables folder, never (only the boards solved on
/// the spot have one there).
pub(super) fn table_of(app: &AppState, variant: &Arc<Variant>) -> Result<Arc<Table>, ApiError> {
    if let Some(table) = app.rooms.solved_table(variant) {
        return Ok(table);
    }
    let message = if app.config.tables.is_some() {
        "this board's solved table is being made (a minute or more on the biggest boards); try \
         again soon"
            .to_string()
    } else {
        format!(
            "this board needs its solved table, and this server keeps no tables folder: start it \
             with MERELS_TABLES set to a folder (the table is made there on first use), or make \
             it beforehand with `merels solve --variant {}`",
            variant.slug()
        )
    };
    Err(ApiError::new(ErrorCode::Unavailable, message))
}

/// Makes the board's set if it has none: generated off the async threads, one board at a time.
async fn ensure_set(app: &AppState, variant: &Arc<Variant>) -> Result<(), ApiError> {
    static MAKING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let store = app.rooms.store();
    let (slug, options) = (variant.slug(), variant.options_string());
    if store
        .puzzle_count(slug, &options)
        .await
        .map_err(store_error)?
        > 0
    {
        return Ok(());
    }
    let table = table_of(app, variant)?;
    let _one = MAKING.lock().await;
    if store
        .puzzle_count(slug, &options)
        .await
        .map_err(store_error)?
        > 0
    {
        return Ok(());
    }
    let made = Arc::clone(variant);
    let rows = tokio::task::spawn_blocking(move || set_rows(&made, &table))
        .await
        .map_err(|_| ApiError::new(ErrorCode::Internal, "making the puzzles failed"))?;
    let added = store.add_puzzles(&rows).await.map_err(store_error)?;
    tracing::info!(variant = slug, added, "made the board's puzzles");
    Ok(())
}

/// The rows of a board's set, each proven by the table.
fn set_rows(variant: &Variant, table: &Table) -> Vec<PuzzleRow> {
    let wanted = Wanted {
        count: PUZZLES_PER_BOARD,
        seed: SEED,
        depth: DEPTH,
    };
    puzzles::generate(variant, table, wanted)
        .into_iter()
        .filter(|p| puzzles::check(variant, table, p).is_ok())
        .map(|p| PuzzleRow {
            id: 0,
            variant: variant.slug().to_string(),
            options: variant.options_string(),
            position: variant.position_string(&p.start),
            goal: p.goal.as_str().to_string(),
            line: p.line_string(variant),
            rating: Rating::default(),
            attempts: 0,
            solved: 0,
        })
        .collect()
}

/// A stored puzzle with its variant, read back and proven by the table.
struct Loaded {
    row: PuzzleRow,
    variant: Arc<Variant>,
    title: &'static str,
    puzzle: Puzzle,
}

fn load(app: &AppState, row: PuzzleRow) -> Result<Loaded, ApiError> {
    let (variant, title) = board(app, &row.variant)?;
    let puzzle = Puzzle::parse(&variant, &row.position, &row.goal, &row.line)
        .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?;
    Ok(Loaded {
        row,
        variant,
        title,
        puzzle,
    })
}

fn view(app: &AppState, loaded: &Loaded, yours: Rating) -> PuzzleView {
    let Loaded {
        row,
        variant,
        title,
        puzzle,
    } = loaded;
    PuzzleView {
        id: row.id,
        variant: row.variant.clone(),
        options: row.options.clone(),
        title: title.to_string(),
        start: Stand::of(variant, &puzzle.start),
        to_move: puzzle.start.to_move(),
        goal: puzzle.goal.as_str(),
        task: task(puzzle.start.to_move(), puzzle.goal),
        solver_turns: puzzle.solver_turns(),
        rating: row.rating.rating.round() as i64,
        your_rating: yours.rating.round() as i64,
        board: app.rooms.catalog().board_json(variant.board()),
    }
}

async fn rating_of(app: &AppState, browser: &BrowserId) -> Result<Rating, ApiError> {
    let stored = app.rooms.store().puzzle_rating(browser.as_str()).await;
    Ok(stored.map_err(store_error)?.unwrap_or_default())
}

/// The next puzzle of board `slug` for `browser`: not attempted yet, rated nearest its rating.
async fn next_for(app: &AppState, browser: &BrowserId, slug: &str) -> Result<PuzzleView, ApiError> {
    let (variant, _) = board(app, slug)?;
    ensure_set(app, &variant).await?;
    let yours = rating_of(app, browser).await?;
    let store = app.rooms.store();
    let row = store
        .next_puzzle(
            variant.slug(),
            &variant.options_string(),
            browser.as_str(),
            yours.rating,
        )
        .await
        .map_err(store_error)?
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::NotFound,
                "you have tried every puzzle of this board",
            )
        })?;
    Ok(view(app, &load(app, row)?, yours))
}

/// `GET /api/puzzles/next?variant=SLUG`: a puzzle of the board the browser has not tried, rated
/// near its rating.
pub async fn next(
    State(app): State<AppState>,
    browser: BrowserId,
    Query(query): Query<BTreeMap<String, String>>,
) -> Result<Json<PuzzleView>, ApiError> {
    let slug = query
        .get("variant")
        .ok_or_else(|| ApiError::new(ErrorCode::BadVariant, "which board? (variant=SLUG)"))?;
    Ok(Json(next_for(&app, &browser, slug).await?))
}

/// The daily puzzle as the API gives it: the day's number and the puzzle.
#[derive(Debug, Serialize)]
pub struct DailyView {
    /// The UTC day, in days since 1970-01-01.
    pub day: u64,
    /// The puzzle.
    #[serde(flatten)]
    pub puzzle: PuzzleView,
}

/// The UTC day asked for (`day=N`, days since 1970-01-01), or today's.
fn day_of(query: &BTreeMap<String, String>) -> Result<u64, ApiError> {
    const DAY_MS: i64 = 86_400_000;
    match query.get("day") {
        None => Ok(crate::time::wall_ms().div_euclid(DAY_MS).max(0) as u64),
        Some(day) => day
            .parse()
            .map_err(|_| ApiError::new(ErrorCode::Malformed, "day=N counts days since 1970-01-01")),
    }
}

/// The puzzle of UTC day `day`: the same for everyone that day ([`puzzles::daily`]).
async fn daily_puzzle(
    app: &AppState,
    browser: &BrowserId,
    day: u64,
) -> Result<DailyView, ApiError> {
    let all = boards(app);
    let (board, pick) = puzzles::daily(day, all.len());
    let (variant, _) = all
        .get(board)
        .cloned()
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound, "no board has puzzles"))?;
    ensure_set(app, &variant).await?;
    let store = app.rooms.store();
    let (slug, options) = (variant.slug(), variant.options_string());
    let count = store
        .puzzle_count(slug, &options)
        .await
        .map_err(store_error)?;
    let row = store
        .nth_puzzle(slug, &options, pick as i64 % count.max(1))
        .await
        .map_err(store_error)?
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound, "the day's board has no puzzles"))?;
    let yours = rating_of(app, browser).await?;
    Ok(DailyView {
        day,
        puzzle: view(app, &load(app, row)?, yours),
    })
}

/// `GET /api/puzzles/daily`: the puzzle of the current UTC day (or of `day=N`).
pub async fn daily(
    State(app): State<AppState>,
    browser: BrowserId,
    Query(query): Query<BTreeMap<String, String>>,
) -> Result<Json<DailyView>, ApiError> {
    let day = day_of(&query)?;
    Ok(Json(daily_puzzle(&app, &browser, day).await?))
}

/// `GET /puzzles/daily`: on to the puzzle of the current UTC day (or of `day=N`).
pub async fn page_daily(
    State(app): State<AppState>,
    browser: BrowserId,
    reader: Reader,
    Query(query): Query<BTreeMap<String, String>>,
) -> Response {
    let daily = async { daily_puzzle(&app, &browser, day_of(&query)?).await };
    match daily.await {
        Ok(daily) => Redirect::to(&format!("/puzzles/{}", daily.puzzle.id)).into_response(),
        Err(e) => error_page(&reader, e),
    }
}

async fn stored(app: &AppState, id: &str) -> Result<Loaded, ApiError> {
    let not_found = || ApiError::new(ErrorCode::NotFound, "no such puzzle");
    let id: i64 = id.parse().map_err(|_| not_found())?;
    let row = app.rooms.store().puzzle(id).await.map_err(store_error)?;
    load(app, row.ok_or_else(not_found)?)
}

/// `POST /api/puzzles/{id}/attempt` with `{"turns": [...]}`: the solver's turns so far judged.
/// Right and short: the computer's answer. Solved or wrong: the line, and both ratings moved,
/// once per browser and puzzle (a second attempt is refused and changes nothing).
pub async fn attempt(
    State(app): State<AppState>,
    browser: BrowserId,
    Path(id): Path<String>,
    json: Result<Json<AttemptRequest>, JsonRejection>,
) -> Result<Json<AttemptView>, ApiError> {
    let loaded = stored(&app, &id).await?;
    let turns = super::api::body(&app, json)?.turns;
    if turns.len() > MAX_TURNS {
        return Err(ApiError::new(
            ErrorCode::Malformed,
            format!("an attempt has at most {MAX_TURNS} turns"),
        ));
    }
    let store = app.rooms.store();
    let row_id = loaded.row.id;
    if store
        .attempted(browser.as_str(), row_id)
        .await
        .map_err(store_error)?
    {
        return Err(already());
    }
    let Loaded {
        row,
        variant,
        puzzle,
        ..
    } = loaded;
    let played = turns
        .iter()
        .enumerate()
        .map(|(i, t)| {
            variant
                .parse_turn(t)
                .map_err(|e| ApiError::new(ErrorCode::BadNotation, format!("turn {}: {e}", i + 1)))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let table = table_of(&app, &variant)?;
    let verdict = puzzles::judge(&variant, &table, &puzzle, &played).map_err(refused)?;
    let mut answer = AttemptView {
        result: "continue",
        reply: None,
        then: None,
        wrong: None,
        line: None,
        rating: None,
        rating_change: None,
        puzzle_rating: None,
    };
    let solved = match verdict {
        Verdict::Continue { reply } => {
            answer.reply = Some(TurnView::of(&variant, reply));
            answer.then = reached(&variant, &puzzle, played.len()).map(|p| Stand::of(&variant, &p));
            return Ok(Json(answer));
        }
        Verdict::Solved => true,
        Verdict::Wrong {
            at,
            value,
            right,
            right_value,
        } => {
            answer.wrong = Some(WrongView {
                at,
                turn: turns[at].clone(),
                outcome: outcome(value),
                value: value.to_string(),
                right: TurnView::of(&variant, right),
                right_value: right_value.to_string(),
            });
            false
        }
    };
    let before = rating_of(&app, &browser).await?;
    let (mine, theirs) = Rating::attempt(before, row.rating, solved);
    let attempt = Attempt {
        browser: browser.as_str(),
        puzzle: row_id,
        solved,
        at: crate::time::wall_ms(),
        browser_rating: mine,
        puzzle_rating: theirs,
    };
    if !store.record_attempt(attempt).await.map_err(store_error)? {
        return Err(already());
    }
    answer.result = if solved { "solved" } else { "wrong" };
    answer.line = Some(puzzle.line_string(&variant));
    answer.rating = Some(mine.rating.round() as i64);
    answer.rating_change = Some((mine.rating.round() - before.rating.round()) as i64);
    answer.puzzle_rating = Some(theirs.rating.round() as i64);
    Ok(Json(answer))
}

/// The position the line reaches after the solver's first `turns` turns and the answers to them.
fn reached(variant: &Variant, puzzle: &Puzzle, turns: usize) -> Option<Position> {
    let mut pos = puzzle.start;
    for &turn in &puzzle.line[..2 * turns] {
        pos = variant.play(&pos, turn).ok()?;
    }
    Some(pos)
}

fn already() -> ApiError {
    ApiError::new(
        ErrorCode::Conflict,
        "this browser has tried this puzzle already",
    )
}

fn refused(e: AttemptError) -> ApiError {
    let code = match e {
        AttemptError::Empty => ErrorCode::Malformed,
        AttemptError::TooMany(_) | AttemptError::Illegal(_) => ErrorCode::IllegalTurn,
        AttemptError::Unknown => ErrorCode::Internal,
    };
    ApiError::new(code, e.to_string())
}

/// The boards page (`static/puzzles.html`).
#[derive(askama::Template)]
#[template(path = "puzzles.html")]
struct Boards {
    lang: Lang,
    boards: Vec<(String, &'static str)>,
}

/// The puzzle page (`static/puzzle.html`).
#[derive(askama::Template)]
#[template(path = "puzzle.html")]
struct Page<'a> {
    lang: Lang,
    /// The task in the page's language.
    task: String,
    view: &'a PuzzleView,
    data: String,
}

/// `GET /puzzles`: the boards to choose from; `GET /puzzles?variant=SLUG`: on to the browser's
/// next puzzle of that board.
pub async fn page_boards(
    State(app): State<AppState>,
    browser: BrowserId,
    reader: Reader,
    Query(query): Query<BTreeMap<String, String>>,
) -> Response {
    let lang = reader.lang;
    if let Some(slug) = query.get("variant") {
        return match next_for(&app, &browser, slug).await {
            Ok(view) => Redirect::to(&format!("/puzzles/{}", view.id)).into_response(),
            Err(e) => error_page(&reader, e),
        };
    }
    let boards = boards(&app)
        .into_iter()
        .map(|(v, title)| (v.slug().to_string(), title))
        .collect();
    let title = lang.t1("title-page", "page", lang.t("puzzles"));
    layout(&reader, &title, &render(&Boards { lang, boards }), None)
}

/// `GET /puzzles/{id}`: the puzzle on its board.
pub async fn page(
    State(app): State<AppState>,
    browser: BrowserId,
    reader: Reader,
    Path(id): Path<String>,
) -> Response {
    let lang = reader.lang;
    let made = async {
        let loaded = stored(&app, &id).await?;
        let yours = rating_of(&app, &browser).await?;
        Ok::<_, ApiError>(view(&app, &loaded, yours))
    };
    let view = match made.await {
        Ok(view) => view,
        Err(e) => return error_page(&reader, e),
    };
    let data = serde_json::to_value(&view).unwrap_or_default();
    let task = lang.t2(
        "puzzle-task",
        ("side", view.to_move.name()),
        ("goal", view.goal),
    );
    let title = lang.t2("puzzle-title", ("task", task.as_str()), ("id", view.id));
    let page = Page {
        lang,
        task,
        view: &view,
        data: script_json(&data),
    };
    layout(&reader, &title, &render(&page), Some("puzzle.js"))
}

fn error_page(reader: &Reader, e: ApiError) -> Response {
    let lang = reader.lang;
    let status = ApiError::status(e.code);
    let back = lang.t("puzzle-other-boards");
    Message {
        heading: &lang.t(if status == StatusCode::NOT_FOUND {
            "no-such-puzzle"
        } else {
            "puzzles"
        }),
        message: &e.message,
        back: ("/puzzles".into(), &back),
    }
    .page(reader, status)
}
