//! The store's lists, read straight from the pool: games by status (for the metrics), the stale
//! unfinished games (for the sweep), the open challenges (listed while their creator is there)
//! and the games being played (for the home page).

use super::{Backend, Store, StoreError};
use sqlx::Row;

/// A game waiting for anyone to take its empty seat, as the home page lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// The game's id.
    pub id: String,
    /// The variant's slug.
    pub variant: String,
    /// The table options, `key=value,...`.
    pub options: String,
    /// The time control, as [`crate::clock::TimeControl`] writes it.
    pub time_control: String,
    /// The side of the player waiting: `white` or `black`.
    pub waiting: &'static str,
    /// The waiting player's name, if they gave one.
    pub name: Option<String>,
    /// When it was made (Unix ms): how long it has waited.
    pub created_at: i64,
}

/// A game being played, as the home page lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveGame {
    /// The game's id.
    pub id: String,
    /// The variant's slug.
    pub variant: String,
    /// The table options, `key=value,...`.
    pub options: String,
    /// Turns played so far.
    pub plies: i64,
    /// The players' names, where given: White's, Black's.
    pub names: [Option<String>; 2],
}

/// How many open challenges one address may have listed at a time: more would let a few
/// addresses fill the home page with games nobody means to play.
pub const CHALLENGES_PER_ADDRESS: i64 = 2;

impl Store {
    /// How many games are stored with each status.
    pub async fn count_by_status(&self) -> Result<Vec<(String, i64)>, StoreError> {
        on_pool!(&self.backend, pool => {
            let rows = sqlx::query("SELECT status, COUNT(*) AS n FROM games GROUP BY status")
                .fetch_all(pool)
                .await?;
            rows.iter()
                .map(|r| Ok((r.try_get("status")?, r.try_get("n")?)))
                .collect::<Result<Vec<_>, sqlx::Error>>()
                .map_err(StoreError::from)
        })
    }

    /// Unfinished games not changed since `before` (ms), oldest first, at most `limit`.
    pub async fn stale_games(&self, before: i64, limit: i64) -> Result<Vec<String>, StoreError> {
        on_pool!(&self.backend, pool => {
            let rows = sqlx::query(
                "SELECT id FROM games g WHERE status <> 'finished' AND updated_at < $1 \
                 AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.game_id = g.id AND t.played_at >= $1) \
                 ORDER BY updated_at LIMIT $2",
            )
            .bind(before)
            .bind(limit)
            .fetch_all(pool)
            .await?;
            rows.iter().map(|r| r.try_get("id").map_err(StoreError::from)).collect()
        })
    }

    /// The open challenges listed at `now` (Unix ms), newest first, at most `limit`: waiting
    /// games opened to anyone, made after `since` (older ones have expired), whose creator is
    /// there (`listed_until` not passed), and of each address only the first
    /// [`CHALLENGES_PER_ADDRESS`] (whatever raced past the check at creation).
    pub async fn open_challenges(
        &self,
        now: i64,
        since: i64,
        limit: i64,
    ) -> Result<Vec<Challenge>, StoreError> {
        on_pool!(&self.backend, pool => {
            let rows = sqlx::query(
                "SELECT id, variant, options, time_control, white, name, created_at FROM ( \
                 SELECT id, variant, options, time_control, created_at, \
                 white_secret_hash IS NOT NULL AS white, COALESCE(white_name, black_name) AS name, \
                 ROW_NUMBER() OVER ( \
                 PARTITION BY COALESCE(created_from, id) ORDER BY created_at, id) AS nth \
                 FROM games WHERE status = 'waiting' AND open_challenge \
                 AND listed_until > $1 AND created_at > $2) c \
                 WHERE nth <= $3 ORDER BY created_at DESC LIMIT $4",
            )
            .bind(now)
            .bind(since)
            .bind(CHALLENGES_PER_ADDRESS)
            .bind(limit)
            .fetch_all(pool)
            .await?;
            rows.iter()
                .map(|r| {
                    Ok(Challenge {
                        id: r.try_get("id")?,
                        variant: r.try_get("variant")?,
                        options: r.try_get("options")?,
                        time_control: r.try_get("time_control")?,
                        waiting: if r.try_get::<bool, _>("white")? { "white" } else { "black" },
                        name: r.try_get("name")?,
                        created_at: r.try_get("created_at")?,
                    })
                })
                .collect::<Result<Vec<_>, sqlx::Error>>()
                .map_err(StoreError::from)
        })
    }

    /// How many open challenges the address whose hash is `from` has listed at `now` (made
    /// after `since`), as [`Store::open_challenges`] counts them.
    pub async fn challenges_from(
        &self,
        from: &str,
        now: i64,
        since: i64,
    ) -> Result<i64, StoreError> {
        on_pool!(&self.backend, pool => {
            let row = sqlx::query(
                "SELECT COUNT(*) AS n FROM games WHERE status = 'waiting' AND open_challenge \
                 AND listed_until > $1 AND created_at > $2 AND created_from = $3",
            )
            .bind(now)
            .bind(since)
            .bind(from)
            .fetch_one(pool)
            .await?;
            Ok(row.try_get("n")?)
        })
    }

    /// Keeps open challenge `id` listed until `until` (Unix ms): its room renews it while the
    /// creator is connected. Only the room that holds the game (`epoch`) does, and only while
    /// the game still waits.
    pub async fn list_until(&self, id: &str, until: i64, epoch: i64) -> Result<(), StoreError> {
        on_pool!(&self.backend, pool => {
            sqlx::query(
                "UPDATE games SET listed_until = $2 WHERE id = $1 AND epoch = $3 \
                 AND status = 'waiting' AND open_challenge",
            )
            .bind(id)
            .bind(until)
            .bind(epoch)
            .execute(pool)
            .await?;
        });
        Ok(())
    }

    /// Games being played now, most recently started (or otherwise changed, other than by a
    /// turn) first.
    pub async fn live_games(&self, limit: i64) -> Result<Vec<LiveGame>, StoreError> {
        on_pool!(&self.backend, pool => {
            let rows = sqlx::query(
                "SELECT g.id, g.variant, g.options, g.white_name, g.black_name, \
                 (SELECT COUNT(*) FROM turns t WHERE t.game_id = g.id) AS plies \
                 FROM games g WHERE g.status = 'playing' ORDER BY g.updated_at DESC LIMIT $1",
            )
            .bind(limit)
            .fetch_all(pool)
            .await?;
            rows.iter()
                .map(|r| {
                    Ok(LiveGame {
                        id: r.try_get("id")?,
                        variant: r.try_get("variant")?,
                        options: r.try_get("options")?,
                        plies: r.try_get("plies")?,
                        names: [r.try_get("white_name")?, r.try_get("black_name")?],
                    })
                })
                .collect::<Result<Vec<_>, sqlx::Error>>()
                .map_err(StoreError::from)
        })
    }
}
