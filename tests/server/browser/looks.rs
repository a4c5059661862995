//! How the page looks: dark mode, a phone with the invite first, the board's side and its rings,
//! pages that fit a phone.

use super::*;

/// A system in dark mode gets a dark page with the board still wood; the last move, a fresh
/// mill and the keyboard's focus each have a colour of their own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_follows_the_systems_dark_mode() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let seat = server.http().create("nine-mens-morris", "white").await;
    let driver = Driver::start().await;
    let dark = driver
        .browser_with(
            "dark",
            1000,
            800,
            &[
                "--force-dark-mode",
                "--blink-settings=preferredColorScheme=0",
            ],
        )
        .await;
    dark.goto(&seat_link(&server, &seat).await).await.unwrap();
    wait_text(&dark, "#you", "You play white.").await;
    let style = |script: &'static str| {
        let dark = dark.clone();
        async move { dark.execute(script, vec![]).await.unwrap() }
    };
    assert_eq!(
        style("return matchMedia('(prefers-color-scheme: dark)').matches").await,
        true
    );
    assert_eq!(
        style("return getComputedStyle(document.body).backgroundColor").await,
        "rgb(27, 26, 23)"
    );
    let colours = style(
        "const root = getComputedStyle(document.documentElement);\
         return ['--gold', '--mill', '--focus'].map((v) => root.getPropertyValue(v).trim());",
    )
    .await;
    let colours: Vec<&str> = colours
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(
        colours.iter().collect::<BTreeSet<_>>().len(),
        3,
        "{colours:?}"
    );
    std::fs::write(
        screenshots_dir().join("game-dark.png"),
        dark.screenshot().await.unwrap(),
    )
    .unwrap();
    dark.close().await.unwrap();
    server.stop().await;
}

/// On a phone, a game waiting for its opponent shows the invite above the fold, and the QR code
/// of the link that carries the seat is drawn when asked for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_phone_shows_the_invite_first_and_the_seat_as_a_qr_code() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let seat = server.http().create("nine-mens-morris", "white").await;
    let driver = Driver::start().await;
    let phone = driver.phone("phone").await;
    phone.goto(&seat_link(&server, &seat).await).await.unwrap();
    wait_text(&phone, "#you", "You play white.").await;
    let fits = phone
        .execute(
            "const r = document.getElementById('share').getBoundingClientRect();\
             return r.top >= 0 && r.bottom <= window.innerHeight;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(fits, true, "the invite is above the fold");
    // First on the page, before the board: for the creator, and for the friend who opens it.
    let (share, board) = (rect(&phone, ".share").await, rect(&phone, "#board").await);
    assert!(share.bottom <= board.top, "{share:?} {board:?}");
    let friend = driver.phone("friend").await;
    friend
        .goto(&format!("{}/g/{}", server.base, seat.id))
        .await
        .unwrap();
    wait_text(&friend, "#invite-text", "White is waiting for an opponent.").await;
    let (invite, share, board) = (
        rect(&friend, "#join-or-watch").await,
        rect(&friend, ".share").await,
        rect(&friend, "#board").await,
    );
    assert!(
        invite.bottom <= share.top && share.bottom <= board.top,
        "{invite:?} {share:?} {board:?}"
    );
    std::fs::write(
        screenshots_dir().join("invite-friend-phone.png"),
        friend.screenshot().await.unwrap(),
    )
    .unwrap();
    friend.close().await.unwrap();
    std::fs::write(
        screenshots_dir().join("invite-phone.png"),
        phone.screenshot().await.unwrap(),
    )
    .unwrap();
    press_when_shown(&phone, "#handoff summary").await;
    press_when_shown(&phone, "#handoff-keep").await;
    let deadline = Instant::now() + WAIT;
    loop {
        let drawn = phone
            .execute(
                "const q = document.querySelector('#handoff-qr svg'); return q ? q.getBoundingClientRect().width : 0;",
                vec![],
            )
            .await
            .unwrap();
        if drawn.as_f64().unwrap_or(0.0) > 0.0 {
            break;
        }
        assert!(Instant::now() < deadline, "the seat's QR code never drew");
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
    phone.close().await.unwrap();
    server.stop().await;
}

/// The home page's flow holds every variant's options at 1280 px and on a phone: with each
/// variant's card picked in turn, nothing sticks out of the form's edge (the Three Men's, with
/// its long movement option, once did).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_setup_flow_holds_every_variants_options() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let driver = Driver::start().await;
    for (name, width, height) in [("desktop", 1280, 900), ("phone", 390, 844)] {
        let page = driver.screen(name, width, height).await;
        page.goto(&format!("{}/", server.base)).await.unwrap();
        let overflowing = page
            .execute(
                "const out = []; const form = document.querySelector('#setup'); \
                 for (const card of document.querySelectorAll('.variant-card')) { \
                   card.click(); \
                   const edge = form.getBoundingClientRect().right; \
                   for (const e of form.querySelectorAll('*')) { \
                     if (e.offsetParent !== null && e.getBoundingClientRect().right > edge + 0.5) \
                       out.push(card.htmlFor + ' ' + e.tagName + ' ' + (e.name || e.textContent.trim().slice(0, 30))); \
                   } \
                 } \
                 return out;",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(overflowing, json!([]), "{name}");
        assert!(count(&page, ".variant-card").await >= 8, "{name}");
        page.close().await.unwrap();
    }
    server.stop().await;
}

/// The least room left between two points' rings, as a share of the distance between the
/// points (each ring as drawn: its radius and half its stroke).
const RING_GAP: &str = "\
    const rings = [...document.querySelectorAll('#board .point')].map((g) => {\
      const [x, y] = g.getAttribute('transform').match(/[-\\d.]+/g).map(Number);\
      const style = getComputedStyle(g.querySelector('.ring'));\
      return { x, y, r: parseFloat(style.r) + parseFloat(style.strokeWidth) / 2 };\
    });\
    let least = Infinity;\
    for (const a of rings) for (const b of rings) {\
      if (a === b) continue;\
      const d = Math.hypot(a.x - b.x, a.y - b.y);\
      least = Math.min(least, (d - a.r - b.r) / d);\
    }\
    return least;";

/// Waits until the board draws `point` where `transform` puts it.
async fn wait_drawn_at(c: &Client, point: &str, transform: &str) {
    let css = format!("#board [data-point=\"{point}\"]");
    let deadline = Instant::now() + WAIT;
    loop {
        let got = attr(c, &css, "transform").await;
        if got.as_deref() == Some(transform) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{point} never drawn at {transform} (at {got:?})"
        );
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
}

/// On the crowded Seven Men's board the dashed rings of the playable points stay clear of each
/// other; a board turned with "Flip the board" stays turned across a reload, in that game alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rings_stay_apart_and_the_board_keeps_its_side() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let seat = http.create("seven-mens-morris", "white").await;
    http.join(&seat.id).await;
    let driver = Driver::start().await;
    let page = driver.browser("player", 1000, 800).await;
    page.goto(&seat_link(&server, &seat).await).await.unwrap();
    wait_text(&page, "#you", "You play white.").await;
    wait_drawn_at(&page, "a1", "translate(0 4)").await;
    // The first turn may go anywhere: all 17 points are ringed.
    let deadline = Instant::now() + WAIT;
    while count(&page, "#board .point.targets").await < 17 {
        assert!(Instant::now() < deadline, "the points were never ringed");
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
    let gap = page.execute(RING_GAP, vec![]).await.unwrap();
    assert!(gap.as_f64().unwrap() >= 0.15, "rings {gap} of a step apart");
    std::fs::write(
        screenshots_dir().join("rings-seven.png"),
        page.screenshot().await.unwrap(),
    )
    .unwrap();

    press(&page, "#flip").await;
    wait_drawn_at(&page, "a1", "translate(4 0)").await;
    page.refresh().await.unwrap();
    wait_text(&page, "#you", "You play white.").await;
    wait_drawn_at(&page, "a1", "translate(4 0)").await;
    // Another game is drawn from the player's side, as ever.
    let other = http.create("seven-mens-morris", "white").await;
    page.goto(&seat_link(&server, &other).await).await.unwrap();
    wait_text(&page, "#you", "You play white.").await;
    wait_drawn_at(&page, "a1", "translate(0 4)").await;
    page.close().await.unwrap();
    server.stop().await;
}

/// A finished game's analysis page fits every width from 320 px: the page never scrolls
/// sideways, and no column of its table is cut off, on a phone or on a desktop.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_analysis_page_fits_a_phone_and_a_desktop() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    // A game played until mills are closed and men moved, so that turns and best turns are long.
    let white = http.create("nine-mens-morris", "white").await;
    let black = http.join(&white.id).await;
    for ply in 0..30 {
        let state = http.state(&white.id).await;
        if state["status"] != "playing" {
            break;
        }
        let seat = if ply % 2 == 0 { &white } else { &black };
        assert_eq!(http.play(seat, &eager_turn(&state)).await.0, 200);
    }
    let resign = format!("/api/games/{}/resign", white.id);
    http.request("POST", &resign, Some(&white.secret), None)
        .await;

    let driver = Driver::start().await;
    for (width, height) in [(320, 640), (390, 844), (1280, 800)] {
        let page = driver.screen(&format!("w{width}"), width, height).await;
        page.goto(&format!("{}/g/{}/analysis", server.base, white.id))
            .await
            .unwrap();
        let cut = page
            .execute(
                "const out = []; \
                 const page = document.documentElement; \
                 if (page.scrollWidth > page.clientWidth) \
                   out.push(`the page is ${page.scrollWidth} px wide`); \
                 for (const e of document.querySelectorAll('#analysis-view *')) { \
                   const r = e.getBoundingClientRect(); \
                   if (r.width > 0 && r.right > page.clientWidth + 0.5) \
                     out.push(`${e.tagName} ${e.textContent.trim().slice(0, 20)} ends at ${r.right}`); \
                 } \
                 const wrap = document.querySelector('.table-wrap'); \
                 if (wrap.scrollWidth > wrap.clientWidth) \
                   out.push(`the table is ${wrap.scrollWidth} px in ${wrap.clientWidth}`); \
                 return out.slice(0, 8);",
                vec![],
            )
            .await
            .unwrap();
        std::fs::write(
            screenshots_dir().join(format!("analysis-{width}.png")),
            page.screenshot().await.unwrap(),
        )
        .unwrap();
        assert_eq!(cut, json!([]), "at {width} px");
        page.close().await.unwrap();
    }
    server.stop().await;
}
