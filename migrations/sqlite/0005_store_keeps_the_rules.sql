-- The store keeps the game's order whatever process writes to it: a stale room, a second
-- instance, a bug. Each refused write is skipped (RAISE(IGNORE)), so the writer sees fewer rows
-- changed and tells the room, which reloads; nothing is half applied.
--
-- A turn names the version of its game's row it was decided against (the row's version counts
-- every change but the turns themselves). It is stored only while its game is in play, still at
-- that version, and at the next ply: ply 0, or the ply after a stored one. With the key on
-- (game_id, ply) and takebacks that delete only from a ply onwards, the plies stay contiguous.
-- Turns stored before this carry no version.
ALTER TABLE turns ADD COLUMN base_version INTEGER;

CREATE TRIGGER turns_follow_their_game BEFORE INSERT ON turns
WHEN NEW.ply < 0
    OR NOT EXISTS (SELECT 1 FROM games g WHERE g.id = NEW.game_id AND g.status = 'playing'
                   AND g.version = NEW.base_version)
    OR (NEW.ply > 0 AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.game_id = NEW.game_id
                                    AND t.ply = NEW.ply - 1))
BEGIN
    SELECT RAISE(IGNORE);
END;

-- A finished game stays finished, and a version never goes back.
CREATE TRIGGER games_never_go_back BEFORE UPDATE ON games
WHEN (OLD.status = 'finished' AND NEW.status <> 'finished') OR NEW.version < OLD.version
BEGIN
    SELECT RAISE(IGNORE);
END;

-- A finished game keeps its turns: only a game in play has a turn taken back.
CREATE TRIGGER finished_games_keep_their_turns BEFORE DELETE ON turns
WHEN NOT EXISTS (SELECT 1 FROM games g WHERE g.id = OLD.game_id AND g.status = 'playing')
BEGIN
    SELECT RAISE(IGNORE);
END;
