//! The computer as a player: a seat held by a level instead of a secret, and the thinking that
//! plays it; and the analyses of games.
//!
//! The engine thinks on threads of its own at the lowest CPU priority ([`crate::threads`]), never
//! on a room's task, as many at once as `MERELS_ENGINE_THREADS` says (a semaphore holds the rest
//! back, and their time starts when a thread is theirs), so human games stay responsive while
//! every engine thread is busy. Its turn comes back to the room as a command and is played as
//! anyone's is: the same checks, the same store. A turn thought for a moment the game has left (a
//! takeback, a resignation) is dropped by the room.
//!
//! Analyses run on threads of their own (`MERELS_ANALYSIS_THREADS`), so the computer's turns
//! never wait behind one; an address may have a few under way at once, the threads a few more
//! queued, and a finished game's analysis, once whole, is kept and served again.
//!
//! The room's side of it (when to think, answering its opponent's offers) is `computer_turns`.
//! Here are the table files: solved tables of the small boards are read from the tables folder,
//! or, for a game against the computer, solved and written there in the background, one at a
//! time; until they are ready the search plays. An analysis builds no table. The command line reads and
//! writes the same files through [`read_table`] and [`write_table`].

use super::command::Command;
use super::{RoomError, Rooms};
use crate::engine::{self, Level, Table};
use crate::metrics::Metrics;
use crate::protocol::{Analysis, TurnJudgement, TurnView};
use crate::rules::{Game, Position, Variant};
use crate::threads::{OneAtATime, Threads};
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio::time::Instant;

/// How the computer may use the machine.
#[derive(Debug, Clone)]
pub struct ComputerConfig {
    /// Searches for the computer's own turns that may run at once (at least one).
    pub threads: usize,
    /// Analyses that may run at once (at least one), on threads of their own: never the
    /// computer's.
    pub analysis_threads: usize,
    /// Analyses one address may have under way at once (at least one).
    pub analyses_per_ip: u32,
    /// Where solved tables are kept; `None` keeps only the small ones, in memory.
    pub tables: Option<PathBuf>,
}

/// Finished games' analyses kept to be served again, at most.
const KEPT: usize = 256;

/// Analyses under way or waiting for a thread, for each analysis thread, at most: more are
/// refused at once rather than left to time out.
const UNDER_WAY_PER_THREAD: usize = 2;

/// The solved tables and the engine threads, shared by every room.
#[derive(Debug)]
pub(super) struct Computer {
    /// A permit a thread: who may think now.
    permits: Arc<Semaphore>,
    threads: Threads,
    /// The analyses' own threads, and who is using them.
    analysis_threads: Threads,
    analyses: Arc<Mutex<Analyses>>,
    analyses_per_ip: u32,
    analyses_at_once: usize,
    /// Tables built (or read) one at a time.
    builds: OneAtATime,
    folder: Option<PathBuf>,
    /// By file name: the table, or `None` while it loads (or after it failed to).
    tables: Mutex<HashMap<String, Option<Arc<Table>>>>,
    /// By file name: the tables being solved for play (none was on a disk), with when each
    /// was asked for and about how long solving it takes ([`solve_estimate`]).
    preparing: Mutex<HashMap<String, (Instant, Duration)>>,
}

/// How long solving Six Men's Morris's table took on a 2-core machine (measured); another
/// board's is estimated in proportion to its positions.
const SIX_MENS_SOLVE: Duration = Duration::from_secs(93);

/// About how long solving `variant`'s table takes: [`SIX_MENS_SOLVE`] scaled by positions.
fn solve_estimate(rooms: &Rooms, variant: &Variant) -> Duration {
    let reference = rooms
        .catalog()
        .configure("six-mens-morris", &Default::default())
        .map(|six| engine::solve::positions(&six))
        .unwrap_or(1)
        .max(1);
    SIX_MENS_SOLVE.mul_f64(engine::solve::positions(variant) as f64 / reference as f64)
}

/// What a table is wanted for: a game against the computer may have one built; an analysis
/// takes only one that is ready, or on a disk already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Need {
    Play,
    Analysis,
}

/// The analyses under way, by address, and the finished games' analyses kept (the newest last).
#[derive(Debug, Default)]
struct Analyses {
    by_ip: HashMap<IpAddr, u32>,
    under_way: usize,
    kept: VecDeque<(String, Arc<Analysis>)>,
}

/// An analysis under way, counted against its address until dropped (when its work is done on
/// its thread, not when the request goes: a request dropped early stops its work).
#[derive(Debug)]
pub(super) struct AnalysisSlot {
    analyses: Arc<Mutex<Analyses>>,
    ip: IpAddr,
}

impl Drop for AnalysisSlot {
    fn drop(&mut self) {
        let mut analyses = self.analyses.lock().unwrap_or_else(|e| e.into_inner());
        analyses.under_way -= 1;
        if let Some(n) = analyses.by_ip.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                analyses.by_ip.remove(&self.ip);
            }
        }
    }
}

/// Sets a stop flag when dropped: work for a request that went away ends.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
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
        let analysis_threads = config.analysis_threads.max(1);
        Computer {
            permits: Arc::new(Semaphore::new(config.threads.max(1))),
            threads: Threads::start("merels-engine", config.threads),
            analysis_threads: Threads::start("merels-analysis", analysis_threads),
            analyses: Arc::default(),
            analyses_per_ip: config.analyses_per_ip.max(1),
            analyses_at_once: analysis_threads * UNDER_WAY_PER_THREAD,
            builds: OneAtATime::new("merels-solve"),
            folder: config.tables.clone(),
            tables: Mutex::new(HashMap::new()),
            preparing: Mutex::new(HashMap::new()),
        }
    }

    /// The solved table of `variant` if it is ready. The first ask for one that is not starts
    /// loading it in the background, behind any other: for play, solving it if it is on no
    /// disk; for an analysis, only when its file is there.
    pub fn table(&self, rooms: &Rooms, variant: &Arc<Variant>, need: Need) -> Option<Arc<Table>> {
        engine::solvable(variant).ok()?;
        let name = Table::file_name(variant);
        let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(entry) = tables.get(&name) {
            return entry.clone();
        }
        if engine::solve::on_the_spot(variant) {
            // A few thousand positions: solved here and now, in about a millisecond.
            let table = engine::solve(variant, 1).ok().map(Arc::new);
            tables.insert(name, table.clone());
            return table;
        }
        let build = need == Need::Play;
        let on_disk = || {
            self.folder
                .as_ref()
                .is_some_and(|f| f.join(&name).is_file())
        };
        if !build && !on_disk() {
            return None;
        }
        tables.insert(name.clone(), None);
        if build && !on_disk() {
            let estimate = solve_estimate(rooms, variant);
            let mut preparing = self.preparing.lock().unwrap_or_else(|e| e.into_inner());
            preparing.insert(name.clone(), (Instant::now(), estimate));
        }
        let metrics = Arc::clone(rooms.metrics());
        metrics.table_builds_waiting.inc();
        let folder = self.folder.clone();
        let variant = Arc::clone(variant);
        let rooms = rooms.clone();
        // Not one of the rooms' tracked tasks: a solve cannot be cut short, and shutdown need
        // not wait for it (the file is written whole or not at all). One not begun by then is
        // not begun.
        self.builds.push(move || {
            metrics.table_builds_waiting.dec();
            let computer = &rooms.inner.computer;
            let made = if rooms.inner.shutdown.is_cancelled() {
                Err("the server is stopping".into())
            } else {
                load_or_solve(folder, &variant, build, &metrics)
            };
            let mut tables = computer.tables.lock().unwrap_or_else(|e| e.into_inner());
            (computer.preparing.lock().unwrap_or_else(|e| e.into_inner())).remove(&name);
            match made {
                Ok(table) => {
                    tracing::info!(table = %name, "solved table ready");
                    tables.insert(name, Some(Arc::new(table)));
                }
                Err(e) => {
                    tracing::warn!(table = %name, error = %e, "no solved table; searching");
                    // Only play gives up on a table for good: it would have built it.
                    if !build {
                        tables.remove(&name);
                    }
                }
            }
        });
        None
    }

    /// While `variant`'s table is being solved for play: about how many seconds are left (at
    /// least 1; the estimate may run out before the solve does).
    pub fn preparing(&self, variant: &Variant) -> Option<u64> {
        let preparing = self.preparing.lock().unwrap_or_else(|e| e.into_inner());
        let (since, estimate) = preparing.get(&Table::file_name(variant))?;
        Some(estimate.saturating_sub(since.elapsed()).as_secs().max(1))
    }

    /// Thinks about `job` off the room's task and sends the turn to room `id` as a
    /// [`Command::ComputerTurn`] for `version`. Setting `stop` ends the thinking early (the game
    /// moved on); so does shutdown.
    pub fn think(&self, rooms: &Rooms, id: String, version: u64, job: Job, stop: Arc<AtomicBool>) {
        let permits = Arc::clone(&self.permits);
        let rooms = rooms.clone();
        let table = self.table(&rooms, &job.variant, Need::Play);
        let tasks = rooms.inner.tasks.clone();
        tasks.spawn(async move {
            let shutdown = rooms.inner.shutdown.clone();
            let permit = tokio::select! {
                permit = permits.acquire_owned() => permit,
                _ = shutdown.cancelled() => return,
            };
            let started = tokio::time::Instant::now();
            let flag = Arc::clone(&stop);
            let variant = Arc::clone(&job.variant);
            let mut thinking = rooms.inner.computer.threads.run(move || {
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
            // The room held the computer's clock while it waited for this thread.
            let started_for = Box::new(Command::ComputerStarted { version });
            let _ = rooms.tell(&id, started_for).await;
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

    /// The analysis kept of finished game `id`, if there is one.
    pub fn kept(&self, id: &str) -> Option<Analysis> {
        let analyses = self.analyses.lock().unwrap_or_else(|e| e.into_inner());
        let (_, kept) = analyses.kept.iter().find(|(k, _)| k == id)?;
        Some(Analysis::clone(kept))
    }

    /// A place for one more analysis from `from`, or why there is none: the address has as many
    /// under way as it may, or the analysis threads have all the work they can finish in time.
    pub fn analysis_slot(&self, rooms: &Rooms, from: IpAddr) -> Result<AnalysisSlot, RoomError> {
        let mut analyses = self.analyses.lock().unwrap_or_else(|e| e.into_inner());
        let mine = analyses.by_ip.get(&from).copied().unwrap_or(0);
        if mine >= self.analyses_per_ip {
            rooms.metrics().limit("analyses_per_ip");
            return Err(RoomError::TooManyAnalyses(self.analyses_per_ip));
        }
        if analyses.under_way >= self.analyses_at_once {
            rooms.metrics().limit("analyses_at_once");
            return Err(RoomError::AnalysesBusy);
        }
        analyses.under_way += 1;
        *analyses.by_ip.entry(from).or_insert(0) += 1;
        Ok(AnalysisSlot {
            analyses: Arc::clone(&self.analyses),
            ip: from,
        })
    }

    /// Analyses a game on an analysis thread, holding `slot` until done: exact where a table
    /// is ready, else a search of [`ANALYSIS_NODES`] per position, stopped `within` after the
    /// ask (waiting for a thread included). A finished game's (`id`) analysis, once whole, is
    /// kept to be served again.
    pub async fn analyse(
        &self,
        rooms: &Rooms,
        slot: AnalysisSlot,
        id: Option<&str>,
        game: Game,
        within: Duration,
    ) -> Result<Analysis, RoomError> {
        let variant = Arc::clone(game.variant());
        let table = self.table(rooms, &variant, Need::Analysis);
        let stop = Arc::new(AtomicBool::new(false));
        let _gone = StopOnDrop(Arc::clone(&stop));
        let flag = Arc::clone(&stop);
        let exact = table.is_some();
        let table_missing = !exact && engine::solvable(&variant).is_ok();
        let work = self.analysis_threads.run(move || {
            let _slot = slot;
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
                    best: judged.map(|j| TurnView::of(&variant, j.best.turn)),
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
        let analysis = Analysis {
            id: id.map(Into::into),
            exact,
            table_missing,
            turns,
        };
        rooms.metrics().analysed("computed");
        if let Some(id) = id
            && analysis.turns.iter().all(|t| t.value.is_some())
        {
            let mut analyses = self.analyses.lock().unwrap_or_else(|e| e.into_inner());
            if analyses.kept.len() >= KEPT {
                analyses.kept.pop_front();
            }
            analyses
                .kept
                .push_back((id.to_string(), Arc::new(analysis.clone())));
        }
        Ok(analysis)
    }
}

/// Nodes searched per position when a game is analysed without a table (about 10 ms each).
const ANALYSIS_NODES: u64 = 20_000;

/// A table from its file in `folder`; else, if `build`, solved and written there.
fn load_or_solve(
    folder: Option<PathBuf>,
    variant: &Variant,
    build: bool,
    metrics: &Metrics,
) -> Result<Table, String> {
    let Some(folder) = folder else {
        return Err("no tables folder to keep it in".into());
    };
    if let Some(table) = read_table(&folder, variant)? {
        return Ok(table);
    }
    if !build {
        return Err("no table file".into());
    }
    tracing::info!(variant = %Table::file_name(variant), "solving a table: minutes on the biggest boards");
    metrics.table_builds.inc();
    metrics.table_builds_running.inc();
    let table = engine::solve(variant, 1).map_err(|e| e.to_string());
    metrics.table_builds_running.dec();
    let table = table?;
    if let Err(e) = write_table(&folder, variant, &table) {
        tracing::warn!(variant = %Table::file_name(variant), error = %e, "could not keep the table");
    }
    Ok(table)
}

/// The table of `variant` from its file in `folder`; `None` when there is no file.
pub fn read_table(folder: &Path, variant: &Variant) -> Result<Option<Table>, String> {
    let path = folder.join(Table::file_name(variant));
    match std::fs::read(&path) {
        Ok(bytes) => Table::from_bytes(variant, &bytes)
            .map(Some)
            .map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

impl Rooms {
    /// The solved table of `variant` if it is ready, as a game against the computer would have
    /// it: the first ask for one that is not starts building it in the background (for puzzles,
    /// which are generated from and judged by it).
    pub fn solved_table(&self, variant: &Arc<Variant>) -> Option<Arc<Table>> {
        self.inner.computer.table(self, variant, Need::Play)
    }
}

/// Writes the table of `variant` into `folder` (made if missing), whole or not at all: a reader
/// never sees half a table. Returns the file's path.
pub fn write_table(folder: &Path, variant: &Variant, table: &Table) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(folder)?;
    let path = folder.join(Table::file_name(variant));
    let partial = path.with_extension("partial");
    std::fs::write(&partial, table.to_bytes())?;
    std::fs::rename(&partial, &path)?;
    Ok(path)
}
