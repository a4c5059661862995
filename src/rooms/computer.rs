//! The computer as a player: a seat held by a level instead of a secret, and the thinking that
//! plays it.
//!
//! The engine thinks on the blocking pool, never on a room's task; a semaphore caps how many
//! searches run at once (`MERELS_ENGINE_THREADS`), so human games stay responsive while every
//! engine thread is busy. Its turn comes back to the room as a command and is played as anyone's
//! is: the same checks, the same store. A turn thought for a moment the game has left (a takeback,
//! a resignation) is dropped by the room.
//!
//! Solved tables of the small boards are read from the tables folder, or solved and written there
//! in the background on first use; until they are ready the search plays.

use super::command::Command;
use super::{RoomError, Rooms};
use crate::engine::{self, Level, Table};
use crate::protocol::{Analysis, TurnJudgement};
use crate::rules::{Game, Position, Variant};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Semaphore;

/// What a computer's seat holds where a player's holds the hash of a secret: no SHA-256 in hex
/// starts so, so no secret can ever take it.
const SEAT_PREFIX: &str = "computer:";

/// Tables this small are solved in memory, on the spot, and never written.
const SOLVE_IN_MEMORY: usize = 1_000_000;

/// The seat marker of a computer playing at `level`.
pub fn seat_marker(level: Level) -> String {
    format!("{SEAT_PREFIX}{}", level.number())
}

/// The level of the computer holding a seat, if a computer holds it.
pub fn level_of(seat: &str) -> Option<Level> {
    seat.strip_prefix(SEAT_PREFIX)?
        .parse()
        .ok()
        .and_then(Level::new)
}

/// How the computer may use the machine.
#[derive(Debug, Clone)]
pub struct ComputerConfig {
    /// Searches that may run at once (at least one).
    pub threads: usize,
    /// Where solved tables are kept; `None` keeps only the small ones, in memory.
    pub tables: Option<PathBuf>,
}

impl Default for ComputerConfig {
    fn default() -> Self {
        ComputerConfig {
            threads: 1,
            tables: None,
        }
    }
}

/// The solved tables and the engine threads, shared by every room.
#[derive(Debug)]
pub(super) struct Computer {
    threads: Arc<Semaphore>,
    folder: Option<PathBuf>,
    /// By file name: the table, or `None` while it loads (or after it failed to).
    tables: Mutex<HashMap<String, Option<Arc<Table>>>>,
}

/// A position to think about.
pub(super) struct Job {
    pub variant: Arc<Variant>,
    pub earlier: Vec<Position>,
    pub position: Position,
    pub level: Level,
    pub seed: u64,
    /// The most time to think.
    pub budget: Duration,
}

impl Computer {
    pub fn new(config: &ComputerConfig) -> Computer {
        Computer {
            threads: Arc::new(Semaphore::new(config.threads.max(1))),
            folder: config.tables.clone(),
            tables: Mutex::new(HashMap::new()),
        }
    }

    /// The solved table of `variant` if it is ready; the first ask for one that is not starts
    /// loading (or solving) it in the background.
    pub fn table(&self, rooms: &Rooms, variant: &Arc<Variant>) -> Option<Arc<Table>> {
        engine::solvable(variant).ok()?;
        let name = Table::file_name(variant);
        let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(entry) = tables.get(&name) {
            return entry.clone();
        }
        if engine::solve::positions(variant) <= SOLVE_IN_MEMORY {
            // A few thousand positions: solved here and now, in about a millisecond.
            let table = engine::solve(variant, 1).ok().map(Arc::new);
            tables.insert(name, table.clone());
            return table;
        }
        tables.insert(name.clone(), None);
        let folder = self.folder.clone();
        let variant = Arc::clone(variant);
        let rooms = rooms.clone();
        // Not one of the rooms' tracked tasks: a solve cannot be cut short, and shutdown need
        // not wait for it (the file is written whole or not at all).
        tokio::task::spawn_blocking(move || match load_or_solve(folder, &variant) {
            Ok(table) => {
                tracing::info!(table = %name, "solved table ready");
                let computer = &rooms.inner.computer;
                let mut tables = computer.tables.lock().unwrap_or_else(|e| e.into_inner());
                tables.insert(name, Some(Arc::new(table)));
            }
            Err(e) => tracing::warn!(table = %name, error = %e, "no solved table; searching"),
        });
        None
    }

    /// Thinks about `job` off the room's task and sends the turn to room `id` as a
    /// [`Command::ComputerTurn`] for `version`. Setting `stop` ends the thinking early (the game
    /// moved on); so does shutdown.
    pub fn think(&self, rooms: &Rooms, id: String, version: u64, job: Job, stop: Arc<AtomicBool>) {
        let threads = Arc::clone(&self.threads);
        let rooms = rooms.clone();
        let table = self.table(&rooms, &job.variant);
        let tasks = rooms.inner.tasks.clone();
        tasks.spawn(async move {
            let shutdown = rooms.inner.shutdown.clone();
            let permit = tokio::select! {
                permit = threads.acquire_owned() => permit,
                _ = shutdown.cancelled() => return,
            };
            let started = tokio::time::Instant::now();
            let flag = Arc::clone(&stop);
            let variant = Arc::clone(&job.variant);
            let mut thinking = tokio::task::spawn_blocking(move || {
                engine::choose(engine::Ask {
                    variant: &job.variant,
                    table: table.as_deref(),
                    earlier: &job.earlier,
                    position: &job.position,
                    level: job.level,
                    seed: job.seed,
                    stop: Some(&flag),
                    nodes: None,
                })
            });
            let deadline = tokio::time::sleep(job.budget);
            tokio::pin!(deadline);
            let choice = loop {
                tokio::select! {
                    done = &mut thinking => break done,
                    _ = &mut deadline, if !stop.load(Ordering::Relaxed) => stop.store(true, Ordering::Relaxed),
                    _ = shutdown.cancelled() => {
                        stop.store(true, Ordering::Relaxed);
                        return;
                    }
                }
            };
            drop(permit);
            let Ok(Some(choice)) = choice else { return };
            let command = Command::ComputerTurn {
                version,
                turn: variant.turn_string(choice.turn),
                thought_ms: started.elapsed().as_millis() as u64,
            };
            let _ = rooms.tell(&id, Box::new(command)).await;
        });
    }

    /// Analyses a finished game on an engine thread: exact where a table covers it, else a
    /// search of [`ANALYSIS_NODES`] per position, stopped after `within`.
    pub async fn analyse(
        &self,
        rooms: &Rooms,
        id: &str,
        game: Game,
        within: Duration,
    ) -> Result<Analysis, RoomError> {
        let variant = Arc::clone(game.variant());
        let table = self.table(rooms, &variant);
        let _permit = Arc::clone(&self.threads)
            .acquire_owned()
            .await
            .map_err(|_| RoomError::Unavailable)?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let exact = table.is_some();
        let work = tokio::task::spawn_blocking(move || {
            let positions: Vec<Position> = game.positions().collect();
            let judged = engine::analyse(
                &variant,
                table.as_deref(),
                &positions,
                game.turns(),
                ANALYSIS_NODES,
                Some(&flag),
            );
            let turns = game.turns().iter().zip(&positions).zip(judged);
            turns
                .enumerate()
                .map(|(ply, ((&turn, before), judged))| TurnJudgement {
                    ply,
                    side: before.to_move(),
                    turn: variant.turn_string(turn).into(),
                    best: judged.map(|j| variant.turn_string(j.best.turn).into()),
                    value: judged.map(|j| j.best.score.to_string().into()),
                    played: judged.map(|j| j.played.to_string().into()),
                    mark: judged.and_then(|j| j.mark).map(|m| m.as_str().into()),
                })
                .collect::<Vec<_>>()
        });
        let timer = tokio::spawn(async move {
            tokio::time::sleep(within).await;
            stop.store(true, Ordering::Relaxed);
        });
        let turns = work.await.map_err(|_| RoomError::Unavailable)?;
        timer.abort();
        Ok(Analysis {
            id: id.into(),
            exact,
            turns,
        })
    }
}

/// Nodes searched per position when a game is analysed without a table (about 10 ms each).
const ANALYSIS_NODES: u64 = 20_000;

/// A table from its file in `folder`; else solved, and written there.
fn load_or_solve(folder: Option<PathBuf>, variant: &Variant) -> Result<Table, String> {
    let path = folder.map(|f| f.join(Table::file_name(variant)));
    if let Some(path) = &path {
        match std::fs::read(path) {
            Ok(bytes) => return Table::from_bytes(variant, &bytes).map_err(|e| e.to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("{}: {e}", path.display())),
        }
    }
    let Some(path) = path else {
        return Err("no tables folder to keep it in".into());
    };
    tracing::info!(table = %path.display(), "solving a table: minutes on the biggest boards");
    let table = engine::solve(variant, 1).map_err(|e| e.to_string())?;
    let write = || -> std::io::Result<()> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let partial = path.with_extension("partial");
        std::fs::write(&partial, table.to_bytes())?;
        std::fs::rename(&partial, &path)
    };
    if let Err(e) = write() {
        tracing::warn!(table = %path.display(), error = %e, "could not keep the table");
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_computer_seat_is_told_from_a_secret_hash() {
        for level in Level::all() {
            assert_eq!(level_of(&seat_marker(level)), Some(level));
        }
        let hash = crate::rooms::secrets::hash("a secret");
        assert_eq!(level_of(&hash), None);
        assert_eq!(level_of("computer:9"), None);
        assert!(!crate::rooms::secrets::matches(
            "computer:4",
            &seat_marker(Level::MAX)
        ));
    }
}
