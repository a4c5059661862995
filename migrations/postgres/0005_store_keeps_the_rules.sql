-- The store keeps the game's order whatever process writes to it: a stale room, a second
-- instance, a bug. Each refused write is skipped (a BEFORE trigger returning NULL), so the
-- writer sees fewer rows changed and tells the room, which reloads; nothing is half applied.
-- (SQLite has the same rules in its 0005; PostgreSQL has no 0004.)
--
-- A turn names the version of its game's row it was decided against (the row's version counts
-- every change but the turns themselves). It is stored only while its game is in play, still at
-- that version, and at the next ply: ply 0, or the ply after a stored one. With the key on
-- (game_id, ply) and takebacks that delete only from a ply onwards, the plies stay contiguous.
-- Turns stored before this carry no version.
--
-- Concurrency (READ COMMITTED): the trigger share-locks the game's row, so a turn and a change
-- of the row (an end, a takeback, an offer: the writer locks the row before it checks the
-- version) wait for each other, and the one that waits checks against what the other committed.
ALTER TABLE turns ADD COLUMN base_version BIGINT;

CREATE FUNCTION turn_follows_its_game() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM games
        WHERE id = NEW.game_id AND status = 'playing' AND version = NEW.base_version
        FOR SHARE;
    IF NOT FOUND OR NEW.ply < 0 OR (NEW.ply > 0 AND NOT EXISTS (
        SELECT 1 FROM turns WHERE game_id = NEW.game_id AND ply = NEW.ply - 1)) THEN
        RETURN NULL;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER turns_follow_their_game BEFORE INSERT ON turns
    FOR EACH ROW EXECUTE FUNCTION turn_follows_its_game();

-- A finished game stays finished, and a version never goes back.
CREATE FUNCTION game_never_goes_back() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (OLD.status = 'finished' AND NEW.status <> 'finished') OR NEW.version < OLD.version THEN
        RETURN NULL;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER games_never_go_back BEFORE UPDATE ON games
    FOR EACH ROW EXECUTE FUNCTION game_never_goes_back();

-- A finished game keeps its turns: only a game in play has a turn taken back.
CREATE FUNCTION finished_games_keep_their_turns() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM games WHERE id = OLD.game_id AND status = 'playing') THEN
        RETURN NULL;
    END IF;
    RETURN OLD;
END $$;

CREATE TRIGGER finished_games_keep_their_turns BEFORE DELETE ON turns
    FOR EACH ROW EXECUTE FUNCTION finished_games_keep_their_turns();
