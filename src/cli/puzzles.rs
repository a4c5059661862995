//! `merels puzzles`: generates a board's puzzles from its solved table (engine::puzzles) and
//! writes them as JSON lines, one puzzle a line, each proven by the table before it is written.

use super::computer::TablesArg;
use super::{CliError, VariantArgs};
use crate::catalog::Catalog;
use crate::engine::puzzles::{self, Wanted};
use std::io::Write;

/// `merels puzzles`.
#[derive(Debug, clap::Args)]
pub struct PuzzlesArgs {
    #[command(flatten)]
    variant: VariantArgs,
    #[command(flatten)]
    tables: TablesArg,
    /// How many puzzles, at most (fewer when the board has no more to give).
    #[arg(long, default_value_t = 100)]
    count: usize,
    /// Where the self-play's choices come from: the same seed writes the same set.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The most turns the solver makes in one puzzle.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=10))]
    depth: u8,
}

/// Writes the puzzles, a JSON object a line: the variant, its options, the position, the goal
/// (`win` or `draw`), the line in notation (the solver's turns with the computer's answers
/// between) and how many turns the solver makes.
pub fn run(catalog: &Catalog, args: &PuzzlesArgs, out: &mut impl Write) -> Result<(), CliError> {
    let variant = args.variant.variant(catalog)?;
    let Some(table) = args.tables.load(&variant)? else {
        return Err(CliError::Input(format!(
            "{}: puzzles need the board's solved table",
            variant.slug()
        )));
    };
    let wanted = Wanted {
        count: args.count,
        seed: args.seed,
        depth: usize::from(args.depth),
    };
    for puzzle in puzzles::generate(&variant, &table, wanted) {
        puzzles::check(&variant, &table, &puzzle).map_err(|e| CliError::Input(e.to_string()))?;
        let line = serde_json::json!({
            "variant": variant.slug(),
            "options": variant.options_string(),
            "position": variant.position_string(&puzzle.start),
            "goal": puzzle.goal.as_str(),
            "line": puzzle.line_string(&variant),
            "solver_turns": puzzle.solver_turns(),
        });
        writeln!(out, "{line}")?;
    }
    Ok(())
}
