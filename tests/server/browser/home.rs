//! The home page's one flow, on a desktop and a phone: a button to press above the fold, a page
//! a phone scrolls through quickly, a variant's options shown when its card is picked (by mouse
//! or keyboard), and games started by a quick start and by the whole flow.

use super::*;

/// The home page at 1280×800 and on a 390×844 phone: the first button is wholly in view without
/// scrolling, nothing is wider than the screen, and the phone's page is short (it was 5,350 px
/// with a full form per variant). Then a quick start makes a game, and the flow makes one with a
/// variant's own option, a colour and an open seat.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_home_page_flow_starts_a_game_from_above_the_fold() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let driver = Driver::start().await;
    for (name, width, height) in [("desktop", 1280, 800), ("phone", 390, 844)] {
        let page = driver.screen(name, width, height).await;
        page.goto(&format!("{}/", server.base)).await.unwrap();
        let seen = page
            .execute(
                "const b = document.querySelector('main button').getBoundingClientRect(); \
                 const d = document.documentElement; \
                 return {top: b.top, bottom: b.bottom, left: b.left, right: b.right, \
                   width: innerWidth, height: innerHeight, \
                   page: d.scrollHeight, wide: d.scrollWidth, \
                   words: document.querySelector('main button').innerText};",
                vec![],
            )
            .await
            .unwrap();
        let at = |k: &str| seen[k].as_f64().unwrap();
        assert!(
            at("top") >= 0.0 && at("bottom") <= at("height"),
            "{name}: the first button is not above the fold: {seen}"
        );
        assert!(
            at("left") >= 0.0 && at("right") <= at("width"),
            "{name}: {seen}"
        );
        assert_eq!(at("width"), f64::from(width), "{name}: {seen}");
        assert!(
            at("wide") <= at("width"),
            "{name}: wider than the screen: {seen}"
        );
        assert!(
            seen["words"].as_str().unwrap().starts_with("Play a friend"),
            "{name}: {seen}"
        );
        if name == "phone" {
            assert!(at("page") <= 2400.0, "the phone's page is too tall: {seen}");
        }
        std::fs::write(
            screenshots_dir().join(format!("home-{name}.png")),
            page.screenshot().await.unwrap(),
        )
        .unwrap();
        page.close().await.unwrap();
    }

    // The standard game is chosen at first, its options alone shown; a card picked with the
    // mouse, or the next with an arrow key, shows its own instead.
    let page = driver.screen("keys", 1280, 800).await;
    page.goto(&format!("{}/", server.base)).await.unwrap();
    let shown = || async {
        page.execute(
            "return [...document.querySelectorAll('.variant-options')] \
               .filter((f) => f.offsetParent !== null).map((f) => f.id)",
            vec![],
        )
        .await
        .unwrap()
    };
    assert_eq!(shown().await, json!(["options-nine-mens-morris"]));
    press(&page, "label[for=\"v-three-mens-morris\"]").await;
    assert_eq!(shown().await, json!(["options-three-mens-morris"]));
    let radio = page
        .find(Locator::Css("#v-three-mens-morris"))
        .await
        .unwrap();
    radio.send_keys("\u{E014}").await.unwrap();
    let next = merels::catalog::Catalog::builtin().variants()[1].slug();
    assert_eq!(shown().await, json!([format!("options-{next}")]));
    assert_eq!(
        page.execute("return document.activeElement.id", vec![])
            .await
            .unwrap(),
        json!(format!("v-{next}")),
        "the focus moves with the choice"
    );

    // A quick start: the first button plays a friend at the standard game, untimed.
    press(&page, "main button").await;
    wait_text(&page, "#you", "You play").await;
    let id = page.current_url().await.unwrap().path()[3..].to_string();
    let state = http.state(&id).await;
    assert_eq!(
        (state["variant"].as_str(), state["status"].as_str()),
        (Some("nine-mens-morris"), Some("waiting")),
        "{state}"
    );
    page.close().await.unwrap();

    // The whole flow on the phone: a variant's own option, Black, and an open challenge.
    let phone = driver.phone("flow").await;
    start_from_home(
        &phone,
        &server,
        "three-mens-morris",
        &[("movement", "adjacent")],
        "black",
        "open",
    )
    .await;
    wait_text(&phone, "#you", "You play black.").await;
    let id = phone.current_url().await.unwrap().path()[3..].to_string();
    let state = http.state(&id).await;
    assert_eq!(state["variant"], "three-mens-morris", "{state}");
    assert_eq!(state["options"]["movement"], "adjacent", "{state}");
    assert!(
        home_page(&server)
            .await
            .contains(&format!("href=\"/g/{id}\"")),
        "listed as open"
    );
    phone.close().await.unwrap();
    server.stop().await;
}
