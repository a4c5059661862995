//! `merels-bench hostile`: one server, with its default limits, under the input an adversary sends, while
//! a canary game keeps playing. Attackers watching a game send frames of every bad kind (random
//! bytes, truncated and deeply nested JSON, huge numbers, unknown types, a spectator acting, a
//! player moving for the other seat, oversized messages), each at a rate the limits let through
//! so that each must be answered; then a flood of idle connections is held open while `/healthz`
//! must still answer. It checks that every frame got its answer, that the attacked game did not
//! change, that the canary played on, and that the server neither panicked nor died.

use super::Rng;
use super::child::Server;
use super::workload::{Socket, connect, http, seated_game};
use futures_util::{SinkExt, StreamExt};
use reqwest::Method;
use serde_json::{Value, json};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

/// `merels-bench hostile` settings.
#[derive(Debug, Clone, clap::Args)]
pub struct HostileArgs {
    /// Bad frames sent in all.
    #[arg(long, default_value_t = 10_000)]
    pub frames: usize,
    /// Attacking connections (each sends its share at 15 frames a second, under the limit).
    #[arg(long, default_value_t = 50)]
    pub attackers: usize,
    /// Idle TCP connections opened at once in the flood.
    #[arg(long, default_value_t = 2_000)]
    pub flood: usize,
    /// Spectators of one game, all from one address, flooding its chat.
    #[arg(long, default_value_t = 48)]
    pub chat_sockets: usize,
    /// The analysis flood at full scale: a whole 15-second game against level 6 (else four of
    /// its replies).
    #[arg(long)]
    pub analysis_flood_full: bool,
    /// Connections one address holds on an instance's internal address in the internal-port
    /// hold (`--internal-hold 1950` is the full scale).
    #[arg(long, default_value_t = 300)]
    pub internal_hold: usize,
    /// A PostgreSQL database (`postgres://...`) for the internal-port hold: the internal address
    /// is opened with PostgreSQL only. Without one, the line says the hold was not run.
    #[arg(long)]
    pub database_url: Option<String>,
}

/// Runs it and prints its line; an error says which promise broke.
pub fn run(args: HostileArgs) -> Result<(), String> {
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(hostile(args))
}

/// The kinds of bad frame, each with the answer it must get.
const KINDS: [&str; 8] = [
    "random bytes",
    "truncated JSON",
    "nested JSON",
    "huge number",
    "unknown type",
    "spectator acting",
    "move for the other seat",
    "oversized",
];

/// A bad frame of kind `kind`, and whether it ends the connection (1009) rather than getting an
/// `error`.
fn frame(kind: usize, rng: &mut Rng) -> (Message, bool) {
    let text = |s: String| Message::text(s);
    match kind {
        0 => {
            let bytes: Vec<u8> = (0..1 + rng.below(200))
                .map(|_| rng.below(256) as u8)
                .collect();
            (Message::binary(bytes), false)
        }
        1 => {
            let whole = r#"{"type":"move","move":"a1-a4xg7"}"#;
            (
                text(whole[..1 + rng.below(whole.len() - 1)].to_string()),
                false,
            )
        }
        2 => {
            let depth = 10 + rng.below(1_900);
            (
                text(format!("{}{}", "[".repeat(depth), "]".repeat(depth))),
                false,
            )
        }
        3 => (
            text(format!(
                r#"{{"type":"move","move":1e{}}}"#,
                300 + rng.below(99_000)
            )),
            false,
        ),
        4 => (
            text(format!(r#"{{"type":"x{}"}}"#, rng.below(1_000_000))),
            false,
        ),
        5 => (text(r#"{"type":"resign"}"#.to_string()), false),
        6 => (text(r#"{"type":"move","move":"d2"}"#.to_string()), false),
        _ => (
            text(format!(
                r#"{{"type":"chat","text":"{}"}}"#,
                "x".repeat(5_000)
            )),
            true,
        ),
    }
}

#[derive(Default)]
struct Tally {
    sent: AtomicU64,
    unanswered: AtomicU64,
    canary_turns: AtomicU64,
    canary_worst_ms: AtomicU64,
}

async fn hostile(args: HostileArgs) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let url = format!("sqlite:{}", dir.path().join("hostile.db").display());
    let addr = SocketAddr::from(([127, 0, 0, 1], super::free_port()?));
    let log = dir.path().join("server.log");
    // The limits as shipped; only the canary's new games may come faster than a person's.
    let env = [("MERELS_GAMES_PER_MINUTE", "100000")];
    let mut server = Server::start(addr, &url, &env, &log).await?;
    let tally = Arc::new(Tally::default());
    let stop = Arc::new(AtomicBool::new(false));

    // The attacked game: seated, White to move, its state noted to compare after.
    let (target, [_, black_secret]) = seated_game(addr, "nine-mens-morris").await?;
    let before = state(addr, &target).await?;
    let canary = tokio::spawn(play_canary(addr, tally.clone(), stop.clone()));

    let per = args.frames.div_ceil(args.attackers.max(1));
    let mut attackers = Vec::new();
    for n in 0..args.attackers {
        // Half watch; the other half hold Black's seat and move when it is White's turn.
        let secret = (n % 2 == 1).then(|| black_secret.clone());
        let (id, tally) = (target.clone(), tally.clone());
        attackers.push(tokio::spawn(attack(addr, n, id, secret, per, tally)));
    }
    for a in attackers {
        a.await.map_err(|e| e.to_string())?;
    }

    let chat = chat_flood(addr, args.chat_sockets).await?;

    // A flood of idle connections, from many addresses of this host; the server must answer.
    let mut held = Vec::new();
    for n in 0..args.flood {
        let source = Ipv4Addr::new(
            127,
            1 + (n / 200 % 200) as u8,
            (n / 40 % 5) as u8,
            2 + (n % 40) as u8,
        );
        let socket = tokio::net::TcpSocket::new_v4().map_err(|e| e.to_string())?;
        if socket.bind(SocketAddr::from((source, 0))).is_ok()
            && let Ok(Ok(tcp)) =
                tokio::time::timeout(Duration::from_secs(1), socket.connect(addr)).await
        {
            held.push(tcp);
        }
    }
    let (health, health_ms) = health(addr, "the flood").await?;
    if health.0 != 200 {
        return Err(format!("/healthz answered {} during the flood", health.0));
    }
    drop(held);

    analysis_flood(addr, args.analysis_flood_full).await?;

    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::Relaxed);
    canary.await.map_err(|e| e.to_string())?;
    let after = state(addr, &target).await?;
    let alive = server.alive();
    let panics = server.log_mentions("panicked");
    server.kill(false);
    drop(dir);

    let changed =
        u64::from(before["version"] != after["version"] || before["turns"] != after["turns"]);
    let (sent, unanswered) = (
        tally.sent.load(Ordering::Relaxed),
        tally.unanswered.load(Ordering::Relaxed),
    );
    let canary_turns = tally.canary_turns.load(Ordering::Relaxed);
    let line = format!(
        "hostile: {sent} bad frames of {} kinds, {unanswered} unanswered, {changed} state changes, \
         canary {canary_turns} turns (slowest {} ms), {} idle connections, /healthz in {health_ms} ms, \
         {chat}, {panics} panics, server {}",
        KINDS.len(),
        tally.canary_worst_ms.load(Ordering::Relaxed),
        args.flood,
        if alive { "alive" } else { "dead" },
    );
    println!("{line}");
    if unanswered > 0 || changed > 0 || panics > 0 || !alive || canary_turns == 0 {
        return Err(format!("a promise broke: {line}"));
    }
    match &args.database_url {
        Some(url) => println!("{}", internal_hold(url, args.internal_hold).await?),
        None => println!("internal hold: not run (it needs --database-url, a PostgreSQL database)"),
    }
    Ok(())
}

async fn state(addr: SocketAddr, id: &str) -> Result<Value, String> {
    Ok(
        http(addr, Method::GET, &format!("/api/games/{id}"), None, None)
            .await?
            .1,
    )
}

/// The next text message, or `None` when the connection closed or went quiet.
async fn next(ws: &mut Socket) -> Option<Value> {
    loop {
        match tokio::time::timeout(Duration::from_secs(5), ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => return serde_json::from_str(t.as_str()).ok(),
            Ok(Some(Ok(Message::Close(_)) | Err(_))) | Ok(None) | Err(_) => return None,
            Ok(Some(Ok(_))) => continue,
        }
    }
}

/// One attacker: `count` bad frames at 15 a second, each waiting for its answer.
async fn attack(
    addr: SocketAddr,
    n: usize,
    id: String,
    secret: Option<String>,
    count: usize,
    tally: Arc<Tally>,
) {
    let mut rng = Rng::new(1 + n as u64);
    let mut ws = None;
    for i in 0..count {
        if ws.is_none() {
            let Ok(mut fresh) = connect(addr, n, &id, secret.as_deref()).await else {
                tally.unanswered.fetch_add(1, Ordering::Relaxed);
                return;
            };
            // hello, state, chat history
            for _ in 0..3 {
                next(&mut fresh).await;
            }
            ws = Some(fresh);
        }
        let socket = ws.as_mut().expect("connected");
        // A seated attacker moves for the other seat; a watcher acts without one.
        let kind = match (i % KINDS.len(), secret.is_some()) {
            (5, true) | (6, false) => 4,
            (k, _) => k,
        };
        let (message, closes) = frame(kind, &mut rng);
        tally.sent.fetch_add(1, Ordering::Relaxed);
        if socket.send(message).await.is_err() {
            tally.unanswered.fetch_add(1, Ordering::Relaxed);
            ws = None;
            continue;
        }
        let answered = loop {
            match next(socket).await {
                None => break closes,
                Some(m) if m["type"] == "error" => break !closes,
                Some(_) => continue, // a state or update of the game
            }
        };
        if !answered {
            tally.unanswered.fetch_add(1, Ordering::Relaxed);
        }
        if closes || !answered {
            ws = None;
        }
        tokio::time::sleep(Duration::from_millis(66)).await;
    }
}

/// The canary: a game of its own played on over HTTP throughout, a new one when it ends.
async fn play_canary(addr: SocketAddr, tally: Arc<Tally>, stop: Arc<AtomicBool>) {
    let mut rng = Rng::new(99);
    while !stop.load(Ordering::Relaxed) {
        let Ok((id, [white, black])) = seated_game(addr, "nine-mens-morris").await else {
            return;
        };
        loop {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let Ok(game) = state(addr, &id).await else {
                return;
            };
            if game["status"] != "playing" {
                break;
            }
            let legal = game["legal"].as_array().cloned().unwrap_or_default();
            let Some(turn) = legal.get(rng.below(legal.len().max(1))) else {
                break;
            };
            let secret = if game["to_move"] == "white" {
                &white
            } else {
                &black
            };
            let body = json!({"move": turn["turn"]});
            let started = Instant::now();
            let path = format!("/api/games/{id}/move");
            if let Ok((200, _)) = http(addr, Method::POST, &path, Some(&body), Some(secret)).await {
                tally.canary_turns.fetch_add(1, Ordering::Relaxed);
                let ms = started.elapsed().as_millis() as u64;
                tally.canary_worst_ms.fetch_max(ms, Ordering::Relaxed);
            }
        }
    }
}

/// Chat lines one address may say at once, over all its sockets (the server's allowance).
const CHAT_BURST: usize = 10;

/// A chat flood from one address: `sockets` spectators of one game, all from one address, each
/// saying at once as many lines as its own allowance lets it (five). The address's allowance
/// must hold them to a few lines in all, each line must be said or refused (`rate_limited`),
/// and a spectator from another address must still be heard. Its part of the line, or which
/// promise broke.
async fn chat_flood(addr: SocketAddr, sockets: usize) -> Result<String, String> {
    const EACH: usize = 5;
    let chat = |text: String| Message::text(json!({"type": "chat", "text": text}).to_string());
    let (id, _) = seated_game(addr, "nine-mens-morris").await?;
    let started = Instant::now();
    let mut flood = Vec::new();
    for k in 0..sockets {
        // `connect` picks the source address by number, sixteen in turn: every sixteenth is one.
        let mut ws = connect(addr, 16 * k, &id, None).await?;
        for _ in 0..3 {
            next(&mut ws).await; // hello, state, chat history
        }
        flood.push(ws);
    }
    for (i, ws) in flood.iter_mut().enumerate() {
        for n in 0..EACH {
            ws.send(chat(format!("flood {i}-{n}")))
                .await
                .map_err(|e| e.to_string())?;
        }
    }
    let (mut said, mut refused) = (0, 0);
    for (i, ws) in flood.iter_mut().enumerate() {
        let mine = format!("flood {i}-");
        let mut answered = 0;
        while answered < EACH {
            let Some(m) = next(ws).await else {
                return Err(format!("a flooding socket's line {answered} got no answer"));
            };
            if m["type"] == "error" && m["code"] == "rate_limited" {
                refused += 1;
                answered += 1;
            } else if m["type"] == "chat"
                && m["text"].as_str().is_some_and(|t| t.starts_with(&mine))
            {
                said += 1;
                answered += 1;
            }
        }
    }
    // The allowance refills at a line a second.
    let allowed = CHAT_BURST + started.elapsed().as_secs() as usize + 1;
    let mut honest = connect(addr, 1, &id, None).await?;
    for _ in 0..3 {
        next(&mut honest).await;
    }
    honest
        .send(chat("well played".into()))
        .await
        .map_err(|e| e.to_string())?;
    let heard = loop {
        match next(&mut honest).await {
            Some(m) if m["type"] == "chat" && m["text"] == "well played" => break true,
            Some(m) if m["type"] == "error" => break false,
            Some(_) => continue,
            None => break false,
        }
    };
    let part = format!(
        "chat flood of {sockets} sockets from one address: {said} of {} lines said, {refused} \
         refused, {}",
        sockets * EACH,
        if heard {
            "another address heard"
        } else {
            "another address NOT heard"
        },
    );
    if said > allowed || said + refused != sockets * EACH || !heard {
        return Err(format!(
            "a promise broke: {part} (at most {allowed} may be said)"
        ));
    }
    Ok(part)
}

/// An analysis flood during a game against the computer: one address sends thirty analyses at
/// once, wave after wave, while a person plays a 15-second game against level 6 (four of its
/// replies, or all of them at `full` scale). The computer must not lose on time nor spend more
/// than a third of its clock on four replies, and most of each wave must be refused.
async fn analysis_flood(addr: SocketAddr, full: bool) -> Result<(), String> {
    let variant = merels::catalog::Catalog::builtin()
        .configure("nine-mens-morris", &Default::default())
        .map_err(|e| e.to_string())?;
    let mut long = merels::rules::Game::new(variant);
    while long.turns().len() < 120 && long.outcome().is_none() {
        let legal = long.legal_turns();
        let pick = legal[long.turns().len() * 7 % legal.len()];
        long.play(pick).map_err(|e| format!("{e:?}"))?;
    }
    let query = format!(
        "/api/analysis?variant=nine-mens-morris&moves={}",
        long.turn_strings().join(",")
    );
    let body =
        json!({"variant": "nine-mens-morris", "color": "white", "clock": "0.25+0", "computer": 6});
    let (_, human) = http(addr, Method::POST, "/api/games", Some(&body), None).await?;
    let id = human["id"].as_str().ok_or("no game against the computer")?;
    let secret = human["secret"].as_str().ok_or("no seat secret")?;

    let stop = Arc::new(AtomicBool::new(false));
    let flood = {
        let (stop, query) = (stop.clone(), query.clone());
        tokio::spawn(async move {
            let (mut sent, mut capped) = (0u64, 0u64);
            while !stop.load(Ordering::Relaxed) {
                let wave: Vec<_> = (0..30)
                    .map(|_| {
                        let query = query.clone();
                        tokio::spawn(
                            async move { http(addr, Method::GET, &query, None, None).await },
                        )
                    })
                    .collect();
                for request in wave {
                    sent += 1;
                    if let Ok(Ok((429, _))) = request.await {
                        capped += 1;
                    }
                }
            }
            (sent, capped)
        })
    };
    let (mut replies, mut game) = (0, state(addr, id).await?);
    let mut four_replies_left = None;
    while game["status"] == "playing" {
        if game["to_move"] == "white" {
            // Back to White: the computer has answered each of the person's turns so far.
            if replies == 4 && four_replies_left.is_none() {
                four_replies_left = game["clock"]["black_ms"].as_i64();
                if !full {
                    break;
                }
            }
            let legal = game["legal"].as_array().cloned().unwrap_or_default();
            let turn = legal.first().ok_or("no legal turn")?;
            let path = format!("/api/games/{id}/move");
            let body = json!({"move": turn["turn"]});
            http(addr, Method::POST, &path, Some(&body), Some(secret)).await?;
            replies += 1;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        game = state(addr, id).await?;
    }
    stop.store(true, Ordering::Relaxed);
    let (sent, capped) = flood.await.map_err(|e| e.to_string())?;
    let flagged = game["termination"] == "time" && game["winner"] == "white";
    let left = four_replies_left.unwrap_or(0);
    let line = format!(
        "hostile: analysis flood of {sent} requests, {capped} refused; the computer had {left} ms of \
         15,000 after four replies{}",
        if flagged { ", then lost on time" } else { "" }
    );
    println!("{line}");
    if flagged || left < 10_000 || capped * 2 < sent {
        return Err(format!("a promise broke: {line}"));
    }
    Ok(())
}

/// The internal-port hold: one address opens `n` connections to an instance's internal address
/// (served with PostgreSQL) and holds them without a word, another holds 256 on the public port.
/// `/healthz` must answer, and the internal address must have kept no more of the held
/// connections than its cap for one address's unproven ones (256 by default): the rest it
/// closed at once.
async fn internal_hold(database_url: &str, n: usize) -> Result<String, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let addr = SocketAddr::from(([127, 0, 0, 1], super::free_port()?));
    let internal = SocketAddr::from(([127, 0, 0, 1], super::free_port()?));
    let bind = internal.to_string();
    let env = [
        ("MERELS_INTERNAL_BIND", bind.as_str()),
        ("MERELS_MAX_CONNECTIONS", "2048"),
    ];
    let mut server =
        Server::start(addr, database_url, &env, &dir.path().join("server.log")).await?;
    let hold = |host: [u8; 4], to: SocketAddr| async move {
        let socket = tokio::net::TcpSocket::new_v4().ok()?;
        socket.bind(SocketAddr::from((host, 0))).ok()?;
        tokio::time::timeout(Duration::from_secs(1), socket.connect(to))
            .await
            .ok()?
            .ok()
    };
    let mut held = Vec::new();
    for _ in 0..n {
        held.extend(hold([127, 0, 0, 1], internal).await);
    }
    let mut public = Vec::new();
    for _ in 0..256 {
        public.extend(hold([127, 0, 0, 2], addr).await);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (health, health_ms) = health(addr, "the internal-port hold").await?;
    // A held connection still open is one the server kept: reading it waits.
    let open = futures_util::future::join_all(held.iter_mut().map(|tcp| async {
        let mut byte = [0u8; 1];
        let read = tokio::io::AsyncReadExt::read(tcp, &mut byte);
        tokio::time::timeout(Duration::from_millis(300), read)
            .await
            .is_err()
    }))
    .await;
    let kept = open.into_iter().filter(|&open| open).count();
    let alive = server.alive();
    server.kill(false);
    drop((held, public));
    let line = format!(
        "internal hold: {n} connections held on the internal address, {kept} kept, \
         /healthz {} in {health_ms} ms, server {}",
        health.0,
        if alive { "alive" } else { "dead" },
    );
    if health.0 != 200 || kept > 256 || !alive {
        return Err(format!("a promise broke: {line}"));
    }
    Ok(line)
}

/// `/healthz`'s answer and how long it took (ms), or an error if it took over 2 s `during` an
/// attack.
async fn health(addr: SocketAddr, during: &str) -> Result<((u16, Value), u128), String> {
    let asked = Instant::now();
    let health = tokio::time::timeout(
        Duration::from_secs(2),
        http(addr, Method::GET, "/healthz", None, None),
    )
    .await
    .map_err(|_| format!("/healthz did not answer during {during}"))??;
    Ok((health, asked.elapsed().as_millis()))
}
