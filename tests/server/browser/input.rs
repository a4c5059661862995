//! Playing by hand: a mill's removal, the keyboard alone, looking back during play, a double click.

use super::*;

/// A double click sends one turn: the page ignores the board while a turn is on its way.
/// Closing a mill by a placement: the man is drawn where it went and has left the hand while
/// the man to remove is chosen, and the turn can be cancelled (on touch too: a button).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mill_turn_shows_its_man_while_the_removal_is_chosen_and_can_be_cancelled() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let driver = Driver::start().await;
    let (white, black, seat) =
        seated_pair(&server, &driver, "six-mens-morris", ["white", "black"]).await;
    for (c, point, ply) in [
        (&white, "a1", 1),
        (&black, "e1", 2),
        (&white, "a3", 3),
        (&black, "e5", 4),
    ] {
        click(c, point).await;
        let deadline = Instant::now() + WAIT;
        while turns(&http.state(&seat.id).await).len() < ply {
            assert!(Instant::now() < deadline, "{point} was never played");
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        for page in [&white, &black] {
            wait_text(page, "#turns", point).await;
        }
    }
    let a5 = "#board [data-point=\"a5\"]";
    let white_hand = "#sides .side.white .hand";
    assert_eq!(text(&white, white_hand).await, "4");
    click(&white, "a5").await;
    wait_text(&white, "#removing", "Choose a man to remove").await;
    assert!(attr(&white, a5, "class").await.unwrap().contains("white"));
    assert_eq!(
        text(&white, white_hand).await,
        "3",
        "the man has left the hand"
    );
    press(&white, "#cancel-remove").await;
    let deadline = Instant::now() + WAIT;
    while !attr(&white, a5, "class").await.unwrap().contains("empty") {
        assert!(Instant::now() < deadline, "the cancelled man stayed");
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    assert_eq!(text(&white, white_hand).await, "4");
    assert!(attr(&white, "#removing", "hidden").await.is_some());
    assert_eq!(
        turns(&http.state(&seat.id).await).len(),
        4,
        "nothing was sent"
    );
    // Begun again, and finished with the removal.
    click_turn(&white, "a5xe1").await;
    wait_text(&black, "#turns", "a5xe1").await;
    white.close().await.unwrap();
    black.close().await.unwrap();
    server.stop().await;
}

/// Keyboard only: one playable point is in the tab order, arrow keys go between the playable
/// points, Enter plays; or the turn is typed in notation. A typed turn that is not legal is
/// refused on the page and nothing is sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_is_played_with_the_keyboard_alone() {
    const RIGHT: &str = "\u{E014}";
    const DOWN: &str = "\u{E015}";
    const ENTER: &str = "\u{E007}";
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let driver = Driver::start().await;
    let (white, black, seat) =
        seated_pair(&server, &driver, "six-mens-morris", ["white", "black"]).await;
    assert_eq!(
        count(&white, "#board [tabindex=\"0\"]").await,
        1,
        "one tab stop"
    );
    let first = white
        .find(Locator::Css("#board [tabindex=\"0\"]"))
        .await
        .unwrap();
    let start = first.attr("data-point").await.unwrap().unwrap();
    first.send_keys(RIGHT).await.unwrap();
    let focused = |c: &Client| {
        let c = c.clone();
        async move {
            c.active_element()
                .await
                .unwrap()
                .attr("data-point")
                .await
                .unwrap()
        }
    };
    let moved = focused(&white).await.expect("a point has the focus");
    assert_ne!(moved, start, "the arrow moved the focus");
    white
        .active_element()
        .await
        .unwrap()
        .send_keys(DOWN)
        .await
        .unwrap();
    let chosen = focused(&white).await.expect("a point has the focus");
    white
        .active_element()
        .await
        .unwrap()
        .send_keys(ENTER)
        .await
        .unwrap();
    wait_text(&black, "#turns", &chosen).await;
    assert_eq!(turns(&http.state(&seat.id).await), [chosen.as_str()]);

    // Black types. Not a legal turn first: refused here, nothing sent.
    let typed = black.find(Locator::Css("#typed")).await.unwrap();
    typed.send_keys(&format!("{chosen}{ENTER}")).await.unwrap();
    wait_text(&black, "#banner", "is not a legal turn here").await;
    let legal = http.state(&seat.id).await["legal"][0]["turn"]
        .as_str()
        .unwrap()
        .to_string();
    typed.clear().await.unwrap();
    typed
        .send_keys(&format!("{}{ENTER}", legal.to_uppercase()))
        .await
        .unwrap();
    wait_text(&white, "#turns", &legal).await;
    assert_eq!(
        turns(&http.state(&seat.id).await),
        [chosen.as_str(), legal.as_str()]
    );
    white.close().await.unwrap();
    black.close().await.unwrap();
    server.stop().await;
}

/// During play the turn list and the arrow keys go back through the game; nothing can be played
/// from an old position, and "Back to the game" returns to it as it stands.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_looks_back_during_play_and_returns_to_the_game() {
    const LEFT: &str = "\u{E012}";
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let driver = Driver::start().await;
    let (white, black, seat) =
        seated_pair(&server, &driver, "six-mens-morris", ["white", "black"]).await;
    for (c, point) in [(&white, "a1"), (&black, "e1"), (&white, "a3")] {
        click(c, point).await;
        for page in [&white, &black] {
            wait_text(page, "#turns", point).await;
        }
    }
    let class = |point: &'static str| {
        let black = black.clone();
        async move {
            attr(&black, &format!("#board [data-point=\"{point}\"]"), "class")
                .await
                .unwrap()
        }
    };
    press(&black, "#turns span[data-ply=\"2\"]").await;
    wait_text(
        &black,
        "#status",
        "Looking back: the position after turn 2 of 3",
    )
    .await;
    assert!(class("a3").await.contains("empty") && class("e1").await.contains("black"));
    assert_eq!(attr(&black, "#back-to-game", "hidden").await, None);
    black
        .active_element()
        .await
        .unwrap()
        .send_keys(LEFT)
        .await
        .unwrap();
    wait_text(&black, "#replay-at", "1 / 3").await;
    assert!(class("e1").await.contains("empty"));
    // No turn from an old position.
    click(&black, "c1").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(turns(&http.state(&seat.id).await).len(), 3);
    press(&black, "#back-to-game").await;
    wait_text(&black, "#status", "Your turn.").await;
    assert!(class("a3").await.contains("white"));
    assert!(attr(&black, "#back-to-game", "hidden").await.is_some());
    click(&black, "e5").await;
    wait_text(&white, "#turns", "e5").await;
    white.close().await.unwrap();
    black.close().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_double_click_plays_one_turn() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let driver = Driver::start().await;
    let (white, black, seat) =
        seated_pair(&server, &driver, "six-mens-morris", ["white", "black"]).await;
    // Two clicks in one go, as a double tap lands: both before any answer can arrive.
    white
        .execute(
            "const p = document.querySelector('[data-point=\"a1\"]');\
             for (let i = 0; i < 2; i++) p.dispatchEvent(new MouseEvent('click', {bubbles: true}));",
            vec![],
        )
        .await
        .unwrap();
    wait_text(&black, "#turns", "a1").await;
    wait_text(&white, "#status", "Black to move.").await;
    assert_eq!(turns(&http.state(&seat.id).await), ["a1"]);
    assert!(
        !text(&white, "#banner").await.contains("not your turn"),
        "no second turn was sent"
    );
    assert_eq!(
        crate::harness::metric(&server, "merels_turns_rejected_total").await,
        0.0
    );
    // Play goes on as usual.
    click(&black, "e5").await;
    wait_text(&white, "#turns", "e5").await;
    white.close().await.unwrap();
    black.close().await.unwrap();
    server.stop().await;
}
