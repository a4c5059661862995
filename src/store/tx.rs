//! The writer's open transaction ([`Tx`], either dialect) and the fence that every write of a
//! game made by its room passes: it takes effect only while the game is still at the epoch of
//! the owner that decided it and at the version it was decided against. The clause (`fence!`)
//! and its binding ([`fenced`]) are written once, here; a write that loses the fence
//! changes no row, and its caller hears `false`.

use super::ClockRow;
use sqlx::query::Query;
use sqlx::{Connection, Database, Encode, PgConnection, Postgres, Sqlite, SqliteConnection, Type};

/// The writer's open transaction, whichever the backend.
pub(super) enum Tx<'c> {
    Sqlite(sqlx::Transaction<'c, Sqlite>),
    Postgres(sqlx::Transaction<'c, Postgres>),
}

/// Runs `$body` with `$conn` bound to the transaction's connection, whichever the backend: the
/// SQL is written once, and sqlx's types are checked for each.
macro_rules! on_tx {
    ($tx:expr, $conn:ident => $body:expr) => {
        match $tx {
            Tx::Sqlite(tx) => {
                let $conn: &mut SqliteConnection = &mut **tx;
                $body
            }
            Tx::Postgres(tx) => {
                let $conn: &mut PgConnection = &mut **tx;
                $body
            }
        }
    };
}
pub(super) use on_tx;

impl Tx<'_> {
    /// Commits the transaction.
    pub(super) async fn commit(self) -> Result<(), sqlx::Error> {
        match self {
            Tx::Sqlite(tx) => tx.commit().await,
            Tx::Postgres(tx) => tx.commit().await,
        }
    }

    /// Rolls the transaction back.
    pub(super) async fn rollback(self) -> Result<(), sqlx::Error> {
        match self {
            Tx::Sqlite(tx) => tx.rollback().await,
            Tx::Postgres(tx) => tx.rollback().await,
        }
    }
}

/// The fencing clause of a write to a game's row, with its placeholders: `$1` the game, `$2`
/// the version the write was decided against ([`super::StoredGame::version`]: the row's own
/// plus its turns), `$3` the epoch of the owner that decided it. Every fenced statement binds
/// these three first ([`fenced`]) and numbers its own from `$4`.
macro_rules! fence {
    () => {
        "id = $1 AND epoch = $3 \
         AND version + (SELECT COUNT(*) FROM turns WHERE game_id = $1) = $2"
    };
}
pub(super) use fence;

/// What a write of a game was decided against: the game, its version, and the owner's epoch.
#[derive(Debug, Clone, Copy)]
pub(super) struct Fence<'a> {
    /// The game.
    pub id: &'a str,
    /// The game's version as its owner last saw it.
    pub seen: i64,
    /// The owner's epoch.
    pub epoch: i64,
}

/// One of the writer's statements, its values bound or being bound.
pub(super) type Statement<DB> = Query<'static, DB, <DB as Database>::Arguments>;

/// What the writes need of each dialect.
pub(super) trait Dialect: Connection {
    /// Taken before a fenced statement. PostgreSQL locks the game's row: a turn share-locks it
    /// in its trigger, so the lock waits for any turn of the game in flight, and the check, a
    /// statement of its own after the lock, sees what that turn committed (under READ COMMITTED
    /// a statement that merely waited would check against its older snapshot). SQLite writes
    /// one transaction at a time and needs nothing.
    fn lock_game(&mut self, id: &str) -> impl Future<Output = Result<(), sqlx::Error>> + Send;

    /// Runs `statement`: whether it changed exactly one row (the write took effect).
    fn changes_one(
        &mut self,
        statement: Statement<Self::Database>,
    ) -> impl Future<Output = Result<bool, sqlx::Error>> + Send;
}

impl Dialect for SqliteConnection {
    async fn lock_game(&mut self, _id: &str) -> Result<(), sqlx::Error> {
        Ok(())
    }

    async fn changes_one(&mut self, statement: Statement<Sqlite>) -> Result<bool, sqlx::Error> {
        Ok(statement.execute(self).await?.rows_affected() == 1)
    }
}

impl Dialect for PgConnection {
    async fn lock_game(&mut self, id: &str) -> Result<(), sqlx::Error> {
        sqlx::query("SELECT 1 FROM games WHERE id = $1 FOR NO KEY UPDATE")
            .bind(id)
            .execute(self)
            .await?;
        Ok(())
    }

    async fn changes_one(&mut self, statement: Statement<Postgres>) -> Result<bool, sqlx::Error> {
        Ok(statement.execute(self).await?.rows_affected() == 1)
    }
}

/// Starts a fenced statement of `fence`'s game (its text carries `fence!`): the game locked
/// ([`Dialect::lock_game`]), then the fence's values bound as `$1` to `$3`.
pub(super) async fn fenced<C: Dialect>(
    conn: &mut C,
    sql: &'static str,
    fence: Fence<'_>,
) -> Result<Statement<C::Database>, sqlx::Error>
where
    for<'t> &'t str: Encode<'t, C::Database> + Type<C::Database>,
    for<'t> i64: Encode<'t, C::Database> + Type<C::Database>,
{
    conn.lock_game(fence.id).await?;
    Ok(sqlx::query(sql)
        .bind(fence.id)
        .bind(fence.seen)
        .bind(fence.epoch))
}

/// Binds a clock's three columns (White's time, Black's, and when), or three NULLs.
pub(super) fn bind_clock<DB: Database>(
    statement: Statement<DB>,
    clock: Option<ClockRow>,
) -> Statement<DB>
where
    for<'t> Option<i64>: Encode<'t, DB> + Type<DB>,
{
    statement
        .bind(clock.map(|c| c.white_ms))
        .bind(clock.map(|c| c.black_ms))
        .bind(clock.map(|c| c.at))
}
