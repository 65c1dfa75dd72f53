-- When a backup of the post first started. A backup row that is new for a post that already
-- has this set means Keepsake lost its record of an earlier attempt: that backup looks in
-- Drive (by appProperties) for files the earlier attempt made. First attempts do not.
ALTER TABLE posts ADD COLUMN backup_started_at timestamptz;

-- A folder Keepsake found in Drive (made by an earlier connection or installation) rather
-- than created: the files in it may already hold some posts, so their backups look first.
ALTER TABLE drive_folders ADD COLUMN adopted boolean NOT NULL DEFAULT false;
