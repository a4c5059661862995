//! Open challenges stay true (issue 43): listed only while their creator is there, and how long
//! they have waited; cancelled by their creator alone, before anyone comes; expired when nobody
//! takes them; at most two listed per address; and spectators counted by browser, not socket.

use crate::harness::{Http, Seat, TestServer, eventually};
use serde_json::{Value, json};

/// A new open challenge: the creator plays White.
async fn open(http: &Http) -> Seat {
    http.create_with(json!({"variant": "six-mens-morris", "color": "white", "open": true}))
        .await
}

/// The ids `GET /api/challenges` lists now.
async fn listed(http: &Http) -> Vec<String> {
    let (status, body) = http.request("GET", "/api/challenges", None, None).await;
    assert_eq!(status, 200, "{body}");
    body.as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

async fn action(http: &Http, id: &str, action: &str, bearer: Option<&str>) -> (u16, Value) {
    http.request("POST", &format!("/api/games/{id}/{action}"), bearer, None)
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_creator_cancels_a_challenge_and_nobody_else_may() {
    let server = TestServer::start().await;
    let http = server.http();
    let white = open(&http).await;
    let mut creator = server.ws(&white.id, Some(&white.secret)).await;
    assert_eq!(listed(&http).await, [white.id.as_str()]);

    // Nobody but the creator: without a secret, with a wrong one, a spectator's socket.
    let (status, body) = action(&http, &white.id, "cancel", None).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (401, Some("unauthenticated"))
    );
    let (status, body) = action(&http, &white.id, "cancel", Some(&"x".repeat(43))).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (403, Some("not_seated")),
        "{body}"
    );
    let mut watcher = server.ws(&white.id, None).await;
    watcher.send_json(json!({"type": "cancel"})).await;
    assert_eq!(watcher.next_of("error").await["code"], "not_seated");
    // Nothing changed.
    assert_eq!(http.state(&white.id).await["status"], "waiting");
    assert_eq!(listed(&http).await, [white.id.as_str()]);

    // The creator, over its socket: the game is called off, for everyone, and unlisted.
    creator.send_json(json!({"type": "cancel"})).await;
    loop {
        let s = creator.next_state().await;
        if s["status"] == "finished" {
            assert_eq!(
                (s["termination"].as_str(), s["result"].as_str()),
                (Some("aborted"), Some("*"))
            );
            break;
        }
    }
    assert!(listed(&http).await.is_empty());
    let (status, body) = action(&http, &white.id, "cancel", Some(&white.secret)).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (409, Some("game_over")),
        "{body}"
    );

    // Over HTTP too; and once the opponent has come, a game is no longer cancelled.
    let other = open(&http).await;
    let started = open(&http).await;
    let (status, body) = action(&http, &other.id, "cancel", Some(&other.secret)).await;
    assert_eq!(
        (status, body["status"].as_str()),
        (200, Some("finished")),
        "{body}"
    );
    let black = http.join(&started.id).await;
    for seat in [&started, &black] {
        let (status, body) = action(&http, &started.id, "cancel", Some(&seat.secret)).await;
        assert_eq!(body["error"], "not_allowed", "{status} {body}");
        assert_eq!(status, 409);
    }
    assert_eq!(http.state(&started.id).await["status"], "playing");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_challenge_is_listed_while_its_creator_is_there_and_says_how_long_it_has_waited() {
    let server = TestServer::start_with(|c| c.challenge_grace_secs = 1.0).await;
    let http = server.http();
    let white = open(&http).await;
    let creator = server.ws(&white.id, Some(&white.secret)).await;
    // Listed for longer than the grace while the creator stays: the room renews it.
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    let (_, body) = http.request("GET", "/api/challenges", None, None).await;
    assert_eq!(body[0]["id"], white.id.as_str(), "{body}");
    assert!(body[0]["waited_secs"].as_i64().unwrap() >= 2, "{body}");
    let (_, page) = http.request("GET", "/", None, None).await;
    let page = page.as_str().unwrap().to_string();
    assert!(
        page.contains("White is waiting (<span class=\"waited\">2 s</span>)"),
        "{page}"
    );
    // The creator goes: unlisted once the grace is over, though the game still waits.
    drop(creator);
    eventually("the challenge is unlisted", || async {
        listed(&http).await.is_empty()
    })
    .await;
    assert_eq!(http.state(&white.id).await["status"], "waiting");
    // A creator who never comes is not listed past the grace either.
    let absent = open(&http).await;
    assert_eq!(listed(&http).await, [absent.id.as_str()]);
    eventually("the absent creator's challenge is unlisted", || async {
        listed(&http).await.is_empty()
    })
    .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_challenge_nobody_takes_expires() {
    let server = TestServer::start_with(|c| c.challenge_expiry_secs = 1.0).await;
    let http = server.http();
    let white = open(&http).await;
    let mut creator = server.ws(&white.id, Some(&white.secret)).await;
    assert_eq!(listed(&http).await, [white.id.as_str()]);
    loop {
        let s = creator.next_state().await;
        if s["status"] == "finished" {
            assert_eq!(s["termination"], "aborted");
            break;
        }
    }
    assert!(listed(&http).await.is_empty());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_lists_at_most_two_challenges() {
    let server = TestServer::start().await;
    let http = server.http();
    let first = open(&http).await;
    let second = open(&http).await;
    let (status, body) = http
        .request(
            "POST",
            "/api/games",
            None,
            Some(json!({"variant": "six-mens-morris", "open": true})),
        )
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (429, Some("rate_limited")),
        "{body}"
    );
    let mut ids = listed(&http).await;
    ids.sort();
    let mut expected = vec![first.id.clone(), second.id.clone()];
    expected.sort();
    assert_eq!(ids, expected);
    // A game for a friend is not a challenge: still allowed.
    http.create("six-mens-morris", "white").await;
    // Once one is cancelled, another may be listed.
    let (status, _) = action(&http, &first.id, "cancel", Some(&first.secret)).await;
    assert_eq!(status, 200);
    let third = open(&http).await;
    assert!(listed(&http).await.contains(&third.id));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_watching_in_two_tabs_is_one_spectator() {
    let server = TestServer::start().await;
    let http = server.http();
    let white = http.create("six-mens-morris", "white").await;
    let browser = "tabs-of-one-browser-01";
    let other = "another-browser-000001";
    let mut player = server.ws(&white.id, Some(&white.secret)).await;
    let _tab1 = crate::harness::Ws::connect_browser(server.addr, &white.id, browser).await;
    let _tab2 = crate::harness::Ws::connect_browser(server.addr, &white.id, browser).await;
    let spectators = |s: &Value| s["spectators"].as_u64().unwrap();
    eventually("two tabs count once", || async {
        spectators(&http.state(&white.id).await) == 1
    })
    .await;
    let third = crate::harness::Ws::connect_browser(server.addr, &white.id, other).await;
    eventually("another browser counts", || async {
        spectators(&http.state(&white.id).await) == 2
    })
    .await;
    drop(third);
    drop(_tab1);
    eventually("the browser still watches in its other tab", || async {
        spectators(&http.state(&white.id).await) == 1
    })
    .await;
    // The player's own second tab is the player's, not a spectator.
    let _second = server.ws(&white.id, Some(&white.secret)).await;
    player.send_json(json!({"type": "sync"})).await;
    assert_eq!(spectators(&player.next_state().await), 1);
    server.stop().await;
}
