//! Live play over real WebSockets against a server on 127.0.0.1:0: whole games to a result,
//! spectators, seats, bad input of every kind, and reconnecting.

use crate::harness::{TestServer, Ws, eager_turn, turns};
use futures_util::SinkExt;
use merels::catalog::Catalog;
use merels::rules::Game;
use serde_json::{Value, json};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

/// Plays a whole game over two player sockets while a spectator watches; returns the final state.
async fn play_out(server: &TestServer, variant: &str) -> Value {
    let http = server.http();
    let white = http.create(variant, "white").await;
    let mut spectator_early = server.ws(&white.id, None).await;
    let black = http.join(&white.id).await;
    assert_eq!(black.color, "black");
    let mut ws_white = server.ws(&white.id, Some(&white.secret)).await;
    let mut ws_black = server.ws(&white.id, Some(&black.secret)).await;
    assert_eq!(ws_white.hello["seat"], "white");
    assert_eq!(ws_black.hello["seat"], "black");
    // A seat's secret is in the answer that made the seat, and in no message after it.
    assert!(!ws_white.hello.to_string().contains(&white.secret));
    assert!(!ws_white.state.to_string().contains(&white.secret));
    assert_eq!(spectator_early.hello["seat"], Value::Null);

    let mut versions = vec![spectator_early.state["version"].as_u64().unwrap()];
    let mut seen_turns: Vec<String> = Vec::new();
    let mut state = ws_white.state.clone();
    for ply in 0..400 {
        if state["status"] == "finished" {
            break;
        }
        let turn = eager_turn(&state);
        let mover = if state["to_move"] == "white" {
            &mut ws_white
        } else {
            &mut ws_black
        };
        mover.play(&turn).await;
        state = mover.state_with_turns(ply + 1).await;
        // The spectator sees every turn, in order, each in a state with a higher version.
        let seen = spectator_early.state_with_turns(ply + 1).await;
        versions.push(seen["version"].as_u64().unwrap());
        seen_turns.push(turns(&seen)[ply].clone());
        assert_eq!(turns(&seen), turns(&state));
    }
    assert_eq!(
        state["status"], "finished",
        "{variant} did not finish: {state}"
    );
    assert!(versions.windows(2).all(|w| w[0] < w[1]), "{versions:?}");
    assert_eq!(seen_turns, turns(&state));
    assert!(["1-0", "0-1", "1/2-1/2"].contains(&state["result"].as_str().unwrap()));
    assert!(state["termination"].is_string());
    assert!(state["legal"].as_array().unwrap().is_empty());
    state
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whole_games_of_several_variants_reach_a_result() {
    let server = TestServer::start().await;
    for variant in [
        "six-mens-morris",
        "three-mens-morris",
        "nine-mens-morris",
        "lasker-morris",
        "morabaraba",
    ] {
        let state = play_out(&server, variant).await;
        // The record of the finished game says the same.
        let record = server.http().record(state["id"].as_str().unwrap()).await;
        assert!(
            record.contains(&format!(
                "[Result \"{}\"]",
                state["result"].as_str().unwrap()
            )),
            "{record}"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn a_third_visitor_gets_no_seat_and_only_one_of_many_simultaneous_joins_wins() {
    let server = TestServer::start().await;
    let http = server.http();
    let white = http.create("six-mens-morris", "random").await;
    let joins = (0..12).map(|_| {
        let http = http.clone();
        let id = white.id.clone();
        tokio::spawn(async move {
            http.request("POST", &format!("/api/games/{id}/join"), None, None)
                .await
        })
    });
    let mut won = 0;
    for j in joins {
        let (status, body) = j.await.unwrap();
        match status {
            200 => won += 1,
            409 => assert_eq!(body["error"], "seats_taken"),
            other => panic!("{other}: {body}"),
        }
    }
    assert_eq!(won, 1);
    let watcher = server.ws(&white.id, None).await;
    assert_eq!(watcher.hello["seat"], Value::Null);
    assert_eq!(watcher.state["status"], "playing");
    // A wrong secret is no seat either.
    let stranger = server.ws(&white.id, Some("not-the-secret")).await;
    assert_eq!(stranger.hello["seat"], Value::Null);
    server.stop().await;
}

#[tokio::test]
async fn spectators_and_out_of_turn_players_are_refused_and_nothing_changes() {
    let server = TestServer::start().await;
    let http = server.http();
    let white = http.create("nine-mens-morris", "white").await;
    let black = http.join(&white.id).await;
    let mut spectator = server.ws(&white.id, None).await;
    let mut ws_black = server.ws(&white.id, Some(&black.secret)).await;
    let before = spectator.state.clone();

    spectator.play("d6").await;
    let err = spectator.next_of("error").await;
    assert_eq!(err["code"], "not_seated");

    ws_black.play("d6").await;
    let err = ws_black.next_of("error").await;
    assert_eq!(err["code"], "not_your_turn");

    let mut ws_white = server.ws(&white.id, Some(&white.secret)).await;
    ws_white.play("d6-d5").await;
    assert_eq!(ws_white.next_of("error").await["code"], "illegal_turn");
    ws_white.play("zz9").await;
    assert_eq!(ws_white.next_of("error").await["code"], "bad_notation");

    let after = http.state(&white.id).await;
    assert_eq!(after["version"], before["version"]);
    assert_eq!(after["position"], before["position"]);
    assert!(turns(&after).is_empty());

    // The game goes on normally afterwards.
    ws_white.play("d6").await;
    assert_eq!(turns(&ws_black.state_with_turns(1).await), ["d6"]);
    server.stop().await;
}

#[tokio::test]
async fn malformed_unknown_and_oversized_messages_get_errors_and_no_panic() {
    let server = TestServer::start().await;
    let http = server.http();
    let white = http.create("six-mens-morris", "white").await;
    http.join(&white.id).await;
    let mut ws = server.ws(&white.id, Some(&white.secret)).await;

    for (text, code) in [
        ("not json", "malformed"),
        ("{\"type\": 7}", "malformed"),
        ("[1,2,3]", "malformed"),
        ("{\"type\":\"teleport\",\"to\":\"a1\"}", "unknown_type"),
        ("{\"type\":\"move\"}", "malformed"),
        (
            "{\"type\":\"move\",\"move\":\"a1\",\"extra\":1}",
            "malformed",
        ),
        // Messages without fields take none either: this one does not resign.
        (
            "{\"type\":\"resign\",\"seat\":\"black\",\"x\":[1]}",
            "malformed",
        ),
        ("{\"type\":\"move\",\"move\":\" a1\"}", "bad_notation"),
    ] {
        ws.send_text(text).await;
        let err = ws.next_of("error").await;
        assert_eq!(err["code"], code, "{text}: {err}");
        assert!(err["message"].as_str().unwrap().len() > 5);
    }
    ws.stream
        .send(Message::binary(vec![1u8, 2, 3]))
        .await
        .unwrap();
    assert_eq!(ws.next_of("error").await["code"], "malformed");
    ws.send_json(json!({"type": "ping"})).await;
    assert_eq!(ws.next_of("pong").await["type"], "pong");
    ws.send_json(json!({"type": "sync"})).await;
    assert_eq!(ws.next_state().await["version"], ws.state["version"]);

    // An oversized frame closes that connection with 1009; the server keeps serving others.
    let mut big = server.ws(&white.id, Some(&white.secret)).await;
    big.send_text(&format!(
        "{{\"type\":\"move\",\"move\":\"{}\"}}",
        "a".repeat(100_000)
    ))
    .await;
    assert_eq!(big.closed().await, Some(1009));
    ws.play("a1").await;
    assert_eq!(turns(&ws.state_with_turns(1).await), ["a1"]);

    // An unknown game is a 404 before any upgrade.
    let (status, _) = http
        .request("GET", "/api/games/AAAAAAAAAAAAAAAAAAAAAA/ws", None, None)
        .await;
    assert_eq!(status, 404);
    let url = format!("ws://{}/api/games/AAAAAAAAAAAAAAAAAAAAAA/ws", server.addr);
    match tokio_tungstenite::connect_async(url).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status(), 404)
        }
        other => panic!("expected a 404 handshake, got {other:?}"),
    }
    server.stop().await;
}

#[tokio::test]
async fn watchers_are_counted_as_they_come_and_go() {
    let server = TestServer::start().await;
    let http = server.http();
    let white = http.create("nine-mens-morris", "white").await;
    http.join(&white.id).await;
    let mut ws_white = server.ws(&white.id, Some(&white.secret)).await;
    // Each newcomer's first state counts it; spectators all get the same hello.
    let first = server.ws(&white.id, None).await;
    assert_eq!(first.state["spectators"], 1);
    let second = server.ws(&white.id, None).await;
    assert_eq!(second.state["spectators"], 2);
    assert_eq!(second.hello, first.hello);
    assert_eq!(second.hello["seat"], Value::Null);
    assert_eq!(ws_white.hello["seat"], "white");
    assert_eq!(first.state["seats"]["white"]["connected"], true);
    assert_eq!(first.state["seats"]["black"]["connected"], false);
    // Those already there hear of each change shortly after.
    async fn until_watched_by(ws: &mut Ws, spectators: u64) {
        while ws.next_state().await["spectators"] != spectators {}
    }
    drop(first);
    until_watched_by(&mut ws_white, 1).await;
    drop(second);
    until_watched_by(&mut ws_white, 0).await;
    server.stop().await;
}

#[tokio::test]
async fn a_player_who_reconnects_keeps_the_seat_and_sees_the_same_state() {
    let server = TestServer::start().await;
    let http = server.http();
    let white = http.create("six-mens-morris", "white").await;
    let black = http.join(&white.id).await;
    let mut ws_white = server.ws(&white.id, Some(&white.secret)).await;
    let mut ws_black = server.ws(&white.id, Some(&black.secret)).await;
    ws_white.play("a1").await;
    ws_black.state_with_turns(1).await;
    ws_black.play("e5").await;
    let state = ws_white.state_with_turns(2).await;
    assert_eq!(state["seats"]["black"]["connected"], true);

    drop(ws_black);
    // The opponent sees Black go offline.
    loop {
        let s = ws_white.next_state().await;
        if s["seats"]["black"]["connected"] == false {
            break;
        }
    }
    let mut again = Ws::connect(server.addr, &white.id, Some(&black.secret)).await;
    assert_eq!(again.hello["seat"], "black");
    assert_eq!(again.state["position"], state["position"]);
    assert_eq!(again.state["turns"], state["turns"]);
    ws_white.play("a3").await;
    again.state_with_turns(3).await;
    again.play("e3").await;
    assert_eq!(
        turns(&ws_white.state_with_turns(4).await),
        ["a1", "e5", "a3", "e3"]
    );
    server.stop().await;
}

#[tokio::test]
async fn the_http_api_answers_with_fitting_statuses() {
    let server = TestServer::start().await;
    let http = server.http();
    let (status, body) = http.request("GET", "/api/variants", None, None).await;
    assert_eq!(status, 200);
    assert_eq!(body.as_array().unwrap().len(), 8);
    assert_eq!(body[4]["slug"], "nine-mens-morris");
    assert_eq!(body[4]["options"][0]["key"], "flying");
    assert_eq!(body[4]["board"]["points"].as_array().unwrap().len(), 24);

    let (status, _) = http.request("GET", "/healthz", None, None).await;
    assert_eq!(status, 200);
    let (status, body) = http
        .request(
            "POST",
            "/api/games",
            None,
            Some(json!({"variant": "ten-mens-morris"})),
        )
        .await;
    assert_eq!((status, body["error"].as_str()), (400, Some("bad_variant")));
    let (status, _) = http
        .request(
            "POST",
            "/api/games",
            None,
            Some(json!({"variant": "six-mens-morris", "options": {"flying": "on"}})),
        )
        .await;
    assert_eq!(status, 400);
    let (status, body) = http
        .request("POST", "/api/games", None, Some(json!("nonsense")))
        .await;
    assert_eq!((status, body["error"].as_str()), (400, Some("malformed")));

    let white = http.create("nine-mens-morris", "white").await;
    let id = white.id.clone();
    let state = http.state(&id).await;
    for key in [
        "version",
        "variant",
        "options",
        "position",
        "turns",
        "to_move",
        "legal",
        "status",
        "result",
        "termination",
    ] {
        assert!(state.get(key).is_some(), "state lacks {key}: {state}");
    }
    assert_eq!(state["status"], "waiting");
    assert_eq!(state["position"], "- - 9/9 w");

    let (status, body) = http.play(&white, "d6").await;
    assert_eq!((status, body["error"].as_str()), (409, Some("not_started")));
    let black = http.join(&id).await;
    let (status, _) = http
        .request("POST", &format!("/api/games/{id}/join"), None, None)
        .await;
    assert_eq!(status, 409);
    let (status, body) = http
        .request(
            "POST",
            &format!("/api/games/{id}/move"),
            None,
            Some(json!({"move": "d6"})),
        )
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (401, Some("unauthenticated"))
    );
    let (status, _) = http
        .request(
            "POST",
            &format!("/api/games/{id}/move"),
            Some("wrong"),
            Some(json!({"move": "d6"})),
        )
        .await;
    assert_eq!(status, 403);
    let (status, _) = http.play(&black, "d6").await;
    assert_eq!(status, 409);
    let (status, _) = http.play(&white, "h9").await;
    assert_eq!(status, 400);
    let (status, body) = http.play(&white, "d6").await;
    assert_eq!(status, 200);
    assert_eq!(body["turns"], json!(["d6"]));
    assert_eq!(body["to_move"], "black");
    let (status, _) = http.play(&black, "d6").await;
    assert_eq!(status, 422);
    let (status, _) = http.request("GET", "/api/games/nope", None, None).await;
    assert_eq!(status, 404);
    let (status, _) = http
        .request(
            "POST",
            "/api/games/AAAAAAAAAAAAAAAAAAAAAA/move",
            Some("x"),
            Some(json!({"move": "d6"})),
        )
        .await;
    assert_eq!(status, 404);
    server.stop().await;
}

/// A long Nine Men's Morris game without flying, found by the rules engine: random turns, with
/// removals taken only now and then so that it lasts.
fn long_game(plies: usize) -> Vec<String> {
    let variant = Catalog::builtin()
        .configure(
            "nine-mens-morris",
            &[("flying".to_string(), "off".to_string())].into(),
        )
        .unwrap();
    (0..1000)
        .find_map(|seed| {
            let mut rng = crate::random::Rng::new(seed);
            let mut game = Game::new(variant.clone());
            while game.turns().len() < plies {
                if game.outcome().is_some() {
                    return None;
                }
                let legal = game.legal_turns();
                let quiet: Vec<_> = legal.iter().filter(|t| t.remove.is_none()).collect();
                let turn = if quiet.is_empty() || rng.below(8) == 0 {
                    legal[rng.below(legal.len())]
                } else {
                    *quiet[rng.below(quiet.len())]
                };
                game.play(turn).unwrap();
            }
            Some(game.turn_strings().iter().map(|t| t.to_string()).collect())
        })
        .expect("a seed gives a long game")
}

/// What a change costs a spectator does not grow with the game: an update says where the game
/// stands, not its history. (Its legal turns are bounded by the board, and vary with the
/// position, so they are left out of the comparison.)
#[tokio::test]
async fn an_update_costs_the_same_at_ply_20_and_at_ply_110() {
    let turns = long_game(111);
    let server = TestServer::start().await;
    let http = server.http();
    let white = http
        .create_with(
            json!({"variant": "nine-mens-morris", "options": {"flying": "off"}, "color": "white"}),
        )
        .await;
    let black = http.join(&white.id).await;
    let mut watcher = server.ws(&white.id, None).await;
    let mut bytes = Vec::new();
    for (ply, turn) in turns.iter().enumerate() {
        let seat = if ply % 2 == 0 { &white } else { &black };
        let (status, body) = http.play(seat, turn).await;
        assert_eq!(status, 200, "ply {ply} {turn}: {body}");
        let update = loop {
            let m = watcher.next().await;
            if m["type"] == "update" && m["plies"] == ply + 1 {
                break m;
            }
        };
        assert!(update.get("turns").is_none(), "{update}");
        let mut rest = update.as_object().unwrap().clone();
        rest.remove("legal");
        bytes.push(Value::Object(rest).to_string().len());
    }
    // The watcher's view, built from updates alone, is the game.
    assert_eq!(crate::harness::turns(&watcher.state), turns);
    let (early, late) = (bytes[19], bytes[109]);
    assert!(
        late <= early + 16,
        "an update at ply 110 is {late} bytes without its legal turns, at ply 20 {early}"
    );
    server.stop().await;
}

/// The server pings every socket; a client that answers nothing is closed and its player counts
/// as gone (so the opponent may claim), while one that reads (and so answers) stays.
#[tokio::test]
async fn a_client_that_answers_no_ping_is_closed_and_counts_as_gone() {
    use futures_util::StreamExt;
    let server = TestServer::start_with(|c| c.ws_ping_secs = 0.2).await;
    let http = server.http();
    let white = http.create("six-mens-morris", "white").await;
    let black = http.join(&white.id).await;
    let mut listening = server.ws(&white.id, Some(&white.secret)).await.stream;
    let silent = server.ws(&white.id, Some(&black.secret)).await;
    // White reads on (tungstenite answers each ping as it reads) and records how it ended.
    let reader = tokio::spawn(async move {
        let mut pings = 0;
        while let Some(Ok(frame)) = listening.next().await {
            if let Message::Ping(_) = frame {
                pings += 1;
            }
        }
        pings
    });
    let connected = |state: &Value, side: &str| state["seats"][side]["connected"] == true;
    crate::harness::eventually("the silent black counts as gone", || async {
        !connected(&http.state(&white.id).await, "black")
    })
    .await;
    // Many pings later, White is still there.
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    assert!(connected(&http.state(&white.id).await, "white"));
    assert!(!reader.is_finished(), "the listening client was kept");
    drop(silent);
    server.stop().await;
    assert!(reader.await.unwrap() >= 5, "pinged every 0.2 s");
}

/// Opens a game's socket by hand over TCP, so that frames of any shape can be sent.
async fn raw_socket(server: &TestServer, id: &str) -> tokio::net::TcpStream {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let request = format!(
        "GET /api/games/{id}/ws HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\n\
         Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         Sec-WebSocket-Version: 13\r\n\r\n",
        server.addr
    );
    tcp.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        head.push(tcp.read_u8().await.unwrap());
    }
    assert!(
        head.starts_with(b"HTTP/1.1 101"),
        "{}",
        String::from_utf8_lossy(&head)
    );
    tcp
}

/// Reads the server's frames until its Close; returns the close code (none if the connection
/// ended without one).
async fn close_code(tcp: &mut (impl tokio::io::AsyncRead + Unpin)) -> Option<u16> {
    use tokio::io::AsyncReadExt;
    loop {
        let read = async {
            let b0 = tcp.read_u8().await?;
            let b1 = tcp.read_u8().await?;
            let len = match b1 & 0x7f {
                126 => u64::from(tcp.read_u16().await?),
                127 => tcp.read_u64().await?,
                n => u64::from(n),
            };
            let mut payload = vec![0u8; len as usize];
            tcp.read_exact(&mut payload).await?;
            Ok::<_, std::io::Error>((b0 & 0x0f, payload))
        };
        match tokio::time::timeout(Duration::from_secs(15), read).await {
            Ok(Ok((0x8, payload))) => {
                return payload.get(..2).map(|c| u16::from_be_bytes([c[0], c[1]]));
            }
            Ok(Ok(_)) => continue,
            Ok(Err(_)) => return None,
            Err(_) => panic!("no close in time"),
        }
    }
}

/// Broken frames are answered as RFC 6455 asks, with the close code that says why, and a
/// client's Close gets a Close back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_frames_get_their_close_codes_and_a_close_is_answered() {
    use tokio::io::AsyncWriteExt;
    let server = TestServer::start().await;
    let white = server.http().create("nine-mens-morris", "white").await;
    // A client's frames must be masked: an unmasked one breaks the protocol (1002).
    let mut tcp = raw_socket(&server, &white.id).await;
    tcp.write_all(&[0x81, 0x02, b'h', b'i']).await.unwrap();
    assert_eq!(close_code(&mut tcp).await, Some(1002));
    // So does an opcode the protocol does not have.
    let mut tcp = raw_socket(&server, &white.id).await;
    tcp.write_all(&[0x83, 0x80, 1, 2, 3, 4]).await.unwrap();
    assert_eq!(close_code(&mut tcp).await, Some(1002));
    // Text that is not UTF-8 (1007).
    let mut tcp = raw_socket(&server, &white.id).await;
    let mask = [9u8, 8, 7, 6];
    let text = [0xffu8, 0xfe];
    let mut frame = vec![0x81, 0x82];
    frame.extend(mask);
    frame.extend(text.iter().zip(mask.iter().cycle()).map(|(b, m)| b ^ m));
    tcp.write_all(&frame).await.unwrap();
    assert_eq!(close_code(&mut tcp).await, Some(1007));
    // A Close is answered with a Close that echoes its code.
    let mut tcp = raw_socket(&server, &white.id).await;
    let code = 1000u16.to_be_bytes();
    let mut frame = vec![0x88, 0x82];
    frame.extend(mask);
    frame.extend(code.iter().zip(mask.iter().cycle()).map(|(b, m)| b ^ m));
    tcp.write_all(&frame).await.unwrap();
    assert_eq!(close_code(&mut tcp).await, Some(1000));
    server.stop().await;
}

/// A flood that never makes a message (a text frame left open, then empty continuation
/// fragments without end) is still counted, byte by byte: it is read no faster than the budget,
/// then closed with 1008 and counted, while another game plays on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_empty_fragments_is_closed_with_1008() {
    use tokio::io::AsyncWriteExt;
    let server = TestServer::start().await;
    let http = server.http();
    let white = http.create("nine-mens-morris", "white").await;
    let black = http.join(&white.id).await;
    let tcp = raw_socket(&server, &white.id).await;
    let (mut reader, mut writer) = tcp.into_split();
    let flooding = tokio::spawn(async move {
        // A text frame that is not the last of its message, then empty continuations.
        let _ = writer.write_all(&[0x01, 0x81, 1, 2, 3, 4, b'h' ^ 1]).await;
        let fragment = [0x00u8, 0x80, 9, 9, 9, 9];
        let lump: Vec<u8> = fragment.iter().copied().cycle().take(6 * 10_000).collect();
        while writer.write_all(&lump).await.is_ok() {}
    });
    // The game goes on meanwhile.
    let (status, _) = http.play(&white, "a1").await;
    assert_eq!(status, 200);
    assert_eq!(http.play(&black, "e5").await.0, 200);
    let started = std::time::Instant::now();
    assert_eq!(close_code(&mut reader).await, Some(1008));
    assert!(started.elapsed() < Duration::from_secs(20));
    flooding.abort();
    let flood =
        crate::harness::metric(&server, "merels_limit_violations_total{kind=\"ws_flood\"}").await;
    assert_eq!(flood, 1.0);
    server.stop().await;
}
