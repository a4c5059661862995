//! The messages between browser (or bot) and server, typed in each direction and parsed at the
//! edge. JSON, internally tagged by `type`. Documented with an example exchange in
//! `docs/protocol.md`; [`PROTOCOL_VERSION`] changes whenever a message changes shape.
//!
//! Every message from the server that describes the game is a whole [`GameState`] with a version
//! number: a Morris position is tiny, so there are no diffs to get wrong, and a client that sees
//! a version jump knows it skipped ahead.

use crate::clock::TimeControl;
use crate::rules::{Board, BoardSpec, Color, Game, Termination, board::points};
use compact_str::CompactString;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

/// The protocol's version, sent in every `hello`.
pub const PROTOCOL_VERSION: u32 = 2;

/// A message from a client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    /// Play a turn, in notation: `{"type":"move","move":"a1-a4xg7"}`.
    Move {
        /// The turn.
        #[serde(rename = "move")]
        turn: String,
    },
    /// Resign the game: the opponent wins.
    Resign,
    /// Offer a draw (or accept the opponent's, if they offered first).
    DrawOffer,
    /// Accept the opponent's draw offer.
    DrawAccept,
    /// Decline the opponent's draw offer.
    DrawDecline,
    /// Ask the opponent to take back the last turn(s), so that you are to move again.
    TakebackOffer,
    /// Accept the opponent's takeback request.
    TakebackAccept,
    /// Decline the opponent's takeback request.
    TakebackDecline,
    /// After the end: ask for a rematch with colours swapped (starts it if the opponent asked).
    Rematch,
    /// Call the game off before both players have moved: nobody wins.
    Abort,
    /// The opponent has been gone too long on their turn: claim the win.
    ClaimWin,
    /// The opponent has been gone too long on their turn: claim a draw.
    ClaimDraw,
    /// Ask for the whole state again.
    Sync,
    /// Keep the connection alive; answered with `pong`.
    Ping,
}

/// Why a client message was not parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// Not JSON, or not an object with a string `type`.
    Malformed(String),
    /// A `type` this protocol does not have.
    UnknownType(String),
    /// A known `type` with missing or extra fields.
    BadFields(String),
}

impl ClientMessage {
    /// Every `type` a client may send.
    pub const TYPES: [&'static str; 14] = [
        "move",
        "resign",
        "draw_offer",
        "draw_accept",
        "draw_decline",
        "takeback_offer",
        "takeback_accept",
        "takeback_decline",
        "rematch",
        "abort",
        "claim_win",
        "claim_draw",
        "sync",
        "ping",
    ];

    /// The message of type `name` that has no fields (`resign`, `draw_offer`); `None` for an
    /// unknown type or one that has fields. The HTTP API names its actions this way.
    pub fn without_fields(name: &str) -> Option<ClientMessage> {
        serde_json::from_value(serde_json::json!({ "type": name })).ok()
    }

    /// Parses a text frame.
    pub fn parse(text: &str) -> Result<ClientMessage, ParseError> {
        #[derive(Deserialize)]
        struct Envelope {
            #[serde(rename = "type")]
            kind: String,
        }
        serde_json::from_str(text).map_err(|e| match serde_json::from_str::<Envelope>(text) {
            Err(_) => ParseError::Malformed(e.to_string()),
            Ok(env) if ClientMessage::TYPES.contains(&env.kind.as_str()) => {
                ParseError::BadFields(e.to_string())
            }
            Ok(env) => ParseError::UnknownType(env.kind.chars().take(32).collect()),
        })
    }
}

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SeatView {
    /// Someone holds the seat.
    pub taken: bool,
    /// The holder has a live connection.
    pub connected: bool,
}

/// The whole state of a game: the WebSocket `state` message and the body of
/// `GET /api/games/{id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameState {
    /// The game's id.
    pub id: CompactString,
    /// Bumped by every change of the game (turn, seat taken, end).
    pub version: u64,
    /// The variant's slug.
    pub variant: CompactString,
    /// The table options.
    pub options: BTreeMap<String, String>,
    /// The position string.
    pub position: String,
    /// The turns so far, in notation.
    pub turns: Vec<CompactString>,
    /// Whose turn it is.
    pub to_move: Color,
    /// The legal turns of the player to move, in notation; empty unless the game is playing.
    pub legal: Vec<CompactString>,
    /// Waiting for a player, playing or finished.
    pub status: Status,
    /// `1-0`, `0-1`, `1/2-1/2`, or `null` while the game is on.
    pub result: Option<CompactString>,
    /// Why the game ended.
    pub termination: Option<Termination>,
    /// The winner, if the game ended with one.
    pub winner: Option<Color>,
    /// Men in hand.
    pub hand: Sides<u8>,
    /// Men on the board.
    pub on_board: Sides<u8>,
    /// Men removed.
    pub removed: Sides<u8>,
    /// The last turn, in notation.
    pub last_turn: Option<CompactString>,
    /// The mills the last turn closed, each as three points.
    pub fresh_mills: Vec<Vec<CompactString>>,
    /// Who holds the seats and whether they are connected.
    pub seats: Sides<SeatView>,
    /// How many others are watching.
    pub spectators: u32,
    /// The side whose draw offer is pending; it lapses with the next turn.
    pub draw_offer: Option<Color>,
    /// The side whose takeback request is pending; it lapses with the next turn.
    pub takeback_offer: Option<Color>,
    /// After the end: the side that asked for a rematch.
    pub rematch_offer: Option<Color>,
    /// The rematch's game id, once it has started.
    pub rematch: Option<String>,
    /// The time control: `untimed`, `M+S` or `Nd`.
    pub time_control: TimeControl,
    /// The clocks of a timed game once both seats are filled, as of this message.
    pub clock: Option<ClockView>,
    /// While the player to move has been gone: who may claim the game, and when.
    pub claim: Option<ClaimView>,
    /// Once the game is finished: the position string before the first turn and after each
    /// turn, for replaying it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub positions: Vec<String>,
}

/// A game's state borrowed from the room that holds it: what [`GameState`] says, written as JSON
/// straight from the game. Every turn sends a state to every connection; building an owned
/// [`GameState`] first (copying the turns, the options, a string per legal turn) cost as much as
/// encoding it. [`StateView::to_state`] gives the owned form, by reading that JSON back, so the
/// two cannot disagree.
#[derive(Debug, Clone, Copy)]
pub struct StateView<'a> {
    /// The game's id.
    pub id: &'a str,
    /// Bumped by every change of the game.
    pub version: u64,
    /// The game itself.
    pub game: &'a Game,
    /// Waiting, playing or finished.
    pub status: Status,
    /// Who holds the seats and whether they are connected.
    pub seats: Sides<SeatView>,
    /// How many others are watching.
    pub spectators: u32,
    /// The side whose draw offer is pending.
    pub draw_offer: Option<Color>,
    /// The side whose takeback request is pending.
    pub takeback_offer: Option<Color>,
    /// After the end: the side that asked for a rematch.
    pub rematch_offer: Option<Color>,
    /// The rematch's game id, once it has started.
    pub rematch: Option<&'a str>,
    /// The time control.
    pub time_control: TimeControl,
    /// The clocks, as of this message.
    pub clock: Option<ClockView>,
    /// Who may claim the game, and when.
    pub claim: Option<ClaimView>,
}

impl<'a> StateView<'a> {
    /// The state of `game` (presence and version come from the room), untimed and with no
    /// offers; the room sets the rest.
    pub fn new(
        id: &'a str,
        version: u64,
        game: &'a Game,
        status: Status,
        seats: Sides<SeatView>,
        spectators: u32,
    ) -> StateView<'a> {
        StateView {
            id,
            version,
            game,
            status,
            seats,
            spectators,
            draw_offer: None,
            takeback_offer: None,
            rematch_offer: None,
            rematch: None,
            time_control: TimeControl::Untimed,
            clock: None,
            claim: None,
        }
    }

    /// The `state` message as a JSON text frame.
    pub fn to_json(&self) -> String {
        text_frame(&Tagged(self))
    }

    /// The owned state, as a client reads it.
    pub fn to_state(&self) -> GameState {
        serde_json::to_vec(self)
            .and_then(|json| serde_json::from_slice(&json))
            .expect("a state reads back")
    }

    /// Writes the fields of [`GameState`], in its order, after a `type` tag when `tag` is set.
    fn write<S: serde::Serializer>(&self, s: S, tag: Option<&str>) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let game = self.game;
        let variant = game.variant();
        let pos = game.position();
        let men = variant.rules().men;
        let outcome = game.outcome();
        let last = game.turns().last().copied();
        let finished = self.status == Status::Finished;
        let mut st = s.serialize_struct("GameState", 28)?;
        if let Some(tag) = tag {
            st.serialize_field("type", tag)?;
        }
        st.serialize_field("id", self.id)?;
        st.serialize_field("version", &self.version)?;
        st.serialize_field("variant", variant.slug())?;
        st.serialize_field("options", variant.options())?;
        st.serialize_field("position", &variant.position_string(pos))?;
        st.serialize_field("turns", game.turn_strings())?;
        st.serialize_field("to_move", &pos.to_move())?;
        st.serialize_field("legal", &Legal(self))?;
        st.serialize_field("status", &self.status)?;
        st.serialize_field("result", &outcome.map(|o| o.result()))?;
        st.serialize_field("termination", &outcome.map(|o| o.termination))?;
        st.serialize_field("winner", &outcome.and_then(|o| o.winner))?;
        st.serialize_field("hand", &Sides::from_fn(|c| pos.hand(c)))?;
        st.serialize_field("on_board", &Sides::from_fn(|c| pos.on_board(c)))?;
        let removed = Sides::from_fn(|c| men.saturating_sub(pos.total(c)));
        st.serialize_field("removed", &removed)?;
        st.serialize_field("last_turn", &last.map(|t| variant.turn_string(t)))?;
        st.serialize_field("fresh_mills", &FreshMills(game))?;
        st.serialize_field("seats", &self.seats)?;
        st.serialize_field("spectators", &self.spectators)?;
        st.serialize_field("draw_offer", &self.draw_offer)?;
        st.serialize_field("takeback_offer", &self.takeback_offer)?;
        st.serialize_field("rematch_offer", &self.rematch_offer)?;
        st.serialize_field("rematch", &self.rematch)?;
        st.serialize_field("time_control", &self.time_control)?;
        st.serialize_field("clock", &self.clock)?;
        st.serialize_field("claim", &self.claim)?;
        if finished {
            st.serialize_field("positions", &Positions(game))?;
        } else {
            st.skip_field("positions")?;
        }
        st.end()
    }
}

impl Serialize for StateView<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.write(s, None)
    }
}

/// A state as the `state` message: tagged by `type`, like every [`ServerMessage`].
struct Tagged<'a, 'b>(&'b StateView<'a>);

impl Serialize for Tagged<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.write(s, Some("state"))
    }
}

/// The legal turns in notation, written one by one; none unless the game is being played.
struct Legal<'a, 'b>(&'b StateView<'a>);

impl Serialize for Legal<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let game = self.0.game;
        let turns = match self.0.status {
            Status::Playing => game.legal_turns(),
            _ => Vec::new(),
        };
        s.collect_seq(turns.into_iter().map(|t| game.variant().turn_string(t)))
    }
}

/// The mills the last turn closed, each as its three points.
struct FreshMills<'a>(&'a Game);

impl Serialize for FreshMills<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let game = self.0;
        let variant = game.variant();
        let board = variant.board();
        let pos = game.position();
        let mover = pos.men(pos.to_move().opponent());
        let mills = match game.turns().last() {
            Some(t) => board.mills_at(t.to),
            None => &[],
        };
        s.collect_seq(
            mills
                .iter()
                .filter(|&&m| m & !mover == 0)
                .map(|&m| points(m).map(|p| board.name(p)).collect::<Vec<_>>()),
        )
    }
}

/// The clocks of a timed game, as of the message that carries them: a client counts the running
/// one down from the moment it receives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockView {
    /// White's time left, milliseconds.
    pub white_ms: i64,
    /// Black's time left, milliseconds.
    pub black_ms: i64,
    /// Whose clock is running, if any (none before both players have moved in a real-time game,
    /// and none once it is over).
    pub running: Option<Color>,
    /// Before both players have moved: how long the player to move has left to make a first
    /// move before the game is aborted.
    pub first_move_ms: Option<i64>,
}

/// The player to move has no connection: the opponent may claim the win or a draw once
/// `in_ms` reaches zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaimView {
    /// Who may claim.
    pub by: Color,
    /// How long until they may, milliseconds (0: now).
    pub in_ms: i64,
}

/// [`ServerMessage::Hello`] as a JSON text frame. The board, most of the message, is encoded
/// once per kind of board and copied in, so that greeting a connection costs little even when a
/// thousand come at once, and no room keeps a copy.
pub fn hello_json(
    game: &str,
    seat: Option<Color>,
    handoff_url: Option<&str>,
    board: &Board,
) -> String {
    /// The fields before the board, in [`ServerMessage::Hello`]'s order.
    #[derive(Serialize)]
    struct Head<'a> {
        r#type: &'static str,
        protocol: u32,
        game: &'a str,
        seat: Option<Color>,
        handoff_url: Option<&'a str>,
    }
    let (_, board) = Geometry::cached(board);
    let head = Head {
        r#type: "hello",
        protocol: PROTOCOL_VERSION,
        game,
        seat,
        handoff_url,
    };
    let mut out = serde_json::to_string(&head).expect("a hello serializes");
    out.pop(); // the closing brace: the board comes before it
    out.reserve(board.len() + 10);
    out.push_str(r#","board":"#);
    out.push_str(&board);
    out.push('}');
    out
}

/// Every position of a game, from its start to its end, written one by one through one buffer.
struct Positions<'a>(&'a Game);

impl Serialize for Positions<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let game = self.0;
        let mut seq = s.serialize_seq(Some(game.turns().len() + 1))?;
        let mut text = String::with_capacity(64);
        for pos in game.positions() {
            text.clear();
            game.variant().write_position(&mut text, &pos);
            seq.serialize_element(text.as_str())?;
        }
        seq.end()
    }
}

/// A point of the board as a client draws it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeometryPoint {
    /// Its name, such as `d6`.
    pub name: String,
    /// Column on the grid, from the left, starting at 0.
    pub x: u8,
    /// Row on the grid, from the bottom, starting at 0.
    pub y: u8,
}

/// A board as data, enough to draw it: the points with grid positions and the lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Geometry {
    /// Points per side of the grid (3, 5 or 7).
    pub size: u8,
    /// Every point.
    pub points: Vec<GeometryPoint>,
    /// The lines to draw, each a straight run of points named.
    pub lines: Vec<Vec<String>>,
    /// Every mill, as three points.
    pub mills: Vec<Vec<String>>,
}

/// A board's geometry, and the same as JSON.
type Encoded = (Arc<Geometry>, Arc<str>);

impl Geometry {
    /// The geometry of `board`, worked out once per kind of board: every connection's `hello`
    /// carries it.
    pub fn shared(board: &Board) -> Arc<Geometry> {
        Geometry::cached(board).0
    }

    /// The geometry of `board` and its JSON, each made once per kind of board. A board is
    /// generated from its spec, so the spec names it (a few at most).
    fn cached(board: &Board) -> Encoded {
        static SHARED: OnceLock<Mutex<HashMap<BoardSpec, Encoded>>> = OnceLock::new();
        let mut shared = SHARED
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        shared
            .entry(board.spec())
            .or_insert_with(|| {
                let geometry = Geometry::of(board);
                let json = serde_json::to_string(&geometry).expect("a geometry serializes");
                (Arc::new(geometry), Arc::from(json))
            })
            .clone()
    }

    /// The geometry of a generated board.
    pub fn of(board: &Board) -> Geometry {
        let name = |p| board.name(p).to_string();
        Geometry {
            size: board.size(),
            points: points(board.all())
                .map(|p| {
                    let (x, y) = board.coord(p);
                    GeometryPoint {
                        name: name(p),
                        x,
                        y,
                    }
                })
                .collect(),
            lines: board
                .lines()
                .iter()
                .map(|l| l.iter().map(|&p| name(p)).collect())
                .collect(),
            mills: board
                .mills()
                .iter()
                .map(|&m| points(m).map(name).collect())
                .collect(),
        }
    }
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
    /// A WebSocket upgrade from a page of another site.
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
        /// The link that carries your seat to another device (seated connections only).
        handoff_url: Option<String>,
        /// The board.
        board: Arc<Geometry>,
    },
    /// The whole state of the game.
    State(Arc<GameState>),
    /// Your last message did nothing, and why.
    Error {
        /// What kind of error.
        code: ErrorCode,
        /// The reason in words.
        message: String,
    },
    /// A rematch has started: players get the link that carries their new seat (and go),
    /// spectators the game to watch.
    Rematch {
        /// The new game's id.
        game: String,
        /// For a seated connection, `/g/{id}?seat=SECRET` of its new seat.
        handoff_url: Option<String>,
    },
    /// Answer to `ping`.
    Pong,
}

impl ServerMessage {
    /// The message as a JSON text frame.
    pub fn to_json(&self) -> String {
        text_frame(self)
    }
}

/// A server message as a JSON text frame. Written into a buffer that the thread keeps, then
/// copied out at its exact length: a state is 0.7 to 2.5 KB (a finished game's lists every
/// position), so a buffer sized up front would be grown for some messages, and too large for
/// others for as long as a room keeps its latest state.
fn text_frame(message: &impl Serialize) -> String {
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUFFER.with_borrow_mut(|out| {
        out.clear();
        serde_json::to_writer(&mut *out, message).expect("server messages always serialize");
        std::str::from_utf8(out)
            .expect("serde_json writes UTF-8")
            .to_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;

    fn nine(turns: &[&str]) -> Game {
        let variant = Catalog::builtin()
            .configure("nine-mens-morris", &BTreeMap::new())
            .unwrap();
        Game::replay(variant, None, turns).unwrap()
    }

    fn seats() -> Sides<SeatView> {
        Sides::from_fn(|_| SeatView {
            taken: true,
            connected: true,
        })
    }

    /// The frame every connection gets reads back as the owned state, tag and all.
    fn read_back(view: &StateView) -> GameState {
        let json = view.to_json();
        assert!(json.starts_with(r#"{"type":"state","#), "{json}");
        match serde_json::from_str::<ServerMessage>(&json).unwrap() {
            ServerMessage::State(state) => {
                assert_eq!(*state, view.to_state());
                Arc::unwrap_or_clone(state)
            }
            other => panic!("not a state: {other:?}"),
        }
    }

    #[test]
    fn a_state_shows_the_game_as_it_stands() {
        // White's d7 closes a7-d7-g7 and removes a1.
        let turns = [
            "c4", "f4", "f2", "b4", "d6", "f6", "a7", "a1", "g7", "c5", "d7xa1",
        ];
        let game = nine(&turns);
        let view = StateView {
            draw_offer: Some(Color::Black),
            rematch: Some("next"),
            ..StateView::new("abc", 12, &game, Status::Playing, seats(), 3)
        };
        let state = read_back(&view);
        assert_eq!((state.id.as_str(), state.version), ("abc", 12));
        assert_eq!(state.variant, "nine-mens-morris");
        assert_eq!(state.turns, turns);
        assert_eq!(state.last_turn.as_deref(), Some("d7xa1"));
        assert_eq!(state.to_move, Color::Black);
        let legal: Vec<CompactString> = game
            .legal_turns()
            .into_iter()
            .map(|t| game.variant().turn_string(t))
            .collect();
        assert_eq!(state.legal.len(), 24 - 10, "every empty point");
        assert_eq!(state.legal, legal);
        let mut mills: Vec<Vec<CompactString>> = state.fresh_mills.clone();
        mills.iter_mut().for_each(|m| m.sort());
        assert_eq!(mills, [["a7", "d7", "g7"]]);
        assert_eq!((state.hand.white, state.hand.black), (3, 4));
        assert_eq!((state.on_board.white, state.on_board.black), (6, 4));
        assert_eq!((state.removed.white, state.removed.black), (0, 1));
        assert_eq!(
            state.position,
            game.variant().position_string(game.position())
        );
        assert_eq!(state.status, Status::Playing);
        assert_eq!((state.result, state.winner), (None, None));
        assert_eq!(state.spectators, 3);
        assert_eq!(state.draw_offer, Some(Color::Black));
        assert_eq!(state.rematch.as_deref(), Some("next"));
        assert!(state.positions.is_empty());
        // No mill on the next turn: none is fresh.
        let game = nine(&[&turns[..], &["e4"]].concat());
        let state = read_back(&StateView::new(
            "abc",
            13,
            &game,
            Status::Playing,
            seats(),
            3,
        ));
        assert!(state.fresh_mills.is_empty());
    }

    #[test]
    fn a_hello_is_the_message_with_its_board() {
        let game = nine(&[]);
        let board = game.variant().board();
        for (seat, handoff) in [
            (None, None),
            (
                Some(Color::White),
                Some("https://example.org/g/abc?seat=s3cr\"et"),
            ),
            (Some(Color::Black), None),
        ] {
            let json = hello_json("abc", seat, handoff, board);
            let message = ServerMessage::Hello {
                protocol: PROTOCOL_VERSION,
                game: "abc".into(),
                seat,
                handoff_url: handoff.map(str::to_string),
                board: Geometry::shared(board),
            };
            assert_eq!(json, message.to_json());
            assert_eq!(
                serde_json::from_str::<ServerMessage>(&json).unwrap(),
                message
            );
        }
    }

    #[test]
    fn only_a_game_in_play_has_legal_turns_and_only_a_finished_one_its_positions() {
        let game = nine(&[]);
        let waiting = read_back(&StateView::new("w", 1, &game, Status::Waiting, seats(), 0));
        assert!(waiting.legal.is_empty() && waiting.positions.is_empty());
        assert!(waiting.last_turn.is_none() && waiting.fresh_mills.is_empty());

        let mut game = nine(&[]);
        while game.outcome().is_none() {
            let legal = game.legal_turns();
            game.play(legal[legal.len() / 2]).unwrap();
        }
        let plies = game.turns().len();
        let over = read_back(&StateView::new("f", 9, &game, Status::Finished, seats(), 0));
        assert!(over.legal.is_empty());
        assert_eq!(
            over.positions.len(),
            plies + 1,
            "one before the first turn, one after each"
        );
        assert_eq!(over.positions.last(), Some(&over.position));
        // Each is the position the game reached, as playing its turns again shows.
        let mut replay = nine(&[]);
        let mut expected = vec![replay.variant().position_string(replay.position())];
        for &turn in game.turns() {
            replay.play(turn).unwrap();
            expected.push(replay.variant().position_string(replay.position()));
        }
        assert_eq!(over.positions, expected);
        let outcome = game.outcome().unwrap();
        assert_eq!(over.result.as_deref(), Some(outcome.result()));
        assert_eq!(over.termination, Some(outcome.termination));
        assert_eq!(over.winner, outcome.winner);
    }
}
