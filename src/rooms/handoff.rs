//! Moving a seat to another device with a one-time code: the holder asks for a code, the other
//! device opens the link that carries it, and the code is exchanged, once and within minutes, for
//! the seat. The seat's secret never appears in a link: the store keeps only the code's hash and
//! the secret sealed under the code.

use super::{RoomError, Rooms, secrets};
use crate::store::{HandoffRow, WriteOp};
use crate::time::room_ms;

impl Rooms {
    /// A new one-time code that moves the seat `secret` holds in game `id` to another device.
    pub async fn hand_off(&self, id: &str, secret: Option<String>) -> Result<String, RoomError> {
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

    /// Exchanges a code for the secret of the seat it moves in game `id`: once, before it
    /// expires. `None` for a code that is unknown, used, expired, or another game's.
    pub async fn take_handoff(&self, id: &str, code: &str) -> Result<Option<String>, RoomError> {
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
        Ok(self
            .seat_of(id, Some(secret.clone()))
            .await?
            .map(|_| secret))
    }
}
