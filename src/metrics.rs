//! What `/metrics` reports, in Prometheus text format: connections, games in memory and by
//! status, turns accepted and rejected, the latency from a turn's arrival to its broadcast, the
//! database's commit latency, and every abuse limit that was hit. One [`Metrics`] per server,
//! shared by the store, the rooms and the transports.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// A label naming one thing: a status, a reason, a limit.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct Kind {
    /// The value.
    pub kind: String,
}

impl Kind {
    fn of(kind: &str) -> Kind {
        Kind {
            kind: kind.to_string(),
        }
    }
}

/// Every metric of the server.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    /// Open WebSocket connections.
    pub connections: Gauge,
    /// Games with a room in memory.
    pub games_in_memory: Gauge,
    /// Stored games by status (set when scraped).
    pub games: Family<Kind, Gauge>,
    /// Turns stored and broadcast.
    pub turns_accepted: Counter,
    /// Turns refused, by error code.
    pub turns_rejected: Family<Kind, Counter>,
    /// Seconds from a turn's arrival to its broadcast.
    pub turn_latency: Histogram,
    /// Seconds per database transaction of the group-commit writer.
    pub commit_latency: Histogram,
    /// Writes per transaction.
    pub batch_size: Histogram,
    /// Abuse limits hit, by limit.
    pub limits: Family<Kind, Counter>,
    /// Messages a slow connection skipped: its queue was full, and the whole state replaced
    /// them.
    pub messages_skipped: Counter,
    /// Writes the store refused because the game was not where the writer saw it (another
    /// writer got there first): each made its room reload the game.
    pub store_refusals: Counter,
    /// Games this instance took to run their rooms (a game it made is not counted).
    pub games_taken: Counter,
    /// Rooms that ended because another instance had taken their game.
    pub rooms_fenced: Counter,
    /// Times this instance found its lease lapsed and ended its rooms.
    pub lease_lapses: Counter,
    /// Requests and sockets served by forwarding them to the game's owner.
    pub forwarded: Counter,
    /// Sockets served here, over the bus, for games another instance owns.
    pub relayed: Counter,
    /// Sockets told to reconnect to their game's owner at its own address (`moved`).
    pub moved: Counter,
    /// Analyses answered, by how: `computed`, or `kept` from an earlier ask.
    pub analyses: Family<Kind, Counter>,
    /// Solved tables built (begun).
    pub table_builds: Counter,
    /// Solved tables being built now (one at most).
    pub table_builds_running: Gauge,
    /// Solved tables waiting to be built or read.
    pub table_builds_waiting: Gauge,
    /// Messages on the bus refused: not sealed with the instances' key, or replayed.
    pub bus_refused: Counter,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// A fresh set, registered.
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("merels");
        let m = Metrics {
            registry: Registry::default(),
            connections: Gauge::default(),
            games_in_memory: Gauge::default(),
            games: Family::default(),
            turns_accepted: Counter::default(),
            turns_rejected: Family::default(),
            turn_latency: Histogram::new(exponential_buckets(0.0001, 2.0, 16)),
            commit_latency: Histogram::new(exponential_buckets(0.0001, 2.0, 16)),
            batch_size: Histogram::new(exponential_buckets(1.0, 2.0, 11)),
            limits: Family::default(),
            messages_skipped: Counter::default(),
            store_refusals: Counter::default(),
            games_taken: Counter::default(),
            rooms_fenced: Counter::default(),
            lease_lapses: Counter::default(),
            forwarded: Counter::default(),
            relayed: Counter::default(),
            moved: Counter::default(),
            analyses: Family::default(),
            table_builds: Counter::default(),
            table_builds_running: Gauge::default(),
            table_builds_waiting: Gauge::default(),
            bus_refused: Counter::default(),
        };
        // Each metric's name (after the `merels_` prefix) and help, beside its field.
        macro_rules! register {
            ($($field:ident: $name:literal, $help:literal;)*) => {
                $(registry.register($name, $help, m.$field.clone());)*
            };
        }
        register! {
            connections: "connections_open", "Open WebSocket connections";
            games_in_memory: "games_in_memory", "Games with a room in memory";
            games: "games", "Stored games by status";
            turns_accepted: "turns_accepted", "Turns stored and broadcast";
            turns_rejected: "turns_rejected", "Turns refused, by reason";
            turn_latency: "turn_latency_seconds", "Seconds from a turn's arrival to its broadcast";
            commit_latency: "db_commit_seconds", "Seconds per transaction of the group-commit writer";
            batch_size: "db_batch_writes", "Writes per transaction";
            limits: "limit_violations", "Abuse limits hit, by limit";
            messages_skipped: "messages_skipped", "Messages a slow connection skipped, replaced by the whole state";
            store_refusals: "store_refusals", "Writes the store refused as stale (another writer was first); each reloaded its game";
            games_taken: "games_taken", "Games this instance took to run their rooms";
            rooms_fenced: "rooms_fenced", "Rooms ended because another instance had taken their game";
            lease_lapses: "lease_lapses", "Times this instance found its lease lapsed and ended its rooms";
            forwarded: "forwarded", "Requests and sockets forwarded to the instance that owns their game";
            relayed: "relayed", "Sockets served here, over the bus, for games another instance owns";
            moved: "moved", "Sockets told to reconnect to their game's owner at its own address";
            analyses: "analyses", "Analyses answered, by how: computed, or kept from an earlier ask";
            table_builds: "table_builds", "Solved tables built (begun)";
            table_builds_running: "table_builds_running", "Solved tables being built now";
            table_builds_waiting: "table_builds_waiting", "Solved tables waiting to be built or read";
            bus_refused: "bus_refused", "Messages on the bus refused: not sealed with the instances' key, or replayed";
        }
        Metrics { registry, ..m }
    }

    /// Counts a refused turn.
    pub fn rejected(&self, reason: &str) {
        self.turns_rejected.get_or_create(&Kind::of(reason)).inc();
    }

    /// Counts a hit limit.
    pub fn limit(&self, limit: &str) {
        self.limits.get_or_create(&Kind::of(limit)).inc();
    }

    /// Counts an analysis answered, by how.
    pub fn analysed(&self, how: &str) {
        self.analyses.get_or_create(&Kind::of(how)).inc();
    }

    /// Sets the number of stored games with a status.
    pub fn set_games(&self, status: &str, n: i64) {
        self.games.get_or_create(&Kind::of(status)).set(n);
    }

    /// The text exposition.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}
