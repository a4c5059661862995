//! The computer's commands: `solve` builds a table file, `best` asks for a turn, `match` plays
//! two levels against each other. The engine is pure: the files, threads and timers it needs are
//! here.

use super::{CliError, GameArgs, VariantArgs};
use crate::catalog::Catalog;
use crate::engine::{self, Ask, Level, Table};
use crate::rooms::{read_table, write_table};
use crate::rules::{Color, Game, Position, Termination, Variant};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Where the solved tables live.
#[derive(Debug, Clone, Args)]
pub struct TablesArg {
    /// The folder of solved tables (`merels solve` writes there).
    #[arg(long, env = "MERELS_TABLES", default_value = "data/tables")]
    tables: PathBuf,
}

impl TablesArg {
    /// The table of `variant`: from its file, or solved on the spot when it is tiny; `None` for
    /// a board that is searched (or a table not built yet, which is said on stderr).
    pub(super) fn load(&self, variant: &Variant) -> Result<Option<Table>, CliError> {
        if engine::solvable(variant).is_err() {
            return Ok(None);
        }
        if let Some(table) = read_table(&self.tables, variant).map_err(CliError::Input)? {
            return Ok(Some(table));
        }
        if engine::solve::on_the_spot(variant) {
            return Ok(engine::solve(variant, 1).ok());
        }
        eprintln!(
            "no table of {} in {}: `merels solve` builds it; searching meanwhile",
            Table::file_name(variant),
            self.tables.display()
        );
        Ok(None)
    }
}

/// `merels solve`.
#[derive(Debug, Args)]
pub struct SolveArgs {
    #[command(flatten)]
    variant: VariantArgs,
    #[command(flatten)]
    tables: TablesArg,
    /// Threads to solve on; by default every core.
    #[arg(long)]
    threads: Option<usize>,
}

/// Solves a small board and writes its table, with a census of what it holds.
pub fn solve(catalog: &Catalog, args: &SolveArgs, out: &mut impl Write) -> Result<(), CliError> {
    let variant = args.variant.variant(catalog)?;
    let threads = args.threads.unwrap_or_else(cores);
    let started = Instant::now();
    let table = engine::solve(&variant, threads).map_err(|e| CliError::Input(e.to_string()))?;
    let seconds = started.elapsed().as_secs_f64();
    let path = write_table(&args.tables.tables, &variant, &table)?;
    let census = table.census();
    let start = table
        .value(&variant.start())
        .map_or_else(|| "not in the table".into(), |v| v.to_string());
    writeln!(
        out,
        "{}: {} positions: {} won, {} drawn, {} lost by the side to move; the longest takes {} plies",
        Table::file_name(&variant),
        census.wins + census.draws + census.losses,
        census.wins,
        census.draws,
        census.losses,
        census.longest
    )?;
    writeln!(out, "the start: {start} for White")?;
    writeln!(
        out,
        "wrote {} ({} MB) in {seconds:.1} s on {threads} threads",
        path.display(),
        table.len().div_ceil(1 << 20)
    )?;
    Ok(())
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `merels best`.
#[derive(Debug, Args)]
pub struct BestArgs {
    #[command(flatten)]
    game: GameArgs,
    #[command(flatten)]
    tables: TablesArg,
    /// The level, 1 (beginner) to 6 (master: perfect on a solved board).
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u8).range(1..=6))]
    level: u8,
    /// The most time to think, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    millis: u64,
    /// A node budget in place of the level's own.
    #[arg(long)]
    nodes: Option<u64>,
    /// Where a level's mistakes come from.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print every legal turn with its score, best first, instead of the level's choice.
    #[arg(long)]
    each: bool,
}

/// Prints the computer's turn, its score, and how far it looked.
pub fn best(catalog: &Catalog, args: &BestArgs, out: &mut impl Write) -> Result<(), CliError> {
    let game = args.game.game(catalog)?;
    if let Some(outcome) = game.outcome() {
        return Err(CliError::Input(format!(
            "the game is over: {}",
            outcome.summary()
        )));
    }
    let variant = game.variant();
    let table = args.tables.load(variant)?;
    let earlier: Vec<Position> = game.positions().collect();
    let stop = Arc::new(AtomicBool::new(false));
    let timer = Arc::clone(&stop);
    let millis = args.millis;
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(millis));
        timer.store(true, Ordering::Relaxed);
    });
    let started = Instant::now();
    let ask = Ask {
        variant,
        table: table.as_ref(),
        earlier: &earlier[..earlier.len() - 1],
        position: game.position(),
        level: Level::new(args.level).expect("clap checks the range"),
        seed: args.seed,
        stop: Some(&stop),
        nodes: args.nodes,
    };
    if args.each {
        for (turn, score) in engine::score_all(ask) {
            writeln!(out, "{} {score}", variant.turn_string(turn))?;
        }
        return Ok(());
    }
    let choice = engine::choose(ask).expect("a game in play has a legal turn");
    writeln!(
        out,
        "{} {} (depth {}, {} nodes, {} ms)",
        variant.turn_string(choice.turn),
        choice.score,
        choice.depth,
        choice.nodes,
        started.elapsed().as_millis()
    )?;
    Ok(())
}

/// `merels match`.
#[derive(Debug, Args)]
pub struct MatchArgs {
    #[command(flatten)]
    variant: VariantArgs,
    #[command(flatten)]
    tables: TablesArg,
    /// The first player's level (when no `--engine` plays first).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=6))]
    a: Option<u8>,
    /// The second player's level (when no second `--engine` plays).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=6))]
    b: Option<u8>,
    /// A command that starts an engine speaking the UCI-style protocol (`merels uci`, an older
    /// build, another program): the first replaces `--a`, a second one `--b`.
    #[arg(long = "engine", value_name = "COMMAND")]
    engines: Vec<String>,
    /// Milliseconds a turn for every player (`go movetime` to an engine; the strongest level
    /// thinks until then), in place of the levels' node budgets.
    #[arg(long)]
    movetime: Option<u64>,
    /// Games to play, in pairs from the same random opening with colours swapped; the first
    /// player has White in the even ones.
    #[arg(long, default_value_t = 20)]
    games: usize,
    /// A node budget for every turn of both players, in place of the levels' own (`go nodes`
    /// to an engine, in place of `--movetime`).
    #[arg(long)]
    nodes: Option<u64>,
    /// Random plies before the players take over: each pair's opening is between the two
    /// numbers (`0-0` for none).
    #[arg(long, default_value = "2-4")]
    opening: String,
    /// Plies after which an unfinished game counts as a draw.
    #[arg(long, default_value_t = 600)]
    max_plies: usize,
    /// Where the openings and the levels' mistakes come from.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Games played at once; by default one per core.
    #[arg(long)]
    threads: Option<usize>,
}

/// One game's result, for the first player.
#[derive(Debug, Clone, Copy)]
struct Played {
    /// 1, ½ or 0.
    score: f64,
    /// Whether the first player (`[0]`) or the second (`[1]`) lost with no legal turn.
    blockaded: [bool; 2],
}

/// Plays the match and prints wins, draws and losses of the first player, its score, the Elo
/// difference with its 95% range, and how many of each side's losses were blockades.
pub fn play_match(
    catalog: &Catalog,
    args: &MatchArgs,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let variant = args.variant.variant(catalog)?;
    let table = args.tables.load(&variant)?;
    let seats = [args.a, args.b];
    let mut specs = Vec::new();
    for (i, level) in seats.into_iter().enumerate() {
        specs.push(match (args.engines.get(i), level) {
            (Some(command), _) => Seat::Engine(command.clone()),
            (None, Some(n)) => Seat::Level(Level::new(n).expect("clap checks the range")),
            (None, None) => {
                return Err(CliError::Input(format!(
                    "the {} player: give --{} LEVEL or an --engine",
                    ["first", "second"][i],
                    ["a", "b"][i]
                )));
            }
        });
    }
    if args.engines.len() > 2 {
        return Err(CliError::Input("at most two --engine".into()));
    }
    let opening = parse_opening(&args.opening)?;
    // Every engine is started once here, to fail early on a bad command, and to learn its name.
    let mut names = Vec::new();
    for spec in &specs {
        names.push(match spec {
            Seat::Level(level) => level.to_string(),
            Seat::Engine(command) => Engine::start(command, &args.variant)?.name.clone(),
        });
    }
    let next = AtomicUsize::new(0);
    let results: Result<Vec<Played>, CliError> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..args.threads.unwrap_or_else(cores).max(1))
            .map(|_| {
                scope.spawn(|| -> Result<Vec<Played>, CliError> {
                    let mut players = specs
                        .iter()
                        .map(|s| s.start(&args.variant))
                        .collect::<Result<Vec<Player>, CliError>>()?;
                    let mut mine = Vec::new();
                    loop {
                        let g = next.fetch_add(1, Ordering::Relaxed);
                        if g >= args.games {
                            return Ok(mine);
                        }
                        let a_is_white = g.is_multiple_of(2);
                        let start = random_opening(&variant, opening, args.seed, g as u64 / 2);
                        let outcome = {
                            let (a, b) = players.split_at_mut(1);
                            let seats = if a_is_white {
                                [&mut a[0], &mut b[0]]
                            } else {
                                [&mut b[0], &mut a[0]]
                            };
                            play_one(&variant, table.as_ref(), seats, args, g as u64, start)
                        };
                        let a_color = if a_is_white {
                            Color::White
                        } else {
                            Color::Black
                        };
                        let (winner, termination, plies) = outcome;
                        let score = match winner {
                            None => 0.5,
                            Some(c) if c == a_color => 1.0,
                            Some(_) => 0.0,
                        };
                        let blockade = termination == Some(Termination::NoLegalMove);
                        eprintln!(
                            "game {}: {} {}, {} plies, {}",
                            g + 1,
                            names[0],
                            ["lost", "drew", "won"][(score * 2.0) as usize],
                            plies,
                            termination.map_or("unfinished", Termination::as_str)
                        );
                        mine.push(Played {
                            score,
                            blockaded: [blockade && score == 0.0, blockade && score == 1.0],
                        });
                    }
                })
            })
            .collect();
        let mut all = Vec::new();
        for w in workers {
            all.extend(w.join().expect("a match thread panicked")?);
        }
        Ok(all)
    });
    let results = results?;
    let scores: Vec<f64> = results.iter().map(|r| r.score).collect();
    let count = |x: f64| scores.iter().filter(|&&r| r == x).count();
    let (wins, draws, losses) = (count(1.0), count(0.5), count(0.0));
    let (elo, low, high) = elo_range(&scores);
    let share = scores.iter().sum::<f64>() / scores.len().max(1) as f64;
    let pace = args
        .movetime
        .map_or_else(String::new, |ms| format!(" at {ms} ms a turn"));
    writeln!(
        out,
        "{} against {} in {} games of {}{pace}: {wins} won, {draws} drawn, {losses} lost; score {:.1}%; Elo {elo:+.0} ({low:+.0}, {high:+.0}) (95%)",
        names[0],
        names[1],
        scores.len(),
        Table::file_name(&variant).trim_end_matches(".table"),
        100.0 * share,
    )?;
    let blockades = |i: usize| results.iter().filter(|r| r.blockaded[i]).count();
    writeln!(
        out,
        "lost by blockade (no legal turn): {} {} of {losses} losses, {} {} of {wins}",
        names[0],
        blockades(0),
        names[1],
        blockades(1),
    )?;
    Ok(())
}

pub(super) fn parse_opening(s: &str) -> Result<(usize, usize), CliError> {
    let bad = || CliError::Input(format!("--opening {s}: write MIN-MAX, e.g. 2-4"));
    let (lo, hi) = s.split_once('-').ok_or_else(bad)?;
    let (lo, hi): (usize, usize) = (
        lo.trim().parse().map_err(|_| bad())?,
        hi.trim().parse().map_err(|_| bad())?,
    );
    if lo > hi {
        return Err(bad());
    }
    Ok((lo, hi))
}

/// The opening of game pair `pair`: between `plies.0` and `plies.1` random legal turns from the
/// start, the same for a seed and pair, none of them ending the game.
fn random_opening(variant: &Arc<Variant>, plies: (usize, usize), seed: u64, pair: u64) -> Game {
    let mut rng = engine::Rng::new(seed ^ pair.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    engine::tune::opening(variant, plies, &mut rng)
}

/// Who plays a seat, before it is started.
#[derive(Debug, Clone)]
enum Seat {
    Level(Level),
    Engine(String),
}

impl Seat {
    fn start(&self, variant: &VariantArgs) -> Result<Player, CliError> {
        Ok(match self {
            Seat::Level(level) => Player::Level(*level),
            Seat::Engine(command) => Player::Engine(Box::new(Engine::start(command, variant)?)),
        })
    }
}

/// A player of one match thread: a level of this build, or an engine process.
enum Player {
    Level(Level),
    Engine(Box<Engine>),
}

/// An engine process speaking the UCI-style protocol, with a thread reading its answers.
struct Engine {
    name: String,
    child: std::process::Child,
    input: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Engine {
    /// Starts `command` (through `sh -c`), and sets it to the variant.
    fn start(command: &str, variant: &VariantArgs) -> Result<Engine, CliError> {
        use std::process::{Command, Stdio};
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| CliError::Input(format!("--engine {command}: {e}")))?;
        let input = child.stdin.take().expect("piped");
        let output = child.stdout.take().expect("piped");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(output).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = Engine {
            name: command.to_string(),
            child,
            input,
            lines,
        };
        let fail = |e: String| CliError::Input(format!("--engine {command}: {e}"));
        engine.send("uci").map_err(fail)?;
        let wait = Duration::from_secs(10);
        let name = engine.wait_for("uciok", wait).map_err(fail)?;
        if let Some(name) = name {
            engine.name = name;
        }
        engine
            .send(&format!("setoption name Variant value {}", variant.variant))
            .map_err(fail)?;
        if !variant.set.is_empty() {
            engine
                .send(&format!(
                    "setoption name VariantOptions value {}",
                    variant.set.join(",")
                ))
                .map_err(fail)?;
        }
        engine.send("isready").map_err(fail)?;
        engine.wait_for("readyok", wait).map_err(fail)?;
        Ok(engine)
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.input, "{line}")
            .and_then(|()| self.input.flush())
            .map_err(|e| format!("writing to it: {e}"))
    }

    /// Reads lines until one that starts with `word`; returns the `id name` seen on the way.
    fn wait_for(&mut self, word: &str, wait: Duration) -> Result<Option<String>, String> {
        let deadline = Instant::now() + wait;
        let mut name = None;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .map_err(|_| format!("no `{word}` within {} ms", wait.as_millis()))?;
            if let Some(n) = line.strip_prefix("id name ") {
                name = Some(n.trim().to_string());
            }
            if line.split_whitespace().next() == Some(word) {
                // `uciok` answers with the name the engine gave; anything else with the line.
                return Ok(if word == "uciok" { name } else { Some(line) });
            }
        }
    }

    /// The engine's turn in `game`: its `bestmove`, not yet checked. A node budget, where given,
    /// in place of the time (`go nodes`): a match that does not depend on the machine's load.
    fn turn(
        &mut self,
        game: &Game,
        movetime: Option<u64>,
        nodes: Option<u64>,
    ) -> Result<String, String> {
        self.send(&format!(
            "position startpos moves {}",
            game.turn_strings().join(" ")
        ))?;
        let millis = movetime.unwrap_or(10_000);
        let wait = match nodes {
            Some(n) => {
                self.send(&format!("go nodes {n}"))?;
                // Even a slow engine searches ten thousand nodes a second.
                Duration::from_millis(n / 10 + 10_000)
            }
            None => {
                self.send(&format!("go movetime {millis}"))?;
                Duration::from_millis(millis + 10_000)
            }
        };
        let line = self.wait_for("bestmove", wait)?.expect("the line itself");
        Ok(line
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_string())
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One game between two players (White's first) from `game`: the winner (`None` for a draw),
/// why it ended (`None` when it reached `--max-plies`) and its plies. A player that answers
/// with no turn, an illegal one or none in time loses.
fn play_one(
    variant: &Arc<Variant>,
    table: Option<&Table>,
    mut players: [&mut Player; 2],
    args: &MatchArgs,
    game_no: u64,
    mut game: Game,
) -> (Option<Color>, Option<Termination>, usize) {
    for p in players.iter_mut() {
        if let Player::Engine(e) = p {
            let _ = e.send("ucinewgame");
        }
    }
    while game.outcome().is_none() && game.turns().len() < args.max_plies {
        let mover = game.to_move();
        let turn = match &mut players[mover.index()] {
            Player::Level(level) => {
                let earlier: Vec<Position> = game.positions().collect();
                let stop = AtomicBool::new(false);
                let choice = std::thread::scope(|scope| {
                    if let Some(ms) = args.movetime {
                        let stop = &stop;
                        scope.spawn(move || {
                            let deadline = Instant::now() + Duration::from_millis(ms);
                            while !stop.load(Ordering::Relaxed) && Instant::now() < deadline {
                                std::thread::sleep(Duration::from_millis(1));
                            }
                            stop.store(true, Ordering::Relaxed);
                        });
                    }
                    let choice = engine::choose(Ask {
                        variant,
                        table,
                        earlier: &earlier[..earlier.len() - 1],
                        position: game.position(),
                        level: *level,
                        seed: args.seed ^ (game_no << 32) ^ game.turns().len() as u64,
                        stop: Some(&stop),
                        nodes: args.nodes.or(args
                            .movetime
                            .filter(|_| *level == Level::MAX)
                            .map(|_| u64::MAX)),
                    });
                    stop.store(true, Ordering::Relaxed);
                    choice
                });
                Ok(choice.expect("a game in play has a legal turn").turn)
            }
            Player::Engine(engine) => engine
                .turn(&game, args.movetime, args.nodes)
                .and_then(|t| variant.parse_turn(&t).map_err(|e| format!("{t}: {e}"))),
        };
        let played = turn.and_then(|t| game.play(t).map_err(|e| format!("{e:?}")));
        if let Err(e) = played {
            eprintln!(
                "game {}: {mover:?} forfeits after {} plies: {e}",
                game_no + 1,
                game.turns().len()
            );
            return (Some(mover.opponent()), None, game.turns().len());
        }
    }
    let outcome = game.outcome();
    (
        outcome.and_then(|o| o.winner),
        outcome.map(|o| o.termination),
        game.turns().len(),
    )
}

/// The Elo difference a match's scores (1, ½, 0 for the first player) measure, with the ends of
/// its 95% interval.
fn elo_range(scores: &[f64]) -> (f64, f64, f64) {
    let n = scores.len().max(1) as f64;
    let p = scores.iter().sum::<f64>() / n;
    let variance = scores.iter().map(|s| (s - p).powi(2)).sum::<f64>() / n;
    let error = 1.96 * (variance / n).sqrt();
    let clamp = |x: f64| x.clamp(0.5 / n, 1.0 - 0.5 / n);
    let elo = |x: f64| -400.0 * (1.0 / clamp(x) - 1.0).log10();
    (elo(p), elo(p - error), elo(p + error))
}

#[cfg(test)]
mod tests {
    use super::elo_range;

    #[test]
    fn an_even_match_is_zero_elo_and_three_quarters_is_about_191() {
        let (elo, low, high) = elo_range(&[1.0, 0.0, 0.5, 0.5]);
        assert!(elo.abs() < 1e-9, "{elo}");
        assert!(low < elo && elo < high, "{low} {elo} {high}");
        let (elo, _, _) = elo_range(&[1.0, 1.0, 1.0, 0.0]);
        assert!((elo - 190.85).abs() < 0.1, "{elo}");
    }
}
