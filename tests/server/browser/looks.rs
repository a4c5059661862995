//! How the page looks: dark mode, and a phone with the invite first.

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
    let phone = driver.browser("phone", 390, 844).await;
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
    std::fs::write(
        screenshots_dir().join("invite-phone.png"),
        phone.screenshot().await.unwrap(),
    )
    .unwrap();
    press_when_shown(&phone, "#handoff summary").await;
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

/// Every variant's card holds its whole setup form at 1280 px and on a phone: nothing sticks out
/// of a card's edge (the Three Men's, with its long movement option, once did).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_setup_cards_hold_their_forms() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let driver = Driver::start().await;
    for (name, width, height) in [("desktop", 1280, 900), ("phone", 390, 844)] {
        let page = driver.browser(name, width, height).await;
        page.goto(&format!("{}/", server.base)).await.unwrap();
        let overflowing = page
            .execute(
                "const out = []; \
                 for (const card of document.querySelectorAll('.variant')) { \
                   const edge = card.getBoundingClientRect().right; \
                   for (const e of card.querySelectorAll('*')) { \
                     if (e.getBoundingClientRect().right > edge + 0.5) \
                       out.push(card.id + ' ' + e.tagName + ' ' + (e.name || e.textContent.trim().slice(0, 30))); \
                   } \
                 } \
                 return out;",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(overflowing, json!([]), "{name}");
        assert!(count(&page, ".variant").await >= 8, "{name}");
        page.close().await.unwrap();
    }
    server.stop().await;
}
