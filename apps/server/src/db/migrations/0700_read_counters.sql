-- Counters behind the posts grid's and the dashboard's totals (issue 14): count(*) over a
-- million posts took 120-150 ms warm. Kept exact by statement-level triggers: each statement
-- adds its net change per key, and ON CONFLICT makes the first writer of a key and a
-- concurrent one agree. Writers of one account's counters take turns: each trigger first takes
-- the account's transaction-level advisory lock (in account order), so two transactions never
-- hold counter rows the other waits for (an upsert fires an INSERT and an UPDATE trigger, whose
-- keys need not come in order). Rows that reach zero are removed, so deleted accounts and users
-- leave nothing behind.

-- The advisory lock of the accounts whose counters a statement changes (class 700).
CREATE FUNCTION lock_account_counters(accounts uuid[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE a uuid;
BEGIN
  FOR a IN SELECT DISTINCT x FROM unnest(accounts) AS x ORDER BY 1 LOOP
    PERFORM pg_advisory_xact_lock(700, hashtext(a::text));
  END LOOP;
END $$;

-- Writers that started before this migration must not slip between the backfill and the triggers.
LOCK TABLE posts, backups IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE post_counts (
  user_id uuid NOT NULL,
  account_id uuid NOT NULL,
  media_type text NOT NULL,
  is_story boolean NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (user_id, account_id, media_type, is_story)
);
CREATE INDEX post_counts_account_idx ON post_counts (account_id);

CREATE TABLE backup_counts (
  user_id uuid NOT NULL,
  account_id uuid NOT NULL,
  status text NOT NULL,
  n bigint NOT NULL,
  -- Sum of backup_size_bytes (0 for none).
  bytes bigint NOT NULL,
  PRIMARY KEY (user_id, account_id, status)
);
CREATE INDEX backup_counts_account_idx ON backup_counts (account_id);

CREATE FUNCTION post_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM lock_account_counters(ARRAY(SELECT DISTINCT account_id FROM new_rows));
    INSERT INTO post_counts AS c (user_id, account_id, media_type, is_story, n)
    SELECT user_id, account_id, media_type, media_product_type IS NOT DISTINCT FROM 'STORY', count(*)
    FROM new_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (user_id, account_id, media_type, is_story) DO UPDATE SET n = c.n + excluded.n;
    RETURN NULL;
  END IF;
  -- Most updates (a sync seeing a post again) change neither its type nor story-ness.
  -- (Nested: a DELETE has no new_rows to plan a query on.)
  IF TG_OP = 'UPDATE' THEN
    IF NOT EXISTS (
      SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE o.media_type IS DISTINCT FROM n.media_type
         OR o.media_product_type IS DISTINCT FROM n.media_product_type) THEN
      RETURN NULL;
    END IF;
  END IF;
  PERFORM lock_account_counters(ARRAY(SELECT DISTINCT account_id FROM old_rows));
  IF TG_OP = 'DELETE' THEN
    INSERT INTO post_counts AS c (user_id, account_id, media_type, is_story, n)
    SELECT user_id, account_id, media_type, media_product_type IS NOT DISTINCT FROM 'STORY', -count(*)
    FROM old_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (user_id, account_id, media_type, is_story) DO UPDATE SET n = c.n + excluded.n;
  ELSE
    INSERT INTO post_counts AS c (user_id, account_id, media_type, is_story, n)
    SELECT user_id, account_id, media_type, is_story, sum(d)
    FROM (SELECT user_id, account_id, media_type,
                 media_product_type IS NOT DISTINCT FROM 'STORY' AS is_story, 1 AS d FROM new_rows
          UNION ALL
          SELECT user_id, account_id, media_type,
                 media_product_type IS NOT DISTINCT FROM 'STORY', -1 FROM old_rows) x
    GROUP BY 1, 2, 3, 4 HAVING sum(d) <> 0 ORDER BY 1, 2, 3, 4
    ON CONFLICT (user_id, account_id, media_type, is_story) DO UPDATE SET n = c.n + excluded.n;
  END IF;
  DELETE FROM post_counts
  WHERE n = 0 AND (user_id, account_id) IN (SELECT DISTINCT user_id, account_id FROM old_rows);
  RETURN NULL;
END $$;

CREATE TRIGGER posts_count_insert AFTER INSERT ON posts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION post_counts_apply();
CREATE TRIGGER posts_count_update AFTER UPDATE ON posts
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION post_counts_apply();
CREATE TRIGGER posts_count_delete AFTER DELETE ON posts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION post_counts_apply();

CREATE FUNCTION backup_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM lock_account_counters(ARRAY(SELECT DISTINCT account_id FROM new_rows));
    INSERT INTO backup_counts AS c (user_id, account_id, status, n, bytes)
    SELECT user_id, account_id, status, count(*), coalesce(sum(backup_size_bytes), 0)
    FROM new_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (user_id, account_id, status)
      DO UPDATE SET n = c.n + excluded.n, bytes = c.bytes + excluded.bytes;
    RETURN NULL;
  END IF;
  -- Most updates (leases, progress) change neither the status nor the size.
  -- (Nested: a DELETE has no new_rows to plan a query on.)
  IF TG_OP = 'UPDATE' THEN
    IF NOT EXISTS (
      SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE o.status IS DISTINCT FROM n.status
         OR o.backup_size_bytes IS DISTINCT FROM n.backup_size_bytes) THEN
      RETURN NULL;
    END IF;
  END IF;
  PERFORM lock_account_counters(ARRAY(SELECT DISTINCT account_id FROM old_rows));
  IF TG_OP = 'DELETE' THEN
    INSERT INTO backup_counts AS c (user_id, account_id, status, n, bytes)
    SELECT user_id, account_id, status, -count(*), -coalesce(sum(backup_size_bytes), 0)
    FROM old_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (user_id, account_id, status)
      DO UPDATE SET n = c.n + excluded.n, bytes = c.bytes + excluded.bytes;
  ELSE
    INSERT INTO backup_counts AS c (user_id, account_id, status, n, bytes)
    SELECT user_id, account_id, status, sum(d), sum(b)
    FROM (SELECT user_id, account_id, status, 1 AS d, coalesce(backup_size_bytes, 0) AS b
          FROM new_rows
          UNION ALL
          SELECT user_id, account_id, status, -1, -coalesce(backup_size_bytes, 0) FROM old_rows) x
    GROUP BY 1, 2, 3 HAVING sum(d) <> 0 OR sum(b) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (user_id, account_id, status)
      DO UPDATE SET n = c.n + excluded.n, bytes = c.bytes + excluded.bytes;
  END IF;
  DELETE FROM backup_counts
  WHERE n = 0 AND (user_id, account_id) IN (SELECT DISTINCT user_id, account_id FROM old_rows);
  RETURN NULL;
END $$;

CREATE TRIGGER backups_count_insert AFTER INSERT ON backups
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION backup_counts_apply();
CREATE TRIGGER backups_count_update AFTER UPDATE ON backups
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION backup_counts_apply();
CREATE TRIGGER backups_count_delete AFTER DELETE ON backups
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION backup_counts_apply();

INSERT INTO post_counts (user_id, account_id, media_type, is_story, n)
SELECT user_id, account_id, media_type, media_product_type IS NOT DISTINCT FROM 'STORY', count(*)
FROM posts GROUP BY 1, 2, 3, 4;

INSERT INTO backup_counts (user_id, account_id, status, n, bytes)
SELECT user_id, account_id, status, count(*), coalesce(sum(backup_size_bytes), 0)
FROM backups GROUP BY 1, 2, 3;
