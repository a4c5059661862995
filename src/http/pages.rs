//! Server-rendered pages: the home page (a few one-click starts, then one flow to set up a game
//! of any variant), the game page (a shell that the thin client in `static/` brings to life),
//! its analysis, and its embed for other sites' pages. Pages read without JavaScript.

use super::browser::{BrowserId, hold_seat};
use super::error::ApiError;
use super::html::{
    DEFAULT_LEVEL, Message, Play, Preview, Start, board_svg, clock_words, escape, form_options,
    layout, layout_with, level_words, options_in_words, render, script_json,
};
use super::lang::Reader;
use super::limits::ClientIp;
use super::variants::STANDARD;
use super::{AppState, base_url, presented_secret, seat_cookies};
use crate::catalog::VariantInfo;
use crate::clock::TimeControl;
use crate::i18n::Lang;
use crate::rooms::{ColorChoice, RoomError};
use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::header::{CACHE_CONTROL, LOCATION};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use std::collections::{BTreeMap, HashMap};

/// The home page (`static/home.html`): a few one-click starts, then one flow (the variant, its
/// options, time, colour, then whom to play), beside the open challenges and live games.
#[derive(askama::Template)]
#[template(path = "home.html")]
struct Home<'a> {
    lang: Lang,
    quick: Vec<Quick<'a>>,
    variants: Vec<Card<'a>>,
    play: Play,
    challenges: Vec<Challenge>,
    live: Vec<Live>,
    /// The words of the button that opens a challenge, which the empty list points to.
    open_words: String,
}

/// A one-click start: the commonest choices, sent as a form of hidden fields.
struct Quick<'a> {
    slug: &'a str,
    clock: TimeControl,
    start: Start,
    /// The computer's level, for a game against it.
    level: Option<u8>,
    /// What else the button does, in words: `Nine Men's Morris · 5 min + 3 s`.
    detail: String,
}

/// The quick starts on the standard game: whom against, and the time control. Then one more: the
/// computer on the catalog's first (smallest, quickest) variant.
const QUICK: [(Start, TimeControl); 3] = [
    (Start::Friend, TimeControl::Untimed),
    (Start::Open, TimeControl::fischer(5, 3)),
    (Start::Computer, TimeControl::Untimed),
];

/// A game waiting for anyone to take its seat, as the home page lists it and
/// `GET /api/challenges` answers (the same value).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Challenge {
    /// The game's id.
    id: String,
    /// The variant with its table options, in words.
    name: String,
    /// The time control, in words.
    time: String,
    /// The side of the player waiting: `white` or `black`.
    waiting: &'static str,
    /// The waiting player's name, if given (the template escapes it).
    player: Option<String>,
    /// How long it has waited, in whole seconds.
    waited_secs: i64,
}

impl Challenge {
    /// The waiting side's message.
    fn side(&self) -> &'static str {
        if self.waiting == "white" {
            "white"
        } else {
            "black"
        }
    }

    /// How long it has waited, in words: `12 s`, `3 min`, `1 h`.
    fn waited(&self) -> String {
        match self.waited_secs {
            s if s < 60 => format!("{s} s"),
            s if s < 3600 => format!("{} min", s / 60),
            s => format!("{} h", s / 3600),
        }
    }
}

/// The open challenges listed now (their creators are there), newest first.
pub async fn open_challenges(app: &AppState) -> Vec<Challenge> {
    let catalog = app.rooms.catalog();
    let listed = app.rooms.open_challenges(20).await;
    listed
        .unwrap_or_default()
        .into_iter()
        .map(|(c, waited_ms)| Challenge {
            name: named(catalog, &c.variant, &c.options),
            time: crate::clock::TimeControl::parse(&c.time_control)
                .map_or_else(|_| c.time_control.clone(), |t| t.words()),
            waiting: c.waiting,
            player: c.name,
            waited_secs: waited_ms / 1000,
            id: c.id,
        })
        .collect()
}

/// A variant in the home page's flow: its board, its words and its own options.
struct Card<'a> {
    slug: &'a str,
    title: &'a str,
    summary: &'a str,
    /// Markup: the board as SVG.
    thumbnail: String,
    options: &'a [crate::rules::variant::TableOption],
    /// Whether the flow starts with this variant chosen (the standard game).
    chosen: bool,
}

/// A game being played now.
struct Live {
    id: String,
    name: String,
    plies: i64,
    /// The players' names where given, else their colours (the template escapes them).
    players: [String; 2],
}

/// `GET /`: the quick starts, the flow with every variant (a thumbnail of its board, a link to
/// its rules, its options), the open challenges, and the games being played now, which anyone
/// can watch. It reads and works without JavaScript: the chosen variant's options are shown by
/// CSS alone.
pub async fn home(State(app): State<AppState>, reader: Reader) -> Response {
    let lang = reader.lang;
    let catalog = app.rooms.catalog();
    // Games anyone may join: a visitor without a friend at hand finds one here.
    let challenges = open_challenges(&app).await;
    let standard = catalog
        .get(STANDARD)
        .ok()
        .or_else(|| catalog.variants().first());
    let variants = catalog
        .variants()
        .iter()
        .map(|info| Card {
            slug: info.slug(),
            title: &info.title,
            summary: &info.summary,
            thumbnail: info
                .spec
                .configure(&BTreeMap::new())
                .map(|v| {
                    board_svg(
                        v.board(),
                        &lang.t1("board-of", "variant", info.title.as_str()),
                    )
                })
                .unwrap_or_default(),
            options: &info.spec.options,
            chosen: standard.is_some_and(|s| s.slug() == info.slug()),
        })
        .collect();
    let live = app.rooms.store().live_games(20).await;
    let live = live
        .unwrap_or_default()
        .into_iter()
        .map(|g| {
            let [white, black] = g.names;
            Live {
                name: named(catalog, &g.variant, &g.options),
                players: [
                    white.unwrap_or_else(|| lang.t("white")),
                    black.unwrap_or_else(|| lang.t("black")),
                ],
                id: g.id,
                plies: g.plies,
            }
        })
        .collect();
    let main = render(&Home {
        lang,
        quick: quick_starts(lang, standard, catalog.variants().first()),
        variants,
        play: Play::new(lang),
        challenges,
        live,
        open_words: Start::Open.words(lang),
    });
    // Its script fills in the games waiting on this browser, near the top.
    layout(&reader, &lang.t("home-title"), &main, Some("my-turns.js"))
}

/// The quick starts: [`QUICK`] on `standard`, and the computer on `first` (when another).
fn quick_starts<'a>(
    lang: Lang,
    standard: Option<&'a VariantInfo>,
    first: Option<&'a VariantInfo>,
) -> Vec<Quick<'a>> {
    let on_first = first
        .filter(|f| standard.is_none_or(|s| s.slug() != f.slug()))
        .map(|f| (f, Start::Computer, TimeControl::Untimed));
    let on_standard = standard
        .into_iter()
        .flat_map(|s| QUICK.map(|(start, clock)| (s, start, clock)));
    on_standard
        .chain(on_first)
        .map(|(info, start, clock)| {
            let level = start.is_computer().then_some(DEFAULT_LEVEL);
            let against = match level.and_then(crate::engine::Level::new) {
                Some(level) => lang.t1("quick-level", "level", level_words(lang, level)),
                None => clock_words(lang, clock),
            };
            Quick {
                slug: info.slug(),
                clock,
                start,
                level,
                detail: format!("{} · {against}", info.title),
            }
        })
        .collect()
}

/// A stored game's variant and table options as the home page lists them: `Three Men's Morris
/// (Diagonals: On · Movement: To a neighbouring point)`.
fn named(catalog: &crate::catalog::Catalog, slug: &str, options: &str) -> String {
    let Ok(info) = catalog.get(slug) else {
        return slug.to_string();
    };
    let chosen = crate::catalog::parse_options(options).unwrap_or_default();
    match options_in_words(info, &chosen) {
        words if words.is_empty() => info.title.clone(),
        words => format!("{} ({words})", info.title),
    }
}

/// `POST /games` (the setup forms): creates a game and takes the creator to it, seated. Fields:
/// `variant`; its options ([`form_options`]); `clock` (a time control, or `custom` with
/// `clock_minutes` and `clock_increment`); `color`; `opponent` ([`Start`]) and, for the
/// computer, `level`.
pub async fn create(
    State(app): State<AppState>,
    ClientIp(from): ClientIp,
    browser: BrowserId,
    reader: Reader,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    // A form gets a page, not the API's JSON, when its game cannot be made.
    let lang = reader.lang;
    create_from_form(app, from, browser, form)
        .await
        .unwrap_or_else(|e| {
            let back = ("/".into(), lang.t("back-to-games"));
            error_page(&reader, &lang.t("error-not-created"), e, back)
        })
}

/// A page saying why a page's request was refused, with the status the API would answer, and
/// `back` (a link) to go on from.
fn error_page(reader: &Reader, heading: &str, e: ApiError, back: (String, String)) -> Response {
    let message = Message {
        heading,
        message: &e.message,
        back: (back.0, &back.1),
    };
    message.page(reader, ApiError::status(e.code))
}

async fn create_from_form(
    app: AppState,
    from: std::net::IpAddr,
    browser: BrowserId,
    form: HashMap<String, String>,
) -> Result<Response, ApiError> {
    let variant = form.get("variant").map(String::as_str).unwrap_or_default();
    let color = match form.get("color").map(String::as_str) {
        Some("white") => ColorChoice::White,
        Some("black") => ColorChoice::Black,
        _ => ColorChoice::Random,
    };
    let options = form_options(&form, variant);
    let clock = match form.get("clock").map(String::as_str) {
        Some("custom") => {
            let field = |k: &str| form.get(k).map_or("", |v| v.trim());
            format!("{}+{}", field("clock_minutes"), field("clock_increment"))
        }
        other => other.unwrap_or_default().to_string(),
    };
    let clock = super::api::time_control(Some(&clock))?;
    // No opponent is a friend, as before the forms offered a choice; a wrong one is refused.
    let start = match form.get("opponent") {
        None => Start::Friend,
        Some(value) => Start::from_value(value).ok_or_else(|| {
            let why = format!("no opponent {value:?}: friend, open or computer");
            ApiError::new(crate::protocol::ErrorCode::BadVariant, why)
        })?,
    };
    let opponent = match start {
        Start::Computer => {
            let level = form.get("level").and_then(|l| l.parse().ok()).unwrap_or(0);
            super::api::opponent(Some(level), false)?
        }
        Start::Open => super::api::opponent(None, true)?,
        Start::Friend => super::api::opponent(None, false)?,
    };
    // The name the browser remembers, which the page puts in the form.
    let name = form
        .get("name")
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
        .map(super::api::player_name)
        .transpose()?;
    let grant = app
        .rooms
        .create(from, variant, &options, clock, color, opponent, name)
        .await?;
    hold_seat(&app, &browser, &grant.id, grant.color).await;
    Ok((
        StatusCode::SEE_OTHER,
        [(LOCATION, format!("/g/{}", grant.id))],
        seat_cookies(&app.config, &grant.id, &grant.secret),
    )
        .into_response())
}

/// The My games page (`static/mine.html`, filled by `static/mine.js` from `GET /api/my-games`).
#[derive(askama::Template)]
#[template(path = "mine.html")]
struct MinePage {
    lang: Lang,
}

/// `GET /my-games`: this browser's games. The page is the same for everyone (in a language);
/// its script asks for the list, which the browser's cookie chooses.
pub async fn my_games(reader: Reader) -> Response {
    let lang = reader.lang;
    let title = lang.t1("title-page", "page", lang.t("my-games"));
    layout(
        &reader,
        &title,
        &render(&MinePage { lang }),
        Some("mine.js"),
    )
}

/// The game page (`static/game.html`, beside `static/game.js`, which uses its ids).
#[derive(askama::Template)]
#[template(path = "game.html")]
struct GamePage<'a> {
    lang: Lang,
    id: &'a str,
    status: &'static str,
    title: &'a str,
    you: String,
    slug: &'a str,
    /// The table's options in words; empty for a variant without any.
    rules: String,
    control: String,
    position: &'a str,
    share: String,
    /// The markup that embeds the game in another site's page ([`embed_snippet`]).
    embed: String,
    /// Markup: the share link as a QR code.
    share_qr: String,
    handoff_minutes: u64,
    /// The page presents this game's seat cookie, whose secret holds no seat any more: the seat
    /// was moved to another device.
    moved: bool,
    /// The turns so far, by pairs (white's and black's).
    turns: Vec<&'a [compact_str::CompactString]>,
    over: bool,
    chat_max: usize,
    /// This instance's own address for the game's socket, if it has one (it runs the game).
    socket: Option<String>,
}

/// `GET /g/{id}`: the game page. A "continue on another device" link is this page with the
/// code in its fragment (`#code=CODE`), which the server never sees: the page's script redeems
/// it (`POST /api/games/{id}/handoff/take`).
pub async fn game(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    reader: Reader,
) -> Response {
    let lang = reader.lang;
    let state = match app.rooms.state(&id).await {
        Ok(state) => state,
        Err(RoomError::NotFound) => return not_found(&reader),
        Err(e) => return ApiError::from(e).into_response(),
    };
    let presented = presented_secret(&headers, &id);
    let kept = presented.is_some();
    let seat = app.rooms.seat_of(&id, presented).await.ok().flatten();
    // The holder's browser is recorded as it comes to its seat, however the seat came to it
    // (a rematch, an older game): "My games" lists what this browser holds.
    if let (Some(color), Some(browser)) = (seat, BrowserId::of(&headers)) {
        hold_seat(&app, &browser, &id, color).await;
    }
    // A seat's secret never changes but by a hand-off that moves the seat.
    let moved = kept && seat.is_none();
    let info = app.rooms.catalog().get(&state.variant).ok();
    let title = title_of(&app, &state);
    // The rules in force: the variant's page, and the options this table chose.
    let rules = info.map_or_else(String::new, |i| options_in_words(i, &state.options));
    let base = base_url(&app.config, &headers);
    let share = format!("{base}/g/{id}");
    let (_, description) = super::images::preview_text(&app, &state, lang);
    let preview = Preview {
        image: format!("{share}/preview.png?v={}", state.now.version),
        image_alt: lang.t2(
            "preview-alt",
            ("variant", title.as_str()),
            ("count", state.turns.len()),
        ),
        size: crate::picture::PREVIEW_SIZE,
        url: share.clone(),
        description,
    };
    let page = GamePage {
        lang,
        status: state.now.status.as_str(),
        you: match seat {
            Some(c) => lang.t1("you-play", "side", c.name()),
            None => lang.t("you-watch"),
        },
        slug: &state.variant,
        rules,
        control: if state.now.time_control.is_timed() {
            lang.t1("time-control", "clock", state.now.time_control.words())
        } else {
            clock_words(lang, state.now.time_control)
        },
        position: &state.now.position,
        share_qr: super::html::qr_svg(&share, &lang.t("share-qr-label")),
        share,
        embed: embed_snippet(lang, &base, &id, &title),
        handoff_minutes: app.config.handoff_secs.div_ceil(60),
        moved,
        turns: state.turns.chunks(2).collect(),
        // A link to the analysis only once there is something to analyse (the page adds it
        // when the game ends while open).
        over: state.now.status == crate::protocol::Status::Finished && !state.turns.is_empty(),
        chat_max: crate::protocol::CHAT_MAX_CHARS,
        socket: super::forward::own_socket(&app.config, &id),
        id: &id,
        title: &title,
    };
    let main = render(&page);
    // Private: the page says who the visitor is, and its links are built from the request (its
    // Host, without a public URL), so no shared cache may hand it to anyone else.
    (
        [(CACHE_CONTROL, "private, no-cache")],
        layout_with(
            &reader,
            &lang.t1("title-page", "page", title.as_str()),
            &main,
            Some("game.js"),
            Some(&preview),
        ),
    )
        .into_response()
}

fn not_found(reader: &Reader) -> Response {
    let lang = reader.lang;
    let back = lang.t("start-new-game");
    let message = Message {
        heading: &lang.t("no-such-game"),
        message: &lang.t("no-such-game-why"),
        back: ("/".into(), &back),
    };
    message.page(reader, StatusCode::NOT_FOUND)
}

/// `GET /g/{id}/rematch`: goes to the game's rematch. A player of this game (by the cookie this
/// game's pages carry) is seated there, by the same secret, with the rematch's cookie set; anyone
/// else watches it. Before there is a rematch, back to the game.
pub async fn rematch(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    reader: Reader,
) -> Response {
    let state = match app.rooms.state(&id).await {
        Ok(state) => state,
        Err(RoomError::NotFound) => return not_found(&reader),
        Err(e) => return ApiError::from(e).into_response(),
    };
    let Some(next) = state.now.rematch.clone() else {
        return (StatusCode::SEE_OTHER, [(LOCATION, format!("/g/{id}"))]).into_response();
    };
    let go = [(LOCATION, format!("/g/{next}"))];
    let secret = presented_secret(&headers, &id);
    match (app.rooms.seat_of(&next, secret.clone()).await, secret) {
        (Ok(Some(color)), Some(secret)) => {
            if let Some(browser) = BrowserId::of(&headers) {
                hold_seat(&app, &browser, &next, color).await;
            }
            (
                StatusCode::SEE_OTHER,
                go,
                seat_cookies(&app.config, &next, &secret),
            )
                .into_response()
        }
        _ => (StatusCode::SEE_OTHER, go).into_response(),
    }
}

/// The markup that shows game `id` live in another site's page: its embed in a frame sized for
/// a board with a player above and one below, titled for screen readers.
fn embed_snippet(lang: Lang, base: &str, id: &str, title: &str) -> String {
    format!(
        "<iframe src=\"{base}/embed/{id}\" width=\"400\" height=\"480\" title=\"{}\" \
         style=\"border:0\" loading=\"lazy\"></iframe>",
        escape(&lang.t1("embed-title", "variant", title)),
    )
}

/// The title of a game's variant; its slug should the catalog not know it.
pub(super) fn title_of(app: &AppState, state: &crate::protocol::GameState) -> String {
    app.rooms
        .catalog()
        .get(&state.variant)
        .map_or_else(|_| state.variant.to_string(), |v| v.title.clone())
}

/// The analysis page (`static/analysis.html`, beside `static/analysis.js`).
#[derive(askama::Template)]
#[template(path = "analysis.html")]
struct AnalysisPage<'a> {
    lang: Lang,
    id: &'a str,
    title: &'a str,
    /// The markup that embeds the game ([`embed_snippet`]).
    embed: String,
    kind: String,
    rows: Vec<Row<'a>>,
    /// JSON for the script, with `</` escaped (in a script element only that could end it).
    data: String,
}

/// One turn of the analysis table.
struct Row<'a> {
    ply: usize,
    side: String,
    turn: &'a str,
    value: String,
    best: String,
    played: String,
    mark: &'a str,
}

/// `GET /g/{id}/analysis`: the engine's judgement of a finished game. Without JavaScript, a table
/// with a row a turn, the turns that threw a result away marked; `analysis.js` adds the board,
/// stepped through the game, with the best turn of each position drawn on it.
pub async fn analysis(
    State(app): State<AppState>,
    ClientIp(from): ClientIp,
    Path(id): Path<String>,
    headers: HeaderMap,
    reader: Reader,
) -> Response {
    let lang = reader.lang;
    let judged = async {
        let analysis = app
            .rooms
            .analysis(from, &id, super::api::ANALYSIS_TIME)
            .await?;
        let state = app.rooms.state(&id).await?;
        let variant = app
            .rooms
            .catalog()
            .configure(&state.variant, &state.options)
            .map_err(|e| RoomError::BadVariant(e.to_string()))?;
        Ok::<_, RoomError>((analysis, state, variant))
    };
    let (analysis, state, variant) = match judged.await {
        Ok(judged) => judged,
        Err(RoomError::NotFound) => return not_found(&reader),
        Err(e) => {
            let back = (format!("/g/{id}"), lang.t("back-to-game"));
            return error_page(&reader, &lang.t("analysis"), ApiError::from(e), back);
        }
    };
    let kind = lang.t(if analysis.exact {
        "analysis-exact"
    } else if analysis.table_missing {
        "analysis-search-no-table"
    } else {
        "analysis-search"
    });
    let rows = analysis
        .turns
        .iter()
        .map(|t| {
            let cell =
                |v: Option<&str>| v.map_or_else(|| lang.t("analysis-not-reached"), str::to_string);
            Row {
                ply: t.ply + 1,
                side: lang.t(t.side.name()),
                turn: &t.turn,
                value: cell(t.value.as_deref()),
                best: cell(t.best.as_ref().map(|b| b.turn.as_str())),
                played: cell(t.played.as_deref()),
                mark: t.mark.as_deref().unwrap_or_default(),
            }
        })
        .collect();
    // What the board needs, in the page: nothing to fetch, and the same analysis as the table.
    let data = script_json(&serde_json::json!({
        "board": crate::protocol::Geometry::of(variant.board()),
        "boards": state.boards,
        "turns": analysis.turns,
    }));
    let title = title_of(&app, &state);
    let main = render(&AnalysisPage {
        lang,
        embed: embed_snippet(lang, &base_url(&app.config, &headers), &id, &title),
        id: &id,
        title: &title,
        kind,
        rows,
        data,
    });
    let page_title = lang.t1("title-page", "page", lang.t("analysis"));
    layout(&reader, &page_title, &main, Some("analysis.js"))
}

/// The embed (`static/embed.html`, beside `static/embed.js`): a document of its own, without the
/// site's header and footer, that fills its frame.
#[derive(askama::Template)]
#[template(path = "embed.html")]
struct EmbedPage<'a> {
    lang: Lang,
    id: &'a str,
    title: &'a str,
    /// The game's page, absolute: the embed links to it.
    link: String,
    /// The `media` of the dark stylesheet; none for the light theme.
    dark: Option<&'static str>,
    flipped: bool,
    /// The side drawn at the top of the board, and at the bottom: each its value and its name.
    top: (&'static str, String),
    bottom: (&'static str, String),
    /// The picture of the position shown, for a browser without JavaScript.
    picture: String,
    /// This instance's own address for the game's socket, if it has one (it runs the game).
    socket: Option<String>,
    /// With `?ply=N`: the game, its board and the ply, JSON for the script, which then shows
    /// that position and opens no socket.
    still: Option<String>,
}

/// `GET /embed/{id}`: the game in another site's page, in a frame any site may open: the
/// board, the players and the clocks, kept live over the game's socket as a spectator's
/// (`?watch=1`, whatever seat the browser holds); with `?ply=N`, the position after N turns,
/// unmoving. `?theme=light|dark` (by default the system's) and `?flip=1` as for pictures. It
/// sets no cookie and reads none.
pub async fn embed(
    State(app): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    reader: Reader,
) -> Response {
    let lang = reader.lang;
    let (state, geometry) = match super::images::game(&app, &id).await {
        Ok(game) => game,
        Err(e) if e.code == crate::protocol::ErrorCode::NotFound => return not_found(&reader),
        Err(e) => return e.into_response(),
    };
    let asked = super::images::look(&query)
        .and_then(|look| Ok((look, super::images::ply(&query, &state)?)));
    let (look, ply) = match asked {
        Ok(asked) => asked,
        Err(e) => {
            let back = (format!("/g/{id}"), lang.t("embed-back"));
            return error_page(&reader, &lang.t("embed-refused"), e, back);
        }
    };
    let theme = query.contains_key("theme").then_some(look.theme);
    let mut picture = format!("/g/{id}/image.png?theme={}", look.theme.as_str());
    if let Some(ply) = ply {
        picture.push_str(&format!("&ply={ply}"));
    }
    if look.flipped {
        picture.push_str("&flip=1");
    }
    let title = title_of(&app, &state);
    let side = |color: &'static str| (color, lang.t(color));
    let page = EmbedPage {
        lang,
        id: &id,
        title: &title,
        link: format!("{}/g/{id}", base_url(&app.config, &headers)),
        dark: match theme {
            None => Some("(prefers-color-scheme: dark)"),
            Some(crate::picture::Theme::Dark) => Some("all"),
            Some(crate::picture::Theme::Light) => None,
        },
        flipped: look.flipped,
        top: side(if look.flipped { "white" } else { "black" }),
        bottom: side(if look.flipped { "black" } else { "white" }),
        picture,
        socket: super::forward::own_socket(&app.config, &id),
        still: ply.map(|ply| {
            script_json(&serde_json::json!({"board": geometry, "state": state, "ply": ply}))
        }),
    };
    // The same for everyone (no seat, no cookie); its links are built from the request's Host
    // without a public URL, which a cache keys on with the rest of the address.
    ([(CACHE_CONTROL, "no-cache")], Html(render(&page))).into_response()
}
