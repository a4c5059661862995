//! A browser's seats ("My games"): recorded wherever a seat is granted, and listed with whose
//! turn it is and how long is left. The browser id only lists; the seat's secret still acts.

use super::load::table_from;
use super::{RoomError, Rooms};
use crate::protocol::{MyGame, MyGames, Status};
use crate::rules::Color;
use crate::time::room_ms;

/// Games not finished that a list shows at most (a browser with more sees the most recently
/// changed).
pub const MY_OPEN_GAMES: i64 = 50;
/// Finished games that a list shows at most: the most recently finished.
pub const MY_FINISHED_GAMES: i64 = 10;

impl Rooms {
    /// Records that `browser` (the hash the browser id is kept as) holds `color` in
    /// game `id`.
    pub async fn hold_seat(&self, browser: &str, id: &str, color: Color) -> Result<(), RoomError> {
        Ok(self
            .store()
            .hold_seat(browser, id, color.name(), room_ms())
            .await?)
    }

    /// The games `browser` holds a seat in, as the store has them: each one not finished is
    /// replayed (as a room loads it) to tell whose turn it is and how long is left.
    pub async fn my_games(&self, browser: &str) -> Result<MyGames, RoomError> {
        let held = self
            .store()
            .held_seats(browser, MY_OPEN_GAMES, MY_FINISHED_GAMES)
            .await?;
        let now = room_ms();
        let mut games = Vec::with_capacity(held.len());
        for seat in held {
            let Some(color) = Color::parse(&seat.seat) else {
                continue;
            };
            let Some(stored) = self.store().load(&seat.game_id).await? else {
                continue;
            };
            // A game whose record no longer replays is left out of the list, not the list's end.
            let Ok(table) = table_from(self.catalog(), &self.inner.config, stored) else {
                continue;
            };
            let on = table.status == Status::Playing;
            let to_move = on.then(|| table.game.to_move());
            let slug = table.game.variant().slug();
            let title = self
                .catalog()
                .get(slug)
                .map_or_else(|_| slug.to_string(), |v| v.title.clone());
            games.push(MyGame {
                id: seat.game_id,
                variant: slug.to_string(),
                title,
                seat: color,
                status: table.status,
                to_move,
                your_turn: to_move == Some(color),
                left_ms: table.deadline().map(|(at, _)| (at - now).max(0)),
                against_computer: table.computer(color.opponent()).is_some(),
                result: (table.status == Status::Finished)
                    .then(|| table.game.outcome().map_or("*", |o| o.result()).to_string()),
                updated_at: seat.updated_at,
            });
        }
        Ok(MyGames {
            your_turn: games.iter().filter(|g| g.your_turn).count(),
            games,
        })
    }
}
