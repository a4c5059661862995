//! Players' names: given when creating or joining a game, or set over HTTP and WebSocket alike;
//! refused when they are not names (over-long, control or direction-override characters,
//! markup) with `bad_name` and nothing changed; else shown on the seat to everyone, on the chat
//! lines said after, in the record, and in the home page's lists, escaped, across a restart.

use crate::harness::{Http, Seat, TestServer};
use serde_json::{Value, json};

/// `seat` names itself over HTTP.
async fn name_over_http(http: &Http, seat: &Seat, name: &str) -> (u16, Value) {
    let path = format!("/api/games/{}/name", seat.id);
    http.request(
        "POST",
        &path,
        Some(&seat.secret),
        Some(json!({ "name": name })),
    )
    .await
}

/// The names on the seats of a state: White's, Black's (`null` where none).
fn names(state: &Value) -> [Value; 2] {
    ["white", "black"].map(|c| state["seats"][c]["name"].clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_are_checked_then_shown_on_the_seats_in_the_chat_record_and_lists() {
    let server = TestServer::start().await;
    let http = server.http();
    // A refused name refuses the game it came with: nothing is made.
    let (status, body) = http
        .request(
            "POST",
            "/api/games",
            None,
            Some(json!({"variant": "nine-mens-morris", "color": "white", "name": "<b>Ana</b>"})),
        )
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("bad_name")),
        "{body}"
    );
    let white = http
        .create_with(json!({"variant": "nine-mens-morris", "color": "white", "name": " Ana "}))
        .await;
    assert_eq!(
        names(&http.state(&white.id).await),
        [json!("Ana"), Value::Null]
    );
    let join = format!("/api/games/{}/join", white.id);
    let (status, body) = http
        .request("POST", &join, None, Some(json!({"name": "x".repeat(21)})))
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("bad_name")),
        "{body}"
    );
    assert_eq!(
        http.state(&white.id).await["status"],
        "waiting",
        "a refused name takes no seat"
    );
    let (status, body) = http
        .request("POST", &join, None, Some(json!({"name": "مريم"})))
        .await;
    assert_eq!(status, 200, "{body}");
    let black = Seat {
        id: white.id.clone(),
        color: "black".into(),
        secret: body["secret"].as_str().unwrap().into(),
    };
    let before = http.state(&white.id).await;
    assert_eq!(names(&before), [json!("Ana"), json!("مريم")]);

    let mut ws_white = server.ws(&white.id, Some(&white.secret)).await;
    let mut ws_black = server.ws(&white.id, Some(&black.secret)).await;
    let mut watcher = server.ws(&white.id, None).await;
    for ws in [&ws_white, &ws_black, &watcher] {
        assert_eq!(names(&ws.state), [json!("Ana"), json!("مريم")]);
    }

    // Refused over HTTP and over the socket: each says why, and nothing changes.
    let (status, body) = name_over_http(&http, &white, "<script>x</script>").await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("bad_name")),
        "{body}"
    );
    let (status, body) = name_over_http(&http, &white, "").await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("bad_name")),
        "{body}"
    );
    let (status, body) = http
        .request(
            "POST",
            &format!("/api/games/{}/name", white.id),
            None,
            Some(json!({"name": "Ana"})),
        )
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (401, Some("unauthenticated"))
    );
    for bad in [
        "x".repeat(21),
        "Ana\nBob".into(),
        "Ana\u{202E}boB".into(),
        "\u{2067}Ana".into(),
        "<img src=x onerror=alert(1)>".into(),
    ] {
        ws_white
            .send_json(json!({"type": "name", "name": bad}))
            .await;
        let error = ws_white.next_of("error").await;
        assert_eq!(error["code"], "bad_name", "{bad:?}: {error}");
    }
    watcher
        .send_json(json!({"type": "name", "name": "Eve"}))
        .await;
    assert_eq!(watcher.next_of("error").await["code"], "not_seated");
    let after = http.state(&white.id).await;
    assert_eq!(
        (after["version"].clone(), names(&after)),
        (before["version"].clone(), names(&before)),
        "refused names change nothing"
    );

    // Accepted over the socket: everyone sees it on the seat at once.
    ws_white
        .send_json(json!({"type": "name", "name": "Ana  B."}))
        .await;
    for ws in [&mut ws_white, &mut ws_black, &mut watcher] {
        // (Presence updates may come first: the watcher's arrival.)
        while names(&ws.next_state().await) != [json!("Ana B."), json!("مريم")] {}
    }
    // A chat line carries its speaker's name, markup and all kept as text.
    ws_white
        .send_json(json!({"type": "chat", "text": "<i>hi</i>"}))
        .await;
    let line = ws_black.next_of("chat").await;
    assert_eq!(
        (
            line["by"].as_str(),
            line["name"].as_str(),
            line["text"].as_str()
        ),
        (Some("white"), Some("Ana B."), Some("<i>hi</i>"))
    );
    // Named anew over HTTP: the next lines carry the new name, the old line the old one.
    let (status, body) = name_over_http(&http, &white, "Ana C").await;
    assert_eq!(
        (status, names(&body)[0].as_str()),
        (200, Some("Ana C")),
        "{body}"
    );
    ws_white
        .send_json(json!({"type": "chat", "text": "again"}))
        .await;
    assert_eq!(ws_black.next_of("chat").await["name"], "Ana C");

    let record = http.record(&white.id).await;
    assert!(
        record.contains("[White \"Ana C\"]") && record.contains("[Black \"مريم\"]"),
        "{record}"
    );
    // The home page lists the game with its players' names, and an open challenge with the
    // waiting player's.
    http.create_with(
        json!({"variant": "nine-mens-morris", "color": "black", "open": true, "name": "Zoë"}),
    )
    .await;
    let home = server.http().page("/").await;
    assert!(
        home.contains(
            r#"<bdi class="player-name">Ana C</bdi> – <bdi class="player-name">مريم</bdi>"#
        ),
        "{home}"
    );
    assert!(
        home.contains(r#"<bdi class="player-name">Zoë</bdi> (Black) is waiting"#),
        "{home}"
    );

    // The names and what was said under them outlive a restart.
    drop((ws_white, ws_black, watcher));
    let server = server.restart().await;
    assert_eq!(
        names(&server.http().state(&white.id).await),
        [json!("Ana C"), json!("مريم")]
    );
    let ws_black = server.ws(&white.id, Some(&black.secret)).await;
    let history = ws_black.chat.clone();
    let said: Vec<(&str, &str)> = history["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["name"].as_str().unwrap(), l["text"].as_str().unwrap()))
        .collect();
    assert_eq!(said, [("Ana B.", "<i>hi</i>"), ("Ana C", "again")]);
    server.stop().await;
}
