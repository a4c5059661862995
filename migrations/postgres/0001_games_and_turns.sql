-- Games and their turns. Seats keep only a hash of their secret. Times are Unix milliseconds.
CREATE TABLE games (
    id                TEXT PRIMARY KEY,
    variant           TEXT NOT NULL,
    options           TEXT NOT NULL,
    white_secret_hash TEXT,
    black_secret_hash TEXT,
    status            TEXT NOT NULL CHECK (status IN ('waiting', 'playing', 'finished')),
    result            TEXT,
    termination       TEXT,
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL
);

CREATE INDEX games_by_status ON games (status, updated_at);

-- (game_id, ply) is the key: no two turns can claim the same ply, even from two processes.
CREATE TABLE turns (
    game_id   TEXT NOT NULL REFERENCES games (id),
    ply       INTEGER NOT NULL,
    notation  TEXT NOT NULL,
    played_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, ply)
);
