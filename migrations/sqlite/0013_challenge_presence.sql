-- An open challenge is listed only while its creator is there (see PostgreSQL's 0013).
ALTER TABLE games ADD COLUMN listed_until INTEGER;
ALTER TABLE games ADD COLUMN created_from TEXT;
CREATE INDEX games_open_challenges ON games (created_at) WHERE open_challenge AND status = 'waiting';
