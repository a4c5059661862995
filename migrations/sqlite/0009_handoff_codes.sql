-- One-time codes that move a seat to another device ("continue on another device"). The code is
-- never stored, only its hash; the seat's secret is stored sealed under the code, so this table
-- alone gives no seat. A code is taken once (its row deleted) and expires within minutes.
CREATE TABLE handoff_codes (
    code_hash  TEXT PRIMARY KEY,
    game_id    TEXT NOT NULL REFERENCES games (id),
    sealed     TEXT NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE INDEX handoff_codes_by_game ON handoff_codes (game_id);
