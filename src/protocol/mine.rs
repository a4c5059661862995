//! "My games": the answer to `GET /api/my-games`, a browser's games in progress and its recent
//! finished ones, from the seats its anonymous browser id holds.

use super::Status;
use crate::rules::Color;
use serde::{Deserialize, Serialize};

/// A browser's games: those not finished (the most recently changed first), then its recent
/// finished ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MyGames {
    /// How many of `games` wait for this browser's turn.
    pub your_turn: usize,
    /// The games.
    pub games: Vec<MyGame>,
}

/// One game of a browser's list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MyGame {
    /// The game's id: its page is `/g/{id}`.
    pub id: String,
    /// The variant's slug.
    pub variant: String,
    /// The variant's name, as its pages give it ("Six Men's Morris").
    pub title: String,
    /// The seat this browser holds.
    pub seat: Color,
    /// Where the game stands.
    pub status: Status,
    /// Whose turn it is, while it is on.
    pub to_move: Option<Color>,
    /// Whether it is this browser's seat's turn.
    pub your_turn: bool,
    /// How long the turn under way has left before its deadline (ms), in a timed game.
    pub left_ms: Option<i64>,
    /// The other seat is the computer's.
    pub against_computer: bool,
    /// Once finished: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: Option<String>,
    /// When it last changed other than by a turn (ms).
    pub updated_at: i64,
}
