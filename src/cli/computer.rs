//! The computer's commands: `solve` builds a table file, `best` asks for a turn, `match` plays
//! two levels against each other. The engine is pure: the files, threads and timers it needs are
//! here.

use super::{CliError, GameArgs, VariantArgs};
use crate::catalog::Catalog;
use crate::engine::{self, Ask, Level, Table};
use crate::rooms::{read_table, write_table};
use crate::rules::{Color, Game, Position, Variant};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Where the solved tables live.
#[derive(Debug, Args)]
pub struct TablesArg {
    /// The folder of solved tables (`merels solve` writes there).
    #[arg(long, env = "MERELS_TABLES", default_value = "data/tables")]
    tables: PathBuf,
}

impl TablesArg {
    /// The table of `variant`: from its file, or solved on the spot when it is tiny; `None` for
    /// a board that is searched (or a table not built yet, which is said on stderr).
    fn load(&self, variant: &Variant) -> Result<Option<Table>, CliError> {
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
    /// The first player's level.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=6))]
    a: u8,
    /// The second player's level.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=6))]
    b: u8,
    /// Games to play; the first player has White in the even ones.
    #[arg(long, default_value_t = 20)]
    games: usize,
    /// A node budget for every turn of both players, in place of their levels' own.
    #[arg(long)]
    nodes: Option<u64>,
    /// Plies after which an unfinished game counts as a draw.
    #[arg(long, default_value_t = 600)]
    max_plies: usize,
    /// Where the levels' mistakes come from.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Games played at once; by default one per core.
    #[arg(long)]
    threads: Option<usize>,
}

/// Plays the match and prints wins, draws and losses of the first player, and the Elo
/// difference with its 95% error bar.
pub fn play_match(
    catalog: &Catalog,
    args: &MatchArgs,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let variant = args.variant.variant(catalog)?;
    let table = args.tables.load(&variant)?;
    let levels = [args.a, args.b].map(|n| Level::new(n).expect("clap checks the range"));
    let next = AtomicUsize::new(0);
    let results: Vec<f64> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..args.threads.unwrap_or_else(cores).max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let g = next.fetch_add(1, Ordering::Relaxed);
                        if g >= args.games {
                            return mine;
                        }
                        let a_is_white = g.is_multiple_of(2);
                        let seats = if a_is_white {
                            levels
                        } else {
                            [levels[1], levels[0]]
                        };
                        let winner = play_one(&variant, table.as_ref(), seats, args, g as u64);
                        let a_color = if a_is_white {
                            Color::White
                        } else {
                            Color::Black
                        };
                        mine.push(match winner {
                            None => 0.5,
                            Some(c) if c == a_color => 1.0,
                            Some(_) => 0.0,
                        });
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a match thread panicked"))
            .collect()
    });
    let count = |x: f64| results.iter().filter(|&&r| r == x).count();
    let (wins, draws, losses) = (count(1.0), count(0.5), count(0.0));
    let (elo, margin) = elo_difference(&results);
    writeln!(
        out,
        "{} against {} in {} games of {}: {wins} won, {draws} drawn, {losses} lost; Elo {elo:+.0} ± {margin:.0} (95%)",
        levels[0],
        levels[1],
        results.len(),
        Table::file_name(&variant).trim_end_matches(".table"),
    )?;
    Ok(())
}

/// One game between two levels (White's first); the winner, or `None` for a draw.
fn play_one(
    variant: &Arc<Variant>,
    table: Option<&Table>,
    levels: [Level; 2],
    args: &MatchArgs,
    game_no: u64,
) -> Option<Color> {
    let mut game = Game::new(Arc::clone(variant));
    while game.outcome().is_none() && game.turns().len() < args.max_plies {
        let earlier: Vec<Position> = game.positions().collect();
        let choice = engine::choose(Ask {
            variant,
            table,
            earlier: &earlier[..earlier.len() - 1],
            position: game.position(),
            level: levels[game.to_move().index()],
            seed: args.seed ^ (game_no << 32) ^ game.turns().len() as u64,
            stop: None,
            nodes: args.nodes,
        })
        .expect("a game in play has a legal turn");
        game.play(choice.turn)
            .expect("the computer plays legal turns");
    }
    game.outcome().and_then(|o| o.winner)
}

/// The Elo difference a match's scores (1, ½, 0 for the first player) measure, and the half
/// width of its 95% interval. A score of all or nothing is taken as half a game short of it.
fn elo_difference(scores: &[f64]) -> (f64, f64) {
    let n = scores.len().max(1) as f64;
    let p = scores.iter().sum::<f64>() / n;
    let variance = scores.iter().map(|s| (s - p).powi(2)).sum::<f64>() / n;
    let error = 1.96 * (variance / n).sqrt();
    let clamp = |x: f64| x.clamp(0.5 / n, 1.0 - 0.5 / n);
    let elo = |x: f64| -400.0 * (1.0 / clamp(x) - 1.0).log10();
    (elo(p), (elo(p + error) - elo(p - error)) / 2.0)
}

#[cfg(test)]
mod tests {
    use super::elo_difference;

    #[test]
    fn an_even_match_is_zero_elo_and_three_quarters_is_about_191() {
        let (elo, margin) = elo_difference(&[1.0, 0.0, 0.5, 0.5]);
        assert!(elo.abs() < 1e-9, "{elo}");
        assert!(margin > 0.0);
        let (elo, _) = elo_difference(&[1.0, 1.0, 1.0, 0.0]);
        assert!((elo - 190.85).abs() < 0.1, "{elo}");
    }
}
