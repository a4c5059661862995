//! The evaluation of a position for the search: what a strong player counts when no end is in
//! sight. Scores are in hundredths of a man, from the side to move's point of view.
//!
//! - **Men**, on the board and in hand: the game is won by taking them.
//! - **Open mills**: two men of a mill and its third point empty. During placement (or flying)
//!   each is a threat to close; a point that would close two at once is a double threat.
//! - **Running mills**: a man next to the empty third point of a mill whose other two points are
//!   its side's, which closes it by sliding there, and may slide back out and in again.
//! - **Mobility** while sliding: the empty points next to a side's men, and a heavy weight on
//!   men with none (blocked men). A side that cannot move loses.
//!
//! The weights shift with the phase: threats matter most while placing, mobility once sliding.

use crate::rules::board::points;
use crate::rules::{Color, Mask, MillEffect, Position, Variant};

/// A man, in evaluation units.
pub const MAN: i32 = 100;

/// The position's score for the side to move.
pub fn evaluate(variant: &Variant, pos: &Position) -> i32 {
    let side = pos.to_move();
    let score = |c: Color| side_score(variant, pos, c);
    score(side) - score(side.opponent())
}

fn side_score(variant: &Variant, pos: &Position, side: Color) -> i32 {
    let board = variant.board();
    let rules = variant.rules();
    let mine = pos.men(side);
    let theirs = pos.men(side.opponent());
    let empty = board.all() & !pos.occupied();
    let placing = pos.hand(side) > 0;
    let flies = rules.movement == crate::rules::Movement::Anywhere
        || (rules.flying && pos.total(side) == 3);

    let mut score = MAN * i32::from(pos.total(side));
    if rules.mill == MillEffect::Win {
        // No men are taken: only rows matter.
        score = 0;
    }

    // Open mills, and the empty points where a side's men would close one (or two at once).
    let mut closing: Mask = 0;
    let mut twice: Mask = 0;
    for &mill in board.mills() {
        if (mill & mine).count_ones() == 2 && mill & theirs == 0 {
            let third = mill & empty;
            twice |= closing & third;
            closing |= third;
        }
    }
    let threats = closing.count_ones() as i32;
    let doubles = twice.count_ones() as i32;

    // Men that can slide into a point that closes a mill (not from the mill itself).
    let mut running = 0;
    for p in points(closing) {
        let movers = board.neighbours(p) & mine;
        if points(movers).any(|m| board.closes_mill(mine & !m.bit() | p.bit(), p)) {
            running += 1;
        }
    }

    if placing || flies {
        score += 18 * threats + 40 * doubles;
    } else {
        score += 8 * threats + 30 * running;
        let mut mobility = 0;
        let mut blocked = 0;
        for m in points(mine) {
            let free = (board.neighbours(m) & empty).count_ones() as i32;
            mobility += free;
            if free == 0 {
                blocked += 1;
            }
        }
        score += 4 * mobility - 6 * blocked;
        if mobility == 0 && pos.hand(side) == 0 {
            // Cannot move at all: lost when it is this side's turn.
            score -= 4 * MAN;
        }
    }
    score
}
