//! Open challenges stay true (issue 43): a challenge whose creator has closed the browser leaves
//! the home page after the grace, and whoever takes its seat all the same is not stranded: the
//! invite says the creator is offline, and the game, untimed, is called off after the absence
//! wait (nobody loses), with the taker told and shown the open challenges.

use super::*;
use crate::harness::Ws;

/// The page of a player whose game was called off before it began says why, and offers the
/// open challenges and a new game: none of what a game that was played offers (a rematch, a
/// name for the seat, the chat with the opponent), nor a link to share or a seat to move.
async fn offers_only_a_new_start(c: &Client, why: &str) {
    wait_text(c, "#called-off-text", why).await;
    wait_text(c, "#called-off-new", "Start a new game").await;
    for css in ["#rematch", "#name-form", "#chat", ".share", "#handoff"] {
        let element = c.find(Locator::Css(css)).await.unwrap();
        assert!(!element.is_displayed().await.unwrap(), "{css} is offered");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_challenge_is_unlisted_and_its_taker_is_released() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start_with(|c| {
        c.challenge_grace_secs = 1.0;
        c.absent_untimed_secs = 2.0;
    })
    .await;
    let http = server.http();
    // Another challenge, whose creator stays: the one the stranded taker is offered.
    let other = http
        .create_with(json!({"variant": "three-mens-morris", "color": "black", "open": true}))
        .await;
    let _other_creator = Ws::connect(server.addr, &other.id, Some(&other.secret)).await;

    let driver = Driver::start().await;
    let (creator, visitor, id) = open_challenge(&server, &driver).await;
    let link = format!("/g/{id}");
    assert_eq!(
        attr(&visitor, "#challenges li:first-child a", "href")
            .await
            .as_deref(),
        Some(link.as_str())
    );

    // The creator closes the browser: after the grace, the home page lists it no more.
    creator.close().await.unwrap();
    let deadline = Instant::now() + WAIT;
    loop {
        visitor.goto(&server.base).await.unwrap();
        let listed = text(&visitor, "#challenges").await;
        assert!(listed.contains("Three Men's Morris"), "{listed}");
        if !listed.contains("Six Men's Morris") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the dead challenge stayed listed"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // Its link still opens it: the invite says the creator is offline. Taking the seat anyway,
    // the taker waits the absence wait, then the game is called off, lost by nobody.
    visitor
        .goto(&format!("{}{link}", server.base))
        .await
        .unwrap();
    wait_text(
        &visitor,
        "#invite-text",
        "White (offline) made this game. Play black, or watch?",
    )
    .await;
    press(&visitor, "#take-seat").await;
    wait_text(&visitor, "#you", "You play black.").await;
    wait_text(&visitor, "#status", "White to move.").await;
    wait_text(&visitor, "#banner", "Game aborted").await;
    let state = http.state(&id).await;
    assert_eq!(
        (
            state["termination"].as_str(),
            state["winner"].as_str(),
            state["result"].as_str()
        ),
        (Some("aborted"), None, Some("*"))
    );
    offers_only_a_new_start(
        &visitor,
        "Your opponent did not come back, so the game was called off: nobody lost.",
    )
    .await;
    wait_text(
        &visitor,
        "#called-off-list",
        "Three Men's Morris (Diagonals: On · Movement: To any empty point), Untimed: Black is waiting",
    )
    .await;
    assert_eq!(
        attr(&visitor, "#called-off-list a", "href")
            .await
            .as_deref(),
        Some(format!("/g/{}", other.id).as_str())
    );
    screenshot_of(&visitor, "main", "called-off.png").await;
    press(&visitor, "#called-off-list a").await;
    wait_text(
        &visitor,
        "#invite-text",
        "Black is waiting for an opponent. Play white, or watch?",
    )
    .await;
    visitor.close().await.unwrap();
    server.stop().await;
}

/// A game that never started: an open challenge nobody took expires, and a game for a friend is
/// cancelled by its creator. Each page says what happened, also after a reload, and offers a
/// new game rather than a rematch with nobody.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_that_never_started_offers_a_new_one_not_a_rematch() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start_with(|c| c.challenge_expiry_secs = 3.0).await;
    let driver = Driver::start().await;
    let creator = driver.browser("creator", 1280, 800).await;
    start_from_home(&creator, &server, "six-mens-morris", &[], "white", "open").await;
    wait_text(&creator, "#you", "You play white.").await;
    let expired = "Nobody took the other seat, so the game was called off: nobody lost.";
    offers_only_a_new_start(&creator, expired).await;
    creator.refresh().await.unwrap();
    offers_only_a_new_start(&creator, expired).await;

    start_from_home(
        &creator,
        &server,
        "nine-mens-morris",
        &[],
        "black",
        "friend",
    )
    .await;
    wait_text(&creator, "#you", "You play black.").await;
    let cancel = creator.find(Locator::Css("#cancel")).await.unwrap();
    cancel.click().await.unwrap();
    wait_text(&creator, "#cancel", "Click again").await;
    cancel.click().await.unwrap();
    offers_only_a_new_start(&creator, "You cancelled the game: nobody lost.").await;
    press(&creator, "#called-off-new").await;
    wait_text(&creator, "h1", "Play mill games with a friend").await;
    creator.close().await.unwrap();
    server.stop().await;
}
