//! Ends and offers on the page: resignation, draws, rematches and aborts, each said to both sides.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_resigns_from_the_page() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let driver = Driver::start().await;
    let (white, black, seat) =
        seated_pair(&server, &driver, "six-mens-morris", ["white", "black"]).await;
    // The tab says whose turn it is; each player sees the board from their side, and may turn it.
    assert!(white.title().await.unwrap().starts_with("Your turn · "));
    assert!(!black.title().await.unwrap().contains("Your turn"));
    let a1 = "#board [data-point=\"a1\"]";
    assert_eq!(
        attr(&white, a1, "transform").await.as_deref(),
        Some("translate(0 4)")
    );
    assert_eq!(
        attr(&black, a1, "transform").await.as_deref(),
        Some("translate(4 0)")
    );
    press(&black, "#flip").await;
    assert_eq!(
        attr(&black, a1, "transform").await.as_deref(),
        Some("translate(0 4)")
    );
    press(&black, "#flip").await;
    click(&white, "a1").await;
    wait_text(&black, "#turns", "a1").await;
    wait_text(&white, "#turns", "a1").await;
    // A turn sounds; the mute switch is remembered.
    assert_eq!(
        attr(&black, "#game", "data-sound").await.as_deref(),
        Some("turn")
    );
    assert!(black.title().await.unwrap().starts_with("Your turn · "));
    press(&black, "#mute").await;
    let muted = black
        .execute("return localStorage.getItem('merels.mute')", vec![])
        .await
        .unwrap();
    assert_eq!(muted, "1");
    // Only White has a turn to take back.
    assert_eq!(attr(&white, "#takeback-offer", "hidden").await, None);
    assert_eq!(
        attr(&black, "#takeback-offer", "hidden").await.as_deref(),
        Some("true")
    );
    // Resigning asks once more before it acts.
    let resign = black.find(Locator::Css("#resign")).await.unwrap();
    resign.click().await.unwrap();
    wait_text(&black, "#resign", "Click again").await;
    assert_eq!(http.state(&seat.id).await["status"], "playing");
    resign.click().await.unwrap();
    for page in [&white, &black] {
        wait_text(page, "#banner", "White wins (resignation)").await;
    }
    // Each player hears how it went for them; the end sounds where sound is on.
    assert!(text(&white, "#banner").await.starts_with("You won: "));
    assert!(text(&black, "#banner").await.starts_with("You lost: "));
    // The panel beside the board, where the Rematch button is, says it too, above the fold.
    wait_text(&white, "#status", "You won: White wins (resignation). 1-0").await;
    wait_text(&black, "#status", "You lost: White wins (resignation). 1-0").await;
    assert!(rect(&white, "#status").await.bottom <= rect(&white, "#rematch").await.top);
    let fold = white.execute("return innerHeight", vec![]).await.unwrap();
    assert!(rect(&white, "#rematch").await.bottom <= fold.as_f64().unwrap());
    std::fs::write(
        screenshots_dir().join("game-over.png"),
        white.screenshot().await.unwrap(),
    )
    .unwrap();
    assert_eq!(
        attr(&white, "#game", "data-sound").await.as_deref(),
        Some("end")
    );
    assert_eq!(
        attr(&black, "#game", "data-sound").await.as_deref(),
        Some("turn"),
        "muted"
    );
    white.close().await.unwrap();
    black.close().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draw_is_offered_and_accepted_on_the_page() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let driver = Driver::start().await;
    let (white, black, _) =
        seated_pair(&server, &driver, "twelve-mens-morris", ["white", "black"]).await;
    press(&white, "#draw-offer").await;
    wait_text(&black, "#status", "Your opponent offers a draw.").await;
    wait_text(&white, "#status", "You offered a draw.").await;
    wait_text(&black, "#notice", "Your opponent offered a draw.").await;
    // Declined, it is said on both pages (and, in the live region, to screen readers).
    press(&black, "#draw-decline").await;
    wait_text(&white, "#notice", "Your opponent declined the draw.").await;
    wait_text(&black, "#notice", "You declined the draw.").await;
    // A takeback accepted changes the board, and says so.
    click(&white, "a1").await;
    wait_text(&black, "#turns", "a1").await;
    press(&white, "#takeback-offer").await;
    wait_text(&black, "#notice", "Your opponent asked for a takeback.").await;
    press(&black, "#takeback-accept").await;
    for page in [&white, &black] {
        wait_text(page, "#notice", "Takeback accepted: 1 turn taken back.").await;
        wait_text(page, "#announce", "Takeback accepted").await;
    }
    assert_eq!(text(&white, "#turns").await, "");
    // A takeback refused is said to both too.
    click(&white, "a1").await;
    wait_text(&black, "#turns", "a1").await;
    press(&white, "#takeback-offer").await;
    wait_text(&white, "#notice", "You asked for a takeback.").await;
    press_when_shown(&black, "#takeback-decline").await;
    wait_text(&white, "#notice", "Your opponent declined the takeback.").await;
    wait_text(&white, "#announce", "Your opponent declined the takeback.").await;
    wait_text(&black, "#notice", "You declined the takeback.").await;
    // A draw offered on one's own turn outlives it, and lapses with the opponent's next turn,
    // which both are told.
    press(&black, "#draw-offer").await;
    wait_text(&white, "#status", "Your opponent offers a draw.").await;
    click(&black, "g7").await;
    wait_text(&white, "#turns", "g7").await;
    wait_text(&white, "#status", "Your opponent offers a draw.").await;
    click(&white, "a4").await;
    wait_text(&white, "#notice", "The draw offer lapsed: You played on.").await;
    wait_text(
        &black,
        "#notice",
        "The draw offer lapsed: Your opponent played on.",
    )
    .await;
    // Offered again, and accepted this time.
    press(&white, "#draw-offer").await;
    wait_text(&black, "#status", "Your opponent offers a draw.").await;
    press(&black, "#draw-accept").await;
    for page in [&white, &black] {
        wait_text(page, "#banner", "Draw (agreement)").await;
    }
    white.close().await.unwrap();
    black.close().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_resignation_both_players_land_in_the_rematch_with_colours_swapped() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let driver = Driver::start().await;
    let (first, second, watcher, seat) =
        seated_pair_watched(&server, &driver, "five-mens-morris", ["first", "second"]).await;
    let resign = second.find(Locator::Css("#resign")).await.unwrap();
    resign.click().await.unwrap();
    wait_text(&second, "#resign", "Click again").await;
    resign.click().await.unwrap();
    wait_text(&first, "#banner", "White wins (resignation)").await;

    // A rematch offer can be declined, and each side is told.
    press(&first, "#rematch").await;
    wait_text(&second, "#notice", "Your opponent offered a rematch.").await;
    press_when_shown(&second, "#rematch-decline").await;
    wait_text(&first, "#notice", "Your opponent declined the rematch.").await;
    wait_text(&first, "#rematch", "Rematch").await;
    assert!(attr(&second, "#rematch-decline", "hidden").await.is_some());
    press(&first, "#rematch").await;
    wait_text(&second, "#rematch", "Accept the rematch").await;
    press(&second, "#rematch").await;
    wait_text(&first, "#you", "You play black.").await;
    wait_text(&second, "#you", "You play white.").await;
    let new_game = first.current_url().await.unwrap();
    assert_ne!(new_game.path(), format!("/g/{}", seat.id));
    assert!(new_game.query().is_none());
    wait_text(&watcher, "#rematch-link", "Watch the rematch").await;
    for c in [first, second, watcher] {
        c.close().await.unwrap();
    }
    server.stop().await;
}

/// An abort before the first turns reads as one, with no replay to step through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_aborted_game_says_so_and_offers_no_replay() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let driver = Driver::start().await;
    let (white, black, seat) =
        seated_pair(&server, &driver, "six-mens-morris", ["white", "black"]).await;
    let abort = black.find(Locator::Css("#abort")).await.unwrap();
    abort.click().await.unwrap();
    wait_text(&black, "#abort", "Click again").await;
    abort.click().await.unwrap();
    for page in [&white, &black] {
        wait_text(page, "#banner", "Game aborted.").await;
        assert!(!text(page, "#banner").await.contains('*'));
        assert_eq!(
            attr(page, "#replay", "hidden").await.as_deref(),
            Some("true")
        );
    }
    assert_eq!(http.state(&seat.id).await["termination"], "aborted");
    white.close().await.unwrap();
    black.close().await.unwrap();
    server.stop().await;
}

/// Against the computer: a draw it accepts leaves no offer said under the finished game, and the
/// player is not offered a chat with an opponent who cannot read it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draw_the_computer_accepts_leaves_no_offer_behind_and_no_chat_with_it() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let driver = Driver::start().await;
    // White, the human, holds the won side of Three Men's with adjacent moves: the computer,
    // which knows it is lost, takes a draw at once.
    let seat = http
        .create_with(json!({
            "variant": "three-mens-morris",
            "options": {"movement": "adjacent"},
            "color": "white",
            "computer": 6,
        }))
        .await;
    let page = driver.browser("human", 1000, 800).await;
    page.goto(&seat_link(&server, &seat).await).await.unwrap();
    wait_text(&page, "#you", "You play white.").await;
    wait_text(&page, "#sides", "computer, level 6").await;
    wait_text(&page, "#chat-title", "Spectators' chat").await;
    assert!(!text(&page, "#chat").await.contains("opponent"));
    click(&page, "b2").await;
    wait_text(&page, "#replay-at", "2 / 2").await;
    press_when_shown(&page, "#draw-offer").await;
    wait_text(&page, "#banner", "Draw (agreement)").await;
    assert_eq!(text(&page, "#notice").await, "");
    assert!(!text(&page, ".panel").await.contains("offered a draw"));
    std::fs::write(
        screenshots_dir().join("computer-draw.png"),
        page.screenshot().await.unwrap(),
    )
    .unwrap();
    page.close().await.unwrap();
    server.stop().await;
}
