/**
 * Seeding for `npm run bench:api`: one user's account with N posts and their backups, written
 * by set-based SQL (generate_series, one statement per chunk), never row by row.
 */
import type pg from "pg";

/** Words of the generated captions (three per caption): each is in about 3 captions in 40. */
export const CAPTION_WORDS = (
  "golden hour studio portrait sunset coffee morning city lights beach mountain " +
  "forest product launch behind scenes team office recipe kitchen travel summer " +
  "winter autumn spring market street design fashion vintage ocean garden flowers " +
  "family friends concert festival workshop reel tutorial"
).split(" ");
/** Hashtags of the generated captions; each appears in about 1 caption in 50. */
export const CAPTION_TAGS = Array.from({ length: 50 }, (_, i) => `tag${i}`);

const CHUNK = 100_000;
const BASE_ID = 17_900_000_000_000_000n;

const sqlArray = (xs: readonly string[]) => `(ARRAY[${xs.map((x) => `'${x}'`).join(",")}])`;

export interface SeedResult {
  accountId: string;
  posts: number;
  backups: number;
  seconds: number;
}

/**
 * Seeds `count` posts for `userId` (newest every 7 minutes back from `now`): a third each images,
 * videos and carousels, every 50th a story; captions of three words and a hashtag. Backups:
 * 19 in 20 posts have one — 80 % completed (1 MiB each), the rest pending, processing or failed.
 */
export async function seedPosts(
  pool: pg.Pool,
  userId: string,
  count: number,
  now: Date,
  progress: (done: number) => void,
): Promise<SeedResult> {
  const t0 = performance.now();
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO instagram_accounts
       (user_id, instagram_user_id, connected_via, username, access_token_encrypted,
        token_issued_at, media_count)
     VALUES ($1, '17841499999999999', 'instagram', 'bench.studio', 'not-a-token', $2, $3)
     RETURNING id`,
    [userId, now, count],
  );
  const accountId = rows[0]?.id as string;
  const words = sqlArray(CAPTION_WORDS);
  const tags = sqlArray(CAPTION_TAGS);
  let backups = 0;
  for (let start = 1; start <= count; start += CHUNK) {
    const end = Math.min(count, start + CHUNK - 1);
    // One statement per chunk: the posts, then backups for the posts it just wrote.
    const r = await pool.query(
      `WITH p AS (
         INSERT INTO posts (user_id, account_id, instagram_id, media_type, media_product_type,
                            caption, posted_at, like_count, comments_count, permalink,
                            media_url, thumbnail_url, first_seen_at, updated_at)
         SELECT $1, $2, ($3::bigint + g)::text,
                (ARRAY['IMAGE', 'VIDEO', 'CAROUSEL_ALBUM'])[1 + g % 3],
                CASE WHEN g % 50 = 0 THEN 'STORY' WHEN g % 3 = 1 AND g % 7 = 0 THEN 'REELS'
                     ELSE 'FEED' END,
                initcap(${words}[1 + (g::bigint * 7919) % 40]) || ' ' || ${words}[1 + (g::bigint * 104729) % 40]
                  || ' ' || ${words}[1 + (g::bigint * 15485863) % 40] || ' #' || ${tags}[1 + (g * 31) % 50],
                $4::timestamptz - g * interval '7 minutes', g % 997, g % 31,
                'https://www.instagram.com/p/B' || g || '/',
                'https://cdn.example/' || g || '.jpg', 'https://cdn.example/' || g || '_t.jpg',
                $4::timestamptz, $4::timestamptz
         FROM generate_series($5::int, $6::int) AS g
         RETURNING id, user_id, account_id, instagram_id, posted_at
       )
       INSERT INTO backups (post_id, user_id, account_id, status, attempts, error_message,
                            backup_size_bytes, created_at, updated_at, completed_at)
       SELECT id, user_id, account_id, s.status, 1,
              CASE WHEN s.status = 'failed' THEN 'Instagram is not responding right now.' END,
              CASE WHEN s.status = 'completed' THEN 1048576 END,
              posted_at + interval '1 minute', posted_at + interval '2 minutes',
              CASE WHEN s.status IN ('completed', 'failed') THEN posted_at + interval '2 minutes' END
       FROM (SELECT *, (instagram_id::bigint - $3::bigint) % 20 AS k FROM p) q
       CROSS JOIN LATERAL (SELECT CASE WHEN k < 16 THEN 'completed' WHEN k = 16 THEN 'pending'
                                       WHEN k = 17 THEN 'processing' ELSE 'failed' END AS status) s
       WHERE k <> 19`,
      [userId, accountId, BASE_ID.toString(), now, start, end],
    );
    backups += r.rowCount ?? 0;
    progress(end);
  }
  // What autovacuum does on a live server: statistics and the visibility map.
  await pool.query("VACUUM ANALYZE posts");
  await pool.query("VACUUM ANALYZE backups");
  // And what a live server did long ago: write the seeded pages out, so the checkpoint that
  // follows a bulk load does not flush gigabytes during the measurement. Needs a superuser
  // (or pg_checkpoint); without one the load's own checkpoint may land in the measurement.
  await pool.query("CHECKPOINT").catch(() => {});
  return { accountId, posts: count, backups, seconds: (performance.now() - t0) / 1000 };
}
