-- Chat: each game's two chats, the players' and the spectators', line by line. Lines are numbered
-- from 1 in each chat; (game_id, room, seq) is the key, so two writers cannot both take a number.
-- The players' chat is written by the seats, the spectators' by spectators only.
CREATE TABLE chat_lines (
    game_id TEXT NOT NULL REFERENCES games (id),
    room    TEXT NOT NULL CHECK (room IN ('players', 'spectators')),
    seq     INTEGER NOT NULL CHECK (seq >= 1),
    author  TEXT NOT NULL CHECK (author IN ('white', 'black', 'spectator')),
    body    TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 300),
    said_at INTEGER NOT NULL,
    PRIMARY KEY (game_id, room, seq),
    CHECK ((room = 'players') = (author <> 'spectator'))
) WITHOUT ROWID;
