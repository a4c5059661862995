//! The chats' lines as the store keeps them: written by the writer ([`super::WriteOp::Chat`]),
//! read back here when a room loads its game.

use super::{Backend, Store, StoreError};
use sqlx::Row;

/// One line of a game's chat. The table's checks hold whoever writes: a known chat, a known
/// author who may write in it, at most 300 characters, and one line to a number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatRow {
    /// The game.
    pub game_id: String,
    /// `players` or `spectators`.
    pub room: String,
    /// The line's number in its chat, from 1; the store takes only the next one.
    pub seq: i64,
    /// `white`, `black` or `spectator`.
    pub author: String,
    /// What was said.
    pub body: String,
    /// When (ms).
    pub said_at: i64,
    /// The speaker's name when the line was said, if they had given one.
    pub author_name: Option<String>,
}

impl Store {
    /// Every line of a game's chats, each chat in order.
    pub async fn chat_lines(&self, game_id: &str) -> Result<Vec<ChatRow>, StoreError> {
        on_pool!(&self.backend, pool => {
            let rows = sqlx::query(
                "SELECT room, seq, author, body, said_at, author_name FROM chat_lines \
                 WHERE game_id = $1 \
                 ORDER BY room, seq",
            )
            .bind(game_id)
            .fetch_all(pool)
            .await?;
            rows.iter()
                .map(|r| {
                    Ok(ChatRow {
                        game_id: game_id.to_string(),
                        room: r.try_get("room")?,
                        seq: i64::from(r.try_get::<i32, _>("seq")?),
                        author: r.try_get("author")?,
                        body: r.try_get("body")?,
                        said_at: r.try_get("said_at")?,
                        author_name: r.try_get("author_name")?,
                    })
                })
                .collect::<Result<Vec<_>, sqlx::Error>>()
                .map_err(StoreError::from)
        })
    }
}
