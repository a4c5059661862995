//! The messages between browser (or bot) and server, typed in each direction and parsed at the
//! edge. JSON, internally tagged by `type`. Documented with an example exchange in
//! `docs/protocol.md`; [`PROTOCOL_VERSION`] changes whenever a message changes shape.
//!
//! A client gets the whole game ([`GameState`], the `state` message) when it connects, asks
//! again, or finds it skipped a change; every change after that is an `update`, a
//! [`Snapshot`] whose size does not grow with the game, with a version number that tells the
//! client whether it missed one. Each message is one typed value, encoded once and shared as
//! bytes by every recipient.

mod chat;
mod client;
mod mine;
mod name;
mod state;

pub use crate::catalog::{Geometry, GeometryPoint};
use crate::rules::Color;
pub use chat::{CHAT_MAX_CHARS, ChatCounts, ChatLine, ChatRoom, Hearing, room_of};
pub use client::{ClientMessage, ParseError};
use compact_str::CompactString;
pub use mine::{MyGame, MyGames};
pub use name::{NAME_MAX_CHARS, NameError, PlayerName};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
pub use state::{ClaimView, ClockView, GameState, Men, Snapshot, TurnView};
use std::sync::Arc;

/// The protocol's version, sent in every `hello`.
pub const PROTOCOL_VERSION: u32 = 6;

/// Where a game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// A seat is still empty.
    Waiting,
    /// Both seats are taken and the game is on.
    Playing,
    /// The game has ended.
    Finished,
}

impl Status {
    /// The word stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Waiting => "waiting",
            Status::Playing => "playing",
            Status::Finished => "finished",
        }
    }

    /// Reads the stored word.
    pub fn parse(s: &str) -> Option<Status> {
        [Status::Waiting, Status::Playing, Status::Finished]
            .into_iter()
            .find(|st| st.as_str() == s)
    }
}

/// A value for each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Sides<T> {
    /// White's.
    pub white: T,
    /// Black's.
    pub black: T,
}

impl<T> Sides<T> {
    /// Builds both from a function of the colour.
    pub fn from_fn(mut f: impl FnMut(Color) -> T) -> Sides<T> {
        Sides {
            white: f(Color::White),
            black: f(Color::Black),
        }
    }

    /// The value of one side.
    pub fn get(&self, color: Color) -> &T {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }
}

/// A seat as everyone may see it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SeatView {
    /// Someone holds the seat.
    pub taken: bool,
    /// The holder has a live connection (the computer always has).
    pub connected: bool,
    /// The name the holder gave, if any: a label, not an identity (clients show it as text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<PlayerName>,
    /// The computer holds the seat: its level and how long it thought about its last turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computer: Option<ComputerView>,
}

/// The computer in a seat, as clients show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComputerView {
    /// Its level, 1 (beginner) to 6 (master).
    pub level: u8,
    /// The level's name (`beginner` ... `master`).
    pub name: CompactString,
    /// Milliseconds it thought about its last turn; none before its first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_ms: Option<u64>,
    /// While its perfect play for this board (the solved table) is being prepared: about how
    /// many seconds are left. It plays from its search until then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preparing_s: Option<u64>,
}

/// The engine's judgement of a game, turn by turn: a stored game's once it is over
/// (`GET /api/games/{id}/analysis`), or turns sent in (`GET /api/analysis?variant=...`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Analysis {
    /// The stored game's id; none for turns sent in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<CompactString>,
    /// The values are exact (a solved board) rather than a search's.
    pub exact: bool,
    /// The board has a solved table, but none is ready on this server (an analysis builds
    /// none): a search judged it instead.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub table_missing: bool,
    /// Every turn played, in order.
    pub turns: Vec<TurnJudgement>,
}

/// What the engine makes of one turn. The judgement's fields are absent for a turn the analysis
/// did not reach in its time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnJudgement {
    /// The 0-based ply.
    pub ply: usize,
    /// Who played it.
    pub side: Color,
    /// The turn played.
    pub turn: CompactString,
    /// The engine's best turn in the position before it, in notation and in its parts (for
    /// drawing it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best: Option<TurnView>,
    /// What that position was worth for the side to move (`win in 7`, `draw`, `+0.35`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<CompactString>,
    /// What the turn played was worth for the side that played it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub played: Option<CompactString>,
    /// `blunder` (a result thrown away, or two men) or `mistake` (more than half a man).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark: Option<CompactString>,
}

/// What kind of error a client is told about. Every transport uses these words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The message was not JSON, or not of the protocol.
    Malformed,
    /// A message type the protocol does not have.
    UnknownType,
    /// The message exceeded the size limit.
    TooLarge,
    /// Too many messages or requests in a short time.
    RateLimited,
    /// No such game.
    NotFound,
    /// The action needs a seat: a spectator or a wrong secret.
    NotSeated,
    /// No secret was presented.
    Unauthenticated,
    /// It is the other player's turn.
    NotYourTurn,
    /// The game has ended.
    GameOver,
    /// The game has not started: a seat is still empty.
    NotStarted,
    /// Both seats are taken.
    SeatsTaken,
    /// The action is not allowed at this point of the game.
    NotAllowed,
    /// A change asked (or a WebSocket opened) from a page of another site.
    ForbiddenOrigin,
    /// The request took too long.
    Timeout,
    /// The turn is not written in notation.
    BadNotation,
    /// The turn breaks the rules.
    IllegalTurn,
    /// Someone else's turn was stored first.
    Conflict,
    /// An unknown variant, option or value.
    BadVariant,
    /// The server failed; nothing changed.
    Internal,
    /// The server is going down; reconnect.
    Unavailable,
    /// A WebSocket frame broke the protocol (RFC 6455): the connection is closed with 1002.
    BrokenFrame,
    /// A text frame was not UTF-8: the connection is closed with 1007.
    BadText,
    /// A player's name that is not one (too long, empty, or holding characters a name may not).
    BadName,
    /// The seat was moved to another device (a hand-off): the connection that held it is
    /// closed with 4410, and its secret no longer works.
    SeatMoved,
}

impl ErrorCode {
    /// The code as the protocol writes it (`not_your_turn`).
    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    }
}

/// A message from the server.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// The first message on a connection: who you are here, and the board to draw.
    Hello {
        /// [`PROTOCOL_VERSION`].
        protocol: u32,
        /// The game's id.
        game: String,
        /// Your seat, or `null` when you watch.
        seat: Option<Color>,
        /// The board ([`Geometry`]), encoded once per kind of board by the catalog.
        #[serde(deserialize_with = "geometry_json")]
        board: Arc<RawValue>,
    },
    /// The whole game.
    State(Box<GameState>),
    /// A change: where the game stands now.
    Update(Box<Snapshot>),
    /// Your last message did nothing, and why.
    Error {
        /// What kind of error.
        code: ErrorCode,
        /// The reason in words.
        message: String,
    },
    /// A rematch has started. A player's secret holds their seat there too (colours swapped):
    /// a page goes to `/g/{this game}/rematch`, which seats it; spectators may follow the game.
    Rematch {
        /// The new game's id.
        game: String,
    },
    /// A line just said in a chat this connection hears.
    Chat(ChatLine),
    /// Every line of the chats this connection hears, oldest first, and what it hears: on
    /// connecting, on `sync`, and in answer to `chat_settings`.
    ChatHistory {
        /// What the connection hears.
        hearing: Hearing,
        /// The lines.
        lines: Vec<ChatLine>,
    },
    /// Answer to `ping`.
    Pong,
    /// The game is served by an instance that clients reach at `url`: reconnect there. Sent
    /// instead of `hello`, before the close that says so (4307).
    Moved {
        /// The game's socket on its server (`wss://a.merels.example/api/games/{id}/ws`).
        url: String,
    },
}

/// Reads a board as its [`Geometry`], then keeps it as JSON. (A raw value cannot be read
/// straight from a message tagged inside, which serde buffers first.)
fn geometry_json<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Arc<RawValue>, D::Error> {
    let geometry = Geometry::deserialize(d)?;
    serde_json::value::to_raw_value(&geometry)
        .map(Arc::from)
        .map_err(serde::de::Error::custom)
}

impl ServerMessage {
    /// The message as a JSON text frame. Written into room for a typical state (0.7 to 2.5 KB)
    /// rather than grown from serde_json's 128 bytes by doubling: one allocation, not five.
    pub fn to_json(&self) -> String {
        let mut out = Vec::with_capacity(2048);
        serde_json::to_writer(&mut out, self).expect("server messages always serialize");
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use std::collections::BTreeMap;

    #[test]
    fn a_hello_carries_the_board_as_the_catalog_encoded_it() {
        let catalog = Catalog::builtin();
        let variant = catalog
            .configure("nine-mens-morris", &BTreeMap::new())
            .unwrap();
        let board = catalog.board_json(variant.board());
        let hello = ServerMessage::Hello {
            protocol: PROTOCOL_VERSION,
            game: "abc".into(),
            seat: Some(Color::White),
            board,
        };
        let json = hello.to_json();
        let read: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(read["type"], "hello");
        let geometry: Geometry = serde_json::from_value(read["board"].clone()).unwrap();
        assert_eq!(geometry, Geometry::of(variant.board()));
        match serde_json::from_str::<ServerMessage>(&json).unwrap() {
            ServerMessage::Hello { board, .. } => {
                assert_eq!(board.get(), catalog.board_json(variant.board()).get())
            }
            other => panic!("not a hello: {other:?}"),
        }
    }
}
