-- One owner per game across instances. An instance registers itself with a lease it renews
-- every few seconds; it runs a game's room only while the game names it as the owner and its
-- lease holds. Taking a game (a new room, on whichever instance is asked) bumps the game's epoch,
-- and every write of a room names the epoch it holds: a write from an older owner (paused,
-- partitioned, or simply behind) is refused, whatever process sends it.
CREATE TABLE instances (
    id          TEXT PRIMARY KEY,
    address     TEXT NOT NULL,
    lease_until BIGINT NOT NULL,
    started_at  BIGINT NOT NULL
);

-- The secret instances show each other on their internal addresses: made by the first instance
-- to start, read by every other.
CREATE TABLE peer_secret (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    secret TEXT NOT NULL
);

ALTER TABLE games ADD COLUMN owner TEXT;
ALTER TABLE games ADD COLUMN epoch BIGINT NOT NULL DEFAULT 0;
-- An instance that stops gives up its games in one statement.
CREATE INDEX games_by_owner ON games (owner) WHERE owner IS NOT NULL;
-- Which owner stored each turn. Turns stored before this carry none.
ALTER TABLE turns ADD COLUMN epoch BIGINT;

-- A turn is stored only by the game's current owner (besides 0005's rules: in play, at the
-- version it was decided against, at the next ply).
CREATE OR REPLACE FUNCTION turn_follows_its_game() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM games
        WHERE id = NEW.game_id AND status = 'playing' AND version = NEW.base_version
          AND epoch = NEW.epoch
        FOR SHARE;
    IF NOT FOUND OR NEW.ply < 0 OR (NEW.ply > 0 AND NOT EXISTS (
        SELECT 1 FROM turns WHERE game_id = NEW.game_id AND ply = NEW.ply - 1)) THEN
        RETURN NULL;
    END IF;
    RETURN NEW;
END $$;

-- A finished game stays finished, and neither its version nor its epoch goes back.
CREATE OR REPLACE FUNCTION game_never_goes_back() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (OLD.status = 'finished' AND NEW.status <> 'finished') OR NEW.version < OLD.version
        OR NEW.epoch < OLD.epoch THEN
        RETURN NULL;
    END IF;
    RETURN NEW;
END $$;
