-- Issue 36: what an import put in Drive is part of the archive. Each completed item of an
-- export becomes a post of its account (source 'export': "from your export") with a completed
-- backup, so the grid, /backups and every count (post_counts, backup_counts, the dashboard's
-- stats) include it with no second definition. Its instagram_id is the item's key (its media
-- id, else `x` and a digest): one post however often the export is imported. The sync never
-- lists such a post unless Instagram serves it again (an unarchived post), and then updates
-- the same row.
ALTER TABLE posts ADD COLUMN source text NOT NULL DEFAULT 'api'
  CHECK (source IN ('api', 'export'));
-- Imported posts are few: the new-posts check and the import's plan limit leave them out by it.
CREATE INDEX posts_user_export_idx ON posts (user_id) WHERE source = 'export';

-- The Drive link of each imported file (the backup's "View").
ALTER TABLE import_files ADD COLUMN web_url text;

-- Items completed before this migration.
INSERT INTO posts (user_id, account_id, instagram_id, media_type, media_product_type, caption,
                   posted_at, children, source, first_seen_at, updated_at)
SELECT i.user_id, i.account_id, i.item_key,
       CASE WHEN f.n > 1 THEN 'CAROUSEL_ALBUM' ELSE coalesce(f.first_type, 'IMAGE') END,
       CASE i.kind WHEN 'story' THEN 'STORY' WHEN 'reel' THEN 'REELS' ELSE 'FEED' END,
       i.caption, i.taken_at,
       CASE WHEN f.n > 1 THEN f.children ELSE '[]'::jsonb END,
       'export', coalesce(i.completed_at, i.updated_at), coalesce(i.completed_at, i.updated_at)
  FROM import_items i
  CROSS JOIN LATERAL (
    SELECT count(*) AS n,
           (array_agg(media_type ORDER BY position))[1] AS first_type,
           jsonb_agg(jsonb_build_object('id', file_key, 'media_type', media_type,
                                        'media_url', NULL, 'thumbnail_url', NULL)
                     ORDER BY position) AS children
      FROM import_files WHERE item_id = i.id
  ) f
 WHERE i.status = 'completed'
ON CONFLICT (account_id, instagram_id) DO NOTHING;

INSERT INTO backups (post_id, user_id, account_id, status, backup_size_bytes, md5,
                     google_drive_file_id, created_at, updated_at, started_at, completed_at)
SELECT p.id, p.user_id, p.account_id, 'completed', f.bytes, f.md5, f.drive_file_id,
       p.first_seen_at, p.first_seen_at, p.first_seen_at, p.first_seen_at
  FROM posts p
  JOIN import_items i ON i.account_id = p.account_id AND i.item_key = p.instagram_id
  CROSS JOIN LATERAL (
    SELECT coalesce(sum(size_bytes), 0) AS bytes,
           (array_agg(md5 ORDER BY position))[1] AS md5,
           (array_agg(drive_file_id ORDER BY position))[1] AS drive_file_id
      FROM import_files WHERE item_id = i.id
  ) f
 WHERE p.source = 'export'
ON CONFLICT (post_id) DO NOTHING;
