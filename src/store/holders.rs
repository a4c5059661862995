//! Which browser holds each seat (`seat_holders`): recorded wherever a seat is granted, read by
//! "My games". The browser id only lists; the seat's secret stays what acts. A hand-off that
//! moves a seat replaces its holders in the same write as its secret ([`super::WriteOp::MoveSeat`]).

use super::{Backend, Store, StoreError};
use sqlx::Row;

/// A seat a browser holds, with what the list shows of its game without replaying it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldSeat {
    /// The game.
    pub game_id: String,
    /// `white` or `black`.
    pub seat: String,
    /// The game's status: `waiting`, `playing` or `finished`.
    pub status: String,
    /// When the game last changed other than by a turn (ms).
    pub updated_at: i64,
}

impl Store {
    /// Records that `browser` holds `seat` (`white` or `black`) of game `game_id`, from `now`.
    /// Holding it already changes nothing; an unknown game is refused by its foreign key.
    pub async fn hold_seat(
        &self,
        browser: &str,
        game_id: &str,
        seat: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        on_pool!(&self.backend, pool => {
            sqlx::query(
                "INSERT INTO seat_holders (browser, game_id, seat, since) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT DO NOTHING",
            )
            .bind(browser)
            .bind(game_id)
            .bind(seat)
            .bind(now)
            .execute(pool)
            .await?;
        });
        Ok(())
    }

    /// The seats `browser` holds: in games not finished (the most recently changed first, at
    /// most `open`), then in finished ones (the most recently finished first, at most
    /// `finished`).
    pub async fn held_seats(
        &self,
        browser: &str,
        open: i64,
        finished: i64,
    ) -> Result<Vec<HeldSeat>, StoreError> {
        const SQL: &str = "SELECT h.game_id, h.seat, g.status, g.updated_at FROM seat_holders h \
             JOIN games g ON g.id = h.game_id WHERE h.browser = $1 AND (g.status = 'finished') = $2 \
             ORDER BY g.updated_at DESC, h.game_id LIMIT $3";
        let mut seats = Vec::new();
        for (done, limit) in [(false, open), (true, finished)] {
            let rows = on_pool!(&self.backend, pool => {
                sqlx::query(SQL)
                    .bind(browser)
                    .bind(done)
                    .bind(limit)
                    .fetch_all(pool)
                    .await?
                    .into_iter()
                    .map(|r| {
                        Ok(HeldSeat {
                            game_id: r.try_get("game_id")?,
                            seat: r.try_get("seat")?,
                            status: r.try_get("status")?,
                            updated_at: r.try_get("updated_at")?,
                        })
                    })
                    .collect::<Result<Vec<_>, sqlx::Error>>()?
            });
            seats.extend(rows);
        }
        Ok(seats)
    }
}
