-- Account e-mails (issue 29), owned by the auth area.

-- When the user proved they read mail at their address (null: not yet). Accounts made before
-- mail existed count as verified: nobody could have verified them.
ALTER TABLE users ADD COLUMN email_verified_at timestamptz;
UPDATE users SET email_verified_at = created_at;

-- Single-use tokens mailed to a user: a password reset (valid 1 hour) or the proof of an
-- address (the current one, or the new one of an e-mail change). Only the SHA-256 is kept.
CREATE TABLE account_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose text NOT NULL CHECK (purpose IN ('password_reset', 'verify_email')),
  token_hash text NOT NULL UNIQUE,
  email text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX account_tokens_user_idx ON account_tokens (user_id, purpose);

-- Requests for account mails (reset, resend verification), for the limits per address and
-- per client address.
CREATE TABLE account_mail_requests (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind text NOT NULL,
  email text NOT NULL,
  ip text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX account_mail_requests_email_idx ON account_mail_requests (kind, email, created_at);
CREATE INDEX account_mail_requests_ip_idx ON account_mail_requests (kind, ip, created_at);
