//! Numbering the positions of a small board, so that a solved table is a plain array of values.
//!
//! Positions fall into layers by what no turn within a layer changes: the men each side has on
//! the board and in hand. Inside a layer a position is the White men's set, ranked among the
//! board's points, and the Black men's set, ranked among the points White leaves empty (both in
//! colex order, so counting up through the sets of a size enumerates them in rank order).

use crate::rules::{Color, Mask, Variant};

/// The binomial coefficients up to the largest board the tables cover.
pub(super) const MAX_POINTS: usize = 17;

/// `C(n, k)` for `n, k <= MAX_POINTS`, computed once at compile time.
const BINOMIAL: [[u32; MAX_POINTS + 1]; MAX_POINTS + 1] = {
    let mut c = [[0u32; MAX_POINTS + 1]; MAX_POINTS + 1];
    let mut n = 0;
    while n <= MAX_POINTS {
        c[n][0] = 1;
        let mut k = 1;
        while k <= n {
            c[n][k] = c[n - 1][k - 1] + if k < n { c[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    c
};

/// `C(n, k)`, zero where `k > n`.
pub(super) fn binomial(n: u32, k: u32) -> u32 {
    if k > n {
        0
    } else {
        BINOMIAL[n as usize][k as usize]
    }
}

/// The colex rank of a set among the sets of its size: the sum of `C(p, j + 1)` over its `j`-th
/// smallest element `p`.
fn colex_rank(mut set: Mask) -> u32 {
    let mut rank = 0;
    let mut j = 1;
    while set != 0 {
        rank += binomial(set.trailing_zeros(), j);
        set &= set - 1;
        j += 1;
    }
    rank
}

/// Spreads the low bits of `set` over the points of `within`, in order (a software `pdep`).
fn deposit(mut set: Mask, within: Mask) -> Mask {
    let (mut out, mut rest) = (0, within);
    while rest != 0 && set != 0 {
        let p = rest & rest.wrapping_neg();
        if set & 1 != 0 {
            out |= p;
        }
        set >>= 1;
        rest &= rest - 1;
    }
    out
}

/// What stays the same inside a layer: men on the board and in hand, White's then Black's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LayerKey {
    /// Men on the board.
    pub board: [u8; 2],
    /// Men in hand.
    pub hand: [u8; 2],
}

impl LayerKey {
    /// Which sides may be to move in this layer. White places first and the sides alternate, so
    /// while men are in hand White to move has placed as many as Black, and Black to move one
    /// fewer; with both hands empty either side may be to move.
    pub fn sides(self) -> &'static [Color] {
        let [w, b] = self.hand;
        if w == 0 && b == 0 {
            &Color::BOTH
        } else if w == b {
            &[Color::White]
        } else if b == w + 1 {
            &[Color::Black]
        } else {
            &[]
        }
    }

    /// The slot of `side` among [`LayerKey::sides`], if it may be to move here.
    pub fn slot(self, side: Color) -> Option<usize> {
        self.sides().iter().position(|&s| s == side)
    }

    /// How many arrangements of the men the layer has on a board of `points`.
    pub fn arrangements(self, points: u32) -> u32 {
        let [w, b] = self.board.map(u32::from);
        binomial(points, w) * binomial(points.saturating_sub(w), b)
    }

    /// How many positions the layer holds on a board of `points`: arrangements times sides.
    pub fn len(self, points: u32) -> usize {
        self.arrangements(points) as usize * self.sides().len()
    }

    /// The layer a position of these men, hands and side belongs to.
    pub fn of(men: [Mask; 2], hand: [u8; 2]) -> LayerKey {
        LayerKey {
            board: men.map(|m| m.count_ones() as u8),
            hand,
        }
    }

    /// Every layer of a variant whose men both sides may still have: at least three men each
    /// (fewer has lost), at most the variant's men, no more on the board than it has points.
    pub fn all(variant: &Variant) -> Vec<LayerKey> {
        let men = variant.rules().men;
        let points = variant.board().len() as u8;
        let mut keys = Vec::new();
        for hw in 0..=men {
            for hb in 0..=men {
                for w in 0..=men - hw {
                    for b in 0..=men - hb {
                        let key = LayerKey {
                            board: [w, b],
                            hand: [hw, hb],
                        };
                        if w + hw >= 3 && hb + b >= 3 && w + b <= points && !key.sides().is_empty()
                        {
                            keys.push(key);
                        }
                    }
                }
            }
        }
        // A turn either empties a hand a little (placing) or takes a man off the board: solving
        // in this order finds every other layer a turn leads to already solved.
        keys.sort_by_key(|k| (k.hand[0] + k.hand[1], k.board[0] + k.board[1], *k));
        keys
    }
}

/// Ranks and arrangements of one board size, with the colex rank of every set and the sets of
/// each size in rank order looked up rather than computed: the solver ranks a position for
/// every turn it looks at.
#[derive(Debug, Clone)]
pub struct Numbering {
    points: u32,
    /// The colex rank of every set of points among the sets of its size.
    rank: Vec<u32>,
    /// The sets of each size, in rank order.
    sets: Vec<Vec<Mask>>,
}

impl Numbering {
    /// The numbering of a board of `points` points (at most `MAX_POINTS`).
    pub fn new(points: u32) -> Numbering {
        let all = 1u32 << points;
        let rank: Vec<u32> = (0..all).map(colex_rank).collect();
        let mut sets = vec![Vec::new(); points as usize + 1];
        for k in 0..=points {
            sets[k as usize] = vec![0; binomial(points, k) as usize];
        }
        for set in 0..all {
            sets[set.count_ones() as usize][rank[set as usize] as usize] = set;
        }
        Numbering { points, rank, sets }
    }

    /// The rank of an arrangement within its layer: White's set among the board's points, then
    /// Black's among the points White leaves empty.
    pub fn rank(&self, [white, black]: [Mask; 2]) -> u32 {
        let mut squeezed = 0;
        let mut rest = black;
        while rest != 0 {
            let p = rest.trailing_zeros();
            squeezed |= 1 << (p - (white & ((1 << p) - 1)).count_ones());
            rest &= rest - 1;
        }
        let free = self.points - white.count_ones();
        self.rank[white as usize] * binomial(free, black.count_ones())
            + self.rank[squeezed as usize]
    }

    /// The arrangement of rank `rank` in a layer: the inverse of [`Numbering::rank`].
    pub fn arrangement(&self, key: LayerKey, rank: u32) -> [Mask; 2] {
        let [w, b] = key.board.map(u32::from);
        let per_white = binomial(self.points - w, b);
        let white = self.sets[w as usize][(rank / per_white) as usize];
        let free = ((1 << self.points) - 1) & !white;
        let squeezed = self.sets[b as usize][(rank % per_white) as usize];
        [white, deposit(squeezed, free)]
    }

    /// Calls `f` with the arrangements of a layer of ranks `range`, in rank order.
    pub fn for_each(
        &self,
        key: LayerKey,
        range: std::ops::Range<u32>,
        mut f: impl FnMut([Mask; 2]),
    ) {
        let [w, b] = key.board.map(u32::from);
        let per_white = binomial(self.points - w, b);
        if per_white == 0 || range.is_empty() {
            return;
        }
        let all = (1 << self.points) - 1;
        let blacks = &self.sets[b as usize][..per_white as usize];
        for white_rank in range.start / per_white..range.end.div_ceil(per_white) {
            let white = self.sets[w as usize][white_rank as usize];
            let base = white_rank * per_white;
            let first = range.start.saturating_sub(base).min(per_white);
            let last = (range.end - base).min(per_white);
            for &squeezed in &blacks[first as usize..last as usize] {
                f([white, deposit(squeezed, all & !white)]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrangements_come_in_rank_order_and_cover_the_layer() {
        for (points, w, b) in [(9, 3, 2), (16, 0, 4), (16, 5, 0), (17, 4, 4), (9, 0, 0)] {
            let numbering = Numbering::new(points);
            let key = LayerKey {
                board: [w, b],
                hand: [0, 0],
            };
            let mut next = 0;
            numbering.for_each(key, 0..key.arrangements(points), |men| {
                assert_eq!(men[0] & men[1], 0);
                assert_eq!(men.map(|m| m.count_ones()), [w, b].map(u32::from));
                assert_eq!(numbering.rank(men), next);
                assert_eq!(numbering.arrangement(key, next), men);
                next += 1;
            });
            assert_eq!(next, key.arrangements(points));
            // A range in the middle starts and ends where it says.
            let (from, to) = (next / 3, next / 2);
            let mut seen = from;
            numbering.for_each(key, from..to, |men| {
                assert_eq!(numbering.rank(men), seen);
                seen += 1;
            });
            assert_eq!(seen, to.max(from));
        }
    }
}
