//! The server's configuration: every setting is a flag and an environment variable (clap), with
//! the defaults a newcomer wants: `cargo run --release` serves on 0.0.0.0:8080 with an SQLite file
//! under `./data`.

use clap::{Args, ValueEnum};
use std::net::SocketAddr;
use std::time::Duration;

/// How logs are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object a line, for log collectors.
    Json,
}

/// `merels serve` settings.
#[derive(Debug, Clone, Args)]
pub struct Config {
    /// Address to listen on.
    #[arg(long, env = "MERELS_BIND", default_value = "0.0.0.0:8080")]
    pub bind: SocketAddr,

    /// Database: `sqlite:PATH` (created if missing) or `postgres://user@host/db`.
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite:data/merels.db")]
    pub database_url: String,

    /// Public base URL for share links, such as `https://merels.example.org` behind a proxy
    /// (default: taken from each request's Host header).
    #[arg(long, env = "MERELS_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// Log format.
    #[arg(long, env = "MERELS_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: LogFormat,

    /// Seconds a game with nobody connected stays in memory.
    #[arg(long, env = "MERELS_ROOM_IDLE_SECS", default_value_t = 60)]
    pub room_idle_secs: u64,

    /// Days after which an unfinished game nobody touched is closed as abandoned.
    #[arg(long, env = "MERELS_ABANDON_AFTER_DAYS", default_value_t = 30.0)]
    pub abandon_after_days: f64,

    /// Largest WebSocket message accepted, in bytes.
    #[arg(long, env = "MERELS_MAX_MESSAGE_BYTES", default_value_t = 4096)]
    pub max_message_bytes: usize,
}

/// Parses a [`Config`] on its own (for `merels` with no command).
#[derive(Debug, clap::Parser)]
struct Standalone {
    #[command(flatten)]
    config: Config,
}

impl Config {
    /// The configuration from the environment alone, with defaults for the rest.
    pub fn try_parse_from_env() -> Result<Config, clap::Error> {
        use clap::Parser;
        Standalone::try_parse_from(["merels"]).map(|s| s.config)
    }

    /// The defaults, bound to `bind` and using `database_url` (for tests and tools).
    pub fn new(bind: SocketAddr, database_url: &str) -> Config {
        Config {
            bind,
            database_url: database_url.to_string(),
            public_url: None,
            log_format: LogFormat::Text,
            room_idle_secs: 60,
            abandon_after_days: 30.0,
            max_message_bytes: 4096,
        }
    }

    /// How long an idle room stays.
    pub fn room_idle(&self) -> Duration {
        Duration::from_secs(self.room_idle_secs)
    }

    /// How long before an untouched game is abandoned.
    pub fn abandon_after(&self) -> Duration {
        Duration::from_secs_f64(self.abandon_after_days.max(0.0) * 86_400.0)
    }
}
