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
    let in_mill = |m: crate::rules::Point| board.mills_at(m).iter().any(|&mill| mill & !mine == 0);
    let mut running = 0;
    let mut double = 0;
    for p in points(closing) {
        let movers = board.neighbours(p) & mine;
        let mut closes = false;
        let mut from_mill = false;
        for m in points(movers).filter(|m| board.closes_mill(mine & !m.bit() | p.bit(), p)) {
            closes = true;
            from_mill |= in_mill(m);
        }
        running += i32::from(closes);
        double += i32::from(from_mill);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{BoardSpec, MillEffect, Movement, Rules};

    /// Nine Men's Morris from its knobs (the engine's tests stay below the catalog).
    fn nine() -> Variant {
        let rules = Rules {
            board: BoardSpec {
                rings: 3,
                midpoints: true,
                diagonals: false,
                centre: false,
            },
            men: 9,
            movement: Movement::Adjacent,
            flying: true,
            place_or_slide: false,
            mill: MillEffect::Remove,
            full_board_draw: false,
            no_move_back_into_mill: false,
            quiet_plies_draw: None,
            three_against_three_draw: None,
        };
        Variant::new("nine-mens-morris".into(), rules, Default::default()).expect("a variant")
    }

    fn score(variant: &Variant, position: &str, weights: &Weights) -> i32 {
        let pos = variant.parse_position(position).expect("a position");
        evaluate_with(variant, &pos, weights)
    }

    #[test]
    fn a_man_shut_in_while_placing_counts_against_its_side() {
        let nine = nine();
        // The same men and hands; White's a7 has both its neighbours taken in the first.
        let hemmed = "a7 d7,a4 8/7 w";
        let free = "a7 g7,b4 8/7 w";
        let w = Weights::DEFAULT;
        assert!(score(&nine, hemmed, &w) < score(&nine, free, &w));
        // Without the mobility terms, placement sees no difference (as the old evaluation did).
        let mut blind = w;
        blind.placing = PhaseWeights {
            mobility: 0,
            blocked: 0,
            shut_in: 0,
            blockade_threat: 0,
            ..w.placing
        };
        assert_eq!(score(&nine, hemmed, &blind), score(&nine, free, &blind));
    }

    #[test]
    fn a_side_the_opponent_can_shut_in_is_under_a_blockade_threat() {
        let nine = nine();
        // Black has a man in hand; White's four men have no empty point next to them in the
        // first position, all of theirs in the second.
        let w = Weights::DEFAULT;
        let few = "a7,d7,g7,a1 a4,d6,g4,d1 0/1 b";
        let many = "a7,d7,g7,a1 b2,d2,f2,b4 0/1 b";
        // Black to move; the scores are Black's: White (the side shut in) is worse off in `few`.
        assert!(score(&nine, few, &w) > score(&nine, many, &w));
    }

    #[test]
    fn a_double_mill_is_worth_more_than_a_running_one() {
        let nine = nine();
        let w = Weights::DEFAULT;
        // White's a1-d1-g1 is closed and d1 can slide to d2, closing b2-d2-f2: a double mill.
        let double = "a1,d1,g1,b2,f2 a7,d7,g7,c5,e5 0/0 w";
        // The same shape but the row along the bottom is open: only a running mill.
        let running = "a1,g1,b2,f2,c3 a7,d7,g7,c5,e5 0/0 w";
        assert!(score(&nine, double, &w) > score(&nine, running, &w));
    }
}
