//! What a room shows: a snapshot of the game after every change (the `update` every connection
//! shares), the whole game when a connection needs it, the `hello` of a new connection, the
//! `rematch` announcement, and the record.

use super::task::Room;
use crate::protocol::{
    ComputerView, GameState, PROTOCOL_VERSION, SeatView, ServerMessage, Sides, Snapshot, Status,
};
use crate::rules::Color;
use crate::time::room_ms;
use axum::extract::ws::Utf8Bytes;
use std::cell::OnceCell;

impl Room {
    /// Who holds the seats and is connected, and how many watch.
    pub(super) fn presence(&self) -> (Sides<SeatView>, u32) {
        let seats = Sides::from_fn(|c| {
            let computer = self.table.computer(c).map(|level| ComputerView {
                level: level.number(),
                name: level.name().into(),
                thought_ms: self.thought_ms,
                preparing_s: self.preparing_s,
            });
            SeatView {
                taken: self.table.seats[c.index()].is_some(),
                connected: computer.is_some() || self.conns.connected(c),
                name: self.table.names[c.index()].clone(),
                computer,
            }
        });
        (seats, self.conns.spectators())
    }

    /// Where the game stands now, as everyone sees it.
    fn snapshot(&self) -> Snapshot {
        let now = room_ms();
        let table = &self.table;
        let (seats, spectators) = self.presence();
        Snapshot {
            draw_offer: table.pending_draw(),
            takeback_offer: table.pending_takeback(),
            rematch_offer: table.rematch_offer,
            rematch: table.rematch.clone(),
            time_control: table.control,
            clock: table.clock_view(now),
            claim: table.claim_view(now),
            chat: self.chat.counts(),
            ..Snapshot::new(table.version, &table.game, table.status, seats, spectators)
        }
    }

    /// The whole game now: for an answer, or (encoded) for a connection.
    pub(super) fn state(&self) -> GameState {
        GameState::new(&self.table.id, &self.table.game, self.snapshot())
    }

    /// The whole game as a `state` message.
    pub(super) fn whole(&self) -> Utf8Bytes {
        Utf8Bytes::from(ServerMessage::State(Box::new(self.state())).to_json())
    }

    /// Tells every connection where the game stands: one message, encoded once for all. A
    /// finished game sends the whole of it (the replay needs every board), and so does a room
    /// that has `reloaded` from the store (the change may be several); a connection that has
    /// fallen behind gets the whole state in place of what it skipped.
    pub(super) fn broadcast(&self, reloaded: bool) {
        if self.conns.is_empty() {
            return;
        }
        let whole = OnceCell::new();
        let whole = || whole.get_or_init(|| self.whole()).clone();
        if reloaded || self.table.status == Status::Finished {
            let state = whole();
            for conn in self.conns.values() {
                conn.outbox.push_state(state.clone());
            }
            return;
        }
        let update = Utf8Bytes::from(ServerMessage::Update(Box::new(self.snapshot())).to_json());
        for conn in self.conns.values() {
            conn.outbox.push_update(update.clone(), whole);
        }
    }

    /// The `hello` for a connection to `seat` (none: a spectator).
    pub(super) fn hello(
        &self,
        catalog: &crate::catalog::Catalog,
        seat: Option<Color>,
    ) -> Utf8Bytes {
        let message = ServerMessage::Hello {
            protocol: PROTOCOL_VERSION,
            game: self.table.id.clone(),
            seat,
            board: catalog.board_json(self.table.game.variant().board()),
        };
        Utf8Bytes::from(message.to_json())
    }

    /// Tells every connection that the rematch has started: one message for all (a player's
    /// secret holds their seat there too; the page asks `/g/{id}/rematch` for its cookie).
    pub(super) fn announce_rematch(&self) {
        let Some(id) = &self.table.rematch else {
            return;
        };
        let frame = Utf8Bytes::from(ServerMessage::Rematch { game: id.clone() }.to_json());
        for conn in self.conns.values() {
            conn.outbox.push_event(frame.clone(), || self.whole());
        }
    }

    /// The game record, dated today.
    pub(super) fn record(&self) -> String {
        let date = civil_date(room_ms());
        let mut tags = vec![
            ("Site", "merels".to_string()),
            ("Date", date),
            ("TimeControl", self.table.control.record_tag()),
        ];
        // The computer by its level; a person by the name they gave, if any.
        for (c, tag) in Color::BOTH.into_iter().zip(["White", "Black"]) {
            if let Some(level) = self.table.computer(c) {
                tags.push((tag, format!("merels computer, level {level}")));
            } else if let Some(name) = &self.table.names[c.index()] {
                tags.push((tag, name.to_string()));
            }
        }
        let tags: Vec<(&str, &str)> = tags.iter().map(|(k, v)| (*k, v.as_str())).collect();
        self.table.game.record(&tags).to_string()
    }
}

/// The day of a moment (Unix milliseconds) as `YYYY.MM.DD`: days since the epoch to a civil date
/// (Howard Hinnant's algorithm), which keeps this free of a calendar dependency.
fn civil_date(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_are_civil() {
        assert_eq!(super::civil_date(0), "1970.01.01");
        assert_eq!(super::civil_date(951_782_400_000), "2000.02.29");
        assert_eq!(super::civil_date(1_796_083_200_000), "2026.12.01");
    }
}
