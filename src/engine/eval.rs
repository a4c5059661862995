//! The evaluation of a position for the search: what a strong player counts when no end is in
//! sight. Scores are in hundredths of a man, from the side to move's point of view.
//!
//! - **Men**, on the board and in hand: the game is won by taking them.
//! - **Open mills**: two men of a mill and its third point empty. During placement (or flying)
//!   each is a threat to close; a point that would close two at once is a double threat.
//! - **Running mills**: a man next to the empty third point of a mill whose other two points are
//!   its side's, which closes it by sliding there; a **double mill** when that man stands in a
//!   closed mill already, so that every slide closes one; and closed mills a man can step out of
//!   and back into (**closable** mills).
//! - **Mobility in every phase**: the empty points next to a side's men, men with none
//!   (**blocked**), men with one (that one man more **shuts in**), and the side's **liberties**
//!   (the distinct empty points next to its men). A side that cannot slide once its hand is empty
//!   loses, and placement is where such positions are made: while the opponent still has as many
//!   men in hand as the side has liberties, it can be shut in completely (a **blockade threat**).
//!
//! Each phase (placing, sliding) has its own weights ([`Weights`]); a side that flies counts no
//! mobility. `merels tune` fits the weights by self-play (docs/ENGINE.md).

use crate::rules::board::points;
use crate::rules::{Color, Mask, MillEffect, Position, Variant};

/// A man, in evaluation units.
pub const MAN: i32 = 100;

/// Liberties at or below which a side that the opponent can shut in is under a blockade threat.
const BLOCKADE_LIBERTIES: i32 = 2;

/// The weights of the evaluation's terms for one phase, in hundredths of a man.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PhaseWeights {
    /// An empty point that would close a mill of the side.
    pub threat: i32,
    /// An empty point that would close two at once.
    pub double_threat: i32,
    /// A man that closes a mill by one slide.
    pub running: i32,
    /// A running mill whose man stands in a closed mill: a capture every other turn.
    pub double_mill: i32,
    /// A closed mill one of whose men can step out (and back in).
    pub closable: i32,
    /// An empty point next to a man (counted once per man).
    pub mobility: i32,
    /// A man with no empty point next to it.
    pub blocked: i32,
    /// A man with exactly one.
    pub shut_in: i32,
    /// Liberties the opponent can still fill: as many men in hand as the side has liberties.
    pub blockade_threat: i32,
}

/// The evaluation's weights: while a side places its men, and once it slides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Weights {
    /// While the side has men in hand.
    pub placing: PhaseWeights,
    /// Once its hand is empty.
    pub sliding: PhaseWeights,
}

impl Weights {
    /// The weights as `merels tune` left them (docs/ENGINE.md says how they were fitted).
    pub const DEFAULT: Weights = Weights {
        placing: PhaseWeights {
            threat: 18,
            double_threat: 40,
            running: 10,
            double_mill: 30,
            closable: 8,
            mobility: 10,
            blocked: 20,
            shut_in: 6,
            blockade_threat: 120,
        },
        sliding: PhaseWeights {
            threat: 8,
            double_threat: 20,
            running: 30,
            double_mill: 60,
            closable: 12,
            mobility: 10,
            blocked: 20,
            shut_in: 6,
            blockade_threat: 80,
        },
    };

    /// The weights as a flat list, placing first, in the order of [`PhaseWeights`]'s fields
    /// (what the tuner varies).
    pub fn to_vec(&self) -> Vec<i32> {
        [self.placing, self.sliding]
            .iter()
            .flat_map(|w| {
                [
                    w.threat,
                    w.double_threat,
                    w.running,
                    w.double_mill,
                    w.closable,
                    w.mobility,
                    w.blocked,
                    w.shut_in,
                    w.blockade_threat,
                ]
            })
            .collect()
    }

    /// The weights from a flat list of [`Weights::to_vec`]'s length; `None` for another length.
    pub fn from_slice(v: &[i32]) -> Option<Weights> {
        let phase = |w: &[i32]| PhaseWeights {
            threat: w[0],
            double_threat: w[1],
            running: w[2],
            double_mill: w[3],
            closable: w[4],
            mobility: w[5],
            blocked: w[6],
            shut_in: w[7],
            blockade_threat: w[8],
        };
        (v.len() == 18).then(|| Weights {
            placing: phase(&v[..9]),
            sliding: phase(&v[9..]),
        })
    }
}

/// The position's score for the side to move, with the default weights.
pub fn evaluate(variant: &Variant, pos: &Position) -> i32 {
    evaluate_with(variant, pos, &Weights::DEFAULT)
}

/// The position's score for the side to move, with `weights`.
pub fn evaluate_with(variant: &Variant, pos: &Position, weights: &Weights) -> i32 {
    let side = pos.to_move();
    let score = |c: Color| side_score(variant, pos, c, weights);
    score(side) - score(side.opponent())
}

fn side_score(variant: &Variant, pos: &Position, side: Color, weights: &Weights) -> i32 {
    let board = variant.board();
    let rules = variant.rules();
    let mine = pos.men(side);
    let theirs = pos.men(side.opponent());
    let empty = board.all() & !pos.occupied();
    let placing = pos.hand(side) > 0;
    let flies = rules.movement == crate::rules::Movement::Anywhere
        || (rules.flying && pos.total(side) == 3);
    let w = if placing {
        &weights.placing
    } else {
        &weights.sliding
    };

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
    score += w.threat * closing.count_ones() as i32 + w.double_threat * twice.count_ones() as i32;
    if flies {
        return score;
    }

    // Men that can slide into a point that closes a mill (not from the mill itself), and those
    // of them that stand in a closed mill already.
    let in_mill =
        |m: crate::rules::Point| board.mills_at(m).iter().any(|&mill| mill & mine == mill);
    let mut running = 0;
    let mut double = 0;
    for p in points(closing) {
        let movers = board.neighbours(p) & mine;
        let closers: Vec<_> = points(movers)
            .filter(|m| board.closes_mill(mine & !m.bit() | p.bit(), p))
            .collect();
        if !closers.is_empty() {
            running += 1;
            if closers.iter().any(|&m| in_mill(m)) {
                double += 1;
            }
        }
    }
    let closable = board
        .mills()
        .iter()
        .filter(|&&mill| {
            mill & mine == mill && points(mill).any(|m| board.neighbours(m) & empty != 0)
        })
        .count() as i32;
    score += w.running * running + w.double_mill * double + w.closable * closable;

    let mut mobility = 0;
    let mut blocked = 0;
    let mut shut_in = 0;
    let mut liberties: Mask = 0;
    for m in points(mine) {
        let free = board.neighbours(m) & empty;
        liberties |= free;
        match free.count_ones() {
            0 => blocked += 1,
            1 => shut_in += 1,
            _ => {}
        }
        mobility += free.count_ones() as i32;
    }
    score += w.mobility * mobility - w.blocked * blocked - w.shut_in * shut_in;
    let their_hand = i32::from(pos.hand(side.opponent()));
    let free = liberties.count_ones() as i32;
    if free <= BLOCKADE_LIBERTIES && free <= their_hand.max(1) && mine != 0 {
        // The opponent can fill every point the side could slide to (with its men in hand, or
        // by one slide): the fewer they are, the nearer the blockade.
        score -= w.blockade_threat * (BLOCKADE_LIBERTIES + 1 - free) / (BLOCKADE_LIBERTIES + 1);
    }
    if mobility == 0 && !placing {
        // Cannot move at all: lost when it is this side's turn.
        score -= 4 * MAN;
    }
    score
}
