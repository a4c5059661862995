-- When each instance last renewed its lease: the last time it was known alive. An instance that
-- takes a game from one that died (its lease lapsed without giving the game up) reads it, so that
-- the time nobody served the game is not charged to the player whose clock was running.
ALTER TABLE instances ADD COLUMN renewed_at BIGINT NOT NULL DEFAULT 0;
