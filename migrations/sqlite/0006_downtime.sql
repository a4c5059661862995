-- Time the server was down is charged to nobody's clock. Every running server writes when it was
-- last alive (every few seconds, and as it stops); one that starts after a silence longer than
-- that records the silence as an outage, and a game's clock, when loaded, does not count the
-- outages since its last turn.
CREATE TABLE heartbeat (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    alive_at BIGINT NOT NULL
);

CREATE TABLE outages (
    began_at BIGINT NOT NULL,
    ended_at BIGINT NOT NULL
);
