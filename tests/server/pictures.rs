//! Pictures of games over HTTP, decoded as a client would: a position's PNG (its size, and the
//! colour at each point's pixel against the man on it), a game's GIF (a frame per turn and the
//! start), the link preview's tags and picture for a waiting, a playing and a finished game,
//! the caching of a finished game's pictures, bad input, and that a preview bot's fetches take
//! no seat and count as no spectator. And the embed, which shows a game live in other sites'
//! pages: only it may be framed, it sets no cookie, and it watches whatever seat it could show.

use crate::harness::{Seat, TestServer, Ws, eventually};
use merels::catalog::Catalog;
use merels::picture::{GIF_BOARD, POSITION_SIZE, PREVIEW_SIZE, point_pixel};
use merels::protocol::Geometry;
use std::collections::BTreeMap;

/// White's d7 closes a7-d7-g7 and removes a1.
const TURNS: [&str; 11] = [
    "c4", "f4", "f2", "b4", "d6", "f6", "a7", "a1", "g7", "c5", "d7xa1",
];

/// The colours of the light theme (`static/app.css`).
const WHITE_MAN: [u8; 3] = [0xfb, 0xfa, 0xf6];
const BLACK_MAN: [u8; 3] = [0x23, 0x20, 0x1c];
const SPOT: [u8; 3] = [0x5b, 0x43, 0x26];

fn geometry() -> Geometry {
    let variant = Catalog::builtin()
        .configure("nine-mens-morris", &BTreeMap::new())
        .unwrap();
    Geometry::of(variant.board())
}

/// A game of Nine Men's Morris with `turns` played, both seats.
async fn played(server: &TestServer, turns: &[&str]) -> (Seat, Seat) {
    let http = server.http();
    let white = http.create("nine-mens-morris", "white").await;
    let black = http.join(&white.id).await;
    for (i, turn) in turns.iter().enumerate() {
        let seat = if i % 2 == 0 { &white } else { &black };
        let (status, body) = http.play(seat, turn).await;
        assert_eq!(status, 200, "{turn}: {body}");
    }
    (white, black)
}

async fn get(server: &TestServer, path: &str) -> reqwest::Response {
    reqwest::get(format!("{}{path}", server.base))
        .await
        .unwrap()
}

fn header(res: &reqwest::Response, name: &str) -> String {
    res.headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default()
}

/// A PNG's width, height and RGB(A) pixels, with the samples per pixel.
fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<u8>, usize) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    (info.width, info.height, buf, info.color_type.samples())
}

/// The colour at the centre of `point` in a position's PNG.
fn colour_at(png: &(u32, u32, Vec<u8>, usize), point: &str, flipped: bool) -> [u8; 3] {
    let geometry = geometry();
    let p = geometry.points.iter().find(|p| p.name == point).unwrap();
    let (x, y) = point_pixel(&geometry, p.x, p.y, flipped, png.0);
    let at = (y as usize * png.0 as usize + x as usize) * png.3;
    [png.2[at], png.2[at + 1], png.2[at + 2]]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_position_image_shows_each_man_and_a_finished_games_never_change() {
    let server = TestServer::start().await;
    let (white, _black) = played(&server, &TURNS).await;
    let id = &white.id;

    let res = get(&server, &format!("/g/{id}/image.png")).await;
    assert_eq!(res.status().as_u16(), 200);
    assert_eq!(header(&res, "content-type"), "image/png");
    // In play, a takeback can still change what a ply shows: short-lived.
    assert_eq!(header(&res, "cache-control"), "public, max-age=5");
    let now = decode_png(&res.bytes().await.unwrap());
    assert_eq!((now.0, now.1), (POSITION_SIZE, POSITION_SIZE));
    assert_eq!(colour_at(&now, "c4", false), WHITE_MAN);
    assert_eq!(colour_at(&now, "f4", false), BLACK_MAN);
    assert_eq!(colour_at(&now, "d1", false), SPOT);
    // Black's a1 was taken by the mill.
    assert_eq!(colour_at(&now, "a1", false), SPOT);

    // After two turns, from Black's side: c4 and f4 only.
    let res = get(&server, &format!("/g/{id}/image.png?ply=2&flip=1")).await;
    let early = decode_png(&res.bytes().await.unwrap());
    assert_eq!(colour_at(&early, "c4", true), WHITE_MAN);
    assert_eq!(colour_at(&early, "f4", true), BLACK_MAN);
    assert_eq!(colour_at(&early, "f2", true), SPOT);
    assert_eq!(colour_at(&early, "a1", true), SPOT);

    let res = get(&server, &format!("/g/{id}/image.png?ply=2")).await;
    let before = decode_png(&res.bytes().await.unwrap()).2;

    // Over: every ply's picture is immutable, with a strong ETag that answers 304.
    let (status, body) = server.http().resign(&white).await;
    assert_eq!(status, 200, "{body}");
    let path = format!("/g/{id}/image.png?ply=2");
    let res = get(&server, &path).await;
    assert_eq!(
        header(&res, "cache-control"),
        "public, max-age=31536000, immutable"
    );
    let etag = header(&res, "etag");
    assert!(
        etag.starts_with('"') && etag.len() > 10,
        "a strong ETag: {etag}"
    );
    let again = reqwest::Client::new()
        .get(format!("{}{path}", server.base))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status().as_u16(), 304);
    assert_eq!(header(&again, "etag"), etag);
    // Drawn again for the finished game, a ply is the same picture as during play.
    assert_eq!(decode_png(&res.bytes().await.unwrap()).2, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_picture_requests_get_the_usual_errors() {
    let server = TestServer::start().await;
    let (white, _) = played(&server, &TURNS[..3]).await;
    let id = &white.id;
    for (path, status, code) in [
        ("/g/nosuchgame/image.png".to_string(), 404, "not_found"),
        ("/g/nosuchgame/game.gif".to_string(), 404, "not_found"),
        ("/g/nosuchgame/preview.png".to_string(), 404, "not_found"),
        (format!("/g/{id}/image.png?ply=4"), 404, "not_found"),
        (format!("/g/{id}/image.png?ply=-1"), 400, "malformed"),
        (format!("/g/{id}/image.png?theme=purple"), 400, "malformed"),
        (format!("/g/{id}/game.gif?theme=purple"), 400, "malformed"),
        (format!("/g/{id}/image.png?flip=maybe"), 400, "malformed"),
        (
            "/variants/no-such-morris/image.png".to_string(),
            404,
            "not_found",
        ),
    ] {
        let res = get(&server, &path).await;
        assert_eq!(res.status().as_u16(), status, "{path}");
        let body: serde_json::Value = res.json().await.unwrap();
        assert_eq!(body["error"], code, "{path}: {body}");
    }
    let res = get(&server, &format!("/g/{id}/image.png?ply=3&theme=dark")).await;
    assert_eq!(res.status().as_u16(), 200);
    let res = get(&server, "/variants/twelve-mens-morris/image.png").await;
    assert_eq!(res.status().as_u16(), 200);
    let empty = decode_png(&res.bytes().await.unwrap());
    assert_eq!((empty.0, empty.1), (POSITION_SIZE, POSITION_SIZE));
}

/// The frames of a GIF: (width, height) and the number of frames.
fn gif_frames(bytes: &[u8]) -> ((u16, u16), usize) {
    let mut decoder = gif::DecodeOptions::new()
        .read_info(std::io::Cursor::new(bytes))
        .unwrap();
    let size = (decoder.width(), decoder.height());
    let mut frames = 0;
    while decoder.read_next_frame().unwrap().is_some() {
        frames += 1;
    }
    (size, frames)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_games_gif_has_a_frame_per_turn_and_the_start() {
    let server = TestServer::start().await;
    let (white, black) = played(&server, &TURNS[..6]).await;
    let res = get(&server, &format!("/g/{}/game.gif", white.id)).await;
    assert_eq!(header(&res, "content-type"), "image/gif");
    let (size, frames) = gif_frames(&res.bytes().await.unwrap());
    assert_eq!(size.0, GIF_BOARD as u16);
    assert_eq!(frames, 7);
    // A turn later, the GIF has grown by a frame; over, it is made once and kept.
    let http = server.http();
    assert_eq!(http.play(&white, TURNS[6]).await.0, 200);
    let res = get(&server, &format!("/g/{}/game.gif", white.id)).await;
    assert_eq!(gif_frames(&res.bytes().await.unwrap()).1, 8);
    assert_eq!(http.resign(&black).await.0, 200);
    let res = get(&server, &format!("/g/{}/game.gif", white.id)).await;
    assert_eq!(
        header(&res, "cache-control"),
        "public, max-age=31536000, immutable"
    );
    assert_eq!(gif_frames(&res.bytes().await.unwrap()).1, 8);
}

/// The `content` of the `<meta>` with this `property` or `name`.
fn meta(html: &str, key: &str) -> String {
    let needle = format!("=\"{key}\" content=\"");
    let at = html
        .find(&needle)
        .unwrap_or_else(|| panic!("no {key} in {html}"));
    let rest = &html[at + needle.len()..];
    rest[..rest.find('"').unwrap()]
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// What a link preview bot does: the page and its picture, without cookies or scripts, as a
/// crawler.
async fn as_a_bot(server: &TestServer, id: &str) -> String {
    let bot = reqwest::Client::builder()
        .user_agent("facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)")
        .build()
        .unwrap();
    let page = bot
        .get(format!("{}/g/{id}", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status().as_u16(), 200);
    assert!(
        page.headers()
            .get_all("set-cookie")
            .iter()
            .all(|c| c.to_str().unwrap().starts_with("merels_browser=")),
        "a preview takes no seat"
    );
    let html = page.text().await.unwrap();
    let image = meta(&html, "og:image");
    assert_eq!(meta(&html, "twitter:image"), image);
    assert_eq!(meta(&html, "twitter:card"), "summary_large_image");
    assert_eq!(meta(&html, "og:url"), format!("{}/g/{id}", server.base));
    let res = bot.get(&image).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 200, "{image}");
    let picture = decode_png(&res.bytes().await.unwrap());
    assert_eq!((picture.0, picture.1), PREVIEW_SIZE);
    assert_eq!(meta(&html, "og:image:width"), "1200");
    assert_eq!(
        meta(&html, "og:description"),
        meta(&html, "twitter:description")
    );
    meta(&html, "og:description")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn link_previews_invite_show_the_turn_and_the_result_and_take_no_seat() {
    let server = TestServer::start().await;
    let http = server.http();
    let white = http
        .create_with(serde_json::json!({
            "variant": "nine-mens-morris",
            "options": {"flying": "on"},
            "color": "white",
            "clock": "5+3",
        }))
        .await;
    let waiting = as_a_bot(&server, &white.id).await;
    assert!(
        waiting.starts_with("White invites you to play Nine Men's Morris, 5 min + 3 s."),
        "{waiting}"
    );
    assert!(waiting.contains("Flying"), "{waiting}");
    // The bot took no seat and watched nothing.
    let state = http.state(&white.id).await;
    assert_eq!(state["status"], "waiting", "{state}");
    assert_eq!(state["seats"]["black"]["taken"], false);
    assert_eq!(state["spectators"], 0);

    let black = http.join(&white.id).await;
    for (i, turn) in TURNS[..4].iter().enumerate() {
        let seat = if i % 2 == 0 { &white } else { &black };
        assert_eq!(http.play(seat, turn).await.0, 200);
    }
    let playing = as_a_bot(&server, &white.id).await;
    assert_eq!(playing, "Live: Nine Men's Morris, 5 min + 3 s, turn 5.");
    assert_eq!(http.state(&white.id).await["spectators"], 0);

    assert_eq!(http.resign(&black).await.0, 200);
    let finished = as_a_bot(&server, &white.id).await;
    assert!(finished.starts_with("White wins ("), "{finished}");
    assert!(finished.contains("after 4 turns"), "{finished}");

    // A variant's page previews as its board, under its summary.
    let page = reqwest::get(format!("{}/variants/lasker-morris", server.base))
        .await
        .unwrap();
    let html = page.text().await.unwrap();
    let url = format!("{}/variants/lasker-morris", server.base);
    assert_eq!(meta(&html, "og:url"), url);
    assert_eq!(meta(&html, "og:image"), format!("{url}/image.png"));
    assert!(meta(&html, "og:description").len() > 20, "{html}");
    let res = reqwest::get(format!("{url}/image.png")).await.unwrap();
    assert_eq!(res.status().as_u16(), 200);
    let board = decode_png(&res.bytes().await.unwrap());
    assert_eq!(meta(&html, "og:image:width"), board.0.to_string());
}

/// One address may have two pictures drawn at once: a burst of asks for pictures not yet drawn
/// gets the rest refused, 429 with the usual error; one at a time, every one is drawn; and
/// another address is served meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_has_two_pictures_drawn_at_once() {
    let server = TestServer::start().await;
    let (white, _) = played(&server, &TURNS).await;
    let url = |ply: usize, theme: &str| {
        format!(
            "{}/g/{}/image.png?ply={ply}&theme={theme}",
            server.base, white.id
        )
    };
    let client = reqwest::Client::new();
    let burst: Vec<_> = (0..=TURNS.len())
        .map(|ply| tokio::spawn(client.get(url(ply, "light")).send()))
        .collect();
    let (mut drawn, mut refused) = (0, 0);
    for ask in burst {
        let res = ask.await.unwrap().unwrap();
        match res.status().as_u16() {
            200 => drawn += 1,
            429 => {
                let body: serde_json::Value = res.json().await.unwrap();
                assert_eq!(body["error"], "rate_limited", "{body}");
                refused += 1;
            }
            other => panic!("a picture was answered {other}"),
        }
    }
    assert!(
        drawn >= 2 && refused >= 1,
        "{drawn} drawn, {refused} refused"
    );
    // Another address is drawn for while this one is at its cap.
    let other = reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, 2]))
        .build()
        .unwrap();
    let hold: Vec<_> = (0..2)
        .map(|ply| tokio::spawn(client.get(url(ply, "dark")).send()))
        .collect();
    let res = other.get(url(5, "dark")).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 200);
    for ask in hold {
        assert_eq!(ask.await.unwrap().unwrap().status().as_u16(), 200);
    }
    for ply in 0..=TURNS.len() {
        let res = client.get(url(ply, "light")).send().await.unwrap();
        assert_eq!(res.status().as_u16(), 200, "ply {ply} one at a time");
    }
    server.stop().await;
}

/// Whether an answer may be shown in any site's frame (the embed), or in none.
fn framing(res: &reqwest::Response) -> &'static str {
    let csp = header(res, "content-security-policy");
    let xfo = header(res, "x-frame-options");
    match (
        csp.ends_with("frame-ancestors *"),
        csp.ends_with("frame-ancestors 'none'"),
    ) {
        (true, false) if xfo.is_empty() => "any",
        (false, true) if xfo == "DENY" => "none",
        _ => panic!("framing neither allowed nor refused: {csp} / {xfo}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_embed_may_be_framed_and_it_sets_no_cookie() {
    let server = TestServer::start().await;
    let (white, _black) = played(&server, &TURNS[..3]).await;
    let id = &white.id;
    // A browser that holds White's seat, on a page of the same site, sends its cookie.
    let res = reqwest::Client::new()
        .get(format!("{}/embed/{id}", server.base))
        .header("cookie", format!("merels_seat_{id}={}", white.secret))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 200);
    assert_eq!(framing(&res), "any");
    assert!(res.headers().get("set-cookie").is_none());
    let html = res.text().await.unwrap();
    assert!(html.contains(&format!("data-game=\"{id}\"")), "{html}");
    assert!(html.contains("/static/embed.js"), "{html}");
    // Live: no game in the page, the socket brings it.
    assert!(!html.contains("embed-data"), "{html}");
    for path in [format!("/g/{id}"), "/".into(), format!("/g/{id}/analysis")] {
        let res = get(&server, &path).await;
        assert_eq!(framing(&res), "none", "{path}");
    }
    // An embed's error is its own page, which the frame shows.
    let res = get(&server, "/embed/nosuchgame").await;
    assert_eq!(res.status().as_u16(), 404);
    assert_eq!(framing(&res), "any");
    assert!(header(&res, "content-type").starts_with("text/html"));
    for (query, status) in [
        ("?ply=4", 404),
        ("?ply=-1", 400),
        ("?ply=two", 400),
        ("?theme=purple", 400),
        ("?flip=maybe", 400),
    ] {
        let res = get(&server, &format!("/embed/{id}{query}")).await;
        assert_eq!(res.status().as_u16(), status, "{query}");
        assert!(header(&res, "content-type").starts_with("text/html"));
    }
}

/// The JSON an unmoving embed brings in its page.
fn still_data(html: &str) -> serde_json::Value {
    let start = "<script type=\"application/json\" id=\"embed-data\">";
    let at = html
        .find(start)
        .unwrap_or_else(|| panic!("no data: {html}"))
        + start.len();
    serde_json::from_str(&html[at..at + html[at..].find("</script>").unwrap()]).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_embed_shows_a_ply_unmoving_in_the_theme_asked_for() {
    let server = TestServer::start().await;
    let (white, _black) = played(&server, &TURNS[..3]).await;
    let html = get(&server, &format!("/embed/{}?ply=2&theme=dark", white.id))
        .await
        .text()
        .await
        .unwrap();
    let data = still_data(&html);
    assert_eq!(data["ply"], 2);
    assert_eq!(data["state"]["turns"].as_array().unwrap().len(), 3);
    assert_eq!(data["board"]["points"].as_array().unwrap().len(), 24);
    // Dark whatever the system prefers; light by asking; by default, the system's.
    let dark = |html: &str| {
        let link = "/static/dark.css\" media=\"";
        let at = html.find(link).map(|at| &html[at + link.len()..]);
        at.map(|rest| rest[..rest.find('"').unwrap()].to_string())
    };
    assert_eq!(dark(&html).as_deref(), Some("all"));
    let light = get(&server, &format!("/embed/{}?theme=light", white.id)).await;
    assert_eq!(dark(&light.text().await.unwrap()), None);
    let system = get(&server, &format!("/embed/{}", white.id)).await;
    assert_eq!(
        dark(&system.text().await.unwrap()).as_deref(),
        Some("(prefers-color-scheme: dark)")
    );
}

/// Opening the embed takes no seat, and its socket (`?watch=1`) watches even with a seat's
/// secret: it counts as a spectator, and the seat stays away.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embed_and_its_socket_take_no_seat_and_count_as_a_spectator() {
    let server = TestServer::start().await;
    let http = server.http();
    let white = http.create("nine-mens-morris", "white").await;
    let res = get(&server, &format!("/embed/{}", white.id)).await;
    assert_eq!(res.status().as_u16(), 200);
    let state = http.state(&white.id).await;
    assert_eq!(state["seats"]["black"]["taken"], false, "{state}");
    assert_eq!(state["spectators"], 0, "{state}");

    let url = format!("ws://{}/api/games/{}/ws", server.addr, white.id);
    let watcher = Ws::connect_url(&format!("{url}?watch=1"), Some(&white.secret)).await;
    assert_eq!(watcher.hello["seat"], serde_json::Value::Null);
    let id = white.id.clone();
    eventually("the embed's socket is counted as a spectator", || {
        let (http, id) = (http.clone(), id.clone());
        async move { http.state(&id).await["spectators"] == 1 }
    })
    .await;
    let state = http.state(&white.id).await;
    assert_eq!(state["seats"]["white"]["connected"], false, "{state}");
    assert_eq!(state["seats"]["black"]["taken"], false, "{state}");
    // The same secret without `?watch=1` is White's seat.
    let player = Ws::connect_url(&url, Some(&white.secret)).await;
    assert_eq!(player.hello["seat"], "white");
    drop(watcher);
}
