//! Puzzles drawn from perfect play: positions of a solved board where exactly one turn keeps the
//! result (the win, or the draw), generated from seeded self-play, proven from the table, and
//! the judging of a solver's turns against them.
//!
//! A puzzle is a position and a line: the solver's turn, the computer's perfect answer, the
//! solver's next turn, and so on, ending on a solver's turn. Every solver turn of the line is the
//! only legal turn there that keeps the goal ([`Goal::Win`] or [`Goal::Draw`]); every other turn
//! gives something away (a win to a draw or a loss, a draw to a loss), so there is never a second
//! right answer to argue about. [`check`] proves this of a puzzle from the table alone, the same
//! way for one just generated and one read back from a file or a database.
//!
//! The values are the table's, which know neither repetition nor the 100-ply rule: a line stops
//! before it would repeat a position, and the solver's turns are few, so neither can decide one.

use super::Rng;
use super::table::{Table, Value};
use crate::rules::{Position, Turn, Variant};
use std::collections::HashSet;

/// What the solver must keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Goal {
    /// The side to move wins with perfect play and must keep the win.
    Win,
    /// The side to move draws with perfect play and must not lose.
    Draw,
}

impl Goal {
    /// The goal of a position of value `value` for the side to move; `None` for a lost one
    /// (no turn keeps anything there).
    pub fn of(value: Value) -> Option<Goal> {
        match value {
            Value::Win(_) => Some(Goal::Win),
            Value::Draw => Some(Goal::Draw),
            Value::Loss(_) => None,
        }
    }

    /// Whether a turn worth `value` (for the side that makes it) keeps the goal.
    pub fn kept_by(self, value: Value) -> bool {
        matches!(
            (self, value),
            (Goal::Win, Value::Win(_)) | (Goal::Draw, Value::Draw)
        )
    }

    /// `win` or `draw`, as files and the API write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Goal::Win => "win",
            Goal::Draw => "draw",
        }
    }

    /// The goal written by [`Goal::as_str`].
    pub fn parse(s: &str) -> Option<Goal> {
        match s {
            "win" => Some(Goal::Win),
            "draw" => Some(Goal::Draw),
            _ => None,
        }
    }
}

/// A position to solve, with its one right line.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Puzzle {
    /// Where the solver starts, to move.
    pub start: Position,
    /// What the solver must keep.
    pub goal: Goal,
    /// The solver's turns with the computer's answers between: solver first and last.
    pub line: Vec<Turn>,
}

impl Puzzle {
    /// How many turns the solver makes.
    pub fn solver_turns(&self) -> usize {
        self.line.len().div_ceil(2)
    }

    /// The line in notation, turns separated by spaces.
    pub fn line_string(&self, variant: &Variant) -> String {
        let turns: Vec<String> = self.line.iter().map(|&t| variant.turn_string(t)).collect();
        turns.join(" ")
    }

    /// A puzzle from its text: a position string, the goal's word and the line in notation (as
    /// [`Puzzle::line_string`] writes it). Only the notation is checked here: [`check`] proves
    /// the rest.
    pub fn parse(
        variant: &Variant,
        position: &str,
        goal: &str,
        line: &str,
    ) -> Result<Puzzle, Fault> {
        let text = |e: crate::rules::NotationError| Fault::Text(e.to_string());
        let start = variant.parse_position(position).map_err(text)?;
        let goal = Goal::parse(goal).ok_or_else(|| Fault::Text(format!("no goal '{goal}'")))?;
        let line = line
            .split_whitespace()
            .map(|t| variant.parse_turn(t).map_err(text))
            .collect::<Result<_, _>>()?;
        Ok(Puzzle { start, goal, line })
    }
}

/// How a puzzle is generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wanted {
    /// How many puzzles, at most (fewer when the board has no more to give).
    pub count: usize,
    /// Where the self-play's choices come from: the same seed, the same set.
    pub seed: u64,
    /// The most turns the solver makes in one puzzle (at least one).
    pub depth: usize,
}

/// Plies of one self-play game at most: long enough to reach every phase of the small boards.
const GAME_PLIES: usize = 80;
/// In how many plies of a hundred the self-play plays the perfect turn rather than a random one:
/// mostly good play, so that its positions are ones games reach, with enough errors to leave
/// positions won and drawn on a knife's edge.
const PERFECT_PER_HUNDRED: usize = 60;
/// Self-play games per puzzle asked for, at most, before the generator gives up on a board that
/// has no more.
const GAMES_PER_PUZZLE: usize = 40;

/// Puzzles of `variant` from seeded self-play, judged by its solved `table`, in the order found:
/// the same `wanted` gives the same set. Each passes [`check`].
pub fn generate(variant: &Variant, table: &Table, wanted: Wanted) -> Vec<Puzzle> {
    let mut rng = Rng::new(wanted.seed);
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    let depth = wanted.depth.max(1);
    let games = wanted.count.saturating_mul(GAMES_PER_PUZZLE).max(1);
    for _ in 0..games {
        if found.len() >= wanted.count {
            break;
        }
        let mut pos = variant.start();
        for _ in 0..GAME_PLIES {
            if found.len() >= wanted.count || variant.status(&pos).is_some() {
                break;
            }
            if seen.insert(pos)
                && let Some(puzzle) = puzzle_at(variant, table, &pos, depth)
            {
                found.push(puzzle);
            }
            let legal = variant.legal_turns(&pos);
            let turn = match table.best(variant, &pos) {
                Some((best, _)) if rng.below(100) < PERFECT_PER_HUNDRED => best,
                _ => legal[rng.below(legal.len())],
            };
            pos = variant.play(&pos, turn).expect("a legal turn");
        }
    }
    found
}

/// The puzzle starting at `start`, if its side to move has exactly one turn keeping its result:
/// the line runs on while the computer's perfect answer leaves the solver exactly one again, up
/// to `depth` solver turns.
pub fn puzzle_at(
    variant: &Variant,
    table: &Table,
    start: &Position,
    depth: usize,
) -> Option<Puzzle> {
    let goal = Goal::of(table.value(start)?)?;
    let mut line = vec![only_keeper(variant, table, start, goal)?];
    let mut pos = variant.play(start, line[0]).ok()?;
    let mut visited = HashSet::from([*start, pos]);
    while line.len().div_ceil(2) < depth && variant.status(&pos).is_none() {
        let Some((reply, _)) = table.best(variant, &pos) else {
            break;
        };
        let Ok(next) = variant.play(&pos, reply) else {
            break;
        };
        let keeper = variant
            .status(&next)
            .is_none()
            .then(|| only_keeper(variant, table, &next, goal))
            .flatten();
        let Some(turn) = keeper else { break };
        let Ok(after) = variant.play(&next, turn) else {
            break;
        };
        if !visited.insert(next) || !visited.insert(after) {
            break;
        }
        line.extend([reply, turn]);
        pos = after;
    }
    Some(Puzzle {
        start: *start,
        goal,
        line,
    })
}

/// Every legal turn of `pos` with its value for the side to move, or `None` when one leads
/// outside the table.
pub fn values(variant: &Variant, table: &Table, pos: &Position) -> Option<Vec<(Turn, Value)>> {
    let mut all = Vec::new();
    let mut unknown = false;
    variant.for_each_successor(pos, |turn, next| match table.value(&next) {
        Some(v) => all.push((turn, v.back())),
        None => unknown = true,
    });
    (!unknown).then_some(all)
}

/// The one turn of `pos` that keeps `goal`, when there is exactly one and at least one other
/// turn to be tempted by.
fn only_keeper(variant: &Variant, table: &Table, pos: &Position, goal: Goal) -> Option<Turn> {
    let all = values(variant, table, pos)?;
    let mut keepers = all.iter().filter(|(_, v)| goal.kept_by(*v));
    let (turn, _) = keepers.next()?;
    (keepers.next().is_none() && all.len() >= 2).then_some(*turn)
}

/// The daily puzzle of UTC day `day` (days since the Unix epoch) among `boards` boards (at least
/// one): which board (the boards take turns, a day each) and a number to take modulo the size of
/// its set (from the day, so the same for everyone that day and hard to guess from the last).
pub fn daily(day: u64, boards: usize) -> (usize, usize) {
    let board = (day % boards.max(1) as u64) as usize;
    (board, Rng::new(day).below(1 << 30))
}

/// Why a puzzle is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Fault {
    /// The text of a puzzle is not in notation.
    #[error("not a puzzle: {0}")]
    Text(String),
    /// The line is empty, or ends on the computer's turn.
    #[error("the line must run from a solver's turn to a solver's turn")]
    Shape,
    /// The table does not hold a position of the line (or of a turn from it).
    #[error("the table does not hold a position of the line")]
    Unknown,
    /// The start is not worth the goal.
    #[error("the start is not a {0}")]
    Goal(&'static str),
    /// A turn of the line is not legal where it is played, or the game is over before it.
    #[error("turn {0} of the line is not legal")]
    Illegal(usize),
    /// At a solver's turn, another turn keeps the goal too (or no other turn exists).
    #[error("the solver's turn {0} is not the only one keeping the result")]
    NotUnique(usize),
    /// The solver's turn of the line does not keep the goal.
    #[error("the solver's turn {0} does not keep the result")]
    Loses(usize),
    /// The computer's answer is not a perfect one.
    #[error("the answer {0} is not perfect")]
    Imperfect(usize),
}

/// Proves from `table` that `puzzle` is one: the start keeps the goal, every solver turn of the
/// line is the only legal turn keeping it, and every answer between is perfect.
pub fn check(variant: &Variant, table: &Table, puzzle: &Puzzle) -> Result<(), Fault> {
    if puzzle.line.len().is_multiple_of(2) {
        return Err(Fault::Shape);
    }
    let start = table.value(&puzzle.start).ok_or(Fault::Unknown)?;
    if Goal::of(start) != Some(puzzle.goal) {
        return Err(Fault::Goal(puzzle.goal.as_str()));
    }
    let mut pos = puzzle.start;
    for (i, &turn) in puzzle.line.iter().enumerate() {
        if variant.status(&pos).is_some() || !variant.is_legal(&pos, turn) {
            return Err(Fault::Illegal(i));
        }
        let all = values(variant, table, &pos).ok_or(Fault::Unknown)?;
        let worth = |t: Turn| all.iter().find(|(x, _)| *x == t).map(|&(_, v)| v);
        let value = worth(turn).ok_or(Fault::Illegal(i))?;
        if i % 2 == 0 {
            if !puzzle.goal.kept_by(value) {
                return Err(Fault::Loses(i / 2));
            }
            let keepers = all.iter().filter(|(_, v)| puzzle.goal.kept_by(*v)).count();
            if keepers != 1 || all.len() < 2 {
                return Err(Fault::NotUnique(i / 2));
            }
        } else {
            let best = all.iter().map(|(_, v)| v.rank()).max();
            if Some(value.rank()) != best {
                return Err(Fault::Imperfect(i / 2));
            }
        }
        pos = variant.play(&pos, turn).map_err(|_| Fault::Illegal(i))?;
    }
    Ok(())
}

/// What the solver's turns so far come to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every solver turn was played, each right.
    Solved,
    /// Right so far: the computer answers `reply`, and the solver plays on.
    Continue {
        /// The computer's answer to the last turn.
        reply: Turn,
    },
    /// A solver turn gave the result away.
    Wrong {
        /// Which solver turn (0 the first).
        at: usize,
        /// What the turn played is worth for the solver.
        value: Value,
        /// The one right turn there.
        right: Turn,
        /// What the right turn is worth.
        right_value: Value,
    },
}

/// Why turns cannot be judged against a puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AttemptError {
    /// No turn was given.
    #[error("an attempt has at least one turn")]
    Empty,
    /// More turns than the puzzle asks of the solver.
    #[error("the puzzle asks {0} turns of the solver")]
    TooMany(usize),
    /// A turn not legal where it was played.
    #[error("the solver's turn {0} is not legal there")]
    Illegal(usize),
    /// The table does not hold a position reached (a puzzle of another table).
    #[error("the table does not hold this puzzle")]
    Unknown,
}

/// Judges the solver's turns `played`, in order, against `puzzle` (which [`check`] passed): the
/// first turn that differs from the line is wrong (the line's turn is the only one keeping the
/// goal), with both values; all right and complete is solved; all right and short continues.
pub fn judge(
    variant: &Variant,
    table: &Table,
    puzzle: &Puzzle,
    played: &[Turn],
) -> Result<Verdict, AttemptError> {
    if played.is_empty() {
        return Err(AttemptError::Empty);
    }
    if played.len() > puzzle.solver_turns() {
        return Err(AttemptError::TooMany(puzzle.solver_turns()));
    }
    let mut pos = puzzle.start;
    for (at, &turn) in played.iter().enumerate() {
        let right = puzzle.line[2 * at];
        if !variant.is_legal(&pos, turn) {
            return Err(AttemptError::Illegal(at));
        }
        if turn != right {
            let worth = |t: Turn| {
                let next = variant.play(&pos, t).map_err(|_| AttemptError::Unknown)?;
                table
                    .value(&next)
                    .map(Value::back)
                    .ok_or(AttemptError::Unknown)
            };
            return Ok(Verdict::Wrong {
                at,
                value: worth(turn)?,
                right,
                right_value: worth(right)?,
            });
        }
        pos = variant
            .play(&pos, turn)
            .map_err(|_| AttemptError::Illegal(at))?;
        if at + 1 < played.len() {
            let reply = puzzle.line[2 * at + 1];
            pos = variant
                .play(&pos, reply)
                .map_err(|_| AttemptError::Unknown)?;
        }
    }
    let last = played.len() - 1;
    Ok(match puzzle.line.get(2 * last + 1) {
        Some(&reply) => Verdict::Continue { reply },
        None => Verdict::Solved,
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::engine::solve;
    use crate::rules::{BoardSpec, MillEffect, Movement, Rules};
    use std::collections::BTreeMap;

    /// Three Men's Morris (flying, diagonals) and Five Men's Morris from their knobs (the
    /// engine's tests stay below the catalog).
    pub(in crate::engine) fn variant(rings: u8, men: u8) -> Variant {
        let three = rings == 1;
        let rules = Rules {
            board: BoardSpec {
                rings,
                midpoints: true,
                diagonals: three,
                centre: three,
            },
            men,
            movement: if three {
                Movement::Anywhere
            } else {
                Movement::Adjacent
            },
            flying: false,
            place_or_slide: false,
            mill: if three {
                MillEffect::Win
            } else {
                MillEffect::Remove
            },
            full_board_draw: false,
            no_move_back_into_mill: false,
            quiet_plies_draw: None,
            three_against_three_draw: None,
        };
        Variant::new("test".into(), rules, BTreeMap::new()).unwrap()
    }

    /// Five Men's Morris and its table, solved once for every test here.
    pub(in crate::engine) fn five() -> &'static (Variant, Table) {
        static FIVE: std::sync::OnceLock<(Variant, Table)> = std::sync::OnceLock::new();
        FIVE.get_or_init(|| {
            let variant = variant(2, 5);
            let table = solve(&variant, 2).unwrap();
            (variant, table)
        })
    }

    fn wanted(count: usize, seed: u64) -> Wanted {
        Wanted {
            count,
            seed,
            depth: 3,
        }
    }

    #[test]
    fn every_puzzle_generated_is_proven_unique() {
        let three = variant(1, 3);
        let three = (three.clone(), solve(&three, 2).unwrap());
        for (variant, table) in [&three, five()] {
            let puzzles = generate(variant, table, wanted(30, 7));
            assert_eq!(puzzles.len(), 30, "{:?}", variant.rules());
            for puzzle in &puzzles {
                assert_eq!(check(variant, table, puzzle), Ok(()), "{puzzle:?}");
            }
            assert!(puzzles.iter().any(|p| p.goal == Goal::Win));
            assert!(puzzles.iter().any(|p| p.goal == Goal::Draw));
        }
    }

    #[test]
    fn five_mens_morris_has_lines_several_turns_deep() {
        let (variant, table) = five();
        let puzzles = generate(variant, table, wanted(60, 1));
        assert!(puzzles.iter().any(|p| p.solver_turns() >= 2));
    }

    #[test]
    fn one_seed_one_set_and_another_seed_another() {
        let (variant, table) = five();
        let a = generate(variant, table, wanted(20, 42));
        assert_eq!(a, generate(variant, table, wanted(20, 42)));
        for p in &a {
            let text = (variant.position_string(&p.start), p.line_string(variant));
            let back = Puzzle::parse(variant, &text.0, p.goal.as_str(), &text.1);
            assert_eq!(back.as_ref(), Ok(p));
        }
        assert_ne!(a, generate(variant, table, wanted(20, 43)));
    }

    #[test]
    fn check_finds_a_second_keeper_and_an_imperfect_answer() {
        let (variant, table) = five();
        let puzzles = generate(variant, table, wanted(60, 3));
        let deep = puzzles.iter().find(|p| p.solver_turns() >= 2).unwrap();
        // A start where two turns keep the result is no puzzle.
        let all = values(variant, table, &deep.start).unwrap();
        let mut shorter = deep.clone();
        shorter.line.truncate(1);
        assert_eq!(check(variant, table, &shorter), Ok(()));
        let wrong = all.iter().find(|(t, _)| *t != deep.line[0]).unwrap().0;
        let mut bad = shorter.clone();
        bad.line[0] = wrong;
        assert_eq!(check(variant, table, &bad), Err(Fault::Loses(0)));
        let after = variant.play(&deep.start, deep.line[0]).unwrap();
        let answers = values(variant, table, &after).unwrap();
        let best = answers.iter().map(|(_, v)| v.rank()).max().unwrap();
        if let Some(&(weak, _)) = answers.iter().find(|(_, v)| v.rank() < best) {
            let mut bad = deep.clone();
            bad.line[1] = weak;
            assert_eq!(check(variant, table, &bad), Err(Fault::Imperfect(0)));
        }
        let mut even = deep.clone();
        even.line.truncate(2);
        assert_eq!(check(variant, table, &even), Err(Fault::Shape));
        let mut goal = shorter.clone();
        goal.goal = match goal.goal {
            Goal::Win => Goal::Draw,
            Goal::Draw => Goal::Win,
        };
        assert!(matches!(check(variant, table, &goal), Err(Fault::Goal(_))));
    }

    #[test]
    fn a_position_with_two_winning_turns_is_no_puzzle() {
        let (variant, table) = five();
        let mut rng = Rng::new(9);
        let mut pos = variant.start();
        // Self-play until a won position with two winning turns turns up.
        let doubled = loop {
            let all = values(variant, table, &pos).unwrap();
            let wins = all
                .iter()
                .filter(|(_, v)| matches!(v, Value::Win(_)))
                .count();
            if wins >= 2 {
                break pos;
            }
            let legal = variant.legal_turns(&pos);
            pos = variant.play(&pos, legal[rng.below(legal.len())]).unwrap();
            if variant.status(&pos).is_some() {
                pos = variant.start();
            }
        };
        assert_eq!(puzzle_at(variant, table, &doubled, 3), None);
        let all = values(variant, table, &doubled).unwrap();
        let win = all
            .iter()
            .find(|(_, v)| matches!(v, Value::Win(_)))
            .unwrap()
            .0;
        let claimed = Puzzle {
            start: doubled,
            goal: Goal::Win,
            line: vec![win],
        };
        assert_eq!(check(variant, table, &claimed), Err(Fault::NotUnique(0)));
    }

    #[test]
    fn judging_right_wrong_and_unfinished_turns() {
        let (variant, table) = five();
        let puzzles = generate(variant, table, wanted(60, 5));
        let deep = puzzles.iter().find(|p| p.solver_turns() >= 2).unwrap();
        let first = deep.line[0];
        assert_eq!(
            judge(variant, table, deep, &[first]),
            Ok(Verdict::Continue {
                reply: deep.line[1]
            })
        );
        let solver: Vec<Turn> = deep.line.iter().step_by(2).copied().collect();
        assert_eq!(judge(variant, table, deep, &solver), Ok(Verdict::Solved));
        let (wrong, value) = values(variant, table, &deep.start)
            .unwrap()
            .into_iter()
            .find(|(t, _)| *t != first)
            .unwrap();
        let Ok(Verdict::Wrong {
            at: 0,
            value: v,
            right,
            right_value,
        }) = judge(variant, table, deep, &[wrong])
        else {
            panic!("a wrong turn judged right");
        };
        assert_eq!((v, right), (value, first));
        assert!(deep.goal.kept_by(right_value) && !deep.goal.kept_by(v));
        assert_eq!(judge(variant, table, deep, &[]), Err(AttemptError::Empty));
        let mut long = solver.clone();
        long.push(first);
        assert_eq!(
            judge(variant, table, deep, &long),
            Err(AttemptError::TooMany(solver.len()))
        );
        let illegal = variant
            .legal_turns(&variant.start())
            .into_iter()
            .find(|t| !variant.is_legal(&deep.start, *t));
        if let Some(t) = illegal {
            assert_eq!(
                judge(variant, table, deep, &[t]),
                Err(AttemptError::Illegal(0))
            );
        }
    }

    #[test]
    fn the_daily_puzzle_is_one_per_day_and_the_boards_take_turns() {
        assert_eq!(daily(20_000, 4), daily(20_000, 4));
        let boards: Vec<usize> = (20_000..20_008).map(|d| daily(d, 4).0).collect();
        assert_eq!(boards, [0, 1, 2, 3, 0, 1, 2, 3]);
        let picks: HashSet<usize> = (20_000..20_030).map(|d| daily(d, 4).1 % 300).collect();
        assert!(picks.len() > 20, "{picks:?}");
        assert_eq!(daily(7, 0).0, 0);
    }
}
