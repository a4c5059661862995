-- Where clients can reach each instance itself (`https://a.merels.example`), when it has such an
-- address: another instance that a game's socket reaches tells the client to reconnect there.
ALTER TABLE instances ADD COLUMN direct_url TEXT;
