//! The server's tests, in one binary (every test binary links axum, sqlx and tokio; one link is
//! most of the suite's time saved): real WebSocket and HTTP clients against servers on
//! 127.0.0.1:0 (`harness`), real SQLite files and PostgreSQL clusters, real server processes,
//! and a real headless Chromium.

mod harness;
mod nats;
mod pg;
#[path = "../rules/random.rs"]
mod random;

mod actions;
mod backup;
mod browser;
mod challenges;
mod chat;
mod cli;
mod clocks;
mod computer;
mod durability;
mod image;
mod instances;
mod lang;
mod limits;
mod mine;
mod monitoring;
mod names;
mod pages;
mod pictures;
mod puzzles;
mod store;
mod trainer;
mod ws;
