-- instagram_accounts.last_sync_at was never written: the last sync of an account is
-- account_sync_state.last_sync_at, written by every sync.
ALTER TABLE instagram_accounts DROP COLUMN IF EXISTS last_sync_at;
