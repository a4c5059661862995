//! The physical limit for `merels bench`: a bare WebSocket broadcast server that speaks just
//! enough of the protocol for the same client (create, join, hello, state, move) and sends states
//! of the same size, but checks no rules and stores nothing.

use crate::catalog::Catalog;
use crate::protocol::{Geometry, SeatView, Sides};
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::{SinkExt, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// The points of the Nine Men's board, offered as the "legal turns" of every state, so that
/// states are as large as merels's during placement.
const POINTS: [&str; 24] = [
    "a1", "a4", "a7", "b2", "b4", "b6", "c3", "c4", "c5", "d1", "d2", "d3", "d5", "d6", "d7", "e3",
    "e4", "e5", "f2", "f4", "f6", "g1", "g4", "g7",
];

/// A mid-game position string about as long as merels's, for the replay list of a finished game.
const POSITION: &str = "a1,a4,b2,d1,g7 b4,d6,f2,f6,g1 0/0 w";

struct Game {
    version: u64,
    turns: Vec<String>,
    conns: Vec<mpsc::UnboundedSender<Utf8Bytes>>,
    /// The ply at which the game ends.
    length: usize,
}

impl Game {
    fn new(length: usize) -> Game {
        Game {
            version: 0,
            turns: Vec::new(),
            conns: Vec::new(),
            length,
        }
    }
}

struct Bare {
    games: Mutex<HashMap<String, Game>>,
    next: AtomicU64,
    /// The lengths of games, in plies, taken in turn by the games created.
    lengths: Vec<usize>,
    /// The board's geometry, as merels sends it in every `hello`.
    board: Arc<Geometry>,
}

impl Bare {
    /// A new game, with the next length.
    fn game(&self) -> (String, Game) {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let length = self.lengths[n as usize % self.lengths.len()];
        (format!("{n:022}"), Game::new(length))
    }
}

#[derive(Serialize)]
struct Options {
    flying: &'static str,
}

/// merels's state message, field for field, borrowed from the game: the bare server should spend
/// on it only what writing the bytes costs, or it would not be the limit it stands for.
#[derive(Serialize)]
struct StateMessage<'a> {
    r#type: &'static str,
    id: &'a str,
    version: u64,
    variant: &'static str,
    options: Options,
    position: &'static str,
    turns: &'a [String],
    to_move: &'static str,
    legal: &'static [&'static str],
    status: &'static str,
    result: Option<&'static str>,
    termination: Option<&'static str>,
    winner: Option<&'static str>,
    hand: Sides<u32>,
    on_board: Sides<u32>,
    removed: Sides<u32>,
    last_turn: Option<&'a String>,
    fresh_mills: [&'static str; 0],
    seats: Sides<SeatView>,
    spectators: usize,
    draw_offer: Option<&'static str>,
    takeback_offer: Option<&'static str>,
    rematch_offer: Option<&'static str>,
    rematch: Option<&'static str>,
    time_control: &'static str,
    clock: Option<&'static str>,
    claim: Option<&'static str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    positions: &'a [&'static str],
}

fn state(id: &str, game: &Game) -> Utf8Bytes {
    // A finished game's state carries, like merels's, no legal turns but a position for each ply.
    let over = game.turns.len() >= game.length;
    let positions = if over {
        vec![POSITION; game.turns.len() + 1]
    } else {
        Vec::new()
    };
    let to_move = if game.turns.len().is_multiple_of(2) {
        "white"
    } else {
        "black"
    };
    let state = StateMessage {
        r#type: "state",
        id,
        version: game.version,
        variant: "nine-mens-morris",
        options: Options { flying: "on" },
        position: "- - 9/9 w",
        turns: &game.turns,
        to_move,
        legal: if over { &[] } else { &POINTS },
        status: if over { "finished" } else { "playing" },
        result: over.then_some("1-0"),
        termination: over.then_some("fewer_than_three"),
        winner: over.then_some("white"),
        hand: Sides::from_fn(|_| 9),
        on_board: Sides::default(),
        removed: Sides::default(),
        last_turn: game.turns.last(),
        fresh_mills: [],
        seats: Sides::from_fn(|_| SeatView {
            taken: true,
            connected: true,
        }),
        spectators: game.conns.len(),
        draw_offer: None,
        takeback_offer: None,
        rematch_offer: None,
        rematch: None,
        time_control: "untimed",
        clock: None,
        claim: None,
        positions: &positions,
    };
    Utf8Bytes::from(serde_json::to_string(&state).expect("a state always serializes"))
}

/// merels's `hello`, borrowed like the state.
#[derive(Serialize)]
struct Hello<'a> {
    r#type: &'static str,
    protocol: u32,
    game: &'a str,
    seat: Option<&'a str>,
    handoff_url: Option<&'a str>,
    board: &'a Geometry,
}

/// A client's message; the bare server only looks for a turn.
#[derive(Deserialize)]
struct Incoming<'a> {
    #[serde(borrow, rename = "move")]
    turn: Option<&'a str>,
}

/// The bare server's routes. Its games end after the given numbers of plies, taken in turn; the
/// load generator passes the lengths of random games of the variant it plays (at least one).
pub fn router(lengths: Vec<usize>) -> Router {
    let bare = Arc::new(Bare {
        games: Mutex::default(),
        next: AtomicU64::new(0),
        lengths: if lengths.is_empty() {
            vec![usize::MAX]
        } else {
            lengths
        },
        board: Geometry::shared(
            Catalog::builtin()
                .configure("nine-mens-morris", &BTreeMap::new())
                .expect("Nine Men's Morris is built in")
                .board(),
        ),
    });
    Router::new()
        .route("/api/games", post(create))
        .route("/api/games/{id}/join", post(join))
        .route("/api/games/{id}/ws", get(upgrade))
        .route("/readyz", get(|| async { "ready\n" }))
        .with_state(bare)
}

async fn create(State(bare): State<Arc<Bare>>) -> Json<Value> {
    let (id, game) = bare.game();
    bare.games.lock().unwrap().insert(id.clone(), game);
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
    let hello = Hello {
        r#type: "hello",
        protocol: 1,
        game: &id,
        seat: seat.as_deref(),
        handoff_url: None,
        board: &bare.board,
    };
    let hello = serde_json::to_string(&hello).expect("a hello always serializes");
    let _ = tx.send(Utf8Bytes::from(hello));
    {
        let mut games = bare.games.lock().unwrap();
        // A game that has ended is gone: nothing to watch.
        let Some(game) = games.get_mut(&id) else {
            return;
        };
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
        let Ok(Incoming { turn: Some(turn) }) = serde_json::from_str(text.as_str()) else {
            continue;
        };
        let mut games = bare.games.lock().unwrap();
        let Some(game) = games.get_mut(&id) else {
            continue;
        };
        game.version += 1;
        game.turns.push(turn.to_string());
        let frame = state(&id, game);
        game.conns.retain(|c| c.send(frame.clone()).is_ok());
        // Like merels's, a finished game is gone for good: its players leave, and the load
        // generator starts a new one in its place.
        if game.turns.len() >= game.length {
            games.remove(&id);
        }
    }
    send.abort();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use crate::protocol::{ServerMessage, StateView, Status};
    use crate::rules::Game as RulesGame;
    use std::collections::{BTreeMap, BTreeSet};

    /// The bare server stands for merels only while its states are merels's in all but content:
    /// the same fields, and about as many bytes, during placement.
    #[test]
    fn bare_states_have_merels_fields_and_size() {
        let nine = Catalog::builtin()
            .configure("nine-mens-morris", &BTreeMap::new())
            .unwrap();
        let moves = ["c4", "f4", "f2", "b4", "d6", "f6"];
        let game = RulesGame::replay(nine, None, &moves).unwrap();
        let seats = Sides::from_fn(|_| SeatView {
            taken: true,
            connected: true,
        });
        let id = "Yl8AoFa933AQfZ2xk3vB7w";
        let merels = StateView::new(id, 8, &game, Status::Playing, seats, 2).to_json();
        let (tx, _rx) = mpsc::unbounded_channel();
        let bare_game = Game {
            version: 8,
            turns: moves.iter().map(|m| m.to_string()).collect(),
            conns: vec![tx.clone(), tx.clone(), tx],
            length: 100,
        };
        let bare = state(id, &bare_game);
        assert_alike(bare.as_str(), &merels, 0.1);
    }

    fn keys(text: &str) -> BTreeSet<String> {
        let v: Value = serde_json::from_str(text).unwrap();
        v.as_object().unwrap().keys().cloned().collect()
    }

    fn assert_alike(bare: &str, merels: &str, tolerance: f64) {
        assert_eq!(keys(bare), keys(merels), "{bare}\n{merels}");
        let (m, b) = (merels.len() as f64, bare.len() as f64);
        assert!(
            (b / m - 1.0).abs() < tolerance,
            "bare {b} bytes, merels {m}"
        );
    }

    /// Games end on the bare server too, with a state like merels's finished one, and every new
    /// connection gets a `hello` with the board as merels sends it.
    #[test]
    fn bare_games_end_like_merels_games() {
        let nine = Catalog::builtin()
            .configure("nine-mens-morris", &BTreeMap::new())
            .unwrap();
        // A whole game, played to its end by the rules (the middle legal turn each time).
        let mut game = RulesGame::new(nine.clone());
        while game.outcome().is_none() {
            let legal = game.legal_turns();
            game.play(legal[legal.len() / 2]).unwrap();
        }
        let turns: Vec<String> = game.turn_strings().iter().map(|t| t.to_string()).collect();
        let id = "Yl8AoFa933AQfZ2xk3vB7w";
        let seats = Sides::from_fn(|_| SeatView {
            taken: true,
            connected: true,
        });
        let merels = StateView::new(
            id,
            turns.len() as u64 + 2,
            &game,
            Status::Finished,
            seats,
            2,
        )
        .to_json();
        let (tx, _rx) = mpsc::unbounded_channel();
        let mut bare_game = Game::new(turns.len());
        bare_game.version = turns.len() as u64 + 2;
        bare_game.turns = turns.clone();
        bare_game.conns = vec![tx.clone(), tx.clone(), tx];
        let bare = state(id, &bare_game);
        assert!(bare.as_str().contains(r#""status":"finished""#), "{bare}");
        assert!(bare.as_str().contains(r#""legal":[]"#), "{bare}");
        assert_alike(bare.as_str(), &merels, 0.1);

        // One turn short of its length, the game is still on.
        bare_game.turns.pop();
        assert!(
            state(id, &bare_game)
                .as_str()
                .contains(r#""status":"playing""#)
        );

        let merels_hello = ServerMessage::Hello {
            protocol: crate::protocol::PROTOCOL_VERSION,
            game: id.into(),
            seat: Some(crate::rules::Color::White),
            handoff_url: None,
            board: Geometry::shared(nine.board()),
        }
        .to_json();
        let bare_hello = serde_json::to_string(&Hello {
            r#type: "hello",
            protocol: 1,
            game: id,
            seat: Some("white"),
            handoff_url: None,
            board: &Geometry::shared(nine.board()),
        })
        .unwrap();
        assert_alike(&bare_hello, &merels_hello, 0.01);
    }
}
