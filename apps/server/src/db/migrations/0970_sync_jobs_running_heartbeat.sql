-- Every sync starts by failing running syncs whose worker died (no heartbeat for 30 minutes).
-- sync_jobs gains a row per sync of every account, so that sweep reads only the running rows.
CREATE INDEX sync_jobs_running_heartbeat_idx ON sync_jobs (heartbeat_at) WHERE status = 'running';
