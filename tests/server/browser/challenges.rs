//! Open challenges stay true (issue 43): a challenge whose creator has closed the browser leaves
//! the home page after the grace, and whoever takes its seat all the same is not stranded: the
//! invite says the creator is offline, and the game, untimed, is called off after the absence
//! wait (nobody loses), with the taker told and shown the open challenges.

use super::*;
use crate::harness::Ws;

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
    let creator = driver.browser("creator", 1000, 800).await;
    start_from_home(&creator, &server, "six-mens-morris", &[], "white", "open").await;
    wait_text(&creator, "#you", "You play white.").await;
    let id = creator
        .current_url()
        .await
        .unwrap()
        .path()
        .trim_start_matches("/g/")
        .to_string();
    let visitor = driver.browser("visitor", 1000, 800).await;
    visitor.goto(&server.base).await.unwrap();
    wait_text(
        &visitor,
        "#challenges",
        "Six Men's Morris, Untimed: White is waiting",
    )
    .await;
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
    wait_text(
        &visitor,
        "#called-off-text",
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
