//! The room's side of the computer: when it thinks, what becomes of the turn it thought (played
//! as anyone's is, unless the game moved on meanwhile), and how it answers its opponent's offers.
//! The thinking itself is [`super::computer`]'s, off the room's task.

use super::OfferAction;
use super::computer::{Job, Need};
use super::core::{Ask, Change, Plan, Table as Seats};
use super::task::Room;
use super::{Action, Actor, Rooms};
use crate::engine::{self, Level};
use crate::protocol::Status;
use crate::rules::Color;
use crate::time::room_ms;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::time::Instant;

/// The address the computer's own actions come from (it creates no game of its own: a rematch
/// it agrees to is charged to the human who asked).
const LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

/// How long the computer may think: its level's time, and in a timed game no more than a
/// thirtieth of what it has left plus half its increment.
fn think_budget(level: Level, table: &Seats, side: Color) -> Duration {
    let level_ms: i64 = [300, 500, 800, 1_500, 3_000, 5_000][usize::from(level.number() - 1)];
    let ms = match (&table.clock, table.control) {
        (Some(clock), crate::clock::TimeControl::Fischer { increment_ms, .. }) => {
            let left = clock.left_at(room_ms(), table.game.turns().len(), side)[side.index()];
            level_ms.min(left / 30 + increment_ms / 2)
        }
        _ => level_ms,
    };
    Duration::from_millis(ms.max(50) as u64)
}

/// The room's side of the computer: when to think, what to do with the turn, how to answer.
impl Room {
    /// Plays the computer's turn, thought for the game at `version`, unless the game has moved on.
    pub(super) async fn play_computer_turn(
        &mut self,
        rooms: &Rooms,
        version: u64,
        turn: String,
        thought_ms: u64,
    ) {
        if self.thinking.as_ref().is_none_or(|(v, _)| *v != version)
            || self.table.version != version
        {
            return;
        }
        self.thinking = None;
        let seat = self.table.game.to_move();
        self.thought_ms = Some(thought_ms);
        let sent = Instant::now();
        let played = self
            .act(rooms, Actor::Seat(Some(seat)), LOCAL, Action::Turn(turn))
            .await;
        rooms.count_turn(sent, &played);
        if let Err(e) = played {
            tracing::warn!(game = %self.table.id, error = %e, "the computer's turn was refused");
        }
    }

    /// Starts the computer thinking when it is to move in a game in play (and it is not thinking
    /// about this moment already); stops a search of a moment the game has left.
    pub(super) fn think(&mut self, rooms: &Rooms) {
        self.think_or_not(rooms);
        // Whether the computer's perfect play is still being prepared: everyone is told as it
        // begins and as it ends (the room wakes for the computer's turns, and any command).
        if self.table.against_computer() && self.table.status == Status::Playing {
            let preparing = rooms.inner.computer.preparing(self.table.game.variant());
            if preparing.is_some() != self.preparing_s.is_some() {
                self.preparing_s = preparing;
                self.broadcast(false);
            }
            self.preparing_s = preparing;
        }
    }

    /// Starts the computer thinking if it is to move and is not thinking about this version.
    fn think_or_not(&mut self, rooms: &Rooms) {
        let to_move = self.table.game.to_move();
        let level = (self.table.status == Status::Playing)
            .then(|| self.table.computer(to_move))
            .flatten();
        let version = self.table.version;
        if self.thinking.as_ref().is_some_and(|(v, _)| *v == version) && level.is_some() {
            return;
        }
        self.stop_thinking();
        let Some(level) = level else { return };
        let table = &self.table;
        let stop = Arc::new(AtomicBool::new(false));
        let positions: Vec<_> = table.game.positions().collect();
        let (position, earlier) = positions.split_last().expect("a game has a position");
        let budget = think_budget(level, table, to_move);
        let job = Job {
            variant: table.game.variant().clone(),
            earlier: earlier.to_vec(),
            position: *position,
            level,
            // Each game its own mistakes, the same ones should it be replayed.
            seed: table.id.bytes().fold(table.version, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01B3)
            }),
            budget,
        };
        rooms
            .inner
            .computer
            .think(rooms, table.id.clone(), table.version, job, stop.clone());
        self.thinking = Some((table.version, stop));
        // Until a thread is the computer's, its clock waits with it.
        self.table.hold_computer_clock(room_ms());
    }

    /// Stops the computer's search, if one runs, and lets its clock run.
    pub(super) fn stop_thinking(&mut self) {
        self.table.credit_held_clock(room_ms(), false);
        if let Some((_, stop)) = self.thinking.take() {
            stop.store(true, Ordering::Relaxed);
        }
    }

    /// The computer answers what its human opponent just asked: a draw when its position is no
    /// better than even, a takeback always, a rematch always (charged to the human, `from`).
    pub(super) async fn answer_for_computer(&mut self, rooms: &Rooms, human: Color, from: IpAddr) {
        let computer = human.opponent();
        if self.table.computer(computer).is_none() {
            return;
        }
        let now = room_ms();
        let ask = if self.table.pending_takeback() == Some(human) {
            Ask::By {
                seat: computer,
                action: Action::Takeback(OfferAction::Accept),
            }
        } else if self.table.pending_draw() == Some(human) {
            let action = if self.computer_takes_draw(rooms) {
                OfferAction::Accept
            } else {
                OfferAction::Decline
            };
            Ask::By {
                seat: computer,
                action: Action::Draw(action),
            }
        } else if self.table.rematch_offer == Some(human) && self.table.rematch.is_none() {
            Ask::By {
                seat: computer,
                action: Action::Rematch,
            }
        } else {
            return;
        };
        let plan = match self.table.decide(ask, now) {
            Ok(plan) => plan,
            Err(_) => return,
        };
        if let Some(Plan {
            change: Change::Rematch,
            ..
        }) = &plan
            && rooms.charge(from, true).is_err()
        {
            return;
        }
        if let Err(e) = self.execute(rooms, plan).await {
            tracing::debug!(game = %self.table.id, error = %e, "the computer's answer was not stored");
        }
    }

    /// Whether the computer accepts a draw now: a solved board's value says it cannot win, or the
    /// evaluation says it stands no better than even.
    fn computer_takes_draw(&self, rooms: &Rooms) -> bool {
        let variant = self.table.game.variant();
        let position = self.table.game.position();
        // The offer was made on the human's turn or after it: judge for the side it concerns.
        let computer_to_move = self.table.computer(position.to_move()).is_some();
        if let Some(table) = rooms.inner.computer.table(rooms, variant, Need::Play)
            && let Some(value) = table.value(position)
        {
            let for_computer = if computer_to_move {
                value
            } else {
                value.back()
            };
            return !matches!(for_computer, engine::Value::Win(_));
        }
        let score = engine::eval::evaluate(variant, position);
        let for_computer = if computer_to_move { score } else { -score };
        for_computer <= 0
    }
}
