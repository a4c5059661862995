//! The decision core of a room: the part of a live game that the store keeps (position, seats,
//! clocks, offers, rematch) with who is away, and what every command would do to it.
//!
//! Pure and synchronous: [`Table::decide`] takes an [`Ask`] and the time and returns a [`Plan`]
//! (the write to store, the change to apply once it is stored, and the error to give should the
//! store refuse it) or the reason the ask is refused; [`Table::apply`] makes a stored change.
//! The shell around it (`task.rs`) brings the time and any fresh secret, writes, applies, bumps the
//! version and tells the connections. No store, socket, clock or randomness here, so every rule of
//! a room is unit-tested without them.

use super::{Ending, OfferAction, RoomError};
use crate::clock::{Clock, TimeControl};
use crate::protocol::Status;
use crate::rooms::secrets;
use crate::rules::{Checked, Color, Game, Outcome, Stale, Termination};
use crate::store::{ClockRow, GameEnd, GameRow, OfferKind, SeatColumn, WriteOp};

/// The stored state of a live game, and the presence its claims depend on.
#[derive(Debug, Clone)]
pub(super) struct Table {
    pub id: String,
    pub game: Game,
    /// The hashes of the seats' secrets.
    pub seats: [Option<String>; 2],
    pub status: Status,
    /// Bumped by the shell for every change it applies.
    pub version: u64,
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
    /// The rematch once started: its id and, in the room that started it, the new secrets of
    /// this game's White and Black (to hand each player their seat again if they ask; the store
    /// keeps only hashes).
    pub rematch: Option<(String, Option<[String; 2]>)>,
}

/// What a room is asked to decide. The seat has been found from the actor already.
#[derive(Debug)]
pub(super) enum Ask {
    /// Play a turn written in notation.
    Turn { seat: Color, text: String },
    /// Resign, abort or claim.
    End { seat: Color, ending: Ending },
    /// Offer, accept or decline a draw.
    Draw { seat: Color, action: OfferAction },
    /// Ask for, accept or decline a takeback.
    Takeback { seat: Color, action: OfferAction },
    /// Ask for a rematch; `fresh` is what starting one needs.
    Rematch { seat: Color, fresh: Fresh },
    /// Take the empty seat with the secret whose hash is given.
    Join { hash: String },
    /// Close an unfinished game as abandoned (the stale-game sweep).
    Abandon,
    /// End the game if its deadline has passed.
    Expire,
}

/// What starting a rematch needs from outside the core: the new game's id and the secrets of
/// this game's White and Black in it.
#[derive(Debug, Clone)]
pub(super) struct Fresh {
    pub id: String,
    pub secrets: [String; 2],
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
        hash: String,
        clock: Option<Clock>,
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
    Rematch(Fresh),
}

/// A clock as the store keeps it.
pub(super) fn clock_row(clock: &Clock) -> ClockRow {
    ClockRow {
        white_ms: clock.left[Color::White.index()],
        black_ms: clock.left[Color::Black.index()],
        at: clock.since,
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
            Ask::Turn { seat, text } => self.turn(seat, &text, now).map(Some),
            Ask::End { seat, ending } => self.end(seat, ending, now).map(Some),
            Ask::Draw { seat, action } => self.draw(seat, action, now),
            Ask::Takeback { seat, action } => self.takeback(seat, action, now).map(Some),
            Ask::Rematch { seat, fresh } => self.rematch(seat, fresh, now),
            Ask::Join { hash } => self.join(hash, now).map(Some),
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
            Change::Seat { color, hash, clock } => {
                self.seats[color.index()] = Some(hash);
                self.clock = clock;
                self.status = Status::Playing;
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
            Change::Rematch(fresh) => {
                self.rematch_offer = None;
                self.rematch = Some((fresh.id, Some(fresh.secrets)));
            }
        }
        Ok(())
    }

    /// The seat whose secret is `secret`, if any.
    pub fn seat_of_secret(&self, secret: &str) -> Option<Color> {
        Color::BOTH.into_iter().find(|c| {
            self.seats[c.index()]
                .as_deref()
                .is_some_and(|h| secrets::matches(secret, h))
        })
    }

    /// The game is on, and `seat` may act in it.
    fn in_play(&self) -> Result<(), RoomError> {
        match self.status {
            Status::Finished => Err(RoomError::GameOver),
            Status::Waiting => Err(RoomError::NotStarted),
            Status::Playing => Ok(()),
        }
    }

    fn plies(&self) -> usize {
        self.game.turns().len()
    }

    fn turn(&self, seat: Color, text: &str, now: i64) -> Result<Plan, RoomError> {
        self.in_play()?;
        if self.game.to_move() != seat {
            return Err(RoomError::NotYourTurn);
        }
        let variant = self.game.variant();
        let turn = variant
            .parse_turn(text.trim())
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
            notation: checked.notation().clone(),
            at: now,
            clock: clock.map(|c| c.left),
            end: checked.outcome().map(game_end),
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
            },
            change: Change::Finish { outcome, clock },
            lost: RoomError::GameOver,
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

    fn join(&self, hash: String, now: i64) -> Result<Plan, RoomError> {
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
            seat: match color {
                Color::White => SeatColumn::White,
                Color::Black => SeatColumn::Black,
            },
            hash: hash.clone(),
            at: now,
            clock: clock.as_ref().map(clock_row),
        };
        Ok(Plan {
            op,
            change: Change::Seat { color, hash, clock },
            lost: RoomError::SeatsTaken,
        })
    }

    /// A plan to store an offer (or its end) before it shows.
    fn offer(&self, kind: OfferKind, offer: Option<(Color, usize)>, now: i64) -> Plan {
        Plan {
            op: WriteOp::SetOffer {
                id: self.id.clone(),
                kind,
                by: offer.map(|(by, ply)| (by.name().to_string(), ply as i64)),
                at: now,
            },
            change: Change::Offer { kind, offer },
            lost: RoomError::GameOver,
        }
    }

    /// Who made an offer that still stands: made at the current ply, in a game that is on.
    fn standing(&self, offer: Option<(Color, usize)>) -> Option<Color> {
        offer
            .filter(|&(_, ply)| ply == self.plies() && self.status == Status::Playing)
            .map(|(by, _)| by)
    }

    /// The side whose draw offer stands.
    pub fn pending_draw(&self) -> Option<Color> {
        self.standing(self.draw_offer)
    }

    /// The side whose takeback request stands.
    pub fn pending_takeback(&self) -> Option<Color> {
        self.standing(self.takeback_offer)
    }

    fn draw(&self, seat: Color, action: OfferAction, now: i64) -> Result<Option<Plan>, RoomError> {
        self.in_play()?;
        let pending = self.pending_draw();
        let from_opponent = pending == Some(seat.opponent());
        match action {
            OfferAction::Accept | OfferAction::Offer if from_opponent => {
                return Ok(Some(
                    self.finish(Outcome::draw(Termination::Agreement), now),
                ));
            }
            OfferAction::Accept | OfferAction::Decline if !from_opponent => {
                return Err(RoomError::NotAllowed("there is no draw offer to answer"));
            }
            OfferAction::Offer if pending == Some(seat) => {
                return Err(RoomError::NotAllowed(
                    "your draw offer is already on the table",
                ));
            }
            _ => {}
        }
        let offer = (action == OfferAction::Offer).then(|| (seat, self.plies()));
        Ok(Some(self.offer(OfferKind::Draw, offer, now)))
    }

    /// A takeback: asked for by one player, accepted or declined by the other. Accepting undoes
    /// the last turn or two, so that the asker is to move again.
    fn takeback(&self, seat: Color, action: OfferAction, now: i64) -> Result<Plan, RoomError> {
        self.in_play()?;
        let plies = self.plies();
        let pending = self.pending_takeback();
        match action {
            OfferAction::Offer => {
                // The asker's own last turn must exist: White's first turn is ply 0.
                if plies <= usize::from(seat == Color::Black) {
                    return Err(RoomError::NotAllowed("you have no turn to take back"));
                }
                if pending.is_some() {
                    return Err(RoomError::NotAllowed(
                        "a takeback request is already pending",
                    ));
                }
                Ok(self.offer(OfferKind::Takeback, Some((seat, plies)), now))
            }
            OfferAction::Decline if pending == Some(seat.opponent()) => {
                Ok(self.offer(OfferKind::Takeback, None, now))
            }
            OfferAction::Accept if pending == Some(seat.opponent()) => {
                let asker = seat.opponent();
                // Undo until the asker is to move again, having taken back its own last turn.
                let undo = if self.game.to_move() == asker { 2 } else { 1 };
                let keep = plies.saturating_sub(undo);
                let variant = self.game.variant().clone();
                let start = *self.game.start();
                let game = Game::replay(variant, Some(start), &self.game.turn_strings()[..keep])
                    .map_err(|e| RoomError::Unreadable(e.to_string()))?;
                // Time spent is not given back: the clocks stop where they stand, and the
                // asker's runs again from now.
                let clock = self.stopped_clock(now);
                Ok(Plan {
                    op: WriteOp::TakeBack {
                        id: self.id.clone(),
                        from_ply: keep as i64,
                        at: now,
                        clock: clock.as_ref().map(clock_row),
                    },
                    change: Change::TakeBack {
                        game: Box::new(game),
                        clock,
                    },
                    lost: RoomError::GameOver,
                })
            }
            OfferAction::Accept | OfferAction::Decline => Err(RoomError::NotAllowed(
                "there is no takeback request to answer",
            )),
        }
    }

    /// A rematch: offered by one player, started when the other asks too, with colours swapped.
    /// Asked again once started, it changes nothing (the shell hands the seat out again).
    fn rematch(&self, seat: Color, fresh: Fresh, now: i64) -> Result<Option<Plan>, RoomError> {
        if self.status != Status::Finished {
            return Err(RoomError::NotAllowed(
                "a rematch comes after the end of the game",
            ));
        }
        if self.rematch.is_some() || self.rematch_offer == Some(seat) {
            return Ok(None);
        }
        if self.rematch_offer != Some(seat.opponent()) {
            return Ok(Some(self.offer(OfferKind::Rematch, Some((seat, 0)), now)));
        }
        // This game's White plays Black in the rematch, and the other way round.
        let variant = self.game.variant();
        let row = GameRow {
            id: fresh.id.clone(),
            variant: variant.slug().to_string(),
            options: variant.options_string(),
            time_control: self.control.to_string(),
            white_secret_hash: Some(secrets::hash(&fresh.secrets[Color::Black.index()])),
            black_secret_hash: Some(secrets::hash(&fresh.secrets[Color::White.index()])),
            status: Status::Playing.as_str().into(),
            created_at: now,
            updated_at: now,
            version: 2,
            clock: self.start_clock(now).as_ref().map(clock_row),
            ..Default::default()
        };
        Ok(Some(Plan {
            op: WriteOp::StartRematch {
                id: self.id.clone(),
                game: Box::new(row),
            },
            change: Change::Rematch(fresh),
            lost: RoomError::Conflict,
        }))
    }

    /// `seat`'s seat in the rematch, where this room started it (it alone knows the secrets).
    pub fn rematch_seat(&self, seat: Color) -> Option<super::SeatGrant> {
        let (id, secrets) = self.rematch.as_ref()?;
        Some(super::SeatGrant {
            id: id.clone(),
            color: seat.opponent(),
            secret: secrets.as_ref()?[seat.index()].clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use std::collections::BTreeMap;

    const T0: i64 = 1_000_000;

    /// A Six Men's Morris table with both seats taken, untimed, nobody away.
    fn table(control: TimeControl) -> Table {
        let variant = Catalog::builtin()
            .configure("six-mens-morris", &BTreeMap::new())
            .unwrap();
        Table {
            id: "game".into(),
            game: Game::new(variant),
            seats: [Some(secrets::hash("w")), Some(secrets::hash("b"))],
            status: Status::Playing,
            version: 2,
            control,
            clock: control.is_timed().then(|| Clock::start(control, T0)),
            away_since: [None, None],
            absence_ms: Some(30_000),
            draw_offer: None,
            takeback_offer: None,
            rematch_offer: None,
            rematch: None,
        }
    }

    /// Decides and applies, as the shell does when the store accepts every write.
    fn act(table: &mut Table, ask: Ask, now: i64) -> Result<(), RoomError> {
        if let Some(plan) = table.decide(ask, now)? {
            table.apply(plan.change).unwrap();
        }
        Ok(())
    }

    fn turn(seat: Color, text: &str) -> Ask {
        Ask::Turn {
            seat,
            text: text.into(),
        }
    }

    fn fresh() -> Fresh {
        Fresh {
            id: "next".into(),
            secrets: ["w2".into(), "b2".into()],
        }
    }

    #[test]
    fn a_turn_is_a_plan_to_store_and_changes_nothing_until_applied() {
        let table = table(TimeControl::Untimed);
        let plan = table
            .decide(turn(Color::White, " a1 "), T0)
            .unwrap()
            .unwrap();
        match &plan.op {
            WriteOp::AppendTurn {
                ply, notation, end, ..
            } => assert_eq!((*ply, notation.as_str(), end), (0, "a1", &None)),
            other => panic!("not a turn: {other:?}"),
        }
        assert_eq!(plan.lost, RoomError::Conflict);
        assert!(table.game.turns().is_empty(), "deciding changes nothing");
        let mut table = table;
        table.apply(plan.change).unwrap();
        assert_eq!(table.game.turn_strings(), ["a1"]);
    }

    #[test]
    fn turns_are_refused_for_the_right_reasons() {
        let mut table = table(TimeControl::Untimed);
        assert_eq!(
            table.decide(turn(Color::Black, "a1"), T0).unwrap_err(),
            RoomError::NotYourTurn
        );
        assert!(matches!(
            table.decide(turn(Color::White, "zz"), T0),
            Err(RoomError::BadNotation(_))
        ));
        act(&mut table, turn(Color::White, "a1"), T0).unwrap();
        assert!(matches!(
            table.decide(turn(Color::Black, "a1"), T0),
            Err(RoomError::Illegal(_))
        ));
        table.status = Status::Waiting;
        assert_eq!(
            table.decide(turn(Color::Black, "b2"), T0).unwrap_err(),
            RoomError::NotStarted
        );
    }

    #[test]
    fn a_stale_plan_is_refused_when_applied() {
        let mut table = table(TimeControl::Untimed);
        let first = table.decide(turn(Color::White, "a1"), T0).unwrap().unwrap();
        let again = table.decide(turn(Color::White, "a3"), T0).unwrap().unwrap();
        table.apply(first.change).unwrap();
        assert_eq!(table.apply(again.change), Err(Stale));
        assert_eq!(table.game.turn_strings(), ["a1"]);
    }

    #[test]
    fn resigning_aborting_and_claiming() {
        let mut table = table(TimeControl::Untimed);
        let abort = Ask::End {
            seat: Color::Black,
            ending: Ending::Abort,
        };
        assert!(table.decide(abort, T0).is_ok(), "before both have moved");
        act(&mut table, turn(Color::White, "a1"), T0).unwrap();
        act(&mut table, turn(Color::Black, "b2"), T0).unwrap();
        let abort = Ask::End {
            seat: Color::Black,
            ending: Ending::Abort,
        };
        assert!(matches!(
            table.decide(abort, T0),
            Err(RoomError::NotAllowed(_))
        ));
        // White is to move; gone since T0, Black may claim 30 s later, not before.
        table.away_since[Color::White.index()] = Some(T0);
        let claim = |seat| Ask::End {
            seat,
            ending: Ending::ClaimWin,
        };
        assert!(matches!(
            table.decide(claim(Color::Black), T0 + 29_999),
            Err(RoomError::NotAllowed(_))
        ));
        assert!(matches!(
            table.decide(claim(Color::White), T0 + 30_000),
            Err(RoomError::NotAllowed(_))
        ));
        act(&mut table, claim(Color::Black), T0 + 30_000).unwrap();
        let outcome = table.game.outcome().unwrap();
        assert_eq!(
            (outcome.winner, outcome.termination, table.status),
            (
                Some(Color::Black),
                Termination::Abandonment,
                Status::Finished
            )
        );
        let resign = Ask::End {
            seat: Color::White,
            ending: Ending::Resign,
        };
        assert_eq!(table.decide(resign, T0).unwrap_err(), RoomError::GameOver);
    }

    #[test]
    fn a_draw_offer_stands_until_the_next_turn_and_accepting_ends_the_game() {
        let mut table = table(TimeControl::Untimed);
        let draw = |seat, action| Ask::Draw { seat, action };
        act(&mut table, draw(Color::White, OfferAction::Offer), T0).unwrap();
        assert_eq!(table.pending_draw(), Some(Color::White));
        assert!(matches!(
            table.decide(draw(Color::White, OfferAction::Offer), T0),
            Err(RoomError::NotAllowed(_))
        ));
        act(&mut table, turn(Color::White, "a1"), T0).unwrap();
        assert_eq!(table.pending_draw(), None, "lapsed with the turn");
        act(&mut table, draw(Color::Black, OfferAction::Offer), T0).unwrap();
        act(&mut table, draw(Color::White, OfferAction::Accept), T0).unwrap();
        assert_eq!(
            table.game.outcome().map(|o| o.termination),
            Some(Termination::Agreement)
        );
    }

    #[test]
    fn an_accepted_takeback_gives_the_asker_the_move_again() {
        let mut table = table(TimeControl::Untimed);
        let takeback = |seat, action| Ask::Takeback { seat, action };
        assert!(matches!(
            table.decide(takeback(Color::White, OfferAction::Offer), T0),
            Err(RoomError::NotAllowed(_))
        ));
        for (seat, t) in [
            (Color::White, "a1"),
            (Color::Black, "b2"),
            (Color::White, "d2"),
        ] {
            act(&mut table, turn(seat, t), T0).unwrap();
        }
        act(&mut table, takeback(Color::Black, OfferAction::Offer), T0).unwrap();
        let plan = table
            .decide(takeback(Color::White, OfferAction::Accept), T0)
            .unwrap()
            .unwrap();
        assert!(matches!(plan.op, WriteOp::TakeBack { from_ply: 1, .. }));
        table.apply(plan.change).unwrap();
        assert_eq!(table.game.turn_strings(), ["a1"]);
        assert_eq!(table.game.to_move(), Color::Black);
        assert_eq!(table.pending_takeback(), None);
    }

    #[test]
    fn a_rematch_starts_when_both_ask_with_colours_swapped() {
        let mut table = table(TimeControl::Untimed);
        let rematch = |seat| Ask::Rematch {
            seat,
            fresh: fresh(),
        };
        assert!(matches!(
            table.decide(rematch(Color::White), T0),
            Err(RoomError::NotAllowed(_))
        ));
        act(
            &mut table,
            Ask::End {
                seat: Color::White,
                ending: Ending::Resign,
            },
            T0,
        )
        .unwrap();
        act(&mut table, rematch(Color::White), T0).unwrap();
        assert_eq!(table.rematch_offer, Some(Color::White));
        assert!(
            table.decide(rematch(Color::White), T0).unwrap().is_none(),
            "asking twice stores nothing"
        );
        let plan = table.decide(rematch(Color::Black), T0).unwrap().unwrap();
        let WriteOp::StartRematch { game, .. } = &plan.op else {
            panic!("not a rematch: {:?}", plan.op);
        };
        // This game's White ("w2") sits as Black in the new one.
        assert_eq!(game.black_secret_hash, Some(secrets::hash("w2")));
        table.apply(plan.change).unwrap();
        let seat = table.rematch_seat(Color::White).unwrap();
        assert_eq!((seat.id.as_str(), seat.color), ("next", Color::Black));
        assert_eq!(seat.secret, "w2");
    }

    #[test]
    fn the_second_seat_starts_the_game_and_its_clocks() {
        let mut table = table(TimeControl::parse("3+2").unwrap());
        table.status = Status::Waiting;
        table.seats[Color::Black.index()] = None;
        table.clock = None;
        act(&mut table, Ask::Join { hash: "h".into() }, T0 + 5).unwrap();
        assert_eq!(table.status, Status::Playing);
        assert_eq!(table.clock.map(|c| c.since), Some(T0 + 5));
        assert_eq!(
            table
                .decide(Ask::Join { hash: "x".into() }, T0)
                .unwrap_err(),
            RoomError::SeatsTaken
        );
    }

    #[test]
    fn a_flag_falls_at_the_deadline_not_when_it_is_noticed() {
        let mut table = table(TimeControl::parse("1+0").unwrap());
        act(&mut table, turn(Color::White, "a1"), T0).unwrap();
        act(&mut table, turn(Color::Black, "b2"), T0 + 1_000).unwrap();
        assert!(table.decide(Ask::Expire, T0 + 60_999).unwrap().is_none());
        let plan = table.decide(Ask::Expire, T0 + 90_000).unwrap().unwrap();
        assert!(matches!(plan.op, WriteOp::Finish { at, .. } if at == T0 + 61_000));
        table.apply(plan.change).unwrap();
        let outcome = table.game.outcome().unwrap();
        assert_eq!(
            (outcome.winner, outcome.termination),
            (Some(Color::Black), Termination::Time)
        );
        assert_eq!(table.clock.unwrap().left[Color::White.index()], 0);
    }
}
