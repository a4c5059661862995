//! The `merels` command line: serve, list variants, count perft, list legal turns, the
//! computer's commands (`computer`), puzzles from a solved table (`puzzles`), and copies of the
//! database (`backup`). Errors name what is wrong (an unknown variant, option or value, a
//! malformed position, an illegal turn, a file that is no backup) and exit 1.

mod backup;
mod computer;
mod puzzles;
mod tune;
mod uci;

use crate::catalog::{Catalog, parse_options};
use crate::config::{Config, LogFormat};
use crate::rules::{Game, Variant};
use clap::{Args, Parser, Subcommand};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

/// Play the Morris family of board games: the rules engine's command line.
#[derive(Debug, Parser)]
#[command(name = "merels", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the site (the default when no command is given).
    Serve(Box<Config>),
    /// Ask a running server whether it is alive (exit 0) or not (exit 1): the container's
    /// health check, with no curl needed in the image.
    Health {
        /// The URL to ask; by default /healthz on the port of MERELS_BIND, on this host.
        #[arg(long)]
        url: Option<String>,
    },
    /// List the variants with their table options and defaults.
    Variants,
    /// Count the turn sequences of DEPTH plies (the count alone is the last line).
    Perft {
        #[command(flatten)]
        game: GameArgs,
        /// Print the count below each legal turn first.
        #[arg(long)]
        divide: bool,
        /// Plies to look ahead.
        depth: u32,
    },
    /// Print the legal turns, one a line, in notation.
    Moves {
        #[command(flatten)]
        game: GameArgs,
    },
    /// Solve a small board outright into a table file (docs/ENGINE.md).
    Solve(computer::SolveArgs),
    /// Print the computer's turn and its score (the exact value on a solved board).
    Best(computer::BestArgs),
    /// Play two levels against each other, colours alternating, and print the result and the
    /// Elo difference with its error bar.
    Match(computer::MatchArgs),
    /// Fit the evaluation's weights to games the engine plays itself, and print them
    /// (docs/ENGINE.md).
    Tune(tune::TuneArgs),
    /// Generate a small board's puzzles from its solved table, as JSON lines (docs/ENGINE.md).
    Puzzles(puzzles::PuzzlesArgs),
    /// Speak the UCI-style engine protocol on stdin and stdout (docs/ENGINE.md).
    Uci(uci::UciArgs),
    /// Write a consistent copy of the SQLite database to FILE, while a server serves it or not.
    Backup(backup::CopyArgs),
    /// Put a copy made by `merels backup` back as the SQLite database, while no server runs on
    /// it; the file it replaces is kept beside it.
    Restore(backup::CopyArgs),
}

/// Which variant: its slug and table options.
#[derive(Debug, Args)]
struct VariantArgs {
    /// The variant's slug (see `merels variants`).
    #[arg(long)]
    variant: String,
    /// A table option, KEY=VALUE; repeat for several.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

impl VariantArgs {
    fn variant(&self, catalog: &Catalog) -> Result<Arc<Variant>, String> {
        let mut choices = BTreeMap::new();
        for s in &self.set {
            if !s.contains('=') {
                return Err(format!("--set {s}: write KEY=VALUE"));
            }
            choices.extend(parse_options(s).map_err(|e| e.to_string())?);
        }
        catalog
            .configure(&self.variant, &choices)
            .map_err(|e| e.to_string())
    }
}

/// Which game to look at: a variant, its options, a start and turns played from it.
#[derive(Debug, Args)]
struct GameArgs {
    #[command(flatten)]
    variant: VariantArgs,
    /// A position string to start from instead of the variant's start (`- - 9/9 w`: its
    /// leading hyphen is not taken for a flag).
    #[arg(long, allow_hyphen_values = true)]
    position: Option<String>,
    /// Turns to play first, in notation, separated by spaces.
    #[arg(long)]
    moves: Option<String>,
}

impl GameArgs {
    fn game(&self, catalog: &Catalog) -> Result<Game, String> {
        let variant = self.variant.variant(catalog)?;
        let start = self
            .position
            .as_deref()
            .map(|p| variant.parse_position(p))
            .transpose()
            .map_err(|e| e.to_string())?;
        let turns: Vec<&str> = self
            .moves
            .as_deref()
            .map(|m| m.split_whitespace().collect())
            .unwrap_or_default();
        Game::replay(variant, start, &turns).map_err(|e| e.to_string())
    }
}

/// Runs the command line and returns the process's exit code.
pub fn main(args: impl IntoIterator<Item = impl Into<OsString> + Clone>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    // Only the listing commands write to stdout, so only they hold its lock: the server logs
    // from every worker thread, and `uci` answers from the thread that searches.
    let result = match cli.command {
        None | Some(Command::Serve(_) | Command::Uci(_)) => run(cli, &mut std::io::sink()),
        Some(_) => run(cli, &mut std::io::stdout().lock()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stops early (`| head`) is not an error of ours.
        Err(CliError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// What stops a command.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad input: an unknown variant, option or value, a malformed position, an illegal turn.
    #[error("{0}")]
    Input(String),
    /// Writing the output failed.
    #[error("writing the output: {0}")]
    Io(#[from] std::io::Error),
}

impl From<String> for CliError {
    fn from(message: String) -> Self {
        CliError::Input(message)
    }
}

/// `merels health`: a plain HTTP/1.0 GET with a short timeout; success is a 200.
fn health(url: Option<&str>) -> Result<(), CliError> {
    use std::io::Read;
    use std::net::{TcpStream, ToSocketAddrs};
    use std::time::Duration;
    let default = || {
        let bind = std::env::var("MERELS_BIND").unwrap_or_else(|_| "0.0.0.0:8080".into());
        let port = bind.rsplit(':').next().unwrap_or("8080").to_string();
        format!("http://127.0.0.1:{port}/healthz")
    };
    let url = url.map_or_else(default, str::to_string);
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| CliError::Input(format!("{url}: only http:// URLs")))?;
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let addr = authority
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| CliError::Input(format!("{authority}: not an address")))?;
    let timeout = Duration::from_secs(3);
    let mut stream = TcpStream::connect_timeout(&addr, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    write!(stream, "GET /{path} HTTP/1.0\r\nHost: {authority}\r\n\r\n")?;
    let mut response = String::new();
    stream.take(4096).read_to_string(&mut response)?;
    match response.split_whitespace().nth(1) {
        Some("200") => Ok(()),
        other => Err(CliError::Input(format!(
            "{url} answered {}",
            other.unwrap_or("nothing")
        ))),
    }
}

/// Starts logging and the runtime, then serves until SIGTERM or Ctrl-C.
fn serve(config: Config) -> Result<(), CliError> {
    // The WebSocket library logs whole frames at `trace`: whatever RUST_LOG says, it logs at
    // `info` at most, so that no log ever holds what players typed to each other.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"))
        .add_directive("tungstenite=info".parse().expect("a valid directive"))
        .add_directive("tokio_tungstenite=info".parse().expect("a valid directive"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout()));
    let _ = match config.log_format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
    // One worker thread means tokio's single-threaded scheduler (see docs/BENCHMARKS.md).
    let runtime = match config.worker_threads {
        1 => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?,
        0 => tokio::runtime::Runtime::new()?,
        n => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(n)
            .enable_all()
            .build()?,
    };
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.bind)
            .await
            .map_err(|e| CliError::Input(format!("cannot listen on {}: {e}", config.bind)))?;
        // Boxed where it is spawned, as every long-lived task is: it holds the server's state.
        Box::pin(crate::server::run(
            listener,
            config,
            crate::server::signal(),
        ))
        .await
        .map_err(|e| CliError::Input(e.to_string()))
    })
}

/// Runs a parsed command, writing its output to `out`.
pub fn run(cli: Cli, out: &mut impl Write) -> Result<(), CliError> {
    let catalog = Catalog::builtin();
    match cli.command {
        None => {
            // `merels` alone serves, with every setting from the environment or its default.
            let config =
                Config::try_parse_from_env().map_err(|e| CliError::Input(e.to_string()))?;
            serve(config)
        }
        Some(Command::Serve(config)) => serve(*config),
        Some(Command::Health { url }) => health(url.as_deref()),
        Some(Command::Variants) => {
            for info in catalog.variants() {
                writeln!(out, "{:<20} {}", info.slug(), info.title)?;
                for opt in &info.spec.options {
                    let values: Vec<&str> = opt.values.iter().map(|v| v.value.as_str()).collect();
                    writeln!(
                        out,
                        "    --set {}=<{}>  (default {})",
                        opt.key,
                        values.join("|"),
                        opt.default
                    )?;
                }
            }
            Ok(())
        }
        Some(Command::Perft {
            game,
            divide,
            depth,
        }) => {
            let game = game.game(catalog)?;
            let variant = game.variant();
            let pos = game.position();
            let total = if game.outcome().is_some() {
                u64::from(depth == 0)
            } else if divide {
                let mut total = 0;
                for (turn, n) in variant.divide(pos, depth) {
                    writeln!(out, "{}: {n}", variant.turn_string(turn))?;
                    total += n;
                }
                if depth > 0 {
                    writeln!(out)?;
                }
                total + u64::from(depth == 0)
            } else {
                variant.perft(pos, depth)
            };
            Ok(writeln!(out, "{total}")?)
        }
        Some(Command::Moves { game }) => {
            let game = game.game(catalog)?;
            for turn in game.legal_turns() {
                writeln!(out, "{}", game.variant().turn_string(turn))?;
            }
            Ok(())
        }
        Some(Command::Solve(args)) => computer::solve(catalog, &args, out),
        Some(Command::Best(args)) => computer::best(catalog, &args, out),
        Some(Command::Match(args)) => computer::play_match(catalog, &args, out),
        Some(Command::Puzzles(args)) => puzzles::run(catalog, &args, out),
        Some(Command::Tune(args)) => tune::run(catalog, &args, out),
        Some(Command::Uci(args)) => uci::run(catalog, &args),
        Some(Command::Backup(args)) => backup::backup(&args, out),
        Some(Command::Restore(args)) => backup::restore(&args, out),
    }
}
