//! The hand-off that moves a seat (the old browser is told, and stays a spectator after a
//! reload), My games following it, and the notice while the computer's perfect play is prepared.

use super::*;

/// Opens My games in `c` and waits until it lists White's turn in the game, then saves a
/// screenshot of the list as `file`.
async fn lists_my_turn(c: &Client, server: &TestServer, file: &str) {
    c.goto(&format!("{}/my-games", server.base)).await.unwrap();
    wait_text(c, "#mine-open li", "you play white: your turn").await;
    screenshot_of(c, "#my-games", file).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_moved_seat_leaves_the_old_browser_and_its_list() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let driver = Driver::start().await;
    let first = driver.screen("first", 1280, 800).await;
    let second = driver.phone("second").await;
    let seat = http.create("six-mens-morris", "white").await;
    http.join(&seat.id).await;
    first.goto(&seat_link(&server, &seat).await).await.unwrap();
    wait_text(&first, "#you", "You play white.").await;
    // The first browser's list has the game, its turn.
    lists_my_turn(&first, &server, "my-games-desktop.png").await;
    first
        .goto(&format!("{}/g/{}", server.base, seat.id))
        .await
        .unwrap();
    wait_text(&first, "#you", "You play white.").await;

    // The choice comes first, in plain words; the link made says what it does.
    press(&first, "#handoff summary").await;
    assert!(
        text(&first, "#handoff-move")
            .await
            .contains("Move my seat there")
    );
    assert!(
        text(&first, "#handoff-keep")
            .await
            .contains("Keep it here, also open it there")
    );
    press(&first, "#handoff-move").await;
    let link = made_link(&first).await;
    wait_text(&first, "#handoff-what", "this device only watches").await;

    second.goto(&link).await.unwrap();
    wait_text(&second, "#you", "You play white.").await;
    // The old browser is told at once, and watches.
    wait_text(&first, "#seat-moved", "Your seat moved to another device").await;
    wait_text(&first, "#you", "You are watching.").await;
    assert!(attr(&first, "#handoff", "hidden").await.is_some());
    screenshot_of(&first, "#seat-moved", "seat-moved.png").await;
    // ...and after a reload too.
    first.refresh().await.unwrap();
    wait_text(&first, "#seat-moved", "Your seat moved to another device").await;
    wait_text(&first, "#you", "You are watching.").await;

    // My games: the new holder lists it (its turn), the old one no longer does.
    lists_my_turn(&second, &server, "my-games-phone.png").await;
    first
        .goto(&format!("{}/my-games", server.base))
        .await
        .unwrap();
    wait_text(&first, "#mine-none", "None right now").await;
    assert_eq!(count(&first, "#mine-open li").await, 0);
    // The home page's line, from the header's link's list.
    second.goto(&server.base).await.unwrap();
    wait_text(&second, "#my-turns", "Your turn in 1 game").await;
    first.goto(&server.base).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        text(&first, "#my-turns").await,
        "",
        "no line with no turn waiting"
    );
    first.close().await.unwrap();
    second.close().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_says_while_the_computers_perfect_play_is_prepared() {
    let _turn = one_at_a_time().await;
    let tables = tempfile::tempdir().unwrap();
    let folder = tables.path().to_path_buf();
    let server = TestServer::start_with(|c| c.tables = Some(folder)).await;
    let http = server.http();
    let driver = Driver::start().await;
    let page = driver.browser("solver", 1000, 800).await;
    // The computer moves first: its first turn asks for the table, which no disk has.
    let seat = http
        .create_with(json!({"variant": "five-mens-morris", "color": "black", "computer": 6}))
        .await;
    page.goto(&seat_link(&server, &seat).await).await.unwrap();
    wait_text(&page, "#you", "You play black.").await;
    wait_text(
        &page,
        "#computer-note",
        "The computer is preparing its perfect play for this board: it plays from its search until then, about",
    )
    .await;
    screenshot_of(&page, "#computer-note", "computer-preparing.png").await;
    // Once the table is built, the page says so at the room's next wake (here a spectator
    // arriving; in play, the computer's next turn).
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        let _ = server.ws(&seat.id, None).await;
        if text(&page, "#computer-note").await.contains("is ready") {
            break;
        }
        assert!(Instant::now() < deadline, "the table was never ready");
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    page.close().await.unwrap();
    server.stop().await;
}
