//! Perft: the number of turn sequences of a given length, the standard check of a move generator.
//! One ply is one whole turn, removal included; a finished game has no turns, and no draw rule
//! that needs history is in play.

use super::position::{Position, Turn};
use super::variant::Variant;

impl Variant {
    /// Counts the turn sequences of `depth` plies from `pos`.
    pub fn perft(&self, pos: &Position, depth: u32) -> u64 {
        match depth {
            0 => 1,
            // The last ply is counted, not made: the bulk of the work.
            1 => self.count_turns(pos),
            _ => {
                let mut n = 0;
                self.for_each_turn(pos, |turn| {
                    n += self.perft(&self.apply(pos, turn), depth - 1)
                });
                n
            }
        }
    }

    /// Perft split by the first turn: each legal turn with the count below it.
    pub fn divide(&self, pos: &Position, depth: u32) -> Vec<(Turn, u64)> {
        if depth == 0 {
            return Vec::new();
        }
        self.legal_turns(pos)
            .into_iter()
            .map(|turn| (turn, self.perft(&self.apply(pos, turn), depth - 1)))
            .collect()
    }
}
