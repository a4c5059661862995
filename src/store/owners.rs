//! Who runs which game's room, when several instances share one database: the instances'
//! registrations (each with a lease it renews) and each game's owner and epoch.
//!
//! An instance takes a game ([`Store::claim`]) before it runs the game's room, which bumps the
//! game's epoch; every write of that room carries the epoch, and the store refuses it once
//! another instance has taken the game. So a paused or partitioned owner cannot write after it
//! was replaced, whatever its clock says; the lease only decides when it may be replaced.
//! These writes are rare (a room starting or ending, a renewal every few seconds) and go
//! straight to the pool rather than through the batching writer. With SQLite there is one
//! instance: the process that holds the file's lock (`lock_sqlite_file`).
//!
//! The lease alone would leave a crashed owner's games standing until it runs out. So each
//! PostgreSQL instance also holds a sign of life ([`Store::sign_of_life`]): a connection of its
//! own, named after it, which the database server drops the moment the process dies. An owner
//! whose lease holds but whose connection is gone is dead, and its games are taken at once. A
//! paused owner keeps its connection, so only its lease decides, and the epochs fence it as
//! before.

use super::{Backend, Store, StoreError};
use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{ConnectOptions, Connection};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How often the sign of life is checked from this side (a ping), so that one cut by the network
/// or a restart of the database is made again.
const LIFE_PING: Duration = Duration::from_secs(2);

/// The `application_name` of instance `id`'s sign of life.
fn life_name(id: &str) -> String {
    format!("merels {id}")
}

/// `$before`, then SQL that holds while the instance at `$alias` (a row of `instances`) is alive
/// at bind parameter `$now` (its lease holds and, with PostgreSQL, its sign of life is
/// connected, under the name [`life_name`] gives), then `$after`: one static text per backend.
macro_rules! with_alive {
    ($backend:expr, $before:literal, $alias:literal, $now:literal, $after:literal) => {
        match $backend {
            Backend::Sqlite(_) => concat!($before, $alias, ".lease_until > ", $now, $after),
            Backend::Postgres(_) => concat!(
                $before,
                "(",
                $alias,
                ".lease_until > ",
                $now,
                " AND EXISTS (SELECT 1 FROM pg_stat_activity a ",
                "WHERE a.application_name = 'merels ' || ",
                $alias,
                ".id))",
                $after
            ),
        }
    };
}

/// An instance's sign of life, held until [`LifeLine::end`] (or the process dies).
#[derive(Debug)]
pub struct LifeLine {
    stop: CancellationToken,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl LifeLine {
    /// Lets the sign of life go, last of all: after the instance has given up its games, so
    /// that none is taken from it while it still finishes a write.
    pub async fn end(mut self) {
        self.stop.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for LifeLine {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Keeps `conn` open until `stop`, making it again whenever a ping finds it gone.
async fn keep_alive(mut conn: PgConnection, options: PgConnectOptions, stop: CancellationToken) {
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            () = tokio::time::sleep(LIFE_PING) => {}
        }
        if conn.ping().await.is_ok() {
            continue;
        }
        tracing::warn!("this instance's sign of life was cut: connecting it again");
        loop {
            match options.connect().await {
                Ok(new) => {
                    conn = new;
                    break;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "could not connect this instance's sign of life");
                    tokio::select! {
                        () = stop.cancelled() => return,
                        () = tokio::time::sleep(LIFE_PING) => {}
                    }
                }
            }
        }
    }
    let _ = conn.close().await;
}

/// The instance that runs a game's room, as another instance finds it.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Owner {
    /// Its id (made afresh each time an instance starts).
    #[sqlx(rename = "id")]
    pub instance: String,
    /// The internal address where it serves its peers, `host:port`.
    pub address: String,
    /// Where clients can reach it themselves (`https://a.merels.example`), if they can.
    #[sqlx(rename = "direct_url")]
    pub direct: Option<String>,
}

/// A live instance's registration: who it is, and until when (wall ms) its lease holds unless
/// it renews it.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Registration {
    /// The instance.
    #[sqlx(flatten)]
    pub owner: Owner,
    /// When its lease lapses, short of a renewal.
    pub lease_until: i64,
}

/// A game taken by [`Store::claim`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim {
    /// The game's new epoch, which every write of the new owner's room carries.
    pub epoch: i64,
    /// When the game was taken from an owner that died (its lease lapsed while it held the game),
    /// that owner's last renewal: since then, as far as anyone can tell, nobody served the game.
    /// `None` when the game was given up, or never owned.
    pub unserved_since: Option<i64>,
}

impl Store {
    /// Holds instance `id`'s sign of life (with PostgreSQL; SQLite has one instance and needs
    /// none) until the returned line is ended: made before the instance registers, so that it
    /// is never found registered and dead.
    pub async fn sign_of_life(&self, id: &str) -> Result<LifeLine, StoreError> {
        let stop = CancellationToken::new();
        let task = match &self.backend {
            Backend::Sqlite(_) => None,
            Backend::Postgres(pool) => {
                let options = (*pool.connect_options())
                    .clone()
                    .application_name(&life_name(id));
                let conn = options.connect().await?;
                Some(tokio::spawn(keep_alive(conn, options, stop.clone())))
            }
        };
        Ok(LifeLine { stop, task })
    }

    /// Registers `instance` (its id, its peers' address and clients' own, if any), or renews
    /// its lease: it holds until `until` (ms).
    pub async fn register(&self, instance: &Owner, now: i64, until: i64) -> Result<(), StoreError> {
        on_pool!(&self.backend, pool => {
            sqlx::query(
                "INSERT INTO instances (id, address, direct_url, lease_until, started_at, \
                 renewed_at) VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT (id) DO UPDATE \
                 SET address = excluded.address, direct_url = excluded.direct_url, \
                 lease_until = excluded.lease_until, renewed_at = excluded.renewed_at",
            )
            .bind(&instance.instance)
            .bind(&instance.address)
            .bind(&instance.direct)
            .bind(until)
            .bind(now)
            .execute(pool)
            .await?;
        });
        Ok(())
    }

    /// Ends instance `id`'s registration and gives up every game it owns, so that whichever
    /// instance is asked next takes them at once (a graceful stop, as for a deploy).
    pub async fn deregister(&self, id: &str) -> Result<(), StoreError> {
        on_pool!(&self.backend, pool => {
            sqlx::query("UPDATE games SET owner = NULL WHERE owner = $1")
                .bind(id)
                .execute(pool)
                .await?;
            sqlx::query("DELETE FROM instances WHERE id = $1")
                .bind(id)
                .execute(pool)
                .await?;
        });
        Ok(())
    }

    /// Forgets every instance and every game's owner (with SQLite, as the one process that
    /// holds the file starts).
    pub(super) async fn forget_instances(&self) -> Result<(), StoreError> {
        on_pool!(&self.backend, pool => {
            sqlx::query("UPDATE games SET owner = NULL WHERE owner IS NOT NULL")
                .execute(pool)
                .await?;
            sqlx::query("DELETE FROM instances").execute(pool).await?;
        });
        Ok(())
    }

    /// Takes game `id` for instance `me` at `now`: possible when nobody owns it, `me` does, or
    /// its owner is dead (its lease has lapsed, or its sign of life is gone). `None` when another live instance owns it, or there is no
    /// such game.
    pub async fn claim(&self, id: &str, me: &str, now: i64) -> Result<Option<Claim>, StoreError> {
        let died_sql = with_alive!(
            &self.backend,
            "SELECT i.renewed_at FROM games g JOIN instances i ON i.id = g.owner \
             WHERE g.id = $1 AND g.owner <> $2 AND NOT ",
            "i",
            "$3",
            ""
        );
        let take_sql = with_alive!(
            &self.backend,
            "UPDATE games SET owner = $2, epoch = epoch + 1 WHERE id = $1 \
             AND (owner IS NULL OR owner = $2 OR NOT EXISTS (SELECT 1 FROM instances \
             WHERE instances.id = games.owner AND ",
            "instances",
            "$3",
            ")) RETURNING epoch"
        );
        on_pool!(&self.backend, pool => {
            // Read first: a race with another claimant is settled by the update, and at worst
            // credits a clock with time that was nobody's anyway.
            let died: Option<(i64,)> = sqlx::query_as(died_sql)
            .bind(id)
            .bind(me)
            .bind(now)
            .fetch_optional(pool)
            .await?;
            let epoch: Option<(i64,)> = sqlx::query_as(take_sql)
            .bind(id)
            .bind(me)
            .bind(now)
            .fetch_optional(pool)
            .await?;
            Ok(epoch.map(|(epoch,)| Claim {
                epoch,
                unserved_since: died.map(|(at,)| at),
            }))
        })
    }

    /// The live owner of game `id` at `now` (its lease holds and its sign of life is there), if
    /// it has one.
    pub async fn owner_of(&self, id: &str, now: i64) -> Result<Option<Owner>, StoreError> {
        let sql = with_alive!(
            &self.backend,
            "SELECT i.id, i.address, i.direct_url FROM games g \
             JOIN instances i ON i.id = g.owner WHERE g.id = $1 AND ",
            "i",
            "$2",
            ""
        );
        on_pool!(&self.backend, pool => {
            let owner: Option<Owner> = sqlx::query_as(sql)
            .bind(id)
            .bind(now)
            .fetch_optional(pool)
            .await?;
            Ok(owner)
        })
    }

    /// The instances whose lease holds at `now`, each with the moment it lapses unless renewed.
    pub async fn live_instances(&self, now: i64) -> Result<Vec<Registration>, StoreError> {
        let sql = with_alive!(
            &self.backend,
            "SELECT id, address, direct_url, lease_until FROM instances i WHERE ",
            "i",
            "$1",
            ""
        );
        on_pool!(&self.backend, pool => {
            let live: Vec<Registration> = sqlx::query_as(sql)
            .bind(now)
            .fetch_all(pool)
            .await?;
            Ok(live)
        })
    }

    /// Gives up game `id`, if `me` still owns it at `epoch` (its room has ended).
    pub async fn release(&self, id: &str, me: &str, epoch: i64) -> Result<(), StoreError> {
        on_pool!(&self.backend, pool => {
            sqlx::query("UPDATE games SET owner = NULL WHERE id = $1 AND owner = $2 AND epoch = $3")
                .bind(id)
                .bind(me)
                .bind(epoch)
                .execute(pool)
                .await?;
        });
        Ok(())
    }

    /// The secret instances show each other: the one already stored, or else `fresh`, stored.
    pub async fn peer_secret(&self, fresh: &str) -> Result<String, StoreError> {
        on_pool!(&self.backend, pool => {
            sqlx::query("INSERT INTO peer_secret (id, secret) VALUES (1, $1) ON CONFLICT DO NOTHING")
                .bind(fresh)
                .execute(pool)
                .await?;
            let (secret,): (String,) = sqlx::query_as("SELECT secret FROM peer_secret WHERE id = 1")
                .fetch_one(pool)
                .await?;
            Ok(secret)
        })
    }
}

/// Locks the SQLite file at `path` for this process (a lock on a file beside it, which the
/// system drops if the process dies), or fails if another process holds it: two servers on one
/// file would each run the same games' rooms. An in-memory database needs none.
pub(super) fn lock_sqlite_file(
    path: &std::path::Path,
) -> Result<Option<std::fs::File>, StoreError> {
    if path.as_os_str().is_empty() || path.as_os_str() == ":memory:" {
        return Ok(None);
    }
    let name = super::backup::beside(path, "lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&name)
        .map_err(|e| StoreError::Folder {
            path: name.display().to_string(),
            source: Arc::new(e),
        })?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::InUse {
            path: path.display().to_string(),
        }),
        Err(std::fs::TryLockError::Error(e)) => Err(StoreError::Folder {
            path: name.display().to_string(),
            source: Arc::new(e),
        }),
    }
}
