//! Moving a seat to another device with a one-time code: the holder asks for a code, the other
//! device opens the link that carries it, and the code is exchanged, once and within minutes, for
//! the seat. The seat's secret never appears in a link: the store keeps only the code's hash and
//! the secret sealed under the code.
//!
//! A code either moves the seat (the default: the seat gets a new secret, given to the other
//! device; the old one stops working and its connections are closed with 4410) or, asked for
//! with `keep`, opens the same seat on the other device too, the first keeping it.

use super::command::Command;
use super::{RoomError, Rooms, SeatGrant, secrets};
use crate::store::{HandoffRow, WriteOp};
use crate::time::room_ms;

impl Rooms {
    /// A new one-time code that moves the seat `secret` holds in game `id` to another device
    /// (or, if `keeps`, opens it there too).
    pub async fn hand_off(
        &self,
        id: &str,
        secret: Option<String>,
        keeps: bool,
    ) -> Result<String, RoomError> {
        let Some(secret) = secret else {
            return Err(RoomError::Unauthenticated);
        };
        if self.seat_of(id, Some(secret.clone())).await?.is_none() {
            return Err(RoomError::NotSeated);
        }
        let code = secrets::new_code();
        let now = room_ms();
        let row = HandoffRow {
            code_hash: secrets::hash(&code),
            game_id: id.to_string(),
            sealed: secrets::seal(&secret, &code),
            expires_at: now + self.inner.config.handoff.as_millis() as i64,
            keeps,
        };
        let op = WriteOp::PutHandoff {
            code: Box::new(row),
            now,
        };
        if !self.store().write(op).await? {
            self.metrics().limit("handoff_codes");
            return Err(RoomError::NotAllowed(
                "too many hand-off links are waiting to be used: try again in a few minutes",
            ));
        }
        Ok(code)
    }

    /// Exchanges a code for the seat it carries in game `id`, for `browser`: once, before it
    /// expires. A code that moves the seat gives it a new secret (the old holder's stops
    /// working); one that keeps it gives the same secret. Answers the seat and whether it moved;
    /// `None` for a code that is unknown, used, expired, or another game's.
    pub async fn take_handoff(
        &self,
        id: &str,
        code: &str,
        browser: &str,
    ) -> Result<Option<(SeatGrant, bool)>, RoomError> {
        let now = room_ms();
        let code_hash = secrets::hash(code);
        let Some(row) = self.store().handoff(&code_hash, now).await? else {
            return Ok(None);
        };
        let Some(secret) = secrets::unseal(&row.sealed, code) else {
            return Ok(None);
        };
        if row.game_id != id
            || !self
                .store()
                .write(WriteOp::TakeHandoff { code_hash, now })
                .await?
        {
            return Ok(None);
        }
        if !row.keeps {
            let hash = secrets::hash(&secret);
            let browser = browser.to_string();
            return match self
                .call(id, |reply| Command::MoveSeat {
                    hash: hash.clone(),
                    browser: browser.clone(),
                    reply,
                })
                .await
            {
                Ok(grant) => Ok(Some((grant, true))),
                // The seat moved already (by another code): this one carried a dead secret.
                Err(RoomError::NotSeated) => Ok(None),
                Err(e) => Err(e),
            };
        }
        let Some(color) = self.seat_of(id, Some(secret.clone())).await? else {
            return Ok(None);
        };
        self.hold_seat(browser, id, color).await?;
        let grant = SeatGrant {
            id: id.to_string(),
            color,
            secret,
        };
        Ok(Some((grant, false)))
    }
}
