//! Ends off the board: resignation and abort, over WebSocket and HTTP, checked, stored, pushed to
//! everyone, kept across a restart, and written into the record.

use crate::harness::{Http, TestServer, turns};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resignation_ends_the_game_for_everyone_and_survives_a_restart() {
    let server = TestServer::start().await;
    let http = server.http();
    let white = http.create("nine-mens-morris", "white").await;
    let black = http.join(&white.id).await;
    let mut ws_white = server.ws(&white.id, Some(&white.secret)).await;
    let mut ws_black = server.ws(&white.id, Some(&black.secret)).await;
    let mut watcher = server.ws(&white.id, None).await;
    ws_white.play("d6").await;
    ws_black.state_with_turns(1).await;

    // A spectator cannot resign for anyone.
    watcher.send_json(json!({"type": "resign"})).await;
    assert_eq!(watcher.next_of("error").await["code"], "not_seated");

    ws_black.send_json(json!({"type": "resign"})).await;
    for ws in [&mut ws_white, &mut ws_black, &mut watcher] {
        loop {
            let s = ws.next_state().await;
            if s["status"] == "finished" {
                assert_eq!(s["termination"], "resignation");
                assert_eq!(s["winner"], "white");
                assert_eq!(s["result"], "1-0");
                break;
            }
        }
    }
    // Nothing more happens in a finished game.
    ws_white.send_json(json!({"type": "resign"})).await;
    assert_eq!(ws_white.next_of("error").await["code"], "game_over");
    ws_white.play("f4").await;
    assert_eq!(ws_white.next_of("error").await["code"], "game_over");

    let server = server.restart().await;
    let state = server.http().state(&white.id).await;
    assert_eq!(
        (state["status"].as_str(), state["termination"].as_str()),
        (Some("finished"), Some("resignation"))
    );
    assert_eq!(turns(&state), ["d6"]);
    let record = server.http().record(&white.id).await;
    assert!(
        record.contains("[Result \"1-0\"]") && record.contains("[Termination \"resignation\"]"),
        "{record}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abort_only_before_both_players_have_moved() {
    let server = TestServer::start().await;
    let http = server.http();
    // A game nobody joined can be aborted by its creator, and not resigned.
    let lonely = http.create("six-mens-morris", "white").await;
    let path = |id: &str, action: &str| format!("/api/games/{id}/{action}");
    let (status, body) = http
        .request(
            "POST",
            &path(&lonely.id, "resign"),
            Some(&lonely.secret),
            None,
        )
        .await;
    assert_eq!((status, body["error"].as_str()), (409, Some("not_allowed")));
    let (status, body) = http
        .request(
            "POST",
            &path(&lonely.id, "abort"),
            Some(&lonely.secret),
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["termination"].as_str(), body["result"].as_str()),
        (Some("aborted"), Some("*"))
    );
    assert_eq!(body["winner"], serde_json::Value::Null);

    // After one turn each it is a game: abort is refused, resign is not.
    let white = http.create("six-mens-morris", "white").await;
    let black = http.join(&white.id).await;
    let (status, _) = http
        .request("POST", &path(&white.id, "abort"), None, None)
        .await;
    assert_eq!(status, 401);
    let (status, _) = http
        .request("POST", &path(&white.id, "abort"), Some("wrong"), None)
        .await;
    assert_eq!(status, 403);
    assert_eq!(http.play(&white, "a1").await.0, 200);
    assert_eq!(http.play(&black, "e5").await.0, 200);
    let (status, body) = http
        .request("POST", &path(&white.id, "abort"), Some(&white.secret), None)
        .await;
    assert_eq!((status, body["error"].as_str()), (409, Some("not_allowed")));
    let (status, body) = http
        .request(
            "POST",
            &path(&white.id, "resign"),
            Some(&white.secret),
            None,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        (body["winner"].as_str(), body["result"].as_str()),
        (Some("black"), Some("0-1"))
    );
    let (status, _) = http
        .request(
            "POST",
            &path(&white.id, "resign"),
            Some(&black.secret),
            None,
        )
        .await;
    assert_eq!(status, 409);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_offers_are_answered_lapse_with_the_opponents_turn_and_survive_a_restart() {
    let server = TestServer::start().await;
    let http = server.http();
    let white = http.create("nine-mens-morris", "white").await;
    let black = http.join(&white.id).await;
    let mut ws_white = server.ws(&white.id, Some(&white.secret)).await;
    let mut ws_black = server.ws(&white.id, Some(&black.secret)).await;
    let mut watcher = server.ws(&white.id, None).await;

    // Nothing to answer yet; spectators cannot offer.
    ws_black.send_json(json!({"type": "draw_accept"})).await;
    assert_eq!(ws_black.next_of("error").await["code"], "not_allowed");
    watcher.send_json(json!({"type": "draw_offer"})).await;
    assert_eq!(watcher.next_of("error").await["code"], "not_seated");

    // An offer is pushed to everyone, and declined.
    ws_white.send_json(json!({"type": "draw_offer"})).await;
    loop {
        if watcher.next_state().await["draw_offer"] == "white" {
            break;
        }
    }
    ws_white.send_json(json!({"type": "draw_offer"})).await;
    assert_eq!(ws_white.next_of("error").await["code"], "not_allowed");
    ws_black.send_json(json!({"type": "draw_decline"})).await;
    loop {
        if ws_white.next_state().await["draw_offer"].is_null() {
            break;
        }
    }

    // An offer made on one's own turn outlives it, and lapses with the opponent's next turn.
    let path = |action: &str| format!("/api/games/{}/draw/{action}", white.id);
    let (status, body) = http
        .request("POST", &path("offer"), Some(&white.secret), None)
        .await;
    assert_eq!((status, body["draw_offer"].as_str()), (200, Some("white")));
    let (status, body) = http.play(&white, "d6").await;
    assert_eq!((status, body["draw_offer"].as_str()), (200, Some("white")));
    let (status, body) = http.play(&black, "f4").await;
    assert_eq!(
        (status, body["draw_offer"].clone()),
        (200, serde_json::Value::Null)
    );
    let (status, _) = http
        .request("POST", &path("accept"), Some(&black.secret), None)
        .await;
    assert_eq!(status, 409);

    // A standing offer survives a restart; then it is accepted.
    let (status, _) = http
        .request("POST", &path("offer"), Some(&black.secret), None)
        .await;
    assert_eq!(status, 200);
    drop((ws_white, ws_black, watcher));
    let server = server.restart().await;
    let http = server.http();
    assert_eq!(http.state(&white.id).await["draw_offer"], "black");
    let (status, body) = http
        .request("POST", &path("accept"), Some(&white.secret), None)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["result"].as_str(), body["termination"].as_str()),
        (Some("1/2-1/2"), Some("agreement"))
    );
    let (status, _) = http
        .request("POST", &path("offer"), Some(&white.secret), None)
        .await;
    assert_eq!(status, 409);
    let (status, _) = http
        .request("POST", &path("dance"), Some(&white.secret), None)
        .await;
    assert_eq!(status, 404);
    let record = server.http().record(&white.id).await;
    assert!(
        record.contains("[Result \"1/2-1/2\"]") && record.contains("[Termination \"agreement\"]")
    );
    server.stop().await;
}

/// POSTs the action `what` of game `id` with `secret`.
async fn post(http: &Http, id: &str, what: &str, secret: &str) -> (u16, Value) {
    let path = format!("/api/games/{id}/{what}");
    http.request("POST", &path, Some(secret), None).await
}

/// A rematch offer can be declined: stored, gone for both, said to everyone; only the player it
/// was made to may decline it, and only while it stands. Asking again makes a new one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_offer_is_declined() {
    let server = TestServer::start().await;
    let http = server.http();
    let white = http.create("six-mens-morris", "white").await;
    let black = http.join(&white.id).await;
    let (w, b) = (white.secret.as_str(), black.secret.as_str());
    let post = |what: &'static str, secret| post(&http, &white.id, what, secret);
    post("resign", b).await;
    let (status, body) = post("rematch/decline", b).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (409, Some("not_allowed")),
        "no offer yet"
    );
    assert_eq!(post("rematch", w).await.0, 200);
    let mut watcher = server.ws(&white.id, None).await;
    let (status, body) = post("rematch/decline", w).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (409, Some("not_allowed")),
        "not one's own offer"
    );
    let (status, body) = post("rematch/decline", b).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["rematch_offer"], Value::Null);
    // Everyone is told (a finished game's changes go out as whole states).
    while watcher.next_of("state").await["rematch_offer"] != Value::Null {}
    // Stored: a restart does not bring it back.
    let server = server.restart().await;
    let http = server.http();
    assert_eq!(http.state(&white.id).await["rematch_offer"], Value::Null);
    // Over the socket too, and asking again is a new offer.
    let mut ws_black = server.ws(&white.id, Some(b)).await;
    let (status, _) = http
        .request(
            "POST",
            &format!("/api/games/{}/rematch", white.id),
            Some(w),
            None,
        )
        .await;
    assert_eq!(status, 200);
    ws_black
        .send_json(serde_json::json!({"type": "rematch_decline"}))
        .await;
    let deadline = std::time::Instant::now() + crate::harness::WAIT;
    while http.state(&white.id).await["rematch_offer"] != Value::Null {
        assert!(std::time::Instant::now() < deadline, "never declined");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_swaps_colours_and_takes_both_players_along() {
    let server = TestServer::start().await;
    let http = server.http();
    let white = http.create_timed("six-mens-morris", "white", "5+3").await;
    let black = http.join(&white.id).await;
    let path = format!("/api/games/{}/rematch", white.id);
    let (status, body) = http.request("POST", &path, Some(&white.secret), None).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (409, Some("not_allowed")),
        "not before the end"
    );
    http.request(
        "POST",
        &format!("/api/games/{}/resign", white.id),
        Some(&black.secret),
        None,
    )
    .await;

    let (status, body) = http.request("POST", &path, Some(&white.secret), None).await;
    assert_eq!(status, 200);
    assert_eq!(body["state"]["rematch_offer"], "white");
    assert!(body["rematch"].is_null());

    // The offer is stored: it stands after a restart.
    let server = server.restart().await;
    let http = server.http();
    assert_eq!(http.state(&white.id).await["rematch_offer"], "white");
    let mut ws_white = server.ws(&white.id, Some(&white.secret)).await;
    let mut watcher = server.ws(&white.id, None).await;
    let (status, body) = http.request("POST", &path, Some(&black.secret), None).await;
    assert_eq!(status, 200);
    let new_id = body["rematch"]["id"].as_str().unwrap().to_string();
    assert_eq!(
        body["rematch"]["seat"], "white",
        "Black plays White in the rematch"
    );
    let black_now = body["rematch"]["secret"].as_str().unwrap().to_string();

    // Every connection hears of the new game, with no secret in the message: a player's own
    // secret holds their seat there.
    for ws in [&mut ws_white, &mut watcher] {
        let m = ws.next_of("rematch").await;
        assert_eq!(m, serde_json::json!({"type": "rematch", "game": new_id}));
    }
    let white_now = white.secret.clone();
    assert_eq!(http.state(&white.id).await["rematch"], new_id.as_str());

    // Asking again hands out the same seat; the new game is on, with the colours swapped.
    let (_, again) = http.request("POST", &path, Some(&white.secret), None).await;
    assert_eq!(again["rematch"]["secret"], white_now.as_str());
    let state = http.state(&new_id).await;
    assert_eq!(state["status"], "playing");
    assert_eq!(state["time_control"], "5+3", "the same time control");
    assert_eq!(state["clock"]["white_ms"], 300_000);
    let new_white = crate::harness::Seat {
        id: new_id.clone(),
        color: "white".into(),
        secret: black_now,
    };
    let new_black = crate::harness::Seat {
        id: new_id.clone(),
        color: "black".into(),
        secret: white_now,
    };
    assert_eq!(
        http.play(&new_black, "a1").await.0,
        409,
        "the old White is Black now"
    );
    assert_eq!(http.play(&new_white, "a1").await.0, 200);
    assert_eq!(http.play(&new_black, "e5").await.0, 200);

    // Each player keeps their secret: the rematch's seats are its hash, so there is nothing to
    // hand out that a restart could lose.
    assert_eq!(
        (new_black.secret.as_str(), new_white.secret.as_str()),
        (white.secret.as_str(), black.secret.as_str())
    );

    // After a restart the old game still leads to the new one, and asking again, over HTTP or
    // over a socket, still hands each player their seat.
    drop((ws_white, watcher));
    let server = server.restart().await;
    let http = server.http();
    assert_eq!(http.state(&white.id).await["rematch"], new_id.as_str());
    let (status, again) = http.request("POST", &path, Some(&white.secret), None).await;
    assert_eq!(
        (status, again["state"]["rematch"].as_str()),
        (200, Some(new_id.as_str()))
    );
    assert_eq!(
        (
            again["rematch"]["id"].as_str(),
            again["rematch"]["seat"].as_str()
        ),
        (Some(new_id.as_str()), Some("black"))
    );
    assert_eq!(again["rematch"]["secret"], white.secret.as_str());
    let mut ws_black = server.ws(&white.id, Some(&black.secret)).await;
    ws_black
        .send_json(serde_json::json!({"type": "rematch"}))
        .await;
    let m = ws_black.next_of("rematch").await;
    assert_eq!(m["game"], new_id.as_str());
    // A page follows `/g/{old}/rematch` with the old game's cookie: it lands seated in the new
    // game, with the new game's cookie; without the cookie it lands as a spectator.
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let go = |cookie: Option<String>| {
        let mut req = client.get(format!("{}/g/{}/rematch", server.base, white.id));
        if let Some(c) = cookie {
            req = req.header("cookie", c);
        }
        req.send()
    };
    let seated = go(Some(format!("merels_seat_{}={}", white.id, black.secret)))
        .await
        .unwrap();
    assert_eq!(seated.status(), 303);
    assert_eq!(
        seated.headers()["location"],
        format!("/g/{new_id}").as_str()
    );
    // The seat's cookies, beside the browser id a first visit is given.
    let cookies: Vec<_> = seated
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter(|c| !c.to_str().unwrap().starts_with("merels_browser="))
        .collect();
    assert_eq!(cookies.len(), 2, "the new game's page and API");
    assert!(cookies.iter().all(|c| {
        let c = c.to_str().unwrap();
        c.starts_with(&format!("merels_seat_{new_id}={}", black.secret))
    }));
    let watching = go(None).await.unwrap();
    assert_eq!(watching.status(), 303);
    assert!(
        watching
            .headers()
            .get_all("set-cookie")
            .iter()
            .all(|c| c.to_str().unwrap().starts_with("merels_browser=")),
        "no seat for a spectator"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_takeback_undoes_turns_until_the_asker_is_to_move() {
    let server = TestServer::start().await;
    let http = server.http();
    let white = http.create("nine-mens-morris", "white").await;
    let black = http.join(&white.id).await;
    let mut ws_black = server.ws(&white.id, Some(&black.secret)).await;
    let path = |action: &str| format!("/api/games/{}/takeback/{action}", white.id);

    // Nothing to take back yet.
    let (status, _) = http
        .request("POST", &path("offer"), Some(&black.secret), None)
        .await;
    assert_eq!(status, 409);
    assert_eq!(http.play(&white, "d6").await.0, 200);
    assert_eq!(http.play(&black, "f4").await.0, 200);
    assert_eq!(http.play(&white, "b6").await.0, 200);

    // Black asks while White is to move: Black's own last turn is two plies back, so both go and
    // Black is to move again.
    ws_black.send_json(json!({"type": "takeback_offer"})).await;
    loop {
        if ws_black.next_state().await["takeback_offer"] == "black" {
            break;
        }
    }
    let (status, body) = http
        .request("POST", &path("accept"), Some(&white.secret), None)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(turns(&body), ["d6"]);
    assert_eq!(body["to_move"], "black");
    assert!(body["takeback_offer"].is_null());

    // Asked right after one's own turn: that one turn goes.
    assert_eq!(http.play(&black, "a1").await.0, 200);
    let (status, _) = http
        .request("POST", &path("offer"), Some(&black.secret), None)
        .await;
    assert_eq!(status, 200);
    let (status, _) = http
        .request("POST", &path("accept"), Some(&black.secret), None)
        .await;
    assert_eq!(status, 409, "one cannot accept one's own request");
    let (status, body) = http
        .request("POST", &path("decline"), Some(&white.secret), None)
        .await;
    assert_eq!(
        (status, turns(&body)),
        (200, vec!["d6".to_string(), "a1".to_string()])
    );
    let (status, _) = http
        .request("POST", &path("offer"), Some(&black.secret), None)
        .await;
    assert_eq!(status, 200);

    // A pending request is stored like a turn: it is still there after a restart.
    drop(ws_black);
    let server = server.restart().await;
    let http = server.http();
    assert_eq!(http.state(&white.id).await["takeback_offer"], "black");
    let (status, body) = http
        .request("POST", &path("accept"), Some(&white.secret), None)
        .await;
    assert_eq!((status, turns(&body)), (200, vec!["d6".to_string()]));

    // What was taken back stays taken back after a restart, with the same version, and play
    // goes on.
    let server = server.restart().await;
    let http = server.http();
    let state = http.state(&white.id).await;
    assert_eq!(turns(&state), ["d6"]);
    assert_eq!(state["version"], body["version"]);
    assert_eq!(http.play(&black, "g7").await.0, 200);
    server.stop().await;
}
