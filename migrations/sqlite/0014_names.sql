-- Players' names (see PostgreSQL's 0014): one per seat, and the speaker's on each chat line as
-- it was when the line was said.
ALTER TABLE games ADD COLUMN white_name TEXT CHECK (length(white_name) BETWEEN 1 AND 20);
ALTER TABLE games ADD COLUMN black_name TEXT CHECK (length(black_name) BETWEEN 1 AND 20);
ALTER TABLE chat_lines ADD COLUMN author_name TEXT CHECK (length(author_name) BETWEEN 1 AND 20);
