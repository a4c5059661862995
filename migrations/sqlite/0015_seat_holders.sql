-- Which browser holds each seat (see PostgreSQL's 0015).
CREATE TABLE seat_holders (
    browser TEXT NOT NULL,
    game_id TEXT NOT NULL REFERENCES games (id),
    seat    TEXT NOT NULL CHECK (seat IN ('white', 'black')),
    since   INTEGER NOT NULL,
    PRIMARY KEY (browser, game_id, seat)
) WITHOUT ROWID;

CREATE INDEX seat_holders_by_game ON seat_holders (game_id, seat);

ALTER TABLE handoff_codes ADD COLUMN keeps BOOLEAN NOT NULL DEFAULT FALSE;
