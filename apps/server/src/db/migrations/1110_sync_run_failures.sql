-- A run counts the backups that failed (issue 36): a run whose backups failed is never reported
-- as a success. The backups area's finishBackup counts each failure as it counts the run's
-- ended backups; settle_sync_run (0997) counts them from the run's backups.
ALTER TABLE sync_jobs ADD COLUMN posts_failed integer NOT NULL DEFAULT 0;

UPDATE sync_jobs j SET posts_failed = f.n
  FROM (SELECT sync_job_id, count(*)::int AS n FROM backups
         WHERE status = 'failed' AND sync_job_id IS NOT NULL GROUP BY sync_job_id) f
 WHERE f.sync_job_id = j.id;

CREATE OR REPLACE FUNCTION settle_sync_run(p_run uuid, p_now timestamptz)
RETURNS SETOF sync_jobs LANGUAGE plpgsql AS $$
DECLARE v_total integer; v_done integer; v_failed integer;
BEGIN
  PERFORM 1 FROM sync_jobs WHERE id = p_run AND status = 'running' FOR UPDATE;
  IF NOT FOUND THEN RETURN; END IF;
  SELECT count(*), count(*) FILTER (WHERE status IN ('completed', 'failed', 'unavailable')),
         count(*) FILTER (WHERE status = 'failed')
    INTO v_total, v_done, v_failed
    FROM backups WHERE sync_job_id = p_run;
  RETURN QUERY
  UPDATE sync_jobs SET
    posts_total = v_total,
    posts_processed = v_done,
    posts_failed = v_failed,
    heartbeat_at = p_now,
    status = CASE WHEN v_total > 0 AND v_done >= v_total THEN 'completed' ELSE status END,
    completed_at = CASE WHEN v_total > 0 AND v_done >= v_total THEN p_now ELSE completed_at END
  WHERE id = p_run
  RETURNING *;
END $$;
