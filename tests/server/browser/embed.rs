//! The embed in another site's page: the game page's "Embed" gives the markup; a page served
//! from another origin holds it, and sees the live game and a turn arrive; an unmoving ply in the dark theme beside it opens no socket; the game's
//! own page, framed the same way, is refused; and a live one in the dark theme, narrow, fits.

use super::*;

/// A frame of `src`, `width` by `height`, as another site's page would have it.
fn frame(src: &str, width: u32, height: u32) -> String {
    format!("<iframe src=\"{src}\" width=\"{width}\" height=\"{height}\" title=\"{src}\"></iframe>")
}

/// Another site: a page at `http://localhost:PORT/` (another origin and another site than the
/// server's `127.0.0.1`) with the `frames` (markup). Served until the test ends.
async fn another_site(frames: &[String]) -> String {
    let iframes = frames.join("\n");
    let page = format!(
        "<!doctype html><html><head><title>A club's page</title><style>body {{ font: 15px sans-serif; margin: 10px; background: #dfe8f0; }} \
         iframe {{ border: 1px solid #789; vertical-align: top; margin: 4px; }}</style></head>\
         <body><h1>The club's game of the week</h1>\n{iframes}</body></html>"
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let site = axum::Router::new().route(
        "/",
        axum::routing::get(move || async move { axum::response::Html(page) }),
    );
    tokio::spawn(async move { axum::serve(listener, site).await });
    format!("http://localhost:{port}/")
}

/// Waits until `script` (run in the frame the browser is in) answers true.
async fn until(c: &Client, what: &str, script: &str) {
    let deadline = Instant::now() + WAIT;
    while c.execute(script, vec![]).await.unwrap() != json!(true) {
        assert!(Instant::now() < deadline, "never came true: {what}");
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
}

/// Goes into the page's frame number `index`, out of the one the browser is in.
async fn into_frame(c: &Client, index: u16) {
    c.enter_parent_frame().await.unwrap();
    c.enter_frame(index).await.unwrap();
}

/// The classes of a point's man on the board in the current frame.
async fn point(c: &Client, name: &str) -> String {
    attr(c, &format!("[data-point=\"{name}\"]"), "class")
        .await
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_site_frames_a_live_game_but_not_its_page() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let white = http.create_timed("nine-mens-morris", "white", "5+3").await;
    let black = http.join(&white.id).await;
    for (seat, turn) in [(&white, "d6"), (&black, "f4")] {
        assert_eq!(http.play(seat, turn).await.0, 200);
    }
    let id = &white.id;
    let driver = Driver::start().await;
    let browser = driver.browser("club", 1300, 720).await;

    // The game page's "Embed" gives the markup, which the other site puts in its page.
    browser
        .goto(&format!("{}/g/{id}", server.base))
        .await
        .unwrap();
    press_when_shown(&browser, ".embed-code summary").await;
    let snippet = browser
        .find(Locator::Css("#embed-code"))
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap()
        .unwrap();
    assert!(
        snippet.starts_with(&format!("<iframe src=\"{}/embed/{id}\" width=\"400\" height=\"480\" title=\"Nine Men&#39;s Morris: a game on merels\"", server.base)),
        "{snippet}"
    );
    screenshot_of(&browser, ".embed-code", "embed-button.png").await;
    let site = another_site(&[
        snippet,
        frame(
            &format!("{}/embed/{id}?ply=1&theme=dark", server.base),
            360,
            220,
        ),
        frame(&format!("{}/g/{id}", server.base), 180, 380),
        frame(&format!("{}/embed/{id}?theme=dark", server.base), 220, 330),
    ])
    .await;
    browser.goto(&site).await.unwrap();

    // The live embed: the board as it stands, the players and their clocks.
    into_frame(&browser, 0).await;
    until(&browser, "the embed shows the game", "return document.querySelectorAll('[data-point]').length === 24 && document.getElementById('embed').dataset.plies === '2'").await;
    assert!(point(&browser, "d6").await.contains("white"));
    assert!(point(&browser, "f4").await.contains("black last"));
    wait_text(&browser, "#status", "White to move.").await;
    until(&browser, "both clocks show, White's running", "const c = (s) => document.querySelector(`.clock[data-side=\"${s}\"]`); \
         return ['white', 'black'].every((s) => !c(s).hidden && /^[0-9]:[0-9]{2}$/.test(c(s).textContent)) && c('white').classList.contains('running')").await;
    wait_text(&browser, ".embed-side[data-side=\"black\"]", "(player)").await;
    // It watches: counted as a spectator (as the dark one is), no seat taken, no player
    // connected.
    let id2 = id.clone();
    eventually("both live embeds are counted as spectators", || {
        let (http, id) = (http.clone(), id2.clone());
        async move { http.state(&id).await["spectators"] == 2 }
    })
    .await;
    let state = http.state(id).await;
    assert_eq!(state["seats"]["white"]["connected"], false, "{state}");

    // A turn played through the API arrives in the frame.
    assert_eq!(http.play(&white, "b4").await.0, 200);
    until(
        &browser,
        "the turn arrives in the embed",
        "return document.getElementById('embed').dataset.plies === '3'",
    )
    .await;
    assert!(
        point(&browser, "b4").await.contains("white last"),
        "{}",
        point(&browser, "b4").await
    );
    assert!(!point(&browser, "f4").await.contains("last"));
    wait_text(&browser, "#status", "Black to move.").await;

    // The unmoving ply, dark: White's first turn alone, and no socket (still two spectators).
    into_frame(&browser, 1).await;
    until(
        &browser,
        "the still embed shows its ply",
        "return document.querySelectorAll('[data-point]').length === 24",
    )
    .await;
    assert!(point(&browser, "d6").await.contains("white last"));
    assert!(point(&browser, "f4").await.contains("empty"));
    // Loaded with the page, before the third turn: it never heard of it.
    wait_text(&browser, "#status", "After turn 1 of 2, d6.").await;
    let paper = browser
        .execute(
            "return getComputedStyle(document.body).backgroundColor",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(paper, "rgb(27, 26, 23)", "the dark theme, asked for");
    assert_eq!(http.state(id).await["spectators"], 2);

    // The game's page refuses the frame: the browser shows its own error there, no board.
    into_frame(&browser, 2).await;
    until(
        &browser,
        "the framed game page has loaded or failed",
        "return document.readyState === 'complete' && location.href !== 'about:blank'",
    )
    .await;
    let framed = browser
        .execute(
            "return [location.href, document.getElementById('board') === null, document.body.innerText.slice(0, 80)]",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(framed[1], true, "the game page was framed: {framed}");
    assert!(!framed[0].as_str().unwrap().contains("/g/"), "{framed}");

    // Live and dark, in a narrow frame: the turn is there, and everything fits in the frame.
    into_frame(&browser, 3).await;
    until(
        &browser,
        "the dark embed has the third turn",
        "return document.getElementById('embed').dataset.plies === '3'",
    )
    .await;
    let fits = browser
        .execute(
            "return [...document.querySelectorAll('#board, .embed-side, .embed-foot')].every((e) => { \
               const r = e.getBoundingClientRect(); \
               return r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; })",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(fits, true, "the narrow embed overflows its frame");
    browser.enter_parent_frame().await.unwrap();

    std::fs::write(
        screenshots_dir().join("embed-framed.png"),
        browser.screenshot().await.unwrap(),
    )
    .unwrap();
    browser.close().await.unwrap();
    server.stop().await;
}
