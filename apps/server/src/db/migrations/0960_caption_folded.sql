-- Caption search (issue 14) compares a lower-cased copy of each caption, kept by PostgreSQL
-- beside it, with LIKE. ILIKE folded the case of every caption it read on every search, which
-- cost about seven times the match itself (a common word reads thousands of captions); lower()
-- is what ILIKE folds with, so the same captions match. The trigram index moves to the copy.
ALTER TABLE posts ADD COLUMN caption_folded text GENERATED ALWAYS AS (lower(caption)) STORED;
DROP INDEX posts_caption_trgm_idx;
CREATE INDEX posts_caption_trgm_idx ON posts USING gin (caption_folded gin_trgm_ops);
