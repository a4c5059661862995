//! The rules engine's tests, in one binary: boards against the reference's lists, the variant
//! catalog, whole games, perft counts from `tests/data/perft.txt`, and properties of random play
//! checked against a naive second implementation (`oracle`); and the computer player (`engine`),
//! its solved tables checked against a naive solver of its own.

mod oracle;
mod random;

mod boards;
mod catalog;
mod engine;
mod game;
mod perft;
mod properties;
