-- One owner per game (see PostgreSQL's 0010; with SQLite there is one instance, which still
-- takes each game before it runs its room, so that both backends run the same code).
CREATE TABLE instances (
    id          TEXT PRIMARY KEY,
    address     TEXT NOT NULL,
    lease_until INTEGER NOT NULL,
    started_at  INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE peer_secret (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    secret TEXT NOT NULL
);

ALTER TABLE games ADD COLUMN owner TEXT;
ALTER TABLE games ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
CREATE INDEX games_by_owner ON games (owner) WHERE owner IS NOT NULL;
ALTER TABLE turns ADD COLUMN epoch INTEGER;

DROP TRIGGER turns_follow_their_game;
CREATE TRIGGER turns_follow_their_game BEFORE INSERT ON turns
WHEN NEW.ply < 0
    OR NOT EXISTS (SELECT 1 FROM games g WHERE g.id = NEW.game_id AND g.status = 'playing'
                   AND g.version = NEW.base_version AND g.epoch = NEW.epoch)
    OR (NEW.ply > 0 AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.game_id = NEW.game_id
                                    AND t.ply = NEW.ply - 1))
BEGIN
    SELECT RAISE(IGNORE);
END;

DROP TRIGGER games_never_go_back;
CREATE TRIGGER games_never_go_back BEFORE UPDATE ON games
WHEN (OLD.status = 'finished' AND NEW.status <> 'finished') OR NEW.version < OLD.version
    OR NEW.epoch < OLD.epoch
BEGIN
    SELECT RAISE(IGNORE);
END;
