//! Why a room refused something: one error for every command, turned into status and close
//! codes by the transports, in one place each.

use crate::protocol::ErrorCode;
use crate::store::StoreError;

/// Why a room refused an action. The transports turn these into status codes and error
/// messages, in one place each.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RoomError {
    /// No game with this id.
    #[error("no such game")]
    NotFound,
    /// An unknown variant, option or value.
    #[error("{0}")]
    BadVariant(String),
    /// The action needs a seat secret and none was given.
    #[error("this needs your seat's secret")]
    Unauthenticated,
    /// The secret is wrong, or the sender only watches.
    #[error("only the seated players may do that")]
    NotSeated,
    /// Both seats are taken.
    #[error("both seats are taken; you can watch")]
    SeatsTaken,
    /// A seat is still empty.
    #[error("the game starts when both seats are taken")]
    NotStarted,
    /// It is the other player's turn.
    #[error("it is not your turn")]
    NotYourTurn,
    /// The game has ended.
    #[error("the game is over")]
    GameOver,
    /// The action is not allowed now; the reason in words.
    #[error("{0}")]
    NotAllowed(&'static str),
    /// The turn is not notation.
    #[error("{0}")]
    BadNotation(String),
    /// The turn breaks the rules; the reason in words.
    #[error("illegal turn: {0}")]
    Illegal(String),
    /// Another writer changed the game first (another server, or a copy of the game that was
    /// stale); the store refused the write and the room reloaded.
    #[error(
        "the game changed before this was stored (another writer was first); here is the game as it stands"
    )]
    Conflict,
    /// The store failed; nothing changed.
    #[error("the game could not be saved, nothing changed: {0}")]
    Store(#[from] StoreError),
    /// What the store holds for the game does not replay under the rules.
    #[error("the stored game cannot be read: {0}")]
    Unreadable(String),
    /// The address has created all the games it may this minute.
    #[error("at most {0} new games a minute from one address; try again shortly")]
    RateLimited(u32),
    /// The address has started all the games against the computer it may this hour.
    #[error("at most {0} new games against the computer an hour from one address; try again later")]
    ComputerRateLimited(u32),
    /// The address has as many open challenges listed as it may.
    #[error(
        "at most {0} open challenges listed at a time from one address; cancel one, or wait for an opponent"
    )]
    TooManyChallenges(i64),
    /// A chat line longer than the protocol allows.
    #[error("a chat line is at most {0} characters")]
    ChatTooLong(usize),
    /// A speaker said too many lines in a short time.
    #[error("at most {0} chat lines in {1} s: wait a moment")]
    ChatTooFast(usize, i64),
    /// An address said too much in the chats of late, over all its sockets and games.
    #[error("too much chat from your address of late: wait a moment")]
    ChatFlood,
    /// The seat this connection held was moved to another device (a hand-off): its secret no
    /// longer works here.
    #[error("your seat moved to another device; you can watch here")]
    SeatMoved,
    /// The server is shutting down.
    #[error("the server is restarting; reconnect shortly")]
    Unavailable,
    /// The address has as many analyses under way as it may.
    #[error("at most {0} analyses at a time from one address; wait for one to finish")]
    TooManyAnalyses(u32),
    /// The analysis threads have all the work they can finish in time.
    #[error("the server is analysing all it can; try again shortly")]
    AnalysesBusy,
}

impl RoomError {
    /// The protocol's word for this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            RoomError::NotFound => ErrorCode::NotFound,
            RoomError::BadVariant(_) => ErrorCode::BadVariant,
            RoomError::Unauthenticated => ErrorCode::Unauthenticated,
            RoomError::NotSeated => ErrorCode::NotSeated,
            RoomError::SeatsTaken => ErrorCode::SeatsTaken,
            RoomError::NotStarted => ErrorCode::NotStarted,
            RoomError::NotYourTurn => ErrorCode::NotYourTurn,
            RoomError::GameOver => ErrorCode::GameOver,
            RoomError::NotAllowed(_) => ErrorCode::NotAllowed,
            RoomError::BadNotation(_) => ErrorCode::BadNotation,
            RoomError::Illegal(_) => ErrorCode::IllegalTurn,
            RoomError::Conflict => ErrorCode::Conflict,
            RoomError::Store(e) if e.is_outage() => ErrorCode::Unavailable,
            RoomError::Store(_) | RoomError::Unreadable(_) => ErrorCode::Internal,
            RoomError::RateLimited(_)
            | RoomError::ComputerRateLimited(_)
            | RoomError::TooManyChallenges(_)
            | RoomError::ChatTooFast(..)
            | RoomError::ChatFlood
            | RoomError::TooManyAnalyses(_)
            | RoomError::AnalysesBusy => ErrorCode::RateLimited,
            RoomError::ChatTooLong(_) => ErrorCode::TooLarge,
            RoomError::Unavailable => ErrorCode::Unavailable,
            RoomError::SeatMoved => ErrorCode::SeatMoved,
        }
    }
}
