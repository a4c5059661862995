//! Every abuse limit: the violating client gets the documented answer, the others keep playing,
//! and `/metrics` counts it.

use crate::harness::{Seat, TestServer, Ws, metric, turns};
use serde_json::{Value, json};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

async fn violations(server: &TestServer, limit: &str) -> f64 {
    metric(
        server,
        &format!("merels_limit_violations_total{{kind=\"{limit}\"}}"),
    )
    .await
}

/// A game with both seats taken and a WebSocket for each player.
async fn game(server: &TestServer) -> (Ws, Ws) {
    let http = server.http();
    let white = http.create("six-mens-morris", "white").await;
    let black = http.join(&white.id).await;
    (
        server.ws(&white.id, Some(&white.secret)).await,
        server.ws(&white.id, Some(&black.secret)).await,
    )
}

/// Plays one turn of the game the two sockets share, and waits for both to see it.
async fn keep_playing(white: &mut Ws, black: &mut Ws) {
    let state = white.state.clone();
    let n = turns(&state).len();
    let turn = crate::harness::eager_turn(&state);
    if state["to_move"] == "white" {
        white.play(&turn).await
    } else {
        black.play(&turn).await
    }
    white.state_with_turns(n + 1).await;
    black.state_with_turns(n + 1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_messages_close_with_1009() {
    let server = TestServer::start_with(|c| c.max_message_bytes = 1024).await;
    let (mut white, mut black) = game(&server).await;
    let mut flooder = server.ws(white.state["id"].as_str().unwrap(), None).await;
    flooder.send_text(&"x".repeat(5000)).await;
    assert_eq!(flooder.closed().await, Some(1009));
    keep_playing(&mut white, &mut black).await;
    assert_eq!(violations(&server, "message_size").await, 1.0);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flooding_connection_is_slowed_then_cut_off() {
    let server = TestServer::start_with(|c| c.messages_per_sec = 5).await;
    let (mut white, mut black) = game(&server).await;
    let mut flooder = server.ws(white.state["id"].as_str().unwrap(), None).await;
    for _ in 0..30 {
        flooder.send_json(json!({"type": "ping"})).await;
    }
    let err = flooder.next_of("error").await;
    assert_eq!(err["code"], "rate_limited");
    assert!(violations(&server, "messages_per_sec").await >= 1.0);
    keep_playing(&mut white, &mut black).await;
    // Flooding on and on ends the connection with 1008.
    for _ in 0..400 {
        if flooder
            .stream
            .send(tokio_tungstenite::tungstenite::Message::text(
                "{\"type\":\"ping\"}",
            ))
            .await
            .is_err()
        {
            break;
        }
    }
    assert_eq!(flooder.closed().await, Some(1008));
    keep_playing(&mut white, &mut black).await;

    // Control frames count too: a flood of WebSocket pings is cut off the same way.
    let mut pinger = server.ws(white.state["id"].as_str().unwrap(), None).await;
    for _ in 0..400 {
        let ping = tokio_tungstenite::tungstenite::Message::Ping(vec![1u8; 8].into());
        if pinger.stream.send(ping).await.is_err() {
            break;
        }
    }
    assert_eq!(pinger.closed().await, Some(1008));
    keep_playing(&mut white, &mut black).await;
    server.stop().await;
}

use futures_util::SinkExt;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_new_games_from_one_address_get_429() {
    let server = TestServer::start_with(|c| c.games_per_minute = 3).await;
    let http = server.http();
    // A request refused for what it says costs nothing: these leave the allowance whole.
    for body in [
        json!({"variant": "no-such-morris"}),
        json!({"variant": "six-mens-morris", "options": {"flying": "sometimes"}}),
        json!({"variant": "six-mens-morris", "clock": "forever"}),
    ] {
        for _ in 0..4 {
            let (status, _) = http
                .request("POST", "/api/games", None, Some(body.clone()))
                .await;
            assert_eq!(status, 400, "{body}");
        }
    }
    let (mut white, mut black) = game(&server).await; // one of the three
    http.create("six-mens-morris", "white").await;
    http.create("six-mens-morris", "white").await;
    let (status, body) = http
        .request(
            "POST",
            "/api/games",
            None,
            Some(json!({"variant": "six-mens-morris"})),
        )
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (429, Some("rate_limited"))
    );
    assert_eq!(violations(&server, "games_per_minute").await, 1.0);
    keep_playing(&mut white, &mut black).await;
    server.stop().await;
}

/// Every way to make a game spends from one allowance per address: a rematch loop between two
/// seats is capped like creating games, and only the ask that starts a rematch is charged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rematches_spend_the_same_allowance_as_new_games() {
    let server = TestServer::start_with(|c| c.games_per_minute = 3).await;
    let http = server.http();
    let mut white = http.create("six-mens-morris", "white").await; // one of the three
    let mut black = http.join(&white.id).await;
    let mut started = 0;
    let refused = loop {
        let resign = format!("/api/games/{}/resign", white.id);
        http.request("POST", &resign, Some(&black.secret), None)
            .await;
        let rematch = format!("/api/games/{}/rematch", white.id);
        let (status, _) = http
            .request("POST", &rematch, Some(&white.secret), None)
            .await;
        assert_eq!(status, 200, "the offer makes no game");
        let (status, body) = http
            .request("POST", &rematch, Some(&black.secret), None)
            .await;
        if status != 200 {
            break (status, body);
        }
        started += 1;
        assert!(started < 10, "the cap never came");
        // Colours swap: Black of this game is White of the next.
        let next = &body["rematch"];
        let id = next["id"].as_str().unwrap().to_string();
        let (old_white, new_white) = (white.secret.clone(), next["secret"].as_str().unwrap());
        white = Seat {
            id: id.clone(),
            color: "white".into(),
            secret: new_white.to_string(),
        };
        let (_, mine) = http.request("POST", &rematch, Some(&old_white), None).await;
        black = Seat {
            id,
            color: "black".into(),
            secret: mine["rematch"]["secret"].as_str().unwrap().to_string(),
        };
    };
    assert_eq!(started, 2, "three games in all");
    assert_eq!(
        (refused.0, refused.1["error"].as_str()),
        (429, Some("rate_limited"))
    );
    let state = http.state(&white.id).await;
    assert_eq!(state["rematch"], Value::Null, "no game was made");
    assert_eq!(state["rematch_offer"], "white", "the offer stands");
    assert_eq!(violations(&server, "games_per_minute").await, 1.0);
    server.stop().await;
}

/// The setup form over the cap gets a page that says so, not the API's JSON.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_setup_form_over_the_cap_gets_a_page() {
    let server = TestServer::start_with(|c| c.games_per_minute = 1).await;
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let post = || {
        client
            .post(format!("{}/games", server.base))
            .form(&[("variant", "six-mens-morris"), ("color", "white")])
            .send()
    };
    assert_eq!(post().await.unwrap().status(), 303);
    let refused = post().await.unwrap();
    assert_eq!(refused.status(), 429);
    assert!(
        refused.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let page = refused.text().await.unwrap();
    assert!(page.contains("<h1>The game was not created</h1>"), "{page}");
    assert!(page.contains("at most 1 new games a minute"), "{page}");
    server.stop().await;
}

/// Games against the computer have a cap of their own beside the one on every game: over it an
/// address still makes games with friends, but starts no more against the computer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_against_the_computer_have_their_own_cap() {
    let server = TestServer::start_with(|c| c.computer_games_per_hour = 2).await;
    let http = server.http();
    let against_computer = json!({"variant": "three-mens-morris", "color": "black", "computer": 1});
    for _ in 0..2 {
        http.create_with(against_computer.clone()).await;
    }
    let (status, body) = http
        .request("POST", "/api/games", None, Some(against_computer))
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (429, Some("rate_limited")),
        "{body}"
    );
    assert!(
        body["message"]
            .as_str()
            .is_some_and(|m| m.contains("against the computer an hour")),
        "{body}"
    );
    assert_eq!(violations(&server, "computer_games_per_hour").await, 1.0);
    http.create("three-mens-morris", "white").await;
    assert_eq!(violations(&server, "games_per_minute").await, 0.0);
    server.stop().await;
}

/// Behind a trusted proxy, the address is the hop that proxy added (the right-most), not one
/// the client wrote to its left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_forwarded_for_does_not_escape_the_cap() {
    let server = TestServer::start_with(|c| {
        c.games_per_minute = 3;
        c.trust_forwarded_for = true;
    })
    .await;
    let http = server.http();
    let create = |forged: String, proxied: &'static str| {
        let req = http
            .client
            .post(format!("{}/api/games", server.base))
            .header("x-forwarded-for", format!("{forged}, {proxied}"))
            .json(&json!({"variant": "six-mens-morris"}));
        async move { req.send().await.unwrap().status().as_u16() }
    };
    let mut statuses = Vec::new();
    for i in 0..5 {
        statuses.push(create(format!("198.51.100.{i}"), "203.0.113.7").await);
    }
    assert_eq!(statuses, [201, 201, 201, 429, 429]);
    assert_eq!(
        create("198.51.100.9".into(), "203.0.113.8").await,
        201,
        "another client"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_connections_from_one_address_get_429() {
    let server = TestServer::start_with(|c| c.connections_per_ip = 3).await;
    let (mut white, mut black) = game(&server).await;
    let id = white.state["id"].as_str().unwrap().to_string();
    let watcher = server.ws(&id, None).await;
    let url = format!("ws://{}/api/games/{id}/ws", server.addr);
    match tokio_tungstenite::connect_async(url.clone()).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 429),
        other => panic!("expected 429, got {other:?}"),
    }
    assert_eq!(violations(&server, "connections_per_ip").await, 1.0);
    keep_playing(&mut white, &mut black).await;
    // A closed connection frees its place.
    drop(watcher);
    let mut ok = false;
    for _ in 0..100 {
        if tokio_tungstenite::connect_async(url.clone()).await.is_ok() {
            ok = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(ok);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sockets_from_other_sites_pages_get_403() {
    let server =
        TestServer::start_with(|c| c.allowed_origins = vec!["https://friend.example".into()]).await;
    let (mut white, mut black) = game(&server).await;
    let id = white.state["id"].as_str().unwrap().to_string();
    let upgrade = |origin: &str| {
        let mut req = format!("ws://{}/api/games/{id}/ws", server.addr)
            .into_client_request()
            .unwrap();
        req.headers_mut().insert("origin", origin.parse().unwrap());
        req
    };
    match tokio_tungstenite::connect_async(upgrade("https://evil.example")).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 403),
        other => panic!("expected 403, got {other:?}"),
    }
    assert!(
        tokio_tungstenite::connect_async(upgrade(&server.base))
            .await
            .is_ok(),
        "the site itself"
    );
    assert!(
        tokio_tungstenite::connect_async(upgrade("https://friend.example"))
            .await
            .is_ok()
    );
    assert_eq!(violations(&server, "origin").await, 1.0);
    keep_playing(&mut white, &mut black).await;
    server.stop().await;
}

/// A page of another site (a sibling subdomain included) cannot make a seated browser act: a
/// plain form there would carry the seat cookie. The site's own pages and bots with a bearer
/// token can.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn actions_from_other_sites_pages_get_403_and_change_nothing() {
    let server = TestServer::start().await;
    let http = server.http();
    let white = http.create("six-mens-morris", "white").await;
    http.join(&white.id).await;
    let cookie = format!("merels_seat_{}={}", white.id, white.secret);
    let post = |path: String, headers: Vec<(&'static str, String)>| {
        let mut req = http.client.post(format!("{}{path}", server.base));
        for (k, v) in headers {
            req = req.header(k, v);
        }
        async move { req.send().await.unwrap() }
    };
    let resign = format!("/api/games/{}/resign", white.id);
    let draw = format!("/api/games/{}/draw/offer", white.id);
    for headers in [
        vec![("origin", "https://evil.example".to_string())],
        vec![("origin", "http://evil.localhost".to_string())],
        vec![("origin", server.base.replace("http://", "https://"))],
        vec![("sec-fetch-site", "cross-site".to_string())],
        vec![("sec-fetch-site", "same-site".to_string())],
    ] {
        for path in [&resign, &draw] {
            let mut with_cookie = headers.clone();
            with_cookie.push(("cookie", cookie.clone()));
            let res = post(path.clone(), with_cookie).await;
            assert_eq!(res.status().as_u16(), 403, "{headers:?}");
            let body: Value = res.json().await.unwrap();
            assert_eq!(body["error"], "forbidden_origin");
        }
    }
    assert_eq!(violations(&server, "origin").await, 10.0);
    let state = http.state(&white.id).await;
    assert_eq!(state["status"], "playing");
    assert_eq!(state["draw_offer"], Value::Null);

    // From the site's own page, the same request is obeyed; so is a bot's with its token.
    let own = vec![
        ("origin", server.base.clone()),
        ("sec-fetch-site", "same-origin".to_string()),
        ("cookie", cookie.clone()),
    ];
    assert_eq!(post(draw.clone(), own).await.status().as_u16(), 200);
    let bot = vec![
        ("origin", "https://evil.example".to_string()),
        ("authorization", format!("Bearer {}", white.secret)),
    ];
    assert_eq!(post(resign.clone(), bot).await.status().as_u16(), 200);
    assert_eq!(http.state(&white.id).await["status"], "finished");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_and_oversized_requests_get_408_and_413() {
    let server = TestServer::start_with(|c| {
        c.request_timeout_secs = 1;
        c.max_body_bytes = 1024;
    })
    .await;
    let (mut white, mut black) = game(&server).await;
    let http = server.http();
    let big = json!({"variant": "six-mens-morris", "options": {"x": "y".repeat(4000)}});
    let (status, body) = http.request("POST", "/api/games", None, Some(big)).await;
    assert_eq!((status, body["error"].as_str()), (413, Some("too_large")));
    assert_eq!(violations(&server, "body_size").await, 1.0);

    // Headers promise a body that never comes.
    let mut slow = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    slow.write_all(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{").await.unwrap();
    let mut response = vec![0u8; 512];
    let n = tokio::time::timeout(Duration::from_secs(5), slow.read(&mut response))
        .await
        .unwrap()
        .unwrap();
    let head = String::from_utf8_lossy(&response[..n]);
    assert!(head.starts_with("HTTP/1.1 408"), "{head}");
    assert_eq!(violations(&server, "request_timeout").await, 1.0);

    // Headers announce a body over the limit: refused at once, not held until the timeout.
    let mut huge = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    huge.write_all(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{").await.unwrap();
    let n = tokio::time::timeout(Duration::from_secs(5), huge.read(&mut response))
        .await
        .unwrap()
        .unwrap();
    let head = String::from_utf8_lossy(&response[..n]);
    assert!(head.starts_with("HTTP/1.1 413"), "{head}");
    assert_eq!(violations(&server, "body_size").await, 2.0);
    assert_eq!(violations(&server, "request_timeout").await, 1.0);
    keep_playing(&mut white, &mut black).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_report_connections_games_turns_and_latencies() {
    let server = TestServer::start_with(|_| {}).await;
    let (mut white, mut black) = game(&server).await;
    for _ in 0..4 {
        keep_playing(&mut white, &mut black).await;
    }
    white.play("zz9").await;
    assert_eq!(white.next_of("error").await["code"], "bad_notation");
    assert_eq!(metric(&server, "merels_connections_open").await, 2.0);
    assert_eq!(metric(&server, "merels_games_in_memory").await, 1.0);
    assert_eq!(metric(&server, "merels_games{kind=\"playing\"}").await, 1.0);
    assert_eq!(metric(&server, "merels_turns_accepted_total").await, 4.0);
    assert_eq!(
        metric(
            &server,
            "merels_turns_rejected_total{kind=\"bad_notation\"}"
        )
        .await,
        1.0
    );
    assert_eq!(
        metric(&server, "merels_turn_latency_seconds_count").await,
        4.0
    );
    assert!(metric(&server, "merels_db_commit_seconds_count").await >= 6.0);
    server.stop().await;
}

/// A raw TCP connection to `server` from the loopback address `from`.
async fn tcp_from(server: &TestServer, from: &str) -> tokio::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    socket.connect(server.addr).await.unwrap()
}

/// Whether the server closes `tcp` within `within`, having sent nothing.
async fn closed_within(tcp: &mut tokio::net::TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 64];
    matches!(
        tokio::time::timeout(within, tcp.read(&mut buf)).await,
        Ok(Ok(0) | Err(_))
    )
}

/// Idle connections cannot take the server offline: they are capped per address, per subnet
/// and in total (refused at once, unread, and counted), and one that sends no request, or sits
/// idle after one, is closed after the header timeout; then the server answers as before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_are_capped_and_closed() {
    let server = TestServer::start_with(|c| {
        c.max_connections = 12;
        c.tcp_connections_per_ip = 8;
        c.tcp_connections_per_subnet = 10;
        c.header_timeout_secs = 2.0;
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..8 {
        held.push(tcp_from(&server, "127.0.0.1").await);
    }
    let mut over = tcp_from(&server, "127.0.0.1").await;
    assert!(
        closed_within(&mut over, Duration::from_millis(1500)).await,
        "per address"
    );
    for _ in 0..2 {
        held.push(tcp_from(&server, "127.0.0.2").await);
    }
    let mut over = tcp_from(&server, "127.0.0.3").await;
    assert!(
        closed_within(&mut over, Duration::from_millis(1500)).await,
        "per subnet"
    );
    // The total (12, and 16 more for the host itself: every address here is the host's).
    for i in 0..8 {
        held.push(tcp_from(&server, &format!("127.0.1.{}", 1 + i % 4)).await);
    }
    for i in 0..10 {
        held.push(tcp_from(&server, &format!("127.0.2.{}", 1 + i % 4)).await);
    }
    assert_eq!(held.len(), 28);
    let mut over = tcp_from(&server, "127.0.3.1").await;
    assert!(
        closed_within(&mut over, Duration::from_millis(1500)).await,
        "in total"
    );
    // Nothing was sent on the held ones: each is closed after the header timeout.
    for tcp in &mut held {
        assert!(
            closed_within(tcp, Duration::from_secs(5)).await,
            "idle closed"
        );
    }
    drop(held);
    assert_eq!(
        violations(&server, "tcp_connections_per_address").await,
        1.0
    );
    assert_eq!(violations(&server, "tcp_connections_per_subnet").await, 1.0);
    assert_eq!(violations(&server, "tcp_connections_total").await, 1.0);
    // A kept-alive connection that sits idle after its request is closed too.
    let mut tcp = tcp_from(&server, "127.0.0.1").await;
    tcp.write_all(b"GET /healthz HTTP/1.1\r\nHost: merels\r\n\r\n")
        .await
        .unwrap();
    let mut answer = vec![0u8; 512];
    let n = tcp.read(&mut answer).await.unwrap();
    assert!(answer[..n].starts_with(b"HTTP/1.1 200"));
    let started = std::time::Instant::now();
    assert!(
        closed_within(&mut tcp, Duration::from_secs(5)).await,
        "idle after a request"
    );
    assert!(
        started.elapsed() >= Duration::from_millis(1500),
        "not before the timeout"
    );
    let health = reqwest::get(format!("{}/healthz", server.base))
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    server.stop().await;
}

/// `/metrics` is the operator's: from the host itself, or with the token when one is set.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_need_the_token_when_one_is_set() {
    let server = TestServer::start_with(|c| c.metrics_token = Some("s3cret".into())).await;
    let url = format!("{}/metrics", server.base);
    let client = reqwest::Client::new();
    let bare = client.get(&url).send().await.unwrap();
    assert_eq!(bare.status(), 401);
    let wrong = client.get(&url).bearer_auth("guess").send().await.unwrap();
    assert_eq!(wrong.status(), 401);
    let right = client.get(&url).bearer_auth("s3cret").send().await.unwrap();
    assert_eq!(right.status(), 200);
    assert!(
        right
            .text()
            .await
            .unwrap()
            .contains("merels_turns_accepted")
    );
    server.stop().await;
    // Without a token, a request that comes (as the proxy says) from elsewhere is refused.
    let server = TestServer::start_with(|c| c.trust_forwarded_for = true).await;
    let outside = reqwest::Client::new()
        .get(format!("{}/metrics", server.base))
        .header("x-forwarded-for", "203.0.113.9")
        .send()
        .await
        .unwrap();
    assert_eq!(outside.status(), 401);
    let local = reqwest::get(format!("{}/metrics", server.base))
        .await
        .unwrap();
    assert_eq!(local.status(), 200);
    server.stop().await;
}
