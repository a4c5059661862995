//! The rules oracle: the boards of REFERENCE.md §1 as the reference lists them, and a
//! deliberately naive second implementation of the rules that works on those lists.
//!
//! The naive implementation shares no code with `src/rules` but the rule knobs (which are data):
//! it works on point names, hand-typed lines and plain loops, so that where it and the engine
//! agree, both are very likely right.
#![allow(dead_code)]

use merels::catalog::Catalog;
use merels::rules::{MillEffect, Movement, Rules, Variant};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A board as REFERENCE.md §1 lists it.
#[derive(Debug)]
pub struct RefBoard {
    pub points: BTreeSet<String>,
    pub adjacent: BTreeSet<(String, String)>,
    pub mills: BTreeSet<BTreeSet<String>>,
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

impl RefBoard {
    fn build(lines: &[Vec<&str>], mills: &[[&str; 3]]) -> RefBoard {
        let mut points = BTreeSet::new();
        let mut adjacent = BTreeSet::new();
        for line in lines {
            for pair in line.windows(2) {
                adjacent.insert((pair[0].to_string(), pair[1].to_string()));
                adjacent.insert((pair[1].to_string(), pair[0].to_string()));
            }
            points.extend(line.iter().map(|s| s.to_string()));
        }
        RefBoard {
            points,
            adjacent,
            mills: mills.iter().map(|m| set(m)).collect(),
        }
    }

    /// The sides of a ring given as its 8 points in order, starting at a corner.
    fn sides(ring: [&str; 8]) -> Vec<[&str; 3]> {
        (0..4)
            .map(|i| [ring[2 * i], ring[2 * i + 1], ring[(2 * i + 2) % 8]])
            .collect()
    }

    /// The 3×3 grid: rows, columns and, with diagonals, the two diagonals.
    pub fn nine(diagonals: bool) -> RefBoard {
        let mut mills = vec![
            ["a1", "b1", "c1"],
            ["a2", "b2", "c2"],
            ["a3", "b3", "c3"],
            ["a1", "a2", "a3"],
            ["b1", "b2", "b3"],
            ["c1", "c2", "c3"],
        ];
        if diagonals {
            mills.push(["a1", "b2", "c3"]);
            mills.push(["a3", "b2", "c1"]);
        }
        let lines: Vec<Vec<&str>> = mills.iter().map(|m| m.to_vec()).collect();
        RefBoard::build(&lines, &mills)
    }

    /// Two squares joined at their midpoints (16 points), or with the centre c3 (17 points).
    pub fn sixteen(centre: bool) -> RefBoard {
        let outer = ["a5", "c5", "e5", "e3", "e1", "c1", "a1", "a3"];
        let inner = ["b4", "c4", "d4", "d3", "d2", "c2", "b2", "b3"];
        let mut mills = RefBoard::sides(outer);
        mills.extend(RefBoard::sides(inner));
        let mut lines: Vec<Vec<&str>> = mills.iter().map(|m| m.to_vec()).collect();
        if centre {
            let row = ["a3", "b3", "c3", "d3", "e3"];
            let col = ["c5", "c4", "c3", "c2", "c1"];
            for run in [row, col] {
                lines.push(run.to_vec());
                mills.extend(run.windows(3).map(|w| [w[0], w[1], w[2]]));
            }
        } else {
            for spoke in [["a3", "b3"], ["c5", "c4"], ["e3", "d3"], ["c1", "c2"]] {
                lines.push(spoke.to_vec());
            }
        }
        RefBoard::build(&lines, &mills)
    }

    /// Three squares joined at their midpoints (24 points), with or without the diagonals.
    pub fn twenty_four(diagonals: bool) -> RefBoard {
        let outer = ["a7", "d7", "g7", "g4", "g1", "d1", "a1", "a4"];
        let middle = ["b6", "d6", "f6", "f4", "f2", "d2", "b2", "b4"];
        let inner = ["c5", "d5", "e5", "e4", "e3", "d3", "c3", "c4"];
        let mut mills: Vec<[&str; 3]> = [outer, middle, inner]
            .into_iter()
            .flat_map(RefBoard::sides)
            .collect();
        mills.extend([
            ["d7", "d6", "d5"],
            ["a4", "b4", "c4"],
            ["e4", "f4", "g4"],
            ["d3", "d2", "d1"],
        ]);
        if diagonals {
            mills.extend([
                ["a7", "b6", "c5"],
                ["g7", "f6", "e5"],
                ["a1", "b2", "c3"],
                ["g1", "f2", "e3"],
            ]);
        }
        let lines: Vec<Vec<&str>> = mills.iter().map(|m| m.to_vec()).collect();
        RefBoard::build(&lines, &mills)
    }

    /// The reference board for a variant's generated one.
    pub fn for_rules(rules: &Rules) -> RefBoard {
        let b = rules.board;
        match (b.rings, b.centre) {
            (1, _) => RefBoard::nine(b.diagonals),
            (2, centre) => RefBoard::sixteen(centre),
            (3, false) => RefBoard::twenty_four(b.diagonals),
            other => panic!("REFERENCE.md lists no board {other:?}"),
        }
    }
}

/// Every variant with every combination of its table options.
pub fn all_configurations() -> Vec<Arc<Variant>> {
    let catalog = Catalog::builtin();
    let mut out = Vec::new();
    for info in catalog.variants() {
        let mut combos: Vec<BTreeMap<String, String>> = vec![BTreeMap::new()];
        for opt in &info.spec.options {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    opt.values.iter().map(move |v| {
                        let mut c = c.clone();
                        c.insert(opt.key.clone(), v.value.clone());
                        c
                    })
                })
                .collect();
        }
        for choices in combos {
            out.push(catalog.configure(info.slug(), &choices).unwrap());
        }
    }
    out
}

/// The naive implementation's state: men by point name.
#[derive(Clone, Debug)]
pub struct Naive {
    rules: Rules,
    board: Arc<RefBoard>,
    cells: BTreeMap<String, usize>,
    hand: [u8; 2],
    side: usize,
    last_slide: [Option<(String, String)>; 2],
}

impl Naive {
    pub fn start(rules: &Rules) -> Naive {
        Naive {
            rules: rules.clone(),
            board: Arc::new(RefBoard::for_rules(rules)),
            cells: BTreeMap::new(),
            hand: [rules.men, rules.men],
            side: 0,
            last_slide: [None, None],
        }
    }

    /// From a position string, read here independently of the engine's parser.
    pub fn from_position(rules: &Rules, s: &str) -> Naive {
        let mut naive = Naive::start(rules);
        let fields: Vec<&str> = s.split(' ').collect();
        for (side, men) in fields[..2].iter().enumerate() {
            if *men != "-" {
                for p in men.split(',') {
                    naive.cells.insert(p.to_string(), side);
                }
            }
        }
        let (w, b) = fields[2].split_once('/').unwrap();
        naive.hand = [w.parse().unwrap(), b.parse().unwrap()];
        naive.side = usize::from(fields[3] == "b");
        naive
    }

    fn men(&self, side: usize) -> Vec<&String> {
        self.cells
            .iter()
            .filter(|(_, s)| **s == side)
            .map(|(p, _)| p)
            .collect()
    }

    fn total(&self, side: usize) -> usize {
        self.men(side).len() + usize::from(self.hand[side])
    }

    fn has_mill(
        cells: &BTreeMap<String, usize>,
        board: &RefBoard,
        side: usize,
        through: Option<&str>,
    ) -> bool {
        board.mills.iter().any(|m| {
            through.is_none_or(|p| m.contains(p)) && m.iter().all(|p| cells.get(p) == Some(&side))
        })
    }

    fn in_mill(&self, p: &str, side: usize) -> bool {
        self.board
            .mills
            .iter()
            .any(|m| m.contains(p) && m.iter().all(|q| self.cells.get(q) == Some(&side)))
    }

    /// The legal turns in notation, sorted.
    pub fn turns(&self) -> Vec<String> {
        let me = self.side;
        let them = 1 - me;
        if self.rules.mill == MillEffect::Win
            && Naive::has_mill(&self.cells, &self.board, them, None)
        {
            return Vec::new();
        }
        if self.total(me) < 3 {
            return Vec::new();
        }
        let empty: Vec<&String> = self
            .board
            .points
            .iter()
            .filter(|p| !self.cells.contains_key(*p))
            .collect();
        let mut moves: Vec<(Option<String>, String)> = Vec::new();
        if self.hand[me] > 0 {
            moves.extend(empty.iter().map(|p| (None, p.to_string())));
        }
        if self.hand[me] == 0 || self.rules.place_or_slide {
            let free = self.rules.movement == Movement::Anywhere
                || (self.rules.flying && self.total(me) == 3);
            for from in self.men(me) {
                for to in &empty {
                    if !free
                        && !self
                            .board
                            .adjacent
                            .contains(&(from.clone(), to.to_string()))
                    {
                        continue;
                    }
                    let mut after = self.cells.clone();
                    after.remove(from);
                    after.insert(to.to_string(), me);
                    let back =
                        self.last_slide[me].as_ref() == Some(&(to.to_string(), from.clone()));
                    if self.rules.no_move_back_into_mill
                        && back
                        && Naive::has_mill(&after, &self.board, me, Some(to))
                    {
                        continue;
                    }
                    moves.push((Some(from.clone()), to.to_string()));
                }
            }
        }
        let opponents = self.men(them);
        let unprotected: Vec<&String> = opponents
            .iter()
            .copied()
            .filter(|p| !self.in_mill(p, them))
            .collect();
        let removable = if unprotected.is_empty() {
            opponents.clone()
        } else {
            unprotected
        };
        let mut out = Vec::new();
        for (from, to) in moves {
            let text = match &from {
                Some(f) => format!("{f}-{to}"),
                None => to.clone(),
            };
            let mut after = self.cells.clone();
            if let Some(f) = &from {
                after.remove(f);
            }
            after.insert(to.clone(), me);
            let closes = Naive::has_mill(&after, &self.board, me, Some(&to));
            if closes && self.rules.mill == MillEffect::Remove && !opponents.is_empty() {
                out.extend(removable.iter().map(|r| format!("{text}x{r}")));
            } else {
                out.push(text);
            }
        }
        out.sort();
        out
    }

    /// Plays a turn written in notation (assumed legal).
    pub fn play(&mut self, turn: &str) {
        let me = self.side;
        let (moving, remove) = match turn.split_once('x') {
            Some((m, r)) => (m, Some(r)),
            None => (turn, None),
        };
        let (from, to) = match moving.split_once('-') {
            Some((f, t)) => (Some(f), t),
            None => (None, moving),
        };
        match from {
            Some(f) => {
                self.cells.remove(f);
            }
            None => self.hand[me] -= 1,
        }
        self.cells.insert(to.to_string(), me);
        if let Some(r) = remove {
            self.cells.remove(r);
        }
        self.last_slide[me] = from.map(|f| (f.to_string(), to.to_string()));
        self.side = 1 - me;
    }

    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.turns()
            .iter()
            .map(|t| {
                let mut next = self.clone();
                next.play(t);
                next.perft(depth - 1)
            })
            .sum()
    }
}
