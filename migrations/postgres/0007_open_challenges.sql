-- An open challenge: a game whose creator lets anyone take the empty seat. While it waits it is
-- listed on the home page; games shared with a friend never are.
ALTER TABLE games ADD COLUMN open_challenge BOOLEAN NOT NULL DEFAULT FALSE;
