-- An open challenge is listed only while its creator is there: `listed_until` (Unix ms) is renewed
-- by the game's room, on whichever instance runs it, while the creator has a connection, and
-- lapses a short grace after they leave; the home page lists only games whose time has not
-- passed. `created_from` is the hash of the address that made the game, so that one address
-- lists at most a few challenges at a time. Both stay NULL for every other game.
ALTER TABLE games ADD COLUMN listed_until BIGINT;
ALTER TABLE games ADD COLUMN created_from TEXT;
CREATE INDEX games_open_challenges ON games (created_at) WHERE open_challenge AND status = 'waiting';
