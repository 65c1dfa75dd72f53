-- Issue 36: what Meta and Google tell Keepsake about its users' grants.
-- The person Meta's deauthorize and data-deletion callbacks name for an account: the app-scoped
-- Instagram user of the token exchange (Instagram Login) or the app-scoped Facebook user
-- (Facebook Login). Accounts connected before this migration learn it at their next connection;
-- until then the Instagram account's own id is matched too.
ALTER TABLE instagram_accounts ADD COLUMN meta_user_id text;
CREATE INDEX instagram_accounts_meta_user ON instagram_accounts (meta_user_id)
  WHERE meta_user_id IS NOT NULL;

-- A data-deletion request from Meta: the confirmation code Meta shows the person and the status
-- its URL reports. Nothing that identifies the person is kept: only what was erased and when.
CREATE TABLE data_deletion_requests (
  confirmation_code text PRIMARY KEY,
  provider text NOT NULL CHECK (provider IN ('instagram', 'facebook')),
  accounts_erased integer NOT NULL,
  requested_at timestamptz NOT NULL,
  completed_at timestamptz NOT NULL
);
