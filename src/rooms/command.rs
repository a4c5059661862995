//! What a room can be asked over its channel, and where each answer goes.

use super::outbox::{Outbox, error_frame};
use super::{Acted, Action, Actor, RoomError, SeatGrant};
use crate::protocol::{GameState, Hearing};
use crate::rules::Color;
use axum::extract::ws::Utf8Bytes;
use std::net::IpAddr;
use std::sync::Arc;
use tokio::sync::oneshot;
use tokio::time::Instant;

/// Where the answer to a command goes.
pub(super) type Reply<T> = oneshot::Sender<Result<T, RoomError>>;

/// Where the outcome of an [`Action`] goes, by the transport that carried it.
#[derive(Debug)]
pub(super) enum Answer {
    /// An HTTP request waits for the outcome.
    Wait(Reply<Acted>),
    /// A connection hears success with everyone else (the new state) and a refusal on its
    /// own: nothing waits.
    Queue(Arc<Outbox>),
}

impl Answer {
    /// Sends a refusal wherever the answer goes. A connection whose queue is full gets
    /// `whole()`, the whole state, first, where the room has one to give (a room that could not
    /// load, or is shutting down, has none).
    pub fn refuse(self, e: RoomError, whole: Option<&dyn Fn() -> Utf8Bytes>) {
        match self {
            Answer::Wait(reply) => drop(reply.send(Err(e))),
            Answer::Queue(outbox) => {
                let frame = error_frame(e.code(), e.to_string());
                match whole {
                    Some(whole) => outbox.push_event(frame, whole),
                    None => drop(outbox.push_reply(frame)),
                }
            }
        }
    }
}

/// A command to a room.
#[derive(Debug)]
pub(super) enum Command {
    /// A player's action, whatever the transport; `sent` is when it was sent (turn latency).
    Act {
        actor: Actor,
        /// The address it came from, charged should the action create a game.
        from: IpAddr,
        action: Action,
        sent: Instant,
        answer: Answer,
    },
    /// Which seat the secret whose hash this is holds.
    Authenticate {
        hash: Option<String>,
        reply: Reply<Option<Color>>,
    },
    /// Take the empty seat, under a name if one is given.
    Join {
        name: Option<crate::protocol::PlayerName>,
        reply: Reply<SeatGrant>,
    },
    /// Move the seat whose secret hashes to `hash` to `browser`: a new secret (answered) for
    /// it, the old one's connections closed.
    MoveSeat {
        hash: String,
        browser: String,
        reply: Reply<SeatGrant>,
    },
    /// The state now.
    State { reply: Reply<GameState> },
    /// The game record.
    Record { reply: Reply<String> },
    /// The game itself, for the engine to analyse.
    Game { reply: Reply<crate::rules::Game> },
    /// Attach a connection; answered with its number.
    Connect {
        seat: Option<Color>,
        /// The browser it comes from (its id's hash), if any: spectators are counted by it.
        browser: Option<String>,
        outbox: Arc<Outbox>,
        reply: Reply<u64>,
    },
    /// Say a line in a connection's chat; a refusal goes to the connection.
    Say {
        conn: u64,
        from: IpAddr,
        text: String,
        outbox: Arc<Outbox>,
    },
    /// Choose which chats a connection hears.
    Hear { conn: u64, hearing: Hearing },
    /// Queue the whole state again on a connection.
    Sync { conn: u64, reply: Reply<()> },
    /// Detach a connection.
    Disconnect { conn: u64, reply: Reply<()> },
    /// Close an unfinished game as abandoned; answered with whether it ended now.
    Abandon { reply: Reply<bool> },
    /// Seat the computer at `level` in the empty seat (a game made to play it).
    SeatComputer {
        level: crate::engine::Level,
        reply: Reply<()>,
    },
    /// The computer has an engine thread for the game at `version`: its clock runs again.
    ComputerStarted { version: u64 },
    /// The computer's turn, thought for the game at `version`: dropped if the game has moved on.
    ComputerTurn {
        version: u64,
        turn: String,
        thought_ms: u64,
    },
}

impl Command {
    /// Answers the command with an error, unhandled (a room that could not load, or is
    /// shutting down).
    pub fn fail(self, e: RoomError) {
        match self {
            Command::Act { answer, .. } => answer.refuse(e, None),
            Command::Authenticate { reply, .. } => drop(reply.send(Err(e))),
            Command::Join { reply, .. } => drop(reply.send(Err(e))),
            Command::MoveSeat { reply, .. } => drop(reply.send(Err(e))),
            Command::State { reply } => drop(reply.send(Err(e))),
            Command::Record { reply } => drop(reply.send(Err(e))),
            Command::Game { reply } => drop(reply.send(Err(e))),
            Command::Connect { reply, .. } => drop(reply.send(Err(e))),
            Command::Sync { reply, .. } | Command::Disconnect { reply, .. } => {
                drop(reply.send(Err(e)))
            }
            Command::Abandon { reply } => drop(reply.send(Err(e))),
            Command::SeatComputer { reply, .. } => drop(reply.send(Err(e))),
            Command::Say { outbox, .. } => Answer::Queue(outbox).refuse(e, None),
            Command::ComputerStarted { .. }
            | Command::ComputerTurn { .. }
            | Command::Hear { .. } => {}
        }
    }
}
