//! The load generator's side of the benchmark: the players and spectators of each table over
//! real WebSockets, the HTTP requests that create and join their games, and what they share
//! (turns counted, send times, latencies).

use super::Rng;
use futures_util::{SinkExt, StreamExt};
use merels::protocol::{ClientMessage, Status};
use merels::rules::Color;
use reqwest::Method;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// One HTTP request to the server at `addr`, with an optional JSON body and seat secret: its
/// status and JSON answer (`null` when the answer is not JSON).
pub async fn http(
    addr: SocketAddr,
    method: Method,
    path: &str,
    body: Option<&Value>,
    bearer: Option<&str>,
) -> Result<(u16, Value), String> {
    // One client for the process. It keeps no connection between requests: the servers it
    // talks to are killed and restarted under it, and a pooled connection to a dead one would
    // fail a request that a fresh one serves.
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    let client = CLIENT.get_or_init(|| {
        reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            // A server that is paused or killed must not hold a request for ever.
            .timeout(Duration::from_secs(10))
            .build()
            .unwrap_or_default()
    });
    let mut request = client.request(method, format!("http://{addr}{path}"));
    if let Some(body) = body {
        request = request.json(body);
    }
    if let Some(secret) = bearer {
        request = request.bearer_auth(secret);
    }
    let response = request.send().await.map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    Ok((status, response.json().await.unwrap_or(Value::Null)))
}

/// Waits until the server at `addr` says it is ready (`/readyz`), for up to ten seconds.
pub async fn until_ready(addr: SocketAddr) -> Result<(), String> {
    for _ in 0..400 {
        if let Ok((200, _)) = http(addr, Method::GET, "/readyz", None, None).await {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    Err("the server never became ready".into())
}

/// A frame that plays `turn`.
pub fn move_frame(turn: &str) -> Message {
    let message = ClientMessage::Move {
        turn: turn.to_string(),
    };
    Message::text(serde_json::to_string(&message).unwrap_or_default())
}

/// A game socket of the load generator's.
pub type Socket = WebSocketStream<TcpStream>;

/// A new game of `variant` with both seats taken over HTTP: its id and the seats' secrets,
/// White's and Black's.
pub async fn seated_game(addr: SocketAddr, variant: &str) -> Result<(String, [String; 2]), String> {
    let body = json!({"variant": variant, "color": "white"});
    let (_, white) = http(addr, Method::POST, "/api/games", Some(&body), None).await?;
    let id = white["id"].as_str().ok_or("no game was made")?.to_string();
    let (_, black) = http(
        addr,
        Method::POST,
        &format!("/api/games/{id}/join"),
        None,
        None,
    )
    .await?;
    let secret = |v: &Value| v["secret"].as_str().map(str::to_string).ok_or("no seat");
    Ok((id, [secret(&white)?, secret(&black)?]))
}

/// Opens a game socket from one of several loopback source addresses, so that tens of thousands
/// of connections do not run out of ephemeral ports.
pub async fn connect(
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

/// A game socket opened where its game is served.
pub struct Opened {
    /// The socket.
    pub ws: Socket,
    /// The first message it got (a `hello`, unless something went wrong).
    pub first: Message,
    /// The server it is open to.
    pub at: SocketAddr,
}

/// Opens a game socket as [`connect`] does and follows a `moved` to the game's own server, as a
/// browser does (at most three in a row).
pub async fn connect_owner(
    mut addr: SocketAddr,
    n: usize,
    id: &str,
    secret: Option<&str>,
) -> Result<Opened, String> {
    #[derive(serde::Deserialize)]
    struct First<'a> {
        #[serde(rename = "type", borrow)]
        kind: &'a str,
        #[serde(default, borrow)]
        url: Option<&'a str>,
    }
    for _ in 0..=3 {
        let mut ws = connect(addr, n, id, secret).await?;
        let first = loop {
            match ws.next().await {
                Some(Ok(m @ Message::Text(_))) => break m,
                Some(Ok(_)) => continue,
                _ => return Err("closed before its first message".into()),
            }
        };
        let to = match serde_json::from_str::<First>(first.to_text().unwrap_or_default()) {
            Ok(First {
                kind: "moved",
                url: Some(url),
            }) => socket_addr(url).ok_or_else(|| format!("moved to {url}"))?,
            _ => {
                return Ok(Opened {
                    ws,
                    first,
                    at: addr,
                });
            }
        };
        // The close (4307) that follows, answered, so that the server lets go at once.
        while let Some(Ok(_)) = ws.next().await {}
        addr = to;
    }
    Err("moved more than three times in a row".into())
}

/// The address of a socket URL the load generator can follow (`ws://127.0.0.1:4000/...`).
fn socket_addr(url: &str) -> Option<SocketAddr> {
    let rest = url.strip_prefix("ws://")?;
    rest.split('/').next()?.parse().ok()
}

/// What every connection of the workload shares.
#[derive(Default)]
pub struct Shared {
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
    /// Holds all players together to a rate of turns, if set.
    pub pace: Option<Pace>,
    /// The games begun last, newest at the end (for the picture flood).
    pub live: Mutex<std::collections::VecDeque<String>>,
}

/// How many of the games begun last [`Shared::live`] keeps.
const LIVE_KEPT: usize = 1024;

impl Shared {
    /// One of the games begun last, picked by `n`: most are still being played.
    pub fn some_live_game(&self, n: usize) -> Option<String> {
        let live = self.live.lock().unwrap();
        // The newer half: the older ones have more likely ended.
        let newer = live.len().div_ceil(2);
        (newer > 0).then(|| live[live.len() - 1 - n % newer].clone())
    }
}

/// A rate of turns shared by every player: each turn takes the next free slot, one every
/// `every`, and waits for it. A server slower than the rate finds every slot already due.
pub struct Pace {
    every: Duration,
    next: Mutex<Instant>,
}

impl Pace {
    /// `per_second` turns a second, in all.
    pub fn new(per_second: u32) -> Pace {
        Pace {
            every: Duration::from_secs(1) / per_second.max(1),
            next: Mutex::new(Instant::now()),
        }
    }

    /// Waits for this turn's slot.
    async fn wait(&self) {
        let slot = {
            let mut next = self.next.lock().unwrap();
            let slot = (*next).max(Instant::now());
            *next = slot + self.every;
            slot
        };
        tokio::time::sleep_until(slot.into()).await;
    }
}

/// When each turn of one game was sent, by the version its state will carry.
type SendTimes = Arc<Mutex<HashMap<u64, Instant>>>;

/// Who sits across from a table's first player.
#[derive(Debug, Clone, Copy)]
pub enum Opponent {
    /// A second player of the load generator's, with this many spectators watching.
    Friend { spectators: usize },
    /// The computer at this level, unwatched.
    Computer { level: u8 },
}

/// One table: a game with its players and spectators, started again whenever it ends. With
/// several servers (`addrs`), each connection goes to one of them in turn, as behind a
/// round-robin balancer; the game's owner serves it wherever it lands, or sends it to its own
/// address (which the answers that seat the players name).
pub async fn table(
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
        Opponent::Friend { spectators } => {
            (json!({"variant": variant, "color": "white"}), spectators)
        }
        Opponent::Computer { level } => (
            json!({"variant": variant, "color": "white", "computer": level}),
            0,
        ),
    };
    // Games against the computer start once play has: only the others are weighed idle first.
    let first = nth == 0 && matches!(opponent, Opponent::Friend { .. });
    let n = slot * (2 + spectators);
    let spread = if shared.by_game { 0 } else { 1 };
    let addr = |i: usize| addrs[(n + spread * i + nth as usize) % addrs.len()];
    let (status, created) = http(addr(0), Method::POST, "/api/games", Some(&body), None).await?;
    if status != 201 && status != 200 {
        return Err(format!("create: {status}"));
    }
    let id = created["id"].as_str().ok_or("no id")?.to_string();
    {
        let mut live = shared.live.lock().unwrap();
        live.push_back(id.clone());
        if live.len() > LIVE_KEPT {
            live.pop_front();
        }
    }
    // A seat's secret, and where to open its socket: where the answer says (the game's own
    // server), or else where this seat's requests go.
    let seat = |answer: &Value, i: usize| {
        let secret = answer["secret"].as_str().ok_or("no secret")?.to_string();
        let at = answer["socket"].as_str().and_then(socket_addr);
        Ok::<_, String>((secret, at.unwrap_or(addr(i))))
    };
    let white = seat(&created, 0)?;
    let black = match opponent {
        Opponent::Friend { .. } => {
            let path = format!("/api/games/{id}/join");
            let (status, joined) = http(addr(1), Method::POST, &path, None, None).await?;
            if status != 200 {
                return Err(format!("join: {status}"));
            }
            Some(seat(&joined, 1)?)
        }
        Opponent::Computer { .. } => None,
    };
    let sent: SendTimes = Arc::default();
    let mut tasks = Vec::new();
    // The audience takes its seats before the players theirs: every spectator watches the whole
    // game, and none arrives after its end (which would measure greeting, not play).
    for i in 0..spectators {
        let ws = connect_owner(addr(2 + i), n + 2 + i, &id, None).await?;
        tasks.push(tokio::spawn(spectator(ws, shared.clone(), sent.clone())));
    }
    for (i, (secret, at)) in [Some(white), black].into_iter().flatten().enumerate() {
        let ws = connect_owner(at, n + i, &id, Some(&secret)).await?;
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

/// The fields of a server message the load generator reads, in the protocol's own types; the
/// rest is skipped unparsed, so that the generator's own CPU is not what is measured.
#[derive(serde::Deserialize)]
struct Msg<'a> {
    #[serde(rename = "type", borrow)]
    kind: &'a str,
    #[serde(default)]
    seat: Option<Color>,
    #[serde(default)]
    version: u64,
    #[serde(default)]
    to_move: Option<Color>,
    #[serde(default)]
    status: Option<Status>,
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
async fn player(
    Opened { mut ws, first, .. }: Opened,
    shared: Arc<Shared>,
    sent: SendTimes,
    seed: u64,
) {
    let mut rng = Rng::new(seed);
    let mut seat = None;
    let mut last_turns = usize::MAX;
    // States also go out when someone connects; move once per version.
    let mut acted = 0u64;
    let mut first = Some(first);
    while let Some(msg) = next(&mut ws, &mut first).await {
        if shared.stop.load(Ordering::Relaxed) {
            return;
        }
        let Message::Text(text) = msg else { continue };
        let Ok(m) = serde_json::from_str::<Msg>(text.as_str()) else {
            continue;
        };
        match m.kind {
            "hello" => seat = m.seat,
            "error" => {
                shared.errors.fetch_add(1, Ordering::Relaxed);
            }
            "state" | "update" => {
                let white = seat == Some(Color::White);
                if m.status == Some(Status::Finished) {
                    if white {
                        shared.games_ended.fetch_add(1, Ordering::Relaxed);
                    }
                    return;
                }
                let turns = m.plies;
                if white {
                    if turns != last_turns
                        && last_turns != usize::MAX
                        && shared.measuring.load(Ordering::Relaxed)
                    {
                        shared.turns.fetch_add(1, Ordering::Relaxed);
                    }
                    last_turns = turns;
                }
                if seat.is_none()
                    || m.to_move != seat
                    || m.status != Some(Status::Playing)
                    || m.legal.is_empty()
                    || (m.version <= acted && acted != 0)
                {
                    continue;
                }
                acted = m.version;
                let turn = m.legal[rng.below(m.legal.len())].turn;
                if let Some(pace) = &shared.pace {
                    pace.wait().await;
                }
                sent.lock().unwrap().insert(m.version + 1, Instant::now());
                if ws.send(move_frame(turn)).await.is_err() {
                    return;
                }
            }
            _ => {}
        }
    }
}

/// The message read on connecting, if not yet handled, or else the socket's next; `None` once
/// the socket has closed or failed.
async fn next(ws: &mut Socket, first: &mut Option<Message>) -> Option<Message> {
    match first.take() {
        Some(m) => Some(m),
        None => ws.next().await?.ok(),
    }
}

/// Records, for every new turn, how long after its send the state reached this spectator.
async fn spectator(Opened { mut ws, first, .. }: Opened, shared: Arc<Shared>, sent: SendTimes) {
    #[derive(serde::Deserialize)]
    struct Seen<'a> {
        #[serde(rename = "type", borrow)]
        kind: &'a str,
        #[serde(default)]
        version: u64,
    }
    let mut first = Some(first);
    while let Some(msg) = next(&mut ws, &mut first).await {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// However many players ask at once, turns leave no faster than the rate.
    #[tokio::test]
    async fn a_pace_holds_all_players_to_its_rate() {
        let pace = Arc::new(Pace::new(1000));
        let started = Instant::now();
        let players: Vec<_> = (0..4)
            .map(|_| {
                let pace = pace.clone();
                tokio::spawn(async move {
                    for _ in 0..10 {
                        pace.wait().await;
                    }
                })
            })
            .collect();
        for p in players {
            p.await.unwrap();
        }
        // 40 turns at 1,000 a second: the last one's slot is 39 ms after the first.
        assert!(started.elapsed() >= Duration::from_millis(39));
    }
}
