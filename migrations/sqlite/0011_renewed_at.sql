-- When each instance last renewed its lease (see PostgreSQL's 0011).
ALTER TABLE instances ADD COLUMN renewed_at INTEGER NOT NULL DEFAULT 0;
