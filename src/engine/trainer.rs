//! The endgame trainer: won positions of a solved board, chosen from seeded self-play, for a
//! player to play out against perfect defence, and the judging of each of the player's turns
//! there (what it was worth, whether the win slipped, and the table's best defence to it).
//!
//! The starting points are endgames: both hands empty, the side to move winning, and some turn
//! there letting the win go (a start that every turn wins teaches nothing). Most are the
//! longest wins the self-play reached (the hardest to play out); the rest are the longest wins
//! with the fewest men on the board (the classic endings: three against three, say). The same
//! seed gives the same starts, so every server offers the same ones.
//!
//! As for puzzles, the values are the table's, which know neither repetition nor the 100-ply
//! rule: the distance shown is the one perfect play takes.

use super::Rng;
use super::table::{Table, Value};
use crate::rules::{Color, Outcome, Position, Turn, Variant};
use std::collections::HashSet;

/// Why a starting point was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// One of the longest wins found.
    Longest,
    /// The longest win found with the fewest men on the board.
    FewMen,
}

impl Kind {
    /// `longest` or `few-men`, as the API writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Longest => "longest",
            Kind::FewMen => "few-men",
        }
    }
}

/// A won endgame to play out.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Start {
    /// The position, the winning side to move.
    pub position: Position,
    /// Its plies to the end with perfect play from both sides.
    pub plies: u16,
    /// Why it was chosen.
    pub kind: Kind,
}

/// Self-play games the starts are drawn from.
const GAMES: usize = 400;
/// Plies of one self-play game at most.
const GAME_PLIES: usize = 120;
/// In how many plies of a hundred the self-play plays the perfect turn: mostly, so that its
/// endgames are ones games reach, with enough errors to leave some sides winning.
const PERFECT_PER_HUNDRED: usize = 70;
/// The fewest plies a start's win takes: at least two turns of the player's (Three Men's
/// Morris's endgames are won in three plies at most).
const SHORTEST: u16 = 3;

/// Up to `count` won endgames of `variant` from self-play seeded with `seed`, judged by its
/// solved `table`: the longest wins found, and the last third the longest with the fewest men on
/// the board (the next longest where too few have the fewest). The same arguments give the same
/// starts, longest first within each kind.
pub fn starts(variant: &Variant, table: &Table, seed: u64, count: usize) -> Vec<Start> {
    let mut rng = Rng::new(seed);
    let mut seen = HashSet::new();
    let mut found: Vec<(Position, u16)> = Vec::new();
    for _ in 0..GAMES {
        let mut pos = variant.start();
        for _ in 0..GAME_PLIES {
            if variant.status(&pos).is_some() {
                break;
            }
            let endgame = pos.hand(Color::White) == 0 && pos.hand(Color::Black) == 0;
            if endgame
                && seen.insert(pos)
                && let Some(Value::Win(d)) = table.value(&pos)
                && d >= SHORTEST
                && can_slip(variant, table, &pos)
            {
                found.push((pos, d));
            }
            let legal = variant.legal_turns(&pos);
            let turn = match table.best(variant, &pos) {
                Some((best, _)) if rng.below(100) < PERFECT_PER_HUNDRED => best,
                _ => legal[rng.below(legal.len())],
            };
            pos = variant.play(&pos, turn).expect("a legal turn");
        }
    }
    // Longest first; ties in the order found, which the seed fixes.
    found.sort_by_key(|&(_, d)| std::cmp::Reverse(d));
    let men = |p: &Position| p.on_board(Color::White) + p.on_board(Color::Black);
    let few = count / 3;
    let mut chosen: Vec<Start> = found
        .iter()
        .take(count.saturating_sub(few))
        .map(|&(position, plies)| Start {
            position,
            plies,
            kind: Kind::Longest,
        })
        .collect();
    let fewest = found.iter().map(|(p, _)| men(p)).min();
    let classic: Vec<Start> = found
        .iter()
        .filter(|(p, _)| Some(men(p)) == fewest && !chosen.iter().any(|s| s.position == *p))
        .take(few)
        .map(|&(position, plies)| Start {
            position,
            plies,
            kind: Kind::FewMen,
        })
        .collect();
    // Too few with the fewest men: the next longest make up the number.
    let more: Vec<Start> = found
        .iter()
        .skip(chosen.len())
        .filter(|(p, _)| !classic.iter().any(|s| s.position == *p))
        .take(count.saturating_sub(chosen.len() + classic.len()))
        .map(|&(position, plies)| Start {
            position,
            plies,
            kind: Kind::Longest,
        })
        .collect();
    chosen.extend(more);
    chosen.extend(classic);
    chosen
}

/// Whether some turn of `pos` gives its win away: a start where every turn wins teaches nothing.
fn can_slip(variant: &Variant, table: &Table, pos: &Position) -> bool {
    super::puzzles::values(variant, table, pos)
        .is_some_and(|all| all.iter().any(|(_, v)| !matches!(v, Value::Win(_))))
}

/// What one of the player's turns came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// What the position was worth for the player before the turn.
    pub before: Value,
    /// What the turn was worth for the player.
    pub after: Value,
    /// The table's best defence, when the game goes on after the turn.
    pub reply: Option<Turn>,
    /// The position after the turn and the reply: the player's to move again unless it is over.
    pub then: Position,
    /// How the game ended, if it did (after the turn or after the reply).
    pub over: Option<Outcome>,
}

impl Step {
    /// Whether the turn gave something away: a win let go to a draw or a loss, or a draw to a
    /// loss.
    pub fn slipped(&self) -> bool {
        outcome_rank(self.after) < outcome_rank(self.before)
    }
}

/// A value's result alone, ordered: a loss, a draw, a win.
fn outcome_rank(value: Value) -> u8 {
    match value {
        Value::Loss(_) => 0,
        Value::Draw => 1,
        Value::Win(_) => 2,
    }
}

/// Why a turn cannot be played in the trainer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StepError {
    /// The table does not hold the position (or one a turn from it leads to).
    #[error("the board's table does not hold this position")]
    Unknown,
    /// The game is over in the position.
    #[error("the game is over in this position")]
    Over,
    /// The turn is not legal in the position.
    #[error("the turn is not legal in this position")]
    Illegal,
}

/// Plays the player's `turn` in `pos` and answers it with the table's best defence.
pub fn step(
    variant: &Variant,
    table: &Table,
    pos: &Position,
    turn: Turn,
) -> Result<Step, StepError> {
    let before = table.value(pos).ok_or(StepError::Unknown)?;
    if variant.status(pos).is_some() {
        return Err(StepError::Over);
    }
    let next = variant.play(pos, turn).map_err(|_| StepError::Illegal)?;
    let after = table.value(&next).ok_or(StepError::Unknown)?.back();
    if let Some(outcome) = variant.status(&next) {
        return Ok(Step {
            before,
            after,
            reply: None,
            then: next,
            over: Some(outcome),
        });
    }
    let (reply, _) = table.best(variant, &next).ok_or(StepError::Unknown)?;
    let then = variant.play(&next, reply).map_err(|_| StepError::Unknown)?;
    Ok(Step {
        before,
        after,
        reply: Some(reply),
        then,
        over: variant.status(&then),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::puzzles::tests::{five, variant};
    use crate::engine::solve;

    /// Three Men's Morris and Five Men's Morris with their tables.
    fn boards() -> [(Variant, Table); 2] {
        let three = variant(1, 3);
        let table = solve(&three, 1).unwrap();
        [(three, table), five().clone()]
    }

    #[test]
    fn starts_are_won_endgames_the_same_from_one_seed() {
        for (variant, table) in boards() {
            let slug = variant.rules().board.rings;
            let all = starts(&variant, &table, 1, 6);
            assert_eq!(all.len(), 6, "{slug}");
            assert_eq!(all, starts(&variant, &table, 1, 6));
            for s in &all {
                let p = &s.position;
                assert_eq!(p.hand(Color::White) + p.hand(Color::Black), 0);
                assert_eq!(table.value(p), Some(Value::Win(s.plies)), "{slug}");
                assert!(s.plies >= SHORTEST);
                assert!(can_slip(&variant, &table, p));
            }
            let longest = all.iter().filter(|s| s.kind == Kind::Longest);
            assert!(longest.clone().count() >= 4);
            assert!(
                longest
                    .clone()
                    .zip(longest.skip(1))
                    .all(|(a, b)| a.plies >= b.plies)
            );
            assert!(all.iter().any(|s| s.kind == Kind::FewMen), "{slug}");
            let distinct: HashSet<_> = all.iter().map(|s| s.position).collect();
            assert_eq!(distinct.len(), all.len());
        }
    }

    /// Plays a start out, the player's turns given by `choose`, checking each step's values.
    #[test]
    fn perfect_play_wins_in_the_distance_shown_and_a_slip_is_seen() {
        let (variant, table) = five();
        let all = starts(variant, table, 1, 6);
        let start = all[0].clone();
        let me = start.position.to_move();
        let mut pos = start.position;
        let mut plies = start.plies;
        loop {
            let (best, _) = table.best(variant, &pos).unwrap();
            let s = step(variant, table, &pos, best).unwrap();
            assert_eq!(s.before, Value::Win(plies));
            assert_eq!(s.after, Value::Win(plies));
            assert!(!s.slipped());
            if let Some(over) = s.over {
                assert_eq!(over.winner, Some(me));
                assert!(plies <= 2);
                break;
            }
            plies -= 2;
            assert_eq!(table.value(&s.then), Some(Value::Win(plies)));
            pos = s.then;
        }

        // A turn that lets the win go: said so.
        let (pos, weak, worth) = all
            .iter()
            .find_map(|s| {
                let turns = crate::engine::puzzles::values(variant, table, &s.position)?;
                let (t, v) = turns
                    .into_iter()
                    .find(|(_, v)| !matches!(v, Value::Win(_)))?;
                Some((s.position, t, v))
            })
            .expect("a turn that gives the win away");
        let s = step(variant, table, &pos, weak).unwrap();
        assert!(s.slipped());
        assert_eq!(s.after, worth);
    }

    #[test]
    fn an_illegal_turn_is_refused() {
        let [(variant, table), _] = boards();
        let start = starts(&variant, &table, 1, 3)[0].clone();
        let pos = start.position;
        let illegal = variant
            .legal_turns(&variant.start())
            .into_iter()
            .find(|t| !variant.is_legal(&pos, *t))
            .unwrap();
        assert_eq!(
            step(&variant, &table, &pos, illegal),
            Err(StepError::Illegal)
        );
    }
}
