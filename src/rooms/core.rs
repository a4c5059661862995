//! The decision core of a room: the part of a live game that the store keeps (position, seats,
//! clocks, offers, rematch) with who is away, and what every command would do to it.
//!
//! Pure and synchronous: [`Table::decide`] takes an [`Ask`] and the time and returns a [`Plan`]
//! (the write to store, the change to apply once it is stored, and the error to give should the
//! store refuse it) or the reason the ask is refused; [`Table::apply`] makes a stored change.
//! The shell around it (`task.rs`) brings the time and any fresh secret, writes, applies, bumps the
//! version and tells the connections. No store, socket, clock or randomness here, so every rule of
//! a room is unit-tested without them.

use super::{Action, Ending, Holder, RoomError};
use crate::clock::{Clock, TimeControl};
use crate::protocol::{PlayerName, Status};
use crate::rooms::secrets;
use crate::rules::{Checked, Color, Game, Outcome, Stale, Termination};
use crate::store::{ClockRow, GameEnd, OfferKind, SeatColumn, WriteOp};

/// The stored state of a live game, and the presence its claims depend on.
#[derive(Debug, Clone)]
pub(super) struct Table {
    pub id: String,
    pub game: Game,
    /// Who holds each seat.
    pub seats: [Option<Holder>; 2],
    /// The names the seats' players gave, if any.
    pub names: [Option<PlayerName>; 2],
    pub status: Status,
    /// Bumped by the shell for every change it applies.
    pub version: u64,
    /// This room's hold on the game: every write carries it, and the store refuses it once
    /// another owner has taken the game.
    pub epoch: i64,
    pub control: TimeControl,
    /// The clocks once both seats are filled (timed games only).
    pub clock: Option<Clock>,
    /// For each seat, since when it has had no connection (rooms' time); `None` while it has
    /// one. An HTTP action counts as being there at that moment.
    pub away_since: [Option<i64>; 2],
    /// How long the player to move may be gone before the opponent may claim the game; `None`
    /// where there are no claims (days per turn: the deadline decides).
    pub absence_ms: Option<i64>,
    /// A pending draw offer: who made it, at which ply. It lapses once a turn is played.
    pub draw_offer: Option<(Color, usize)>,
    /// A pending takeback request: who asked, at which ply. It lapses once a turn is played.
    pub takeback_offer: Option<(Color, usize)>,
    /// After the end: who asked for a rematch.
    pub rematch_offer: Option<Color>,
    /// The rematch's id, once started. Its seats are held by this game's secrets, colours
    /// swapped: nothing to hand out but the id, so a restart loses no seat.
    pub rematch: Option<String>,
    /// The id a rematch started from this game takes. The shell makes it when it loads the
    /// game, so that the core decides a rematch without making an id (no randomness here).
    pub rematch_id: String,
    /// When the game ended (rooms' time, ms; set by the shell as it applies the end, or the
    /// stored game's last change); `None` while it goes on.
    pub ended_at: Option<i64>,
    /// For an open challenge, when it expires if nobody has taken the seat by then (rooms'
    /// time); `None` for every other game.
    pub open_until: Option<i64>,
    /// Since when the computer, to move, has waited for the engine thread it was promised
    /// (rooms' time): its clock is held meanwhile. Not stored: a room that restarts charges it.
    pub computer_held_since: Option<i64>,
}

/// What a room is asked to decide. The seat has been found from the actor already.
#[derive(Debug)]
pub(super) enum Ask {
    /// What a seat's player (or the computer in its seat) does, as the client asked it.
    By { seat: Color, action: Action },
    /// Take the empty seat for `holder`, under `name` if one is given.
    Join {
        holder: Holder,
        name: Option<PlayerName>,
    },
    /// Move `seat` to another browser (a hand-off that moves it): its secret becomes the one
    /// whose hash is `to_hash`, and `browser` holds it.
    MoveSeat {
        seat: Color,
        to_hash: String,
        browser: String,
    },
    /// Close an unfinished game as abandoned (the stale-game sweep).
    Abandon,
    /// End the game if its deadline has passed.
    Expire,
}

/// A decision to store something: the write, then the change once it is stored.
#[derive(Debug)]
pub(super) struct Plan {
    pub op: WriteOp,
    pub change: Change,
    /// What the asker is told if the store refuses the write (another writer got there first).
    pub lost: RoomError,
}

/// A change to the table, made only once its write is stored.
#[derive(Debug)]
pub(super) enum Change {
    Turn {
        checked: Checked,
        clock: Option<Clock>,
    },
    Seat {
        color: Color,
        holder: Holder,
        name: Option<PlayerName>,
        clock: Option<Clock>,
        /// When the game starts.
        at: i64,
    },
    Name {
        color: Color,
        name: PlayerName,
    },
    Finish {
        outcome: Outcome,
        clock: Option<Clock>,
    },
    Offer {
        kind: OfferKind,
        offer: Option<(Color, usize)>,
    },
    TakeBack {
        game: Box<Game>,
        clock: Option<Clock>,
    },
    Rematch,
    /// A seat's secret replaced (a hand-off that moves it).
    Moved {
        color: Color,
        hash: String,
    },
}

/// A clock as the store keeps it.
pub(super) fn clock_row(clock: &Clock) -> ClockRow {
    ClockRow {
        white_ms: clock.left[Color::White.index()],
        black_ms: clock.left[Color::Black.index()],
        at: clock.since,
    }
}

/// The store's column of a seat.
fn seat_column(color: Color) -> SeatColumn {
    match color {
        Color::White => SeatColumn::White,
        Color::Black => SeatColumn::Black,
    }
}

fn game_end(outcome: Outcome) -> GameEnd {
    GameEnd {
        result: outcome.result().to_string(),
        termination: outcome.termination.as_str().to_string(),
    }
}

impl Table {
    /// What `ask` does at `now`: a plan to store, `None` when there is nothing to store (the
    /// ask is answered with the game as it stands), or why it is refused.
    pub fn decide(&self, ask: Ask, now: i64) -> Result<Option<Plan>, RoomError> {
        match ask {
            Ask::By { seat, action } => match action {
                Action::Turn(text) => self.turn(seat, &text, now).map(Some),
                Action::End(ending) => self.end(seat, ending, now).map(Some),
                Action::Draw(offer) => self.draw(seat, offer, now),
                Action::Takeback(offer) => self.takeback(seat, offer, now).map(Some),
                Action::Rematch => self.rematch(seat, now),
                Action::RematchDecline => self.decline_rematch(seat, now).map(Some),
                Action::Name(name) => Ok(self.name(seat, name)),
                Action::Cancel => self.cancel(seat, now).map(Some),
            },
            Ask::Join { holder, name } => self.join(holder, name, now).map(Some),
            Ask::MoveSeat {
                seat,
                to_hash,
                browser,
            } => self.move_seat(seat, to_hash, browser, now).map(Some),
            Ask::Abandon => Ok(self.abandon(now)),
            Ask::Expire => Ok(self.expire(now)),
        }
    }

    /// Makes a change whose write the store has committed. A turn checked against another
    /// moment of the game is refused ([`Stale`]); the shell then reloads.
    pub fn apply(&mut self, change: Change) -> Result<(), Stale> {
        match change {
            Change::Turn { checked, clock } => {
                self.game.commit(checked)?;
                self.clock = clock;
                if self.game.outcome().is_some() {
                    self.status = Status::Finished;
                }
            }
            Change::Seat {
                color,
                holder,
                name,
                clock,
                at,
            } => {
                self.seats[color.index()] = Some(holder);
                self.names[color.index()] = name;
                self.clock = clock;
                self.status = Status::Playing;
                // An absence that began before the game did counts from its start: a player
                // has the whole wait to come to a game just begun.
                for away in self.away_since.iter_mut().flatten() {
                    *away = (*away).max(at);
                }
            }
            Change::Finish { outcome, clock } => {
                self.game.end(outcome);
                self.clock = clock;
                self.status = Status::Finished;
            }
            Change::Offer { kind, offer } => match kind {
                OfferKind::Draw => self.draw_offer = offer,
                OfferKind::Takeback => self.takeback_offer = offer,
                OfferKind::Rematch => self.rematch_offer = offer.map(|(by, _)| by),
            },
            Change::TakeBack { game, clock } => {
                self.game = *game;
                self.clock = clock;
                self.takeback_offer = None;
                self.draw_offer = None;
            }
            Change::Name { color, name } => self.names[color.index()] = Some(name),
            Change::Rematch => {
                self.rematch_offer = None;
                self.rematch = Some(self.rematch_id.clone());
            }
            Change::Moved { color, hash } => self.seats[color.index()] = Some(Holder::Secret(hash)),
        }
        Ok(())
    }

    /// The computer's level, if the computer holds `seat`.
    pub fn computer(&self, seat: Color) -> Option<crate::engine::Level> {
        self.seats[seat.index()].as_ref().and_then(Holder::level)
    }

    /// The name `seat`'s player gave, as the store keeps it.
    pub(super) fn name_row(&self, seat: Color) -> Option<String> {
        self.names[seat.index()].as_ref().map(|n| n.to_string())
    }

    /// Whether the computer holds either seat.
    pub fn against_computer(&self) -> bool {
        Color::BOTH.into_iter().any(|c| self.computer(c).is_some())
    }

    /// The seat whose secret is `secret`, if any.
    pub fn seat_of_secret(&self, secret: &str) -> Option<Color> {
        self.seat_of_hash(&secrets::hash(secret))
    }

    /// The seat whose secret hashes to `hash`, if any (compared in constant time).
    pub fn seat_of_hash(&self, hash: &str) -> Option<Color> {
        Color::BOTH.into_iter().find(|c| {
            self.seats[c.index()]
                .as_ref()
                .and_then(Holder::hash)
                .is_some_and(|h| {
                    subtle::ConstantTimeEq::ct_eq(hash.as_bytes(), h.as_bytes()).into()
                })
        })
    }

    /// The game is on, and `seat` may act in it.
    pub(super) fn in_play(&self) -> Result<(), RoomError> {
        match self.status {
            Status::Finished => Err(RoomError::GameOver),
            Status::Waiting => Err(RoomError::NotStarted),
            Status::Playing => Ok(()),
        }
    }

    pub(super) fn plies(&self) -> usize {
        self.game.turns().len()
    }

    /// The version every write is checked against: the store refuses it if the game moved on.
    pub(super) fn seen(&self) -> i64 {
        self.version as i64
    }

    fn turn(&self, seat: Color, text: &str, now: i64) -> Result<Plan, RoomError> {
        self.in_play()?;
        if self.game.to_move() != seat {
            return Err(RoomError::NotYourTurn);
        }
        let variant = self.game.variant();
        let turn = variant
            .parse_turn(text)
            .map_err(|e| RoomError::BadNotation(e.to_string()))?;
        let checked = self
            .game
            .preview(turn)
            .map_err(|e| RoomError::Illegal(e.describe(variant.board())))?;
        let plies = self.plies();
        let clock = self.clock.map(|c| c.after_turn(now, plies, seat));
        let op = WriteOp::AppendTurn {
            id: self.id.as_str().into(),
            ply: plies as i64,
            notation: checked.notation().as_str().into(),
            at: now,
            clock: clock.map(|c| c.left),
            end: checked.outcome().map(game_end),
            seen: self.seen(),
            epoch: self.epoch,
        };
        Ok(Plan {
            op,
            change: Change::Turn { checked, clock },
            lost: RoomError::Conflict,
        })
    }

    fn end(&self, seat: Color, ending: Ending, now: i64) -> Result<Plan, RoomError> {
        if self.status == Status::Finished {
            return Err(RoomError::GameOver);
        }
        let outcome = match ending {
            Ending::Resign if self.status == Status::Waiting => {
                return Err(RoomError::NotAllowed(
                    "nobody has joined yet: abort the game instead",
                ));
            }
            Ending::Resign => Outcome::win(seat.opponent(), Termination::Resignation),
            // Each player has moved once when two turns are played; after that it is a game.
            Ending::Abort if self.plies() >= 2 => {
                return Err(RoomError::NotAllowed(
                    "both players have moved: resign or offer a draw instead",
                ));
            }
            Ending::Abort => Outcome::draw(Termination::Aborted),
            Ending::ClaimWin | Ending::ClaimDraw => {
                match self.claim_from() {
                    Some((by, at)) if by == seat && at <= now => {}
                    Some((by, _)) if by == seat => {
                        return Err(RoomError::NotAllowed(
                            "your opponent has not been gone long enough to claim the game",
                        ));
                    }
                    _ => {
                        return Err(RoomError::NotAllowed(
                            "you may claim the game only while your opponent is gone on their turn",
                        ));
                    }
                }
                if ending == Ending::ClaimWin {
                    Outcome::win(seat, Termination::Abandonment)
                } else {
                    Outcome::draw(Termination::Abandonment)
                }
            }
        };
        Ok(self.finish(outcome, now))
    }

    /// Ends the game off the board at `at`, with the clocks stopped then.
    pub(super) fn finish(&self, outcome: Outcome, at: i64) -> Plan {
        let clock = self.stopped_clock(at);
        Plan {
            op: WriteOp::Finish {
                id: self.id.clone(),
                end: game_end(outcome),
                at,
                clock: clock.as_ref().map(clock_row),
                seen: self.seen(),
                epoch: self.epoch,
            },
            change: Change::Finish { outcome, clock },
            lost: RoomError::GameOver,
        }
    }

    /// The creator calls off a game nobody has joined: nobody wins, and it is no longer listed.
    /// Once the opponent has come, it is a game (abort or resign it instead).
    fn cancel(&self, seat: Color, now: i64) -> Result<Plan, RoomError> {
        match self.status {
            Status::Finished => Err(RoomError::GameOver),
            Status::Playing => Err(RoomError::NotAllowed(
                "the opponent has come: the game can no longer be cancelled (abort or resign it instead)",
            )),
            Status::Waiting if self.seats[seat.index()].is_none() => Err(RoomError::NotSeated),
            Status::Waiting => Ok(self.finish(Outcome::draw(Termination::Aborted), now)),
        }
    }

    fn abandon(&self, now: i64) -> Option<Plan> {
        if self.status == Status::Finished {
            return None;
        }
        // Nobody wins a game that never really began; otherwise the player who let it lapse on
        // their turn loses.
        let outcome = if self.plies() < 2 {
            Outcome::draw(Termination::Aborted)
        } else {
            Outcome::win(self.game.to_move().opponent(), Termination::Abandonment)
        };
        Some(self.finish(outcome, now))
    }

    /// Names `seat`'s player, at any point of the game (a finished game's record shows it too);
    /// `None` when the seat has that name already.
    fn name(&self, seat: Color, name: PlayerName) -> Option<Plan> {
        if self.names[seat.index()].as_ref() == Some(&name) {
            return None;
        }
        Some(Plan {
            op: WriteOp::SetName {
                id: self.id.clone(),
                seen: self.seen(),
                seat: seat_column(seat),
                name: name.to_string(),
                epoch: self.epoch,
            },
            change: Change::Name { color: seat, name },
            lost: RoomError::Conflict,
        })
    }

    /// Replaces `seat`'s secret: the old one stops working. The computer's seat is no one's
    /// to move.
    fn move_seat(
        &self,
        seat: Color,
        to_hash: String,
        browser: String,
        now: i64,
    ) -> Result<Plan, RoomError> {
        let Some(Holder::Secret(from_hash)) = self.seats[seat.index()].clone() else {
            return Err(RoomError::NotSeated);
        };
        let op = WriteOp::MoveSeat {
            id: self.id.clone(),
            seen: self.seen(),
            seat: seat_column(seat),
            from_hash,
            to_hash: to_hash.clone(),
            browser,
            at: now,
            epoch: self.epoch,
        };
        Ok(Plan {
            op,
            change: Change::Moved {
                color: seat,
                hash: to_hash,
            },
            lost: RoomError::Conflict,
        })
    }

    fn join(&self, holder: Holder, name: Option<PlayerName>, now: i64) -> Result<Plan, RoomError> {
        if self.status != Status::Waiting {
            return Err(RoomError::SeatsTaken);
        }
        let color = Color::BOTH
            .into_iter()
            .find(|c| self.seats[c.index()].is_none())
            .ok_or(RoomError::SeatsTaken)?;
        // Filling the second seat starts the game, and with it the clocks.
        let clock = self.start_clock(now);
        let op = WriteOp::ClaimSeat {
            id: self.id.clone(),
            seat: seat_column(color),
            hash: holder.column(),
            name: name.as_ref().map(|n| n.to_string()),
            at: now,
            clock: clock.as_ref().map(clock_row),
            seen: self.seen(),
            epoch: self.epoch,
        };
        Ok(Plan {
            op,
            change: Change::Seat {
                color,
                holder,
                name,
                clock,
                at: now,
            },
            lost: RoomError::SeatsTaken,
        })
    }
}
