//! What the writer can be given: one [`WriteOp`] per kind of write, with the seat and offer
//! columns they name. How each is written is [`super::ops`]'s.

use super::{ChatRow, ClockRow, GameEnd, GameRow, HandoffRow};
#[cfg(doc)]
use super::{HANDOFF_CODES_PER_GAME, StoredGame, holders};
use compact_str::CompactString;

/// Which seat column a write touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatColumn {
    /// `white_secret_hash`.
    White,
    /// `black_secret_hash`.
    Black,
}

impl SeatColumn {
    /// The seat's name as `seat_holders` keeps it: its colour's ([`crate::rules::Color::name`]).
    pub fn name(self) -> &'static str {
        match self {
            SeatColumn::White => crate::rules::Color::White.name(),
            SeatColumn::Black => crate::rules::Color::Black.name(),
        }
    }
}

/// The offers a game stores while they stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfferKind {
    /// A draw offer (while the game is on).
    Draw,
    /// A takeback request (while the game is on).
    Takeback,
    /// A rematch offer (after the end).
    Rematch,
}

/// One write, applied in a batch by the writer. Each one that takes effect bumps the game's
/// version ([`StoredGame::version`]) by one; a new game starts at the number of seats it fills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteOp {
    /// A new game. (Its row is boxed, as in [`WriteOp::StartRematch`]: it is several times the
    /// size of the other writes, and a turn, the write made most, need not carry room for it.)
    CreateGame(Box<GameRow>),
    /// Takes an empty seat; false if it was taken already.
    ClaimSeat {
        /// The game.
        id: String,
        /// The game's version as the writer last saw it ([`StoredGame::version`]): the write
        /// is refused unless the game is still at it.
        seen: i64,
        /// The seat.
        seat: SeatColumn,
        /// Hash of the new secret.
        hash: String,
        /// The name the new player gave, if any.
        name: Option<String>,
        /// When.
        at: i64,
        /// The clocks, started as this seat fills the game (timed games).
        clock: Option<ClockRow>,
        /// The epoch of the room that decided it: the write is refused unless its game is still
        /// at that epoch (no other owner took the game since).
        epoch: i64,
    },
    /// Stores a turn at its ply, and the end if it ended the game; false if the ply was taken.
    AppendTurn {
        /// The game. (Inline strings here: this is the write made most often, and an id or a
        /// turn is short enough to need no allocation.)
        id: CompactString,
        /// The game's version as the writer last saw it ([`StoredGame::version`]): the write
        /// is refused unless the game is still at it.
        seen: i64,
        /// 0-based ply.
        ply: i64,
        /// The turn in notation.
        notation: CompactString,
        /// When.
        at: i64,
        /// In a timed game, both clocks (White's, Black's) right after the turn.
        clock: Option<[i64; 2]>,
        /// The end this turn brought.
        end: Option<GameEnd>,
        /// The epoch of the room that decided it: the write is refused unless its game is still
        /// at that epoch (no other owner took the game since).
        epoch: i64,
    },
    /// Sets or clears a pending offer: a draw or takeback of an unfinished game, a rematch of a
    /// finished one; false if the game is not in that state.
    SetOffer {
        /// The game.
        id: String,
        /// The game's version as the writer last saw it ([`StoredGame::version`]): the write
        /// is refused unless the game is still at it.
        seen: i64,
        /// Which offer.
        kind: OfferKind,
        /// The side offering and the ply, or `None` to clear.
        by: Option<(String, i64)>,
        /// When.
        at: i64,
        /// The epoch of the room that decided it: the write is refused unless its game is still
        /// at that epoch (no other owner took the game since).
        epoch: i64,
    },
    /// Takes back every turn from `from_ply` on (an accepted takeback), clearing the offers;
    /// false if the game ended.
    TakeBack {
        /// The game.
        id: String,
        /// The game's version as the writer last saw it ([`StoredGame::version`]): the write
        /// is refused unless the game is still at it.
        seen: i64,
        /// The first ply removed.
        from_ply: i64,
        /// When.
        at: i64,
        /// The clocks as they stood when the takeback was accepted (timed games).
        clock: Option<ClockRow>,
        /// The epoch of the room that decided it: the write is refused unless its game is still
        /// at that epoch (no other owner took the game since).
        epoch: i64,
    },
    /// Ends a game for a reason off the board; false if it had ended already.
    Finish {
        /// The game.
        id: String,
        /// The game's version as the writer last saw it ([`StoredGame::version`]): the write
        /// is refused unless the game is still at it.
        seen: i64,
        /// How it ended.
        end: GameEnd,
        /// When.
        at: i64,
        /// The clocks as they stood at the end (timed games).
        clock: Option<ClockRow>,
        /// The epoch of the room that decided it: the write is refused unless its game is still
        /// at that epoch (no other owner took the game since).
        epoch: i64,
    },
    /// A line of chat; false if its number was taken or is not the next (another writer was
    /// first). A chat is not part of the game: its lines leave the version alone.
    Chat {
        /// The line.
        line: Box<ChatRow>,
        /// The number of the oldest line of its chat to keep: those before it were pushed out
        /// by this one, and are deleted with its write.
        keep_from: i64,
        /// The epoch of the room that decided it: the write is refused unless its game is still
        /// at that epoch (no other owner took the game since).
        epoch: i64,
    },
    /// Names a seat's player (or names them anew); false if the game moved on meanwhile.
    SetName {
        /// The game.
        id: String,
        /// The game's version as the writer last saw it ([`StoredGame::version`]): the write
        /// is refused unless the game is still at it.
        seen: i64,
        /// The seat.
        seat: SeatColumn,
        /// The name, checked already (by the protocol's `PlayerName`).
        name: String,
        /// The epoch of the room that decided it: the write is refused unless its game is still
        /// at that epoch (no other owner took the game since).
        epoch: i64,
    },
    /// Stores a one-time hand-off code (clearing the expired ones); false if its game has as
    /// many live codes as it may ([`HANDOFF_CODES_PER_GAME`]).
    PutHandoff {
        /// The code.
        code: Box<HandoffRow>,
        /// Now (ms): codes expired by then are cleared.
        now: i64,
    },
    /// Takes a code, once: false if it was taken already or expired by `now`.
    TakeHandoff {
        /// Hex SHA-256 of the code.
        code_hash: String,
        /// Now (ms).
        now: i64,
    },
    /// Moves a seat to another browser (a hand-off that moves it): its secret is replaced, and
    /// the browsers that held it make way for the new one; false unless the seat still has the
    /// old secret.
    MoveSeat {
        /// The game.
        id: String,
        /// The game's version as the writer last saw it ([`StoredGame::version`]): the write
        /// is refused unless the game is still at it.
        seen: i64,
        /// The seat.
        seat: SeatColumn,
        /// Hash of the secret it has now.
        from_hash: String,
        /// Hash of its new secret.
        to_hash: String,
        /// The browser that holds it now ([`holders`]).
        browser: String,
        /// When.
        at: i64,
        /// The epoch of the room that decided it: the write is refused unless its game is still
        /// at that epoch (no other owner took the game since).
        epoch: i64,
    },
    /// Starts the rematch of a finished game: stores the new game and links the old one to it;
    /// false if the old game already has a rematch.
    StartRematch {
        /// The finished game.
        id: String,
        /// The game's version as the writer last saw it ([`StoredGame::version`]): the write
        /// is refused unless the game is still at it.
        seen: i64,
        /// The new game, both seats taken.
        game: Box<GameRow>,
        /// The epoch of the room that decided it: the write is refused unless its game is still
        /// at that epoch (no other owner took the game since).
        epoch: i64,
    },
}
