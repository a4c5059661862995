//! Seeded randomness for tests, so that a failing seed reproduces: the engine's own tiny
//! generator. Shared by the rules tests and the server tests.

pub use merels::engine::Rng;
