//! Server-rendered pages: the home page with a table setup for every variant, and the game page
//! (a shell that the thin client in `static/` brings to life). Pages read without JavaScript.

use super::error::ApiError;
use super::html::{board_svg, escape, layout, options_in_words, setup_form};
use super::limits::ClientIp;
use super::{AppState, base_url, presented_secret, seat_cookies};
use crate::rooms::{ColorChoice, RoomError};
use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, LOCATION};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

/// `GET /`: every variant with a thumbnail of its board and its table setup, and the games being
/// played now, which anyone can watch.
pub async fn home(State(app): State<AppState>) -> Html<String> {
    let catalog = app.rooms.catalog();
    let mut main = String::from(
        "<main class=\"home\">\n<h1>Play mill games with a friend</h1>\n\
         <p class=\"lead\">Pick a game and its rules, then send the link. Whoever opens it first \
         may take the seat across from you, or just watch; everyone after watches live. No sign-up.</p>\n",
    );
    // Games anyone may join: a visitor without a friend at hand finds one here.
    main.push_str("<section class=\"challenges\" id=\"challenges\">\n<h2>Open challenges</h2>\n");
    match app.rooms.store().open_challenges(20).await {
        Ok(open) if !open.is_empty() => {
            main.push_str("<ul class=\"open-challenges\">");
            for c in open {
                let time = crate::clock::TimeControl::parse(&c.time_control)
                    .map_or_else(|_| c.time_control.clone(), |t| t.words());
                let _ = write!(
                    main,
                    "<li><a href=\"/g/{}\">{}</a>, {}: {} is waiting</li>",
                    escape(&c.id),
                    named(catalog, &c.variant, &c.options),
                    escape(&time),
                    if c.waiting == "white" {
                        "White"
                    } else {
                        "Black"
                    },
                );
            }
            main.push_str("</ul>\n");
        }
        _ => main.push_str(
            "<p>None right now: start one below with \"Let anyone take the seat\".</p>\n",
        ),
    }
    main.push_str("</section>\n<section class=\"variants\">\n");
    for info in catalog.variants() {
        let slug = escape(info.slug());
        let thumbnail = info
            .spec
            .configure(&BTreeMap::new())
            .map(|v| board_svg(v.board(), &format!("{} board", info.title)))
            .unwrap_or_default();
        let _ = write!(
            main,
            "<article class=\"variant\" id=\"v-{slug}\">\n\
             <a class=\"thumb\" href=\"/variants/{slug}\" tabindex=\"-1\">{thumbnail}</a>\n\
             <h2><a href=\"/variants/{slug}\">{}</a></h2>\n<p>{}</p>\n{}</article>\n",
            escape(&info.title),
            escape(&info.summary),
            setup_form(info),
        );
    }
    main.push_str("</section>\n<section class=\"live\">\n<h2>Being played now</h2>\n");
    match app.rooms.store().live_games(20).await {
        Ok(games) if !games.is_empty() => {
            main.push_str("<ul class=\"live-games\">");
            for (id, variant, options, plies) in games {
                let _ = write!(
                    main,
                    "<li><a href=\"/g/{}\">{}</a>, {plies} turn{} so far</li>",
                    escape(&id),
                    named(catalog, &variant, &options),
                    if plies == 1 { "" } else { "s" }
                );
            }
            main.push_str("</ul>\n");
        }
        _ => main.push_str("<p>No game right now: start one above.</p>\n"),
    }
    main.push_str("</section>\n</main>");
    layout("merels · play mill games with a friend", &main, None)
}

/// A stored game's variant and table options as the home page lists them, escaped: `Three
/// Men&#39;s Morris (Diagonals: On · Movement: To a neighbouring point)`.
fn named(catalog: &crate::catalog::Catalog, slug: &str, options: &str) -> String {
    let Ok(info) = catalog.get(slug) else {
        return escape(slug);
    };
    let chosen = crate::catalog::parse_options(options).unwrap_or_default();
    match options_in_words(info, &chosen) {
        words if words.is_empty() => escape(&info.title),
        words => format!("{} ({words})", escape(&info.title)),
    }
}

/// `POST /games` (the home page's forms): creates a game and takes the creator to it, seated.
pub async fn create(
    State(app): State<AppState>,
    ClientIp(from): ClientIp,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    // A form gets a page, not the API's JSON, when its game cannot be made.
    create_from_form(app, from, form).await.unwrap_or_else(|e| {
        error_page(
            "The game was not created",
            e,
            "<a href=\"/\">Back to the games</a>",
        )
    })
}

/// A page saying why a page's request was refused, with the status the API would answer, and
/// `back` (a link) to go on from.
fn error_page(title: &str, e: ApiError, back: &str) -> Response {
    let main = format!(
        "<main class=\"prose\"><h1>{}</h1><p id=\"error\">{}</p><p>{back}</p></main>",
        escape(title),
        escape(&e.message)
    );
    let page = layout(&format!("{title} · merels"), &main, None);
    (ApiError::status(e.code), page).into_response()
}

async fn create_from_form(
    app: AppState,
    from: std::net::IpAddr,
    form: HashMap<String, String>,
) -> Result<Response, ApiError> {
    let variant = form.get("variant").map(String::as_str).unwrap_or_default();
    let color = match form.get("color").map(String::as_str) {
        Some("white") => ColorChoice::White,
        Some("black") => ColorChoice::Black,
        _ => ColorChoice::Random,
    };
    let options: BTreeMap<String, String> = form
        .iter()
        .filter_map(|(k, v)| Some((k.strip_prefix("opt.")?.to_string(), v.clone())))
        .collect();
    let clock = match form.get("clock").map(String::as_str) {
        Some("custom") => {
            let field = |k: &str| form.get(k).map_or("", |v| v.trim());
            format!("{}+{}", field("clock_minutes"), field("clock_increment"))
        }
        other => other.unwrap_or_default().to_string(),
    };
    let clock = super::api::time_control(Some(&clock))?;
    let opponent = match form.get("opponent").map(String::as_str) {
        Some("computer") => {
            let level = form.get("level").and_then(|l| l.parse().ok()).unwrap_or(0);
            super::api::opponent(Some(level), false)?
        }
        _ => super::api::opponent(None, form.contains_key("open"))?,
    };
    let grant = app
        .rooms
        .create(from, variant, &options, clock, color, opponent)
        .await?;
    Ok((
        StatusCode::SEE_OTHER,
        [(LOCATION, format!("/g/{}", grant.id))],
        seat_cookies(&app.config, &grant.id, &grant.secret),
    )
        .into_response())
}

/// `GET /g/{id}`: the game page. `?code=CODE` (a "continue on another device" link) is taken,
/// once: the seat's cookie is set in this browser and the code leaves the address bar. A code
/// used already, expired or unknown leaves the page as a spectator's, with a word why.
pub async fn game(
    State(app): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    let mut stale_code = false;
    if let Some(code) = query.get("code") {
        match app.rooms.take_handoff(&id, code).await {
            Ok(Some(secret)) => {
                return (
                    StatusCode::SEE_OTHER,
                    [(LOCATION, format!("/g/{id}"))],
                    seat_cookies(&app.config, &id, &secret),
                )
                    .into_response();
            }
            Ok(None) => stale_code = true,
            Err(RoomError::NotFound) => return not_found(),
            Err(e) => return ApiError::from(e).into_response(),
        }
    }
    let state = match app.rooms.state(&id).await {
        Ok(state) => state,
        Err(RoomError::NotFound) => return not_found(),
        Err(e) => return ApiError::from(e).into_response(),
    };
    let seat = app
        .rooms
        .seat_of(&id, presented_secret(&headers, &id))
        .await
        .ok()
        .flatten();
    let info = app.rooms.catalog().get(&state.variant).ok();
    let title = info.map_or_else(|| state.variant.to_string(), |v| v.title.clone());
    // The rules in force: the variant's page, and the options this table chose.
    let rules = match info.map(|i| options_in_words(i, &state.options)) {
        Some(words) if !words.is_empty() => format!(": {words}"),
        _ => String::new(),
    };
    let share = format!("{}/g/{id}", base_url(&app.config, &headers));
    let turns: String = state
        .turns
        .chunks(2)
        .map(|pair| {
            let spans: String = pair
                .iter()
                .map(|t| format!("<span>{}</span>", escape(t)))
                .collect();
            format!("<li>{spans}</li>")
        })
        .collect();
    // A link to the analysis only once there is something to analyse (the page adds it when
    // the game ends while open).
    let over = state.now.status == crate::protocol::Status::Finished && !state.turns.is_empty();
    let analysis = if over {
        format!("><a href=\"/g/{}/analysis\">", escape(&id))
    } else {
        " hidden><a>".to_string()
    };
    let you = match seat {
        Some(c) => format!("You play {}.", c.name()),
        None => "You are watching.".to_string(),
    };
    let main = format!(
        "<main class=\"game\" id=\"game\" data-game=\"{id}\" data-status=\"{status}\">\n\
         <section class=\"board-wrap\">\n\
         <div id=\"clock-top\" class=\"clock-bar at-top\" hidden><span class=\"clock-name\"></span> \
         <span class=\"clock\"></span></div>\n\
         <svg id=\"board\" role=\"group\" aria-label=\"{title} board\"></svg>\n\
         <div id=\"clock-bottom\" class=\"clock-bar at-bottom\" hidden><span class=\"clock-name\"></span> \
         <span class=\"clock\"></span></div>\n\
         <p id=\"banner\" class=\"banner\" role=\"status\" hidden></p>\n\
         <p id=\"removing\" class=\"removing\" hidden>A mill! Choose a man to remove. \
         <button type=\"button\" id=\"cancel-remove\" class=\"secondary\">Cancel</button></p>\n\
         </section>\n\
         <aside class=\"panel\">\n<h1>{title}</h1>\n\
         <p id=\"you\">{you}</p>\n\
         <div id=\"join-or-watch\" class=\"join-or-watch\" hidden><p id=\"invite-text\"></p>\
         <button type=\"button\" id=\"take-seat\">Take the seat</button> \
         <button type=\"button\" id=\"just-watch\" class=\"secondary\">Just watch</button></div>\n\
         <p id=\"rules\" class=\"rules\"><a href=\"/variants/{slug}\">Rules</a>{rules}</p>\n\
         <p id=\"time-control\" class=\"time-control\">{control}</p>\n\
         <p id=\"status\" class=\"status\">Position: <code>{position}</code></p>\n\
         <div id=\"sides\" class=\"sides\"></div>\n\
         <p id=\"clock-note\" class=\"clock-note\" hidden></p>\n\
         <p id=\"notice\" class=\"notice\" hidden></p>\n\
         <p id=\"conn\" class=\"conn\"></p>\n\
         <noscript><p class=\"notice\">Playing needs JavaScript: without it this page shows the \
         game as it stood when the page was made.</p></noscript>\n\
         <div id=\"actions\" class=\"actions\" hidden>\
         <button type=\"button\" id=\"abort\" class=\"danger\" hidden>Abort</button>\
         <button type=\"button\" id=\"resign\" class=\"danger\" hidden>Resign</button>\
         <button type=\"button\" id=\"draw-offer\" class=\"secondary\" hidden>Offer a draw</button>\
         <button type=\"button\" id=\"draw-accept\" hidden>Accept the draw</button>\
         <button type=\"button\" id=\"draw-decline\" class=\"secondary\" hidden>Decline</button>\
         <button type=\"button\" id=\"takeback-offer\" class=\"secondary\" hidden>Ask for a takeback</button>\
         <button type=\"button\" id=\"takeback-accept\" hidden>Allow the takeback</button>\
         <button type=\"button\" id=\"takeback-decline\" class=\"secondary\" hidden>Refuse</button>\
         <button type=\"button\" id=\"rematch\" hidden>Rematch</button>\
         <button type=\"button\" id=\"rematch-decline\" class=\"secondary\" hidden>Decline the rematch</button>\
         <span id=\"claim\" hidden><button type=\"button\" id=\"claim-win\">Claim the win</button> \
         <button type=\"button\" id=\"claim-draw\" class=\"secondary\">Claim a draw</button></span></div>\n\
         <form id=\"type-turn\" class=\"type-turn\" hidden><label for=\"typed\">Type your turn</label> \
         <input id=\"typed\" autocomplete=\"off\" autocapitalize=\"off\" spellcheck=\"false\" \
         placeholder=\"d6, a1-a4, d7xa1\" size=\"10\"> <button type=\"submit\">Play</button></form>\n\
         <p id=\"rematch-link\" hidden><a>Watch the rematch</a></p>\n\
         <div class=\"share\"><label for=\"share\">Share this link</label>\
         <div class=\"row\"><input id=\"share\" readonly value=\"{share}\">\
         <button id=\"copy\" type=\"button\">Copy</button>\
         <button id=\"share-native\" type=\"button\" hidden>Share…</button></div>\
         <details class=\"qr\"><summary>QR code</summary>{share_qr}</details></div>\n\
         <div id=\"handoff\" class=\"handoff\" hidden><details><summary>Continue on another \
         device</summary><p>This link moves your seat: it works once, within {handoff_minutes} \
         minutes. Keep it to yourself.</p><div class=\"row\"><input id=\"handoff-link\" readonly \
         aria-label=\"The link that moves your seat\"><button id=\"handoff-copy\" type=\"button\">\
         Copy</button></div><img id=\"handoff-qr\" alt=\"QR code of the link that moves your seat\" \
         width=\"180\" height=\"180\"></details></div>\n\
         {stale_code}
         <h2>Turns</h2>\n<ol id=\"turns\" class=\"turns\">{turns}</ol>\n\
         {replay}\n\
         <p><button type=\"button\" id=\"back-to-game\" hidden>Back to the game</button></p>\n\
         <p class=\"board-tools\"><button type=\"button\" id=\"flip\" class=\"secondary\">Flip the board</button> \
         <label><input type=\"checkbox\" id=\"mute\"> Mute sounds</label> \
         <button type=\"button\" id=\"notify\" class=\"secondary\" hidden>Notify me of my turn</button>\
         <span id=\"notify-on\" class=\"notice\" hidden>You are notified of your turn.</span></p>\n\
         <p id=\"spectators\" class=\"spectators\"></p>\n\
         <p><a href=\"/g/{id}/record\">Download the game record</a></p>\n\
         <p id=\"analysis-link\"{analysis}The computer's analysis</a></p>\n\
         </aside>\n{chat}\n<div id=\"announce\" class=\"sr-only\" aria-live=\"polite\"></div>\n</main>",
        id = escape(&id),
        title = escape(&title),
        share = escape(&share),
        position = escape(&state.now.position),
        analysis = analysis,
        replay = super::html::REPLAY_CONTROLS,
        chat = super::html::chat_section(),
        handoff_minutes = app.config.handoff_secs.div_ceil(60),
        stale_code = if stale_code {
            "<p id=\"handoff-stale\" class=\"notice\">That link to a seat was used already or has \
             expired: open a new one on the device that holds the seat.</p>\n"
        } else {
            ""
        },
        share_qr = super::html::qr_svg(&share, "QR code of this game's link"),
        status = state.now.status.as_str(),
        slug = escape(&state.variant),
        rules = rules,
        control = if state.now.time_control.is_timed() {
            format!("Time: {}", state.now.time_control.words())
        } else {
            state.now.time_control.words()
        },
    );
    // Private: the page says who the visitor is, and its links are built from the request (its
    // Host, without a public URL), so no shared cache may hand it to anyone else.
    (
        [(CACHE_CONTROL, "private, no-cache")],
        layout(&format!("{title} · merels"), &main, Some("game.js")),
    )
        .into_response()
}

fn not_found() -> Response {
    let main = "<main class=\"home\"><h1>No such game</h1>\
                <p>The link may be mistyped. <a href=\"/\">Start a new game</a>.</p></main>";
    (
        StatusCode::NOT_FOUND,
        layout("No such game · merels", main, None),
    )
        .into_response()
}

/// `GET /g/{id}/handoff.svg?code=CODE`: a QR code of the one-time link that moves the asker's
/// seat to another device, for the seated player only (by their cookie or token), never stored
/// by a cache.
pub async fn handoff_qr(
    State(app): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    let seated = app
        .rooms
        .seat_of(&id, presented_secret(&headers, &id))
        .await;
    if !matches!(seated, Ok(Some(_))) {
        return ApiError::from(RoomError::NotSeated).into_response();
    }
    let Some(code) = query
        .get("code")
        .filter(|c| crate::rooms::secrets::is_code(c))
    else {
        return ApiError::new(
            crate::protocol::ErrorCode::Malformed,
            "?code= takes a hand-off code",
        )
        .into_response();
    };
    let link = format!("{}/g/{id}?code={code}", base_url(&app.config, &headers));
    (
        [
            (CONTENT_TYPE, "image/svg+xml"),
            (CACHE_CONTROL, "no-store, private"),
        ],
        super::html::qr_svg(&link, "QR code of the link that carries your seat"),
    )
        .into_response()
}

/// `GET /g/{id}/rematch`: goes to the game's rematch. A player of this game (by the cookie this
/// game's pages carry) is seated there, by the same secret, with the rematch's cookie set; anyone
/// else watches it. Before there is a rematch, back to the game.
pub async fn rematch(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let state = match app.rooms.state(&id).await {
        Ok(state) => state,
        Err(RoomError::NotFound) => return not_found(),
        Err(e) => return ApiError::from(e).into_response(),
    };
    let Some(next) = state.now.rematch.clone() else {
        return (StatusCode::SEE_OTHER, [(LOCATION, format!("/g/{id}"))]).into_response();
    };
    let go = [(LOCATION, format!("/g/{next}"))];
    let secret = presented_secret(&headers, &id);
    match (app.rooms.seat_of(&next, secret.clone()).await, secret) {
        (Ok(Some(_)), Some(secret)) => (
            StatusCode::SEE_OTHER,
            go,
            seat_cookies(&app.config, &next, &secret),
        )
            .into_response(),
        _ => (StatusCode::SEE_OTHER, go).into_response(),
    }
}

/// `GET /g/{id}/analysis`: the engine's judgement of a finished game. Without JavaScript, a table
/// with a row a turn, the turns that threw a result away marked; `analysis.js` adds the board,
/// stepped through the game, with the best turn of each position drawn on it.
pub async fn analysis(State(app): State<AppState>, Path(id): Path<String>) -> Response {
    let judged = async {
        let analysis = app.rooms.analysis(&id, super::api::ANALYSIS_TIME).await?;
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
        Err(RoomError::NotFound) => return not_found(),
        Err(e) => {
            let back = format!("<a href=\"/g/{}\">Back to the game</a>", escape(&id));
            return error_page("Analysis", ApiError::from(e), &back);
        }
    };
    let kind = if analysis.exact {
        "Exact values from the solved table: plies to the end with perfect play."
    } else {
        "A short search of each position: scores in men for the side to move."
    };
    let rows: String = analysis
        .turns
        .iter()
        .map(|t| {
            let cell = |v: Option<&str>| escape(v.unwrap_or("not reached"));
            let mark = t.mark.as_deref().unwrap_or_default();
            format!(
                "<tr class=\"{mark}\" data-ply=\"{ply}\"><td>{ply}</td><td>{}</td>\
                 <td><code>{}</code></td><td>{}</td><td><code>{}</code></td><td>{}</td>\
                 <td>{}</td></tr>",
                t.side.name(),
                escape(&t.turn),
                cell(t.value.as_deref()),
                cell(t.best.as_ref().map(|b| b.turn.as_str())),
                cell(t.played.as_deref()),
                escape(mark),
                ply = t.ply + 1,
            )
        })
        .collect();
    // What the board needs, in the page: nothing to fetch, and the same analysis as the table.
    let data = serde_json::json!({
        "board": crate::protocol::Geometry::of(variant.board()),
        "boards": state.boards,
        "turns": analysis.turns,
    });
    // In a script element only `</` could end it early.
    let data = data.to_string().replace("</", "<\\/");
    let title = app
        .rooms
        .catalog()
        .get(&state.variant)
        .map(|v| v.title.clone())
        .unwrap_or_else(|_| state.variant.to_string());
    let main = format!(
        "<main class=\"game analysis\" id=\"analysis-view\">\n\
         <section class=\"board-wrap\" hidden>\n\
         <svg id=\"board\" role=\"img\" aria-label=\"{title} board\"></svg>\n</section>\n\
         <aside class=\"panel\">\n<h1>Analysis</h1>\n<p>{title}. {kind}</p>\n\
         <p id=\"judgement\" class=\"judgement\" aria-live=\"polite\"></p>\n{replay}\n\
         <div class=\"table-wrap\"><table id=\"analysis\"><thead><tr><th>Ply</th><th>Side</th><th>Played</th>\
         <th>Position</th><th>Best</th><th>Played, worth</th><th></th></tr></thead>\
         <tbody>{rows}</tbody></table></div>\n\
         <p><a href=\"/g/{id}\">Back to the game</a></p>\n</aside>\n\
         <script type=\"application/json\" id=\"analysis-data\">{data}</script>\n</main>",
        id = escape(&id),
        title = escape(&title),
        replay = super::html::REPLAY_CONTROLS,
    );
    layout("Analysis · merels", &main, Some("analysis.js")).into_response()
}
