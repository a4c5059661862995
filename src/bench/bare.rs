//! The physical limit for `merels bench`: a bare WebSocket broadcast server that speaks just
//! enough of the protocol for the same client (create, join, hello, state, move) and sends states
//! of the same size, but checks no rules and stores nothing.

use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// The points of the Nine Men's board, offered as the "legal turns" of every state, so that
/// states are as large as merels's during placement.
const POINTS: [&str; 24] = [
    "a1", "a4", "a7", "b2", "b4", "b6", "c3", "c4", "c5", "d1", "d2", "d3", "d5", "d6", "d7", "e3",
    "e4", "e5", "f2", "f4", "f6", "g1", "g4", "g7",
];

#[derive(Default)]
struct Game {
    version: u64,
    turns: Vec<String>,
    conns: Vec<mpsc::UnboundedSender<Utf8Bytes>>,
}

#[derive(Default)]
struct Bare {
    games: Mutex<HashMap<String, Game>>,
    next: AtomicU64,
}

fn state(id: &str, game: &Game) -> Utf8Bytes {
    let to_move = if game.turns.len().is_multiple_of(2) {
        "white"
    } else {
        "black"
    };
    let v = json!({
        "type": "state", "id": id, "version": game.version, "variant": "nine-mens-morris",
        "options": {"flying": "on"}, "position": "- - 9/9 w", "turns": game.turns,
        "to_move": to_move, "legal": POINTS, "status": "playing", "result": null,
        "termination": null, "winner": null, "hand": {"white": 9, "black": 9},
        "on_board": {"white": 0, "black": 0}, "removed": {"white": 0, "black": 0},
        "last_turn": game.turns.last(), "fresh_mills": [],
        "seats": {"white": {"taken": true, "connected": true},
                  "black": {"taken": true, "connected": true}},
        "spectators": game.conns.len(),
    });
    Utf8Bytes::from(v.to_string())
}

/// The bare server's routes.
pub fn router() -> Router {
    let bare = Arc::new(Bare::default());
    Router::new()
        .route("/api/games", post(create))
        .route("/api/games/{id}/join", post(join))
        .route("/api/games/{id}/ws", get(upgrade))
        .route("/readyz", get(|| async { "ready\n" }))
        .with_state(bare)
}

async fn create(State(bare): State<Arc<Bare>>) -> Json<Value> {
    let id = format!("{:022}", bare.next.fetch_add(1, Ordering::Relaxed));
    bare.games
        .lock()
        .unwrap()
        .insert(id.clone(), Game::default());
    Json(json!({"id": id, "seat": "white", "secret": "white"}))
}

async fn join(Path(id): Path<String>) -> Json<Value> {
    Json(json!({"id": id, "seat": "black", "secret": "black"}))
}

async fn upgrade(
    State(bare): State<Arc<Bare>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> axum::response::Response {
    let seat = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_string);
    ws.read_buffer_size(4096)
        .write_buffer_size(4096)
        .on_upgrade(move |socket| serve(socket, bare, id, seat))
}

async fn serve(socket: WebSocket, bare: Arc<Bare>, id: String, seat: Option<String>) {
    let (tx, mut rx) = mpsc::unbounded_channel::<Utf8Bytes>();
    let hello = json!({"type": "hello", "protocol": 1, "game": id, "seat": seat,
                       "handoff_url": null, "board": {"size": 7, "points": [], "lines": [], "mills": []}});
    let _ = tx.send(Utf8Bytes::from(hello.to_string()));
    {
        let mut games = bare.games.lock().unwrap();
        let game = games.entry(id.clone()).or_default();
        let _ = tx.send(state(&id, game));
        game.conns.push(tx);
    }
    let (mut sink, mut stream) = socket.split();
    let send = tokio::spawn(async move {
        while let Some(m) = rx.recv().await {
            if sink.send(Message::Text(m)).await.is_err() {
                break;
            }
        }
    });
    while let Some(Ok(msg)) = stream.next().await {
        let Message::Text(text) = msg else { continue };
        let Ok(v) = serde_json::from_str::<Value>(text.as_str()) else {
            continue;
        };
        let Some(turn) = v.get("move").and_then(Value::as_str) else {
            continue;
        };
        let mut games = bare.games.lock().unwrap();
        let Some(game) = games.get_mut(&id) else {
            continue;
        };
        game.version += 1;
        // Like merels's games, which end and start again, keep the turn list short.
        if game.turns.len() >= 120 {
            game.turns.clear();
        }
        game.turns.push(turn.to_string());
        let frame = state(&id, game);
        game.conns.retain(|c| c.send(frame.clone()).is_ok());
    }
    send.abort();
}
