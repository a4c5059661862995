-- The turns' reference to their game is checked at commit instead of after each statement.
-- Why: a statement that inserts several rows and may fail halfway makes SQLite keep a copy of
-- every page it touches (a statement journal), in case it has to undo just that statement. The
-- group commit inserts many turns at once, with OR IGNORE for the key: once the reference is
-- deferred too, no part of that insert can fail halfway, and no such copy is made. A missing game
-- still fails the transaction, at its commit. SQLite cannot alter a constraint: the table is
-- built anew, with the same columns in the same order.
CREATE TABLE turns_new (
    game_id   TEXT NOT NULL REFERENCES games (id) DEFERRABLE INITIALLY DEFERRED,
    ply       INTEGER NOT NULL,
    notation  TEXT NOT NULL,
    played_at INTEGER NOT NULL,
    white_ms  INTEGER,
    black_ms  INTEGER,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;

INSERT INTO turns_new (game_id, ply, notation, played_at, white_ms, black_ms)
    SELECT game_id, ply, notation, played_at, white_ms, black_ms FROM turns;

DROP TABLE turns;

ALTER TABLE turns_new RENAME TO turns;
