//! The search for boards too big to solve: iterative deepening alpha-beta (negamax) with a
//! transposition table, move ordering, a quiescence search over mills and threefold repetition
//! scored as the draw it is.
//!
//! The search has no clock: it stops at a depth, after a number of nodes, or when the caller sets
//! a flag (the caller's timer does that), and answers with the deepest search it finished.

use super::eval::{MAN, evaluate};
use crate::rules::{Color, Position, Turn, Variant};
use std::sync::atomic::{AtomicBool, Ordering};

/// A score meaning "the side to move wins now"; a win in `n` plies scores `MATE - n`.
pub const MATE: i32 = 1_000_000;
/// Scores beyond this are wins or losses found by the search, not evaluations.
pub const MATE_BOUND: i32 = MATE - 10_000;

/// How far a search may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The deepest iteration, in plies.
    pub depth: u8,
    /// Nodes after which the search stops (it finishes depth 1 whatever this says).
    pub nodes: u64,
}

/// What a search found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// The best turn found.
    pub turn: Turn,
    /// Its score for the side to move: hundredths of a man, or near [`MATE`] for a forced end.
    pub score: i32,
    /// The deepest iteration finished.
    pub depth: u8,
    /// Nodes visited.
    pub nodes: u64,
}

/// A turn and its score, from a search of every root turn (see [`Search::root_scores`]).
pub type Scored = (Turn, i32);

#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    key: u64,
    turn: Option<Turn>,
    score: i32,
    depth: i8,
    bound: Bound,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Bound {
    #[default]
    Exact,
    Lower,
    Upper,
}

/// A search over one variant, keeping its transposition table between calls.
pub struct Search<'a> {
    variant: &'a Variant,
    table: Vec<Entry>,
    /// Turns that caused cut-offs, by (from + 1, to): tried earlier next time.
    history: Vec<u32>,
    /// The last two turns without a removal that caused a cut-off at each ply (killers): tried
    /// after removals, before the history's order, at the same ply elsewhere in the tree.
    killers: Vec<[Option<Turn>; 2]>,
    /// Hashes of the positions on the way here, each marked when a placement or removal led to
    /// it (nothing before such a turn can occur again).
    path: Vec<(u64, bool)>,
    nodes: u64,
    limit: u64,
    stop: Option<&'a AtomicBool>,
    aborted: bool,
    /// The deepest iteration the last call finished.
    finished_depth: u8,
}

impl<'a> Search<'a> {
    /// A search of `variant` with a transposition table of `2^table_bits` entries.
    pub fn new(variant: &'a Variant, table_bits: u8) -> Search<'a> {
        Search {
            variant,
            table: vec![Entry::default(); 1 << table_bits],
            history: vec![0; 26 * 26],
            killers: Vec::new(),
            path: Vec::new(),
            nodes: 0,
            limit: u64::MAX,
            stop: None,
            aborted: false,
            finished_depth: 0,
        }
    }

    /// A search whose transposition table suits a budget of `nodes`: about two entries a node,
    /// from a thousand up to a million (24 MB). Clearing a million entries takes longer than a
    /// beginner's whole search.
    pub fn for_nodes(variant: &'a Variant, nodes: u64) -> Search<'a> {
        let bits = (u64::BITS - nodes.saturating_mul(2).leading_zeros()).clamp(10, 20);
        Search::new(variant, bits as u8)
    }

    /// Stops the search, at the deepest iteration finished, once `flag` (if any) is set.
    pub fn with_stop(mut self, flag: Option<&'a AtomicBool>) -> Search<'a> {
        self.stop = flag;
        self
    }

    /// Searches `pos` (reached through `earlier`, the game's positions before it, for
    /// repetitions) and returns the best turn, or `None` when the game is over there.
    pub fn best(&mut self, earlier: &[Position], pos: &Position, limits: Limits) -> Option<Found> {
        let scores = self.root_scores(earlier, pos, limits, false)?;
        let (turn, score) = scores.first().copied()?;
        Some(Found {
            turn,
            score,
            depth: self.finished_depth,
            nodes: self.nodes,
        })
    }

    /// The deepest iteration the last search finished, and the nodes it visited.
    pub fn reach(&self) -> (u8, u64) {
        (self.finished_depth, self.nodes)
    }

    /// Every legal turn of `pos` with its score, best first. With `exact`, every turn's score is
    /// searched with a full window (slower), so that turns can be told apart by how much worse
    /// they are; otherwise only the first is exact.
    pub fn root_scores(
        &mut self,
        earlier: &[Position],
        pos: &Position,
        limits: Limits,
        exact: bool,
    ) -> Option<Vec<Scored>> {
        self.nodes = 0;
        self.limit = limits.nodes;
        self.aborted = false;
        self.finished_depth = 0;
        self.path.clear();
        let variant = self.variant;
        for p in earlier.iter().chain([pos]) {
            self.path.push((hash(p), false));
        }
        let mut moves = Vec::new();
        variant.for_each_successor(pos, |turn, next| moves.push((turn, next, 0)));
        if moves.is_empty() {
            return None;
        }
        let mut finished: Vec<Scored> = moves.iter().map(|&(t, _, _)| (t, 0)).collect();
        for depth in 1..=limits.depth.max(1) {
            let mut alpha = -MATE - 1;
            let mut this_depth = Vec::with_capacity(moves.len());
            for &(turn, next, _) in &moves {
                let window = if exact { -MATE - 1 } else { alpha };
                let score = -self.child(&next, turn, i32::from(depth) - 1, -MATE - 1, -window, 1);
                if self.aborted && depth > 1 {
                    break;
                }
                this_depth.push((turn, score));
                alpha = alpha.max(score);
            }
            if this_depth.len() < moves.len() {
                // An iteration cut short compares turns searched to different depths: keep the
                // last one finished.
                break;
            }
            // This iteration's turns best first: the answer, and the order the next one tries.
            let mut order: Vec<usize> = (0..this_depth.len()).collect();
            order.sort_by_key(|&i| std::cmp::Reverse(this_depth[i].1));
            finished = order.iter().map(|&i| this_depth[i]).collect();
            moves = order.iter().map(|&i| moves[i]).collect();
            self.finished_depth = depth;
            if self.aborted || finished[0].1.abs() > MATE_BOUND {
                break;
            }
        }
        Some(finished)
    }

    /// Searches the position a turn led to, keeping the path for repetitions.
    fn child(
        &mut self,
        next: &Position,
        turn: Turn,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: i32,
    ) -> i32 {
        let irreversible = turn.from.is_none() || turn.remove.is_some();
        self.path.push((hash(next), irreversible));
        let score = self.negamax(next, depth, alpha, beta, ply);
        self.path.pop();
        score
    }

    /// Whether the position at the end of the path occurred before since the last irreversible
    /// turn: a cycle either side can repeat into a draw.
    fn repeated(&self) -> bool {
        let Some(&(key, fresh)) = self.path.last() else {
            return false;
        };
        if fresh {
            return false;
        }
        for &(k, irreversible) in self.path.iter().rev().skip(1) {
            if k == key {
                return true;
            }
            if irreversible {
                break;
            }
        }
        false
    }

    fn tick(&mut self) {
        self.nodes += 1;
        if self.nodes.is_multiple_of(1024)
            && (self.nodes >= self.limit || self.stop.is_some_and(|f| f.load(Ordering::Relaxed)))
        {
            self.aborted = true;
        }
    }

    /// The end of a game with no legal turn, for the side to move, `ply` plies from the root.
    fn no_turn(&self, pos: &Position, ply: i32) -> i32 {
        match self.variant.status(pos).and_then(|o| o.winner) {
            None => 0,
            Some(w) if w == pos.to_move() => MATE - ply,
            Some(_) => -(MATE - ply),
        }
    }

    fn negamax(&mut self, pos: &Position, depth: i32, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        self.tick();
        if self.aborted {
            return 0;
        }
        if self.repeated() {
            return 0;
        }
        if depth <= 0 {
            return self.quiesce(pos, alpha, beta, ply, 0);
        }
        let key = self.path.last().map_or(0, |p| p.0);
        let slot = (key as usize) & (self.table.len() - 1);
        let entry = self.table[slot];
        let mut hinted = None;
        if entry.key == key {
            hinted = entry.turn;
            if i32::from(entry.depth) >= depth {
                let score = from_table(entry.score, ply);
                match entry.bound {
                    Bound::Exact => return score,
                    Bound::Lower if score >= beta => return score,
                    Bound::Upper if score <= alpha => return score,
                    _ => {}
                }
            }
        }
        let mut moves = self.ordered(pos, hinted, ply);
        if moves.is_empty() {
            return self.no_turn(pos, ply);
        }
        let original = alpha;
        let mut best = -MATE - 1;
        let mut best_turn = None;
        for (i, (turn, next, _)) in moves.drain(..).enumerate() {
            // Principal-variation search: the first turn with the full window, the others with
            // a null window that only proves them no better, searched again if one is.
            let mut score = if i == 0 {
                -self.child(&next, turn, depth - 1, -beta, -alpha, ply + 1)
            } else {
                -self.child(&next, turn, depth - 1, -alpha - 1, -alpha, ply + 1)
            };
            if i > 0 && score > alpha && score < beta && !self.aborted {
                score = -self.child(&next, turn, depth - 1, -beta, -alpha, ply + 1);
            }
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                best_turn = Some(turn);
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                let h = history_slot(turn);
                self.history[h] = self.history[h].saturating_add((depth * depth) as u32);
                if turn.remove.is_none() {
                    let slot = &mut self.killers[ply as usize];
                    if slot[0] != Some(turn) {
                        slot[1] = slot[0];
                        slot[0] = Some(turn);
                    }
                }
                break;
            }
        }
        let bound = if best <= original {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table[slot] = Entry {
            key,
            turn: best_turn,
            score: to_table(best, ply),
            depth: depth.min(i32::from(i8::MAX)) as i8,
            bound,
        };
        best
    }

    /// Searches only turns that close a mill, until the position is quiet: a search that stopped
    /// just before a capture would misjudge the position by a man.
    fn quiesce(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: i32, depth: u8) -> i32 {
        let variant = self.variant;
        let mut captures = Vec::new();
        let mut any = false;
        variant.for_each_successor(pos, |turn, next| {
            any = true;
            if turn.remove.is_some() {
                captures.push((turn, next));
            }
        });
        if !any {
            return self.no_turn(pos, ply);
        }
        let stand = evaluate(variant, pos);
        if stand >= beta || depth >= 6 {
            return stand;
        }
        alpha = alpha.max(stand);
        // One capture per mill-closing move is enough to see it: the removed man barely changes
        // the count, and trying each would multiply the work.
        captures.dedup_by_key(|(t, _)| (t.from, t.to));
        for (_, next) in captures {
            self.tick();
            if self.aborted {
                return 0;
            }
            self.path.push((hash(&next), true));
            let score = -self.quiesce(&next, -beta, -alpha, ply + 1, depth + 1);
            self.path.pop();
            if score >= beta {
                return score;
            }
            alpha = alpha.max(score);
        }
        alpha
    }

    /// The legal turns, the hinted one first, then removals, then the ply's killers, then by
    /// the history of cut-offs.
    fn ordered(
        &mut self,
        pos: &Position,
        hinted: Option<Turn>,
        ply: i32,
    ) -> Vec<(Turn, Position, u32)> {
        let ply = ply as usize;
        if self.killers.len() <= ply {
            self.killers.resize(ply + 1, [None; 2]);
        }
        let killers = self.killers[ply];
        let mut moves = Vec::new();
        self.variant.for_each_successor(pos, |turn, next| {
            let key = if Some(turn) == hinted {
                u32::MAX
            } else if turn.remove.is_some() {
                u32::MAX / 2 + removal_worth(self.variant, pos, turn)
            } else if Some(turn) == killers[0] {
                u32::MAX / 4 + 1
            } else if Some(turn) == killers[1] {
                u32::MAX / 4
            } else {
                self.history[history_slot(turn)].min(u32::MAX / 8)
            };
            moves.push((turn, next, key));
        });
        moves.sort_by_key(|m| std::cmp::Reverse(m.2));
        moves
    }
}

/// How good a removal looks before searching it: taking a man that stands in an open mill (two
/// men and an empty point) breaks a threat.
fn removal_worth(variant: &Variant, pos: &Position, turn: Turn) -> u32 {
    let Some(r) = turn.remove else { return 0 };
    let theirs = pos.men(pos.to_move().opponent());
    let empty = variant.board().all() & !pos.occupied();
    variant
        .board()
        .mills_at(r)
        .iter()
        .filter(|&&m| (m & theirs).count_ones() == 2 && m & empty != 0)
        .count() as u32
}

fn history_slot(turn: Turn) -> usize {
    turn.from.map_or(0, |f| f.index() + 1) * 26 + turn.to.index()
}

/// Mate scores are stored relative to the position, not the root.
fn to_table(score: i32, ply: i32) -> i32 {
    if score > MATE_BOUND {
        score + ply
    } else if score < -MATE_BOUND {
        score - ply
    } else {
        score
    }
}

fn from_table(score: i32, ply: i32) -> i32 {
    if score > MATE_BOUND {
        score - ply
    } else if score < -MATE_BOUND {
        score + ply
    } else {
        score
    }
}

/// A 64-bit key of everything that decides a position's turns.
pub fn hash(pos: &Position) -> u64 {
    let men = u64::from(pos.men(Color::White)) | u64::from(pos.men(Color::Black)) << 32;
    let slide = |c: Color| {
        pos.last_slide(c)
            .map_or(0, |(f, t)| 1 + u64::from(f.0) * 32 + u64::from(t.0))
    };
    let rest = u64::from(pos.hand(Color::White))
        | u64::from(pos.hand(Color::Black)) << 8
        | (pos.to_move().index() as u64) << 16
        | slide(Color::White) << 20
        | slide(Color::Black) << 32;
    mix(mix(men) ^ rest)
}

/// splitmix64's finaliser: every input bit moves every output bit.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A score in words: "+1.25" men, or "win in 7" / "loss in 4" plies for a forced end.
pub fn describe(score: i32) -> String {
    if score > MATE_BOUND {
        format!("win in {}", MATE - score)
    } else if score < -MATE_BOUND {
        format!("loss in {}", MATE + score)
    } else {
        format!("{:+.2}", f64::from(score) / f64::from(MAN))
    }
}
