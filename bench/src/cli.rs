//! The `merels-bench` command line: the benchmark (the default), `chaos` and `hostile`; and, hidden,
//! the servers they start as child processes of this very binary: merels itself, and the bare
//! broadcast server it is measured against (durable or not).

use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::net::SocketAddr;
use std::process::ExitCode;

/// Measure merels against a bare WebSocket broadcast server (docs/BENCHMARKS.md), or attack it
/// (docs/SECURITY.md).
#[derive(Debug, Parser)]
#[command(
    name = "merels-bench",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    bench: crate::BenchArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Kill a server again and again while it is played, then check that nothing was lost.
    Chaos(crate::chaos::ChaosArgs),
    /// Send a server every kind of bad input and a flood of idle connections while a game plays,
    /// then check that nothing changed and nothing broke.
    Hostile(crate::hostile::HostileArgs),
    /// The merels server, configured by the environment as `merels serve` is: the same library,
    /// so that what is measured is what is served.
    #[command(hide = true)]
    Serve,
    /// The bare broadcast server that the benchmark measures against, durable with `--log`.
    #[command(hide = true)]
    Bare {
        /// Address to listen on.
        #[arg(long)]
        bind: SocketAddr,
        /// The lengths of games, in plies, comma-separated: each game created ends after the next.
        #[arg(long, value_delimiter = ',', required = true)]
        plies: Vec<usize>,
        /// Durable: append each turn to this file, `fsync`ed per batch, before it is heard.
        #[arg(long)]
        log: Option<std::path::PathBuf>,
    },
}

/// Parses `args` and runs the command; a failure is printed and exits 1.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        None => crate::run(cli.bench),
        Some(Command::Chaos(args)) => crate::chaos::run(args),
        Some(Command::Hostile(args)) => crate::hostile::run(args),
        Some(Command::Serve) => return merels::cli::main(["merels", "serve"].map(OsString::from)),
        Some(Command::Bare { bind, plies, log }) => crate::bare::serve(bind, plies, log),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("merels-bench: {e}");
            ExitCode::FAILURE
        }
    }
}
