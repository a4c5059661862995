//! One-time hand-off codes as the store keeps them: written and taken by the writer
//! ([`super::WriteOp::PutHandoff`], [`super::WriteOp::TakeHandoff`]), looked up here.

use super::{Backend, Store, StoreError};
use sqlx::Row;

/// Live codes one game may have at once; asking for more is refused until some expire.
pub const HANDOFF_CODES_PER_GAME: i64 = 20;

/// A code that moves a seat: its hash, the game, the seat's secret sealed under the code, and
/// when it expires (ms).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandoffRow {
    /// Hex SHA-256 of the code.
    pub code_hash: String,
    /// The game.
    pub game_id: String,
    /// The seat's secret, sealed under the code.
    pub sealed: String,
    /// When it stops working (ms).
    pub expires_at: i64,
    /// The seat stays where it is too (the other device gets the same seat); else it moves,
    /// and the device that asked for the code loses it.
    pub keeps: bool,
}

impl Store {
    /// The code whose hash is `code_hash`, if it exists and has not expired by `now`.
    pub async fn handoff(
        &self,
        code_hash: &str,
        now: i64,
    ) -> Result<Option<HandoffRow>, StoreError> {
        on_pool!(&self.backend, pool => {
            let row = sqlx::query(
                "SELECT code_hash, game_id, sealed, expires_at, keeps FROM handoff_codes \
                 WHERE code_hash = $1 AND expires_at > $2",
            )
            .bind(code_hash)
            .bind(now)
            .fetch_optional(pool)
            .await?;
            row.map(|r| {
                Ok(HandoffRow {
                    code_hash: r.try_get("code_hash")?,
                    game_id: r.try_get("game_id")?,
                    sealed: r.try_get("sealed")?,
                    expires_at: r.try_get("expires_at")?,
                    keeps: r.try_get("keeps")?,
                })
            })
            .transpose()
            .map_err(|e: sqlx::Error| StoreError::from(e))
        })
    }
}
