//! Pictures of games over HTTP: a position (`GET /g/{id}/image.png`), a link preview
//! (`GET /g/{id}/preview.png`), the whole game as a GIF (`GET /g/{id}/game.gif`) and a variant's
//! empty board (`GET /variants/{slug}/image.png`); and the words of a game's link preview.
//!
//! Drawing is [`crate::picture`]'s, on threads of its own at the lowest CPU priority
//! ([`crate::threads`]): a few at once (half the cores), at most [`PER_ADDRESS`] for one
//! address, so that a flood of image requests never takes the CPU from the rooms. What is drawn is kept in a bounded cache, keyed by the game's version, so a
//! picture is never stale. A finished game's pictures never change: a strong ETag and a year's
//! `immutable` Cache-Control; a game in play's are short-lived.

use super::AppState;
use super::error::ApiError;
use super::limits::ClientIp;
use crate::i18n::Lang;
use crate::picture::{Look, Theme, View};
use crate::protocol::{ErrorCode, GameState, Geometry, Status};
use crate::rooms::RoomError;
use crate::threads::Threads;
use axum::extract::{Path, Query, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use fluent_bundle::FluentArgs;
use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::Mutex;
use tokio::sync::Semaphore;

/// Pictures drawn at once for one address; more are refused with 429.
pub const PER_ADDRESS: u32 = 2;
/// The bytes of pictures kept.
const CACHE_BYTES: usize = 64 << 20;
/// Cache-Control of a picture that never changes (a finished game's).
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// Cache-Control of a game in play's pictures: it changes with the next turn.
pub const LIVE: &str = "public, max-age=5";

/// What a picture is of.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Kind {
    Position(usize),
    Preview,
    Gif,
    Variant(String),
}

/// A cache key: the kind, the game (and its version, so a picture follows its game) and look.
type Key = (Kind, String, u64, Look);

/// A picture drawn: its bytes and their strong ETag.
#[derive(Debug, Clone)]
struct Drawn {
    bytes: Bytes,
    etag: String,
}

/// The pictures kept, least recently used first out, up to [`CACHE_BYTES`].
#[derive(Debug, Default)]
struct Cache {
    entries: HashMap<Key, (Drawn, u64)>,
    bytes: usize,
    tick: u64,
}

impl Cache {
    fn get(&mut self, key: &Key) -> Option<Drawn> {
        self.tick += 1;
        let tick = self.tick;
        self.entries.get_mut(key).map(|(drawn, used)| {
            *used = tick;
            drawn.clone()
        })
    }

    fn put(&mut self, key: Key, drawn: Drawn) {
        self.tick += 1;
        self.bytes += drawn.bytes.len();
        if let Some((old, _)) = self.entries.insert(key, (drawn, self.tick)) {
            self.bytes -= old.bytes.len();
        }
        while self.bytes > CACHE_BYTES {
            let Some(oldest) = self
                .entries
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some((gone, _)) = self.entries.remove(&oldest) {
                self.bytes -= gone.bytes.len();
            }
        }
    }
}

/// The drawing's shared state: the cache, the threads, their permits and who draws now.
#[derive(Debug)]
pub struct Images {
    cache: Mutex<Cache>,
    threads: Threads,
    /// One a thread: a picture waits here, not in the threads' queue, so that one whose
    /// request has gone is never drawn.
    permits: Semaphore,
    drawing: Mutex<HashMap<IpAddr, u32>>,
}

impl Default for Images {
    fn default() -> Images {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = (cores / 2).max(1);
        Images {
            cache: Mutex::new(Cache::default()),
            threads: Threads::start("merels-draw", threads),
            permits: Semaphore::new(threads),
            drawing: Mutex::new(HashMap::new()),
        }
    }
}

/// One address's place among those drawing; dropping it frees the place.
struct Drawing<'a> {
    images: &'a Images,
    ip: IpAddr,
}

impl Drop for Drawing<'_> {
    fn drop(&mut self) {
        let mut map = self
            .images
            .drawing
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(n) = map.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.ip);
            }
        }
    }
}

impl Images {
    /// The picture under `key`, from the cache or drawn by `draw` on a blocking thread.
    async fn picture(
        &self,
        key: Key,
        ip: IpAddr,
        draw: impl FnOnce() -> Result<Vec<u8>, crate::picture::PictureError> + Send + 'static,
    ) -> Result<Drawn, ApiError> {
        let cached = self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key);
        if let Some(drawn) = cached {
            return Ok(drawn);
        }
        let _place = {
            let mut map = self.drawing.lock().unwrap_or_else(|e| e.into_inner());
            let n = map.entry(ip).or_insert(0);
            if *n >= PER_ADDRESS {
                return Err(ApiError::new(
                    ErrorCode::RateLimited,
                    format!("at most {PER_ADDRESS} pictures are drawn at once for one address"),
                ));
            }
            *n += 1;
            Drawing { images: self, ip }
        };
        let _permit =
            self.permits.acquire().await.map_err(|_| {
                ApiError::new(ErrorCode::Unavailable, "the server is shutting down")
            })?;
        let bytes = self
            .threads
            .run(draw)
            .await
            .map_err(|_| "the drawing panicked".to_string())
            .and_then(|drawn| drawn.map_err(|e| e.to_string()))
            .map_err(|e| {
                tracing::error!(error = %e, "a picture could not be drawn");
                ApiError::new(ErrorCode::Internal, "the picture could not be drawn")
            })?;
        let digest = <sha2::Sha256 as sha2::Digest>::digest(&bytes);
        let drawn = Drawn {
            etag: format!("\"{}\"", hex::encode(&digest[..16])),
            bytes: Bytes::from(bytes),
        };
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .put(key, drawn.clone());
        Ok(drawn)
    }
}

/// The look a query asks for: `?flip=1`, `?theme=light|dark`.
pub(super) fn look(query: &HashMap<String, String>) -> Result<Look, ApiError> {
    let flipped = match query.get("flip").map(String::as_str) {
        None | Some("0" | "false" | "") => false,
        Some("1" | "true") => true,
        Some(other) => {
            return Err(ApiError::new(
                ErrorCode::Malformed,
                format!("?flip= takes 1 or 0, not '{}'", short(other)),
            ));
        }
    };
    let theme = match query.get("theme") {
        None => Theme::Light,
        Some(word) => Theme::parse(word).ok_or_else(|| {
            ApiError::new(
                ErrorCode::Malformed,
                format!("unknown theme '{}': light or dark", short(word)),
            )
        })?,
    };
    Ok(Look { flipped, theme })
}

/// A query's value, cut short for an error message.
fn short(s: &str) -> String {
    s.chars().take(20).collect()
}

/// The ply a query asks for (`?ply=N`: the position after N turns, 0 the start), if it names
/// one: a number, and no more than the game's turns.
pub(super) fn ply(
    query: &HashMap<String, String>,
    state: &GameState,
) -> Result<Option<usize>, ApiError> {
    let Some(n) = query.get("ply") else {
        return Ok(None);
    };
    let n = n
        .parse::<usize>()
        .map_err(|_| ApiError::new(ErrorCode::Malformed, "?ply= takes a number of turns"))?;
    match n <= state.turns.len() {
        true => Ok(Some(n)),
        false => Err(past(state, n)),
    }
}

/// The answer to a ply past the last of `state`.
fn past(state: &GameState, ply: usize) -> ApiError {
    let plies = state.turns.len();
    ApiError::new(
        ErrorCode::NotFound,
        format!("the game has {plies} turns: no position after {ply}"),
    )
}

/// A game's state and board geometry.
pub(super) async fn game(app: &AppState, id: &str) -> Result<(GameState, Geometry), ApiError> {
    let state = app.rooms.state(id).await?;
    let variant = app
        .rooms
        .catalog()
        .configure(&state.variant, &state.options)
        .map_err(|e| ApiError::from(RoomError::BadVariant(e.to_string())))?;
    let geometry = Geometry::of(variant.board());
    Ok((state, geometry))
}

/// The answer with a picture: 304 when the client holds it already.
fn answer(
    drawn: Drawn,
    content_type: &'static str,
    immutable: bool,
    headers: &HeaderMap,
) -> Response {
    let cache = if immutable { IMMUTABLE } else { LIVE };
    let held = headers
        .get(IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|tag| tag.trim() == drawn.etag));
    let head = [(ETAG, drawn.etag), (CACHE_CONTROL, cache.to_string())];
    if held {
        return (StatusCode::NOT_MODIFIED, head).into_response();
    }
    (head, [(CONTENT_TYPE, content_type)], drawn.bytes).into_response()
}

/// `GET /g/{id}/image.png`: the position after `?ply=N` turns (0: the start; by default the
/// position now), `?flip=1` from Black's side, `?theme=dark`.
pub async fn position(
    State(app): State<AppState>,
    ClientIp(ip): ClientIp,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let look = look(&query)?;
    let (state, geometry) = game(&app, &id).await?;
    let ply = ply(&query, &state)?.unwrap_or(state.turns.len());
    let view = View::at(&state, &geometry, ply).ok_or_else(|| past(&state, ply))?;
    let finished = state.now.status == Status::Finished;
    let key = (Kind::Position(ply), id, state.now.version, look);
    let drawn = app
        .images
        .picture(key, ip, move || {
            crate::picture::position_png(&geometry, &view, look)
        })
        .await?;
    Ok(answer(drawn, "image/png", finished, &headers))
}

/// `GET /g/{id}/preview.png`: the link preview's picture, the board now with the invitation or
/// the result beside it ([`preview_text`]).
pub async fn preview(
    State(app): State<AppState>,
    ClientIp(ip): ClientIp,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let look = look(&query)?;
    let (state, geometry) = game(&app, &id).await?;
    // One picture for every reader (its address names no language, and caches keep it): the
    // fallback's words.
    let (title, text) = preview_text(&app, &state, crate::i18n::fallback());
    let view = View::at(&state, &geometry, state.turns.len()).unwrap_or_default();
    let finished = state.now.status == Status::Finished;
    let key = (Kind::Preview, id, state.now.version, look);
    let drawn = app
        .images
        .picture(key, ip, move || {
            crate::picture::preview_png(&geometry, &view, look, &title, &text, FOOTER)
        })
        .await?;
    Ok(answer(drawn, "image/png", finished, &headers))
}

/// The line under a preview's words.
const FOOTER: &str = "Play mill games with a friend: no sign-up.";

/// `GET /g/{id}/game.gif`: the game so far as an animated GIF, a frame per turn and the start;
/// a finished game's is made once and kept (in the cache, while it is asked for).
pub async fn gif(
    State(app): State<AppState>,
    ClientIp(ip): ClientIp,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let look = look(&query)?;
    let (state, geometry) = game(&app, &id).await?;
    let finished = state.now.status == Status::Finished;
    let key = (Kind::Gif, id, state.now.version, look);
    let drawn = app
        .images
        .picture(key, ip, move || {
            crate::picture::game_gif(&state, &geometry, look)
        })
        .await?;
    Ok(answer(drawn, "image/gif", finished, &headers))
}

/// `GET /variants/{slug}/image.png`: the variant's board, empty, with its default options.
pub async fn variant(
    State(app): State<AppState>,
    ClientIp(ip): ClientIp,
    Path(slug): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let look = look(&query)?;
    let variant = app
        .rooms
        .catalog()
        .configure(&slug, &BTreeMap::new())
        .map_err(|e| ApiError::new(ErrorCode::NotFound, e.to_string()))?;
    let geometry = Geometry::of(variant.board());
    let key = (Kind::Variant(slug), String::new(), 0, look);
    let drawn = app
        .images
        .picture(key, ip, move || {
            crate::picture::position_png(&geometry, &View::default(), look)
        })
        .await?;
    Ok(answer(drawn, "image/png", true, &headers))
}

/// A game's link preview in words: its title (the variant's name) and a sentence for its state:
/// an invitation while a seat waits, the turn while it is played, the result and how once over.
/// In `lang`, but for the variants' names and options and the server's words of a result.
pub fn preview_text(app: &AppState, state: &GameState, lang: Lang) -> (String, String) {
    let info = app.rooms.catalog().get(&state.variant).ok();
    let title = super::pages::title_of(app, state);
    let clock = match state.now.time_control.is_timed() {
        true => state.now.time_control.words(),
        false => lang.t("preview-untimed"),
    };
    let rules = info
        .map(|i| super::html::options_in_words(i, &state.options))
        .filter(|words| !words.is_empty())
        .map(|words| format!(" {}.", words.replace(" · ", ". ")))
        .unwrap_or_default();
    let mut args = FluentArgs::new();
    args.set("variant", title.as_str());
    args.set("clock", clock);
    let key = match state.now.status {
        Status::Waiting => {
            let host = if state.now.seats.white.taken {
                "white"
            } else {
                "black"
            };
            args.set("side", host);
            "preview-invite"
        }
        Status::Playing => {
            args.set("turn", state.turns.len() + 1);
            "preview-playing"
        }
        Status::Finished => {
            let how = match state.now.summary.as_deref() {
                Some(how) => how.to_string(),
                None => lang.t("preview-over"),
            };
            args.set("how", how);
            args.set("count", state.turns.len());
            "preview-finished"
        }
    };
    let mut text = lang.format(key, Some(&args));
    if state.now.status == Status::Waiting {
        text.push_str(&rules);
    }
    (title, text)
}
