//! A game: a variant, a start position and the turns played, with everything that needs the whole
//! history: threefold repetition, the ply counters of the draw rules, and ends the server decides
//! (agreement, resignation, time, abandonment).

use super::color::Color;
use super::notation::{NotationError, Record};
use super::outcome::{Outcome, Termination};
use super::position::{IllegalTurn, Position, Turn};
use super::variant::Variant;
use std::sync::Arc;

type RepetitionKey = (u32, u32, u8, u8, Color);

/// A game in progress or finished. [`Game::play`] either makes a whole turn or changes nothing.
#[derive(Debug, Clone)]
pub struct Game {
    variant: Arc<Variant>,
    start: Position,
    position: Position,
    turns: Vec<Turn>,
    /// The same turns in notation, written once as they are played: every state sent to the
    /// players carries them all.
    notation: Vec<String>,
    /// Occurrences of each position since the last irreversible turn (placement or removal):
    /// nothing before one can occur again. A list, searched from the end: every placement and
    /// removal empties it and the quiet-plies draw bounds it (100 plies in the built-in variants),
    /// and a map would free its node and allocate another on every placement.
    seen: Vec<(RepetitionKey, u8)>,
    quiet_plies: u16,
    three_against_three_plies: u16,
    outcome: Option<Outcome>,
}

/// What a turn would change in a [`Game`].
#[derive(Debug, Clone)]
struct Step {
    next: Position,
    irreversible: bool,
    quiet_plies: u16,
    three_against_three_plies: u16,
    outcome: Option<Outcome>,
}

/// A turn checked against a game, with everything it changes worked out: made by
/// [`Game::preview`], applied by [`Game::commit`] without checking it again.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The game's ply and position it was checked against.
    ply: usize,
    before: Position,
    turn: Turn,
    notation: String,
    step: Step,
}

impl Checked {
    /// The outcome the turn reaches; `None` while the game goes on.
    pub fn outcome(&self) -> Option<Outcome> {
        self.step.outcome
    }

    /// The turn in notation.
    pub fn notation(&self) -> &String {
        &self.notation
    }
}

/// [`Game::commit`] was given a turn checked against another moment of the game (or another
/// game): nothing was changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stale;

/// Why a record could not be replayed into a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayError {
    /// A turn that is not notation.
    Notation(usize, NotationError),
    /// A turn the rules refuse.
    Illegal {
        /// The 0-based ply.
        ply: usize,
        /// The turn as written.
        turn: String,
        /// Why it was refused.
        reason: IllegalTurn,
        /// The reason in words.
        message: String,
    },
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplayError::Notation(ply, e) => write!(f, "turn {}: {e}", ply + 1),
            ReplayError::Illegal {
                ply, turn, message, ..
            } => write!(f, "turn {} ({turn}) is illegal: {message}", ply + 1),
        }
    }
}

impl std::error::Error for ReplayError {}

impl Game {
    /// A new game from the variant's start.
    pub fn new(variant: Arc<Variant>) -> Game {
        let start = variant.start();
        Game::from_position(variant, start)
    }

    /// A new game from a validated position.
    pub fn from_position(variant: Arc<Variant>, start: Position) -> Game {
        let mut game = Game {
            variant,
            start,
            position: start,
            turns: Vec::new(),
            notation: Vec::new(),
            seen: Vec::new(),
            quiet_plies: 0,
            three_against_three_plies: 0,
            outcome: None,
        };
        game.seen.push((start.repetition_key(), 1));
        game.outcome = game.variant.status(&start);
        game
    }

    /// Replays turns in notation from `start` (or the variant's start).
    pub fn replay<S: AsRef<str>>(
        variant: Arc<Variant>,
        start: Option<Position>,
        turns: &[S],
    ) -> Result<Game, ReplayError> {
        let start = start.unwrap_or_else(|| variant.start());
        let mut game = Game::from_position(variant, start);
        for (ply, text) in turns.iter().enumerate() {
            let text = text.as_ref();
            let turn = game
                .variant
                .parse_turn(text)
                .map_err(|e| ReplayError::Notation(ply, e))?;
            game.play(turn).map_err(|reason| ReplayError::Illegal {
                ply,
                turn: text.to_string(),
                reason,
                message: reason.describe(game.variant.board()),
            })?;
        }
        Ok(game)
    }

    /// The variant.
    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// The position the game started from.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The turns played.
    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }

    /// Every position of the game, from its start to the current one: the turns replayed
    /// without checking them again, as each was checked when it was played.
    pub fn positions(&self) -> impl Iterator<Item = Position> + '_ {
        let start = std::iter::once(self.start);
        start.chain(self.turns.iter().scan(self.start, |pos, &turn| {
            *pos = self.variant.apply(pos, turn);
            Some(*pos)
        }))
    }

    /// The turns played, in notation.
    pub fn turn_strings(&self) -> &[String] {
        &self.notation
    }

    /// How the game ended, if it has.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// The side to move.
    pub fn to_move(&self) -> Color {
        self.position.to_move()
    }

    /// The legal turns of the side to move; none once the game is over.
    pub fn legal_turns(&self) -> Vec<Turn> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        self.variant.legal_turns(&self.position)
    }

    /// Checks `turn` without playing it: the error [`Game::play`] would give, or the checked
    /// turn, which knows the outcome it reaches and which [`Game::commit`] plays.
    pub fn preview(&self, turn: Turn) -> Result<Checked, IllegalTurn> {
        let step = self.step(turn)?;
        Ok(Checked {
            ply: self.turns.len(),
            before: self.position,
            turn,
            notation: self.variant.turn_string(turn),
            step,
        })
    }

    /// Plays a turn checked by [`Game::preview`] on this game as it still is; refused (and
    /// nothing changed) if a turn has been played, taken back or the game ended since.
    pub fn commit(&mut self, checked: Checked) -> Result<Option<Outcome>, Stale> {
        if checked.ply != self.turns.len()
            || checked.before != self.position
            || self.outcome.is_some()
        {
            return Err(Stale);
        }
        let Checked {
            turn,
            notation,
            step,
            ..
        } = checked;
        Ok(self.apply(turn, notation, step))
    }

    /// Plays a turn of the side to move: all of it, or nothing when it is illegal.
    pub fn play(&mut self, turn: Turn) -> Result<Option<Outcome>, IllegalTurn> {
        let step = self.step(turn)?;
        let notation = self.variant.turn_string(turn);
        Ok(self.apply(turn, notation, step))
    }

    fn apply(&mut self, turn: Turn, notation: String, step: Step) -> Option<Outcome> {
        if step.irreversible {
            self.seen.clear();
        }
        let key = step.next.repetition_key();
        match self.seen_at(key) {
            Some(i) => self.seen[i].1 += 1,
            None => self.seen.push((key, 1)),
        }
        self.quiet_plies = step.quiet_plies;
        self.three_against_three_plies = step.three_against_three_plies;
        self.position = step.next;
        self.turns.push(turn);
        self.notation.push(notation);
        self.outcome = step.outcome;
        self.outcome
    }

    /// Where the position with `key` is in [`Game::seen`], if it has occurred since the last
    /// irreversible turn.
    fn seen_at(&self, key: RepetitionKey) -> Option<usize> {
        self.seen.iter().rposition(|(k, _)| *k == key)
    }

    /// How often the position with `key` has occurred since the last irreversible turn.
    fn occurrences(&self, key: RepetitionKey) -> u8 {
        self.seen_at(key).map_or(0, |i| self.seen[i].1)
    }

    /// Everything a turn changes, worked out without changing anything.
    fn step(&self, turn: Turn) -> Result<Step, IllegalTurn> {
        if self.outcome.is_some() {
            return Err(IllegalTurn::GameOver);
        }
        let before = self.position;
        let next = self.variant.play(&before, turn)?;
        let rules = self.variant.rules();

        let irreversible = turn.from.is_none() || turn.remove.is_some();
        let seen_before = if irreversible {
            0
        } else {
            self.occurrences(next.repetition_key())
        };
        let repeated = seen_before + 1 >= 3;

        let hands_empty = before.hand(Color::White) == 0 && before.hand(Color::Black) == 0;
        let quiet_plies = match (turn.remove, hands_empty) {
            (None, true) => self.quiet_plies.saturating_add(1),
            _ => 0,
        };
        let three_each = next.total(Color::White) == 3 && next.total(Color::Black) == 3;
        let three_against_three_plies = match (turn.remove, three_each) {
            (None, true) => self.three_against_three_plies.saturating_add(1),
            _ => 0,
        };

        let over = |limit: Option<u16>, plies: u16| limit.is_some_and(|l| plies >= l);
        let outcome = self.variant.status(&next).or_else(|| {
            if repeated {
                Some(Outcome::draw(Termination::Repetition))
            } else if over(rules.quiet_plies_draw, quiet_plies) {
                Some(Outcome::draw(Termination::QuietPlies))
            } else if over(rules.three_against_three_draw, three_against_three_plies) {
                Some(Outcome::draw(Termination::ThreeAgainstThree))
            } else {
                None
            }
        });
        Ok(Step {
            next,
            irreversible,
            quiet_plies,
            three_against_three_plies,
            outcome,
        })
    }

    /// Ends the game for a reason outside the board (agreement, resignation, time, abandonment,
    /// abort). A finished game keeps its first outcome: returns false and changes nothing.
    pub fn end(&mut self, outcome: Outcome) -> bool {
        if self.outcome.is_some() {
            return false;
        }
        self.outcome = Some(outcome);
        true
    }

    /// The game record with the given extra tags (`White`, `Black`, `Date`...). `Variant`,
    /// `Options`, `Position` (when not the standard start), `Result` and `Termination` come from
    /// the game itself.
    pub fn record(&self, extra: &[(&str, &str)]) -> Record {
        let mut record = Record::default();
        record.set_tag("Variant", self.variant.slug());
        let options = self.variant.options_string();
        if !options.is_empty() {
            record.set_tag("Options", options);
        }
        for (name, value) in extra {
            record.set_tag(name, *value);
        }
        if self.start != self.variant.start() {
            record.set_tag("Position", self.variant.position_string(&self.start));
        }
        let result = self.outcome.map_or("*", |o| o.result());
        record.set_tag("Result", result);
        if let Some(o) = self.outcome {
            record.set_tag("Termination", o.termination.as_str());
        }
        record.turns = self.notation.iter().map(|t| t.to_string()).collect();
        record
    }
}
