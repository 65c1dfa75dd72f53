-- Indexes that match each filter of the posts grid and the Backups list (issue 14), in the
-- order they are shown, so a page is read from an index instead of sorting a user's rows.

-- Caption search (ILIKE '%…%') by trigram. In public, so every schema on the search_path
-- (one per test file on a shared server) finds its operator class.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
CREATE INDEX posts_caption_trgm_idx ON posts USING gin (caption gin_trgm_ops);

-- Posts grid: newest first by user (posts_user_posted_idx), by type, by account, by both.
DROP INDEX posts_user_type_posted_idx;
CREATE INDEX posts_user_type_posted_idx ON posts (user_id, media_type, posted_at DESC, id);
CREATE INDEX posts_user_account_posted_idx ON posts (user_id, account_id, posted_at DESC, id);
CREATE INDEX posts_user_account_type_posted_idx
  ON posts (user_id, account_id, media_type, posted_at DESC, id);

-- Backups list: most recently changed first, by user or account, with or without a status.
DROP INDEX backups_user_status_idx;
CREATE INDEX backups_user_status_idx ON backups (user_id, status, updated_at DESC, id DESC);
CREATE INDEX backups_user_updated_idx ON backups (user_id, updated_at DESC, id DESC);
CREATE INDEX backups_user_account_status_idx
  ON backups (user_id, account_id, status, updated_at DESC, id DESC);
CREATE INDEX backups_user_account_updated_idx
  ON backups (user_id, account_id, updated_at DESC, id DESC);
