import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { searchCountLimit } from "../../src/library/dashboard.service.ts";
import type { BackupFilter, PostFilter } from "../../src/library/listing.repository.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { type ExplainedQuery, explainRepository, flatten } from "../support/explain.ts";

/**
 * The posts grid, the Backups list and the dashboard totals at 100,000 posts for one user
 * (issues 6 and 14), on whichever database the suite runs on (the embedded PostgreSQL, or
 * the server of TEST_DATABASE_URL). The SQL is captured from the real repository and explained:
 * every filter reads posts and backups through the index made for it — never a sequential scan
 * — and the grid's and the list's totals come from the counters (post_counts, backup_counts).
 */

const ACCOUNT_A_POSTS = 70_000;
const ACCOUNT_B_POSTS = 30_000;
const POSTS = ACCOUNT_A_POSTS + ACCOUNT_B_POSTS;
const OTHER_USER_POSTS = 10_000;

let t: TestApp;
let token: string;
let userId: string;
let accountA: string;
let accountB: string;

/**
 * `count` posts, newest every minute back from now: types in turn (image, video, carousel),
 * every 50th a story. Captions "Post <g> golden hour #tag<g % 50>", except every 5000th post
 * ("aurora borealis", at g = 5000, 10000, …) and every 5000th from 2500 ("#sunrise"): rare
 * words, fewer than a page of them, which only the trigram index finds quickly.
 * Backups for 3 in 4 posts: completed (1 MiB), completed, pending, processing, failed in turn.
 */
async function seed(owner: string, instagramUserId: string, count: number, from = 1) {
  const { rows } = await t.ctx.pool.query<{ id: string }>(
    `INSERT INTO instagram_accounts
       (user_id, instagram_user_id, connected_via, username, access_token_encrypted, token_issued_at)
     VALUES ($1, $2, 'instagram', $3, 'not-a-token', now()) RETURNING id`,
    [owner, instagramUserId, `scale_${instagramUserId}`],
  );
  const account = rows[0]?.id as string;
  await t.ctx.pool.query(
    `WITH p AS (
       INSERT INTO posts (user_id, account_id, instagram_id, media_type, media_product_type,
                          caption, posted_at, like_count, media_url)
       SELECT $1, $2, $3 || '_' || g,
              (ARRAY['IMAGE', 'VIDEO', 'CAROUSEL_ALBUM'])[1 + g % 3],
              CASE WHEN g % 50 = 0 THEN 'STORY' ELSE 'FEED' END,
              'Post ' || g || CASE WHEN g % 5000 = 0 THEN ' aurora borealis'
                                   WHEN g % 5000 = 2500 THEN ' first light #sunrise'
                                   ELSE ' golden hour #tag' || g % 50 END,
              now() - g * interval '1 minute', g % 500, 'http://cdn.test/' || g || '.jpg'
       FROM generate_series($4::int, $5::int) AS g
       RETURNING id, user_id, account_id, posted_at, instagram_id
     )
     INSERT INTO backups (post_id, user_id, account_id, status, backup_size_bytes, updated_at)
     SELECT id, user_id, account_id,
            (ARRAY['completed', 'completed', 'pending', 'processing', 'failed'])[1 + n % 5],
            CASE WHEN n % 5 < 2 THEN 1048576 END, posted_at
     FROM (SELECT *, split_part(instagram_id, '_', 2)::int AS n FROM p) q
     WHERE n % 4 <> 0`,
    [owner, account, instagramUserId, from, from + count - 1],
  );
  return account;
}

/**
 * Runs `fn` with the secondary indexes of posts and backups dropped, then builds them again
 * from their own definitions (a bulk build is many times faster than 200,000 index inserts).
 */
async function withoutSecondaryIndexes(fn: () => Promise<void>) {
  const { rows } = await t.ctx.pool.query<{ indexname: string; indexdef: string }>(
    `SELECT i.indexname, i.indexdef FROM pg_indexes i
     WHERE i.tablename IN ('posts', 'backups') AND i.schemaname = current_schema()
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
  );
  for (const r of rows) await t.ctx.pool.query(`DROP INDEX ${r.indexname}`);
  await fn();
  for (const r of rows) await t.ctx.pool.query(r.indexdef);
}

beforeAll(async () => {
  t = await createTestApp();
  // An agency user: the per-account filter is a pro and agency feature (tier rules).
  const me = await t.signUp({ tier: "agency" });
  token = me.token;
  userId = me.user.id;
  const other = await t.signUp();
  await withoutSecondaryIndexes(async () => {
    accountA = await seed(userId, "17841400000099000", ACCOUNT_A_POSTS);
    accountB = await seed(userId, "17841400000099001", ACCOUNT_B_POSTS, ACCOUNT_A_POSTS + 1);
    await seed(other.user.id, "17841400000099002", OTHER_USER_POSTS);
  });
  await t.ctx.pool.query("VACUUM ANALYZE posts");
  await t.ctx.pool.query("VACUUM ANALYZE backups");
}, 300_000);

afterAll(async () => {
  await t?.close();
});

const get = (path: string) => t.call("GET", path, { token });

describe("the posts grid and the Backups list with 100,000 posts", () => {
  it("answers pages and exact totals for every filter", async () => {
    const first = await get("/api/sync/posts?limit=36&offset=0");
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: POSTS, total_exact: true });
    expect(first.body.posts).toHaveLength(36);
    expect(first.body.posts[0].instagram_id).toBe("17841400000099000_1");

    // Page 100, and the last page (100,000 = 2,777 full pages and 28 posts).
    const p100 = await get("/api/sync/posts?limit=36&offset=3564");
    expect(p100.body.posts[0].instagram_id).toBe("17841400000099000_3565");
    const last = await get("/api/sync/posts?limit=36&offset=99972");
    expect(last.body.posts).toHaveLength(28);
    expect(last.body.posts.at(-1).instagram_id).toBe("17841400000099001_100000");
    // Past the end: no row carries the total, which is still told.
    const past = await get("/api/sync/posts?limit=36&offset=100000");
    expect(past.body).toMatchObject({ posts: [], total: POSTS, total_exact: true });

    // 100,000 posts of types in turn: g % 3 = 1 are videos.
    const videos = await get("/api/sync/posts?limit=36&media_type=video");
    expect(videos.body.total).toBe(33_334);
    expect(videos.body.posts.every((p: { media_type: string }) => p.media_type === "video")).toBe(
      true,
    );
    const bPosts = await get(`/api/sync/posts?limit=36&account_id=${accountB}`);
    expect(bPosts.body.total).toBe(ACCOUNT_B_POSTS);
    const bImages = await get(`/api/sync/posts?media_type=image&account_id=${accountB}`);
    expect(bImages.body.total).toBe(10_000);
  });

  it("finds captions by word and by hashtag, and says when a search total is a lower bound", async () => {
    const word = await get("/api/sync/posts?limit=36&search=AURORA");
    expect(word.body).toMatchObject({ total: 20, total_exact: true });
    expect(word.body.posts[0].caption).toBe("Post 5000 aurora borealis");
    const tag = await get("/api/sync/posts?limit=36&search=%23sunrise");
    expect(tag.body).toMatchObject({ total: 20, total_exact: true });
    expect(tag.body.posts[0].caption).toBe("Post 2500 first light #sunrise");
    // "#tag7" is every 50th post: 2,000 of them, more than a search counts.
    const many = await get("/api/sync/posts?limit=36&search=%23tag7");
    expect(many.body).toMatchObject({ total: searchCountLimit(0, 36), total_exact: false });
    expect(many.body.posts).toHaveLength(36);
    // Deeper pages count further: the page buttons around page 40 exist.
    const deep = await get("/api/sync/posts?limit=36&offset=1404&search=%23tag7");
    expect(deep.body).toMatchObject({ total: 1404 + 4 * 36, total_exact: false });
    const exactAtTheEnd = await get("/api/sync/posts?limit=36&offset=1980&search=%23tag7");
    expect(exactAtTheEnd.body).toMatchObject({ total: 2000, total_exact: true });
    expect(exactAtTheEnd.body.posts).toHaveLength(20);
  });

  it("pages the Backups list and counts it per status and account", async () => {
    const all = await get("/api/sync/backups?limit=50");
    expect(all.body.total).toBe(75_000);
    expect(all.body.backups).toHaveLength(50);
    const next = await get("/api/sync/backups?limit=50&offset=50");
    const ids = new Set(all.body.backups.map((b: { id: string }) => b.id));
    expect(next.body.backups.some((b: { id: string }) => ids.has(b.id))).toBe(false);
    const past = await get("/api/sync/backups?limit=50&offset=75000");
    expect(past.body).toMatchObject({ backups: [], total: 75_000 });
    const failed = await get(`/api/sync/backups?status_filter=failed&account_id=${accountB}`);
    expect(failed.body.total).toBe(4_500);
    expect(failed.body.backups.every((b: { status: string }) => b.status === "failed")).toBe(true);

    const stats = await get("/api/sync/dashboard/stats");
    // Pending: queued or running (30,000), and the 25,000 posts not yet given a backup.
    expect(stats.body).toMatchObject({
      total_posts: POSTS,
      backed_up_posts: 30_000,
      pending_backups: 55_000,
      failed_backups: 15_000,
      posts_over_limit: 0,
      total_storage_used: 30_000 * 1048576,
    });
  });
});

function expectNoSeqScan(plans: ExplainedQuery[]) {
  for (const p of plans)
    for (const [table, ways] of Object.entries(p.access))
      for (const how of ways) expect(how, `${table} in ${p.sql}`).not.toBe("Seq Scan");
}

/** The statement that reads `table`, and how it reads it. */
function readsOf(plans: ExplainedQuery[], table: string): string[] {
  return plans.flatMap((p) => p.access[table] ?? []);
}

describe("EXPLAIN at 100,000 posts: each filter on its own index", () => {
  const filters: [string, () => PostFilter, string][] = [
    ["all posts", () => ({ userId }), "posts_user_posted_idx"],
    ["one account", () => ({ userId, accountId: accountA }), "posts_user_account_posted_idx"],
    ["videos", () => ({ userId, mediaType: "VIDEO" }), "posts_user_type_posted_idx"],
    [
      "one account's videos",
      () => ({ userId, accountId: accountB, mediaType: "VIDEO" }),
      "posts_user_account_type_posted_idx",
    ],
  ];

  for (const [name, filter, index] of filters) {
    it(`posts grid, ${name}: the page from ${index}, the total from the counters`, async () => {
      const plans = await explainRepository(t.ctx.pool, (repo) =>
        repo.postsPage(filter(), 36, 3564, 1001),
      );
      // One statement: the page, and the total beside it.
      expect(plans).toHaveLength(1);
      expectNoSeqScan(plans);
      // The page's ids come from the filter's index (an index-only scan past the offset), and
      // only those 36 rows are read by primary key.
      expect(readsOf(plans, "posts")).toEqual([
        `Index Only Scan using ${index}`,
        "Index Scan using posts_pkey",
      ]);
      expect(readsOf(plans, "backups")).toEqual(["Index Scan using backups_post_id_key"]);
      expect(readsOf(plans, "post_counts").length).toBe(1);
      // Newest first comes from the index: the only sort orders the page's own 36 rows.
      const page = plans.find((p) => p.access.posts) as ExplainedQuery;
      for (const sort of flatten(page.plan).filter((n) => n["Node Type"] === "Sort"))
        expect(sort["Plan Rows"]).toBeLessThanOrEqual(36);
    });
  }

  it("caption search, a rare word: matched once on the trigram index, page and total", async () => {
    const plans = await explainRepository(t.ctx.pool, (repo) =>
      repo.postsPage({ userId, search: "aurora" }, 36, 0, searchCountLimit(0, 36) + 1),
    );
    expect(plans).toHaveLength(1);
    expectNoSeqScan(plans);
    const reads = readsOf(plans, "posts");
    expect(reads.filter((r) => r.includes("posts_caption_trgm_idx"))).toHaveLength(1);
    expect(reads.filter((r) => r !== "Index Scan using posts_pkey")).toHaveLength(1);
  });

  it("caption search, a common word: the newest captions down the date index, read once", async () => {
    const plans = await explainRepository(t.ctx.pool, (repo) =>
      repo.postsPage({ userId, search: "golden" }, 36, 0, searchCountLimit(0, 36) + 1),
    );
    expect(plans).toHaveLength(1);
    expectNoSeqScan(plans);
    expect(readsOf(plans, "posts")).toEqual([
      "Index Scan using posts_user_posted_idx",
      "Index Scan using posts_pkey",
    ]);
    // The walk stops at the count's limit instead of reading every match.
    const limits = flatten((plans[0] as ExplainedQuery).plan).filter(
      (n) => n["Node Type"] === "Limit",
    );
    expect(limits.some((l) => l.Plans?.[0]?.["Index Name"] === "posts_user_posted_idx")).toBe(true);
  });

  const backupFilters: [string, () => BackupFilter, string][] = [
    ["all", () => ({}), "backups_user_updated_idx"],
    ["failed", () => ({ status: "failed" }), "backups_user_status_idx"],
    ["one account", () => ({ accountId: accountB }), "backups_user_account_updated_idx"],
    [
      "one account's failed",
      () => ({ accountId: accountB, status: "failed" }),
      "backups_user_account_status_idx",
    ],
  ];
  for (const [name, filter, index] of backupFilters) {
    it(`Backups list, ${name}: the page from ${index}, the total from the counters`, async () => {
      const plans = await explainRepository(t.ctx.pool, (repo) =>
        repo.backupsPage(userId, filter(), 50, 500),
      );
      expect(plans).toHaveLength(1);
      expectNoSeqScan(plans);
      expect(readsOf(plans, "backups")).toEqual([
        `Index Only Scan using ${index}`,
        "Index Scan using backups_pkey",
      ]);
      expect(readsOf(plans, "posts")).toEqual(["Index Scan using posts_pkey"]);
      expect(readsOf(plans, "backup_counts").length).toBe(1);
    });
  }
});
