//! Retrograde analysis: the exact value of every position of a small board, computed layer by
//! layer from the rules engine's own move generation.
//!
//! Layers (see [`super::index`]) are solved so that every turn leaving a layer leads to one solved
//! before it: placing empties a hand a little, removing takes a man off the board. Inside a layer
//! only slides without a removal stay, and they can go round in circles, so the layer is solved
//! backwards: first every position whose value its turns out of the layer already decide (or
//! that has no turn at all), then, in order of distance to the end, the positions one slide
//! before a decided one. A position one slide before a lost one is won; a position whose every
//! turn leads to a won one is lost. Whatever is left undecided can be held for ever by both
//! sides: a draw, which is what threefold repetition makes of it.
//!
//! The 100-ply rule is not part of the values: a win that needed more than 100 plies without a
//! removal would be a draw in play. [`super::Table::census`] gives the longest distance to the
//! end, and while that stays under 100 no value can change (docs/ENGINE.md lists it per board).

use super::index::{LayerKey, MAX_POINTS, Numbering};
use super::table::{self, Layer, Table, Value};
use crate::rules::board::points;
use crate::rules::{MillEffect, Movement, Setup, Variant};

/// Why a variant cannot be solved outright.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// The board has too many points for a table (the 24-point boards are searched instead).
    #[error("{0} points are too many to solve outright (at most {MAX_POINTS})")]
    TooBig(usize),
    /// A rule that makes a position depend on more than its men, hands and side to move.
    #[error("the tables do not cover {0}")]
    Rule(&'static str),
    /// A position further from the end than a table's byte can say.
    #[error("a position {0} plies from the end is too far for the table's format")]
    TooLong(u16),
}

/// While solving, a value's code is `d + 1` in two bytes (0 a draw or not decided yet), so that
/// any distance fits until the layer is stored in a byte a value.
fn code(value: Value) -> u16 {
    match value {
        Value::Draw => DRAW,
        Value::Win(d) | Value::Loss(d) => d + 1,
    }
}

const DRAW: u16 = 0;
const NOT_A_POSITION: u16 = u16::MAX;

/// Whether the tables can cover `variant`: a board of at most 17 points, and no rule whose
/// positions the tables cannot number.
pub fn solvable(variant: &Variant) -> Result<(), SolveError> {
    let rules = variant.rules();
    if variant.board().len() > MAX_POINTS {
        Err(SolveError::TooBig(variant.board().len()))
    } else if rules.place_or_slide {
        Err(SolveError::Rule("placing or sliding at will"))
    } else if rules.no_move_back_into_mill {
        Err(SolveError::Rule("the move-back rule"))
    } else {
        Ok(())
    }
}

/// How many positions (and arrangements that are none) the table of `variant` holds.
pub fn positions(variant: &Variant) -> usize {
    let points = variant.board().len() as u32;
    LayerKey::all(variant).iter().map(|k| k.len(points)).sum()
}

/// Whether `variant`'s table is small enough to solve whenever it is wanted rather than keep in
/// a file (Three Men's Morris: a few thousand positions, about a millisecond).
pub fn on_the_spot(variant: &Variant) -> bool {
    positions(variant) <= 1_000_000
}

/// A layer in the making: undecided positions count their turns still undecided.
struct Work {
    values: Vec<u16>,
    /// Turns within the layer not yet known to lead to a win for the opponent, or [`HELD`].
    open: Vec<u8>,
    /// The longest distance among the opponent's wins found so far, for a loss's length.
    longest: Vec<u16>,
}

/// `open` of a position that can never be lost: it has a turn to a draw or to a win.
const HELD: u8 = u8::MAX;

/// Positions by distance to the end, decided (`done`) or a win found by a turn out of the layer
/// that a quicker slide may still beat (`maybe`).
#[derive(Default)]
struct Buckets {
    done: Vec<Vec<u32>>,
    maybe: Vec<Vec<u32>>,
}

impl Buckets {
    fn push(list: &mut Vec<Vec<u32>>, distance: u16, index: u32) {
        let d = usize::from(distance);
        if list.len() <= d {
            list.resize_with(d + 1, Vec::new);
        }
        list[d].push(index);
    }

    /// The positions at distance `d`, leaving the list empty.
    fn take(list: &mut [Vec<u32>], d: usize) -> Vec<u32> {
        list.get_mut(d).map(std::mem::take).unwrap_or_default()
    }

    fn merge(&mut self, other: Buckets) {
        for (lists, more) in [(&mut self.done, other.done), (&mut self.maybe, other.maybe)] {
            for (d, items) in more.into_iter().enumerate() {
                if lists.len() <= d {
                    lists.resize_with(d + 1, Vec::new);
                }
                lists[d].extend(items);
            }
        }
    }
}

/// Solves every position of `variant`, on `threads` threads. Seconds for Five and Six Men's
/// Morris, minutes for Seven (docs/ENGINE.md).
pub fn solve(variant: &Variant, threads: usize) -> Result<Table, SolveError> {
    solve_layers(variant, threads, |_| true)
}

/// Solves the layers `wanted` picks, which must include every layer their turns lead to (the
/// endgames alone, say: both hands empty and few men). Positions of other layers are not in the
/// table.
pub fn solve_layers(
    variant: &Variant,
    threads: usize,
    wanted: impl Fn(LayerKey) -> bool,
) -> Result<Table, SolveError> {
    solvable(variant)?;
    let mut table = Table::new(variant, Vec::new());
    for key in LayerKey::all(variant).into_iter().filter(|&k| wanted(k)) {
        let layer = solve_layer(variant, &table, key, threads.max(1))?;
        table.push(layer);
    }
    Ok(table)
}

fn solve_layer(
    variant: &Variant,
    solved: &Table,
    key: LayerKey,
    threads: usize,
) -> Result<Layer, SolveError> {
    let size = variant.board().len() as u32;
    let len = key.len(size);
    let mut work = Work {
        values: vec![DRAW; len],
        open: vec![0; len],
        longest: vec![0; len],
    };
    let mut buckets = Buckets::default();

    // Every position's turns out of the layer, in parallel chunks of arrangements.
    let sides = key.sides().len();
    let arrangements = key.arrangements(size) as usize;
    let per_thread = arrangements.div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        let mut values = work.values.as_mut_slice();
        let mut open = work.open.as_mut_slice();
        let mut longest = work.longest.as_mut_slice();
        for first in (0..arrangements).step_by(per_thread) {
            let n = per_thread.min(arrangements - first) * sides;
            let (v, rest_v) = values.split_at_mut(n);
            let (o, rest_o) = open.split_at_mut(n);
            let (l, rest_l) = longest.split_at_mut(n);
            (values, open, longest) = (rest_v, rest_o, rest_l);
            handles.push(scope.spawn(move || {
                let range = first..first + n / sides;
                init_chunk(variant, solved, key, range, (v, o, l))
            }));
        }
        for handle in handles {
            buckets.merge(handle.join().expect("a solver thread panicked"));
        }
    });

    // Then backwards through the layer, nearest the end first.
    let mut d = 0;
    while d < buckets.done.len().max(buckets.maybe.len()) {
        let maybe = Buckets::take(&mut buckets.maybe, d);
        for s in maybe {
            if work.values[s as usize] == DRAW {
                work.values[s as usize] = code(Value::Win(d as u16));
                Buckets::push(&mut buckets.done, d as u16, s);
            }
        }
        let done = Buckets::take(&mut buckets.done, d);
        for s in done {
            let lost = d % 2 == 0;
            for_each_predecessor(variant, solved.numbering(), key, s as usize, |q| {
                let q = q as usize;
                if work.values[q] != DRAW {
                    return;
                }
                if lost {
                    work.values[q] = code(Value::Win(d as u16 + 1));
                    Buckets::push(&mut buckets.done, d as u16 + 1, q as u32);
                } else if work.open[q] != HELD {
                    work.longest[q] = work.longest[q].max(d as u16);
                    work.open[q] -= 1;
                    if work.open[q] == 0 {
                        let distance = work.longest[q] + 1;
                        work.values[q] = code(Value::Loss(distance));
                        Buckets::push(&mut buckets.done, distance, q as u32);
                    }
                }
            });
        }
        d += 1;
    }
    let values = work.values.into_iter().map(stored);
    Ok(Layer {
        key,
        values: values.collect::<Result<_, _>>()?,
    })
}

/// A solving code as the table stores it: the same `d + 1` in a byte.
fn stored(code: u16) -> Result<u8, SolveError> {
    match code {
        NOT_A_POSITION => Ok(table::NOT_A_POSITION),
        c => u8::try_from(c)
            .ok()
            .filter(|&b| b != table::NOT_A_POSITION)
            .ok_or_else(|| SolveError::TooLong(c - 1)),
    }
}

/// Looks at every turn of the positions of arrangements `range`: decides those whose turns out of
/// the layer (or lack of turns) decide them, and counts the rest's turns within the layer.
fn init_chunk(
    variant: &Variant,
    solved: &Table,
    key: LayerKey,
    range: std::ops::Range<usize>,
    (values, open, longest): (&mut [u16], &mut [u8], &mut [u16]),
) -> Buckets {
    let sides = key.sides();
    let mut buckets = Buckets::default();
    let mut this = range.start;
    let ranks = range.start as u32..range.end as u32;
    solved.numbering().for_each(key, ranks, |men| {
        this += 1;
        let this = this - 1;
        for (slot, &to_move) in sides.iter().enumerate() {
            let local = (this - range.start) * sides.len() + slot;
            let global = (this * sides.len() + slot) as u32;
            let setup = Setup {
                men,
                hand: key.hand,
                to_move,
            };
            let Ok(pos) = variant.setup(&setup) else {
                values[local] = NOT_A_POSITION;
                open[local] = HELD;
                continue;
            };
            let (mut within, mut any, mut held) = (0u8, false, false);
            let (mut quickest, mut slowest) = (None::<u16>, 0u16);
            variant.for_each_successor(&pos, |turn, next| {
                any = true;
                if turn.from.is_some() && turn.remove.is_none() {
                    within += 1;
                    return;
                }
                match solved.value(&next).expect("turns leave for solved layers") {
                    Value::Loss(d) => quickest = Some(quickest.map_or(d, |q| q.min(d))),
                    Value::Win(d) => slowest = slowest.max(d),
                    Value::Draw => held = true,
                }
            });
            if !any {
                let outcome = variant.status(&pos).expect("no turn ends the game");
                let value = match outcome.winner {
                    None => Value::Draw,
                    Some(w) if w == to_move => Value::Win(0),
                    Some(_) => Value::Loss(0),
                };
                values[local] = code(value);
                open[local] = HELD;
                if value != Value::Draw {
                    Buckets::push(&mut buckets.done, 0, global);
                }
            } else if let Some(q) = quickest {
                open[local] = HELD;
                Buckets::push(&mut buckets.maybe, q + 1, global);
            } else if held {
                open[local] = HELD;
            } else if within == 0 {
                values[local] = code(Value::Loss(slowest + 1));
                open[local] = HELD;
                Buckets::push(&mut buckets.done, slowest + 1, global);
            } else {
                open[local] = within;
                longest[local] = slowest;
            }
        }
    });
    buckets
}

/// Calls `f` with the index of every position of the layer from which a slide without a removal
/// leads to position `index`: the side that is not to move there takes back a slide.
fn for_each_predecessor(
    variant: &Variant,
    numbering: &Numbering,
    key: LayerKey,
    index: usize,
    mut f: impl FnMut(u32),
) {
    let board = variant.board();
    let rules = variant.rules();
    let sides = key.sides();
    let to_move = sides[index % sides.len()];
    let mover = to_move.opponent();
    let Some(slot) = key.slot(mover) else { return };
    if key.hand[mover.index()] != 0 {
        return;
    }
    let men = numbering.arrangement(key, (index / sides.len()) as u32);
    let mine = men[mover.index()];
    let empty = board.all() & !(men[0] | men[1]);
    let total = u32::from(key.board[mover.index()]);
    let flies = rules.movement == Movement::Anywhere || (rules.flying && total == 3);
    for to in points(mine) {
        // A slide that closed a mill took a man with it (and left the layer).
        if rules.mill == MillEffect::Remove && board.closes_mill(mine, to) {
            continue;
        }
        let from_any = if flies {
            empty
        } else {
            board.neighbours(to) & empty
        };
        for from in points(from_any) {
            let mut before = men;
            before[mover.index()] = mine & !to.bit() | from.bit();
            let rank = numbering.rank(before) as usize;
            f((rank * sides.len() + slot) as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{BoardSpec, Color, Rules};
    use std::collections::{BTreeMap, HashSet};

    /// A variant straight from its knobs (the engine's tests stay below the catalog).
    fn variant(rings: u8, diagonals: bool, centre: bool, men: u8, movement: Movement) -> Variant {
        let rules = Rules {
            board: BoardSpec {
                rings,
                midpoints: true,
                diagonals,
                centre,
            },
            men,
            movement,
            flying: false,
            place_or_slide: false,
            mill: if rings == 1 {
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

    /// The slides the backward pass takes back are exactly the rules' slides without a removal
    /// (from positions that are positions and still in play).
    #[test]
    fn unmoves_are_the_rules_slides_backwards() {
        for variant in [
            variant(1, true, true, 3, Movement::Anywhere),
            variant(1, true, true, 3, Movement::Adjacent),
            variant(2, false, false, 5, Movement::Adjacent),
            variant(2, false, true, 7, Movement::Adjacent),
        ] {
            let size = variant.board().len() as u32;
            let numbering = Numbering::new(size);
            let key = LayerKey {
                board: [3, 3],
                hand: [0, 0],
            };
            let sides = key.sides();
            let index =
                |men, side| numbering.rank(men) as usize * sides.len() + key.slot(side).unwrap();
            let (mut forward, mut backward) = (HashSet::new(), HashSet::new());
            numbering.for_each(key, 0..key.arrangements(size), |men| {
                for &side in sides {
                    let q = index(men, side);
                    let setup = Setup {
                        men,
                        hand: [0, 0],
                        to_move: side,
                    };
                    let Ok(pos) = variant.setup(&setup) else {
                        continue;
                    };
                    variant.for_each_successor(&pos, |turn, next| {
                        if turn.from.is_some() && turn.remove.is_none() {
                            let after = [Color::White, Color::Black].map(|c| next.men(c));
                            forward.insert((q, index(after, next.to_move())));
                        }
                    });
                    for_each_predecessor(&variant, &numbering, key, q, |p| {
                        backward.insert((p as usize, q));
                    });
                }
            });
            // Backward edges from arrangements that are no position, or whose game is over,
            // are skipped by the solver (their values are not open): leave them out here too.
            let playable = |q: usize| {
                let men = numbering.arrangement(key, (q / sides.len()) as u32);
                let setup = Setup {
                    men,
                    hand: [0, 0],
                    to_move: sides[q % sides.len()],
                };
                variant
                    .setup(&setup)
                    .is_ok_and(|pos| variant.status(&pos).is_none())
            };
            backward.retain(|&(p, _)| playable(p));
            assert!(!forward.is_empty());
            assert_eq!(forward, backward, "{:?}", variant.rules());
        }
    }
}
