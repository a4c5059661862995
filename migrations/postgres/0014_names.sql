-- Players' names: a label each seat's holder may give (1 to 20 characters, checked and
-- normalised by the server, src/protocol/name.rs), shown on the seat and in the record; and the
-- speaker's name on each chat line as it was when the line was said (a later change of name
-- does not rewrite what was said). NULL: no name given.
ALTER TABLE games ADD COLUMN white_name TEXT CHECK (char_length(white_name) BETWEEN 1 AND 20);
ALTER TABLE games ADD COLUMN black_name TEXT CHECK (char_length(black_name) BETWEEN 1 AND 20);
ALTER TABLE chat_lines ADD COLUMN author_name TEXT
    CHECK (char_length(author_name) BETWEEN 1 AND 20);
