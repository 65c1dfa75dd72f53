-- The Graph usage (highest percent of X-App-Usage and X-Business-Use-Case-Usage) the account's
-- last sync saw, and when: the scheduler spreads or skips the account's syncs as it nears 80 %.
ALTER TABLE account_sync_state ADD COLUMN graph_usage_percent smallint;
ALTER TABLE account_sync_state ADD COLUMN graph_usage_at timestamptz;
