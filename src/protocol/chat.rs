//! The chat's part of the protocol: a game has two chats, the players' (its two seats, and nobody
//! else reads it) and the spectators' (everyone who watches; the players read it only if they
//! choose to, so that nobody can whisper them turns). A line is said once, stored with the game,
//! and sent to whoever hears that chat; a connection gets the lines it hears when it connects,
//! resyncs or changes what it hears.

use super::PlayerName;
use crate::rules::Color;
use serde::{Deserialize, Serialize};

/// The longest line, in characters.
pub const CHAT_MAX_CHARS: usize = 300;

/// One of a game's two chats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatRoom {
    /// The two players'.
    Players,
    /// The spectators'.
    Spectators,
}

impl ChatRoom {
    /// Both, players' first.
    pub const BOTH: [ChatRoom; 2] = [ChatRoom::Players, ChatRoom::Spectators];

    /// The word stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            ChatRoom::Players => "players",
            ChatRoom::Spectators => "spectators",
        }
    }

    /// Reads the stored word.
    pub fn parse(s: &str) -> Option<ChatRoom> {
        ChatRoom::BOTH.into_iter().find(|r| r.as_str() == s)
    }

    /// 0 for the players' chat, 1 for the spectators'.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// A line of chat, as everyone who hears its chat gets it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatLine {
    /// The chat it was said in.
    pub room: ChatRoom,
    /// Its number in that chat, from 1 and without gaps: a client that finds one missing asks
    /// for the whole game again (`sync`), lines included.
    pub seq: u32,
    /// Who said it: a seat's colour, or `null` for a spectator.
    pub by: Option<Color>,
    /// The speaker's name as it was when the line was said, if they had given one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<PlayerName>,
    /// What was said, as it was typed (a client shows it as text, never as markup).
    pub text: String,
    /// When, in Unix milliseconds.
    pub at: i64,
}

/// How many lines each chat holds, in every state and update: a client that has fewer of a chat
/// it hears missed some (its connection fell behind) and asks for everything again (`sync`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatCounts {
    /// Lines in the players' chat.
    pub players: u32,
    /// Lines in the spectators' chat.
    pub spectators: u32,
}

/// Which chats a connection hears. A seat hears the players' chat unless it muted it, and the
/// spectators' only once it asked to; a spectator hears the spectators' chat unless muted, and
/// never the players'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hearing {
    /// The players' chat.
    pub players: bool,
    /// The spectators' chat.
    pub spectators: bool,
}

impl Hearing {
    /// What a connection hears before it says otherwise.
    pub fn default_for(seat: Option<Color>) -> Hearing {
        Hearing {
            players: seat.is_some(),
            spectators: seat.is_none(),
        }
    }

    /// What a connection asking for `asked` may hear: a spectator never hears the players.
    pub fn allowed(asked: Hearing, seat: Option<Color>) -> Hearing {
        Hearing {
            players: asked.players && seat.is_some(),
            spectators: asked.spectators,
        }
    }

    /// Whether it hears `room`.
    pub fn hears(self, room: ChatRoom) -> bool {
        match room {
            ChatRoom::Players => self.players,
            ChatRoom::Spectators => self.spectators,
        }
    }
}

/// The chat a seat or a spectator writes in.
pub fn room_of(seat: Option<Color>) -> ChatRoom {
    match seat {
        Some(_) => ChatRoom::Players,
        None => ChatRoom::Spectators,
    }
}
