-- How a backup ends, and how its sync run counts it (issue 26).

-- Media Instagram does not give out (some reels): the backup is "unavailable", not failed. The
-- post's sidecar is in Drive; there is nothing to retry.
ALTER TABLE backups DROP CONSTRAINT backups_status_check;
ALTER TABLE backups ADD CONSTRAINT backups_status_check
  CHECK (status IN ('pending', 'processing', 'completed', 'failed', 'unavailable'));

-- A file found already in Drive is a completed backup of its post, shown as such: backups an
-- earlier version recorded as "skipped duplicate" (hidden in the Backups table) are shown again.
UPDATE backups SET error_message = NULL
 WHERE status = 'completed' AND error_message = 'skipped duplicate';

-- A full Drive waits for the user to free space, then the next sync retries; withheld media is
-- tried once more by the next sync, which records it as unavailable and writes its sidecar.
UPDATE backups SET retry_on_sync = true
 WHERE status = 'failed' AND NOT retry_on_sync
   AND error_message IN (
     'Your Google Drive is full. Free up space or buy more storage, then retry.',
     'Instagram does not provide this media for download (for example a reel with licensed music), so it cannot be backed up.');

-- A run's counts from its backups: how many it holds, how many of them ended (completed,
-- failed, unavailable); a running run whose backups all ended is completed. The run's row is
-- locked first, so writers of its counts take turns, and the count (a statement of its own,
-- with a snapshot taken after the lock) sees every backup the writer before it committed.
CREATE FUNCTION settle_sync_run(p_run uuid, p_now timestamptz)
RETURNS SETOF sync_jobs LANGUAGE plpgsql AS $$
DECLARE v_total integer; v_done integer;
BEGIN
  PERFORM 1 FROM sync_jobs WHERE id = p_run AND status = 'running' FOR UPDATE;
  IF NOT FOUND THEN RETURN; END IF;
  SELECT count(*), count(*) FILTER (WHERE status IN ('completed', 'failed', 'unavailable'))
    INTO v_total, v_done
    FROM backups WHERE sync_job_id = p_run;
  RETURN QUERY
  UPDATE sync_jobs SET
    posts_total = v_total,
    posts_processed = v_done,
    heartbeat_at = p_now,
    status = CASE WHEN v_total > 0 AND v_done >= v_total THEN 'completed' ELSE status END,
    completed_at = CASE WHEN v_total > 0 AND v_done >= v_total THEN p_now ELSE completed_at END
  WHERE id = p_run
  RETURNING *;
END $$;
