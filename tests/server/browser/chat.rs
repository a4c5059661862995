//! The chats on the page: the players talk, the spectators talk apart, a player may read the
//! spectators or mute the chat, text stays text, and the limits are said where the line was typed.

use super::*;

/// Types a line into the chat and sends it.
async fn say(c: &Client, text: &str) {
    let input = c.find(Locator::Css("#chat-text")).await.unwrap();
    input.clear().await.unwrap();
    input.send_keys(text).await.unwrap();
    press(c, "#chat-form button").await;
}

/// Waits until the input is empty again (the line went) and its line is shown.
async fn said(c: &Client, line: &str) {
    wait_text(c, "#chat-lines", line).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_chat_and_spectators_chat_apart() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let driver = Driver::start().await;
    let (white, black, watcher, _) =
        seated_pair_watched(&server, &driver, "nine-mens-morris", ["white", "black"]).await;
    wait_text(&watcher, "#chat-title", "Spectators' chat").await;
    wait_text(&white, "#chat-title", "Chat with your opponent").await;

    // The players talk; markup stays text.
    say(&white, "good luck, <b>have fun</b> https://example.org").await;
    said(
        &black,
        "White: good luck, <b>have fun</b> https://example.org",
    )
    .await;
    said(&white, "You: good luck, <b>have fun</b>").await;
    assert_eq!(
        count(&black, "#chat-lines b").await,
        1,
        "only the speaker's name is bold"
    );
    assert_eq!(
        count(&black, "#chat-lines a").await,
        0,
        "links are not made"
    );
    say(&black, "you too").await;
    said(&white, "Black: you too").await;

    // The spectators talk among themselves; the players do not see it unless they choose to.
    say(&watcher, "nice opening").await;
    said(&watcher, "Spectator: nice opening").await;
    assert!(!text(&watcher, "#chat-lines").await.contains("good luck"));
    click(&white, "d2").await;
    wait_text(&black, "#turns", "d2").await;
    assert!(!text(&black, "#chat-lines").await.contains("nice opening"));
    press(&black, "#chat-spectators").await;
    said(&black, "Spectator: nice opening").await;
    assert!(
        text(&black, "#chat-lines")
            .await
            .contains("White: good luck")
    );

    // For the README: a game with its chat, the spectators' shown.
    say(&watcher, "black should take the centre").await;
    said(&black, "Spectator: black should take the centre").await;
    screenshot_of(&black, "#chat", "game-chat.png").await;

    // White mutes the chat: no lines, no input; what Black says meanwhile is there on unmuting.
    press(&white, "#chat-mute").await;
    wait_text(&white, "#chat-muted", "The chat is muted.").await;
    assert_eq!(
        attr(&white, "#chat-form", "hidden").await.as_deref(),
        Some("true")
    );
    say(&black, "still there?").await;
    said(&black, "You: still there?").await;
    assert!(!text(&white, "#chat").await.contains("still there?"));
    // The choice outlives a reload; the lines are kept by the server.
    white.refresh().await.unwrap();
    wait_text(&white, "#you", "You play white.").await;
    wait_text(&white, "#chat-muted", "The chat is muted.").await;
    assert!(!text(&white, "#chat").await.contains("still there?"));
    press(&white, "#chat-mute").await;
    said(&white, "Black: still there?").await;
    said(&white, "You: good luck").await;

    // Black plays a turn: once it is stored, a refusal that comes later is the line's, not the
    // turn's.
    click(&black, "f4").await;
    wait_text(&white, "#turns", "f4").await;
    wait_text(&black, "#turns", "f4").await;

    // Too many lines at once (five in ten seconds, counting what Black said before): the
    // refusal is said under the chat, and the text given back to send later.
    let mut refused = None;
    for i in 0..6 {
        let line = format!("line {i}");
        say(&black, &line).await;
        let deadline = Instant::now() + WAIT;
        loop {
            if text(&black, "#chat-note")
                .await
                .contains("Not sent: at most 5 chat lines")
            {
                refused = Some(line.clone());
                break;
            }
            if text(&black, "#chat-lines")
                .await
                .contains(&format!("You: {line}"))
            {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{line} was neither said nor refused"
            );
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
        if refused.is_some() {
            break;
        }
    }
    let refused = refused.expect("the sixth line in a row is refused");
    let kept = black
        .execute("return document.getElementById('chat-text').value", vec![])
        .await
        .unwrap();
    assert_eq!(kept, refused.as_str());
    assert!(!text(&white, "#chat-lines").await.contains(&refused));
    assert_eq!(
        text(&black, "#banner").await,
        "",
        "the board's banner is not the chat's"
    );
    screenshot_of(&black, "#chat", "chat-refused.png").await;
    for c in [white, black, watcher] {
        c.close().await.unwrap();
    }
}
