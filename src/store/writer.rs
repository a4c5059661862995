//! The group-commit writer: one task that takes every write waiting (from all games), applies
//! them in one transaction, commits, and only then acknowledges each. Under load a batch holds
//! many writes and the commit's cost is shared; when idle a batch holds one and adds little.
//!
//! A write that loses (a taken seat, a taken ply) is not an error: its statement changes no row,
//! the others in the batch still commit, and its sender hears `false`.

use super::ops;
use super::tx::{Tx, on_tx};
use super::{Backend, StoreError, WriteOp, on_pool};
use crate::metrics::Metrics;
use sqlx::pool::PoolConnection;
use sqlx::{Connection, PgConnection, Postgres, Sqlite, SqliteConnection};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;
use tokio::sync::{mpsc, oneshot};

/// Most writes in one transaction.
const MAX_BATCH: usize = 512;

/// A write and where to report its fate.
pub(super) struct Request {
    pub op: WriteOp,
    pub done: oneshot::Sender<Result<bool, StoreError>>,
}

/// Counters for `/metrics`.
#[derive(Debug, Default)]
pub struct WriterStats {
    /// Transactions committed.
    pub batches: AtomicU64,
    /// Writes committed.
    pub writes: AtomicU64,
    /// Transactions that failed.
    pub failures: AtomicU64,
    /// Total commit time, microseconds (begin to commit).
    pub commit_micros: AtomicU64,
}

/// Starts the writer; it ends when every sender is dropped, after finishing what it was given.
pub(super) fn spawn(
    backend: Backend,
    stats: Arc<WriterStats>,
    metrics: Arc<Metrics>,
) -> mpsc::Sender<Request> {
    let (tx, mut rx) = mpsc::channel::<Request>(4 * MAX_BATCH);
    tokio::spawn(async move {
        let mut batch = Vec::with_capacity(MAX_BATCH);
        // One connection, kept from batch to batch: no trip through the pool for each, and
        // SQLite keeps the pages it has just written in that connection's cache.
        let mut held: Option<Held> = None;
        while rx.recv_many(&mut batch, MAX_BATCH).await > 0 {
            let started = Instant::now();
            let ops: Vec<&WriteOp> = batch.iter().map(|r| &r.op).collect();
            let outcome = match &mut held {
                Some(conn) => write_batch(conn, &ops).await,
                None => match Held::acquire(&backend).await {
                    Ok(conn) => write_batch(held.insert(conn), &ops).await,
                    Err(e) => Err(e),
                },
            };
            if outcome.is_err() {
                // The connection may be what failed: the next batch starts on a fresh one.
                held = None;
            }
            let elapsed = started.elapsed();
            stats
                .commit_micros
                .fetch_add(elapsed.as_micros() as u64, Ordering::Relaxed);
            metrics.commit_latency.observe(elapsed.as_secs_f64());
            metrics.batch_size.observe(batch.len() as f64);
            match outcome {
                Ok(applied) => {
                    stats.batches.fetch_add(1, Ordering::Relaxed);
                    stats
                        .writes
                        .fetch_add(batch.len() as u64, Ordering::Relaxed);
                    for (req, ok) in batch.drain(..).zip(applied) {
                        let _ = req.done.send(Ok(ok));
                    }
                }
                Err(e) => {
                    stats.failures.fetch_add(1, Ordering::Relaxed);
                    tracing::error!(error = %e, writes = batch.len(), "a write batch failed");
                    let e = StoreError::from(e);
                    for req in batch.drain(..) {
                        let _ = req.done.send(Err(e.clone()));
                    }
                }
            }
        }
        // Every store is gone: close the pool, so that an SQLite writer folds its log back.
        drop(held);
        on_pool!(&backend, pool => pool.close().await);
        tracing::debug!("store writer stopped");
    });
    tx
}

/// The writer's own connection.
enum Held {
    Sqlite(PoolConnection<Sqlite>),
    Postgres(PoolConnection<Postgres>),
}

impl Held {
    async fn acquire(backend: &Backend) -> Result<Held, sqlx::Error> {
        Ok(match backend {
            Backend::Sqlite(pool) => Held::Sqlite(pool.acquire().await?),
            Backend::Postgres(pool) => Held::Postgres(pool.acquire().await?),
        })
    }

    /// Begins a transaction on the held connection.
    async fn begin(&mut self) -> Result<Tx<'_>, sqlx::Error> {
        Ok(match self {
            Held::Sqlite(conn) => Tx::Sqlite(conn.begin().await?),
            Held::Postgres(conn) => Tx::Postgres(conn.begin().await?),
        })
    }
}

/// Applies `ops` in one transaction; for each, whether it took effect.
///
/// The plain turns (most of the traffic) go in together and touch nothing else: a handful of
/// round trips to the database per batch, however many turns it holds.
/// Everything else is applied one statement at a time. Only when another process has stored a
/// turn for one of the same plies (the INSERT then stores fewer rows than it was given) is the
/// batch rolled back and applied again with every turn on its own, to learn which lost.
async fn write_batch(conn: &mut Held, ops: &[&WriteOp]) -> Result<Vec<bool>, sqlx::Error> {
    match try_batch(conn, ops, true).await? {
        Some(applied) => Ok(applied),
        None => Ok(try_batch(conn, ops, false)
            .await?
            .expect("turns applied one by one are each decided")),
    }
}

/// One attempt of [`write_batch`]: `None` when the plain turns went in `together` and some of
/// them were not stored (the transaction is then rolled back).
async fn try_batch(
    conn: &mut Held,
    ops: &[&WriteOp],
    together: bool,
) -> Result<Option<Vec<bool>>, sqlx::Error> {
    let mut tx = conn.begin().await?;
    let mut applied = vec![false; ops.len()];
    let mut plain = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        if together && matches!(op, WriteOp::AppendTurn { end: None, .. }) {
            plain.push(i);
        } else {
            applied[i] = ops::apply(&mut tx, op).await?;
        }
    }
    if !plain.is_empty() {
        let rows: Vec<PlainTurn> = plain
            .iter()
            .map(|&i| match ops[i] {
                WriteOp::AppendTurn {
                    id,
                    ply,
                    notation,
                    at,
                    clock,
                    seen,
                    epoch,
                    ..
                } => PlainTurn(
                    id.as_str(),
                    *ply as i32,
                    notation.as_str(),
                    *at,
                    clock.map(|c| c[0]),
                    clock.map(|c| c[1]),
                    seen - ply,
                    *epoch,
                ),
                _ => unreachable!("only plain turns are gathered"),
            })
            .collect();
        let stored = on_tx!(&mut tx, conn => conn.insert_turns(&rows).await?);
        if stored != plain.len() as u64 {
            tx.rollback().await?;
            return Ok(None);
        }
        // The game's row is not touched: a turn counts in the game's version by being there.
        for &i in &plain {
            applied[i] = true;
        }
    }
    tx.commit().await?;
    Ok(Some(applied))
}

/// A plain turn's columns, in the order of the `turns` table: game, ply, notation, time,
/// White's and Black's clocks, the version of the game's row it was decided against, and the
/// epoch of the owner that decided it.
struct PlainTurn<'a>(
    &'a str,
    i32,
    &'a str,
    i64,
    Option<i64>,
    Option<i64>,
    i64,
    i64,
);

/// Inserts plain turns, skipping any whose ply is taken; returns how many were stored. No
/// RETURNING: each returned row would be one more message from SQLite's thread.
trait InsertTurns {
    fn insert_turns(
        &mut self,
        rows: &[PlainTurn<'_>],
    ) -> impl Future<Output = Result<u64, sqlx::Error>> + Send;
}

impl InsertTurns for SqliteConnection {
    async fn insert_turns(&mut self, rows: &[PlainTurn<'_>]) -> Result<u64, sqlx::Error> {
        let mut stored = 0;
        for chunk in chunks(rows) {
            let mut insert = sqlx::query(values_sql(chunk.len()));
            for PlainTurn(id, ply, notation, at, white_ms, black_ms, base, epoch) in chunk {
                // Each text as an `Arc<str>`, which sqlx hands to SQLite as it is: a `&str`
                // would be copied into a `String` and that put in an `Arc` of its own.
                insert = insert
                    .bind(Arc::<str>::from(*id))
                    .bind(*ply)
                    .bind(Arc::<str>::from(*notation))
                    .bind(*at)
                    .bind(*white_ms)
                    .bind(*black_ms)
                    .bind(*base)
                    .bind(*epoch);
            }
            stored += insert.execute(&mut *self).await?.rows_affected();
        }
        Ok(stored)
    }
}

/// The text of SQLite's insert of `rows` plain turns, `rows` being one of the lengths that
/// [`chunks`] cuts: a handful of texts, each written once and prepared once (SQLite's multi-row
/// VALUES is its fastest insert; a statement of any length would be prepared anew for every
/// batch). OR IGNORE, with the game reference checked at commit, leaves nothing in the insert
/// that could fail halfway, so SQLite keeps no statement journal (a copy of every page the
/// statement touches) for it. The placeholders are anonymous (`?`, bound in order): sqlx asks
/// SQLite the name of every placeholder it binds, and SQLite finds a numbered one (`$7`) by
/// walking the list of all of them, which for a statement of 384 made binding quadratic (a tenth
/// of SQLite's thread).
fn values_sql(rows: usize) -> &'static str {
    static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
    let texts = TEXTS.get_or_init(|| {
        (0..=MOST_ROWS.ilog2())
            .map(|k| {
                let values = vec!["(?, ?, ?, ?, ?, ?, ?, ?)"; 1 << k];
                format!(
                    "INSERT OR IGNORE INTO turns (game_id, ply, notation, played_at, white_ms, \
                     black_ms, base_version, epoch) VALUES {}",
                    values.join(", ")
                )
            })
            .collect()
    });
    debug_assert!(rows.is_power_of_two() && rows <= MOST_ROWS);
    &texts[rows.ilog2() as usize]
}

impl InsertTurns for PgConnection {
    async fn insert_turns(&mut self, rows: &[PlainTurn<'_>]) -> Result<u64, sqlx::Error> {
        // One array per column: one statement (and one plan) whatever the number of rows.
        let ids: Vec<&str> = rows.iter().map(|r| r.0).collect();
        let plies: Vec<i32> = rows.iter().map(|r| r.1).collect();
        let notations: Vec<&str> = rows.iter().map(|r| r.2).collect();
        let times: Vec<i64> = rows.iter().map(|r| r.3).collect();
        let whites: Vec<Option<i64>> = rows.iter().map(|r| r.4).collect();
        let blacks: Vec<Option<i64>> = rows.iter().map(|r| r.5).collect();
        let bases: Vec<i64> = rows.iter().map(|r| r.6).collect();
        let epochs: Vec<i64> = rows.iter().map(|r| r.7).collect();
        Ok(sqlx::query(
            "INSERT INTO turns (game_id, ply, notation, played_at, white_ms, black_ms, \
             base_version, epoch) SELECT * FROM UNNEST($1::text[], $2::int[], $3::text[], \
             $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[]) \
             ON CONFLICT DO NOTHING",
        )
        .bind(ids)
        .bind(plies)
        .bind(notations)
        .bind(times)
        .bind(whites)
        .bind(blacks)
        .bind(bases)
        .bind(epochs)
        .execute(self)
        .await?
        .rows_affected())
    }
}

/// Most rows in one INSERT.
const MOST_ROWS: usize = 64;

/// `items` cut into runs whose lengths are powers of two, at most [`MOST_ROWS`], longest first.
fn chunks<T>(mut items: &[T]) -> impl Iterator<Item = &[T]> {
    std::iter::from_fn(move || {
        if items.is_empty() {
            return None;
        }
        let len = MOST_ROWS.min(1 << items.len().ilog2());
        let (chunk, rest) = items.split_at(len);
        items = rest;
        Some(chunk)
    })
}

#[cfg(test)]
mod tests {
    use super::{chunks, values_sql};

    #[test]
    fn each_insert_text_has_a_placeholder_per_column_and_row() {
        for rows in [1, 2, 8, 64] {
            let sql = values_sql(rows);
            assert_eq!(sql.matches('?').count(), 8 * rows, "{sql}");
            assert_eq!(
                sql.matches("(?, ?, ?, ?, ?, ?, ?, ?)").count(),
                rows,
                "{sql}"
            );
            assert!(
                !sql.contains('$'),
                "numbered placeholders are slow to bind: {sql}"
            );
        }
    }

    #[test]
    fn batches_are_cut_into_few_statement_lengths() {
        let lengths = |n: usize| {
            let items: Vec<usize> = (0..n).collect();
            let cut: Vec<&[usize]> = chunks(&items).collect();
            assert_eq!(cut.concat(), items, "every item once, in order");
            cut.iter().map(|c| c.len()).collect::<Vec<_>>()
        };
        assert!(lengths(0).is_empty());
        assert_eq!(lengths(1), [1]);
        assert_eq!(lengths(7), [4, 2, 1]);
        assert_eq!(lengths(64), [64]);
        assert_eq!(lengths(150), [64, 64, 16, 4, 2]);
    }
}
