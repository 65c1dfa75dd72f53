import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "./support/app.ts";
import { explainRepository as explain, flatten } from "./support/explain.ts";

/**
 * The dashboard stays fast with 10,000 posts in an account (issue 6): the posts page query
 * and the stats query the API runs are planned on indexes, not by scanning whole tables.
 * The SQL is captured from the real repository and explained on the seeded database: the
 * account's 10,000 posts among 200,000 of other users. Plans seen (PGlite, Postgres 17):
 *   page:  Limit → Nested Loop Left Join
 *            → Index Scan using posts_user_posted_idx on posts (user_id; order posted_at desc)
 *            → Index Scan using backups_post_id_key on backups
 *   count: Index Only Scan using posts_user_posted_idx (the backups join is removed: unique)
 *   stats: Aggregate → Hash Right Join
 *            → Bitmap Heap Scan on backups ← Bitmap Index Scan on backups_user_status_idx
 *            → Index Only Scan using posts_user_posted_idx on posts
 * (Before the stats join carried the owner, backups was read by a Seq Scan of every user's rows.)
 */

const POSTS_PER_USER = 10_000;
/** The rest of the service: the account is a small part of the tables, as in production. */
const OTHER_USERS = 4;
const POSTS_PER_OTHER_USER = 50_000;

let t: TestApp;
let token: string;
let userId: string;
let accountId: string;

async function seed(owner: string, instagramUserId: string, count: number): Promise<string> {
  const { rows } = await t.ctx.pool.query<{ id: string }>(
    `INSERT INTO instagram_accounts
       (user_id, instagram_user_id, connected_via, username, access_token_encrypted, token_issued_at)
     VALUES ($1, $2, 'instagram', $3, 'not-a-token', now()) RETURNING id`,
    [owner, instagramUserId, `scale_${instagramUserId}`],
  );
  const account = rows[0]?.id as string;
  await t.ctx.pool.query(
    `INSERT INTO posts (user_id, account_id, instagram_id, media_type, media_product_type,
                        caption, posted_at, like_count, media_url)
     SELECT $1, $2, $3 || '_' || g,
            (ARRAY['IMAGE', 'VIDEO', 'CAROUSEL_ALBUM'])[1 + g % 3],
            CASE WHEN g % 50 = 0 THEN 'STORY' ELSE 'FEED' END,
            'post ' || g || ' golden hour', now() - g * interval '1 hour', g % 500,
            'http://cdn.test/' || g || '.jpg'
     FROM generate_series(1, $4::int) AS g`,
    [owner, account, instagramUserId, count],
  );
  // Three in four posts have a backup: most completed, some pending, processing or failed.
  await t.ctx.pool.query(
    `INSERT INTO backups (post_id, user_id, account_id, status, backup_size_bytes)
     SELECT id, user_id, account_id,
            (ARRAY['completed', 'completed', 'pending', 'processing', 'failed'])[1 + n % 5],
            CASE WHEN n % 5 < 2 THEN 1048576 ELSE NULL END
     FROM (SELECT id, user_id, account_id, row_number() OVER (ORDER BY posted_at) AS n
           FROM posts WHERE account_id = $1) p
     WHERE n % 4 <> 0`,
    [account],
  );
  return account;
}

beforeAll(async () => {
  t = await createTestApp();
  const me = await t.signUp();
  token = me.token;
  userId = me.user.id;
  accountId = await seed(userId, "17841400000099000", POSTS_PER_USER);
  for (let i = 1; i <= OTHER_USERS; i++) {
    const other = await t.signUp();
    await seed(other.user.id, `1784140000009900${i}`, POSTS_PER_OTHER_USER);
  }
  await t.ctx.pool.query("VACUUM ANALYZE posts");
  await t.ctx.pool.query("VACUUM ANALYZE backups");
}, 240_000);

afterAll(async () => {
  await t?.close();
});

const explainRepository = (fn: Parameters<typeof explain>[1]) => explain(t.ctx.pool, fn);

function expectIndexed(access: Record<string, string[]>, table: string) {
  const ways = access[table] ?? [];
  expect(ways.length, `${table} is read`).toBeGreaterThan(0);
  for (const how of ways)
    expect(how, `${table}: ${how}`).toMatch(/^(Index|Index Only|Bitmap Heap) Scan using \w+/);
}

describe("dashboard queries with 10,000 posts in an account", () => {
  it("the API answers a page of 36 and the stats for 10,000 posts", async () => {
    const page = await t.call("GET", "/api/sync/posts?limit=36&offset=0", { token });
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(POSTS_PER_USER);
    expect(page.body.posts).toHaveLength(36);
    expect(page.body.posts[0].instagram_id).toBe("17841400000099000_1");

    const last = await t.call("GET", "/api/sync/posts?limit=36&offset=9972", { token });
    expect(last.body.posts).toHaveLength(28);
    expect(last.body.posts.at(-1).instagram_id).toBe("17841400000099000_10000");

    const videos = await t.call("GET", "/api/sync/posts?limit=36&media_type=video", { token });
    expect(videos.body.total).toBe(3334);

    const stats = await t.call("GET", "/api/sync/dashboard/stats", { token });
    expect(stats.status).toBe(200);
    expect(stats.body.total_posts).toBe(POSTS_PER_USER);
    expect(stats.body.backed_up_posts).toBe(3000);
    // Waiting: 3,000 pending or processing backups, and the 2,500 posts without a backup yet.
    expect(stats.body.pending_backups).toBe(5500);
    expect(stats.body.failed_backups).toBe(1500);
    expect(stats.body.posts_over_limit).toBe(0);
    expect(stats.body.total_storage_used).toBe(3000 * 1048576);
  });

  it("EXPLAIN: the posts page query reads posts and backups through indexes", async () => {
    for (const filter of [
      { userId },
      { userId, accountId },
      { userId, mediaType: "VIDEO" as const },
    ]) {
      const plans = await explainRepository((repo) => repo.listPosts(filter, 36, 0));
      expect(plans).toHaveLength(2); // the page and its count
      // The page and its count run concurrently: tell them apart by their SQL, not their order.
      const pageQuery = plans.find((p) => /\blimit\b/i.test(p.sql));
      const countQuery = plans.find((p) => /\bcount\(/i.test(p.sql));
      if (!pageQuery || !countQuery) throw new Error("expected a page query and a count query");
      expectIndexed(pageQuery.access, "posts");
      expectIndexed(pageQuery.access, "backups");
      expect(pageQuery.access.backups).toEqual(["Index Scan using backups_post_id_key"]);
      expectIndexed(countQuery.access, "posts");
      // The newest-first order comes from the index: no sort over the user's 10,000 rows.
      expect(flatten(pageQuery.plan).some((n) => n["Node Type"] === "Sort")).toBe(false);
    }
  });

  it("EXPLAIN: the stats query reads posts and backups through indexes", async () => {
    const plans = await explainRepository((repo) => repo.backupStats(userId));
    expect(plans).toHaveLength(1);
    const stats = plans[0] as (typeof plans)[0];
    expectIndexed(stats.access, "posts");
    expectIndexed(stats.access, "backups");
    // Only this user's backups are read, through the owner index.
    expect(stats.access.backups?.join()).toContain("backups_user_status_idx");
  });
});
