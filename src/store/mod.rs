//! All SQL: the games and their turns, in SQLite (the default, one file in WAL mode) or
//! PostgreSQL (`postgres://...`), behind one interface. Migrations are embedded from
//! `migrations/<backend>/`, with the same version numbers for both.
//!
//! Reads go straight to the pool (a game here, the lists the pages and the sweep want in
//! `lists`). Writes ([`WriteOp`], each written by its own function in `ops`, behind the one
//! fence in `tx`) go through one writer task (`writer`) that commits the waiting writes of many
//! games in one transaction and only then acknowledges each: a turn is durable before anyone
//! hears of it, and durability costs one commit per batch, not per turn.
//! Every write of a game carries the epoch of the instance that owns it ([`owners`]), and the
//! SQL refuses one from an owner that has been replaced.

pub mod backup;
mod error;
mod ops;
mod tx;
mod write_op;
mod writer;

use crate::metrics::Metrics;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{ConnectOptions, Connection};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

pub use error::StoreError;
pub use write_op::{OfferKind, SeatColumn, WriteOp};
pub use writer::WriterStats;

/// The SQLite writer's page cache, in KiB (SQLite's negative `cache_size`): 32 MiB, a few times
/// what the largest batch dirties, so that a batch never spills pages to the log before its commit.
const WRITER_CACHE_KIB: &str = "-32768";

/// How long a request waits for a PostgreSQL connection while the server cannot be reached
/// (sqlx retries the connection meanwhile). Half the default request timeout: through an outage
/// a client hears `unavailable`, said as one, rather than its request timing out.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a PostgreSQL connection may sit idle in the pool before it is pinged on its way out.
const PING_IF_IDLE: Duration = Duration::from_secs(1);

/// Runs the same code against whichever pool the store has: the SQL is written once, and sqlx's
/// types are checked for each backend.
macro_rules! on_pool {
    ($backend:expr, $pool:ident => $body:expr) => {
        match $backend {
            Backend::Sqlite($pool) => $body,
            Backend::Postgres($pool) => $body,
        }
    };
}
pub(crate) use on_pool;

// After the macro: it is textually scoped.
mod chat;
mod handoff;
mod holders;
mod lists;
pub mod owners;
mod puzzles;
mod records;

pub use chat::ChatRow;
pub use handoff::{HANDOFF_CODES_PER_GAME, HandoffRow};
pub use holders::HeldSeat;
pub use lists::{CHALLENGES_PER_ADDRESS, Challenge, LiveGame};
pub use puzzles::{Attempt, PuzzleRow};
use records::{GameRecord, TurnRecord};

/// The database behind the store.
#[derive(Debug, Clone)]
pub(crate) enum Backend {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// A game as stored, without its turns.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GameRow {
    /// The public id.
    pub id: String,
    /// The variant's slug.
    pub variant: String,
    /// The table options, `key=value,...`.
    pub options: String,
    /// The time control, as [`crate::clock::TimeControl`] writes it.
    pub time_control: String,
    /// Hex SHA-256 of White's seat secret; `None` while the seat is empty.
    pub white_secret_hash: Option<String>,
    /// Hex SHA-256 of Black's seat secret; `None` while the seat is empty.
    pub black_secret_hash: Option<String>,
    /// `waiting`, `playing` or `finished`.
    pub status: String,
    /// `1-0`, `0-1`, `1/2-1/2`, `*` once finished.
    pub result: Option<String>,
    /// The termination's record wording once finished.
    pub termination: Option<String>,
    /// When it was created.
    pub created_at: i64,
    /// When it last changed other than by a turn (turns carry their own times).
    pub updated_at: i64,
    /// Bumped by every write to the game other than a plain turn; with the number of stored
    /// turns, the version its states carry ([`StoredGame::version`]).
    pub version: i64,
    /// The clocks as of a moment that was not a turn (the start, a takeback, the end).
    pub clock: Option<ClockRow>,
    /// The side with a pending draw offer, and the ply it was made at.
    pub draw_offer: Option<(String, i64)>,
    /// The side with a pending takeback request, and the ply it was made at.
    pub takeback_offer: Option<(String, i64)>,
    /// After the end: the side that asked for a rematch.
    pub rematch_offer: Option<String>,
    /// The rematch's id, once it has started.
    pub rematch_id: Option<String>,
    /// Anyone may take the empty seat: listed among the open challenges while it waits.
    pub open_challenge: bool,
    /// An open challenge is listed until then (Unix ms): renewed while its creator is
    /// connected, so that it lapses a short grace after they leave. `None` for other games.
    pub listed_until: Option<i64>,
    /// The hash of the address that made an open challenge (how many one address lists is
    /// capped); `None` for other games.
    pub created_from: Option<String>,
    /// The instance running the game's room, if one has taken it ([`owners`]).
    pub owner: Option<String>,
    /// Grows with every new owner; the store takes a write of the game only from the owner
    /// that holds the current epoch.
    pub epoch: i64,
    /// The name White's player gave, if any (as the protocol's `PlayerName` checked it).
    pub white_name: Option<String>,
    /// The name Black's player gave, if any.
    pub black_name: Option<String>,
}

/// Both clocks as of a moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockRow {
    /// White's time left, milliseconds.
    pub white_ms: i64,
    /// Black's time left, milliseconds.
    pub black_ms: i64,
    /// The moment, Unix milliseconds.
    pub at: i64,
}

/// A stored turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnRow {
    /// 0-based ply.
    pub ply: i64,
    /// The turn in notation.
    pub notation: String,
    /// When it was stored: when the next turn began.
    pub played_at: i64,
    /// In a timed game, both clocks (White's, Black's) right after the turn.
    pub clock: Option<[i64; 2]>,
}

/// A game with its turns in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredGame {
    /// The game.
    pub game: GameRow,
    /// Its turns, by ply.
    pub turns: Vec<TurnRow>,
}

impl StoredGame {
    /// The game's version: one for every write that took effect, never going back.
    pub fn version(&self) -> i64 {
        self.game.version + self.turns.len() as i64
    }
}

/// How a game ended, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameEnd {
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// The termination's record wording.
    pub termination: String,
}

/// The store: a pool for reads and the writer for writes. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Store {
    backend: Backend,
    writes: mpsc::Sender<writer::Request>,
    stats: std::sync::Arc<WriterStats>,
    /// When no server was running, as recorded when this server started: (began, ended).
    outages: Arc<[(i64, i64)]>,
    /// An SQLite file's lock, held until [`Store::close`] (or the last clone is dropped).
    file_lock: Arc<std::sync::Mutex<Option<std::fs::File>>>,
}

/// How often a running server records that it is alive ([`Store::beat`]). A start after a
/// silence of more than twice this records the silence as an outage; so at most this much of
/// an outage (the time since the last beat) is charged to a clock.
pub const BEAT: Duration = Duration::from_secs(2);

/// Whether `url` names a PostgreSQL database (else it should be `sqlite:PATH`).
fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

impl Store {
    /// Connects to `url` (`sqlite:PATH` or `postgres://...`), creates an SQLite file and its
    /// folder when missing, runs the migrations and starts the writer. The writer stops when every
    /// clone of the store is dropped, after committing what it was given.
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        Store::open(url, std::sync::Arc::new(Metrics::new())).await
    }

    /// [`Store::connect`], recording into the server's metrics.
    pub async fn open(url: &str, metrics: std::sync::Arc<Metrics>) -> Result<Store, StoreError> {
        let mut file_lock = None;
        let (backend, writer) = if is_postgres(url) {
            let options =
                PgConnectOptions::from_str(url)?.log_statements(tracing::log::LevelFilter::Trace);
            // A server connection can go stale (the server restarted, a proxy dropped it),
            // so one that has sat idle is pinged before use. One in steady use is not: the
            // ping is a round trip of its own, as dear as the query it would guard, and a
            // request for a game owned elsewhere is one such query.
            let pool = |connections| {
                PgPoolOptions::new()
                    .max_connections(connections)
                    .acquire_timeout(ACQUIRE_TIMEOUT)
                    .test_before_acquire(false)
                    .before_acquire(|conn, meta| {
                        Box::pin(async move {
                            if meta.idle_for >= PING_IF_IDLE {
                                conn.ping().await?;
                            }
                            Ok(true)
                        })
                    })
                    .connect_with(options.clone())
            };
            let readers = pool(8).await?;
            sqlx::migrate!("migrations/postgres").run(&readers).await?;
            // The writer keeps a connection of its own (see the SQLite case).
            let writer = pool(1).await?;
            (Backend::Postgres(readers), Backend::Postgres(writer))
        } else if url.starts_with("sqlite:") {
            let options = SqliteConnectOptions::from_str(url)?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                // FULL: a commit survives power loss, not just a crash of this process.
                .synchronous(SqliteSynchronous::Full)
                .busy_timeout(Duration::from_secs(10))
                .foreign_keys(true)
                // The statement journal of a multi-row insert lives in memory, not a temp file;
                // and the write-ahead log is folded into the database every 10,000 pages rather
                // than 1,000, so that a page written by many batches is copied back once.
                .pragma("temp_store", "memory")
                .pragma("wal_autocheckpoint", "10000")
                .log_statements(tracing::log::LevelFilter::Trace);
            if let Some(dir) = options.get_filename().parent()
                && !dir.as_os_str().is_empty()
            {
                std::fs::create_dir_all(dir).map_err(|e| StoreError::Folder {
                    path: dir.display().to_string(),
                    source: Arc::new(e),
                })?;
            }
            file_lock = owners::lock_sqlite_file(options.get_filename())?;
            // The file does not go stale the way a server connection can: no ping before use
            // and no reaping, so an idle pool does no work and keeps no timers of its own.
            let pool = |connections, options: SqliteConnectOptions| {
                SqlitePoolOptions::new()
                    .max_connections(connections)
                    .test_before_acquire(false)
                    .idle_timeout(None)
                    .max_lifetime(None)
                    .connect_with(options)
            };
            let readers = pool(4, options.clone()).await?;
            sqlx::migrate!("migrations/sqlite").run(&readers).await?;
            // The writer has a connection of its own, which it keeps. SQLite empties a
            // connection's page cache whenever another connection has written since its last
            // transaction; with one writer, its cache of the tables it keeps extending stays
            // warm. The cache is large enough for every page a batch dirties: were it to fill
            // mid-batch, SQLite would spill pages to the log and, at commit, write them again
            // and read the log back to checksum it anew.
            let writer = pool(1, options.pragma("cache_size", WRITER_CACHE_KIB)).await?;
            (Backend::Sqlite(readers), Backend::Sqlite(writer))
        } else {
            return Err(StoreError::BadUrl(url.chars().take(60).collect()));
        };
        let stats = std::sync::Arc::new(WriterStats::default());
        let writes = writer::spawn(writer, stats.clone(), metrics);
        Ok(Store {
            backend,
            writes,
            stats,
            outages: Arc::new([]),
            file_lock: Arc::new(std::sync::Mutex::new(file_lock)),
        })
    }

    /// Called once by a server as it starts, at `now`: the time since the last heartbeat becomes
    /// an outage if it is longer than two beats (a server stopped or was killed, and none ran
    /// since); then this server beats, and every outage recorded is read for
    /// [`Store::downtime_since`]. With SQLite, the instances recorded before are forgotten.
    pub async fn started(&mut self, now: i64) -> Result<(), StoreError> {
        self.outages = outages_at_start(&self.backend, now).await?;
        if let Backend::Sqlite(_) = self.backend {
            // This process holds the file: any instance recorded before it is gone (killed),
            // and its games need not wait for its lease to lapse.
            self.forget_instances().await?;
        }
        Ok(())
    }

    /// Records that a server is alive at `now` (every [`BEAT`], and as it stops).
    pub async fn beat(&self, now: i64) -> Result<(), StoreError> {
        on_pool!(&self.backend, pool => {
            sqlx::query("UPDATE heartbeat SET alive_at = $1 WHERE id = 1")
                .bind(now)
                .execute(pool)
                .await?;
        });
        Ok(())
    }

    /// How long no server ran between `since` and this server's start: the part of a clock's
    /// running time since `since` that is charged to nobody.
    pub fn downtime_since(&self, since: i64) -> i64 {
        self.outages
            .iter()
            .map(|&(began, ended)| (ended - began.max(since)).max(0))
            .sum()
    }

    /// Which backend: `sqlite` or `postgres`.
    pub fn backend_name(&self) -> &'static str {
        match self.backend {
            Backend::Sqlite(_) => "sqlite",
            Backend::Postgres(_) => "postgres",
        }
    }

    /// The writer's counters (batches, writes, commit time).
    pub fn stats(&self) -> &WriterStats {
        &self.stats
    }

    /// Applies one write through the writer and waits for its commit: true if it took effect,
    /// false if it lost to an earlier write (a taken seat, a taken ply, a finished game).
    pub async fn write(&self, op: WriteOp) -> Result<bool, StoreError> {
        let (done, result) = oneshot::channel();
        // A slot first, then the write into it: a `send` future would hold a second copy of
        // the write while it waits, and this future is made for every turn.
        self.writes
            .reserve()
            .await
            .map_err(|_| StoreError::Closed)?
            .send(writer::Request { op, done });
        result.await.map_err(|_| StoreError::Closed)?
    }

    /// Closes the pool after the writes in flight (graceful shutdown). SQLite checkpoints its
    /// write-ahead log when the last connection closes.
    pub async fn close(&self) {
        on_pool!(&self.backend, pool => pool.close().await);
        if let Ok(mut lock) = self.file_lock.lock() {
            lock.take();
        }
    }

    /// Whether the database answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        on_pool!(&self.backend, pool => {
            sqlx::query("SELECT 1").execute(pool).await?;
        });
        Ok(())
    }

    /// A game and its turns, or `None` if there is no such game.
    pub async fn load(&self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        on_pool!(&self.backend, pool => {
            let game: Option<GameRecord> = sqlx::query_as(
                "SELECT id, variant, options, time_control, white_secret_hash, black_secret_hash, \
                 status, result, termination, created_at, updated_at, version, clock_white_ms, \
                 clock_black_ms, clock_at, draw_offer_by, draw_offer_ply, takeback_offer_by, \
                 takeback_offer_ply, rematch_offer_by, rematch_id, open_challenge, listed_until, \
                 created_from, owner, epoch, white_name, black_name FROM games WHERE id = $1",
            )
            .bind(id)
            .fetch_optional(pool)
            .await?;
            let Some(game) = game else { return Ok(None) };
            let turns: Vec<TurnRecord> = sqlx::query_as(
                "SELECT ply, notation, played_at, white_ms, black_ms FROM turns \
                 WHERE game_id = $1 ORDER BY ply",
            )
            .bind(id)
            .fetch_all(pool)
            .await?;
            Ok(Some(StoredGame {
                game: game.into(),
                turns: turns.into_iter().map(TurnRow::from).collect(),
            }))
        })
    }
}

/// [`Store::started`]'s work: the outage before `now`, if any, recorded; every outage read.
async fn outages_at_start(backend: &Backend, now: i64) -> Result<Arc<[(i64, i64)]>, StoreError> {
    on_pool!(backend, pool => {
        let last: Option<(i64,)> = sqlx::query_as("SELECT alive_at FROM heartbeat WHERE id = 1")
            .fetch_optional(pool)
            .await?;
        if let Some((alive_at,)) = last
            && now - alive_at > 2 * BEAT.as_millis() as i64
        {
            sqlx::query("INSERT INTO outages (began_at, ended_at) VALUES ($1, $2)")
                .bind(alive_at)
                .bind(now)
                .execute(pool)
                .await?;
        }
        // The first start makes the row that every beat after updates.
        sqlx::query(
            "INSERT INTO heartbeat (id, alive_at) VALUES (1, $1) \
             ON CONFLICT (id) DO UPDATE SET alive_at = excluded.alive_at",
        )
        .bind(now)
        .execute(pool)
        .await?;
        let rows: Vec<(i64, i64)> =
            sqlx::query_as("SELECT began_at, ended_at FROM outages ORDER BY began_at")
                .fetch_all(pool)
                .await?;
        Ok(rows.into())
    })
}
