//! `merels tune`: fits the evaluation's weights to games the engine plays itself
//! ([`crate::engine::tune`]) and prints them as the Rust constant `Weights::DEFAULT` holds.

use super::computer::parse_opening;
use super::{CliError, VariantArgs};
use crate::catalog::Catalog;
use crate::engine::eval::Weights;
use crate::engine::tune::{self, Plan};
use std::io::Write;
use std::time::Instant;

/// `merels tune`.
#[derive(Debug, clap::Args)]
pub struct TuneArgs {
    #[command(flatten)]
    variant: VariantArgs,
    /// Where the games' openings come from: one seed, one set of weights.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Games the engine plays itself.
    #[arg(long, default_value_t = 400)]
    games: usize,
    /// The search's node budget for every turn of those games.
    #[arg(long, default_value_t = 3_000)]
    nodes: u64,
    /// Random plies at the start of each game, between the two numbers.
    #[arg(long, default_value = "2-6")]
    opening: String,
    /// Plies after which an unfinished game counts as a draw.
    #[arg(long, default_value_t = 200)]
    max_plies: usize,
}

/// Plays the games, fits the weights from the current ones, and prints what it found.
pub fn run(catalog: &Catalog, args: &TuneArgs, out: &mut impl Write) -> Result<(), CliError> {
    let variant = args.variant.variant(catalog)?;
    let plan = Plan {
        seed: args.seed,
        games: args.games,
        nodes: args.nodes,
        opening: parse_opening(&args.opening)?,
        max_plies: args.max_plies,
    };
    let started = Instant::now();
    let samples = tune::play(&variant, &plan);
    let played = started.elapsed();
    let fitted = tune::fit(&samples, &Weights::DEFAULT);
    writeln!(
        out,
        "// {} quiet positions of {} games ({:.1} s), fitted in {:.1} s; logistic scale {:.5}",
        fitted.samples,
        plan.games,
        played.as_secs_f64(),
        (started.elapsed() - played).as_secs_f64(),
        fitted.scale,
    )?;
    writeln!(
        out,
        "// mean squared error {:.5} with the weights before, {:.5} with these",
        fitted.error_before, fitted.error_after
    )?;
    writeln!(out, "{:#?}", fitted.weights)?;
    Ok(())
}
