//! merels: play the Morris (mill) family of board games with a friend by sharing a link, and
//! watch live.
//!
//! A map of the crate, from the bottom up (dependencies point one way: upwards never):
//!
//! - [`rules`]: the pure rules engine: generated boards, variants as data, positions, turns,
//!   outcomes, notation and perft. No I/O, no async, no clock, no randomness.
//! - [`catalog`]: the variant files under `variants/`, embedded in the binary: YAML front matter
//!   for the engine above a Markdown rules page.
//! - [`metrics`]: what `/metrics` reports (a leaf: anything may record into it).
//! - [`clock`]: time controls and the arithmetic of game clocks, pure like the rules.
//! - [`protocol`]: the typed, versioned messages between clients and the server.
//! - [`store`]: all SQL (SQLite or PostgreSQL), migrations, and the group-commit writer.
//! - [`rooms`]: one task per live game, owning it; the registry; fan-out to connections.
//! - [`http`] (with the WebSocket under it): the transports; errors become status and close
//!   codes in one place.
//! - [`config`], [`server`]: settings and wiring, with graceful shutdown; [`cli`]: the command
//!   line (`src/main.rs` only calls it); [`bench`]: the load generator and its bare baseline.

pub mod bench;
pub mod catalog;
pub mod cli;
pub mod clock;
pub mod config;
pub mod http;
pub mod metrics;
pub mod protocol;
pub mod rooms;
pub mod rules;
pub mod server;
pub mod store;
