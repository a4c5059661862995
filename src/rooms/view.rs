//! What a room shows: the state message (encoded once per change and shared by every
//! connection), the `hello` of a new connection, the `rematch` announcement, and the record.

use super::now_ms;
use super::task::Room;
use crate::protocol::{GameState, SeatView, ServerMessage, Sides, StateView, hello_json};
use crate::rules::Color;
use axum::extract::ws::Utf8Bytes;

impl Room {
    /// Who holds the seats and is connected, and how many watch.
    pub(super) fn presence(&self) -> (Sides<SeatView>, u32) {
        let seats = Sides::from_fn(|c| SeatView {
            taken: self.table.seats[c.index()].is_some(),
            connected: self.conns.connected(c),
        });
        (seats, self.conns.spectators())
    }

    /// The state as everyone sees it now, borrowed from the room.
    fn view(&self) -> StateView<'_> {
        let now = now_ms();
        let table = &self.table;
        let (seats, spectators) = self.presence();
        StateView {
            draw_offer: table.pending_draw(),
            takeback_offer: table.pending_takeback(),
            rematch_offer: table.rematch_offer,
            rematch: table.rematch.as_ref().map(|(id, _)| id.as_str()),
            time_control: table.control,
            clock: table.clock_view(now),
            claim: table.claim_view(now),
            ..StateView::new(
                &table.id,
                table.version,
                &table.game,
                table.status,
                seats,
                spectators,
            )
        }
    }

    /// The state, owned, for an answer.
    pub(super) fn state(&self) -> GameState {
        self.view().to_state()
    }

    /// Builds the state now, and encodes it once for everyone.
    pub(super) fn refresh(&mut self) {
        self.latest = Utf8Bytes::from(self.view().to_json());
    }

    /// Encodes the state once and queues it for every connection.
    pub(super) fn broadcast(&mut self) {
        self.refresh();
        for conn in self.conns.values() {
            conn.outbox.push_state(self.latest.clone());
        }
    }

    /// The `hello` for a connection to `seat` (none: a spectator).
    pub(super) fn hello(&self, seat: Option<Color>, handoff_url: Option<String>) -> Utf8Bytes {
        let handoff_url = seat.and(handoff_url);
        let board = self.table.game.variant().board();
        let id = &self.table.id;
        Utf8Bytes::from(hello_json(id, seat, handoff_url.as_deref(), board))
    }

    /// Tells every connection that the rematch has started: each player the link to their new
    /// seat, spectators the game to watch.
    pub(super) fn announce_rematch(&self) {
        let Some((id, Some(secrets))) = &self.table.rematch else {
            return;
        };
        for conn in self.conns.values() {
            let handoff_url = conn
                .seat
                .map(|c| format!("/g/{id}?seat={}", secrets[c.index()]));
            let message = ServerMessage::Rematch {
                game: id.clone(),
                handoff_url,
            };
            conn.outbox
                .push_event(Utf8Bytes::from(message.to_json()), &self.latest);
        }
    }

    /// The game record, dated today.
    pub(super) fn record(&self) -> String {
        let date = civil_date(now_ms());
        let record = self
            .table
            .game
            .record(&[("Site", "merels"), ("Date", &date)]);
        record.to_string()
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
