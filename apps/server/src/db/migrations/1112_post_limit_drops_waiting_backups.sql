-- The plan's post limit and the backups agree (issue 36): the claim of 0990, which first
-- marks the posts beyond the limit, now also removes their pending and failed backups, so each
-- post is counted once (backed up, pending, failed, unavailable or beyond the limit) on the
-- dashboard, the Backups list and /api/v1 alike. A completed backup stays: the file is in Drive.
CREATE OR REPLACE FUNCTION claim_backups_for_sync(
  p_account_id uuid, p_user_id uuid, p_sync_job_id uuid, p_now timestamptz,
  p_limit integer, p_reason text
) RETURNS TABLE (post_id uuid, id uuid, posted_at timestamptz) LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  PERFORM apply_post_limit(p_user_id, p_limit, p_reason);
  -- A post the limit leaves out keeps no backup that waits or failed: none would ever run, and
  -- the counts would call it pending or failed while the plan leaves it out (issue 36). Those
  -- held by a running run stay (it counts them); marked posts are few (posts_user_marked_idx).
  DELETE FROM backups b
   USING posts p
   WHERE p.user_id = p_user_id AND p.not_backed_up_reason IS NOT NULL
     AND b.post_id = p.id AND b.status IN ('pending', 'failed')
     AND (b.sync_job_id IS NULL OR NOT EXISTS (
           SELECT 1 FROM sync_jobs j WHERE j.id = b.sync_job_id AND j.status = 'running'));
  RETURN QUERY
  WITH taken AS (
    UPDATE backups b
    SET sync_job_id = p_sync_job_id,
        status = CASE WHEN b.status = 'failed' THEN 'pending' ELSE b.status END,
        error_message = CASE WHEN b.status = 'failed' THEN NULL ELSE b.error_message END,
        updated_at = p_now
    FROM posts p
    WHERE p.id = b.post_id AND b.account_id = p_account_id
      AND p.not_backed_up_reason IS NULL
      AND (b.status = 'pending'
           OR (b.status = 'failed' AND b.retry_on_sync)
           OR (b.status = 'processing' AND b.lease_expires_at < p_now))
    RETURNING b.post_id, b.id, p.posted_at
  )
  SELECT t.post_id, t.id, t.posted_at FROM taken t;
  -- Each backup row belongs to one post of its account, so when the account's counters (0700)
  -- hold as many backups as posts, no post lacks one and the scan is skipped.
  IF (SELECT coalesce(sum(n), 0) FROM post_counts WHERE account_id = p_account_id)
     > (SELECT coalesce(sum(n), 0) FROM backup_counts WHERE account_id = p_account_id) THEN
    RETURN QUERY
    WITH created AS (
      INSERT INTO backups (post_id, user_id, account_id, sync_job_id, status, created_at, updated_at)
      SELECT p.id, p.user_id, p.account_id, p_sync_job_id, 'pending', p_now, p_now
      FROM posts p
      WHERE p.account_id = p_account_id AND p.user_id = p_user_id
        AND p.not_backed_up_reason IS NULL
        AND NOT EXISTS (SELECT 1 FROM backups b WHERE b.post_id = p.id)
      ON CONFLICT (post_id) DO NOTHING
      RETURNING backups.post_id, backups.id
    )
    SELECT c.post_id, c.id, p.posted_at FROM created c JOIN posts p ON p.id = c.post_id;
  END IF;
END $$;
