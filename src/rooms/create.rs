//! Making a game: the creator's allowances (games a minute, games against the computer an hour,
//! open challenges listed at once), the first row, and its room started from it.

use super::command::Command;
use super::{ColorChoice, Opponent, RoomError, Rooms, SeatGrant, secrets};
use crate::catalog::CatalogError;
use crate::clock::TimeControl;
use crate::protocol::PlayerName;
use crate::rules::Color;
use crate::store::{GameRow, StoredGame, WriteOp};
use crate::time::room_ms;
use std::collections::BTreeMap;
use std::net::IpAddr;

/// What an address is known by where it is stored (the maker of an open challenge): its hash,
/// never the address itself.
fn address_key(from: IpAddr) -> String {
    secrets::hash(&from.to_canonical().to_string())
}

impl Rooms {
    /// Creates a game with the creator seated, and the computer in the other seat when it is the
    /// opponent; durable before it returns.
    // Each argument is one of the creator's choices, as the API takes them.
    #[allow(clippy::too_many_arguments)]
    pub async fn create(
        &self,
        from: IpAddr,
        variant: &str,
        options: &BTreeMap<String, String>,
        time_control: TimeControl,
        color: ColorChoice,
        opponent: Opponent,
        name: Option<PlayerName>,
    ) -> Result<SeatGrant, RoomError> {
        if self.inner.shutdown.is_cancelled() {
            return Err(RoomError::Unavailable);
        }
        let configured = self
            .inner
            .catalog
            .configure(variant, options)
            .map_err(|e: CatalogError| RoomError::BadVariant(e.to_string()))?;
        let at = room_ms();
        // An open challenge names the address that made it (hashed): one address lists only
        // a few at a time.
        let created_from = (opponent == Opponent::Anyone).then(|| address_key(from));
        if let Some(key) = &created_from {
            let config = &self.inner.config;
            let since = at - config.challenge_expiry.as_millis() as i64;
            let listed = self.inner.store.challenges_from(key, at, since).await?;
            if listed >= crate::store::CHALLENGES_PER_ADDRESS {
                self.metrics().limit("challenges_per_address");
                return Err(RoomError::TooManyChallenges(
                    crate::store::CHALLENGES_PER_ADDRESS,
                ));
            }
        }
        self.charge(from, matches!(opponent, Opponent::Computer(_)))?;
        let color = match color {
            ColorChoice::White => Color::White,
            ColorChoice::Black => Color::Black,
            ColorChoice::Random if secrets::coin() => Color::White,
            ColorChoice::Random => Color::Black,
        };
        let secret = secrets::new_secret();
        let hash = Some(secrets::hash(&secret));
        let name_of = |c: Color| name.as_ref().filter(|_| c == color).map(|n| n.to_string());
        // Listed from now: the creator is on their way to the game's page.
        let listed_until = created_from
            .as_ref()
            .map(|_| at + self.inner.config.challenge_grace.as_millis() as i64);
        loop {
            let id = secrets::new_id(at);
            let row = GameRow {
                id: id.clone(),
                variant: configured.slug().to_string(),
                options: configured.options_string(),
                time_control: time_control.to_string(),
                white_secret_hash: hash.clone().filter(|_| color == Color::White),
                black_secret_hash: hash.clone().filter(|_| color == Color::Black),
                white_name: name_of(Color::White),
                black_name: name_of(Color::Black),
                status: "waiting".into(),
                created_at: at,
                updated_at: at,
                version: 1,
                open_challenge: opponent == Opponent::Anyone,
                listed_until,
                created_from: created_from.clone(),
                // Made here, run here: its room starts on this instance, with the first epoch.
                owner: Some(self.inner.lease.me.instance.clone()),
                epoch: 1,
                ..GameRow::default()
            };
            // A taken id (90 random bits within one millisecond) would be a miracle; draw again
            // rather than fail.
            if self
                .inner
                .store
                .write(WriteOp::CreateGame(Box::new(row.clone())))
                .await?
            {
                // Its room starts now, from the row just written rather than reading it back:
                // the first player's friend is about to open the link.
                let stored = StoredGame {
                    game: row,
                    turns: Vec::new(),
                };
                self.start(&id, Some(stored));
                if let Opponent::Computer(level) = opponent {
                    self.call(&id, |reply| Command::SeatComputer { level, reply })
                        .await?;
                }
                return Ok(SeatGrant { id, color, secret });
            }
        }
    }

    /// Takes one new game from `from`'s allowance, and one from its allowance of games against
    /// the computer when it is one, or refuses (and counts the refusal). The minute's cap goes
    /// first: a game it refuses does not spend the hour's, which refills slower.
    pub(super) fn charge(&self, from: IpAddr, computer: bool) -> Result<(), RoomError> {
        let config = &self.inner.config;
        if !self.inner.cap.charge(from) {
            self.metrics().limit("games_per_minute");
            return Err(RoomError::RateLimited(config.games_per_minute.max(1)));
        }
        if computer && !self.inner.computer_cap.charge(from) {
            self.metrics().limit("computer_games_per_hour");
            return Err(RoomError::ComputerRateLimited(
                config.computer_games_per_hour.max(1),
            ));
        }
        Ok(())
    }
}
