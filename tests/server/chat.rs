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
    let mut watcher = server.ws(&white.id, None).await;
    let mut other = server.ws(&white.id, None).await;
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
    let mut spammer = server.ws(&white.id, None).await;
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
