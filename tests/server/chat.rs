//! The chats over real WebSockets, on SQLite and PostgreSQL: the players' chat and the
//! spectators' own, who hears which, the limits and their errors, and lines that outlive a restart.

use crate::harness::{PgCluster, TestServer, Ws};
use serde_json::{Value, json};

/// The texts of a `chat_history`'s lines, each as `room/seq/by: text`.
fn lines(history: &Value) -> Vec<String> {
    history["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(line)
        .collect()
}

fn line(l: &Value) -> String {
    let by = l["by"].as_str().unwrap_or("spectator");
    format!(
        "{}/{}/{by}: {}",
        l["room"].as_str().unwrap(),
        l["seq"],
        l["text"].as_str().unwrap()
    )
}

async fn say(ws: &mut Ws, text: &str) {
    ws.send_json(json!({"type": "chat", "text": text})).await;
}

/// The next chat line this connection hears.
async fn heard(ws: &mut Ws) -> String {
    line(&ws.next_of("chat").await)
}

/// How many chat lines reach this connection before the answer to a ping sent now.
async fn unheard(ws: &mut Ws) -> usize {
    ws.send_json(json!({"type": "ping"})).await;
    let mut n = 0;
    loop {
        match ws.next().await["type"].as_str() {
            Some("pong") => return n,
            Some("chat") => n += 1,
            _ => {}
        }
    }
}

/// The next error: its code.
async fn refused(ws: &mut Ws) -> String {
    ws.next_of("error").await["code"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Who hears what, the limits, and a restart, on the store at `url`.
async fn chats_on(url: &str) {
    let server = TestServer::start_on(url, |_| {}).await;
    let http = server.http();
    let white = http.create("nine-mens-morris", "white").await;
    let black = http.join(&white.id).await;
    let mut w = server.ws(&white.id, Some(&white.secret)).await;
    let mut b = server.ws(&white.id, Some(&black.secret)).await;
    // Each spectator from an address of its own, as people are: what one address may say over
    // all its sockets is tested apart (`one_address_cannot_flood_a_chat_with_many_sockets`).
    let from = |n: u8| std::net::IpAddr::from([127, 0, 0, n]);
    let mut watcher = Ws::connect_from(from(2), server.addr, &white.id).await;
    let mut other = Ws::connect_from(from(3), server.addr, &white.id).await;
    assert_eq!(
        w.chat["hearing"],
        json!({"players": true, "spectators": false})
    );
    assert_eq!(
        watcher.chat["hearing"],
        json!({"players": false, "spectators": true})
    );
    assert!(lines(&w.chat).is_empty());

    // The players hear each other; spectators do not.
    say(&mut w, "good luck <script>alert(1)</script>").await;
    let said = "players/1/white: good luck <script>alert(1)</script>";
    assert_eq!(heard(&mut b).await, said);
    assert_eq!(
        heard(&mut w).await,
        said,
        "the speaker hears the line as stored"
    );
    // The spectators hear each other; the players do not, unless they ask.
    say(&mut watcher, "white opens well").await;
    let watched = "spectators/1/spectator: white opens well";
    assert_eq!(heard(&mut other).await, watched);
    assert_eq!(heard(&mut watcher).await, watched);
    say(&mut b, "thanks").await;
    // The players' next line is the first chat message each spectator gets: they heard nothing
    // of the players' chat in between.
    assert_eq!(heard(&mut w).await, "players/2/black: thanks");
    say(&mut other, "agreed").await;
    assert_eq!(heard(&mut watcher).await, "spectators/2/spectator: agreed");
    assert_eq!(heard(&mut other).await, "spectators/2/spectator: agreed");

    // Black chooses to read the spectators too, and gets what they said so far.
    b.send_json(json!({"type": "chat_settings", "players": true, "spectators": true}))
        .await;
    let history = b.next_of("chat_history").await;
    assert_eq!(
        history["hearing"],
        json!({"players": true, "spectators": true})
    );
    assert_eq!(
        lines(&history),
        [
            said,
            "players/2/black: thanks",
            watched,
            "spectators/2/spectator: agreed"
        ]
    );
    say(&mut other, "black is listening").await;
    for ws in [&mut b, &mut watcher, &mut other] {
        assert_eq!(
            heard(ws).await,
            "spectators/3/spectator: black is listening"
        );
    }
    // A spectator cannot listen in on the players; White mutes the players' chat.
    watcher
        .send_json(json!({"type": "chat_settings", "players": true, "spectators": true}))
        .await;
    let history = watcher.next_of("chat_history").await;
    assert_eq!(
        history["hearing"],
        json!({"players": false, "spectators": true})
    );
    assert!(lines(&history).iter().all(|l| l.starts_with("spectators/")));
    w.send_json(json!({"type": "chat_settings", "players": false, "spectators": false}))
        .await;
    assert!(lines(&w.next_of("chat_history").await).is_empty());
    say(&mut b, "are you there?").await;
    assert_eq!(heard(&mut b).await, "players/3/black: are you there?");
    say(&mut w, "still here").await; // a muted player may still speak
    assert_eq!(heard(&mut b).await, "players/4/white: still here");
    assert_eq!(unheard(&mut w).await, 0, "White muted the chat");
    assert_eq!(
        unheard(&mut watcher).await,
        0,
        "the players' chat is theirs"
    );

    // Limits: each refused with its code, and nothing said.
    say(&mut b, "   ").await;
    assert_eq!(refused(&mut b).await, "not_allowed");
    say(&mut b, &"x".repeat(301)).await;
    assert_eq!(refused(&mut b).await, "too_large");
    b.send_text(r#"{"type":"chat","text":"hi","to":"white"}"#)
        .await;
    assert_eq!(refused(&mut b).await, "malformed");
    let mut spammer = Ws::connect_from(from(4), server.addr, &white.id).await;
    for i in 0..5 {
        say(&mut spammer, &format!("spam {i}")).await;
        assert_eq!(
            heard(&mut spammer).await,
            format!("spectators/{}/spectator: spam {i}", 4 + i)
        );
    }
    say(&mut spammer, "one too many").await;
    assert_eq!(refused(&mut spammer).await, "rate_limited");
    // The other spectator is not held back by it.
    say(&mut watcher, "my turn").await;
    for i in 0..5 {
        assert_eq!(
            heard(&mut watcher).await,
            format!("spectators/{}/spectator: spam {i}", 4 + i)
        );
    }
    assert_eq!(heard(&mut watcher).await, "spectators/9/spectator: my turn");

    // The lines are stored with the game: after a restart, a reconnecting player gets them.
    drop((w, b, watcher, other, spammer));
    let server = server.restart().await;
    let b = server.ws(&white.id, Some(&black.secret)).await;
    let got = lines(&b.chat);
    assert_eq!(got.len(), 4, "the players' chat: {got:?}");
    assert_eq!(got[3], "players/4/white: still here");
    let mut watcher = server.ws(&white.id, None).await;
    assert_eq!(lines(&watcher.chat).len(), 9);
    // Every state says how many lines each chat holds, so that a client that lost some (its
    // connection fell behind) knows to ask again.
    assert_eq!(
        watcher.state["chat"],
        json!({"players": 4, "spectators": 9})
    );
    say(&mut watcher, "welcome back").await;
    assert_eq!(
        heard(&mut watcher).await,
        "spectators/10/spectator: welcome back"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_and_spectators_chat_apart_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    chats_on(&format!("sqlite:{}", dir.path().join("chat.db").display())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_and_spectators_chat_apart_on_postgres() {
    let cluster = PgCluster::start();
    chats_on(&cluster.database("chat").await).await;
}

/// One address cannot fill a game's chat, however many sockets it opens: what it may say is
/// counted over all of them, in lines and in bytes, and refused past that (`rate_limited`),
/// while a spectator from another address still talks. (Before, sixty-four sockets from one
/// address said 320 lines a second.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_cannot_flood_a_chat_with_many_sockets() {
    const SOCKETS: usize = 20;
    let server = TestServer::start().await;
    let http = server.http();
    let white = http.create("nine-mens-morris", "white").await;
    let black = http.join(&white.id).await;
    assert_eq!(http.resign(&black).await.0, 200);

    let mut flood = Vec::new();
    for _ in 0..SOCKETS {
        flood.push(server.ws(&white.id, None).await);
    }
    // Each socket says as much as its own allowance lets it (five lines): a hundred in all.
    for (i, ws) in flood.iter_mut().enumerate() {
        for n in 0..5 {
            say(ws, &format!("spam {i}-{n}")).await;
        }
    }
    // Each hears every line of its own said back, or refused.
    let mut limited = 0;
    for (i, ws) in flood.iter_mut().enumerate() {
        let mine = format!("spam {i}-");
        let mut answered = 0;
        while answered < 5 {
            let msg = ws.next().await;
            match msg["type"].as_str() {
                Some("error") => {
                    assert_eq!(msg["code"], "rate_limited", "{msg}");
                    limited += 1;
                    answered += 1;
                }
                Some("chat") if msg["text"].as_str().unwrap().starts_with(&mine) => answered += 1,
                _ => {}
            }
        }
    }
    let said = count_said(&server, &white.id).await;
    assert!(said <= 15, "{said} lines from one address in a moment");
    assert_eq!(said + limited, SOCKETS * 5, "every line said or refused");

    // Another address is not held back by it.
    let source = "127.0.0.2".parse().unwrap();
    let mut honest = Ws::connect_from(source, server.addr, &white.id).await;
    say(&mut honest, "well played").await;
    assert!(heard(&mut honest).await.ends_with("well played"));

    // Bytes count too: two lines of 300 emoji (1,200 bytes each) at once are one too many.
    let source = "127.0.0.3".parse().unwrap();
    let mut wordy = Ws::connect_from(source, server.addr, &white.id).await;
    let long = "😀".repeat(300);
    say(&mut wordy, &long).await;
    assert!(heard(&mut wordy).await.ends_with(&long));
    say(&mut wordy, &long).await;
    assert_eq!(refused(&mut wordy).await, "rate_limited");
    server.stop().await;
}

/// How many lines a game's spectators' chat holds, as a newcomer hears it.
async fn count_said(server: &TestServer, id: &str) -> usize {
    lines(&server.ws(id, None).await.chat).len()
}
