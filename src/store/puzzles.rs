//! Puzzles as the store keeps them (`puzzles`, `puzzle_ratings`, `puzzle_attempts`): each board's
//! set, each browser's Glicko-2 puzzle rating, and one rated attempt per browser and puzzle.
//! Their writes are not a game's, so they go straight to the pool rather than through the
//! writer: an attempt and both ratings it moves are one transaction.

use super::{Backend, Store, StoreError};
use crate::rating::Rating;
use sqlx::Row;

/// A puzzle as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct PuzzleRow {
    /// Its number.
    pub id: i64,
    /// The variant's slug.
    pub variant: String,
    /// The variant's table options, as the game record writes them.
    pub options: String,
    /// The start, as a position string.
    pub position: String,
    /// `win` or `draw`.
    pub goal: String,
    /// The line in notation, turns separated by spaces.
    pub line: String,
    /// The puzzle's rating.
    pub rating: Rating,
    /// Rated attempts.
    pub attempts: i64,
    /// Rated attempts that solved it.
    pub solved: i64,
}

/// What an attempt does to the ratings, decided before it is stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Attempt<'a> {
    /// The browser (the hash of its cookie).
    pub browser: &'a str,
    /// The puzzle.
    pub puzzle: i64,
    /// Whether it was solved.
    pub solved: bool,
    /// When (ms).
    pub at: i64,
    /// The browser's rating after it.
    pub browser_rating: Rating,
    /// The puzzle's rating after it.
    pub puzzle_rating: Rating,
}

/// A puzzle's columns, as every read of one selects them.
macro_rules! columns {
    () => {
        "id, variant, options, position, goal, line, rating, deviation, volatility, attempts, solved"
    };
}

/// The three rating columns of a row, of either backend.
macro_rules! rating_of {
    ($r:expr) => {
        Rating {
            rating: $r.try_get("rating")?,
            deviation: $r.try_get("deviation")?,
            volatility: $r.try_get("volatility")?,
        }
    };
}

/// A puzzle's row, of either backend.
macro_rules! puzzle_row {
    ($r:expr) => {
        PuzzleRow {
            id: $r.try_get("id")?,
            variant: $r.try_get("variant")?,
            options: $r.try_get("options")?,
            position: $r.try_get("position")?,
            goal: $r.try_get("goal")?,
            line: $r.try_get("line")?,
            rating: rating_of!($r),
            attempts: $r.try_get("attempts")?,
            solved: $r.try_get("solved")?,
        }
    };
}

impl Store {
    /// How many puzzles the board of `variant` with `options` has.
    pub async fn puzzle_count(&self, variant: &str, options: &str) -> Result<i64, StoreError> {
        Ok(on_pool!(&self.backend, pool => {
            sqlx::query_scalar("SELECT COUNT(*) FROM puzzles WHERE variant = $1 AND options = $2")
                .bind(variant)
                .bind(options)
                .fetch_one(pool)
                .await?
        }))
    }

    /// Adds puzzles (their `id`, attempts and solves are ignored) in one transaction; a puzzle
    /// of a position the board has already is left as it is. Returns how many were added.
    pub async fn add_puzzles(&self, puzzles: &[PuzzleRow]) -> Result<u64, StoreError> {
        let mut added = 0;
        on_pool!(&self.backend, pool => {
            let mut tx = pool.begin().await?;
            for p in puzzles {
                added += sqlx::query(
                    "INSERT INTO puzzles (variant, options, position, goal, line, rating, \
                     deviation, volatility) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
                     ON CONFLICT DO NOTHING",
                )
                .bind(&p.variant)
                .bind(&p.options)
                .bind(&p.position)
                .bind(&p.goal)
                .bind(&p.line)
                .bind(p.rating.rating)
                .bind(p.rating.deviation)
                .bind(p.rating.volatility)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            }
            tx.commit().await?;
        });
        Ok(added)
    }

    /// Puzzle number `id`.
    pub async fn puzzle(&self, id: i64) -> Result<Option<PuzzleRow>, StoreError> {
        const SQL: &str = concat!("SELECT ", columns!(), " FROM puzzles WHERE id = $1");
        Ok(on_pool!(&self.backend, pool => {
            let row = sqlx::query(SQL).bind(id).fetch_optional(pool).await?;
            match row {
                Some(r) => Some(puzzle_row!(r)),
                None => None,
            }
        }))
    }

    /// The puzzle of the board `variant` with `options` that `browser` has not attempted and
    /// whose rating is nearest `near` (the lowest number among equals).
    pub async fn next_puzzle(
        &self,
        variant: &str,
        options: &str,
        browser: &str,
        near: f64,
    ) -> Result<Option<PuzzleRow>, StoreError> {
        const SQL: &str = concat!(
            "SELECT ",
            columns!(),
            " FROM puzzles p WHERE variant = $1 AND options = $2 AND NOT EXISTS \
             (SELECT 1 FROM puzzle_attempts a WHERE a.browser = $3 AND a.puzzle_id = p.id) \
             ORDER BY ABS(rating - $4), id LIMIT 1"
        );
        Ok(on_pool!(&self.backend, pool => {
            let row = sqlx::query(SQL)
                .bind(variant)
                .bind(options)
                .bind(browser)
                .bind(near)
                .fetch_optional(pool)
                .await?;
            match row {
                Some(r) => Some(puzzle_row!(r)),
                None => None,
            }
        }))
    }

    /// The puzzle of the board `variant` with `options` that is `n`th (from 0) by number: the
    /// order its set was made in, the same on every server.
    pub async fn nth_puzzle(
        &self,
        variant: &str,
        options: &str,
        n: i64,
    ) -> Result<Option<PuzzleRow>, StoreError> {
        const SQL: &str = concat!(
            "SELECT ",
            columns!(),
            " FROM puzzles WHERE variant = $1 AND options = $2 ORDER BY id LIMIT 1 OFFSET $3"
        );
        Ok(on_pool!(&self.backend, pool => {
            let row = sqlx::query(SQL)
                .bind(variant)
                .bind(options)
                .bind(n)
                .fetch_optional(pool)
                .await?;
            match row {
                Some(r) => Some(puzzle_row!(r)),
                None => None,
            }
        }))
    }

    /// The puzzle rating of `browser`, if it has attempted a puzzle.
    pub async fn puzzle_rating(&self, browser: &str) -> Result<Option<Rating>, StoreError> {
        const SQL: &str =
            "SELECT rating, deviation, volatility FROM puzzle_ratings WHERE browser = $1";
        Ok(on_pool!(&self.backend, pool => {
            let row = sqlx::query(SQL).bind(browser).fetch_optional(pool).await?;
            match row {
                Some(r) => Some(rating_of!(r)),
                None => None,
            }
        }))
    }

    /// Whether `browser` has attempted puzzle `id`.
    pub async fn attempted(&self, browser: &str, id: i64) -> Result<bool, StoreError> {
        const SQL: &str =
            "SELECT COUNT(*) FROM puzzle_attempts WHERE browser = $1 AND puzzle_id = $2";
        let n: i64 = on_pool!(&self.backend, pool => {
            sqlx::query_scalar(SQL).bind(browser).bind(id).fetch_one(pool).await?
        });
        Ok(n > 0)
    }

    /// Stores an attempt with the ratings it moves, all or nothing: false (and nothing written)
    /// when the browser has attempted the puzzle already.
    pub async fn record_attempt(&self, attempt: Attempt<'_>) -> Result<bool, StoreError> {
        let Attempt {
            browser,
            puzzle,
            solved,
            at,
            browser_rating: b,
            puzzle_rating: p,
        } = attempt;
        Ok(on_pool!(&self.backend, pool => {
            let mut tx = pool.begin().await?;
            let first = sqlx::query(
                "INSERT INTO puzzle_attempts (browser, puzzle_id, solved, at) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
            )
            .bind(browser)
            .bind(puzzle)
            .bind(solved)
            .bind(at)
            .execute(&mut *tx)
            .await?
            .rows_affected()
                == 1;
            if first {
                sqlx::query(
                    "INSERT INTO puzzle_ratings (browser, rating, deviation, volatility, \
                     updated_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (browser) DO UPDATE \
                     SET rating = $2, deviation = $3, volatility = $4, updated_at = $5",
                )
                .bind(browser)
                .bind(b.rating)
                .bind(b.deviation)
                .bind(b.volatility)
                .bind(at)
                .execute(&mut *tx)
                .await?;
                sqlx::query(
                    "UPDATE puzzles SET rating = $2, deviation = $3, volatility = $4, \
                     attempts = attempts + 1, solved = solved + $5 WHERE id = $1",
                )
                .bind(puzzle)
                .bind(p.rating)
                .bind(p.deviation)
                .bind(p.volatility)
                .bind(i64::from(solved))
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
            }
            first
        }))
    }
}
