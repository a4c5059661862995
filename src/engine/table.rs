//! A solved table: the exact value of every position of a small board, as
//! [`super::solve`](mod@super::solve) computed it, with the perfect turn read off it and a byte
//! format for the data directory.
//!
//! A value is the result for the side to move with perfect play from both sides, and the number
//! of plies to the end: the winner takes the shortest way, the loser the longest. Each position's
//! value is stored in one byte: 0 for a draw, `d + 1` for `d` plies to the end (a win when `d`
//! is odd: the side to move makes the last turn), and 255 for an arrangement that is no position
//! of the variant. The longest distance on the small boards is 120 plies (Six Men's Morris), so a
//! byte holds them all; a board that needed more would fail to solve, not store a wrong value.

use super::index::{LayerKey, Numbering};
use crate::rules::{Color, Position, Turn, Variant};

/// The exact value of a position for the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move wins: the game ends in this many plies, the last one its own.
    Win(u16),
    /// The side to move loses in this many plies, defending as long as it can (0: lost now).
    Loss(u16),
    /// Neither side can force a win.
    Draw,
}

impl Value {
    /// The value before the turn that led here, for the side that made it.
    pub fn back(self) -> Value {
        match self {
            Value::Win(d) => Value::Loss(d + 1),
            Value::Loss(d) => Value::Win(d + 1),
            Value::Draw => Value::Draw,
        }
    }

    /// Orders values from the side to move's point of view: quicker wins first, then draws, then
    /// the longest losses.
    pub fn rank(self) -> i32 {
        match self {
            Value::Win(d) => 100_000 - i32::from(d),
            Value::Draw => 0,
            Value::Loss(d) => -100_000 + i32::from(d),
        }
    }

    pub(super) fn decode(code: u8) -> Value {
        let d = u16::from(code).saturating_sub(1);
        match code {
            DRAW | NOT_A_POSITION => Value::Draw,
            _ if d % 2 == 1 => Value::Win(d),
            _ => Value::Loss(d),
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Win(d) => write!(f, "win in {d}"),
            Value::Loss(0) => write!(f, "lost"),
            Value::Loss(d) => write!(f, "loss in {d}"),
            Value::Draw => write!(f, "draw"),
        }
    }
}

/// The stored code of a draw (and of a position not decided yet, while solving).
pub(super) const DRAW: u8 = 0;
/// The stored code of an arrangement that is no position of the variant.
pub(super) const NOT_A_POSITION: u8 = u8::MAX;

/// One layer's values, indexed by arrangement rank times sides plus the side's slot.
#[derive(Debug, Clone)]
pub(super) struct Layer {
    pub key: LayerKey,
    pub values: Vec<u8>,
}

/// Every position of a small variant, solved.
#[derive(Debug, Clone)]
pub struct Table {
    /// The variant's slug and options, as the game record writes them: what the table is of.
    identity: String,
    numbering: Numbering,
    men: u8,
    layers: Vec<Layer>,
    /// Layer index by `LayerKey`, flattened in base `men + 1`.
    by_key: Vec<Option<u32>>,
}

/// Why bytes could not be read as a table of a variant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// The bytes do not start with a table header.
    #[error("not a merels table")]
    NotATable,
    /// A table of another variant, other options, or an older format.
    #[error("a table of {found}, not of {wanted}")]
    OtherVariant {
        /// What the header says.
        found: String,
        /// What was asked for.
        wanted: String,
    },
    /// The length does not match the variant's layers.
    #[error("the table is truncated or padded")]
    Length,
}

const FORMAT: &str = "merels-table 2";

impl Table {
    pub(super) fn new(variant: &Variant, layers: Vec<Layer>) -> Table {
        let men = variant.rules().men;
        let mut by_key = vec![None; (usize::from(men) + 1).pow(4)];
        for (i, layer) in layers.iter().enumerate() {
            by_key[key_slot(men, layer.key)] = Some(i as u32);
        }
        Table {
            identity: identity(variant),
            numbering: Numbering::new(variant.board().len() as u32),
            men,
            layers,
            by_key,
        }
    }

    /// How the table numbers positions.
    pub(super) fn numbering(&self) -> &Numbering {
        &self.numbering
    }

    /// Adds a solved layer.
    pub(super) fn push(&mut self, layer: Layer) {
        self.by_key[key_slot(self.men, layer.key)] = Some(self.layers.len() as u32);
        self.layers.push(layer);
    }

    /// The name of the file that holds the table of `variant`: its slug, then each table option
    /// (`three-mens-morris.diagonals-on.movement-adjacent.table`).
    pub fn file_name(variant: &Variant) -> String {
        let mut name = variant.slug().to_string();
        for (key, value) in variant.options() {
            name.push_str(&format!(".{key}-{value}"));
        }
        name + ".table"
    }

    /// Whether this is the table of `variant` with its options.
    pub fn is_of(&self, variant: &Variant) -> bool {
        self.identity == identity(variant)
    }

    /// How many positions (and arrangements that are none) the table holds.
    pub fn len(&self) -> usize {
        self.layers.iter().map(|l| l.values.len()).sum()
    }

    /// Whether the table holds nothing (never true of a solved one).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Counts of wins, draws and losses for the side to move over every position, and the longest
    /// distance to the end of any won or lost one.
    pub fn census(&self) -> Census {
        let mut census = Census::default();
        for code in self.layers.iter().flat_map(|l| l.values.iter().copied()) {
            if code == NOT_A_POSITION {
                continue;
            }
            match Value::decode(code) {
                Value::Win(d) => {
                    census.wins += 1;
                    census.longest = census.longest.max(d);
                }
                Value::Loss(d) => {
                    census.losses += 1;
                    census.longest = census.longest.max(d);
                }
                Value::Draw => census.draws += 1,
            }
        }
        census
    }

    pub(super) fn layer(&self, key: LayerKey) -> Option<&Layer> {
        let hands_fit = key.hand.iter().chain(&key.board).all(|&n| n <= self.men);
        let i = (*self
            .by_key
            .get(key_slot(self.men, key))
            .filter(|_| hands_fit)?)?;
        Some(&self.layers[i as usize])
    }

    /// The value of a position of this table's variant; `None` for a position the tables do not
    /// number (hands that White-first alternation cannot reach, say).
    pub fn value(&self, pos: &Position) -> Option<Value> {
        let side = pos.to_move();
        if pos.total(side) < 3 {
            return Some(Value::Loss(0));
        }
        let men = [pos.men(Color::White), pos.men(Color::Black)];
        let key = LayerKey::of(men, [pos.hand(Color::White), pos.hand(Color::Black)]);
        let layer = self.layer(key)?;
        let slot = key.slot(side)?;
        let index = self.numbering.rank(men) as usize * key.sides().len() + slot;
        match layer.values[index] {
            NOT_A_POSITION => None,
            code => Some(Value::decode(code)),
        }
    }

    /// The perfect turn: the quickest win, a draw kept, or the longest defence; with the value of
    /// the position. `None` when the game is over or the position is not in the table.
    pub fn best(&self, variant: &Variant, pos: &Position) -> Option<(Turn, Value)> {
        let mut best: Option<(Turn, Value)> = None;
        let mut unknown = false;
        variant.for_each_successor(pos, |turn, next| match self.value(&next) {
            Some(v) => {
                let v = v.back();
                if best.is_none_or(|(_, b)| v.rank() > b.rank()) {
                    best = Some((turn, v));
                }
            }
            None => unknown = true,
        });
        if unknown { None } else { best }
    }

    /// The table as bytes: a header line naming the variant, then every value, a byte each.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = format!("{FORMAT} {}\n", self.identity).into_bytes();
        out.reserve(self.len());
        for layer in &self.layers {
            out.extend_from_slice(&layer.values);
        }
        out
    }

    /// Reads a table of `variant` back from [`Table::to_bytes`].
    pub fn from_bytes(variant: &Variant, bytes: &[u8]) -> Result<Table, TableError> {
        let newline = bytes
            .iter()
            .position(|&b| b == b'\n')
            .ok_or(TableError::NotATable)?;
        let header = std::str::from_utf8(&bytes[..newline]).map_err(|_| TableError::NotATable)?;
        let found = header
            .strip_prefix(FORMAT)
            .and_then(|rest| rest.strip_prefix(' '))
            .ok_or(TableError::NotATable)?;
        let wanted = identity(variant);
        if found != wanted {
            return Err(TableError::OtherVariant {
                found: found.to_string(),
                wanted,
            });
        }
        let points = variant.board().len() as u32;
        let mut body = &bytes[newline + 1..];
        let mut layers = Vec::new();
        for key in LayerKey::all(variant) {
            if body.len() < key.len(points) {
                return Err(TableError::Length);
            }
            let (values, rest) = body.split_at(key.len(points));
            layers.push(Layer {
                key,
                values: values.to_vec(),
            });
            body = rest;
        }
        if !body.is_empty() {
            return Err(TableError::Length);
        }
        Ok(Table::new(variant, layers))
    }
}

/// What a table holds, counted: see [`Table::census`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Census {
    /// Positions the side to move wins.
    pub wins: u64,
    /// Positions that are draws.
    pub draws: u64,
    /// Positions the side to move loses.
    pub losses: u64,
    /// The most plies to the end of any won or lost position.
    pub longest: u16,
}

fn identity(variant: &Variant) -> String {
    let options = variant.options_string();
    if options.is_empty() {
        variant.slug().to_string()
    } else {
        format!("{} {options}", variant.slug())
    }
}

fn key_slot(men: u8, key: LayerKey) -> usize {
    let base = usize::from(men) + 1;
    [key.board[0], key.board[1], key.hand[0], key.hand[1]]
        .iter()
        .fold(0, |acc, &n| acc * base + usize::from(n))
}
