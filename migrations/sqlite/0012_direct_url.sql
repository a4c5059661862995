-- Where clients can reach each instance itself (see PostgreSQL's 0012).
ALTER TABLE instances ADD COLUMN direct_url TEXT;
