//! Time in a room, pure like the rest of the core: the clocks as everyone sees them, the
//! deadline of the turn under way, when an absent player's opponent may claim the game, and the
//! end a passed deadline brings.

use super::core::{Plan, Table};
use crate::clock::{Clock, Expiry, FIRST_MOVE_MS, TimeControl};
use crate::protocol::{ClaimView, ClockView, Status};
use crate::rules::{Color, Outcome, Termination};

impl Table {
    /// The clocks as everyone sees them at `now`: ticking only while the game is on.
    pub fn clock_view(&self, now: i64) -> Option<ClockView> {
        let clock = self.clock?;
        let plies = self.game.turns().len();
        let to_move = self.game.to_move();
        let on = self.status == Status::Playing;
        let held = self.computer_held_since;
        let left = if on {
            clock.left_at(held.unwrap_or(now), plies, to_move)
        } else {
            clock.left
        };
        let first_move_ms = match self.deadline() {
            Some((at, Expiry::Abort)) => Some((at - now).max(0)),
            _ => None,
        };
        Some(ClockView {
            white_ms: left[Color::White.index()],
            black_ms: left[Color::Black.index()],
            running: (on && held.is_none() && clock.runs(plies)).then_some(to_move),
            first_move_ms,
        })
    }

    /// Holds the clock of the computer, to move, from `now`: it waits for an engine thread.
    pub fn hold_computer_clock(&mut self, now: i64) {
        self.computer_held_since = Some(now);
    }

    /// Credits the computer with the time its clock was held up to `now` (the turn began that
    /// much later), and holds it on from `now` if `still`, else lets it run. Done before
    /// anything is decided, so that no decision charges a held clock.
    pub fn credit_held_clock(&mut self, now: i64, still: bool) {
        let Some(from) = self.computer_held_since.take() else {
            return;
        };
        if let Some(clock) = &mut self.clock {
            clock.since += (now - from).max(0);
        }
        if still {
            self.computer_held_since = Some(now);
        }
    }

    /// Who may claim the game at `now`, and in how long.
    pub fn claim_view(&self, now: i64) -> Option<ClaimView> {
        self.claim_from().map(|(by, at)| ClaimView {
            by,
            in_ms: (at - now).max(0),
        })
    }

    /// When the turn under way runs out, and what happens then; `None` unless a timed game is
    /// on, a first move is awaited from a player who is away, or an open challenge waits.
    pub fn deadline(&self) -> Option<(i64, Expiry)> {
        if self.status == Status::Waiting {
            // Nobody came in time: the challenge is called off.
            return self.open_until.map(|at| (at, Expiry::Abort));
        }
        if self.status != Status::Playing || self.computer_held_since.is_some() {
            return None;
        }
        let to_move = self.game.to_move();
        // A first move is counted down only while its player is here: one who is away has the
        // absence wait to come back (and then the whole countdown), else the game is called off
        // (nobody loses a game that never began). Untimed games too: the opponent is not left
        // facing an empty chair for ever.
        let away = self.away_since[to_move.index()].filter(|_| self.first_move_due(to_move));
        match (self.clock, away) {
            (Some(clock), Some(away)) => {
                let wait = self.absence_ms.unwrap_or(FIRST_MOVE_MS);
                Some((away.max(clock.since) + wait, Expiry::Abort))
            }
            (Some(clock), None) => clock.deadline(self.game.turns().len(), to_move),
            (None, Some(away)) => Some((away + self.absence_ms?, Expiry::Abort)),
            (None, None) => None,
        }
    }

    /// Whether `seat`'s first move is due now in a game that waits for it (real-time or
    /// untimed; days per turn have their own deadline). The computer's never waits for it to
    /// come back: it is always here.
    fn first_move_due(&self, seat: Color) -> bool {
        self.status == Status::Playing
            && self.game.turns().len() < 2
            && self.game.to_move() == seat
            && matches!(
                self.control,
                TimeControl::Fischer { .. } | TimeControl::Untimed
            )
            && self.computer(seat).is_none()
    }

    /// `seat` has a connection again at `now`. One who was away while their first move was
    /// due gets the whole first-move countdown from now.
    pub fn arrive(&mut self, seat: Color, now: i64) {
        let was_away = self.away_since[seat.index()].take().is_some();
        if was_away
            && self.first_move_due(seat)
            && let Some(clock) = &mut self.clock
        {
            clock.since = clock.since.max(now);
        }
    }

    /// Who may claim the game because the opponent is gone on their own turn, and from when.
    /// Not before both players have moved: until then the game can simply be aborted.
    pub fn claim_from(&self) -> Option<(Color, i64)> {
        if self.status != Status::Playing || self.game.turns().len() < 2 {
            return None;
        }
        let absent = self.game.to_move();
        // The computer is never gone: it is thinking.
        if self.computer(absent).is_some() {
            return None;
        }
        let since = self.away_since[absent.index()]?;
        Some((absent.opponent(), since + self.absence_ms?))
    }

    /// Fresh clocks for a timed game whose seats are filled at `at`.
    pub fn start_clock(&self, at: i64) -> Option<Clock> {
        self.control
            .is_timed()
            .then(|| Clock::start(self.control, at))
    }

    /// The clocks stopped at `at`, charged up to then: what a takeback or an end stores.
    pub fn stopped_clock(&self, at: i64) -> Option<Clock> {
        let (plies, to_move) = (self.game.turns().len(), self.game.to_move());
        self.clock.map(|c| c.stopped_at(at, plies, to_move))
    }

    /// The next moment after `now` the room must act on its own: a deadline (not before
    /// `retry_at`, after a failed write of it), or a claim becoming possible.
    pub fn next_wake(&self, now: i64, retry_at: i64) -> Option<i64> {
        let claim = self.claim_from().map(|(_, at)| at).filter(|&at| at > now);
        let deadline = self.deadline().map(|(at, _)| at.max(retry_at));
        [deadline, claim].into_iter().flatten().min()
    }

    /// The end a deadline passed by `now` brings, at the deadline: the player to move loses on
    /// time, or the game is aborted for want of a first move.
    pub(super) fn expire(&self, now: i64) -> Option<Plan> {
        let (at, expiry) = self.deadline().filter(|&(at, _)| at <= now)?;
        let outcome = match expiry {
            Expiry::Abort => Outcome::draw(Termination::Aborted),
            Expiry::Flag => Outcome::win(self.game.to_move().opponent(), Termination::Time),
        };
        Some(self.finish(outcome, at))
    }
}
