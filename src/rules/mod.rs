//! The rules engine of the Morris family: boards, variants, positions, turns, outcomes, notation
//! and perft. Pure: std and serde only; no I/O, no async, no clock, no randomness, and nothing
//! else from the crate, so that it can be trusted, tested and benchmarked on its own.
//!
//! The flow: a [`VariantSpec`] (a variant file's engine section) is configured with table options
//! into a [`Variant`], which generates its [`Board`]. An untrusted [`Setup`] (or the start) becomes
//! a trusted [`Position`]; [`Variant::play`] checks a [`Turn`] and returns the next position or an
//! [`IllegalTurn`]. A [`Game`] adds the history: repetition, draw counters and the final
//! [`Outcome`].

pub mod board;
pub mod color;
pub mod game;
pub mod notation;
pub mod outcome;
pub mod perft;
pub mod position;
pub mod variant;

pub use board::{Board, BoardError, BoardSpec, Mask, Point};
pub use color::Color;
pub use game::{Checked, Game, ReplayError, Stale};
pub use notation::{NotationError, Record};
pub use outcome::{Outcome, Termination};
pub use position::{IllegalTurn, Position, Setup, SetupError, Turn};
pub use variant::{
    MillEffect, Movement, OptionValue, RulePatch, Rules, TableOption, Variant, VariantError,
    VariantSpec,
};
