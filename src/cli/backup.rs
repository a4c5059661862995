//! `merels backup` and `merels restore`: a copy of the SQLite database taken while the server
//! serves it, and put back while it does not (the store's `backup` module does the work).

use super::CliError;
use crate::config::DEFAULT_DATABASE_URL;
use crate::store::backup::{self, Contents};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

/// Which database, and the copy's file.
#[derive(Debug, Args)]
pub struct CopyArgs {
    /// The database, as the server is given it (only `sqlite:PATH`: PostgreSQL has pg_dump).
    #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
    database_url: String,
    /// The copy: written by `backup` (it must not exist yet), read by `restore`.
    file: PathBuf,
}

/// `merels backup FILE`.
pub fn backup(args: &CopyArgs, out: &mut impl Write) -> Result<(), CliError> {
    let contents = run(backup::backup(&args.database_url, &args.file))?;
    Ok(writeln!(
        out,
        "backed up {} to {}",
        held(contents),
        args.file.display()
    )?)
}

/// `merels restore FILE`.
pub fn restore(args: &CopyArgs, out: &mut impl Write) -> Result<(), CliError> {
    let contents = run(backup::restore(&args.database_url, &args.file))?;
    Ok(writeln!(
        out,
        "restored {} from {} into {} (the file it replaced, if any, is kept beside it as \
         .before-restore)",
        held(contents),
        args.file.display(),
        args.database_url
    )?)
}

/// What a copy holds, in words.
fn held(c: Contents) -> String {
    format!(
        "{} games and {} turns (schema {})",
        c.games, c.turns, c.version
    )
}

/// Runs one of the store's futures to its end on a runtime of its own.
fn run<T>(work: impl Future<Output = Result<T, crate::store::StoreError>>) -> Result<T, CliError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime
        .block_on(work)
        .map_err(|e| CliError::Input(e.to_string()))
}
