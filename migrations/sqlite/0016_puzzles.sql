-- Puzzles, each browser's puzzle rating, and attempts (see PostgreSQL's 0016).
CREATE TABLE puzzles (
    id         INTEGER PRIMARY KEY,
    variant    TEXT NOT NULL,
    options    TEXT NOT NULL,
    position   TEXT NOT NULL,
    goal       TEXT NOT NULL CHECK (goal IN ('win', 'draw')),
    line       TEXT NOT NULL,
    rating     REAL NOT NULL,
    deviation  REAL NOT NULL,
    volatility REAL NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0,
    solved     INTEGER NOT NULL DEFAULT 0,
    UNIQUE (variant, options, position)
);

CREATE INDEX puzzles_by_rating ON puzzles (variant, options, rating);

CREATE TABLE puzzle_ratings (
    browser    TEXT PRIMARY KEY,
    rating     REAL NOT NULL,
    deviation  REAL NOT NULL,
    volatility REAL NOT NULL,
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE puzzle_attempts (
    browser   TEXT NOT NULL,
    puzzle_id INTEGER NOT NULL REFERENCES puzzles (id),
    solved    BOOLEAN NOT NULL,
    at        INTEGER NOT NULL,
    PRIMARY KEY (browser, puzzle_id)
) WITHOUT ROWID;
