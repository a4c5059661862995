//! Offers, part of the decision core: draws, takebacks and rematches, each stored before it
//! shows and lapsing when the game moves on.

use super::RoomError;
use super::core::{Change, Plan, Table, clock_row};
use super::{Holder, OfferAction, SeatGrant};
use crate::protocol::Status;
use crate::rules::{Color, Game, Outcome, Termination};
use crate::store::{GameRow, OfferKind, WriteOp};

impl Table {
    /// A plan to store an offer (or its end) before it shows.
    fn offer(&self, kind: OfferKind, offer: Option<(Color, usize)>, now: i64) -> Plan {
        Plan {
            op: WriteOp::SetOffer {
                id: self.id.clone(),
                kind,
                by: offer.map(|(by, ply)| (by.name().to_string(), ply as i64)),
                at: now,
                seen: self.seen(),
                epoch: self.epoch,
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

    /// The side whose draw offer stands. As on lichess, it stands until the opponent has
    /// answered or played their next turn: one made on the offerer's own turn outlives the
    /// turn the offerer then plays.
    pub fn pending_draw(&self) -> Option<Color> {
        let (by, ply) = self.draw_offer?;
        // Made at this ply, or at the last if that turn was the offerer's own.
        let last_was_offerers = self.game.to_move() == by.opponent();
        let stands = ply == self.plies() || (ply + 1 == self.plies() && last_was_offerers);
        (stands && self.status == Status::Playing).then_some(by)
    }

    /// The side whose takeback request stands.
    pub fn pending_takeback(&self) -> Option<Color> {
        self.standing(self.takeback_offer)
    }

    pub(super) fn draw(
        &self,
        seat: Color,
        action: OfferAction,
        now: i64,
    ) -> Result<Option<Plan>, RoomError> {
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
    pub(super) fn takeback(
        &self,
        seat: Color,
        action: OfferAction,
        now: i64,
    ) -> Result<Plan, RoomError> {
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
                        seen: self.seen(),
                        epoch: self.epoch,
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
    pub(super) fn rematch(&self, seat: Color, now: i64) -> Result<Option<Plan>, RoomError> {
        if self.status != Status::Finished {
            return Err(RoomError::NotAllowed(
                "a rematch comes after the end of the game",
            ));
        }
        // A game called off before anyone took the other seat has nobody to play again.
        if self.seats[seat.opponent().index()].is_none() {
            return Err(RoomError::NotAllowed(
                "nobody took the other seat: there is nobody to play again",
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
            id: self.rematch_id.clone(),
            variant: variant.slug().to_string(),
            options: variant.options_string(),
            time_control: self.control.to_string(),
            // Each player keeps the secret they hold: the seats are its hash, colours swapped.
            white_secret_hash: self.seats[Color::Black.index()]
                .as_ref()
                .map(Holder::column),
            black_secret_hash: self.seats[Color::White.index()]
                .as_ref()
                .map(Holder::column),
            // And the name they go by.
            white_name: self.name_row(Color::Black),
            black_name: self.name_row(Color::White),
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
                seen: self.seen(),
                epoch: self.epoch,
            },
            change: Change::Rematch,
            lost: RoomError::Conflict,
        }))
    }

    /// Declines the opponent's rematch offer: stored, then gone for both (either may ask again).
    pub(super) fn decline_rematch(&self, seat: Color, now: i64) -> Result<Plan, RoomError> {
        if self.status != Status::Finished
            || self.rematch.is_some()
            || self.rematch_offer != Some(seat.opponent())
        {
            return Err(RoomError::NotAllowed("there is no rematch offer to answer"));
        }
        Ok(self.offer(OfferKind::Rematch, None, now))
    }

    /// `seat`'s seat in the rematch, for the player who holds `secret` here: the same secret.
    pub fn rematch_seat(&self, seat: Color, secret: String) -> Option<SeatGrant> {
        Some(SeatGrant {
            id: self.rematch.clone()?,
            color: seat.opponent(),
            secret,
        })
    }
}
