//! The site in another language: the switcher on a page sets it for the whole site, without
//! JavaScript's help, and a game is played in it.

use super::*;

/// A visitor switches the home page to German by its switcher, then plays a game whose page,
/// the server's words and the client's alike, speaks German; the opponent's browser stays
/// English.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_switcher_turns_the_site_german_and_a_game_is_played_in_it() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let driver = Driver::start().await;
    let white = driver.phone("lang-white").await;
    let black = driver.phone("lang-black").await;

    white.goto(&format!("{}/", server.base)).await.unwrap();
    wait_text(&white, "h1", "Play mill games with a friend").await;
    press(&white, "nav.languages a[lang=\"de\"]").await;
    wait_text(&white, "h1", "Mühle mit Freunden spielen").await;
    assert_eq!(attr(&white, "html", "lang").await.as_deref(), Some("de"));

    let seat = server.http().create("nine-mens-morris", "white").await;
    white.goto(&seat_link(&server, &seat).await).await.unwrap();
    wait_text(&white, "#you", "Du spielst Weiß.").await;
    wait_text(&white, "#status", "Warte auf einen Gegner").await;
    black
        .goto(&format!("{}/g/{}", server.base, seat.id))
        .await
        .unwrap();
    press_when_shown(&black, "#take-seat").await;
    wait_text(&black, "#you", "You play black.").await;

    wait_text(&white, "#status", "Du bist am Zug.").await;
    assert_eq!(text(&white, ".side.white strong").await, "Weiß");
    assert!(text(&white, "#sides").await.contains("in der Hand"));
    click_turn(&white, "a1").await;
    wait_text(&white, "#status", "Schwarz am Zug.").await;
    wait_text(&white, "#announce", "Weiß setzt auf a1").await;
    wait_text(&black, "#status", "Your turn.").await;
    click_turn(&black, "d7").await;
    wait_text(&white, "#announce", "Schwarz setzt auf d7. Du bist am Zug.").await;
    // The page's own words are German too, from the server.
    assert!(text(&white, "#resign").await.contains("Aufgeben"));
    assert!(text(&white, "footer").await.contains("Deutsch"));
    std::fs::write(
        screenshots_dir().join("game-de.png"),
        white.screenshot().await.unwrap(),
    )
    .unwrap();
    white.close().await.unwrap();
    black.close().await.unwrap();
}

/// Persian reads right to left: the page is laid out so, its words are Persian, and the board
/// and its coordinates are not mirrored (a1 stays at the bottom left).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_persian_page_is_right_to_left_but_its_board_is_not_mirrored() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let seat = server.http().create("nine-mens-morris", "white").await;
    let driver = Driver::start().await;
    let white = driver.phone("lang-fa").await;
    white.goto(&seat_link(&server, &seat).await).await.unwrap();
    wait_text(&white, "#you", "You play white.").await;
    press(&white, "nav.languages a[lang=\"fa\"]").await;
    wait_text(&white, "#you", "شما با سفید بازی می‌کنید.").await;
    assert_eq!(attr(&white, "html", "dir").await.as_deref(), Some("rtl"));
    let direction = white
        .execute("return getComputedStyle(document.body).direction", vec![])
        .await
        .unwrap();
    assert_eq!(direction, "rtl");
    // The board as everywhere else: a1 left of g1, and below a7.
    let (a1, g1, a7) = (
        rect(&white, "[data-point=\"a1\"]").await,
        rect(&white, "[data-point=\"g1\"]").await,
        rect(&white, "[data-point=\"a7\"]").await,
    );
    assert!(a1.left < g1.left, "a1 at {} and g1 at {}", a1.left, g1.left);
    assert!(a7.bottom < a1.top);
    wait_text(&white, "#status", "در انتظار حریف").await;
    screenshot_of(&white, "#board", "game-fa.png").await;
    white.close().await.unwrap();
}
