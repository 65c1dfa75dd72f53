-- Instagram media Keepsake knows of, per account (posts, reels, carousels, stories).
CREATE TABLE posts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Denormalised owner: every read is scoped to the caller's user id.
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES instagram_accounts (id) ON DELETE CASCADE,
  instagram_id text NOT NULL,
  media_type text NOT NULL CHECK (media_type IN ('IMAGE', 'VIDEO', 'CAROUSEL_ALBUM')),
  media_product_type text CHECK (media_product_type IN ('FEED', 'REELS', 'STORY', 'AD')),
  caption text,
  posted_at timestamptz NOT NULL,
  like_count integer,
  comments_count integer,
  permalink text,
  shortcode text,
  -- Signed CDN URLs: they expire, the backup re-fetches them from Graph when they do.
  media_url text,
  thumbnail_url text,
  -- [{id, media_type, media_url, thumbnail_url}] for carousels.
  children jsonb NOT NULL DEFAULT '[]'::jsonb,
  -- Why the post is not backed up (beyond the plan's limit); null when it may be.
  not_backed_up_reason text,
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, instagram_id)
);
-- The posts grid and the plan-limit ranking: newest first per user / account, by type.
CREATE INDEX posts_user_posted_idx ON posts (user_id, posted_at DESC, id);
CREATE INDEX posts_account_posted_idx ON posts (account_id, posted_at DESC, id);
CREATE INDEX posts_user_type_posted_idx ON posts (user_id, media_type, posted_at DESC);

-- Sync runs (SPEC §3 "Sync job"): one running per account at a time.
CREATE TABLE sync_jobs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  account_id uuid REFERENCES instagram_accounts (id) ON DELETE SET NULL,
  job_type text NOT NULL CHECK (job_type IN ('scheduled_sync', 'manual')),
  -- backup: list and back up; refresh: list only (the posts grid's Refresh).
  mode text NOT NULL DEFAULT 'backup' CHECK (mode IN ('backup', 'refresh')),
  status text NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'cancelled')),
  posts_processed integer NOT NULL DEFAULT 0,
  posts_total integer NOT NULL DEFAULT 0,
  error_message text,
  started_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  -- Touched by the sync and by each backup it counts; a running job untouched for long is stale.
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX sync_jobs_one_running_idx ON sync_jobs (account_id) WHERE status = 'running';
CREATE INDEX sync_jobs_user_started_idx ON sync_jobs (user_id, started_at DESC);

-- One backup per post (SPEC §3 Backup).
CREATE TABLE backups (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  post_id uuid NOT NULL UNIQUE REFERENCES posts (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES instagram_accounts (id) ON DELETE CASCADE,
  -- The sync run that counts this backup in its progress, if any.
  sync_job_id uuid REFERENCES sync_jobs (id) ON DELETE SET NULL,
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  error_message text,
  -- A failure that the next sync may retry by itself (transient); false when a person must act.
  retry_on_sync boolean NOT NULL DEFAULT false,
  backup_size_bytes bigint,
  md5 text,
  google_drive_file_id text,
  google_drive_url text,
  -- Which worker holds the backup, and until when (renewed while it works).
  lease_token uuid,
  lease_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  completed_at timestamptz
);
CREATE INDEX backups_user_status_idx ON backups (user_id, status, updated_at DESC);
CREATE INDEX backups_account_status_idx ON backups (account_id, status);
CREATE INDEX backups_sync_job_idx ON backups (sync_job_id) WHERE sync_job_id IS NOT NULL;

-- Every Drive file of a backup (each media item and the sidecar), recorded the moment it exists.
CREATE TABLE backup_files (
  backup_id uuid NOT NULL REFERENCES backups (id) ON DELETE CASCADE,
  -- The item's keepsakeMediaId (an Instagram media id, or `<id>_meta` for the sidecar).
  item_key text NOT NULL,
  name text NOT NULL,
  drive_file_id text,
  size_bytes bigint,
  md5 text,
  web_url text,
  -- An open resumable session, kept so another worker can resume it after a crash.
  upload_session_uri text,
  upload_total bigint,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (backup_id, item_key)
);

-- Drive folders Keepsake created (Keepsake/, Keepsake/@user/, Keepsake/@user/YYYY/), per Google account.
CREATE TABLE drive_folders (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  google_sub text NOT NULL,
  path text NOT NULL,
  folder_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, google_sub, path)
);

-- Per-account sync state: whether the whole history was walked once.
CREATE TABLE account_sync_state (
  account_id uuid PRIMARY KEY REFERENCES instagram_accounts (id) ON DELETE CASCADE,
  history_complete_at timestamptz,
  last_sync_at timestamptz
);
