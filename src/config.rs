//! The server's configuration: every setting is a flag and an environment variable (clap), with
//! the defaults a newcomer wants: `cargo run --release` serves on 0.0.0.0:8080 with an SQLite file
//! under `./data`.

use clap::{Args, ValueEnum};
use std::net::SocketAddr;
use std::time::Duration;

/// Where the data live unless told otherwise: an SQLite file below the working folder.
pub const DEFAULT_DATABASE_URL: &str = "sqlite:data/merels.db";

/// Seconds an open challenge stays listed after its creator's last connection closes, unless
/// told otherwise: long enough for a reload, short enough that nobody takes a seat opposite
/// someone who has gone.
pub const CHALLENGE_GRACE_SECS: f64 = 15.0;

/// Seconds an open challenge waits for an opponent before it is called off, unless told
/// otherwise.
pub const CHALLENGE_EXPIRY_SECS: f64 = 1800.0;

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
    #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
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

    /// Seconds a player with a real-time clock may be disconnected on their turn before the
    /// opponent may claim the win or a draw.
    #[arg(long, env = "MERELS_ABSENT_TIMED_SECS", default_value_t = 30.0)]
    pub absent_timed_secs: f64,

    /// The same for an untimed game.
    #[arg(long, env = "MERELS_ABSENT_UNTIMED_SECS", default_value_t = 120.0)]
    pub absent_untimed_secs: f64,

    /// Seconds an open challenge stays listed on the home page after its creator's last
    /// connection to it closes.
    #[arg(long, env = "MERELS_CHALLENGE_GRACE_SECS", default_value_t = CHALLENGE_GRACE_SECS)]
    pub challenge_grace_secs: f64,

    /// Seconds an open challenge waits for an opponent before it is called off (and unlisted).
    #[arg(long, env = "MERELS_CHALLENGE_EXPIRY_SECS", default_value_t = CHALLENGE_EXPIRY_SECS)]
    pub challenge_expiry_secs: f64,

    /// Days after which an unfinished game nobody touched is closed as abandoned.
    #[arg(long, env = "MERELS_ABANDON_AFTER_DAYS", default_value_t = 30.0)]
    pub abandon_after_days: f64,

    /// Largest WebSocket message accepted, in bytes.
    #[arg(long, env = "MERELS_MAX_MESSAGE_BYTES", default_value_t = 4096)]
    pub max_message_bytes: usize,

    /// Largest HTTP request body accepted, in bytes.
    #[arg(long, env = "MERELS_MAX_BODY_BYTES", default_value_t = 16384)]
    pub max_body_bytes: usize,

    /// WebSocket messages per second one connection may send (bursts of twice that pass).
    #[arg(long, env = "MERELS_MESSAGES_PER_SEC", default_value_t = 20)]
    pub messages_per_sec: u32,

    /// Games one IP address may create per minute.
    #[arg(long, env = "MERELS_GAMES_PER_MINUTE", default_value_t = 10)]
    pub games_per_minute: u32,

    /// Of those, games against the computer one IP address may start per hour.
    #[arg(long, env = "MERELS_COMPUTER_GAMES_PER_HOUR", default_value_t = 30)]
    pub computer_games_per_hour: u32,

    /// Searches the computer may run at once (each on a thread of its own); more wait.
    #[arg(long, env = "MERELS_ENGINE_THREADS", default_value_t = 1)]
    pub engine_threads: usize,

    /// The folder of the computer's solved tables of the small boards, built there on first use.
    #[arg(long, env = "MERELS_TABLES", default_value = "data/tables")]
    pub tables: Option<std::path::PathBuf>,

    /// Analyses that may run at once, on threads of their own (never the computer's).
    #[arg(long, env = "MERELS_ANALYSIS_THREADS", default_value_t = 1)]
    pub analysis_threads: usize,

    /// Analyses one IP address may have under way at once.
    #[arg(long, env = "MERELS_ANALYSES_PER_IP", default_value_t = 2)]
    pub analyses_per_ip: u32,

    /// Open WebSocket connections one IP address may have.
    #[arg(long, env = "MERELS_CONNECTIONS_PER_IP", default_value_t = 64)]
    pub connections_per_ip: u32,

    /// TCP connections the server holds open at once (kept under the limit of open files;
    /// the host itself may open a few more, for its health checks).
    #[arg(long, env = "MERELS_MAX_CONNECTIONS", default_value_t = 16384)]
    pub max_connections: u32,

    /// TCP connections one address (an IPv6 /64) may hold open; not applied behind a proxy
    /// (`--trust-forwarded-for`), whose own address every connection has.
    #[arg(long, env = "MERELS_TCP_CONNECTIONS_PER_IP", default_value_t = 256)]
    pub tcp_connections_per_ip: u32,

    /// TCP connections one subnet (an IPv4 /24, an IPv6 /48) may hold open; not applied behind
    /// a proxy.
    #[arg(
        long,
        env = "MERELS_TCP_CONNECTIONS_PER_SUBNET",
        default_value_t = 1024
    )]
    pub tcp_connections_per_subnet: u32,

    /// Seconds a client has to send a request's headers; also how long a kept-alive connection
    /// may sit idle between requests.
    #[arg(long, env = "MERELS_HEADER_TIMEOUT_SECS", default_value_t = 10.0)]
    pub header_timeout_secs: f64,

    /// The token `/metrics` asks for (`Authorization: Bearer TOKEN`); without one set, only the
    /// host itself may read `/metrics`.
    #[arg(long, env = "MERELS_METRICS_TOKEN", hide_env_values = true)]
    pub metrics_token: Option<String>,

    /// Seconds a "continue on another device" link works (once).
    #[arg(long, env = "MERELS_HANDOFF_SECS", default_value_t = 600)]
    pub handoff_secs: u64,

    /// Origins (such as `https://merels.example.org`) whose pages may open game sockets, comma
    /// separated; the site's own origin is always allowed.
    #[arg(long, env = "MERELS_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub allowed_origins: Vec<String>,

    /// Seconds between the server's pings on each WebSocket. A connection that sends nothing, not
    /// even the answer to a ping, for three times this is closed: a client that vanished without
    /// closing (a sleeping laptop, a lost network) stops counting as present.
    #[arg(long, env = "MERELS_WS_PING_SECS", default_value_t = 20.0)]
    pub ws_ping_secs: f64,

    /// Seconds an HTTP request may take.
    #[arg(long, env = "MERELS_REQUEST_TIMEOUT_SECS", default_value_t = 10)]
    pub request_timeout_secs: u64,

    /// Take the client's address from X-Forwarded-For (only behind a proxy that sets it).
    #[arg(long, env = "MERELS_TRUST_FORWARDED_FOR")]
    pub trust_forwarded_for: bool,

    /// Where this instance serves the other instances on the same PostgreSQL database (each
    /// forwards there what this one owns): loopback unless told, so name the private address
    /// the other instances reach (never a public one). Not opened with SQLite.
    #[arg(long, env = "MERELS_INTERNAL_BIND", default_value = "127.0.0.1:8081")]
    pub internal_bind: SocketAddr,

    /// The address the other instances reach the internal one at, `host:port` (default: the
    /// internal bind address, with this host's name for an unspecified IP).
    #[arg(long, env = "MERELS_INTERNAL_ADDR")]
    pub internal_addr: Option<String>,

    /// Seconds an instance's hold on its games lasts without renewal (renewed every third of
    /// it): how long the games of an instance that died stay stalled before another takes them.
    #[arg(long, env = "MERELS_LEASE_SECS", default_value_t = 10.0)]
    pub lease_secs: f64,

    /// The NATS server the instances on one PostgreSQL database share (`nats://host:port`):
    /// each instance then keeps the sockets that reach it, whichever instance owns their game,
    /// and the owner sends each change once to each instance with viewers. Without it, sockets
    /// are forwarded to the owner. Unused with SQLite.
    /// Credentials go in the URL (`nats://user:password@host:port`, or `nats://token@host`),
    /// and `tls://` asks for TLS.
    #[arg(long, env = "MERELS_NATS_URL", hide_env_values = true)]
    pub nats_url: Option<String>,

    /// Where clients can reach this instance itself, past the load balancer, such as
    /// `https://a.merels.example` (with PostgreSQL, several instances). A game's socket that
    /// reaches another instance is then told to reconnect here when this one owns the game
    /// (`moved`), so that the owner serves its clients itself and no change crosses between
    /// instances. Seat cookies must reach every instance: see `--cookie-domain`.
    #[arg(long, env = "MERELS_DIRECT_URL", value_parser = http_url)]
    pub direct_url: Option<String>,

    /// The domain seat cookies are set for, such as `merels.example` when the instances'
    /// direct addresses are its subdomains (default: the host that set them, alone).
    #[arg(long, env = "MERELS_COOKIE_DOMAIN")]
    pub cookie_domain: Option<String>,

    /// Worker threads of the runtime: 0 for one per core, 1 for the single-threaded scheduler.
    #[arg(long, env = "MERELS_WORKER_THREADS", default_value_t = 0)]
    pub worker_threads: usize,

    /// Seconds a graceful shutdown may take before the server exits anyway.
    #[arg(long, env = "MERELS_SHUTDOWN_TIMEOUT_SECS", default_value_t = 10)]
    pub shutdown_timeout_secs: u64,
}

/// An `http://` or `https://` base URL, kept without a trailing slash.
fn http_url(value: &str) -> Result<String, String> {
    let url = value.trim().trim_end_matches('/');
    let host = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    match host {
        Some(host)
            if !host.is_empty()
                && host
                    .chars()
                    .all(|c| c.is_ascii_graphic() && !"/?#;,'\"".contains(c)) =>
        {
            Ok(url.to_string())
        }
        _ => Err(format!(
            "{value:?} is not a base URL such as https://a.merels.example"
        )),
    }
}

/// Parses a [`Config`] on its own (for `merels` with no command).
#[derive(Debug, clap::Parser)]
struct Standalone {
    #[command(flatten)]
    config: Config,
}

impl Config {
    /// Whether the site is served over HTTPS (its public URL says so): seat cookies are then
    /// `Secure` and answers carry HSTS.
    pub fn https(&self) -> bool {
        self.public_url
            .as_deref()
            .and_then(|u| u.get(..8))
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://"))
    }

    /// The configuration from the environment alone, with defaults for the rest.
    pub fn try_parse_from_env() -> Result<Config, clap::Error> {
        use clap::Parser;
        Standalone::try_parse_from(["merels"]).map(|s| s.config)
    }

    /// The defaults, bound to `bind` and using `database_url` (for tests and tools). The
    /// defaults are clap's, written once on the flags above; the environment is not read, so a
    /// test or a tool gets the same configuration wherever it runs.
    pub fn new(bind: SocketAddr, database_url: &str) -> Config {
        use clap::{CommandFactory, FromArgMatches};
        let command = Standalone::command().mut_args(|arg| arg.env(None::<&'static str>));
        let matches = command
            .try_get_matches_from(["merels"])
            .expect("every setting has a default");
        let mut config = Standalone::from_arg_matches(&matches)
            .expect("the defaults are settings")
            .config;
        config.bind = bind;
        config.database_url = database_url.to_string();
        // No tables folder: a test or tool that wants the solved tables names one, rather than
        // building them below whatever folder it runs in.
        config.tables = None;
        // Beside the public address, on a port of its own, so that several can run at once.
        config.internal_bind = SocketAddr::new(bind.ip(), 0);
        config
    }

    /// How long an instance's hold on its games lasts without renewal.
    pub fn lease(&self) -> Duration {
        Duration::from_secs_f64(self.lease_secs.max(0.3))
    }

    /// How often the server pings a WebSocket, and how long a silent one lasts.
    pub fn ws_ping(&self) -> (Duration, Duration) {
        let every = Duration::from_secs_f64(self.ws_ping_secs.max(0.05));
        (every, every * 3)
    }

    /// How long a client may take to send a request's headers, or sit idle between requests.
    pub fn header_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.header_timeout_secs.max(0.05))
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

#[cfg(test)]
mod tests {
    use super::{Standalone, http_url};

    /// The instances' port listens on loopback unless a self-hoster names the private address:
    /// never on every interface by default (issue 47, finding 1).
    #[test]
    fn the_internal_address_is_loopback_unless_told() {
        use clap::CommandFactory;
        let command = Standalone::command();
        let default = command
            .get_arguments()
            .find(|arg| arg.get_id() == "internal_bind")
            .and_then(|arg| arg.get_default_values().first())
            .and_then(|value| value.to_str()?.parse::<std::net::SocketAddr>().ok())
            .expect("--internal-bind has a default address");
        assert!(default.ip().is_loopback(), "{default}");
    }

    #[test]
    fn a_direct_url_is_a_base_url() {
        assert_eq!(
            http_url("https://a.merels.example/").as_deref(),
            Ok("https://a.merels.example")
        );
        assert_eq!(
            http_url("http://127.0.0.1:8080").as_deref(),
            Ok("http://127.0.0.1:8080")
        );
        for wrong in [
            "a.merels.example",
            "ws://a",
            "https://",
            "https://a/b",
            "ftp://a",
            "https://a b",
            "https://a;b",
        ] {
            assert!(http_url(wrong).is_err(), "{wrong}");
        }
    }
}
