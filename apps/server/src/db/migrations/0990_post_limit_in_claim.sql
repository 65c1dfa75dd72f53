-- The plan's post limit as a function, and the claim applies it first: an unchanged sync then
-- sends one statement for both, not two, and neither is planned again on every sync (a PL/pgSQL
-- function keeps its statements' plans for the session; see 0980).
--
-- apply_post_limit marks the user's posts beyond the newest p_limit with p_reason and clears
-- the mark of the others; with no limit (NULL) it clears every mark. Only rows whose mark
-- changes are written.
CREATE FUNCTION apply_post_limit(p_user_id uuid, p_limit integer, p_reason text)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF p_limit IS NULL THEN
    UPDATE posts SET not_backed_up_reason = NULL
     WHERE user_id = p_user_id AND not_backed_up_reason IS NOT NULL;
    RETURN;
  END IF;
  UPDATE posts SET not_backed_up_reason = r.reason
    FROM (
      SELECT id,
             CASE WHEN row_number() OVER (ORDER BY posted_at DESC, id) > p_limit
                  THEN p_reason END AS reason
        FROM posts WHERE user_id = p_user_id
    ) r
   WHERE posts.id = r.id AND posts.not_backed_up_reason IS DISTINCT FROM r.reason;
END $$;

-- The claim of 0980, after the post limit (a statement of a function sees the writes of the
-- statements before it).
DROP FUNCTION claim_backups_for_sync(uuid, uuid, uuid, timestamptz);
CREATE FUNCTION claim_backups_for_sync(
  p_account_id uuid, p_user_id uuid, p_sync_job_id uuid, p_now timestamptz,
  p_limit integer, p_reason text
) RETURNS TABLE (post_id uuid, id uuid, posted_at timestamptz) LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  PERFORM apply_post_limit(p_user_id, p_limit, p_reason);
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
  ), taken AS (
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
  SELECT c.post_id, c.id, p.posted_at FROM created c JOIN posts p ON p.id = c.post_id
  UNION ALL
  SELECT t.post_id, t.id, t.posted_at FROM taken t
  ORDER BY 3 DESC;
END $$;
