//! The computer player: perfect play from solved tables on the small boards, and a search on the
//! big ones, at levels from a beginner who errs on purpose to the strongest the budget allows.
//!
//! Pure like the rules it reads (and nothing above them): no I/O, no async, no clock and no
//! randomness of its own. Tables are built and read as bytes, the caller stores them; a search
//! stops at a node budget or when the caller's timer sets a flag; a level's mistakes come from a
//! seed the caller gives.
//!
//! - [`index`]: how the positions of a small board are numbered, layer by layer.
//! - [`solve`](mod@solve): retrograde analysis into a [`Table`] of exact values.
//! - [`table`]: the table: values, the perfect turn, and its bytes.
//! - [`eval`] and [`search`]: the evaluation and the alpha-beta search.
//! - [`tune`]: fitting the evaluation's weights to games the engine plays itself.
//! - [`puzzles`]: puzzles with one right line, generated from a table and proven by it.
//! - [`trainer`]: won endgames to play out against the table's longest defence.

pub mod eval;
pub mod index;
pub mod puzzles;
pub mod search;
pub mod solve;
pub mod table;
pub mod trainer;
pub mod tune;

pub use search::{Found, Limits, Search};
pub use solve::{SolveError, solvable, solve};
pub use table::{Census, Table, TableError, Value};

use crate::rules::{Position, Turn, Variant};
use std::sync::atomic::AtomicBool;

/// How strongly the computer plays, from 1 (beginner) to [`Level::MAX`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(u8);

impl Level {
    /// The strongest level: perfect on a solved board, the whole budget on the others.
    pub const MAX: Level = Level(6);

    /// Every level, weakest first.
    pub fn all() -> impl Iterator<Item = Level> {
        (1..=Self::MAX.0).map(Level)
    }

    /// The level numbered `n` (1 to 6).
    pub fn new(n: u8) -> Option<Level> {
        (1..=Self::MAX.0).contains(&n).then_some(Level(n))
    }

    /// The level's number.
    pub fn number(self) -> u8 {
        self.0
    }

    /// The level's name, as the setup form and the game record show it.
    pub fn name(self) -> &'static str {
        ["beginner", "casual", "club", "strong", "expert", "master"][usize::from(self.0 - 1)]
    }

    /// How far the level searches: deeper and longer as it rises.
    pub fn limits(self) -> Limits {
        let i = usize::from(self.0 - 1);
        Limits {
            depth: [2, 3, 4, 6, 9, 64][i],
            nodes: [1_000, 5_000, 30_000, 150_000, 600_000, 3_000_000][i],
        }
    }

    /// The level's limits, with `nodes` (where given) in place of its own node budget.
    fn limits_with(self, nodes: Option<u64>) -> Limits {
        let limits = self.limits();
        Limits {
            nodes: nodes.unwrap_or(limits.nodes),
            ..limits
        }
    }

    /// In how many turns of a hundred the level plays a legal turn at random.
    fn blunders(self) -> u64 {
        [25, 10, 4, 1, 0, 0][usize::from(self.0 - 1)]
    }

    /// How much worse (hundredths of a man) a turn may look and still be chosen at random.
    fn slack(self) -> i32 {
        [120, 60, 25, 0, 0, 0][usize::from(self.0 - 1)]
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.0, self.name())
    }
}

/// What the computer thinks of its turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    /// The exact value from a solved table, for the side to move before the turn.
    Exact(Value),
    /// The search's score in hundredths of a man (near [`search::MATE`] for a forced end).
    Search(i32),
}

impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Exact(v) => write!(f, "{v}"),
            Score::Search(s) => f.write_str(&search::describe(*s)),
        }
    }
}

/// The computer's turn, with how it came to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// The turn to play.
    pub turn: Turn,
    /// What the turn is worth.
    pub score: Score,
    /// The deepest search finished (0 when a table answered).
    pub depth: u8,
    /// Nodes searched.
    pub nodes: u64,
}

/// What the computer is asked: a position of a game, and how to play it.
#[derive(Clone, Copy)]
pub struct Ask<'a> {
    /// The variant.
    pub variant: &'a Variant,
    /// The solved table of the variant, where there is one.
    pub table: Option<&'a Table>,
    /// The game's positions before this one, oldest first (for repetitions).
    pub earlier: &'a [Position],
    /// The position to play.
    pub position: &'a Position,
    /// How strongly to play.
    pub level: Level,
    /// Where the level's mistakes come from: the same seed, the same choice.
    pub seed: u64,
    /// Set by the caller to stop the search at the deepest iteration it finished.
    pub stop: Option<&'a AtomicBool>,
    /// A node budget in place of the level's own (the strongest level, given time).
    pub nodes: Option<u64>,
}

/// The computer's turn in `ask.position`; `None` when the game is over there.
pub fn choose(ask: Ask<'_>) -> Option<Choice> {
    let Ask {
        variant,
        table,
        earlier,
        position,
        level,
        seed,
        stop,
        nodes,
    } = ask;
    let mut rng = Rng::new(seed);
    let legal = variant.legal_turns(position);
    if legal.is_empty() {
        return None;
    }
    let blunder = (rng.below(100) as u64) < level.blunders();
    let perfect = table
        .filter(|t| t.is_of(variant))
        .and_then(|t| t.best(variant, position));
    if let (Some((best, value)), Some(table)) = (perfect, table) {
        let (turn, value) = if blunder {
            let turn = legal[rng.below(legal.len())];
            let after = variant.play(position, turn).expect("a legal turn");
            (turn, table.value(&after).map_or(value, Value::back))
        } else {
            (best, value)
        };
        return Some(Choice {
            turn,
            score: Score::Exact(value),
            depth: 0,
            nodes: 0,
        });
    }
    let limits = level.limits_with(nodes);
    let mut search = Search::for_nodes(variant, limits.nodes).with_stop(stop);
    let exact = level.slack() > 0;
    let scores = search.root_scores(earlier, position, limits, exact)?;
    let (depth, nodes) = search.reach();
    let (best_turn, best) = scores[0];
    let turn = if blunder {
        legal[rng.below(legal.len())]
    } else if exact {
        // Any turn within the level's slack of the best, at random: a weaker player's eye. (Only
        // an exact search scores every turn: otherwise the others' scores are bounds.)
        let near: Vec<Turn> = scores
            .iter()
            .take_while(|(_, s)| best - s <= level.slack())
            .map(|&(t, _)| t)
            .collect();
        near[rng.below(near.len())]
    } else {
        best_turn
    };
    let score = scores
        .iter()
        .find(|(t, _)| *t == turn)
        .map_or(best, |&(_, s)| s);
    Some(Choice {
        turn,
        score: Score::Search(score),
        depth,
        nodes,
    })
}

/// Every legal turn of `ask.position` with what it is worth, best first: exact values from a
/// table where there is one, otherwise a search of every turn with a full window (the level and
/// seed play no part: this is analysis, not play).
pub fn score_all(ask: Ask<'_>) -> Vec<(Turn, Score)> {
    let Ask {
        variant,
        table,
        earlier,
        position,
        stop,
        nodes,
        ..
    } = ask;
    if let Some(table) = table.filter(|t| t.is_of(variant)) {
        let mut scored = Vec::new();
        variant.for_each_successor(position, |turn, next| {
            scored.push((turn, table.value(&next).map(Value::back)));
        });
        if scored.iter().all(|(_, v)| v.is_some()) {
            let mut scored: Vec<(Turn, Value)> = scored
                .into_iter()
                .map(|(t, v)| (t, v.expect("checked")))
                .collect();
            scored.sort_by_key(|(_, v)| std::cmp::Reverse(v.rank()));
            return scored
                .into_iter()
                .map(|(t, v)| (t, Score::Exact(v)))
                .collect();
        }
    }
    let limits = Level::MAX.limits_with(nodes);
    let mut search = Search::for_nodes(variant, limits.nodes).with_stop(stop);
    search
        .root_scores(earlier, position, limits, true)
        .unwrap_or_default()
        .into_iter()
        .map(|(t, s)| (t, Score::Search(s)))
        .collect()
}

/// A tiny seeded generator (xorshift64*): the same seed makes the same mistakes (and, in the
/// tests, the same random games).
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (any value, zero included).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A number below `n` (which must not be zero).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// What the engine makes of one turn of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Judged {
    /// What the position before the turn is worth for the side that moved, with its best turn.
    pub best: Choice,
    /// What the turn played is worth for the side that played it.
    pub played: Score,
    /// How bad the turn was, if it was.
    pub mark: Option<Mark>,
}

/// A turn that cost something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// It threw away a result: a win to a draw or a loss, a draw to a loss (exact, from a table),
    /// or by the search at least two men or a forced end.
    Blunder,
    /// By the search, it gave away more than half a man to the best turn.
    Mistake,
}

impl Mark {
    /// `blunder` or `mistake`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Blunder => "blunder",
            Mark::Mistake => "mistake",
        }
    }
}

/// Judges every turn of a game (`positions` from its start, one more than `turns`): exactly from
/// `table` where it covers the positions, else by a search of `nodes` nodes per position.
/// `None` in place of a turn once `stop` is set.
pub fn analyse(
    variant: &Variant,
    table: Option<&Table>,
    positions: &[Position],
    turns: &[Turn],
    nodes: u64,
    stop: Option<&AtomicBool>,
) -> Vec<Option<Judged>> {
    let table = table.filter(|t| t.is_of(variant));
    let mut search = Search::for_nodes(variant, nodes).with_stop(stop);
    let limits = Limits { depth: 64, nodes };
    let class = |v: Value| match v {
        Value::Win(_) => 2,
        Value::Draw => 1,
        Value::Loss(_) => 0,
    };
    turns
        .iter()
        .enumerate()
        .map(|(i, &turn)| {
            if stop.is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed)) {
                return None;
            }
            let (before, after) = (&positions[i], &positions[i + 1]);
            let earlier = &positions[..i];
            if let Some(t) = table
                && let (Some((best, value)), Some(next)) = (t.best(variant, before), t.value(after))
            {
                let played = next.back();
                let mark = (class(played) < class(value)).then_some(Mark::Blunder);
                let best = Choice {
                    turn: best,
                    score: Score::Exact(value),
                    depth: 0,
                    nodes: 0,
                };
                return Some(Judged {
                    best,
                    played: Score::Exact(played),
                    mark,
                });
            }
            let found = search.best(earlier, before, limits)?;
            let best = Choice {
                turn: found.turn,
                score: Score::Search(found.score),
                depth: found.depth,
                nodes: found.nodes,
            };
            let played = if turn == found.turn {
                found.score
            } else {
                let mut with_before = earlier.to_vec();
                with_before.push(*before);
                match search.best(&with_before, after, limits) {
                    Some(reply) => -reply.score,
                    // The turn ended the game: judged by the end it made.
                    None => match variant.status(after).and_then(|o| o.winner) {
                        Some(w) if w == before.to_move() => search::MATE - 1,
                        Some(_) => -(search::MATE - 1),
                        None => 0,
                    },
                }
            };
            let lost = i64::from(found.score) - i64::from(played);
            let forced = found.score > -search::MATE_BOUND && played < -search::MATE_BOUND;
            let mark = if forced || lost >= 2 * i64::from(eval::MAN) {
                Some(Mark::Blunder)
            } else if lost > i64::from(eval::MAN) / 2 {
                Some(Mark::Mistake)
            } else {
                None
            };
            Some(Judged {
                best,
                played: Score::Search(played),
                mark,
            })
        })
        .collect()
}
