//! Presence: clocks, and a player who leaves (by closing, or by following a link away).

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clocks_tick_and_a_player_who_leaves_can_be_claimed_against() {
    let _turn = one_at_a_time().await;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("merels.db").display());
    let server = TestServer::start_on(&url, |c| c.absent_timed_secs = 1.0).await;
    let driver = Driver::start().await;
    let (white, black, seat) = seated_pair_timed(
        &server,
        &driver,
        "six-mens-morris",
        ["white", "black"],
        "1+0",
    )
    .await;
    wait_text(&white, "#time-control", "Time: 1 min + 0 s").await;
    wait_text(&white, "#clock-note", "You have").await;
    wait_text(&black, "#clock-note", "White has").await;
    wait_text(&black, ".clock[data-side=\"black\"]", "1:00").await;
    // The clocks sit beside the board, the opponent's at the top and one's own at the bottom;
    // on a phone, above and below it.
    wait_text(&white, "#clock-top", "Black").await;
    wait_text(&white, "#clock-bottom", "White (you)").await;
    wait_text(&black, "#clock-top", "White").await;
    wait_text(&black, "#clock-bottom", "Black (you)").await;
    let (board, top, bottom) = (
        rect(&white, "#board").await,
        rect(&white, "#clock-top").await,
        rect(&white, "#clock-bottom").await,
    );
    assert!(
        top.left >= board.right && bottom.left >= board.right,
        "{board:?} {top:?} {bottom:?}"
    );
    assert!(top.bottom <= bottom.top && bottom.bottom <= board.bottom + 1.0);
    let phone = driver.browser("phone", 390, 844).await;
    phone
        .goto(&format!("{}/g/{}", server.base, seat.id))
        .await
        .unwrap();
    wait_text(&phone, "#clock-top", "Black").await;
    let (board, top, bottom) = (
        rect(&phone, "#board").await,
        rect(&phone, "#clock-top").await,
        rect(&phone, "#clock-bottom").await,
    );
    assert!(
        top.bottom <= board.top && bottom.top >= board.bottom,
        "{board:?} {top:?} {bottom:?}"
    );
    assert!(
        bottom.bottom <= 844.0,
        "the bottom clock is above the fold: {bottom:?}"
    );
    std::fs::write(
        screenshots_dir().join("clocks-phone.png"),
        phone.screenshot().await.unwrap(),
    )
    .unwrap();
    phone.close().await.unwrap();
    click(&white, "a1").await;
    wait_text(&black, "#turns", "a1").await;
    click(&black, "e5").await;
    wait_text(&white, "#turns", "e5").await;

    // Both have moved: White's clock runs down on both pages, Black's stands.
    let white_clock = ".clock.running[data-side=\"white\"]";
    wait_text(&black, white_clock, "0:5").await;
    let first = text(&black, white_clock).await;
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let later = text(&black, white_clock).await;
    assert!(
        later < first,
        "White's clock stood still: {first} then {later}"
    );
    assert_eq!(text(&black, ".clock[data-side=\"black\"]").await, "1:00");

    // White goes away on White's turn. Black is told, and after the wait may claim the win.
    white.close().await.unwrap();
    wait_text(&black, ".side.white .presence", "offline").await;
    wait_text(&black, "#clock-note", "White has left the game.").await;
    wait_text(&black, "#clock-note", "You may claim the win or a draw").await;
    std::fs::write(
        screenshots_dir().join("game-claim.png"),
        black.screenshot().await.unwrap(),
    )
    .unwrap();
    press(&black, "#claim-win").await;
    wait_text(&black, "#banner", "Black wins (abandonment)").await;
    black.close().await.unwrap();
    server.stop().await;
}

/// A player who leaves by a link (the logo) or the back button no longer counts as present, even
/// were the page kept in the back/forward cache; coming back makes them present again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_who_follows_a_link_away_is_offline_until_back() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start_with(|c| c.absent_untimed_secs = 1.0).await;
    let http = server.http();
    let driver = Driver::start().await;
    let (white, black, seat) =
        seated_pair(&server, &driver, "six-mens-morris", ["white", "black"]).await;
    wait_text(&black, ".side.white .presence", "online").await;
    // Both move (before that, a game is aborted rather than claimed); then White, to move,
    // follows the logo away.
    click(&white, "a1").await;
    wait_text(&black, "#turns", "a1").await;
    click(&black, "e5").await;
    wait_text(&white, "#turns", "e5").await;
    press(&white, "a.brand").await;
    wait_text(&black, ".side.white .presence", "offline").await;
    assert_eq!(
        http.state(&seat.id).await["seats"]["white"]["connected"],
        false
    );
    // Gone on their turn: after the wait, the opponent may claim the game.
    wait_text(&black, "#clock-note", "You may claim the win or a draw").await;
    white.back().await.unwrap();
    wait_text(&white, "#you", "You play white.").await;
    wait_text(&black, ".side.white .presence", "online").await;
    // Back in time, the claim is gone.
    let deadline = Instant::now() + WAIT;
    while attr(&black, "#claim", "hidden").await.is_none() {
        assert!(
            Instant::now() < deadline,
            "the claim stayed after White came back"
        );
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
    white.close().await.unwrap();
    black.close().await.unwrap();
    server.stop().await;
}

/// In a game of days per turn, a player who allowed notifications is told of the opponent's turn
/// while the page is in the background; one who has not decided is offered the switch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correspondence_player_is_notified_of_their_turn() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let driver = Driver::start().await;
    let seat = server
        .http()
        .create_timed("six-mens-morris", "white", "1d")
        .await;
    let allowed = json!({"profile.default_content_setting_values.notifications": 1});
    let white = driver
        .browser_with_prefs("white", 1000, 800, &[], allowed)
        .await;
    let black = driver.browser("black", 1000, 800).await;
    seat_both(&server, &seat, &white, &black).await;
    wait_text(&white, "#notify-on", "You are notified of your turn.").await;
    wait_text(&black, "#notify", "Notify me of my turn").await;
    assert_eq!(
        attr(&white, "#notify", "hidden").await.as_deref(),
        Some("true")
    );

    // White plays, then looks at another tab; Black answers.
    click(&white, "a1").await;
    wait_text(&black, "#turns", "a1").await;
    white
        .execute(
            "window.told = []; const Real = window.Notification; \
             window.Notification = class extends Real { \
               constructor(title, options) { super(title, options); window.told.push([title, options.body]); } };",
            vec![],
        )
        .await
        .unwrap();
    let game = white.window().await.unwrap();
    let other = white.new_window(true).await.unwrap();
    white.switch_to_window(other.handle).await.unwrap();
    white.goto(&format!("{}/", server.base)).await.unwrap();
    click(&black, "e5").await;
    wait_text(&black, "#turns", "e5").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    white.switch_to_window(game).await.unwrap();
    let told = white.execute("return window.told", vec![]).await.unwrap();
    assert_eq!(
        told,
        json!([[
            "Your turn",
            "Your opponent played e5. Six Men's Morris · merels"
        ]])
    );
    for c in [white, black] {
        c.close().await.unwrap();
    }
    server.stop().await;
}
