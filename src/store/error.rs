//! Why the store failed ([`StoreError`]), and which of its failures are outages of the database
//! (waited out, said to clients as `unavailable`) rather than faults in what was asked.

use std::sync::Arc;

/// Why the store failed. Callers treat every kind as "nothing was written". Cheap to clone:
/// one failed batch fails every write in it.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// The `DATABASE_URL` names no backend we have.
    #[error("DATABASE_URL '{0}' is neither sqlite:PATH nor postgres://...")]
    BadUrl(String),
    /// The database refused or failed.
    #[error("database: {0}")]
    Database(#[source] Arc<sqlx::Error>),
    /// The migrations could not be applied.
    #[error("migrating the database: {0}")]
    Migrate(#[source] Arc<sqlx::migrate::MigrateError>),
    /// The SQLite file's folder could not be made.
    #[error("creating {path}: {source}")]
    Folder {
        /// The folder.
        path: String,
        /// Why.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// The writer has stopped (shutting down).
    #[error("the store is shutting down")]
    Closed,
    /// Another process serves from this SQLite file: SQLite is for one instance; several
    /// share a PostgreSQL database.
    #[error(
        "another merels process is using {path} (SQLite serves one instance; run several on \
         PostgreSQL)"
    )]
    InUse {
        /// The database file.
        path: String,
    },
    /// A file could not be read, written or renamed.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// A backup was asked of a PostgreSQL database, which has tools of its own for it.
    #[error(
        "merels backup and restore copy an SQLite file; for PostgreSQL use pg_dump and \
         pg_restore (README, Backups)"
    )]
    NotSqlite,
    /// A backup would overwrite a file.
    #[error("{0} exists already: name a new file")]
    Exists(String),
    /// A file to restore from (or back up) is not a whole merels database this build serves.
    #[error("{path} is not a merels database to restore: {why}")]
    NotABackup {
        /// The file.
        path: String,
        /// What is wrong with it.
        why: String,
    },
}

impl StoreError {
    /// Whether this is an outage of the database, to be waited out rather than a fault in what
    /// was asked: the server unreachable or going away, a connection cut, no connection to be
    /// had in time, the disk full. Clients hear `unavailable` (try again), not `internal`.
    pub fn is_outage(&self) -> bool {
        match self {
            StoreError::Closed => true,
            StoreError::Database(e) => is_outage(e),
            _ => false,
        }
    }
}

/// Whether a database error says the database cannot serve now (see [`StoreError::is_outage`]).
fn is_outage(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed
        | sqlx::Error::BeginFailed => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| outage_code(&code)),
        _ => false,
    }
}

/// PostgreSQL's SQLSTATE classes of a lost or refused connection (08), of a server out of
/// resources (53) or shutting down or starting (57P), and of a system I/O error (58); SQLite's
/// busy, locked, I/O, full and cannot-open results (its extended codes carry the primary one in
/// the low byte).
fn outage_code(code: &str) -> bool {
    if let Ok(sqlite) = code.parse::<u32>() {
        return matches!(sqlite & 0xff, 5 | 6 | 10 | 13 | 14);
    }
    ["08", "53", "57P", "58"]
        .iter()
        .any(|class| code.starts_with(class))
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        StoreError::Database(Arc::new(e))
    }
}

impl From<sqlx::migrate::MigrateError> for StoreError {
    fn from(e: sqlx::migrate::MigrateError) -> Self {
        StoreError::Migrate(Arc::new(e))
    }
}
