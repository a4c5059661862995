//! A live game's two chats: their lines as stored, who may say what and how often (decided here,
//! purely, like the game in `core.rs`), and the shell's side: store a line, then keep it and send
//! it to whoever hears its chat.
//!
//! A chat is not the game: a line leaves the game's version alone, and is not checked against it.

use super::command::Command;
use super::outbox::Outbox;
use super::task::Room;
use super::{Connection, RoomError, Rooms};
use crate::protocol::{
    CHAT_MAX_CHARS, ChatCounts, ChatLine, ChatRoom, Hearing, PlayerName, ServerMessage, room_of,
};
use crate::rules::Color;
use crate::store::{ChatRow, WriteOp};
use crate::time::room_ms;
use axum::extract::ws::Utf8Bytes;
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Arc;

/// Lines one speaker may say in [`BURST_MS`].
pub const BURST_LINES: usize = 5;
/// The window of [`BURST_LINES`], in milliseconds.
pub const BURST_MS: i64 = 10_000;
/// Lines a chat keeps: a game's chat is a conversation, not a store of text. A new line pushes
/// the oldest out (in memory and in the store), so a flood can bury old lines but never close a
/// chat to those who come after it.
pub const MAX_LINES: usize = 200;
/// Bytes of text a chat keeps, likewise: with [`MAX_LINES`], the bound of a game's chat storage
/// whatever its lines hold (300 emoji are 1,200 bytes).
pub const MAX_BYTES: usize = 32 * 1024;
/// How long after the end of a game its spectators may still talk; then their chat is closed
/// (the players' stays open, for the two of them).
pub const SPECTATORS_AFTER_END_MS: i64 = 10 * 60 * 1000;

/// Who says a line: a seat (whichever of its connections), or one spectator's connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Speaker {
    Seat(Color),
    Spectator(u64),
}

impl Speaker {
    fn seat(self) -> Option<Color> {
        match self {
            Speaker::Seat(c) => Some(c),
            Speaker::Spectator(_) => None,
        }
    }
}

/// A game's chats.
#[derive(Debug, Default)]
pub(super) struct ChatLog {
    /// The players' lines and the spectators', each in order.
    lines: [Vec<ChatLine>; 2],
    /// When each speaker spoke lately, for the rate.
    recent: HashMap<Speaker, VecDeque<i64>>,
}

impl ChatLog {
    /// The chats as the store holds them; `None` if a row is not one the store should hold.
    pub fn from_rows(rows: Vec<ChatRow>) -> Option<ChatLog> {
        let mut log = ChatLog::default();
        for row in rows {
            let room = ChatRoom::parse(&row.room)?;
            let by = match row.author.as_str() {
                "spectator" => None,
                side => Some(Color::parse(side)?),
            };
            // A name kept that no longer reads is left out rather than losing the chat.
            let name = row
                .author_name
                .as_deref()
                .and_then(|n| PlayerName::parse(n).ok());
            log.lines[room.index()].push(ChatLine {
                room,
                seq: u32::try_from(row.seq).ok()?,
                by,
                name,
                text: row.body,
                at: row.said_at,
            });
        }
        Some(log)
    }

    /// The line `speaker` (going by `name`, if any) would say with `text` at `now` in a game
    /// that ended at `ended_at` (if it has), and the write that stores it (by the owner at
    /// `epoch`), older lines pushed out; or why it may not be said. Pure: nothing changes until
    /// [`ChatLog::keep`].
    #[allow(clippy::too_many_arguments)]
    pub fn decide(
        &self,
        game: &str,
        epoch: i64,
        speaker: Speaker,
        name: Option<&PlayerName>,
        text: &str,
        now: i64,
        ended_at: Option<i64>,
    ) -> Result<(ChatLine, WriteOp), RoomError> {
        // One line: a line break or another control character becomes a space.
        let text: String = text
            .trim()
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        if text.is_empty() {
            return Err(RoomError::NotAllowed("say something: the line is empty"));
        }
        if text.chars().count() > CHAT_MAX_CHARS {
            return Err(RoomError::ChatTooLong(CHAT_MAX_CHARS));
        }
        let recent = self.recent.get(&speaker);
        if recent.is_some_and(|r| r.iter().filter(|&&t| t > now - BURST_MS).count() >= BURST_LINES)
        {
            return Err(RoomError::ChatTooFast(BURST_LINES, BURST_MS / 1000));
        }
        let room = room_of(speaker.seat());
        if room == ChatRoom::Spectators
            && ended_at.is_some_and(|end| now >= end + SPECTATORS_AFTER_END_MS)
        {
            return Err(RoomError::NotAllowed(
                "the spectators' chat closes ten minutes after the game ends",
            ));
        }
        let lines = &self.lines[room.index()];
        let line = ChatLine {
            room,
            seq: lines.last().map_or(1, |l| l.seq + 1),
            by: speaker.seat(),
            name: name.cloned(),
            text,
            at: now,
        };
        let keep_from = lines
            .get(pushed_out(lines, &line))
            .map_or(line.seq, |l| l.seq);
        let row = ChatRow {
            game_id: game.to_string(),
            room: room.as_str().to_string(),
            seq: i64::from(line.seq),
            author: line.by.map_or("spectator", Color::name).to_string(),
            body: line.text.clone(),
            said_at: now,
            author_name: line.name.as_ref().map(|n| n.to_string()),
        };
        Ok((
            line,
            WriteOp::Chat {
                line: Box::new(row),
                keep_from: i64::from(keep_from),
                epoch,
            },
        ))
    }

    /// Keeps a stored line, said by `speaker`, and lets go of the lines it pushed out.
    pub fn keep(&mut self, speaker: Speaker, line: ChatLine) {
        let recent = self.recent.entry(speaker).or_default();
        recent.push_back(line.at);
        while recent.len() > BURST_LINES {
            recent.pop_front();
        }
        let lines = &mut self.lines[line.room.index()];
        let out = pushed_out(lines, &line);
        lines.drain(..out);
        lines.push(line);
    }

    /// The lines of the chats `hearing` hears, players' first.
    pub fn heard(&self, hearing: Hearing) -> Vec<ChatLine> {
        ChatRoom::BOTH
            .into_iter()
            .filter(|&r| hearing.hears(r))
            .flat_map(|r| self.lines[r.index()].iter().cloned())
            .collect()
    }

    /// The number of each chat's last line (0 before the first): how many lines each has had,
    /// so that a client can tell it missed some, however many the window still keeps.
    pub fn counts(&self) -> ChatCounts {
        let count = |room: ChatRoom| self.lines[room.index()].last().map_or(0, |l| l.seq);
        ChatCounts {
            players: count(ChatRoom::Players),
            spectators: count(ChatRoom::Spectators),
        }
    }

    /// A speaker gone for good (a spectator's connection closed) need not be remembered.
    pub fn forget(&mut self, speaker: Speaker) {
        self.recent.remove(&speaker);
    }
}

/// How many of a chat's oldest `lines` a new `line` pushes out of [`MAX_LINES`] and
/// [`MAX_BYTES`].
fn pushed_out(lines: &[ChatLine], line: &ChatLine) -> usize {
    let mut count = lines.len() + 1;
    let mut bytes = line.text.len() + lines.iter().map(|l| l.text.len()).sum::<usize>();
    let mut out = 0;
    while count > MAX_LINES || bytes > MAX_BYTES {
        bytes -= lines[out].text.len();
        count -= 1;
        out += 1;
    }
    out
}

/// The `chat_history` message of what `hearing` hears.
pub(super) fn history_frame(log: &ChatLog, hearing: Hearing) -> Utf8Bytes {
    Utf8Bytes::from(
        ServerMessage::ChatHistory {
            hearing,
            lines: log.heard(hearing),
        }
        .to_json(),
    )
}

impl Room {
    /// Says a line for connection `conn`: decided, stored, kept, then sent to every connection
    /// that hears its chat. A number taken by another writer reloads the chats from the store.
    pub(super) async fn say(
        &mut self,
        rooms: &Rooms,
        conn: u64,
        from: IpAddr,
        text: &str,
    ) -> Result<(), RoomError> {
        let speaker = match self.conns.get(conn).map(|c| c.seat) {
            Some(Some(seat)) => Speaker::Seat(seat),
            Some(None) => Speaker::Spectator(conn),
            None => return Ok(()), // gone meanwhile
        };
        let name = speaker
            .seat()
            .and_then(|c| self.table.names[c.index()].as_ref());
        let (line, op) = self.chat.decide(
            &self.table.id,
            self.table.epoch,
            speaker,
            name,
            text,
            room_ms(),
            self.table.ended_at,
        )?;
        // The address's allowance, over all its sockets and games, in lines and in bytes: taken
        // only for a line that would be said.
        if !rooms.inner.chat_cap.charge(from, line.text.len()) {
            rooms.metrics().limit("chat_per_address");
            return Err(RoomError::ChatFlood);
        }
        if !rooms.store().write(op).await? {
            rooms.metrics().store_refusals.inc();
            // Another writer took the number, or another instance the game (then the room ends).
            self.reload(rooms).await;
            self.reload_chat(rooms).await;
            return Err(RoomError::Conflict);
        }
        let room = line.room;
        let frame = Utf8Bytes::from(ServerMessage::Chat(line.clone()).to_json());
        self.chat.keep(speaker, line);
        for c in self.conns.values().filter(|c| c.hearing.hears(room)) {
            // A connection so far behind that its queue was cleared gets the whole game again,
            // and every line it hears (this one with them).
            if c.outbox.push_reply(frame.clone()) {
                self.push_whole(&c.outbox, c.hearing);
            }
        }
        Ok(())
    }

    /// Queues the whole game on `outbox`, then every line of the chats `hearing` hears: what a
    /// connection gets when it connects, asks again (`sync`), or fell too far behind.
    pub(super) fn push_whole(&self, outbox: &Outbox, hearing: Hearing) {
        outbox.push_state(self.whole());
        outbox.push_state(history_frame(&self.chat, hearing));
    }

    /// Sets what connection `conn` hears, and sends it those lines.
    pub(super) fn set_hearing(&mut self, conn: u64, asked: Hearing) {
        if let Some(c) = self.conns.get_mut(conn) {
            c.hearing = Hearing::allowed(asked, c.seat);
            push_alone(&c.outbox, history_frame(&self.chat, c.hearing));
        }
    }

    /// Reads the chats again from the store (after losing a line's number to another writer),
    /// and sends every connection what it hears.
    pub(super) async fn reload_chat(&mut self, rooms: &Rooms) {
        match load_chat(rooms, &self.table.id).await {
            Ok(log) => self.chat = log,
            Err(e) => tracing::error!(game = %self.table.id, error = %e, "chat reload failed"),
        }
        for c in self.conns.values() {
            push_alone(&c.outbox, history_frame(&self.chat, c.hearing));
        }
    }
}

impl Rooms {
    /// Says `text` in the chat of connection `conn` (its seat's, or the spectators'). Returns
    /// once the room has it; the line reaches whoever hears that chat, a refusal this connection
    /// alone, on `outbox`.
    pub async fn say(
        &self,
        id: &str,
        conn: &Connection,
        text: String,
        outbox: &Arc<Outbox>,
    ) -> Result<(), RoomError> {
        let command = Command::Say {
            conn: conn.id,
            from: conn.from,
            text,
            outbox: outbox.clone(),
        };
        self.to_room(id, conn, Box::new(command)).await
    }

    /// Sets which chats connection `conn` hears; it gets their lines.
    pub async fn hear(
        &self,
        id: &str,
        conn: &Connection,
        hearing: Hearing,
    ) -> Result<(), RoomError> {
        let command = Command::Hear {
            conn: conn.id,
            hearing,
        };
        self.to_room(id, conn, Box::new(command)).await
    }
}

/// Queues a message for one connection; a full queue is cleared and the message, which carries
/// all it says, goes alone.
fn push_alone(outbox: &Outbox, frame: Utf8Bytes) {
    let _ = outbox.push_reply(frame);
}

/// Reads a game's chats from the store.
pub(super) async fn load_chat(rooms: &Rooms, id: &str) -> Result<ChatLog, RoomError> {
    let rows = rooms.store().chat_lines(id).await?;
    ChatLog::from_rows(rows)
        .ok_or_else(|| RoomError::Unreadable("a chat line the store should not hold".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAME: &str = "g1";

    fn said(
        log: &mut ChatLog,
        speaker: Speaker,
        text: &str,
        now: i64,
    ) -> Result<ChatLine, RoomError> {
        said_after(log, speaker, text, now, None)
    }

    fn said_after(
        log: &mut ChatLog,
        speaker: Speaker,
        text: &str,
        now: i64,
        ended_at: Option<i64>,
    ) -> Result<ChatLine, RoomError> {
        let (line, op) = log.decide(GAME, 1, speaker, None, text, now, ended_at)?;
        let WriteOp::Chat { line: row, .. } = op else {
            panic!("a line is written as a chat line")
        };
        assert_eq!(
            (row.seq, row.body.as_str(), row.said_at),
            (i64::from(line.seq), line.text.as_str(), now)
        );
        log.keep(speaker, line.clone());
        Ok(line)
    }

    #[test]
    fn seats_speak_in_the_players_chat_and_spectators_in_their_own() {
        let mut log = ChatLog::default();
        let white = said(&mut log, Speaker::Seat(Color::White), " hello\nthere ", 1).unwrap();
        assert_eq!(
            (white.room, white.seq, white.by, white.text.as_str()),
            (ChatRoom::Players, 1, Some(Color::White), "hello there")
        );
        let watcher = said(&mut log, Speaker::Spectator(7), "<b>nice</b>", 2).unwrap();
        assert_eq!(
            (watcher.room, watcher.seq, watcher.by),
            (ChatRoom::Spectators, 1, None)
        );
        assert_eq!(
            watcher.text, "<b>nice</b>",
            "kept as typed; clients show text"
        );
        let black = said(&mut log, Speaker::Seat(Color::Black), "hi", 3).unwrap();
        assert_eq!(black.seq, 2);

        let player = Hearing::default_for(Some(Color::Black));
        let heard: Vec<u32> = log.heard(player).iter().map(|l| l.seq).collect();
        assert_eq!(heard, [1, 2], "the players' chat only");
        let spectator = Hearing::default_for(None);
        assert_eq!(log.heard(spectator), std::slice::from_ref(&watcher));
        let nosy = Hearing::allowed(
            Hearing {
                players: true,
                spectators: true,
            },
            None,
        );
        assert_eq!(
            log.heard(nosy),
            [watcher],
            "a spectator never hears the players"
        );
        assert!(
            log.heard(Hearing {
                players: false,
                spectators: false
            })
            .is_empty()
        );
    }

    #[test]
    fn empty_long_and_fast_lines_are_refused() {
        let mut log = ChatLog::default();
        let me = Speaker::Seat(Color::White);
        assert!(matches!(
            said(&mut log, me, " \n ", 0),
            Err(RoomError::NotAllowed(_))
        ));
        let long = "é".repeat(CHAT_MAX_CHARS + 1);
        assert!(matches!(
            said(&mut log, me, &long, 0),
            Err(RoomError::ChatTooLong(_))
        ));
        assert!(said(&mut log, me, &"é".repeat(CHAT_MAX_CHARS), 0).is_ok());
        for i in 1..BURST_LINES as i64 {
            said(&mut log, me, "again", i).unwrap();
        }
        let err = said(&mut log, me, "once more", 100).unwrap_err();
        assert!(matches!(err, RoomError::ChatTooFast(..)), "{err}");
        assert_eq!(err.code(), crate::protocol::ErrorCode::RateLimited);
        // Another speaker is not held back, and the speaker may go on once the window passed.
        assert!(said(&mut log, Speaker::Seat(Color::Black), "me", 100).is_ok());
        assert!(said(&mut log, me, "later", BURST_MS + 1).is_ok());
        assert_eq!(log.lines[0].len(), BURST_LINES + 2);
    }

    #[test]
    fn a_full_chat_lets_its_oldest_lines_go_and_the_store_follows() {
        let mut log = ChatLog::default();
        for i in 0..MAX_LINES as i64 + 7 {
            said(&mut log, Speaker::Spectator(i as u64), "x", i).unwrap();
        }
        let kept = &log.lines[ChatRoom::Spectators.index()];
        assert_eq!(kept.len(), MAX_LINES, "a window, not a cap");
        assert_eq!(
            (kept[0].seq, kept[MAX_LINES - 1].seq),
            (8, MAX_LINES as u32 + 7)
        );
        // The next line's write tells the store which lines it pushes out.
        let (line, op) = log
            .decide(GAME, 1, Speaker::Spectator(9999), None, "late", 0, None)
            .unwrap();
        let WriteOp::Chat { keep_from, .. } = op else {
            panic!("a chat line")
        };
        assert_eq!((line.seq, keep_from), (MAX_LINES as u32 + 8, 9));
        // Long lines are bounded in bytes too: a chat of 300-emoji lines keeps what fits.
        let mut log = ChatLog::default();
        let long = "😀".repeat(CHAT_MAX_CHARS);
        for i in 0..60 {
            said(&mut log, Speaker::Spectator(i), &long, i as i64).unwrap();
        }
        let kept = &log.lines[ChatRoom::Spectators.index()];
        let bytes: usize = kept.iter().map(|l| l.text.len()).sum();
        assert!(
            bytes <= MAX_BYTES && bytes + long.len() > MAX_BYTES,
            "{bytes}"
        );
        assert_eq!(kept.last().unwrap().seq, 60);
    }

    #[test]
    fn the_spectators_chat_closes_some_time_after_the_end() {
        let mut log = ChatLog::default();
        let end = Some(1_000);
        let watcher = Speaker::Spectator(1);
        let closes = 1_000 + SPECTATORS_AFTER_END_MS;
        assert!(said_after(&mut log, watcher, "gg", closes - 1, end).is_ok());
        assert!(matches!(
            said_after(&mut log, Speaker::Spectator(2), "gg", closes, end),
            Err(RoomError::NotAllowed(_))
        ));
        assert!(
            said_after(&mut log, Speaker::Seat(Color::White), "thanks", closes, end).is_ok(),
            "the players' chat stays open"
        );
        assert!(said_after(&mut log, watcher, "still on", closes, None).is_ok());
    }

    #[test]
    fn stored_rows_come_back_as_lines() {
        let row = |room: &str, seq, author: &str| ChatRow {
            game_id: GAME.into(),
            room: room.into(),
            seq,
            author: author.into(),
            body: "hi".into(),
            said_at: 5,
            author_name: None,
        };
        let log = ChatLog::from_rows(vec![
            row("players", 1, "white"),
            row("spectators", 1, "spectator"),
        ])
        .unwrap();
        assert_eq!(log.lines[0][0].by, Some(Color::White));
        assert_eq!(log.lines[1][0].by, None);
        assert!(ChatLog::from_rows(vec![row("lobby", 1, "white")]).is_none());
        assert!(ChatLog::from_rows(vec![row("players", 1, "red")]).is_none());
    }
}
