//! merels: play the Morris (mill) family of board games with a friend by sharing a link, and
//! watch live.
//!
//! A map of the crate, from the bottom up (dependencies point one way: upwards never):
//!
//! - [`rules`]: the pure rules engine: generated boards, variants as data, positions, turns,
//!   outcomes, notation and perft. No I/O, no async, no clock, no randomness.
//! - [`catalog`]: the variant files under `variants/`, embedded in the binary: YAML front matter
//!   for the engine above a Markdown rules page; and each board as clients draw it.
//! - [`engine`]: the computer player, pure like the rules and on them alone: solved tables of
//!   the small boards (retrograde analysis) and an alpha-beta search for the big ones.
//! - [`i18n`]: the message system: every word a page shows, in each language of `locales/`
//!   (Project Fluent), embedded in the binary (a leaf).
//! - [`metrics`]: what `/metrics` reports (a leaf: anything may record into it).
//! - [`rating`]: Glicko-2 ratings of puzzles and their solvers, pure arithmetic (a leaf).
//! - [`clock`]: time controls and the arithmetic of game clocks, pure like the rules; [`time`]:
//!   the two clocks that read the time (the wall clock, and the rooms' clock tests can pause);
//!   [`threads`]: pools of threads at the lowest CPU priority, for work that must never take the
//!   CPU from the games (the computer's searches, analyses, pictures).
//! - [`protocol`]: the typed, versioned messages between clients and the server: the whole state
//!   of a game, and the bounded update every change sends.
//! - [`picture`]: pictures of games drawn on the server (a position as PNG, a link preview, a
//!   game as an animated GIF), pure: an SVG from the board's geometry, rendered with a bundled
//!   font.
//! - [`store`]: all SQL (SQLite or PostgreSQL), migrations, the group-commit writer, and which
//!   instance owns which game (leases and epochs that fence every write).
//! - [`rooms`]: one task per live game, owning it: a pure decision core and the shell that stores
//!   its plans, then applies them and tells the connections; the registry of live games, and
//!   this instance's lease on them.
//! - [`http`] (with the WebSocket under it): the transports and the pages (askama templates in
//!   `static/`); errors become status and close codes in one place; a game another instance owns
//!   is forwarded to it, or, with a NATS bus, its sockets stay here and are relayed.
//! - [`config`], [`server`]: settings and wiring, with graceful shutdown; [`cli`]: the command
//!   line (`src/main.rs` only calls it).
//!
//! The load generator, its bare baseline and the attacks on the server are the workspace member
//! `bench/` (`merels-bench`), on this library: the server binary carries none of it.
//!
//! A unit test (`layers`, below) reads every `crate::` path and fails on one that points up.
//!
//! ## Adding an action
//!
//! Say, "offer a pause". What a new thing a player does touches, and nothing else:
//!
//! 1. `protocol/client.rs`: a [`protocol::ClientMessage`] variant, with its `type` in
//!    `ClientMessage::TYPES` and in the test's `one_of_each` (the test fails until both are
//!    there). The HTTP API takes it by the same `type`.
//! 2. `rooms/action.rs`: the [`rooms::Action`] it is, in `Action::of`.
//! 3. `rooms/core.rs` (or `offers.rs`, `clocks.rs`): what the core decides for it, in
//!    `Table::decide`, and the `Change` it makes once stored; its unit test in `rooms/tests.rs`.
//! 4. `store/write_op.rs` and `store/ops.rs`: its write, if the game keeps something new (with a
//!    migration in both dialects under `migrations/` for a new column).
//! 5. `protocol/state.rs`: what clients are told, if the state shows it.
//! 6. `static/game.js`: the control that sends it, and what the page shows.
//! 7. `docs/protocol.md`: the message, its answer and its errors.
//!
//! Both transports, the relay between instances, the fencing of writes and the broadcast need
//! nothing: a message reaches the room by [`rooms::Rooms::deliver`] (a socket's, here or relayed
//! from a peer) or [`rooms::Rooms::act`] (HTTP), and the room stores, applies and tells.

// Futures are not boxed to keep them small, but at the spawn of a long-lived task; this lint,
// with the threshold in clippy.toml, says when one has grown past it. (The server's code only:
// tests may hold a large future for as long as they like.)
#![warn(clippy::large_futures)]

pub mod catalog;
pub mod cli;
pub mod clock;
pub mod config;
pub mod engine;
pub mod http;
pub mod i18n;
pub mod metrics;
pub mod picture;
pub mod protocol;
pub mod rating;
pub mod rooms;
pub mod rules;
pub mod server;
pub mod store;
pub mod threads;
pub mod time;

#[cfg(test)]
mod layers {
    //! Dependencies point one way, as the map above says: this reads every `crate::` path in
    //! `src/` and fails on one that a module may not use.

    use std::path::Path;

    /// Each module and the modules it may use. A module missing here fails the test, so that a
    /// new one is placed on the map.
    const MAY_USE: &[(&str, &[&str])] = &[
        ("rules", &[]),
        ("engine", &["rules"]),
        ("metrics", &[]),
        ("rating", &[]),
        ("time", &[]),
        ("threads", &[]),
        ("config", &[]),
        ("i18n", &[]),
        ("clock", &["rules"]),
        ("catalog", &["rules"]),
        ("protocol", &["rules", "clock", "catalog"]),
        ("picture", &["rules", "catalog", "protocol"]),
        ("store", &["rules", "clock", "metrics", "rating"]),
        (
            "rooms",
            &[
                "rules", "clock", "catalog", "metrics", "protocol", "store", "time", "engine",
                "threads",
            ],
        ),
        (
            "http",
            &[
                "rules", "clock", "catalog", "metrics", "protocol", "store", "rooms", "config",
                "engine", "picture", "threads", "rating", "time", "i18n",
            ],
        ),
        (
            "server",
            &[
                "rules", "clock", "catalog", "metrics", "protocol", "store", "rooms", "config",
                "http", "time",
            ],
        ),
        (
            "cli",
            &[
                "rules", "clock", "catalog", "metrics", "protocol", "store", "rooms", "config",
                "http", "server", "time", "engine",
            ],
        ),
    ];

    /// The crates the rules engine may use besides its own modules: it is pure.
    const RULES_CRATES: &[&str] = &["std", "core", "serde", "super", "self"];
    /// The crates the computer player may use: pure too, on the rules (`crate::rules`).
    const ENGINE_CRATES: &[&str] = &["std", "core", "super", "self", "crate"];

    fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// Every module named after `crate::` in `text`.
    fn used(text: &str) -> impl Iterator<Item = &str> {
        text.match_indices("crate::").map(move |(i, _)| {
            let rest = &text[i + 7..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
    }

    #[test]
    fn no_module_imports_upwards() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&src, &mut files);
        let mut wrong = Vec::new();
        for file in &files {
            let relative = file.strip_prefix(&src).unwrap();
            let module = relative
                .components()
                .next()
                .unwrap()
                .as_os_str()
                .to_str()
                .unwrap()
                .trim_end_matches(".rs");
            if ["lib", "main"].contains(&module) {
                continue;
            }
            let allowed = MAY_USE
                .iter()
                .find(|(m, _)| *m == module)
                .unwrap_or_else(|| panic!("src/{module} is not on the map in src/lib.rs"))
                .1;
            let text = std::fs::read_to_string(file).unwrap();
            for target in used(&text) {
                if target != module && !allowed.contains(&target) {
                    wrong.push(format!("{} uses crate::{target}", relative.display()));
                }
            }
            let pure = match module {
                "rules" => RULES_CRATES,
                "engine" => ENGINE_CRATES,
                _ => continue,
            };
            for line in text.lines().map(str::trim_start) {
                let Some(path) = line.strip_prefix("use ") else {
                    continue;
                };
                let root = path.split("::").next().unwrap_or_default();
                if !pure.contains(&root) {
                    wrong.push(format!(
                        "{} uses {root}: {module} is pure",
                        relative.display()
                    ));
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "imports against the map:\n{}",
            wrong.join("\n")
        );
    }

    #[test]
    fn the_test_sees_an_upward_import() {
        let text = "use crate::http::error::CLOSE_RESTART;\nfn f() { crate::rooms::now_ms(); }";
        assert_eq!(used(text).collect::<Vec<_>>(), ["http", "rooms"]);
    }
}
