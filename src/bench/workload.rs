//! The load generator's side of `merels bench`: the players and spectators of each table over
//! real WebSockets, the minimal HTTP that creates and joins their games, and what they share
//! (turns counted, send times, latencies).

use super::Rng;
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// A minimal HTTP/1.1 request: enough to create and join games.
pub(super) async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
    bearer: Option<&str>,
) -> Result<(u16, Value), String> {
    let mut stream = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    let body = body.unwrap_or("");
    let auth = bearer.map_or(String::new(), |b| format!("Authorization: Bearer {b}\r\n"));
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{auth}\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut response = Vec::new();
    stream
        .read_to_end(&mut response)
        .await
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&response);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let json = text
        .split_once("\r\n\r\n")
        .and_then(|(_, b)| serde_json::from_str(b).ok())
        .unwrap_or(Value::Null);
    Ok((status, json))
}

/// A game socket of the load generator's.
pub(super) type Socket = WebSocketStream<TcpStream>;

/// A new game of `variant` with both seats taken over HTTP: its id and the seats' secrets,
/// White's and Black's.
pub(super) async fn seated_game(
    addr: SocketAddr,
    variant: &str,
) -> Result<(String, [String; 2]), String> {
    let body = serde_json::json!({"variant": variant, "color": "white"}).to_string();
    let (_, white) = http(addr, "POST", "/api/games", Some(&body), None).await?;
    let id = white["id"].as_str().ok_or("no game was made")?.to_string();
    let (_, black) = http(addr, "POST", &format!("/api/games/{id}/join"), None, None).await?;
    let secret = |v: &Value| v["secret"].as_str().map(str::to_string).ok_or("no seat");
    Ok((id, [secret(&white)?, secret(&black)?]))
}

/// Opens a game socket from one of several loopback source addresses, so that tens of thousands
/// of connections do not run out of ephemeral ports.
pub(super) async fn connect(
    addr: SocketAddr,
    n: usize,
    id: &str,
    secret: Option<&str>,
) -> Result<Socket, String> {
    let source = Ipv4Addr::new(127, 0, 0, 1 + (n % 16) as u8);
    let socket = TcpSocket::new_v4().map_err(|e| e.to_string())?;
    socket
        .bind(SocketAddr::from((source, 0)))
        .map_err(|e| e.to_string())?;
    let stream = socket.connect(addr).await.map_err(|e| e.to_string())?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let mut request = format!("ws://{addr}/api/games/{id}/ws")
        .into_client_request()
        .map_err(|e| e.to_string())?;
    if let Some(s) = secret {
        request.headers_mut().insert(
            "authorization",
            format!("Bearer {s}").parse().map_err(|_| "bad secret")?,
        );
    }
    let (ws, _) = tokio_tungstenite::client_async(request, stream)
        .await
        .map_err(|e| e.to_string())?;
    Ok(ws)
}

/// What every connection of the workload shares.
#[derive(Default)]
pub(super) struct Shared {
    /// Turns seen while measuring.
    pub turns: AtomicU64,
    /// Games that have ended.
    pub games_ended: AtomicU64,
    /// Error messages, failed connections and setups.
    pub errors: AtomicU64,
    /// Whether turns and latencies count now.
    pub measuring: AtomicBool,
    /// Every connection ends at its next message.
    pub stop: AtomicBool,
    /// Connections open before play began.
    pub connected: AtomicUsize,
    /// Send-to-spectator latencies, microseconds.
    pub latencies: Mutex<Vec<u32>>,
    /// With several servers: every connection of a game goes to the one that made it (as a
    /// balancer hashing on the game id sends them), rather than to each in turn.
    pub by_game: bool,
}

/// When each turn of one game was sent, by the version its state will carry.
type SendTimes = Arc<Mutex<HashMap<u64, Instant>>>;

/// Who sits across from a table's first player.
#[derive(Debug, Clone, Copy)]
pub(super) enum Opponent {
    /// A second player of the load generator's, with this many spectators watching.
    Friend { spectators: usize },
    /// The computer at this level, unwatched.
    Computer { level: u8 },
}

/// One table: a game with its players and spectators, started again whenever it ends. With
/// several servers (`addrs`), each connection goes to one of them in turn, as behind a
/// round-robin balancer; the game's owner serves it wherever it lands.
pub(super) async fn table(
    addrs: Arc<[SocketAddr]>,
    slot: usize,
    variant: String,
    opponent: Opponent,
    shared: Arc<Shared>,
    go: tokio::sync::watch::Receiver<bool>,
) {
    // Each game at this table is a new random game: one replayed would make every table's
    // games equally long, and the games' lengths a table's mean rather than random play's.
    let mut nth = 0u64;
    while !shared.stop.load(Ordering::Relaxed) {
        match game(&addrs, slot, &variant, opponent, &shared, go.clone(), nth).await {
            Ok(()) => {}
            Err(_) => {
                shared.errors.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        nth += 1;
    }
}

async fn game(
    addrs: &[SocketAddr],
    slot: usize,
    variant: &str,
    opponent: Opponent,
    shared: &Arc<Shared>,
    mut go: tokio::sync::watch::Receiver<bool>,
    nth: u64,
) -> Result<(), String> {
    let (body, spectators) = match opponent {
        Opponent::Friend { spectators } => (
            format!("{{\"variant\":\"{variant}\",\"color\":\"white\"}}"),
            spectators,
        ),
        Opponent::Computer { level } => (
            format!("{{\"variant\":\"{variant}\",\"color\":\"white\",\"computer\":{level}}}"),
            0,
        ),
    };
    // Games against the computer start once play has: only the others are weighed idle first.
    let first = nth == 0 && matches!(opponent, Opponent::Friend { .. });
    let n = slot * (2 + spectators);
    let spread = if shared.by_game { 0 } else { 1 };
    let addr = |i: usize| addrs[(n + spread * i + nth as usize) % addrs.len()];
    let (status, created) = http(addr(0), "POST", "/api/games", Some(&body), None).await?;
    if status != 201 && status != 200 {
        return Err(format!("create: {status}"));
    }
    let id = created["id"].as_str().ok_or("no id")?.to_string();
    let white = created["secret"].as_str().ok_or("no secret")?.to_string();
    let black = match opponent {
        Opponent::Friend { .. } => {
            let path = format!("/api/games/{id}/join");
            let (status, joined) = http(addr(1), "POST", &path, None, None).await?;
            if status != 200 {
                return Err(format!("join: {status}"));
            }
            Some(joined["secret"].as_str().ok_or("no secret")?.to_string())
        }
        Opponent::Computer { .. } => None,
    };
    let sent: SendTimes = Arc::default();
    let mut tasks = Vec::new();
    // The audience takes its seats before the players theirs: every spectator watches the whole
    // game, and none arrives after its end (which would measure greeting, not play).
    for i in 0..spectators {
        let ws = connect(addr(2 + i), n + 2 + i, &id, None).await?;
        tasks.push(tokio::spawn(spectator(ws, shared.clone(), sent.clone())));
    }
    for (i, secret) in [Some(white), black].into_iter().flatten().enumerate() {
        let ws = connect(addr(i), n + i, &id, Some(&secret)).await?;
        tasks.push(tokio::spawn(player(
            ws,
            shared.clone(),
            sent.clone(),
            ((slot as u64) << 32 | nth) * 2 + i as u64,
        )));
    }
    if first {
        shared
            .connected
            .fetch_add(2 + spectators, Ordering::Relaxed);
        let _ = go.wait_for(|&g| g).await;
    }
    // The game is over when the players' tasks end.
    let mut players: Vec<_> = tasks.drain(spectators..).collect();
    for p in players.iter_mut() {
        let _ = p.await;
    }
    for t in tasks {
        t.abort();
    }
    Ok(())
}

/// The fields of a server message the load generator reads; the rest is skipped unparsed, so
/// that the generator's own CPU is not what is measured.
#[derive(serde::Deserialize)]
struct Msg<'a> {
    #[serde(rename = "type", borrow)]
    kind: &'a str,
    #[serde(default, borrow)]
    seat: Option<&'a str>,
    #[serde(default)]
    version: u64,
    #[serde(default, borrow)]
    to_move: Option<&'a str>,
    #[serde(default, borrow)]
    status: Option<&'a str>,
    #[serde(default, borrow)]
    legal: Vec<Legal<'a>>,
    #[serde(default)]
    plies: usize,
}

/// A legal turn: the load generator sends its notation.
#[derive(serde::Deserialize)]
struct Legal<'a> {
    #[serde(borrow)]
    turn: &'a str,
}

/// Plays random legal turns whenever it is this player's turn; ends when the game does.
async fn player(mut ws: Socket, shared: Arc<Shared>, sent: SendTimes, seed: u64) {
    let mut rng = Rng::new(seed);
    let mut seat = String::new();
    let mut last_turns = usize::MAX;
    // States also go out when someone connects; move once per version.
    let mut acted = 0u64;
    while let Some(Ok(msg)) = ws.next().await {
        if shared.stop.load(Ordering::Relaxed) {
            return;
        }
        let Message::Text(text) = msg else { continue };
        let Ok(m) = serde_json::from_str::<Msg>(text.as_str()) else {
            continue;
        };
        match m.kind {
            "hello" => seat = m.seat.unwrap_or("").to_string(),
            "error" => {
                shared.errors.fetch_add(1, Ordering::Relaxed);
            }
            "state" | "update" => {
                if m.status == Some("finished") {
                    if seat == "white" {
                        shared.games_ended.fetch_add(1, Ordering::Relaxed);
                    }
                    return;
                }
                let turns = m.plies;
                if seat == "white" {
                    if turns != last_turns
                        && last_turns != usize::MAX
                        && shared.measuring.load(Ordering::Relaxed)
                    {
                        shared.turns.fetch_add(1, Ordering::Relaxed);
                    }
                    last_turns = turns;
                }
                if m.to_move != Some(seat.as_str())
                    || m.status != Some("playing")
                    || m.legal.is_empty()
                    || (m.version <= acted && acted != 0)
                {
                    continue;
                }
                acted = m.version;
                let turn = m.legal[rng.below(m.legal.len())].turn;
                sent.lock().unwrap().insert(m.version + 1, Instant::now());
                let frame = format!("{{\"type\":\"move\",\"move\":\"{turn}\"}}");
                if ws.send(Message::text(frame)).await.is_err() {
                    return;
                }
            }
            _ => {}
        }
    }
}

/// Records, for every new turn, how long after its send the state reached this spectator.
async fn spectator(mut ws: Socket, shared: Arc<Shared>, sent: SendTimes) {
    #[derive(serde::Deserialize)]
    struct Seen<'a> {
        #[serde(rename = "type", borrow)]
        kind: &'a str,
        #[serde(default)]
        version: u64,
    }
    while let Some(Ok(msg)) = ws.next().await {
        let Message::Text(text) = msg else { continue };
        let Ok(m) = serde_json::from_str::<Seen>(text.as_str()) else {
            continue;
        };
        if m.kind != "state" && m.kind != "update" {
            continue;
        }
        let at = sent.lock().unwrap().get(&m.version).copied();
        if let Some(at) = at
            && shared.measuring.load(Ordering::Relaxed)
        {
            let micros = at.elapsed().as_micros().min(u128::from(u32::MAX)) as u32;
            shared.latencies.lock().unwrap().push(micros);
        }
    }
}
