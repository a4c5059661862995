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

/// What a side that cannot slide, its hand empty, loses: it has no turn.
const STUCK: i32 = 4 * MAN;

/// The evaluation's terms for one phase: their weights in hundredths of a man, or (from
/// [`counts`]) how many of each a side has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Terms {
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
    /// A man with no empty point next to it (a penalty).
    pub blocked: i32,
    /// A man with exactly one (a penalty).
    pub shut_in: i32,
    /// Liberties the opponent can still fill: as many men in hand as the side has liberties (a
    /// penalty; counted as the liberties short of [`BLOCKADE_LIBERTIES`] + 1, and weighed as a
    /// share of them).
    pub blockade_threat: i32,
}

impl Terms {
    /// How many terms there are.
    pub const LEN: usize = 9;

    /// The terms in their order of declaration.
    pub fn to_array(self) -> [i32; Self::LEN] {
        [
            self.threat,
            self.double_threat,
            self.running,
            self.double_mill,
            self.closable,
            self.mobility,
            self.blocked,
            self.shut_in,
            self.blockade_threat,
        ]
    }

    /// The terms from [`Terms::to_array`]'s order.
    pub fn from_array(a: [i32; Self::LEN]) -> Terms {
        let [
            threat,
            double_threat,
            running,
            double_mill,
            closable,
            mobility,
            blocked,
            shut_in,
            blockade_threat,
        ] = a;
        Terms {
            threat,
            double_threat,
            running,
            double_mill,
            closable,
            mobility,
            blocked,
            shut_in,
            blockade_threat,
        }
    }

    /// The counts `self` weighed by `weights`, with the penalties' signs.
    pub fn weigh(&self, weights: &Terms) -> i32 {
        let w = weights;
        w.threat * self.threat
            + w.double_threat * self.double_threat
            + w.running * self.running
            + w.double_mill * self.double_mill
            + w.closable * self.closable
            + w.mobility * self.mobility
            - w.blocked * self.blocked
            - w.shut_in * self.shut_in
            - w.blockade_threat * self.blockade_threat / (BLOCKADE_LIBERTIES + 1)
    }

    /// The counts `self` as what each weight multiplies in [`Terms::weigh`] (signs and the
    /// blockade's share included): the tuner fits the weights to these.
    pub fn factors(&self) -> [f64; Self::LEN] {
        let mut f = self.to_array().map(f64::from);
        f[6] = -f[6];
        f[7] = -f[7];
        f[8] = -f[8] / f64::from(BLOCKADE_LIBERTIES + 1);
        f
    }
}

/// The evaluation's weights: while a side places its men, and once it slides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Weights {
    /// While the side has men in hand.
    pub placing: Terms,
    /// Once its hand is empty.
    pub sliding: Terms,
}

impl Weights {
    /// The weights, set by hand (commit 42eb58a). `merels tune --variant nine-mens-morris
    /// --seed 1 --games 1500 --nodes 3000` fitted others from these, which scored 45% against
    /// them on Nine Men's and 25.5% on Lasker (docs/ENGINE.md): these stay until a fit beats
    /// them.
    pub const DEFAULT: Weights = Weights {
        placing: Terms {
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
        sliding: Terms {
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

    /// The phase's weights.
    pub fn phase(&self, placing: bool) -> &Terms {
        if placing {
            &self.placing
        } else {
            &self.sliding
        }
    }
}

/// The position's score for the side to move, with the default weights.
pub fn evaluate(variant: &Variant, pos: &Position) -> i32 {
    evaluate_with(variant, pos, &Weights::DEFAULT)
}

/// The position's score for the side to move, with `weights`.
pub fn evaluate_with(variant: &Variant, pos: &Position, weights: &Weights) -> i32 {
    let side = pos.to_move();
    let score = |c: Color| {
        let counts = counts(variant, pos, c);
        counts.fixed + counts.terms.weigh(weights.phase(counts.placing))
    };
    score(side) - score(side.opponent())
}

/// One side's share of the evaluation before it is weighed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// What no weight changes: its men, and a loss when it cannot move.
    pub fixed: i32,
    /// Whether the side still places (which phase's weights apply).
    pub placing: bool,
    /// How many of each term it has.
    pub terms: Terms,
}

/// What the evaluation counts for `side` in `pos`.
pub fn counts(variant: &Variant, pos: &Position, side: Color) -> Counts {
    let board = variant.board();
    let rules = variant.rules();
    let mine = pos.men(side);
    let theirs = pos.men(side.opponent());
    let empty = board.all() & !pos.occupied();
    let placing = pos.hand(side) > 0;
    let flies = rules.movement == crate::rules::Movement::Anywhere
        || (rules.flying && pos.total(side) == 3);
    let mut terms = Terms::default();
    let mut fixed = MAN * i32::from(pos.total(side));
    if rules.mill == MillEffect::Win {
        // No men are taken: only rows matter.
        fixed = 0;
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
    terms.threat = closing.count_ones() as i32;
    terms.double_threat = twice.count_ones() as i32;
    if flies {
        return Counts {
            fixed,
            placing,
            terms,
        };
    }

    // Men that can slide into a point that closes a mill (not from the mill itself), and those
    // of them that stand in a closed mill already.
    let in_mill = |m: crate::rules::Point| board.mills_at(m).iter().any(|&mill| mill & !mine == 0);
    for p in points(closing) {
        let movers = board.neighbours(p) & mine;
        let mut closes = false;
        let mut from_mill = false;
        for m in points(movers).filter(|m| board.closes_mill(mine & !m.bit() | p.bit(), p)) {
            closes = true;
            from_mill |= in_mill(m);
        }
        terms.running += i32::from(closes);
        terms.double_mill += i32::from(from_mill);
    }
    terms.closable = board
        .mills()
        .iter()
        .filter(|&&mill| {
            mill & mine == mill && points(mill).any(|m| board.neighbours(m) & empty != 0)
        })
        .count() as i32;

    let mut liberties: Mask = 0;
    for m in points(mine) {
        let free = board.neighbours(m) & empty;
        liberties |= free;
        match free.count_ones() {
            0 => terms.blocked += 1,
            1 => terms.shut_in += 1,
            _ => {}
        }
        terms.mobility += free.count_ones() as i32;
    }
    let their_hand = i32::from(pos.hand(side.opponent()));
    let free = liberties.count_ones() as i32;
    if free <= BLOCKADE_LIBERTIES && free <= their_hand.max(1) && mine != 0 {
        // The opponent can fill every point the side could slide to (with its men in hand, or
        // by one slide): the fewer they are, the nearer the blockade.
        terms.blockade_threat = BLOCKADE_LIBERTIES + 1 - free;
    }
    if terms.mobility == 0 && !placing {
        // Cannot move at all: lost when it is this side's turn.
        fixed -= STUCK;
    }
    Counts {
        fixed,
        placing,
        terms,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::rules::{BoardSpec, MillEffect, Movement, Rules};

    /// Nine Men's Morris from its knobs (the engine's tests stay below the catalog).
    pub(in crate::engine) fn nine() -> Variant {
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
    fn men_shut_in_while_placing_are_counted_by_hand() {
        let nine = nine();
        // White a7 and d7 have no empty point next to them, b6 only b4: one point is all White
        // can slide to, and Black has six men in hand to fill it. Black's g7 has only g4.
        let pos = nine
            .parse_position("a7,d7,b6 a4,g7,d6 6/6 w")
            .expect("a position");
        let white = counts(&nine, &pos, Color::White);
        let expected = Terms {
            mobility: 1,
            blocked: 2,
            shut_in: 1,
            blockade_threat: 2,
            ..Terms::default()
        };
        assert_eq!(
            white,
            Counts {
                fixed: 9 * MAN,
                placing: true,
                terms: expected
            }
        );
        let black = counts(&nine, &pos, Color::Black);
        let expected = Terms {
            mobility: 5,
            shut_in: 1,
            ..Terms::default()
        };
        assert_eq!(black.terms, expected);
        // The score is the difference of the two sides' counts, weighed by their phase.
        let w = Weights::DEFAULT;
        assert_eq!(
            evaluate(&nine, &pos),
            white.terms.weigh(&w.placing) - black.terms.weigh(&w.placing)
        );
    }

    #[test]
    fn open_running_double_and_closable_mills_are_counted_by_hand() {
        let nine = nine();
        // White's a1-d1-g1 is closed; b2-f2 wants d2, which d1 reaches from the closed mill.
        let pos = nine
            .parse_position("a1,d1,g1,b2,f2 a7,d7,g7,c5,e5 0/0 w")
            .expect("a position");
        let white = counts(&nine, &pos, Color::White);
        let expected = Terms {
            threat: 1,
            running: 1,
            double_mill: 1,
            closable: 1,
            mobility: 7,
            shut_in: 3,
            ..Terms::default()
        };
        assert_eq!(
            white,
            Counts {
                fixed: 5 * MAN,
                placing: false,
                terms: expected
            }
        );
    }

    #[test]
    fn a_side_that_flies_counts_only_its_threats() {
        let nine = nine();
        // White has three men (it flies): a7-d7 is open, and its men's mobility is no matter.
        let pos = nine
            .parse_position("a7,d7,b2 a4,d6,g4,d1 0/0 w")
            .expect("a position");
        let white = counts(&nine, &pos, Color::White);
        let expected = Terms {
            threat: 1,
            ..Terms::default()
        };
        assert_eq!(white.terms, expected);
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
        blind.placing = Terms {
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
