//! Copies of an SQLite database: `merels backup` takes one while a server serves the file, and
//! `merels restore` puts one back while none does. (PostgreSQL has `pg_dump` and `pg_restore`
//! for both: the README's Backups.)
//!
//! A copy is taken with `VACUUM INTO`, which reads the database in one read transaction: in WAL
//! mode the server's writer goes on meanwhile, and the copy holds exactly the games and turns
//! committed when it began, never half a batch. It is written beside its destination, synced,
//! checked, and only then given its name, so a file by that name is always a whole copy.

use super::StoreError;
use super::owners::lock_sqlite_file;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use sqlx::{ConnectOptions, SqlitePool};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

/// What a copy holds, to be said to whoever made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Contents {
    /// Games stored.
    pub games: i64,
    /// Turns stored, over all games.
    pub turns: i64,
    /// The schema's version: the last migration applied.
    pub version: i64,
}

/// Writes a consistent copy of the SQLite database `url` to `to`, which must not exist yet,
/// whether or not a server is serving the database meanwhile.
pub async fn backup(url: &str, to: &Path) -> Result<Contents, StoreError> {
    let from = sqlite_path(url)?;
    if to.exists() {
        return Err(StoreError::Exists(to.display().to_string()));
    }
    must_exist(&from)?;
    let partial = beside(to, "partial");
    let _ = std::fs::remove_file(&partial);
    let pool = open(&from, false).await?;
    sqlx::query("VACUUM INTO $1")
        .bind(partial.to_string_lossy().as_ref())
        .execute(&pool)
        .await?;
    pool.close().await;
    sync(&partial)?;
    let contents = match check(&partial).await {
        Ok(contents) => contents,
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
    };
    rename(&partial, to)?;
    Ok(contents)
}

/// Puts the copy `from` back as the SQLite database `url`: refused while a server holds the
/// file, or if `from` is not a whole merels database this build can serve. The database it
/// replaces, if any, is kept beside it as `NAME.before-restore` (with its write-ahead log).
pub async fn restore(url: &str, from: &Path) -> Result<Contents, StoreError> {
    let to = sqlite_path(url)?;
    must_exist(from)?;
    // Held until the copy is in place: no server can start on the file meanwhile.
    let _lock = lock_sqlite_file(&to)?;
    let contents = check(from).await?;
    let incoming = beside(&to, "restoring");
    std::fs::copy(from, &incoming).map_err(|e| file_error(&incoming, e))?;
    sync(&incoming)?;
    if to.exists() {
        // The old log belongs to the old file: left beside the new one, SQLite would replay it
        // into it.
        for suffix in ["", "-wal", "-shm"] {
            let old = with_suffix(&to, suffix);
            if old.exists() {
                rename(&old, &with_suffix(&beside(&to, "before-restore"), suffix))?;
            }
        }
    }
    rename(&incoming, &to)?;
    Ok(contents)
}

/// Checks that `path` is a whole SQLite database holding merels's tables at a version this build
/// knows, and says what it holds.
async fn check(path: &Path) -> Result<Contents, StoreError> {
    let not_one = |why: String| StoreError::NotABackup {
        path: path.display().to_string(),
        why,
    };
    let pool = open(path, true).await.map_err(|e| not_one(e.to_string()))?;
    let checked = async {
        let (integrity,): (String,) = sqlx::query_as("PRAGMA integrity_check")
            .fetch_one(&pool)
            .await?;
        let version: Option<(i64,)> =
            sqlx::query_as("SELECT MAX(version) FROM _sqlx_migrations WHERE success")
                .fetch_optional(&pool)
                .await?;
        let (games,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM games")
            .fetch_one(&pool)
            .await?;
        let (turns,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM turns")
            .fetch_one(&pool)
            .await?;
        Ok::<_, sqlx::Error>((integrity, version.map(|(v,)| v), games, turns))
    }
    .await;
    pool.close().await;
    let (integrity, version, games, turns) = checked.map_err(|e| not_one(e.to_string()))?;
    if integrity != "ok" {
        return Err(not_one(format!("SQLite finds it damaged: {integrity}")));
    }
    let ours = latest_migration();
    let version = version.ok_or_else(|| not_one("it has no merels tables".into()))?;
    if version > ours {
        return Err(not_one(format!(
            "it was written by a newer merels (schema {version}; this build knows up to {ours})"
        )));
    }
    Ok(Contents {
        games,
        turns,
        version,
    })
}

/// The last of the SQLite migrations this build carries.
fn latest_migration() -> i64 {
    sqlx::migrate!("migrations/sqlite")
        .iter()
        .map(|m| m.version)
        .max()
        .unwrap_or(0)
}

/// A pool of one connection to the existing file `path`, read-only if asked. Neither migrated
/// nor locked: a server may be using the file.
async fn open(path: &Path, read_only: bool) -> Result<SqlitePool, StoreError> {
    let options = SqliteConnectOptions::new()
        .filename(path)
        .read_only(read_only)
        .busy_timeout(Duration::from_secs(10))
        .log_statements(tracing::log::LevelFilter::Trace);
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(options)
        .await?;
    Ok(pool)
}

/// The file of an `sqlite:` URL; any other is refused with the way to copy it instead.
fn sqlite_path(url: &str) -> Result<PathBuf, StoreError> {
    if super::is_postgres(url) {
        return Err(StoreError::NotSqlite);
    }
    if !url.starts_with("sqlite:") {
        return Err(StoreError::BadUrl(url.into()));
    }
    let options = SqliteConnectOptions::from_str(url)?;
    let path = options.get_filename();
    if path.as_os_str().is_empty() || path.as_os_str() == ":memory:" {
        return Err(StoreError::BadUrl(url.into()));
    }
    Ok(path.to_path_buf())
}

/// Refuses a database or copy that is not there.
fn must_exist(path: &Path) -> Result<(), StoreError> {
    match path.exists() {
        true => Ok(()),
        false => Err(StoreError::NotABackup {
            path: path.display().to_string(),
            why: "there is no such file".into(),
        }),
    }
}

/// `path` with `.SUFFIX` added to its name (the lock, a partial copy, the file put aside).
pub(super) fn beside(path: &Path, suffix: &str) -> PathBuf {
    with_suffix(path, &format!(".{suffix}"))
}

/// `path` with `suffix` added to its name as it is.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Flushes `path` to the disk.
fn sync(path: &Path) -> Result<(), StoreError> {
    std::fs::File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(|e| file_error(path, e))
}

/// Renames `from` to `to`, and makes the new name durable (the folder synced).
fn rename(from: &Path, to: &Path) -> Result<(), StoreError> {
    std::fs::rename(from, to).map_err(|e| file_error(to, e))?;
    let folder = to.parent().filter(|p| !p.as_os_str().is_empty());
    std::fs::File::open(folder.unwrap_or(Path::new(".")))
        .and_then(|f| f.sync_all())
        .map_err(|e| file_error(to, e))
}

fn file_error(path: &Path, e: std::io::Error) -> StoreError {
    StoreError::File {
        path: path.display().to_string(),
        source: Arc::new(e),
    }
}
