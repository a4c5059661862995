//! `merels-bench`: what measures merels and what attacks it, a workspace member of its own so
//! that the server binary carries none of it. [`cli`] is its command line; the servers it measures
//! and attacks are child processes of this very binary (merels from the library, as `merels serve`
//! runs it, and the bare server of [`bare`]).
//!
//! The benchmark, here: it starts a server as a child process (merels, then the bare broadcast
//! server as the physical limit), opens N games with two players and S spectators each over real
//! WebSockets, and plays random legal turns in a closed loop: each player moves as soon as it sees
//! that it is its turn. It reports turns per second, the latency from a player's send to the
//! spectators' receipt, errors, and the server's memory and CPU. With `--computer-games`, merels
//! also hosts that many games against the computer, each with a player moving at random as soon as
//! it may, so that the computer's threads are busy throughout: the human games' figures then show
//! what a busy computer costs them.
//!
//! The clients (players, spectators, the HTTP requests that make their games) are in `workload`,
//! the figures and how they are printed in `report`; here are the servers and the measuring.
//! [`chaos`] and [`hostile`] attack a server of their own (`child`) with the same clients.
//!
//! Benchmarks are commands, not tests: nothing here asserts a speed.

pub mod bare;
pub mod chaos;
mod child;
pub mod cli;
pub mod hostile;
mod images;
mod report;
mod workload;

use report::{Figures, Report, Round, Sample, print_table, ratio};
use serde::Serialize;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use workload::{Opponent, Shared, table};

/// The benchmark's settings.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// Games played at once.
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Spectators per game.
    #[arg(long, default_value_t = 2)]
    pub spectators: usize,
    /// Seconds of measured play, per server and round.
    #[arg(long, default_value_t = 10)]
    pub seconds: u64,
    /// Rounds: each measures both servers, in the order bare, merels, then merels, bare, and so
    /// on, so that a machine whose speed drifts during the run weighs on both alike. The figures
    /// are over all rounds together.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub rounds: u32,
    /// The database merels uses: a fresh SQLite file, or PostgreSQL at --database-url.
    #[arg(long, value_enum, default_value = "sqlite")]
    pub database: Database,
    /// PostgreSQL for `--database postgres`.
    #[arg(
        long,
        env = "MERELS_BENCH_DATABASE_URL",
        default_value = "postgres://postgres@127.0.0.1:5432/postgres"
    )]
    pub database_url: String,
    /// The variant played.
    #[arg(long, default_value = "nine-mens-morris")]
    pub variant: String,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Do not pin the server to core 0 and the load to the other cores.
    #[arg(long)]
    pub no_pin: bool,
    /// Games against the computer merels hosts beside the measured games (none on the bare
    /// server). Their turns are counted apart; the server's CPU includes the computer's.
    #[arg(long, default_value_t = 0)]
    pub computer_games: usize,
    /// The computer's level in those games.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u8).range(1..=6))]
    pub computer_level: u8,
    /// The server's engine threads (`MERELS_ENGINE_THREADS`).
    #[arg(long, default_value_t = 1)]
    pub engine_threads: usize,
    /// Also measure merels as this many instances on one PostgreSQL database (each round then
    /// measures one instance and N), the clients spread over them as by a round-robin balancer.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub instances: u32,
    /// With `--instances`: every client of a game on the instance that made it, as behind a
    /// balancer that hashes on the game id (no forwarding), rather than spread over them.
    #[arg(long, conflicts_with = "direct")]
    pub by_game: bool,
    /// With `--instances`: each instance is reached at an address of its own as well
    /// (`MERELS_DIRECT_URL`), and a game's socket that lands on another is sent there (`moved`),
    /// as behind a balancer with a name for each instance: the clients land at random and follow.
    #[arg(long, conflicts_with = "bus")]
    pub direct: bool,
    /// With `--instances`: the instances share a NATS server (which the benchmark starts, from
    /// `nats-server` on the PATH or in /usr/sbin), keep the sockets that reach them and relay
    /// their games' frames over it. Its CPU is counted with theirs.
    #[arg(long)]
    pub bus: bool,
    /// Hold the players to this many turns per second in all (0: each moves as soon as it
    /// may). At one rate every server does the same work a second, so CPU per turn compares
    /// them at the same load rather than each at its own most; a server slower than the rate
    /// shows fewer turns per second.
    #[arg(long, default_value_t = 0)]
    pub rate: u32,
    /// Clients asking merels for pictures of the games being played, each from a loopback
    /// address of its own, as fast as they are answered (none on the bare server).
    #[arg(long, default_value_t = 0)]
    pub image_clients: usize,
}

/// Which database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Database {
    /// A fresh SQLite file.
    Sqlite,
    /// PostgreSQL at `--database-url`.
    Postgres,
}

/// Runs the benchmark and prints the report.
pub fn run(args: BenchArgs) -> Result<(), String> {
    if args.instances > 1 && args.database != Database::Postgres {
        return Err(
            "several instances share a PostgreSQL database: add --database postgres".into(),
        );
    }
    let connections = args.games * (2 + args.spectators);
    if let Some(limit) = open_files_limit()
        && connections + 256 > limit
    {
        return Err(format!(
            "{connections} connections need more than this process's {limit} open files \
             (ulimit -n); the server needs as many"
        ));
    }
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    if !args.no_pin {
        pin_self_away_from_core_0();
    }
    // Worked out once: every start of the bare server gets the same lengths.
    let bare_plies = random_game_lengths(&args.variant, BARE_GAMES, 1)?
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let (mut bare_samples, mut merels_samples, mut rounds) = (Vec::new(), Vec::new(), Vec::new());
    let (mut durable_samples, mut several_samples) = (Vec::new(), Vec::new());
    let several = args.instances as usize;
    for round in 0..args.rounds {
        let mut order = vec![Kind::Bare, Kind::DurableBare, Kind::Merels(1)];
        if several > 1 {
            order.push(Kind::Merels(several));
        }
        if round % 2 == 1 {
            order.reverse();
        }
        for kind in order {
            let sample = runtime.block_on(measure(&args, kind, &bare_plies))?;
            match kind {
                Kind::Bare => bare_samples.push(sample),
                Kind::DurableBare => durable_samples.push(sample),
                Kind::Merels(1) => merels_samples.push(sample),
                Kind::Merels(_) => several_samples.push(sample),
            }
        }
        let rate = |s: &[Sample]| s.last().map_or(0.0, |s| s.turns as f64 / s.seconds);
        let (m, b) = (rate(&merels_samples), rate(&bare_samples));
        rounds.push(Round {
            merels_turns_per_s: m,
            bare_turns_per_s: b,
            ratio_turns_per_s: ratio(m, b),
        });
    }
    let (bare, merels) = (Figures::of(bare_samples), Figures::of(merels_samples));
    let durable_bare = Figures::of(durable_samples);
    let several = (several > 1).then(|| {
        let turns: u64 = several_samples.iter().map(|s| s.turns).sum();
        let bus_seconds: f64 = several_samples.iter().map(|s| s.bus_cpu_seconds).sum();
        let figures = Figures::of(several_samples);
        report::Several {
            instances: several,
            cpu_over_one: ratio(figures.cpu_us_per_turn, merels.cpu_us_per_turn),
            bus_cpu_us_per_turn: args.bus.then(|| ratio(bus_seconds * 1e6, turns as f64)),
            figures,
        }
    });
    let report = Report {
        games: args.games,
        spectators: args.spectators,
        seconds: args.seconds,
        database: args.database,
        computer_games: args.computer_games,
        computer_level: args.computer_level,
        engine_threads: args.engine_threads,
        image_clients: args.image_clients,
        ratio_turns_per_s: ratio(merels.turns_per_s, bare.turns_per_s),
        ratio_cpu_per_turn: ratio(bare.cpu_us_per_turn, merels.cpu_us_per_turn),
        durable_ratio_turns_per_s: ratio(merels.turns_per_s, durable_bare.turns_per_s),
        durable_ratio_cpu_per_turn: ratio(durable_bare.cpu_us_per_turn, merels.cpu_us_per_turn),
        merels,
        bare,
        durable_bare,
        several,
        rounds,
    };
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&report).map_err(|e| e.to_string())?
        );
    } else {
        print_table(&report);
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// merels, as this many instances.
    Merels(usize),
    /// The bare server: the network path's limit.
    Bare,
    /// The durable bare server: the limit of a server that keeps merels's promise.
    DurableBare,
}

/// A server child process, killed when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
    _dir: Option<tempfile::TempDir>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(15);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| e.to_string())
}

/// Starts merels (as many instances as `kind` says, on one database, with their bus if asked),
/// or the bare server. The bus, if any, comes first.
async fn start_servers(
    args: &BenchArgs,
    kind: Kind,
    bare_plies: &str,
) -> Result<(Option<child::Bus>, Vec<Server>), String> {
    let bus = match kind {
        // Pinned with the instances: its CPU is theirs.
        Kind::Merels(n) if n > 1 && args.bus => {
            Some(child::Bus::start(|bin| pinned(args, bin)).await?)
        }
        _ => None,
    };
    let url = bus.as_ref().map(|b| b.url.clone());
    let mut servers = Vec::new();
    for _ in 0..match kind {
        Kind::Merels(n) => n,
        Kind::Bare | Kind::DurableBare => 1,
    } {
        servers.push(start_server(args, kind, bare_plies, url.as_deref()).await?);
    }
    Ok((bus, servers))
}

/// A command for `program`, pinned to core 0 unless told not to.
fn pinned(args: &BenchArgs, program: impl AsRef<std::ffi::OsStr>) -> Command {
    if !args.no_pin && which("taskset") {
        let mut c = Command::new("taskset");
        c.args(["-c", "0"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

/// Starts merels (on the bus at `nats_url`, if given), or the bare server with `bare_plies`
/// (its games' lengths, comma-separated).
async fn start_server(
    args: &BenchArgs,
    kind: Kind,
    bare_plies: &str,
    nats_url: Option<&str>,
) -> Result<Server, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let addr = SocketAddr::from(([127, 0, 0, 1], free_port()?));
    let mut cmd = pinned(args, &exe);
    let mut dir = None;
    match kind {
        Kind::Bare => {
            cmd.args(["bare", "--bind", &addr.to_string(), "--plies", bare_plies]);
        }
        Kind::DurableBare => {
            // The log on the same file system merels's SQLite file is on: a temporary folder.
            let d = tempfile::tempdir().map_err(|e| e.to_string())?;
            cmd.args(["bare", "--bind", &addr.to_string(), "--plies", bare_plies])
                .arg("--log")
                .arg(d.path().join("turns.log"));
            dir = Some(d);
        }
        Kind::Merels(_) => {
            let url = match args.database {
                Database::Sqlite => {
                    let d = tempfile::tempdir().map_err(|e| e.to_string())?;
                    let url = format!("sqlite:{}", d.path().join("bench.db").display());
                    dir = Some(d);
                    url
                }
                Database::Postgres => args.database_url.clone(),
            };
            cmd.arg("serve")
                .env("MERELS_BIND", addr.to_string())
                .env("DATABASE_URL", url)
                .env("MERELS_GAMES_PER_MINUTE", "100000000")
                .env("MERELS_CONNECTIONS_PER_IP", "100000000")
                // Every client is on this host: one address holds them all.
                .env("MERELS_TCP_CONNECTIONS_PER_IP", "100000000")
                .env("MERELS_TCP_CONNECTIONS_PER_SUBNET", "100000000")
                .env("MERELS_MAX_CONNECTIONS", "1000000")
                .env("MERELS_MESSAGES_PER_SEC", "100000")
                .env("MERELS_COMPUTER_GAMES_PER_HOUR", "100000000")
                .env("MERELS_ENGINE_THREADS", args.engine_threads.to_string())
                .env("MERELS_INTERNAL_BIND", "127.0.0.1:0")
                .env("RUST_LOG", "warn");
            if let Some(url) = nats_url {
                cmd.env("MERELS_NATS_URL", url);
            }
            if args.direct {
                cmd.env("MERELS_DIRECT_URL", format!("http://{addr}"));
            }
        }
    }
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| format!("starting the server: {e}"))?;
    let server = Server {
        child,
        addr,
        _dir: dir,
    };
    workload::until_ready(addr).await?;
    Ok(server)
}

fn which(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

fn pin_self_away_from_core_0() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores > 1 && which("taskset") {
        let _ = Command::new("taskset")
            .args(["-a", "-p", "-c", &format!("1-{}", cores - 1)])
            .arg(std::process::id().to_string())
            .stdout(Stdio::null())
            .status();
    }
}

fn open_files_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// (resident bytes, CPU ticks) of a process, from /proc.
fn usage(pid: u32) -> (u64, u64) {
    let rss = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))?
                .split_whitespace()
                .nth(1)?
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kb| kb * 1024);
    let ticks = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            // The fields after the command's closing parenthesis; utime and stime are 14 and 15.
            let rest = &s[s.rfind(')')? + 2..];
            let f: Vec<&str> = rest.split_whitespace().collect();
            Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
        })
        .unwrap_or(0);
    (rss, ticks)
}

struct Rng(u64);

/// How many game lengths the bare server is given; it cycles through them.
const BARE_GAMES: usize = 4096;

/// The lengths, in plies, of `count` games of `variant` (with its default options) played with
/// random legal turns, as the load generator's players choose them. Merels's games end by the
/// rules and the load generator replaces each with a new one (created, joined and connected to);
/// the bare server, which knows no rules, ends its games after these many plies, so that both
/// servers see games end, and the client replace them, equally often.
fn random_game_lengths(variant: &str, count: usize, seed: u64) -> Result<Vec<usize>, String> {
    // A game of random turns ends long before this; the cap only guards against a variant that
    // could go on for ever.
    const MOST_PLIES: usize = 10_000;
    let variant = merels::catalog::Catalog::builtin()
        .configure(variant, &std::collections::BTreeMap::new())
        .map_err(|e| e.to_string())?;
    let mut rng = Rng::new(seed);
    Ok((0..count)
        .map(|_| {
            let mut game = merels::rules::Game::new(variant.clone());
            while game.outcome().is_none() && game.turns().len() < MOST_PLIES {
                let legal = game.legal_turns();
                let Some(&turn) = legal.get(rng.below(legal.len().max(1))) else {
                    break;
                };
                game.play(turn).expect("a legal turn is played");
            }
            game.turns().len()
        })
        .collect())
}

impl Rng {
    /// A generator for `seed`; nearby seeds give unrelated sequences.
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

async fn measure(args: &BenchArgs, kind: Kind, bare_plies: &str) -> Result<Sample, String> {
    let (bus, servers) = start_servers(args, kind, bare_plies).await?;
    let addrs: Arc<[SocketAddr]> = servers.iter().map(|s| s.addr).collect();
    let bus_pid = bus.as_ref().map(child::Bus::pid);
    let pids: Vec<u32> = servers
        .iter()
        .map(|s| s.child.id())
        .chain(bus_pid)
        .collect();
    let bus_ticks = || bus_pid.map_or(0, |pid| usage(pid).1);
    // Every instance's memory and CPU, together (and the bus's, which they need).
    let usage = || {
        pids.iter()
            .map(|&pid| usage(pid))
            .fold((0, 0), |(r, t), (rss, ticks)| (r + rss, t + ticks))
    };
    let (empty_rss, _) = usage();
    let shared = Arc::new(Shared {
        by_game: args.by_game,
        pace: (args.rate > 0).then(|| crate::workload::Pace::new(args.rate)),
        ..Shared::default()
    });
    let (go_tx, go_rx) = tokio::sync::watch::channel(false);
    let mut tables = Vec::with_capacity(args.games);
    for slot in 0..args.games {
        tables.push(tokio::spawn(table(
            addrs.clone(),
            slot,
            args.variant.clone(),
            Opponent::Friend {
                spectators: args.spectators,
            },
            shared.clone(),
            go_rx.clone(),
        )));
    }
    // Everyone connected and idle: the cost of an idle client.
    let want = args.games * (2 + args.spectators);
    let deadline = Instant::now() + Duration::from_secs(120);
    while shared.connected.load(Ordering::Relaxed) < want && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (idle_rss, _) = usage();
    let idle_per_client = idle_rss.saturating_sub(empty_rss) / want.max(1) as u64;

    let _ = go_tx.send(true);
    // The games against the computer start with play: they are load, not clients to weigh idle.
    let computer = Arc::new(Shared::default());
    if let Kind::Merels(_) = kind {
        for slot in args.games..args.games + args.computer_games {
            tables.push(tokio::spawn(table(
                addrs.clone(),
                slot,
                args.variant.clone(),
                Opponent::Computer {
                    level: args.computer_level,
                },
                computer.clone(),
                go_rx.clone(),
            )));
        }
    }
    let flood = Arc::new(images::Flood::default());
    if let Kind::Merels(_) = kind {
        for n in 0..args.image_clients {
            let (addrs, shared, flood) = (addrs.clone(), shared.clone(), flood.clone());
            tables.push(tokio::spawn(images::client(n, addrs, shared, flood)));
        }
    }
    // Warm up until the games have ended once on average. Every table starts at once, so the
    // first games end in a wave; a window that caught more or less of it would weigh the
    // replacing of games more or less, and the two servers differently.
    let deadline = Instant::now() + Duration::from_secs(60);
    while (shared.games_ended.load(Ordering::Relaxed) as usize) < args.games
        && Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (_, ticks_before) = usage();
    let bus_before = bus_ticks();
    let ended_before = shared.games_ended.load(Ordering::Relaxed);
    for s in [&shared, &computer] {
        s.measuring.store(true, Ordering::Relaxed);
    }
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(args.seconds)).await;
    for s in [&shared, &computer] {
        s.measuring.store(false, Ordering::Relaxed);
    }
    let ended = shared.games_ended.load(Ordering::Relaxed) - ended_before;
    let elapsed = started.elapsed().as_secs_f64();
    let (rss, ticks_after) = usage();
    let bus_after = bus_ticks();
    for s in [&shared, &computer] {
        s.stop.store(true, Ordering::Relaxed);
    }
    for t in tables {
        t.abort();
    }
    drop(servers);
    drop(bus);

    let ticks_per_s = 100.0; // USER_HZ on Linux
    Ok(Sample {
        turns: shared.turns.load(Ordering::Relaxed),
        computer_game_turns: computer.turns.load(Ordering::Relaxed),
        games_ended: ended,
        seconds: elapsed,
        cpu_seconds: ticks_after.saturating_sub(ticks_before) as f64 / ticks_per_s,
        bus_cpu_seconds: bus_after.saturating_sub(bus_before) as f64 / ticks_per_s,
        latencies_us: std::mem::take(&mut *shared.latencies.lock().unwrap()),
        errors: shared.errors.load(Ordering::Relaxed) + computer.errors.load(Ordering::Relaxed),
        rss,
        idle_per_client,
        images_drawn: flood.drawn.load(Ordering::Relaxed),
        images_refused: flood.refused.load(Ordering::Relaxed),
        images_failed: flood.failed.load(Ordering::Relaxed),
    })
}

#[cfg(test)]
mod tests {
    use super::{Figures, Sample, random_game_lengths};

    #[test]
    fn random_games_end_and_their_lengths_vary() {
        let lengths = random_game_lengths("nine-mens-morris", 64, 1).unwrap();
        assert_eq!(lengths.len(), 64);
        // Nine Men's placement alone is 18 plies; random play ends by the rules well before the cap.
        assert!(
            lengths.iter().all(|&l| (18..10_000).contains(&l)),
            "{lengths:?}"
        );
        assert!(lengths.iter().any(|&l| l != lengths[0]), "{lengths:?}");
        assert_eq!(
            lengths,
            random_game_lengths("nine-mens-morris", 64, 1).unwrap()
        );
        assert!(random_game_lengths("no-such-variant", 1, 1).is_err());
    }

    fn sample(turns: u64, seconds: f64, cpu_seconds: f64, latencies_us: Vec<u32>) -> Sample {
        Sample {
            turns,
            computer_game_turns: turns / 10,
            games_ended: turns / 100,
            seconds,
            cpu_seconds,
            bus_cpu_seconds: 0.0,
            latencies_us,
            errors: 1,
            rss: turns * 10,
            idle_per_client: turns,
            images_drawn: 0,
            images_refused: 0,
            images_failed: 0,
        }
    }

    #[test]
    fn rounds_add_up_to_one_set_of_figures() {
        let f = Figures::of(vec![
            sample(1_000, 10.0, 5.0, (1..=100).map(|ms| ms * 1000).collect()),
            sample(3_000, 10.0, 9.0, (101..=200).map(|ms| ms * 1000).collect()),
        ]);
        // Rates over the summed time, not the mean of the rounds' rates.
        assert_eq!(f.turns_per_s, 200.0);
        assert_eq!(f.server_cpu_cores, 0.7);
        assert_eq!(f.cpu_us_per_turn, 3_500.0);
        // Percentiles over every sample of every round.
        assert_eq!(f.samples, 200);
        assert_eq!(f.p50_ms, 100.0);
        assert_eq!(f.p99_ms, 198.0);
        // Errors add up; memory is the worst seen.
        assert_eq!(f.errors, 2);
        assert_eq!(f.server_rss_bytes, 30_000);
        assert_eq!(f.idle_bytes_per_client, 3_000);
        // Games ended over turns, over every round.
        assert_eq!(f.turns_per_game, 100.0);
        assert_eq!(f.computer_game_turns_per_s, 20.0);
    }
}
