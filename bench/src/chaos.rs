//! `merels-bench chaos`: servers killed again and again while they are played. It starts merels as
//! child processes (one, or `--instances N` on one PostgreSQL database, each client connecting
//! to any of them at random, as behind a round-robin balancer, and following a `moved` to the
//! game's owner with `--direct`), plays random games over real
//! WebSockets, and kills a server (SIGKILL or SIGTERM, at random moments; SIGKILL every
//! `--every` seconds) N times, restarting it each time on the same database and address while
//! the players reconnect. Then it checks what the servers promise:
//!
//! - every turn a player saw acknowledged is stored (none lost);
//! - each game's plies run from 0 without a gap, no turn follows an end, and every stored game
//!   replays under the rules;
//! - the version a client sees never goes back;
//! - every game's last state, as the servers say it, is what the store holds;
//! - with `--every`, no game stands still for longer than the lease and two seconds, before a
//!   kill or after it.
//!
//! It prints one line of counts and fails unless every count of a broken promise is 0.

use super::Rng;
use super::child::{Bus, Server};
use super::workload::{Opened, Socket, connect_owner, http, move_frame, seated_game};
use futures_util::{SinkExt, StreamExt};
use merels::catalog::{Catalog, parse_options};
use merels::store::Store;
use reqwest::Method;
use serde_json::Value;
use std::net::SocketAddr;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

/// `merels-bench chaos` settings.
#[derive(Debug, Clone, clap::Args)]
pub struct ChaosArgs {
    /// Games played at once.
    #[arg(long, default_value_t = 20)]
    pub games: usize,
    /// How many times the server is killed.
    #[arg(long, default_value_t = 10)]
    pub kills: usize,
    /// The database: `sqlite:PATH` (a fresh file in a temporary folder when not given) or
    /// `postgres://...`.
    #[arg(long)]
    pub database_url: Option<String>,
    /// Seed of the random turns and kills.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Servers on one database (more than one needs `--database-url postgres://...`).
    #[arg(long, default_value_t = 1)]
    pub instances: usize,
    /// Seconds between kills, each a SIGKILL of a server chosen at random (default: a kill,
    /// either kind, every 0.3 to 1.5 s). Games must then move again within the lease and
    /// two seconds.
    #[arg(long)]
    pub every: Option<f64>,
    /// The instances share a NATS server (which chaos starts) and keep the sockets that reach
    /// them, relaying over it, rather than forwarding each socket to its game's owner.
    #[arg(long)]
    pub bus: bool,
    /// Each instance is also reached at an address of its own (`MERELS_DIRECT_URL`), and a
    /// game's socket that lands on another is sent to its owner's (`moved`), which the players
    /// follow; when the owner is killed they come back through any of them.
    #[arg(long, conflicts_with = "bus")]
    pub direct: bool,
}

/// What a run counted.
#[derive(Debug, Default)]
pub struct Counts {
    acknowledged: AtomicU64,
    lost: AtomicU64,
    versions_back: AtomicU64,
    errors: AtomicU64,
    /// The error messages met, by code: a server restarting says so.
    codes: std::sync::Mutex<std::collections::BTreeMap<String, u64>>,
    /// The longest a game in play went without a stored turn, in ms.
    longest_stall_ms: AtomicU64,
    /// For each game that stood across a kill, how long after the kill it moved again, in ms.
    after_kill_ms: std::sync::Mutex<Vec<u64>>,
    /// When the last kill was sent, in ms into the run; 0 before the first.
    last_kill_ms: AtomicU64,
    /// The first few broken promises and errors, each with its game and server: what a rare
    /// race leaves to go on.
    incidents: std::sync::Mutex<Vec<String>>,
}

impl Counts {
    /// Notes what happened, if fewer than a screenful are noted already.
    fn incident(&self, what: String) {
        if let Ok(mut incidents) = self.incidents.lock()
            && incidents.len() < 20
        {
            incidents.push(what);
        }
    }
}

/// The chaos is about kills, not limits: the players move as fast as they can. On PostgreSQL
/// the games of a killed server wait for its lease to lapse before the next takes them: a short
/// one keeps the run short.
const FAST: [(&str, &str); 3] = [
    ("MERELS_GAMES_PER_MINUTE", "100000"),
    ("MERELS_MESSAGES_PER_SEC", "100000"),
    ("MERELS_LEASE_SECS", "2"),
];

/// When the run began, for the times in its incidents and kills.
static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Milliseconds since the run began.
fn started_ms() -> u64 {
    ms_into_run(std::time::Instant::now())
}

/// Milliseconds from the run's beginning to `at`.
fn ms_into_run(at: std::time::Instant) -> u64 {
    at.saturating_duration_since(*START.get_or_init(std::time::Instant::now))
        .as_millis() as u64
}

/// How long a game may stay unavailable after a kill: the lease, and two seconds.
const STALL: Duration = Duration::from_secs(4);

/// The variants played, in turn.
const VARIANTS: [&str; 3] = ["nine-mens-morris", "six-mens-morris", "morabaraba"];

/// Runs the chaos and prints its line; an error says which promise broke.
pub fn run(args: ChaosArgs) -> Result<(), String> {
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(chaos(args))
}

/// One game's players: their secrets, and the turns they saw acknowledged.
struct Game {
    id: String,
    variant: &'static str,
    secrets: [String; 2],
    acknowledged: Vec<String>,
}

async fn chaos(args: ChaosArgs) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let url = args
        .database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite:{}", dir.path().join("chaos.db").display()));
    if args.instances > 1 && !url.starts_with("postgres") {
        return Err("several instances share a PostgreSQL database: give --database-url".into());
    }
    let bus = match args.bus {
        true => Some(Bus::start(|bin| Command::new(bin)).await?),
        false => None,
    };
    let mut env = FAST.to_vec();
    if let Some(bus) = &bus {
        env.push(("MERELS_NATS_URL", bus.url.as_str()));
    }
    let addrs = (0..args.instances.max(1))
        .map(|_| Ok(SocketAddr::from(([127, 0, 0, 1], super::free_port()?))))
        .collect::<Result<Arc<[SocketAddr]>, String>>()?;
    let directs: Vec<String> = addrs.iter().map(|a| format!("http://{a}")).collect();
    // Server `n`'s settings: the shared ones, and its own address if it has one.
    let env_of = |n: usize| {
        let mut env = env.clone();
        if args.direct {
            env.push(("MERELS_DIRECT_URL", directs[n].as_str()));
        }
        env
    };
    let log_of = |n: usize| dir.path().join(format!("server-{n}.log"));
    let mut servers = Vec::new();
    for (n, &addr) in addrs.iter().enumerate() {
        servers.push(Server::start(addr, &url, &env_of(n), &log_of(n)).await?);
    }
    started_ms();
    let counts = Arc::new(Counts::default());
    let stop = Arc::new(AtomicBool::new(false));
    let mut drivers = Vec::new();
    for n in 0..args.games {
        let (addrs, counts, stop) = (addrs.clone(), counts.clone(), stop.clone());
        let seed = args.seed.wrapping_mul(1000) + n as u64;
        drivers.push(tokio::spawn(table(addrs, n, counts, stop, seed)));
    }
    let mut rng = Rng::new(args.seed);
    let mut hard_kills = 0;
    for _ in 0..args.kills {
        let pause = match args.every {
            Some(every) => Duration::from_secs_f64(every.max(0.1)),
            None => Duration::from_millis(300 + rng.below(1200) as u64),
        };
        tokio::time::sleep(pause).await;
        let hard = args.every.is_some() || rng.below(3) != 0;
        hard_kills += usize::from(hard);
        let victim = rng.below(servers.len());
        let at = started_ms();
        eprintln!(
            "chaos: {} server {victim} at {at} ms into the run",
            if hard { "SIGKILL to" } else { "SIGTERM to" },
        );
        counts.last_kill_ms.store(at, Ordering::Relaxed);
        servers[victim].kill(hard);
        servers[victim] =
            Server::start(addrs[victim], &url, &env_of(victim), &log_of(victim)).await?;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop.store(true, Ordering::Relaxed);
    let mut games = Vec::new();
    for driver in drivers {
        games.extend(driver.await.map_err(|e| e.to_string())?);
    }
    // The server's last word on each game, then the store's own, with the server gone.
    let mut served = Vec::new();
    for game in &games {
        let path = format!("/api/games/{}", game.id);
        let deadline = tokio::time::Instant::now() + STALL;
        let state = loop {
            let addr = addrs[rng.below(addrs.len())];
            let (status, state) = http(addr, Method::GET, &path, None, None).await?;
            if status != 503 || tokio::time::Instant::now() > deadline {
                break state;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        served.push(state["turns"].clone());
    }
    for server in &mut servers {
        server.kill(false);
    }
    // A server too starved to renew its lease in time gives its games up: worth knowing when
    // a game stood still.
    let lapses: usize = servers.iter().map(|s| s.log_mentions("lease lapsed")).sum();
    let stall_allowed = args.every.map(|_| STALL);
    let report = check(&url, &games, &served, &counts, stall_allowed)
        .await
        .map_err(|e| format!("{e} ({lapses} leases lapsed)"))?;
    println!(
        "chaos: {} kills ({hard_kills} SIGKILL, {} SIGTERM), {} instances ({lapses} leases \
         lapsed), {} tables, {} games, {}",
        args.kills,
        args.kills - hard_kills,
        servers.len(),
        args.games,
        games.len(),
        report
    );
    drop(dir);
    Ok(())
}

/// How soon games moved again after a kill, in words: the median, the 99th percentile and the
/// longest, over every game that stood across one.
fn moved_again(after_kill_ms: &[u64]) -> String {
    if after_kill_ms.is_empty() {
        return "no game stood across a kill".into();
    }
    let mut sorted = after_kill_ms.to_vec();
    sorted.sort_unstable();
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
    format!(
        "moved again after a kill: p50 {} ms, p99 {} ms, longest {} ms ({} games)",
        at(0.5),
        at(0.99),
        sorted[sorted.len() - 1],
        sorted.len()
    )
}

/// Checks the store against what the players saw; the counts' line, or what broke.
async fn check(
    url: &str,
    games: &[Game],
    served: &[Value],
    counts: &Counts,
    stall_allowed: Option<Duration>,
) -> Result<String, String> {
    let store = Store::connect(url).await.map_err(|e| e.to_string())?;
    let catalog = Catalog::builtin();
    let (mut gaps, mut after_end, mut unreadable, mut differ) = (0, 0, 0, 0);
    for (game, served) in games.iter().zip(served) {
        let stored = store
            .load(&game.id)
            .await
            .map_err(|e| e.to_string())?
            .ok_or("a game is missing")?;
        let turns: Vec<&str> = stored.turns.iter().map(|t| t.notation.as_str()).collect();
        gaps += stored
            .turns
            .iter()
            .enumerate()
            .filter(|(i, t)| t.ply != *i as i64)
            .count();
        if !turns.starts_with(
            &game
                .acknowledged
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        ) {
            counts.lost.fetch_add(1, Ordering::Relaxed);
        }
        let served: Vec<&str> = served
            .as_array()
            .map(|t| t.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        differ += usize::from(served != turns);
        let options = parse_options(&stored.game.options).map_err(|e| e.to_string())?;
        let variant = catalog
            .configure(game.variant, &options)
            .map_err(|e| e.to_string())?;
        let mut replay = merels::rules::Game::new(variant.clone());
        for text in &turns {
            if replay.outcome().is_some() {
                after_end += 1;
                break;
            }
            let played = variant
                .parse_turn(text)
                .ok()
                .and_then(|t| replay.play(t).ok());
            if played.is_none() {
                unreadable += 1;
                break;
            }
        }
    }
    store.close().await;
    let stall = counts.longest_stall_ms.load(Ordering::Relaxed);
    let after_kill = counts
        .after_kill_ms
        .lock()
        .map(|a| moved_again(&a))
        .unwrap_or_default();
    let line = format!(
        "{} acknowledged turns, {} lost, {gaps} gaps, {after_end} after an end, {unreadable} \
         unreadable, {} versions back, {differ} differing from the store, longest stall {stall} \
         ms, {after_kill}, {} errors met {:?}",
        counts.acknowledged.load(Ordering::Relaxed),
        counts.lost.load(Ordering::Relaxed),
        counts.versions_back.load(Ordering::Relaxed),
        counts.errors.load(Ordering::Relaxed),
        counts.codes.lock().map(|c| c.clone()).unwrap_or_default(),
    );
    let stalled = stall_allowed.is_some_and(|allowed| stall > allowed.as_millis() as u64);
    let broken = counts.lost.load(Ordering::Relaxed)
        + counts.versions_back.load(Ordering::Relaxed)
        + (gaps + after_end + unreadable + differ) as u64
        + u64::from(stalled);
    if broken > 0 {
        let incidents = counts
            .incidents
            .lock()
            .map(|i| i.join("\n"))
            .unwrap_or_default();
        return Err(format!("chaos: a promise broke: {line}\n{incidents}"));
    }
    Ok(line)
}

/// The game as one player's socket last showed it.
#[derive(Default)]
struct View {
    version: u64,
    plies: usize,
    to_move: String,
    finished: bool,
    legal: Vec<String>,
    turns: Vec<String>,
}

impl View {
    /// Takes in a `state` or an `update`; false for any other message.
    fn take(&mut self, m: &Value) -> bool {
        let kind = m["type"].as_str().unwrap_or("");
        if kind != "state" && kind != "update" {
            return false;
        }
        self.version = m["version"].as_u64().unwrap_or(0);
        self.plies = m["plies"].as_u64().unwrap_or(0) as usize;
        self.to_move = m["to_move"].as_str().unwrap_or("").to_string();
        self.finished = m["status"] == "finished";
        self.legal = m["legal"]
            .as_array()
            .map(|l| {
                l.iter()
                    .filter_map(|t| t["turn"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        if kind == "state" {
            self.turns = m["turns"]
                .as_array()
                .map(|t| {
                    t.iter()
                        .filter_map(|s| s.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
        } else if let Some(last) = m["last_turn"]["turn"].as_str() {
            self.turns.truncate(self.plies.saturating_sub(1));
            if self.turns.len() + 1 == self.plies {
                self.turns.push(last.to_string());
            }
        }
        true
    }
}

async fn next(ws: &mut Socket) -> Option<Value> {
    match tokio::time::timeout(Duration::from_secs(5), ws.next()).await {
        Ok(Some(Ok(Message::Text(t)))) => serde_json::from_str(t.as_str()).ok(),
        Ok(Some(Ok(_))) => Some(Value::Null),
        _ => None,
    }
}

/// One table: a new game whenever the last one ended, until the run stops; returns them all.
async fn table(
    addrs: Arc<[SocketAddr]>,
    n: usize,
    counts: Arc<Counts>,
    stop: Arc<AtomicBool>,
    seed: u64,
) -> Vec<Game> {
    let mut games = Vec::new();
    let variant = VARIANTS[n % VARIANTS.len()];
    let mut rng = Rng::new(seed);
    while !stop.load(Ordering::Relaxed) {
        // The server may be down for a moment: ask again (any of them).
        let addr = addrs[rng.below(addrs.len())];
        let Ok((id, secrets)) = seated_game(addr, variant).await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let game = Game {
            id,
            variant,
            secrets,
            acknowledged: Vec::new(),
        };
        let seed = seed.wrapping_mul(31) + games.len() as u64;
        let addrs = addrs.clone();
        games.push(drive(addrs, n, game, counts.clone(), stop.clone(), seed).await);
    }
    games
}

/// Plays one game until it ends or the run stops, reconnecting after every kill; returns it
/// with the turns its players saw acknowledged. Each player moves on its own socket; White's
/// socket is the one read, since every change reaches every connection.
async fn drive(
    addrs: Arc<[SocketAddr]>,
    n: usize,
    mut game: Game,
    counts: Arc<Counts>,
    stop: Arc<AtomicBool>,
    seed: u64,
) -> Game {
    let mut rng = Rng::new(seed);
    let mut seen_version = 0;
    let mut moved = tokio::time::Instant::now();
    let id = game.id.clone();
    // Connections opened since the last acknowledged turn, and where the last ones landed.
    let mut attempts = 0u32;
    let mut landed = Vec::new();
    // A game stands still from its last stored turn; with a kill since, the stall is two: up to
    // the kill, and from it. The promise is that games move again within the lease and two
    // seconds of a kill; a turn in flight when its server died is not part of that, nor may a
    // game have stood still before.
    let stalled = |since: tokio::time::Instant, attempts: u32, landed: &[SocketAddr]| {
        let (since, now) = (ms_into_run(since.into_std()), started_ms());
        let kill = counts.last_kill_ms.load(Ordering::Relaxed);
        let ms = if kill > since {
            if let Ok(mut after) = counts.after_kill_ms.lock() {
                after.push(now.saturating_sub(kill));
            }
            (kill - since).max(now.saturating_sub(kill))
        } else {
            now - since
        };
        counts.longest_stall_ms.fetch_max(ms, Ordering::Relaxed);
        if ms > STALL.as_millis() as u64 {
            counts.incident(format!(
                "game {}: {ms} ms without a stored turn (before a kill or after it), until {} \
                 ms into the run ({attempts} connections opened meanwhile, the last through \
                 {landed:?})",
                id, now
            ));
        }
    };
    'connect: while !stop.load(Ordering::Relaxed) {
        let mut sockets = Vec::new();
        landed.clear();
        attempts += 1;
        for secret in &game.secrets {
            // Each socket to any server: the game's owner serves it wherever it lands (or it
            // is sent to the owner's own address).
            let addr = addrs[rng.below(addrs.len())];
            match connect_owner(addr, n, &game.id, Some(secret)).await {
                // Its first message, the hello, holds nothing the view below reads.
                Ok(Opened { ws, at, .. }) => {
                    sockets.push(ws);
                    landed.push(at);
                }
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue 'connect;
                }
            }
        }
        // Each socket's first state: no acknowledged turn missing, and no version older than
        // one seen before the sockets opened. (Against each other they may differ: a turn
        // sent on a socket just dropped can still land between the two connects.) The freshest
        // of the two is played from.
        let before = seen_version;
        let mut view = View::default();
        for (seat, ws) in sockets.iter_mut().enumerate() {
            let mut first = View::default();
            loop {
                let Some(m) = next(ws).await else {
                    continue 'connect;
                };
                if first.take(&m) {
                    break;
                }
            }
            if first.version < before {
                counts.versions_back.fetch_add(1, Ordering::Relaxed);
                counts.incident(format!(
                    "game {}: seat {seat}'s first state (through {}) at version {} after {before}",
                    game.id, landed[seat], first.version
                ));
            }
            if !first.turns.starts_with(&game.acknowledged) {
                counts.lost.fetch_add(1, Ordering::Relaxed);
            }
            if first.version >= view.version {
                view = first;
            }
        }
        seen_version = seen_version.max(view.version);
        loop {
            if view.finished {
                return game;
            }
            if stop.load(Ordering::Relaxed) {
                stalled(moved, attempts, &landed);
                return game;
            }
            let mover = usize::from(view.to_move == "black");
            let Some(turn) = view.legal.get(rng.below(view.legal.len().max(1))).cloned() else {
                counts.errors.fetch_add(1, Ordering::Relaxed);
                return game;
            };
            let ply = view.plies;
            let sent = sockets[mover].send(move_frame(&turn)).await;
            if sent.is_err() {
                continue 'connect;
            }
            // Acknowledged once the game shows the turn stored. The mover's own socket is read
            // too: were it cut (its server killed), the turn went nowhere.
            loop {
                let (white, black) = sockets.split_at_mut(1);
                let m = match (mover, black.first_mut()) {
                    (1, Some(black)) => tokio::select! {
                        m = next(&mut white[0]) => m,
                        m = next(black) => match m {
                            Some(m) if m["type"] == "error" => Some(m),
                            Some(_) => continue,
                            None => None,
                        },
                    },
                    _ => next(&mut white[0]).await,
                };
                let Some(m) = m else {
                    continue 'connect;
                };
                if m["type"] == "error" {
                    counts.errors.fetch_add(1, Ordering::Relaxed);
                    let code = m["code"].as_str().unwrap_or("?").to_string();
                    counts.incident(format!(
                        "game {}: {turn} at ply {ply} by seat {mover} (through {}) met {m}",
                        game.id, landed[mover]
                    ));
                    if let Ok(mut codes) = counts.codes.lock() {
                        *codes.entry(code).or_default() += 1;
                    }
                    continue 'connect;
                }
                if view.take(&m) && view.plies > ply {
                    break;
                }
            }
            if view.version < seen_version {
                counts.versions_back.fetch_add(1, Ordering::Relaxed);
                counts.incident(format!(
                    "game {}: after {turn} at ply {ply}, version {} after {seen_version} (white \
                     through {})",
                    game.id, view.version, landed[0]
                ));
            }
            seen_version = view.version;
            if view.turns.get(ply) == Some(&turn) && game.acknowledged.len() == ply {
                game.acknowledged.push(turn);
                counts.acknowledged.fetch_add(1, Ordering::Relaxed);
            }
            stalled(moved, attempts, &landed);
            moved = tokio::time::Instant::now();
            attempts = 0;
        }
    }
    game
}
