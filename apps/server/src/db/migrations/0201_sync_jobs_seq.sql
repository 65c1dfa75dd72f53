-- Creation order of sync runs: started_at can tie (same clock reading), the sequence cannot.
ALTER TABLE sync_jobs ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
DROP INDEX sync_jobs_user_started_idx;
CREATE INDEX sync_jobs_user_started_idx ON sync_jobs (user_id, started_at DESC, seq DESC);
