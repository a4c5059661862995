//! merels: play the Morris (mill) family of board games with a friend by sharing a link.
//!
//! A map of the crate, from the bottom up (dependencies point one way, upwards never):
//!
//! - [`rules`]: the pure rules engine: generated boards, variants as data, positions, turns,
//!   outcomes, notation and perft. No I/O, no async, no clock, no randomness.
//! - [`catalog`]: the variant files under `variants/`, embedded in the binary: YAML front matter
//!   for the engine above a Markdown rules page.
//! - [`cli`]: the `merels` command line.

pub mod catalog;
pub mod cli;
pub mod rules;
