//! Names on the page: a player names their seat beside the board; a refused name is said under
//! the form and changes nothing; an accepted one shows, as text and isolated, on the opponent's
//! page and a spectator's, in the chat and in the record, and the browser gives it to its next
//! seat.

use super::*;

/// Types `name` into the seat's name form and saves it.
async fn name_as(c: &Client, name: &str) {
    let input = c.find(Locator::Css("#name-input")).await.unwrap();
    input.clear().await.unwrap();
    input.send_keys(name).await.unwrap();
    press(c, "#name-form button").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_set_on_the_page_shows_to_the_opponent_and_spectators_as_text() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let driver = Driver::start().await;
    let (white, black, watcher, seat) =
        seated_pair_watched(&server, &driver, "nine-mens-morris", ["white", "black"]).await;
    assert_eq!(
        attr(&watcher, "#name-form", "hidden").await.as_deref(),
        Some("true"),
        "a spectator has no seat to name"
    );
    let version = server.http().state(&seat.id).await["version"].clone();

    // Markup is no name: refused, said under the form, and nothing changes.
    name_as(&white, "<b>Ana</b>").await;
    wait_text(&white, "#name-note", "Not saved: a name holds only letters").await;
    assert_eq!(server.http().state(&seat.id).await["version"], version);
    assert!(!text(&black, "#sides").await.contains("Ana"));

    // A name in a right-to-left script, with one in a left-to-right one.
    name_as(&white, "مريم Ana").await;
    wait_text(&white, "#name-note", "Saved").await;
    for page in [&black, &watcher, &white] {
        wait_text(page, "#sides", "مريم Ana").await;
        assert_eq!(count(page, "#sides bdi.player-name").await, 1);
    }
    // The chat says who spoke by name; what they said stays text.
    let input = white.find(Locator::Css("#chat-text")).await.unwrap();
    input.send_keys("<i>hello</i>").await.unwrap();
    press(&white, "#chat-form button").await;
    wait_text(&black, "#chat-lines", "مريم Ana (White): <i>hello</i>").await;
    assert_eq!(count(&black, "#chat-lines i").await, 0, "no markup made");
    assert_eq!(count(&black, "#chat-lines bdi.player-name").await, 1);
    screenshot_of(&black, "#sides", "names.png").await;
    let record = server.http().record(&seat.id).await;
    assert!(record.contains("[White \"مريم Ana\"]"), "{record}");

    // The browser remembers the name: its next seat takes it at once.
    let next = server.http().create("six-mens-morris", "black").await;
    white.goto(&seat_link(&server, &next).await).await.unwrap();
    wait_text(&white, "#you", "You play black.").await;
    eventually("the remembered name is on the new seat", || async {
        server.http().state(&next.id).await["seats"]["black"]["name"] == "مريم Ana"
    })
    .await;
    wait_text(&white, "#sides", "مريم Ana").await;
    for c in [white, black, watcher] {
        c.close().await.unwrap();
    }
}
