-- /api/v1/backups pages by (created_at, id), newest first: a cursor that stays put while
-- backups change status (updated_at moves; created_at does not).
CREATE INDEX backups_user_created_idx ON backups (user_id, created_at DESC, id DESC);
CREATE INDEX backups_user_status_created_idx ON backups (user_id, status, created_at DESC, id DESC);
