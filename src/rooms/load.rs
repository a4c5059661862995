//! Loading a game into a room: the stored row and turns, replayed through the rules engine into
//! a [`Table`]. Stored data that does not replay is [`RoomError::Unreadable`], never a write error.

use super::core::Table;
use super::{Holder, RoomError, Rooms, RoomsConfig};
use crate::catalog::{Catalog, parse_options};
use crate::clock::{Clock, TimeControl};
use crate::protocol::{PlayerName, Status};
use crate::rules::{Color, Game, Outcome, Termination};
use crate::store::{ClockRow, StoredGame};
use crate::time::{room_ms, wall_ms};

/// Takes the game for this instance, then reads it; [`RoomError::NotFound`] if there is none,
/// [`RoomError::Unavailable`] if another live instance owns it (the caller asks again, and is
/// sent there).
pub(super) async fn take(rooms: &Rooms, id: &str) -> Result<Table, RoomError> {
    let store = rooms.store();
    let now = wall_ms();
    match store.claim(id, &rooms.lease().me.instance, now).await? {
        Some(claim) => {
            rooms.metrics().games_taken.inc();
            let unserved = claim.unserved_since.map(|since| (since, now));
            load(rooms, id, unserved).await
        }
        None if store.load(id).await?.is_none() => Err(RoomError::NotFound),
        None => Err(RoomError::Unavailable),
    }
}

/// Reads the game from the store into a table; [`RoomError::NotFound`] if there is none.
/// `unserved`: from when until when nobody served the game, if it was taken from an owner that
/// died.
pub(super) async fn load(
    rooms: &Rooms,
    id: &str,
    unserved: Option<(i64, i64)>,
) -> Result<Table, RoomError> {
    let stored = rooms.store().load(id).await?.ok_or(RoomError::NotFound)?;
    let mut table = table_from(rooms.catalog(), &rooms.inner.config, stored)?;
    // The time since the current turn began that no server ran, or that no server served this
    // game (its owner had died), is nobody's: the turn begins that much later. When every
    // instance was down the two overlap, hence the larger rather than the sum.
    if table.status == Status::Playing
        && let Some(clock) = &mut table.clock
    {
        let outage = rooms.store().downtime_since(clock.since);
        let unserved = unserved.map_or(0, |(from, to)| (to - from.max(clock.since)).max(0));
        clock.since += outage.max(unserved);
    }
    Ok(table)
}

/// Rebuilds a table from what the store holds: the variant with its options, then every turn.
pub(super) fn table_from(
    catalog: &Catalog,
    config: &RoomsConfig,
    stored: StoredGame,
) -> Result<Table, RoomError> {
    let row = &stored.game;
    let unreadable = |why: String| RoomError::Unreadable(why);
    let options = parse_options(&row.options).map_err(|e| unreadable(e.to_string()))?;
    let variant = catalog
        .configure(&row.variant, &options)
        .map_err(|e| unreadable(e.to_string()))?;
    let turns: Vec<&str> = stored.turns.iter().map(|t| t.notation.as_str()).collect();
    let mut game = Game::replay(variant, None, &turns).map_err(|e| unreadable(e.to_string()))?;
    let status =
        Status::parse(&row.status).ok_or_else(|| unreadable(format!("status '{}'", row.status)))?;
    // A game that the store says ended, though its turns did not end it, ended off the board.
    if status == Status::Finished && game.outcome().is_none() {
        let termination = row
            .termination
            .as_deref()
            .and_then(Termination::parse)
            .unwrap_or(Termination::Abandonment);
        let winner = match row.result.as_deref() {
            Some("1-0") => Some(Color::White),
            Some("0-1") => Some(Color::Black),
            _ => None,
        };
        game.end(Outcome {
            winner,
            termination,
        });
    }
    let control = TimeControl::parse(&row.time_control).map_err(|e| unreadable(e.to_string()))?;
    // The clocks as of the latest snapshot: the last turn's, or the game's own (the start, a
    // takeback, the end), which is never older than the turns it follows.
    let clock = (control.is_timed() && status != Status::Waiting).then(|| {
        let last_turn = stored.turns.last().and_then(|t| {
            let [white_ms, black_ms] = t.clock?;
            Some(ClockRow {
                white_ms,
                black_ms,
                at: t.played_at,
            })
        });
        match [last_turn, row.clock]
            .into_iter()
            .flatten()
            .max_by_key(|c| c.at)
        {
            Some(c) => Clock {
                control,
                left: [c.white_ms, c.black_ms],
                since: c.at,
            },
            None => Clock::start(control, row.updated_at),
        }
    });
    let offer = |offer: &Option<(String, i64)>| {
        let (by, ply) = offer.as_ref()?;
        Some((Color::parse(by)?, usize::try_from(*ply).ok()?))
    };
    let absence = match control {
        TimeControl::Untimed => Some(config.absent_untimed),
        TimeControl::Fischer { .. } => Some(config.absent_timed),
        TimeControl::Days(_) => None,
    };
    Ok(Table {
        id: row.id.clone(),
        game,
        seats: [
            row.white_secret_hash.clone().map(Holder::from_column),
            row.black_secret_hash.clone().map(Holder::from_column),
        ],
        // A stored name was checked as it was given; one that no longer reads is left out
        // rather than making the game unreadable.
        names: [&row.white_name, &row.black_name]
            .map(|n| n.as_deref().and_then(|n| PlayerName::parse(n).ok())),
        status,
        version: stored.version() as u64,
        epoch: row.epoch,
        control,
        clock,
        // Nobody is connected to a room just loaded: every seat is away from now on.
        away_since: [Some(room_ms()); 2],
        absence_ms: absence.map(|d| d.as_millis() as i64),
        draw_offer: offer(&row.draw_offer),
        takeback_offer: offer(&row.takeback_offer),
        rematch_offer: row.rematch_offer.as_deref().and_then(Color::parse),
        rematch: row.rematch_id.clone(),
        rematch_id: super::secrets::new_id(wall_ms()),
        ended_at: (status == Status::Finished).then_some(row.updated_at),
        open_until: row
            .open_challenge
            .then(|| row.created_at + config.challenge_expiry.as_millis() as i64),
        computer_held_since: None,
    })
}
