-- A pending draw offer: who made it, and at which ply (it lapses once a turn is played).
ALTER TABLE games ADD COLUMN draw_offer_by TEXT;
ALTER TABLE games ADD COLUMN draw_offer_ply INTEGER;
