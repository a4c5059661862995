//! The store's lists, read straight from the pool: games by status (for the metrics), the stale
//! unfinished games (for the sweep), the open challenges and the games being played (for the
//! home page).

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

    /// The open challenges waiting for an opponent, newest first.
    pub async fn open_challenges(&self, limit: i64) -> Result<Vec<Challenge>, StoreError> {
        on_pool!(&self.backend, pool => {
            let rows = sqlx::query(
                "SELECT id, variant, options, time_control, white_secret_hash IS NOT NULL AS white, \
                 COALESCE(white_name, black_name) AS name \
                 FROM games WHERE status = 'waiting' AND open_challenge \
                 ORDER BY created_at DESC LIMIT $1",
            )
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
                    })
                })
                .collect::<Result<Vec<_>, sqlx::Error>>()
                .map_err(StoreError::from)
        })
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
