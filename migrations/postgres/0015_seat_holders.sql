-- Which browser holds each seat: the anonymous browser id (the hash of its `merels_browser`
-- cookie) of every browser a seat was granted to, by creating, joining, a rematch or a hand-off.
-- It only lists ("My games"); the seat's secret stays what acts. A hand-off that moves the seat
-- deletes the old browser's row as it writes the new secret.
CREATE TABLE seat_holders (
    browser TEXT NOT NULL,
    game_id TEXT NOT NULL REFERENCES games (id),
    seat    TEXT NOT NULL CHECK (seat IN ('white', 'black')),
    since   BIGINT NOT NULL,
    PRIMARY KEY (browser, game_id, seat)
);

CREATE INDEX seat_holders_by_game ON seat_holders (game_id, seat);

-- A hand-off code that keeps the seat where it is (the other device gets the same seat too)
-- rather than moving it.
ALTER TABLE handoff_codes ADD COLUMN keeps BOOLEAN NOT NULL DEFAULT FALSE;
