-- Issue 31: Instagram's data export imported into Drive. The import area owns these tables.
-- One row per post, reel or story of an export, per account: its key (the first media id in
-- the export's file names, else a digest of its file's path) makes a second import of the same
-- export add nothing. Nothing of the media is kept: only what each file became in Drive.
CREATE TABLE import_items (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES instagram_accounts (id) ON DELETE CASCADE,
  item_key text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('post', 'reel', 'story', 'archived_post')),
  taken_at timestamptz NOT NULL,
  caption text,
  -- pending: to import; completed: every file and the sidecar in Drive; known: Keepsake already
  -- has it from the API; over_limit: beyond the plan's post limit (re-judged on every plan).
  status text NOT NULL CHECK (status IN ('pending', 'completed', 'known', 'over_limit')),
  sidecar_file_id text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  completed_at timestamptz,
  UNIQUE (account_id, item_key)
);
CREATE INDEX import_items_user ON import_items (user_id, taken_at DESC);

-- Each media file of an item: an open resumable session (sealed) is recorded before its first
-- byte, the Drive file id the moment it exists, so a request cut off mid-file resumes or adopts
-- what Drive holds instead of uploading again.
CREATE TABLE import_files (
  item_id uuid NOT NULL REFERENCES import_items (id) ON DELETE CASCADE,
  file_key text NOT NULL,
  position integer NOT NULL,
  uri text NOT NULL,
  name text NOT NULL,
  media_type text NOT NULL,
  drive_file_id text,
  size_bytes bigint,
  md5 text,
  upload_session_uri text,
  upload_total bigint,
  started_at timestamptz,
  -- The request uploading the file holds it until then (renewed as it goes, released at its end).
  lease_until timestamptz,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (item_id, file_key)
);
