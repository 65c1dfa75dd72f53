-- Stories through Instagram Login (issue 30): when graph.instagram.com refuses an account's
-- stories call (an unsupported operation or a missing permission), the sync records it here and
-- goes on with the posts; the account's card then says its stories need Facebook Login.
ALTER TABLE account_sync_state ADD COLUMN stories_refused_at timestamptz;
