//! How a game ends: the winner (or a draw) and the reason, both those the rules decide and those
//! the server decides (agreement, resignation, time, abandonment).

use super::color::Color;
use serde::{Deserialize, Serialize};

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    /// The loser's men on the board plus in hand fell below three.
    FewerThanThree,
    /// The loser had no legal turn.
    NoLegalMove,
    /// The winner made a row of three (Three Men's Morris).
    RowOfThree,
    /// The same position occurred for the third time with the same player to move.
    Repetition,
    /// Too many plies in a row without a removal once both hands were empty.
    QuietPlies,
    /// Too many plies without a removal with both players on three men (Morabaraba).
    ThreeAgainstThree,
    /// Every point was filled during placement.
    BoardFull,
    /// The players agreed a draw.
    Agreement,
    /// A player resigned.
    Resignation,
    /// A player ran out of time.
    Time,
    /// A player left the game.
    Abandonment,
    /// The game was called off before it really began; nobody wins.
    Aborted,
}

impl Termination {
    /// Every reason, for tables and parsers.
    pub const ALL: [Termination; 12] = [
        Termination::FewerThanThree,
        Termination::NoLegalMove,
        Termination::RowOfThree,
        Termination::Repetition,
        Termination::QuietPlies,
        Termination::ThreeAgainstThree,
        Termination::BoardFull,
        Termination::Agreement,
        Termination::Resignation,
        Termination::Time,
        Termination::Abandonment,
        Termination::Aborted,
    ];

    /// The reason as the game record's `Termination` tag writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::FewerThanThree => "fewer than three men",
            Termination::NoLegalMove => "no legal move",
            Termination::RowOfThree => "row of three",
            Termination::Repetition => "threefold repetition",
            Termination::QuietPlies => "no removal in too many plies",
            Termination::ThreeAgainstThree => "three against three without a removal",
            Termination::BoardFull => "board full",
            Termination::Agreement => "agreement",
            Termination::Resignation => "resignation",
            Termination::Time => "time",
            Termination::Abandonment => "abandonment",
            Termination::Aborted => "aborted",
        }
    }

    /// Parses the record's wording back.
    pub fn parse(s: &str) -> Option<Termination> {
        Termination::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

impl std::fmt::Display for Termination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The end of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Outcome {
    /// The winner, or `None` for a draw (or an aborted game).
    pub winner: Option<Color>,
    /// Why the game ended.
    pub termination: Termination,
}

impl Outcome {
    /// `winner` wins for `termination`.
    pub fn win(winner: Color, termination: Termination) -> Outcome {
        Outcome {
            winner: Some(winner),
            termination,
        }
    }

    /// A draw for `termination`.
    pub fn draw(termination: Termination) -> Outcome {
        Outcome {
            winner: None,
            termination,
        }
    }

    /// The end in words, as a page shows it: `White wins (row of three)`, `Draw (board full)`,
    /// `Game aborted`. The reason is the record's wording, so there is one wording of each.
    pub fn summary(&self) -> String {
        match (self.winner, self.termination) {
            (_, Termination::Aborted) => "Game aborted".to_string(),
            (Some(winner), why) => format!("{} wins ({why})", winner.title()),
            (None, why) => format!("Draw ({why})"),
        }
    }

    /// The result as records write it: `1-0`, `0-1`, `1/2-1/2`, or `*` for an aborted game.
    pub fn result(&self) -> &'static str {
        match (self.winner, self.termination) {
            (Some(Color::White), _) => "1-0",
            (Some(Color::Black), _) => "0-1",
            (None, Termination::Aborted) => "*",
            (None, _) => "1/2-1/2",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Color, Outcome, Termination};

    #[test]
    fn every_end_has_its_words() {
        assert_eq!(
            Outcome::win(Color::White, Termination::RowOfThree).summary(),
            "White wins (row of three)"
        );
        assert_eq!(
            Outcome::win(Color::Black, Termination::Time).summary(),
            "Black wins (time)"
        );
        assert_eq!(
            Outcome::draw(Termination::Repetition).summary(),
            "Draw (threefold repetition)"
        );
        assert_eq!(
            Outcome::draw(Termination::Aborted).summary(),
            "Game aborted"
        );
    }
}
