-- Time controls and clocks; the takeback and rematch offers; a stored version number.
-- A clock snapshot (time left for each side, as of a moment) lives on the turn that made it, or
-- on the game for the moments that are not turns: the start, a takeback, the end.
ALTER TABLE games ADD COLUMN time_control TEXT NOT NULL DEFAULT 'untimed';
ALTER TABLE games ADD COLUMN clock_white_ms BIGINT;
ALTER TABLE games ADD COLUMN clock_black_ms BIGINT;
ALTER TABLE games ADD COLUMN clock_at BIGINT;
ALTER TABLE games ADD COLUMN takeback_offer_by TEXT;
ALTER TABLE games ADD COLUMN takeback_offer_ply BIGINT;
ALTER TABLE games ADD COLUMN rematch_offer_by TEXT;
ALTER TABLE games ADD COLUMN rematch_id TEXT;
ALTER TABLE games ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN white_ms BIGINT;
ALTER TABLE turns ADD COLUMN black_ms BIGINT;

-- A game's version is this column plus the number of its turns: each stored turn counts for
-- one without touching the game's row, and a takeback adds back the turns it deletes.
-- Games stored before: seats taken, and an end decided off the board.
UPDATE games SET version =
    (CASE WHEN white_secret_hash IS NULL THEN 0 ELSE 1 END)
    + (CASE WHEN black_secret_hash IS NULL THEN 0 ELSE 1 END)
    + (CASE WHEN termination IN ('agreement', 'resignation', 'time', 'abandonment', 'aborted')
       THEN 1 ELSE 0 END);
