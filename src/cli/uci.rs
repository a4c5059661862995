//! `merels uci`: the computer behind the UCI-style protocol that Morris engines speak, on stdin
//! and stdout, so that other programs (and `merels match --engine`) can play it. Positions and
//! turns are in merels's notation; docs/ENGINE.md has the dialogue. The search runs on a thread
//! of its own, so that `stop`, `isready` and `quit` are answered while it thinks; the clock that
//! ends a `go movetime` is a timer thread here, the engine only reads the flag it sets.

use super::CliError;
use super::computer::TablesArg;
use crate::catalog::{Catalog, parse_options};
use crate::engine::{self, Ask, Level, Limits, Score, Search, Table, search};
use crate::rules::{Game, Position, Variant};
use clap::Args;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// `merels uci`.
#[derive(Debug, Args)]
pub struct UciArgs {
    /// The variant to start with (`setoption name Variant value SLUG` changes it).
    #[arg(long, default_value = "nine-mens-morris")]
    variant: String,
    /// The level to start with (`setoption name Level value N` changes it).
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u8).range(1..=6))]
    level: u8,
    #[command(flatten)]
    tables: TablesArg,
}

/// Where the engine writes: shared between the loop and the thread that searches.
pub type Out = Arc<Mutex<dyn Write + Send>>;

/// The engine's settings and the game it was last given.
struct Session {
    slug: String,
    level: Level,
    variant: Arc<Variant>,
    table: Option<Arc<Table>>,
    game: Game,
}

/// A search under way: its stop flag and its thread.
struct Thinking {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

impl Thinking {
    fn finish(self, stop: bool) {
        if stop {
            self.stop.store(true, Ordering::Relaxed);
        }
        // A search that panicked has nothing left to say.
        let _ = self.thread.join();
    }
}

fn say(out: &Out, line: &str) {
    let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
    // A reader that went away cannot be told anything more.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Runs the dialogue: commands from `input`, answers to `out`, until `quit` or the end of the
/// input (which lets a search under way finish first).
pub fn uci(
    catalog: &Catalog,
    args: &UciArgs,
    input: impl BufRead,
    out: Out,
) -> Result<(), CliError> {
    let tables = args.tables.clone();
    let level = Level::new(args.level).expect("clap checks the range");
    let mut session = Session::new(catalog, &tables, &args.variant, "", level)?;
    let mut thinking: Option<Thinking> = None;
    let mut quit = false;
    for line in input.lines() {
        let line = line?;
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, rest)) = words.split_first() else {
            continue;
        };
        match command {
            "uci" => {
                say(
                    &out,
                    &format!("id name merels {}", env!("CARGO_PKG_VERSION")),
                );
                say(&out, "id author the merels authors");
                let slugs: Vec<&str> = catalog.variants().iter().map(|v| v.slug()).collect();
                say(
                    &out,
                    &format!(
                        "option name Variant type combo default {} var {}",
                        session.slug,
                        slugs.join(" var ")
                    ),
                );
                say(
                    &out,
                    "option name VariantOptions type string default <empty>",
                );
                say(
                    &out,
                    &format!(
                        "option name Level type spin default {} min 1 max {}",
                        session.level.number(),
                        Level::MAX.number()
                    ),
                );
                say(&out, "uciok");
            }
            "isready" => say(&out, "readyok"),
            "debug" | "register" | "ponderhit" => {}
            "stop" => {
                if let Some(t) = thinking.take() {
                    t.finish(true);
                }
            }
            "quit" => {
                quit = true;
                break;
            }
            _ => {
                // Everything else changes the position or starts a search: the last one ends
                // first (a GUI that sends `position` while the engine thinks has moved on).
                if let Some(t) = thinking.take() {
                    t.finish(true);
                }
                let done = match command {
                    "ucinewgame" => {
                        session.game = Game::new(Arc::clone(&session.variant));
                        Ok(())
                    }
                    "setoption" => session.set_option(catalog, &tables, rest),
                    "position" => session.set_position(rest),
                    "go" => Go::parse(rest).map(|go| {
                        thinking = Some(session.go(go, Arc::clone(&out)));
                    }),
                    _ => Err(format!("unknown command: {command}")),
                };
                if let Err(e) = done {
                    say(&out, &format!("info string error: {e}"));
                }
            }
        }
    }
    if let Some(t) = thinking.take() {
        // `quit` stops the search; the end of the input waits for it.
        t.finish(quit);
    }
    Ok(())
}

impl Session {
    fn new(
        catalog: &Catalog,
        tables: &TablesArg,
        slug: &str,
        options: &str,
        level: Level,
    ) -> Result<Session, String> {
        let choices = parse_options(options).map_err(|e| e.to_string())?;
        let variant = catalog
            .configure(slug, &choices)
            .map_err(|e| e.to_string())?;
        let table = tables
            .load(&variant)
            .map_err(|e| e.to_string())?
            .map(Arc::new);
        Ok(Session {
            slug: slug.to_string(),
            level,
            game: Game::new(Arc::clone(&variant)),
            variant,
            table,
        })
    }

    /// `setoption name NAME value VALUE`.
    fn set_option(
        &mut self,
        catalog: &Catalog,
        tables: &TablesArg,
        words: &[&str],
    ) -> Result<(), String> {
        let text = words.join(" ");
        let rest = text
            .strip_prefix("name ")
            .ok_or("write `setoption name NAME value VALUE`")?;
        let (name, value) = rest.split_once(" value ").unwrap_or((rest, ""));
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "variant" => *self = Session::new(catalog, tables, value, "", self.level)?,
            "variantoptions" => {
                let options = if value == "<empty>" { "" } else { value };
                *self = Session::new(catalog, tables, &self.slug, options, self.level)?;
            }
            "level" => {
                self.level = value
                    .parse()
                    .ok()
                    .and_then(Level::new)
                    .ok_or_else(|| format!("Level {value}: a number from 1 to 6"))?;
            }
            other => return Err(format!("unknown option: {other}")),
        }
        Ok(())
    }

    /// `position startpos [moves T...]` or `position fen POSITION [moves T...]`. A position or
    /// turn that does not parse, or an illegal turn, leaves the last position as it was.
    fn set_position(&mut self, words: &[&str]) -> Result<(), String> {
        let moves_at = words.iter().position(|&w| w == "moves");
        let (head, turns) = match moves_at {
            Some(i) => (&words[..i], &words[i + 1..]),
            None => (words, &[][..]),
        };
        let start = match head.split_first() {
            Some((&"startpos", [])) => None,
            Some((&"fen", fen)) if !fen.is_empty() => Some(
                self.variant
                    .parse_position(&fen.join(" "))
                    .map_err(|e| e.to_string())?,
            ),
            _ => return Err("write `position startpos` or `position fen POSITION`".into()),
        };
        self.game =
            Game::replay(Arc::clone(&self.variant), start, turns).map_err(|e| e.to_string())?;
        Ok(())
    }

    /// Starts the search on a thread of its own, with a timer thread for a time limit.
    fn go(&self, go: Go, out: Out) -> Thinking {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let stop = Arc::clone(&stop);
            let variant = Arc::clone(&self.variant);
            let table = self.table.clone();
            let level = self.level;
            let earlier: Vec<Position> = self.game.positions().collect();
            let over = self.game.outcome().is_some();
            let to_move = self.game.to_move();
            std::thread::spawn(move || {
                if over {
                    say(&out, "info string the game is over");
                    say(&out, "bestmove (none)");
                    return;
                }
                if let Some(millis) = go.millis(to_move) {
                    let timer = Arc::clone(&stop);
                    std::thread::spawn(move || {
                        std::thread::sleep(Duration::from_millis(millis));
                        timer.store(true, Ordering::Relaxed);
                    });
                }
                let (position, earlier) = earlier.split_last().expect("a game has a position");
                think(
                    &variant,
                    table.as_deref(),
                    earlier,
                    position,
                    level,
                    go,
                    &stop,
                    &out,
                );
            })
        };
        Thinking { stop, thread }
    }
}

/// Searches and says what it found: an `info` line, then `bestmove`.
#[allow(clippy::too_many_arguments)]
fn think(
    variant: &Variant,
    table: Option<&Table>,
    earlier: &[Position],
    position: &Position,
    level: Level,
    go: Go,
    stop: &AtomicBool,
    out: &Out,
) {
    let started = Instant::now();
    let choice = match go.depth {
        // A fixed depth with nothing else: the strongest search to that depth.
        Some(depth) if table.is_none() => {
            let mut search =
                Search::for_nodes(variant, go.nodes.unwrap_or(u64::MAX)).with_stop(Some(stop));
            let limits = Limits {
                depth,
                nodes: go.nodes.unwrap_or(u64::MAX),
            };
            search
                .best(earlier, position, limits)
                .map(|f| engine::Choice {
                    turn: f.turn,
                    score: Score::Search(f.score),
                    depth: f.depth,
                    nodes: f.nodes,
                })
        }
        _ => engine::choose(Ask {
            variant,
            table,
            earlier,
            position,
            level,
            seed: go.seed,
            stop: Some(stop),
            // Given time, the strongest level thinks until the timer stops it.
            nodes: go
                .nodes
                .or(((go.timed() || go.infinite) && level == Level::MAX).then_some(u64::MAX)),
        }),
    };
    let Some(choice) = choice else {
        say(out, "bestmove (none)");
        return;
    };
    let millis = started.elapsed().as_millis().max(1);
    let score = match choice.score {
        Score::Search(s) if s > search::MATE_BOUND => {
            format!("mate {}", (search::MATE - s + 1) / 2)
        }
        Score::Search(s) if s < -search::MATE_BOUND => {
            format!("mate -{}", (search::MATE + s) / 2)
        }
        Score::Search(s) => format!("cp {s}"),
        Score::Exact(v) => match v {
            engine::Value::Win(d) => format!("mate {}", d.div_ceil(2)),
            engine::Value::Loss(d) => format!("mate -{}", d / 2),
            engine::Value::Draw => "cp 0".into(),
        },
    };
    let turn = variant.turn_string(choice.turn);
    say(
        out,
        &format!(
            "info depth {} score {score} nodes {} nps {} time {millis} pv {turn}",
            choice.depth,
            choice.nodes,
            u128::from(choice.nodes) * 1000 / millis,
        ),
    );
    say(out, &format!("bestmove {turn}"));
}

/// What `go` asks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Go {
    movetime: Option<u64>,
    depth: Option<u8>,
    nodes: Option<u64>,
    /// The clocks and increments, White's then Black's, in milliseconds.
    time: [Option<u64>; 2],
    inc: [u64; 2],
    infinite: bool,
    seed: u64,
}

impl Go {
    fn parse(words: &[&str]) -> Result<Go, String> {
        let mut go = Go::default();
        let mut words = words.iter();
        while let Some(&word) = words.next() {
            if word == "infinite" {
                go.infinite = true;
                continue;
            }
            let value = words
                .next()
                .ok_or_else(|| format!("go {word}: a number must follow"))?;
            let number: u64 = value
                .parse()
                .map_err(|_| format!("go {word} {value}: not a number"))?;
            match word {
                "movetime" => go.movetime = Some(number),
                "depth" => {
                    go.depth = Some(u8::try_from(number.clamp(1, 64)).expect("clamped"));
                }
                "nodes" => go.nodes = Some(number),
                "wtime" => go.time[0] = Some(number),
                "btime" => go.time[1] = Some(number),
                "winc" => go.inc[0] = number,
                "binc" => go.inc[1] = number,
                "seed" => go.seed = number,
                "movestogo" => {}
                other => return Err(format!("go {other}: not understood")),
            }
        }
        Ok(go)
    }

    fn timed(&self) -> bool {
        self.movetime.is_some() || self.time.iter().any(Option::is_some)
    }

    /// How long to think: the movetime, or a thirtieth of the clock and half the increment (as
    /// the server allows the computer in a timed game); `None` for no limit.
    fn millis(&self, to_move: crate::rules::Color) -> Option<u64> {
        if self.infinite {
            return None;
        }
        let i = to_move.index();
        self.movetime
            .or_else(|| self.time[i].map(|t| (t / 30 + self.inc[i] / 2).min(t.saturating_sub(50))))
    }
}

/// Runs `merels uci` on the process's stdin and stdout.
pub fn run(catalog: &Catalog, args: &UciArgs) -> Result<(), CliError> {
    let out: Out = Arc::new(Mutex::new(std::io::stdout()));
    uci(catalog, args, std::io::stdin().lock(), out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn session(script: &str) -> String {
        let buffer = Arc::new(Mutex::new(Vec::<u8>::new()));
        let out: Out = buffer.clone();
        let parsed = crate::cli::Cli::try_parse_from(["merels", "uci"]).expect("parses");
        let Some(crate::cli::Command::Uci(args)) = parsed.command else {
            panic!("not the uci command");
        };
        uci(Catalog::builtin(), &args, script.as_bytes(), out).expect("the session runs");
        let bytes = buffer.lock().expect("not poisoned").clone();
        String::from_utf8(bytes).expect("utf-8")
    }

    /// The session's `bestmove` is a legal turn of `slug` after `before`.
    fn assert_legal_best(said: &str, slug: &str, before: &[&str]) {
        let best = said
            .lines()
            .find_map(|l| l.strip_prefix("bestmove "))
            .expect("a bestmove");
        let variant = Catalog::builtin()
            .configure(slug, &Default::default())
            .expect("a variant");
        let turns: Vec<&str> = before.iter().copied().chain([best]).collect();
        Game::replay(variant, None, &turns).expect("a legal turn");
    }

    #[test]
    fn a_scripted_session_answers_every_command() {
        let said = session(
            "uci\nisready\nucinewgame\nposition startpos moves a7 d7 a1\ngo depth 3\nisready\nquit\n",
        );
        let lines: Vec<&str> = said.lines().collect();
        assert!(lines[0].starts_with("id name merels"), "{said}");
        assert!(lines.contains(&"uciok"), "{said}");
        assert_eq!(
            lines.iter().filter(|l| **l == "readyok").count(),
            2,
            "{said}"
        );
        let info = lines
            .iter()
            .find(|l| l.starts_with("info depth"))
            .expect("an info line");
        assert!(info.starts_with("info depth 3 score cp "), "{info}");
        assert!(info.contains(" nodes ") && info.contains(" nps ") && info.contains(" pv "));
        // The turn is legal for Black after a7 d7 a1.
        assert_legal_best(&said, "nine-mens-morris", &["a7", "d7", "a1"]);
    }

    #[test]
    fn a_mill_in_one_is_taken_and_bad_input_changes_nothing() {
        // White has a7 and a4 and closes a1 at once; a bad position keeps the last one.
        let said = session(
            "position startpos moves a7 g7 a4 g4\nposition startpos moves a7 zz\ngo depth 2\n",
        );
        assert!(said.contains("info string error"), "{said}");
        assert!(said.contains("bestmove a1x"), "{said}");
    }

    #[test]
    fn options_change_the_variant_and_level_and_reject_nonsense() {
        let said = session(
            "setoption name Variant value lasker-morris\nsetoption name Level value 9\nsetoption name Colour value red\nposition startpos\ngo depth 1\n",
        );
        let errors = said
            .lines()
            .filter(|l| l.starts_with("info string error"))
            .count();
        assert_eq!(errors, 2, "{said}");
        // It must be a turn of Lasker's, not of Nine Men's.
        assert_legal_best(&said, "lasker-morris", &[]);
    }

    #[test]
    fn movetime_and_stop_end_the_search() {
        let said = session("position startpos\ngo movetime 200\n");
        assert!(said.contains("bestmove "), "{said}");
        let said = session("position startpos\ngo infinite\nstop\n");
        assert!(said.contains("bestmove "), "{said}");
    }
}
