//! Boards: the points, the lines drawn between them and the rows of three that make a mill,
//! generated from a handful of parameters (REFERENCE.md §1). Nothing here is typed in by hand.
//!
//! Every Morris board is a set of concentric squares ("rings") on a `(2R+1)×(2R+1)` grid. Each
//! ring contributes its four corners and four side midpoints. Optional extras join the rings:
//! `midpoints` (spokes through the side midpoints), `diagonals` (lines through the corners) and a
//! `centre` point where the spokes and diagonals meet. A line is a straight run of points along
//! which a man slides to a neighbour; every three consecutive points of a line are a mill.

use serde::{Deserialize, Serialize};

/// A set of points, one bit per point index. Boards have at most 25 points.
pub type Mask = u32;

/// A point of a board, as an index into its [`Board`]. Indices follow the points' names in
/// alphabetical order (`a1`, `a4`, `a7`, `b2`, ...), so iterating a [`Mask`] lists them sorted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Point(pub u8);

impl Point {
    /// This point's bit.
    pub fn bit(self) -> Mask {
        1 << self.0
    }

    /// The index of this point in its board's tables.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// Iterates the points of a mask in index order.
pub fn points(mut mask: Mask) -> impl Iterator<Item = Point> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let p = mask.trailing_zeros() as u8;
        mask &= mask - 1;
        Some(Point(p))
    })
}

/// The parameters a board is generated from: the `topology.params` of a variant file. The
/// default is the Nine Men's Morris board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardSpec {
    /// Concentric squares, 1 to 3.
    pub rings: u8,
    /// Lines through the midpoints of the squares' sides (spokes).
    #[serde(default)]
    pub midpoints: bool,
    /// Lines through the corners of the squares.
    #[serde(default)]
    pub diagonals: bool,
    /// A centre point where the spokes and diagonals meet.
    #[serde(default)]
    pub centre: bool,
}

impl Default for BoardSpec {
    fn default() -> Self {
        BoardSpec {
            rings: 3,
            midpoints: true,
            diagonals: false,
            centre: false,
        }
    }
}

/// Why a [`BoardSpec`] does not describe a board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardError {
    /// Only 1 to 3 rings fit the notation's files a–g.
    Rings(u8),
    /// A centre point with neither spokes nor diagonals would have no lines.
    IsolatedCentre,
}

impl std::fmt::Display for BoardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BoardError::Rings(n) => write!(f, "a board has 1 to 3 rings, not {n}"),
            BoardError::IsolatedCentre => {
                write!(
                    f,
                    "a centre point needs midpoint spokes or diagonals to join it"
                )
            }
        }
    }
}

impl std::error::Error for BoardError {}

/// A generated board. Immutable once built; shared by every game of its variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    spec: BoardSpec,
    size: u8,
    names: Vec<String>,
    coords: Vec<(u8, u8)>,
    neighbours: Vec<Mask>,
    lines: Vec<Vec<Point>>,
    mills: Vec<Mask>,
    mills_at: Vec<Vec<Mask>>,
    all: Mask,
}

impl Board {
    /// Generates the board that `spec` describes.
    pub fn new(spec: BoardSpec) -> Result<Board, BoardError> {
        if !(1..=3).contains(&spec.rings) {
            return Err(BoardError::Rings(spec.rings));
        }
        if spec.centre && !spec.midpoints && !spec.diagonals {
            return Err(BoardError::IsolatedCentre);
        }
        let r = spec.rings;
        let n = 2 * r + 1;
        let (c, last) = (r, n - 1);

        // Lines as runs of grid coordinates, (file, rank) from the bottom left.
        let mut runs: Vec<Vec<(u8, u8)>> = Vec::new();
        for k in 0..r {
            let (lo, hi) = (k, last - k);
            runs.push(vec![(lo, lo), (c, lo), (hi, lo)]);
            runs.push(vec![(hi, lo), (hi, c), (hi, hi)]);
            runs.push(vec![(lo, hi), (c, hi), (hi, hi)]);
            runs.push(vec![(lo, lo), (lo, c), (lo, hi)]);
        }
        // Spokes and diagonals run from the outer ring inwards; with a centre point, two opposite
        // runs are one straight line through it.
        let mut radial = |from_outer: &dyn Fn(u8) -> (u8, u8),
                          to_outer: &dyn Fn(u8) -> (u8, u8)| {
            let inward: Vec<_> = (0..r).map(from_outer).collect();
            let outward: Vec<_> = (0..r).rev().map(to_outer).collect();
            if spec.centre {
                runs.push(inward.into_iter().chain([(c, c)]).chain(outward).collect());
            } else {
                runs.push(inward);
                runs.push(outward);
            }
        };
        if spec.midpoints {
            radial(&|k| (k, c), &|k| (last - k, c));
            radial(&|k| (c, k), &|k| (c, last - k));
        }
        if spec.diagonals {
            radial(&|k| (k, k), &|k| (last - k, last - k));
            radial(&|k| (k, last - k), &|k| (last - k, k));
        }
        runs.retain(|run| run.len() >= 2);

        let mut coords: Vec<(u8, u8)> = runs.iter().flatten().copied().collect();
        coords.sort_unstable();
        coords.dedup();
        let index = |xy: (u8, u8)| Point(coords.binary_search(&xy).expect("point of a run") as u8);

        let mut neighbours = vec![0; coords.len()];
        let mut lines = Vec::with_capacity(runs.len());
        let mut mills = Vec::new();
        for run in &runs {
            let line: Vec<Point> = run.iter().map(|&xy| index(xy)).collect();
            for pair in line.windows(2) {
                neighbours[pair[0].index()] |= pair[1].bit();
                neighbours[pair[1].index()] |= pair[0].bit();
            }
            mills.extend(
                line.windows(3)
                    .map(|w| w.iter().fold(0, |m, p| m | p.bit())),
            );
            lines.push(line);
        }
        let mills_at = (0..coords.len())
            .map(|p| {
                mills
                    .iter()
                    .copied()
                    .filter(|m| m & (1 << p) != 0)
                    .collect()
            })
            .collect();
        let names = coords
            .iter()
            .map(|&(x, y)| format!("{}{}", char::from(b'a' + x), y + 1))
            .collect();
        Ok(Board {
            spec,
            size: n,
            all: (1u32 << coords.len()) - 1,
            names,
            coords,
            neighbours,
            lines,
            mills,
            mills_at,
        })
    }

    /// The parameters this board was generated from.
    pub fn spec(&self) -> BoardSpec {
        self.spec
    }

    /// Points per side of the grid the board is drawn on (3, 5 or 7).
    pub fn size(&self) -> u8 {
        self.size
    }

    /// How many points the board has.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the board has no points (never true of a generated board).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Every point of the board.
    pub fn all(&self) -> Mask {
        self.all
    }

    /// Whether `p` is a point of this board.
    pub fn contains(&self, p: Point) -> bool {
        p.index() < self.len()
    }

    /// The coordinate name of a point, such as `d6`.
    pub fn name(&self, p: Point) -> &str {
        &self.names[p.index()]
    }

    /// The point with this coordinate name.
    pub fn point(&self, name: &str) -> Option<Point> {
        self.names
            .iter()
            .position(|n| n == name)
            .map(|i| Point(i as u8))
    }

    /// Where to draw a point: (file, rank) on the grid, from the bottom left, starting at 0.
    pub fn coord(&self, p: Point) -> (u8, u8) {
        self.coords[p.index()]
    }

    /// The points joined to `p` by a line.
    pub fn neighbours(&self, p: Point) -> Mask {
        self.neighbours[p.index()]
    }

    /// The lines to draw, each a straight run of points.
    pub fn lines(&self) -> &[Vec<Point>] {
        &self.lines
    }

    /// Every mill: three consecutive points of a line.
    pub fn mills(&self) -> &[Mask] {
        &self.mills
    }

    /// The mills through `p`.
    pub fn mills_at(&self, p: Point) -> &[Mask] {
        &self.mills_at[p.index()]
    }

    /// Whether `men` (after a man arrived at `p`) complete a mill through `p`.
    pub fn closes_mill(&self, men: Mask, p: Point) -> bool {
        self.mills_at[p.index()]
            .iter()
            .any(|&mill| mill & !men == 0)
    }

    /// The men of `men` that stand in a complete mill.
    pub fn in_mills(&self, men: Mask) -> Mask {
        self.mills
            .iter()
            .filter(|&&m| men & m == m)
            .fold(0, |acc, &m| acc | m)
    }
}
