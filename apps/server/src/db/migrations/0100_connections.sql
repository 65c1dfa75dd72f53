-- OAuth `state`: the signed state carries this row's id; a row is used once, by its user, before expires_at.
CREATE TABLE oauth_states (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider text NOT NULL CHECK (provider IN ('instagram', 'facebook', 'google')),
  account_type text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX oauth_states_expires_at_idx ON oauth_states (expires_at);

-- Instagram professional accounts, many per user; one Instagram account belongs to one user.
CREATE TABLE instagram_accounts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- The professional account id (`user_id` of /me; `instagram_business_account.id` via Facebook).
  instagram_user_id text NOT NULL UNIQUE,
  connected_via text NOT NULL CHECK (connected_via IN ('instagram', 'facebook')),
  facebook_page_id text,
  username text NOT NULL,
  display_name text,
  account_type text,
  profile_picture_url text,
  followers_count integer NOT NULL DEFAULT 0,
  follows_count integer NOT NULL DEFAULT 0,
  media_count integer NOT NULL DEFAULT 0,
  -- AES-256-GCM sealed (lib/crypto.ts); never the token itself.
  access_token_encrypted text NOT NULL,
  token_issued_at timestamptz NOT NULL,
  token_expires_at timestamptz,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'needs_reconnection')),
  status_reason text,
  last_validated_at timestamptz,
  last_sync_at timestamptz,
  connected_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX instagram_accounts_user_id_idx ON instagram_accounts (user_id, connected_at);
CREATE INDEX instagram_accounts_token_expires_at_idx ON instagram_accounts (token_expires_at)
  WHERE status = 'active';

-- One Google Drive connection per user.
CREATE TABLE google_connections (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL UNIQUE REFERENCES users (id) ON DELETE CASCADE,
  google_sub text NOT NULL,
  google_email text NOT NULL,
  scopes text NOT NULL,
  refresh_token_encrypted text NOT NULL,
  access_token_encrypted text,
  access_token_expires_at timestamptz,
  root_folder_id text,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'needs_reconnection')),
  status_reason text,
  last_validated_at timestamptz,
  connected_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
