//! What the benchmark reports: the figures of each server, the rounds, the ratios, and the
//! table or JSON they are printed as.

use super::Database;
use serde::Serialize;

/// The figures of one server under the workload.
#[derive(Debug, Clone, Serialize)]
pub struct Figures {
    /// Turns stored and broadcast per second.
    pub turns_per_s: f64,
    /// Send-to-spectator latency, median.
    pub p50_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// 99.9th percentile.
    pub p999_ms: f64,
    /// Error messages, failed connections and setups.
    pub errors: u64,
    /// The server's resident memory at the end.
    pub server_rss_bytes: u64,
    /// Resident memory per connected client before play began, over the server's empty RSS.
    pub idle_bytes_per_client: u64,
    /// CPU cores the server used during play (1.0 = one core busy).
    pub server_cpu_cores: f64,
    /// The server's CPU time per turn, microseconds: its cost whether or not the load
    /// generator kept it busy.
    pub cpu_us_per_turn: f64,
    /// Latency samples.
    pub samples: usize,
    /// Turns per game that ended: how often the load generator replaced a game (created,
    /// joined and connected to a new one). Both servers should show about the same.
    pub turns_per_game: f64,
    /// Turns per second in the games against the computer (the computer's and its opponent's).
    pub computer_game_turns_per_s: f64,
    /// Pictures the flood was answered per second (`--image-clients`).
    pub images_per_s: f64,
    /// Of the flood's asks, refused (429) per second.
    pub images_refused_per_s: f64,
    /// Of the flood's asks, failed otherwise.
    pub images_failed: u64,
}

/// What one measurement of one server collected.
pub(super) struct Sample {
    pub(super) turns: u64,
    pub(super) computer_game_turns: u64,
    pub(super) games_ended: u64,
    pub(super) seconds: f64,
    pub(super) cpu_seconds: f64,
    /// Of which the bus's (with `--bus`).
    pub(super) bus_cpu_seconds: f64,
    pub(super) latencies_us: Vec<u32>,
    pub(super) errors: u64,
    pub(super) rss: u64,
    pub(super) idle_per_client: u64,
    pub(super) images_drawn: u64,
    pub(super) images_refused: u64,
    pub(super) images_failed: u64,
}

impl Figures {
    /// The figures over several measurements of one server: rates over their summed time,
    /// latency percentiles over all their samples, and the largest memory any of them saw.
    pub(super) fn of(samples: Vec<Sample>) -> Figures {
        let seconds: f64 = samples.iter().map(|s| s.seconds).sum();
        let total_turns = samples.iter().map(|s| s.turns).sum::<u64>() as f64;
        let ended = samples.iter().map(|s| s.games_ended).sum::<u64>() as f64;
        let turns = total_turns / seconds.max(1e-9);
        let computer_turns = samples.iter().map(|s| s.computer_game_turns).sum::<u64>() as f64;
        let cpu = samples.iter().map(|s| s.cpu_seconds).sum::<f64>() / seconds.max(1e-9);
        let errors = samples.iter().map(|s| s.errors).sum();
        let images = samples.iter().map(|s| s.images_drawn).sum::<u64>() as f64;
        let refused = samples.iter().map(|s| s.images_refused).sum::<u64>() as f64;
        let images_failed = samples.iter().map(|s| s.images_failed).sum();
        let server_rss_bytes = samples.iter().map(|s| s.rss).max().unwrap_or(0);
        let idle_bytes_per_client = samples.iter().map(|s| s.idle_per_client).max().unwrap_or(0);
        let mut lat: Vec<u32> = samples.into_iter().flat_map(|s| s.latencies_us).collect();
        lat.sort_unstable();
        let pct = |p: f64| {
            if lat.is_empty() {
                0.0
            } else {
                f64::from(lat[((lat.len() - 1) as f64 * p) as usize]) / 1000.0
            }
        };
        Figures {
            turns_per_s: turns,
            p50_ms: pct(0.50),
            p99_ms: pct(0.99),
            p999_ms: pct(0.999),
            errors,
            server_rss_bytes,
            idle_bytes_per_client,
            server_cpu_cores: cpu,
            cpu_us_per_turn: if turns > 0.0 { 1e6 * cpu / turns } else { 0.0 },
            samples: lat.len(),
            turns_per_game: ratio(total_turns, ended),
            computer_game_turns_per_s: computer_turns / seconds.max(1e-9),
            images_per_s: images / seconds.max(1e-9),
            images_refused_per_s: refused / seconds.max(1e-9),
            images_failed,
        }
    }
}

/// One round's turns per second of each server.
#[derive(Debug, Clone, Serialize)]
pub struct Round {
    /// merels's turns per second in this round.
    pub merels_turns_per_s: f64,
    /// The bare server's.
    pub bare_turns_per_s: f64,
    /// merels's over the bare server's.
    pub ratio_turns_per_s: f64,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Games at once.
    pub games: usize,
    /// Spectators per game.
    pub spectators: usize,
    /// Seconds measured, per server and round.
    pub seconds: u64,
    /// merels's database.
    pub database: Database,
    /// Games against the computer beside the measured ones, on merels.
    pub computer_games: usize,
    /// The computer's level in them.
    pub computer_level: u8,
    /// merels's engine threads.
    pub engine_threads: usize,
    /// Clients asking merels for pictures meanwhile.
    pub image_clients: usize,
    /// merels.
    pub merels: Figures,
    /// The bare broadcast server: the network path's limit.
    pub bare: Figures,
    /// The durable bare server: the bare server plus each turn `fsync`ed to a log before it is
    /// heard, the limit of a server that keeps merels's promise.
    pub durable_bare: Figures,
    /// merels as several instances (`--instances`), when asked.
    pub several: Option<Several>,
    /// merels's turns per second over the bare server's.
    pub ratio_turns_per_s: f64,
    /// The bare server's CPU per turn over merels's: the turns per second merels would reach,
    /// as a share of the bare server's, were both servers kept busy.
    pub ratio_cpu_per_turn: f64,
    /// merels's turns per second over the durable bare server's.
    pub durable_ratio_turns_per_s: f64,
    /// The durable bare server's CPU per turn over merels's.
    pub durable_ratio_cpu_per_turn: f64,
    /// Each round's throughput, in the order they ran.
    pub rounds: Vec<Round>,
}

/// merels as several instances on one database.
#[derive(Debug, Clone, Serialize)]
pub struct Several {
    /// How many.
    pub instances: usize,
    /// Their figures, together (CPU and memory summed over the instances).
    pub figures: Figures,
    /// Their CPU per turn over one instance's: what spreading a load over them costs.
    pub cpu_over_one: f64,
    /// With `--bus`: the NATS server's CPU per turn, which is part of their figures.
    pub bus_cpu_us_per_turn: Option<f64>,
}

pub(super) fn ratio(num: f64, den: f64) -> f64 {
    if den > 0.0 { num / den } else { 0.0 }
}

pub(super) fn print_table(r: &Report) {
    println!(
        "{} games x (2 players + {} spectators), {} s x {} round(s), merels on {:?}",
        r.games,
        r.spectators,
        r.seconds,
        r.rounds.len(),
        r.database
    );
    if r.computer_games > 0 {
        println!(
            "merels also hosts {} games against the computer (level {}, {} engine thread(s)): \
             {:.1} turns/s in them; merels's CPU includes the computer's",
            r.computer_games,
            r.computer_level,
            r.engine_threads,
            r.merels.computer_game_turns_per_s
        );
    }
    if r.image_clients > 0 {
        println!(
            "merels also draws pictures for {} clients: {:.1} pictures/s, {:.1} asks/s refused \
             (429), {} failed",
            r.image_clients,
            r.merels.images_per_s,
            r.merels.images_refused_per_s,
            r.merels.images_failed
        );
    }
    println!(
        "{:<9} {:>10} {:>8} {:>8} {:>9} {:>7} {:>10} {:>12} {:>6} {:>11} {:>10}",
        "server",
        "turns/s",
        "p50 ms",
        "p99 ms",
        "p99.9 ms",
        "errors",
        "RSS MiB",
        "idle B/conn",
        "CPU",
        "CPU us/turn",
        "turns/game"
    );
    let several = r
        .several
        .as_ref()
        .map(|s| (format!("merels x{}", s.instances), &s.figures));
    let rows = [
        ("merels".to_string(), &r.merels),
        ("bare".to_string(), &r.bare),
        ("durable".to_string(), &r.durable_bare),
    ];
    for (name, f) in rows
        .iter()
        .chain(several.as_ref())
        .map(|(n, f)| (n.as_str(), *f))
    {
        println!(
            "{:<9} {:>10.0} {:>8.2} {:>8.2} {:>9.2} {:>7} {:>10.1} {:>12} {:>6.2} {:>11.1} {:>10.1}",
            name,
            f.turns_per_s,
            f.p50_ms,
            f.p99_ms,
            f.p999_ms,
            f.errors,
            f.server_rss_bytes as f64 / 1_048_576.0,
            f.idle_bytes_per_client,
            f.server_cpu_cores,
            f.cpu_us_per_turn,
            f.turns_per_game
        );
    }
    println!("merels / bare turns per second: {:.2}", r.ratio_turns_per_s);
    if r.rounds.len() > 1 {
        let each: Vec<String> = r
            .rounds
            .iter()
            .map(|x| format!("{:.2}", x.ratio_turns_per_s))
            .collect();
        println!("  round by round: {}", each.join(", "));
    }
    println!(
        "bare / merels CPU per turn: {:.2} (the same, were the load generator never the limit)",
        r.ratio_cpu_per_turn
    );
    println!(
        "merels / durable bare turns per second: {:.2}; durable bare / merels CPU per turn: {:.2}",
        r.durable_ratio_turns_per_s, r.durable_ratio_cpu_per_turn
    );
    if let Some(several) = &r.several {
        println!(
            "merels x{n} / merels CPU per turn: {:.2} (what {n} instances cost, all CPU summed, \
             with clients on any of them)",
            several.cpu_over_one,
            n = several.instances
        );
        if let Some(bus) = several.bus_cpu_us_per_turn {
            println!("  of which the bus (nats-server): {bus:.1} µs per turn");
        }
    }
}
