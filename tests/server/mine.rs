//! "My games" and the hand-off that moves a seat: the list follows the seats a browser holds
//! (by its `merels_browser` cookie) across a hand-off that moves one, one that shares one, the
//! end of a game and a restart; a moved seat's old secret stops working and its sockets are
//! closed with 4410; bad input to each endpoint is refused and changes nothing.

use crate::harness::{Http, Seat, TestServer};
use serde_json::{Value, json};

/// The browser's list: each game as (id, seat, status, your_turn).
async fn listed(http: &Http) -> Vec<(String, String, String, bool)> {
    let (status, body) = http.request("GET", "/api/my-games", None, None).await;
    assert_eq!(status, 200, "{body}");
    let games = body["games"].as_array().unwrap();
    let mine: Vec<_> = games
        .iter()
        .map(|g| {
            (
                g["id"].as_str().unwrap().to_string(),
                g["seat"].as_str().unwrap().to_string(),
                g["status"].as_str().unwrap().to_string(),
                g["your_turn"].as_bool().unwrap(),
            )
        })
        .collect();
    let turns = mine.iter().filter(|g| g.3).count() as u64;
    assert_eq!(body["your_turn"], turns, "{body}");
    mine
}

/// Takes a hand-off code as `http`'s browser.
async fn take(http: &Http, id: &str, code: &str) -> (u16, Value) {
    http.request(
        "POST",
        &format!("/api/games/{id}/handoff/take"),
        None,
        Some(json!({ "code": code })),
    )
    .await
}

fn row(id: &str, seat: &str, status: &str, your_turn: bool) -> (String, String, String, bool) {
    (id.into(), seat.into(), status.into(), your_turn)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn my_games_lists_and_unlists_across_a_hand_off_and_a_restart() {
    let server = TestServer::start().await;
    let (a, b, c, d) = (
        server.browser(),
        server.browser(),
        server.browser(),
        server.browser(),
    );
    assert_eq!(listed(&a).await, vec![], "a new browser has no games");
    let white = a.create_timed("six-mens-morris", "white", "1d").await;
    let id = white.id.clone();
    assert_eq!(listed(&a).await, vec![row(&id, "white", "waiting", false)]);
    let black = b.join(&id).await;
    assert_eq!(listed(&a).await, vec![row(&id, "white", "playing", true)]);
    assert_eq!(listed(&b).await, vec![row(&id, "black", "playing", false)]);
    // Days per turn: how long the turn has left.
    let (_, body) = a.request("GET", "/api/my-games", None, None).await;
    let left = body["games"][0]["left_ms"].as_i64().unwrap();
    assert!(
        left > 23 * 3600 * 1000 && left <= 24 * 3600 * 1000,
        "{body}"
    );
    assert_eq!(body["games"][0]["variant"], "six-mens-morris");
    assert_eq!(body["games"][0]["title"], "Six Men's Morris");

    // A link that moves the seat: C holds it, with a new secret; A's stops working, and A's
    // list no longer has the game.
    let mut old_socket = server.ws(&id, Some(&white.secret)).await;
    assert_eq!(old_socket.hello["seat"], "white");
    let (_, code) = a.handoff_with(&white, false).await;
    let (status, body) = take(&c, &id, &code).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["seat"].as_str(), body["moved"].as_bool()),
        (Some("white"), Some(true))
    );
    let moved = Seat {
        id: id.clone(),
        color: "white".into(),
        secret: body["secret"].as_str().unwrap().to_string(),
    };
    assert_ne!(moved.secret, white.secret);
    assert_eq!(
        old_socket.closed().await,
        Some(4410),
        "the old holder's socket is told"
    );
    assert_eq!(listed(&a).await, vec![]);
    assert_eq!(listed(&c).await, vec![row(&id, "white", "playing", true)]);
    let (status, body) = a.play(&white, "a1").await;
    assert_eq!((status, body["error"].as_str()), (403, Some("not_seated")));
    let again = server.ws(&id, Some(&white.secret)).await;
    assert_eq!(
        again.hello["seat"],
        Value::Null,
        "the old secret only watches"
    );
    // A's seat cookie no longer seats it on the page, which says why.
    let page = a.page(&format!("/g/{id}")).await;
    assert!(page.contains("You are watching."), "{page}");
    assert!(page.contains("<p id=\"seat-moved\" class=\"notice\">Your seat moved"));
    // A code A asked for before the move carried the dead secret: it gives nothing.
    let (status, body) = take(&d, &id, &a.handoff_with(&moved, true).await.1).await;
    assert_eq!(status, 200, "a code of the new holder works: {body}");
    assert_eq!(body["moved"], false);
    assert_eq!(
        body["secret"].as_str(),
        Some(&*moved.secret),
        "shared, not moved"
    );
    assert_eq!(listed(&c).await, vec![row(&id, "white", "playing", true)]);
    assert_eq!(listed(&d).await, vec![row(&id, "white", "playing", true)]);
    let (status, _) = c.play(&moved, "a1").await;
    assert_eq!(status, 200);
    assert_eq!(listed(&c).await, vec![row(&id, "white", "playing", false)]);
    assert_eq!(listed(&b).await, vec![row(&id, "black", "playing", true)]);

    // After a restart, the same lists; the end of the game moves it among the finished.
    let server = server.restart().await;
    assert_eq!(listed(&a).await, vec![]);
    assert_eq!(listed(&c).await, vec![row(&id, "white", "playing", false)]);
    assert_eq!(listed(&b).await, vec![row(&id, "black", "playing", true)]);
    let (status, _) = b.resign(&black).await;
    assert_eq!(status, 200);
    assert_eq!(listed(&c).await, vec![row(&id, "white", "finished", false)]);
    let (_, body) = c.request("GET", "/api/my-games", None, None).await;
    assert_eq!(body["games"][0]["result"], "1-0", "{body}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_to_my_games_and_the_hand_off_changes_nothing() {
    let server = TestServer::start().await;
    let a = server.browser();
    let white = a.create("six-mens-morris", "white").await;
    let path = format!("/api/games/{}/handoff", white.id);
    // A body that is not the choice: malformed, and no code made.
    for wrong in [json!({"keep": "yes"}), json!({"kep": true}), json!([1])] {
        let (status, body) = a
            .request("POST", &path, Some(&white.secret), Some(wrong.clone()))
            .await;
        assert_eq!(
            (status, body["error"].as_str()),
            (400, Some("malformed")),
            "{wrong}"
        );
    }
    // No body moves the seat, as the link always said.
    let (status, body) = a.request("POST", &path, Some(&white.secret), None).await;
    assert_eq!(
        (status, body["keep"].as_bool()),
        (200, Some(false)),
        "{body}"
    );
    // Another browser's list, or one with a malformed cookie, shows none of A's games.
    let stranger = reqwest::Client::new()
        .get(format!("{}/api/my-games", server.base))
        .header("cookie", "merels_browser=not-a-cookie")
        .send()
        .await
        .unwrap();
    assert_eq!(stranger.status(), 200);
    let body: Value = stranger.json().await.unwrap();
    assert_eq!(body, json!({"your_turn": 0, "games": []}));
    // A seat's holder is its secret, never its listing: a code taken for a game that is not
    // the code's changes nobody's list.
    let other = server.browser();
    let (status, _) = take(&other, "nosuchgameatall000000", &"A".repeat(22)).await;
    assert_eq!(status, 409);
    assert_eq!(listed(&other).await, vec![]);
    assert_eq!(
        listed(&a).await,
        vec![row(&white.id, "white", "waiting", false)]
    );
    server.stop().await;
}
