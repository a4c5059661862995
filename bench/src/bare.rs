//! The physical limits for the benchmark: a bare WebSocket broadcast server that speaks just
//! enough of the protocol for the same client (create, join, hello, state, chat history, update,
//! move) and sends the same messages, built from the same types and encoded the same way, but
//! checks no rules and stores nothing; and, with a log file, the durable bare server: the same,
//! plus merels's promise that a turn is on disk before anyone hears of it. Each turn is appended
//! to the log by one writer thread that takes every turn waiting, writes them, `fsync`s once and
//! only then lets them be broadcast: merels's group commit (`store/writer.rs`) with the database
//! taken out.

use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use axum::{Json, Router};
use compact_str::CompactString;
use futures_util::{SinkExt, StreamExt};
use merels::catalog::Catalog;
use merels::clock::TimeControl;
use merels::protocol::{
    GameState, Hearing, Men, PROTOCOL_VERSION, SeatView, ServerMessage, Sides, Snapshot, Status,
    TurnView,
};
use merels::rules::{Color, Termination};
use serde::Deserialize;
use serde_json::value::RawValue;
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

struct Game {
    version: u64,
    turns: Vec<CompactString>,
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

    fn over(&self) -> bool {
        self.turns.len() >= self.length
    }

    /// merels's snapshot, field for field, with every point a legal placement while the game
    /// is on: as large as merels's during placement.
    fn snapshot(&self) -> Snapshot {
        let over = self.over();
        let legal = POINTS.map(|p| TurnView {
            turn: p.into(),
            from: None,
            to: p.into(),
            remove: None,
        });
        Snapshot {
            version: self.version,
            plies: self.turns.len(),
            position: "- - 9/9 w".into(),
            men: Men::default(),
            to_move: if self.turns.len().is_multiple_of(2) {
                Color::White
            } else {
                Color::Black
            },
            legal: if over { Vec::new() } else { legal.to_vec() },
            status: if over {
                Status::Finished
            } else {
                Status::Playing
            },
            result: over.then(|| "1-0".into()),
            termination: over.then_some(Termination::FewerThanThree),
            winner: over.then_some(Color::White),
            summary: over.then(|| "White wins (fewer than three men)".into()),
            hand: Sides::from_fn(|_| 9),
            on_board: Sides::default(),
            removed: Sides::default(),
            flying: Sides::default(),
            last_turn: self.turns.last().map(|t| TurnView {
                turn: t.clone(),
                from: None,
                to: t.clone(),
                remove: None,
            }),
            fresh_mills: Vec::new(),
            seats: Sides::from_fn(|_| SeatView {
                taken: true,
                connected: true,
                name: None,
                computer: None,
            }),
            spectators: self.conns.len() as u32,
            draw_offer: None,
            takeback_offer: None,
            rematch_offer: None,
            rematch: None,
            time_control: TimeControl::Untimed,
            clock: None,
            claim: None,
            chat: merels::protocol::ChatCounts::default(),
        }
    }

    /// merels's whole state: it carries a board for each ply, here with as many men as a game
    /// of placements would have (nine a side at most), so that it weighs what merels's does.
    fn state(&self, id: &str) -> Utf8Bytes {
        let boards = (0..=self.turns.len())
            .map(|ply| {
                let men = |n: usize| POINTS[..n.min(9)].iter().map(|&p| p.into()).collect();
                Sides::from_fn(|c| {
                    men(if c == Color::White {
                        ply.div_ceil(2)
                    } else {
                        ply / 2
                    })
                })
            })
            .collect();
        let state = GameState {
            id: id.into(),
            variant: "nine-mens-morris".into(),
            options: BTreeMap::from([("flying".to_string(), "on".to_string())]),
            turns: self.turns.clone(),
            now: self.snapshot(),
            boards,
        };
        Utf8Bytes::from(ServerMessage::State(Box::new(state)).to_json())
    }

    /// What merels sends after a turn: an update, or the whole state once the game is over.
    fn after_turn(&self, id: &str) -> Utf8Bytes {
        if self.over() {
            return self.state(id);
        }
        Utf8Bytes::from(ServerMessage::Update(Box::new(self.snapshot())).to_json())
    }
}

struct Bare {
    games: Mutex<HashMap<String, Game>>,
    /// The durable bare server's log; none for the bare server.
    log: Option<Log>,
    next: AtomicU64,
    /// The lengths of games, in plies, taken in turn by the games created.
    lengths: Vec<usize>,
    /// The board's geometry as JSON, as merels sends it in every `hello`.
    board: Arc<RawValue>,
}

impl Bare {
    /// A new game, with the next length.
    fn game(&self) -> (String, Game) {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let length = self.lengths[n as usize % self.lengths.len()];
        (format!("{n:022}"), Game::new(length))
    }
}

/// merels's `hello`.
fn hello(id: &str, seat: Option<Color>, board: &Arc<RawValue>) -> Utf8Bytes {
    let message = ServerMessage::Hello {
        protocol: PROTOCOL_VERSION,
        game: id.into(),
        seat,
        board: board.clone(),
    };
    Utf8Bytes::from(message.to_json())
}

/// merels's `chat_history` on connecting: what the connection hears, and no lines (the load
/// generator says nothing).
fn chat_history(seat: Option<Color>) -> Utf8Bytes {
    let message = ServerMessage::ChatHistory {
        hearing: Hearing::default_for(seat),
        lines: Vec::new(),
    };
    Utf8Bytes::from(message.to_json())
}

/// A client's message; the bare server only looks for a turn.
#[derive(Deserialize)]
struct Incoming<'a> {
    #[serde(borrow, rename = "move")]
    turn: Option<&'a str>,
}

/// Most turns written between two `fsync`s: merels's most writes in one transaction.
const MAX_BATCH: usize = 512;

/// A turn waiting to be written, and whom to tell once it is on disk.
struct Pending {
    line: Vec<u8>,
    done: tokio::sync::oneshot::Sender<()>,
}

/// The durable bare server's log: the sending end of its writer thread.
struct Log(std::sync::mpsc::Sender<Pending>);

impl Log {
    /// Opens (creates or appends to) the log at `path` and starts its writer thread, which ends
    /// when the log is dropped.
    fn open(path: &std::path::Path) -> Result<Log, String> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let (tx, rx) = std::sync::mpsc::channel::<Pending>();
        std::thread::Builder::new()
            .name("log".into())
            .spawn(move || write_log(file, rx))
            .map_err(|e| e.to_string())?;
        Ok(Log(tx))
    }

    /// Appends one turn of game `id`; returns once it is on disk.
    async fn append(&self, id: &str, turn: &str) -> Result<(), String> {
        let (done, written) = tokio::sync::oneshot::channel();
        let line = format!("{id} {turn}\n").into_bytes();
        self.0
            .send(Pending { line, done })
            .map_err(|_| "the log's writer has stopped".to_string())?;
        written
            .await
            .map_err(|_| "the log could not be written".to_string())
    }
}

/// The writer thread: every turn waiting (up to [`MAX_BATCH`]), written and `fsync`ed at once,
/// then acknowledged. A failed write or sync acknowledges nothing and stops the writer.
fn write_log(mut file: std::fs::File, rx: std::sync::mpsc::Receiver<Pending>) {
    use std::io::Write;
    let mut batch = Vec::with_capacity(MAX_BATCH);
    let mut bytes = Vec::new();
    while let Ok(first) = rx.recv() {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(p) => batch.push(p),
                Err(_) => break,
            }
        }
        bytes.clear();
        for p in &batch {
            bytes.extend_from_slice(&p.line);
        }
        if file
            .write_all(&bytes)
            .and_then(|()| file.sync_data())
            .is_err()
        {
            return;
        }
        for p in batch.drain(..) {
            let _ = p.done.send(());
        }
    }
}

/// Serves the bare server on `bind`, on one thread and with Nagle off, until SIGINT or SIGTERM;
/// durable, appending each turn to `log`, if given.
pub fn serve(
    bind: std::net::SocketAddr,
    lengths: Vec<usize>,
    log: Option<std::path::PathBuf>,
) -> Result<(), String> {
    let log = log.as_deref().map(Log::open).transpose()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime
        .block_on(async move {
            use axum::serve::ListenerExt;
            let listener = tokio::net::TcpListener::bind(bind).await?.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            });
            axum::serve(listener, router(lengths, log))
                .with_graceful_shutdown(merels::server::signal())
                .await
        })
        .map_err(|e| e.to_string())
}

/// The bare server's routes (durable with a `log`). Its games end after the given numbers of
/// plies, taken in turn; the load generator passes the lengths of random games of the variant it
/// plays (at least one).
fn router(lengths: Vec<usize>, log: Option<Log>) -> Router {
    let bare = Arc::new(Bare {
        games: Mutex::default(),
        log,
        next: AtomicU64::new(0),
        lengths: if lengths.is_empty() {
            vec![usize::MAX]
        } else {
            lengths
        },
        board: {
            let catalog = Catalog::builtin();
            let nine = catalog
                .configure("nine-mens-morris", &BTreeMap::new())
                .expect("Nine Men's Morris is built in");
            catalog.board_json(nine.board())
        },
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
    let seat = match headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    {
        Some("white") => Some(Color::White),
        Some("black") => Some(Color::Black),
        _ => None,
    };
    ws.read_buffer_size(4096)
        .write_buffer_size(4096)
        .on_upgrade(move |socket| connection(socket, bare, id, seat))
}

async fn connection(socket: WebSocket, bare: Arc<Bare>, id: String, seat: Option<Color>) {
    let (tx, mut rx) = mpsc::unbounded_channel::<Utf8Bytes>();
    let _ = tx.send(hello(&id, seat, &bare.board));
    {
        let mut games = bare.games.lock().unwrap();
        // A game that has ended is gone: nothing to watch.
        let Some(game) = games.get_mut(&id) else {
            return;
        };
        let _ = tx.send(game.state(&id));
        let _ = tx.send(chat_history(seat));
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
        // Durable: on disk before anyone hears of it, as in merels. A turn that cannot be
        // written is not played.
        if let Some(log) = &bare.log
            && log.append(&id, turn).await.is_err()
        {
            continue;
        }
        let mut games = bare.games.lock().unwrap();
        let Some(game) = games.get_mut(&id) else {
            continue;
        };
        game.version += 1;
        game.turns.push(turn.into());
        let frame = game.after_turn(&id);
        game.conns.retain(|c| c.send(frame.clone()).is_ok());
        // Like merels's, a finished game is gone for good: its players leave, and the load
        // generator starts a new one in its place.
        if game.over() {
            games.remove(&id);
        }
    }
    send.abort();
}

#[cfg(test)]
mod tests {
    use super::*;
    use merels::rules::Game as RulesGame;
    use std::collections::BTreeSet;

    fn nine(turns: &[&str]) -> RulesGame {
        let nine = Catalog::builtin()
            .configure("nine-mens-morris", &BTreeMap::new())
            .unwrap();
        RulesGame::replay(nine, None, turns).unwrap()
    }

    fn seats() -> Sides<SeatView> {
        Sides::from_fn(|_| SeatView {
            taken: true,
            connected: true,
            name: None,
            computer: None,
        })
    }

    fn bare_game(version: u64, turns: &[String], length: usize) -> Game {
        let (tx, _rx) = mpsc::unbounded_channel();
        Game {
            version,
            turns: turns.iter().map(|t| t.as_str().into()).collect(),
            conns: vec![tx.clone(), tx.clone(), tx],
            length,
        }
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

    /// The bare server stands for merels only while its messages are merels's in all but
    /// content: the same fields, and about as many bytes, during placement.
    #[test]
    fn bare_updates_and_states_have_merels_fields_and_size() {
        let game = nine(&["c4", "f4", "f2", "b4", "d6", "f6"]);
        let now = Snapshot::new(8, &game, Status::Playing, seats(), 2);
        let merels_update = ServerMessage::Update(Box::new(now.clone())).to_json();
        let merels_state = ServerMessage::State(Box::new(GameState::new(
            "Yl8AoFa933AQfZ2xk3vB7w",
            &game,
            now,
        )))
        .to_json();
        let bare = bare_game(8, game.turn_strings(), 100);
        assert_alike(bare.after_turn("x").as_str(), &merels_update, 0.1);
        assert_alike(
            bare.state("Yl8AoFa933AQfZ2xk3vB7w").as_str(),
            &merels_state,
            0.1,
        );
    }

    /// Games end on the bare server too, with a state like merels's finished one, and every new
    /// connection gets the `hello` merels sends.
    #[test]
    fn bare_games_end_like_merels_games() {
        // A whole game, played to its end by the rules (the middle legal turn each time).
        let mut game = nine(&[]);
        while game.outcome().is_none() {
            let legal = game.legal_turns();
            game.play(legal[legal.len() / 2]).unwrap();
        }
        let id = "Yl8AoFa933AQfZ2xk3vB7w";
        let plies = game.turns().len();
        let now = Snapshot::new(plies as u64 + 2, &game, Status::Finished, seats(), 2);
        let merels = ServerMessage::State(Box::new(GameState::new(id, &game, now))).to_json();
        let mut bare = bare_game(plies as u64 + 2, game.turn_strings(), plies);
        let ended = bare.after_turn(id);
        assert!(ended.as_str().contains(r#""status":"finished""#), "{ended}");
        assert!(ended.as_str().contains(r#""legal":[]"#), "{ended}");
        // The bare boards are empty, merels's hold men: alike in fields, not in bytes.
        assert_eq!(keys(ended.as_str()), keys(&merels));

        // One turn short of its length, the game is still on.
        bare.turns.pop();
        assert!(bare.after_turn(id).as_str().contains(r#""type":"update""#));

        let catalog = Catalog::builtin();
        let board = catalog.board_json(game.variant().board());
        let merels_hello = ServerMessage::Hello {
            protocol: PROTOCOL_VERSION,
            game: id.into(),
            seat: Some(Color::White),
            board: board.clone(),
        }
        .to_json();
        assert_eq!(hello(id, Some(Color::White), &board).as_str(), merels_hello);
    }

    /// The types of the first three text messages a connection to `addr` gets, seated with
    /// `secret` or watching.
    async fn greeting(addr: std::net::SocketAddr, id: &str, secret: Option<&str>) -> Vec<String> {
        let mut ws = crate::workload::connect(addr, 0, id, secret).await.unwrap();
        let mut kinds = Vec::new();
        while kinds.len() < 3 {
            let message = tokio::time::timeout(std::time::Duration::from_secs(10), ws.next())
                .await
                .expect("the greeting came")
                .expect("the socket stayed open")
                .unwrap();
            if let Ok(text) = message.to_text() {
                let v: Value = serde_json::from_str(text).unwrap();
                kinds.push(v["type"].as_str().unwrap().to_string());
            }
        }
        kinds
    }

    /// The durable bare server tells of a turn only once it is in the log: every update a
    /// spectator hears is of a turn already on disk.
    #[tokio::test]
    async fn the_durable_bare_server_logs_a_turn_before_it_is_heard() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("turns.log");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let log = Log::open(&path).unwrap();
        tokio::spawn(async move { axum::serve(listener, router(vec![100], Some(log))).await });
        crate::workload::until_ready(addr).await.unwrap();
        let (id, [white, black]) = crate::workload::seated_game(addr, "nine-mens-morris")
            .await
            .unwrap();
        let mut watcher = crate::workload::connect(addr, 0, &id, None).await.unwrap();
        for (i, (secret, turn)) in [(&white, "a1"), (&black, "d7"), (&white, "g1")]
            .into_iter()
            .enumerate()
        {
            let mut player = crate::workload::connect(addr, 0, &id, Some(secret))
                .await
                .unwrap();
            player
                .send(crate::workload::move_frame(turn))
                .await
                .unwrap();
            // The spectator's next update is this turn's; by then the log holds it.
            loop {
                let message =
                    tokio::time::timeout(std::time::Duration::from_secs(10), watcher.next())
                        .await
                        .expect("the update came")
                        .expect("the socket stayed open")
                        .unwrap();
                let Ok(text) = message.to_text() else {
                    continue;
                };
                let v: Value = serde_json::from_str(text).unwrap();
                if v["type"] == "update" && v["plies"] == i + 1 {
                    break;
                }
            }
            let logged = std::fs::read_to_string(&path).unwrap();
            assert_eq!(
                logged.lines().count(),
                i + 1,
                "after turn {turn}, the log holds {logged:?}"
            );
            assert!(logged.ends_with(&format!("{id} {turn}\n")), "{logged:?}");
        }
    }

    /// Both servers greet a player and a spectator with the same messages, in the same order:
    /// what each costs a connection is measured alike.
    #[tokio::test]
    async fn both_servers_greet_a_connection_with_the_same_messages() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite:{}", dir.path().join("merels.db").display());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let merels = listener.local_addr().unwrap();
        let config = merels::config::Config::new(merels, &url);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let served = tokio::spawn(merels::server::run(listener, config, async {
            let _ = stopped.await;
        }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let bare = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, router(vec![100], None)).await });

        let mut greetings = Vec::new();
        for addr in [merels, bare] {
            crate::workload::until_ready(addr).await.unwrap();
            let (id, [white, _]) = crate::workload::seated_game(addr, "nine-mens-morris")
                .await
                .unwrap();
            greetings.push([
                greeting(addr, &id, Some(&white)).await,
                greeting(addr, &id, None).await,
            ]);
        }
        let expected = ["hello", "state", "chat_history"]
            .map(String::from)
            .to_vec();
        assert_eq!(greetings[0], [expected.clone(), expected], "merels");
        assert_eq!(greetings[1], greetings[0], "bare against merels");
        let _ = stop.send(());
        served.await.unwrap().unwrap();
    }
}
