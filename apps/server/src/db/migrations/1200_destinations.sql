-- Issue 38: backups go to Google Drive, Dropbox, OneDrive or S3-compatible storage, chosen per
-- Instagram account. Google Drive stays every account's default, so nothing changes for
-- existing users.

-- The destinations other than Drive, one of each kind per user. Dropbox and OneDrive hold an
-- OAuth refresh token (sealed); S3 holds the settings and keys the user gave (sealed JSON).
CREATE TABLE destination_connections (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('dropbox', 'onedrive', 's3')),
  -- The provider's id of the account (Dropbox account_id, Microsoft user id) or, for S3,
  -- the endpoint and bucket.
  external_id text NOT NULL,
  -- What the user recognises it by: the account's e-mail, or `bucket at host`.
  label text NOT NULL,
  credentials_encrypted text NOT NULL,
  access_token_encrypted text,
  access_token_expires_at timestamptz,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'needs_reconnection')),
  status_reason text,
  connected_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, kind)
);

ALTER TABLE oauth_states DROP CONSTRAINT IF EXISTS oauth_states_provider_check;
ALTER TABLE oauth_states ADD CONSTRAINT oauth_states_provider_check
  CHECK (provider IN ('instagram', 'facebook', 'google', 'dropbox', 'onedrive'));

-- Where each account's backups go.
ALTER TABLE instagram_accounts ADD COLUMN destination text NOT NULL DEFAULT 'google_drive'
  CHECK (destination IN ('google_drive', 'dropbox', 'onedrive', 's3'));

-- Where a backup is being made or was made: the account's destination when it last started.
ALTER TABLE backups ADD COLUMN destination text NOT NULL DEFAULT 'google_drive'
  CHECK (destination IN ('google_drive', 'dropbox', 'onedrive', 's3'));

-- The ledger keeps each destination's files apart: an account switched back to a destination
-- finds what it wrote there before and writes nothing twice.
ALTER TABLE backup_files ADD COLUMN destination text NOT NULL DEFAULT 'google_drive'
  CHECK (destination IN ('google_drive', 'dropbox', 'onedrive', 's3'));
ALTER TABLE backup_files DROP CONSTRAINT backup_files_pkey;
ALTER TABLE backup_files ADD PRIMARY KEY (backup_id, destination, item_key);

-- A post's comments file is written beside its sidecar, in the destination it was written to:
-- after a switch, the file recorded in the old destination is not replaced in the new one.
ALTER TABLE comment_reads ADD COLUMN drive_destination text NOT NULL DEFAULT 'google_drive'
  CHECK (drive_destination IN ('google_drive', 'dropbox', 'onedrive', 's3'));

-- An export's item goes where its account's backups went when it was first imported; its
-- files and sidecar all go there, and its backup says so.
ALTER TABLE import_items ADD COLUMN destination text NOT NULL DEFAULT 'google_drive'
  CHECK (destination IN ('google_drive', 'dropbox', 'onedrive', 's3'));
