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

use super::{Backend, Store, StoreError};
use std::sync::Arc;

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
    /// its owner's lease has lapsed. `None` when another live instance owns it, or there is no
    /// such game.
    pub async fn claim(&self, id: &str, me: &str, now: i64) -> Result<Option<Claim>, StoreError> {
        on_pool!(&self.backend, pool => {
            // Read first: a race with another claimant is settled by the update, and at worst
            // credits a clock with time that was nobody's anyway.
            let died: Option<(i64,)> = sqlx::query_as(
                "SELECT i.renewed_at FROM games g JOIN instances i ON i.id = g.owner \
                 WHERE g.id = $1 AND g.owner <> $2 AND i.lease_until <= $3",
            )
            .bind(id)
            .bind(me)
            .bind(now)
            .fetch_optional(pool)
            .await?;
            let epoch: Option<(i64,)> = sqlx::query_as(
                "UPDATE games SET owner = $2, epoch = epoch + 1 WHERE id = $1 \
                 AND (owner IS NULL OR owner = $2 OR NOT EXISTS (SELECT 1 FROM instances \
                 WHERE instances.id = games.owner AND instances.lease_until > $3)) \
                 RETURNING epoch",
            )
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

    /// The live owner of game `id` at `now`, if it has one.
    pub async fn owner_of(&self, id: &str, now: i64) -> Result<Option<Owner>, StoreError> {
        on_pool!(&self.backend, pool => {
            let owner: Option<Owner> = sqlx::query_as(
                "SELECT i.id, i.address, i.direct_url FROM games g \
                 JOIN instances i ON i.id = g.owner WHERE g.id = $1 AND i.lease_until > $2",
            )
            .bind(id)
            .bind(now)
            .fetch_optional(pool)
            .await?;
            Ok(owner)
        })
    }

    /// The instances whose lease holds at `now`, each with the moment it lapses unless renewed.
    pub async fn live_instances(&self, now: i64) -> Result<Vec<Registration>, StoreError> {
        on_pool!(&self.backend, pool => {
            let live: Vec<Registration> = sqlx::query_as(
                "SELECT id, address, direct_url, lease_until FROM instances WHERE lease_until > $1",
            )
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
