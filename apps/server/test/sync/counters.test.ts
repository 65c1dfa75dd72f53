import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostLimit, PostUpsert } from "../../src/sync/posts.repository.ts";
import type { GraphMediaType } from "../../src/sync/tables.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { until } from "../support/wait.ts";

/**
 * The counters behind the totals (post_counts, backup_counts; migration 0700) stay exact while
 * syncs, backups and deletions run at once, on several connections, through the repository's
 * own write paths. Exact means: equal to counting the rows afterwards.
 */

let t: TestApp;
/** Most claims here are not about the plan's post limit: none applies. */
const NO_POST_LIMIT: PostLimit = { limit: null, reason: null };
let userId: string;
let token: string;

beforeAll(async () => {
  t = await createTestApp();
  const me = await t.signUp();
  userId = me.user.id;
  token = me.token;
});

afterAll(async () => {
  await t?.close();
});

async function newAccount(igId: string): Promise<string> {
  const { rows } = await t.ctx.pool.query<{ id: string }>(
    `INSERT INTO instagram_accounts
       (user_id, instagram_user_id, connected_via, username, access_token_encrypted, token_issued_at)
     VALUES ($1, $2, 'instagram', $3, 'not-a-token', now()) RETURNING id`,
    [userId, igId, `counted_${igId}`],
  );
  return rows[0]?.id as string;
}

const TYPES: GraphMediaType[] = ["IMAGE", "VIDEO", "CAROUSEL_ALBUM"];

function post(accountId: string, n: number, variant: number): PostUpsert {
  return {
    user_id: userId,
    account_id: accountId,
    instagram_id: `ig_${n}`,
    // A post seen again may come back as another type (the counters must move it).
    media_type: TYPES[(n + variant) % 3] as GraphMediaType,
    media_product_type: n % 7 === 0 ? "STORY" : "FEED",
    caption: `post ${n}`,
    posted_at: new Date(Date.UTC(2026, 0, 1) + n * 60_000),
    like_count: 0,
    comments_count: 0,
    permalink: null,
    shortcode: null,
    media_url: null,
    thumbnail_url: null,
    children: [],
  };
}

/** A backup run of the account, and the backups it claims (what a sync does after listing). */
async function startSync(accountId: string, now: Date, limit: PostLimit = NO_POST_LIMIT) {
  const job = await t.ctx.syncRepos.runs.insertSyncJob({
    user_id: userId,
    account_id: accountId,
    job_type: "manual",
    mode: "backup",
    now,
  });
  const claimed = await t.ctx.syncRepos.backups.claimBackupsForSync(
    accountId,
    userId,
    job?.id as string,
    now,
    limit,
  );
  return { job, claimed };
}

/** Counter rows that disagree with counting the rows themselves (empty when exact). */
async function drift() {
  const posts = await t.ctx.pool.query(
    `SELECT * FROM (
       SELECT user_id, account_id, media_type,
              media_product_type IS NOT DISTINCT FROM 'STORY' AS is_story, count(*) AS n
       FROM posts GROUP BY 1, 2, 3, 4) truth
     FULL JOIN post_counts c USING (user_id, account_id, media_type, is_story)
     WHERE truth.n IS DISTINCT FROM c.n`,
  );
  const backups = await t.ctx.pool.query(
    `SELECT * FROM (
       SELECT user_id, account_id, status, count(*) AS n,
              coalesce(sum(backup_size_bytes), 0) AS bytes
       FROM backups GROUP BY 1, 2, 3) truth
     FULL JOIN backup_counts c USING (user_id, account_id, status)
     WHERE truth.n IS DISTINCT FROM c.n OR truth.bytes IS DISTINCT FROM c.bytes`,
  );
  return { posts: posts.rows, backups: backups.rows };
}

describe("post and backup counters", () => {
  it("stay exact under concurrent syncs, backups and deletions", async () => {
    const { posts, backups } = t.ctx.syncRepos;
    const accountId = await newAccount("17841400000077001");
    const now = new Date();
    // Twelve overlapping sync batches at once: 100 posts each, every other one re-typed.
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        posts.savePosts(
          accountId,
          Array.from({ length: 100 }, (_, k) => post(accountId, i * 50 + k, i % 2)),
          now,
        ),
      ),
    );
    expect(await drift()).toEqual({ posts: [], backups: [] });
    const { job, claimed } = await startSync(accountId, now);
    expect(claimed.length).toBe(650);

    // Workers back posts up (completed with a size, or failed) while posts are deleted and a
    // second sync claims again, all at once.
    const lease = new Date(now.getTime() + 60_000);
    const work = claimed.slice(0, 400).map(async (c, i) => {
      const token = randomUUID();
      const held = await backups.claimBackup(c.post_id, token, now, lease);
      if (!held) return;
      await backups.finishBackup(held.id, token, {
        status: i % 4 === 0 ? "failed" : "completed",
        error_message: i % 4 === 0 ? "Instagram is not responding right now." : null,
        retry_on_sync: i % 4 === 0,
        backup_size_bytes: i % 4 === 0 ? null : 1000 + i,
        now,
      });
    });
    const deletions = [0, 1, 2, 3, 4].map((d) =>
      t.ctx.pool.query(
        `DELETE FROM posts WHERE account_id = $1 AND instagram_id = ANY($2::text[])`,
        [accountId, Array.from({ length: 40 }, (_, k) => `ig_${d * 130 + k * 3}`)],
      ),
    );
    const resync = backups.claimBackupsForSync(
      accountId,
      userId,
      job?.id as string,
      now,
      NO_POST_LIMIT,
    );
    await Promise.all([...work, ...deletions, resync]);

    expect(await drift()).toEqual({ posts: [], backups: [] });
    const { rows } = await t.ctx.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM posts WHERE account_id = $1",
      [accountId],
    );
    const stats = await t.call("GET", "/api/sync/dashboard/stats", { token });
    expect(stats.body.total_posts).toBe(rows[0]?.n);
  });

  it("leave nothing behind when an account goes", async () => {
    const accountId = await newAccount("17841400000077002");
    await t.ctx.syncRepos.posts.savePosts(
      accountId,
      Array.from({ length: 30 }, (_, k) => post(accountId, k, 0)),
      new Date(),
    );
    await t.ctx.pool.query(
      `INSERT INTO backups (post_id, user_id, account_id, status, backup_size_bytes)
       SELECT id, user_id, account_id, 'completed', 10 FROM posts WHERE account_id = $1`,
      [accountId],
    );
    const counted = async () =>
      (
        await t.ctx.pool.query(
          `SELECT (SELECT count(*) FROM post_counts WHERE account_id = $1)
                + (SELECT count(*) FROM backup_counts WHERE account_id = $1) AS n`,
          [accountId],
        )
      ).rows[0]?.n;
    expect(Number(await counted())).toBeGreaterThan(0);
    await t.rows.connections.deleteInstagramAccount(accountId);
    expect(Number(await counted())).toBe(0);
    expect(await drift()).toEqual({ posts: [], backups: [] });
  });
});

describe("a sync's claim of backups", () => {
  it("creates the missing rows and takes over pending, retryable and abandoned ones, newest first", async () => {
    const { posts } = t.ctx.syncRepos;
    const accountId = await newAccount("17841400000077003");
    const now = new Date();
    await posts.savePosts(
      accountId,
      Array.from({ length: 8 }, (_, n) => post(accountId, n, 0)),
      now,
    );
    const ids = new Map(
      (
        await t.ctx.pool.query<{ id: string; instagram_id: string }>(
          "SELECT id, instagram_id FROM posts WHERE account_id = $1",
          [accountId],
        )
      ).rows.map((r) => [r.instagram_id, r.id]),
    );
    const id = (n: number) => ids.get(`ig_${n}`) as string;
    // ig_0 has no backup row yet; ig_7 will be over the plan's limit.
    const earlier = new Date(now.getTime() - 60_000);
    const later = new Date(now.getTime() + 60_000);
    const rows: [number, string, boolean, Date | null][] = [
      [1, "pending", false, null],
      [2, "failed", true, null],
      [3, "failed", false, null],
      [4, "processing", false, earlier],
      [5, "processing", false, later],
      [6, "completed", false, null],
    ];
    for (const [n, status, retry, lease] of rows) {
      await t.ctx.pool.query(
        `INSERT INTO backups (post_id, user_id, account_id, status, retry_on_sync, lease_expires_at,
                              error_message)
         VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $4 = 'failed' THEN 'It failed.' END)`,
        [id(n), userId, accountId, status, retry, lease],
      );
    }
    // ig_7 becomes the user's oldest post, the one beyond a limit of all posts but one, which
    // the claim applies first.
    await t.ctx.pool.query("UPDATE posts SET posted_at = '2025-12-31' WHERE id = $1", [id(7)]);
    const count = await t.ctx.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM posts WHERE user_id = $1",
      [userId],
    );
    const limit = { limit: (count.rows[0]?.n as number) - 1, reason: "Over the limit." };
    const { job, claimed } = await startSync(accountId, now, limit);
    expect(claimed.map((c) => c.post_id)).toEqual([id(4), id(2), id(1), id(0)]);
    const marked = await t.ctx.pool.query<{ instagram_id: string; not_backed_up_reason: string }>(
      "SELECT instagram_id, not_backed_up_reason FROM posts WHERE user_id = $1 AND not_backed_up_reason IS NOT NULL",
      [userId],
    );
    expect(marked.rows).toEqual([
      { instagram_id: "ig_7", not_backed_up_reason: "Over the limit." },
    ]);

    const after = await t.ctx.pool.query<{
      instagram_id: string;
      status: string | null;
      error_message: string | null;
      mine: boolean;
    }>(
      `SELECT p.instagram_id, b.status, b.error_message, b.sync_job_id IS NOT DISTINCT FROM $2 AS mine
       FROM posts p LEFT JOIN backups b ON b.post_id = p.id
       WHERE p.account_id = $1 ORDER BY p.instagram_id`,
      [accountId, job?.id],
    );
    expect(after.rows.map((r) => [r.instagram_id, r.status, r.error_message, r.mine])).toEqual([
      ["ig_0", "pending", null, true],
      ["ig_1", "pending", null, true],
      ["ig_2", "pending", null, true],
      ["ig_3", "failed", "It failed.", false],
      ["ig_4", "processing", null, true],
      ["ig_5", "processing", null, false],
      ["ig_6", "completed", null, false],
      ["ig_7", null, null, false],
    ]);
    expect(await drift()).toEqual({ posts: [], backups: [] });
  });

  it("skips no post that lacks a backup row when every other post is backed up", async () => {
    // An account whose every post has a backup row claims nothing new (the claim then skips
    // reading its posts); one row gone, the next claim creates it again.
    const { posts } = t.ctx.syncRepos;
    const accountId = await newAccount("17841400000077004");
    const now = new Date();
    await posts.savePosts(
      accountId,
      Array.from({ length: 5 }, (_, n) => post(accountId, n, 0)),
      now,
    );
    /** A sync's claim; its run then ends, so the next one can start. */
    const claim = async () => {
      const { claimed } = await startSync(accountId, now);
      await t.ctx.pool.query("UPDATE sync_jobs SET status = 'completed' WHERE account_id = $1", [
        accountId,
      ]);
      return claimed;
    };
    expect(await claim()).toHaveLength(5);
    await t.ctx.pool.query("UPDATE backups SET status = 'completed' WHERE account_id = $1", [
      accountId,
    ]);
    expect(await claim()).toEqual([]);
    const gone = await t.ctx.pool.query<{ post_id: string }>(
      `DELETE FROM backups WHERE post_id = (SELECT id FROM posts WHERE account_id = $1 AND instagram_id = 'ig_2')
       RETURNING post_id`,
      [accountId],
    );
    expect((await claim()).map((c) => c.post_id)).toEqual([gone.rows[0]?.post_id]);
    expect(await drift()).toEqual({ posts: [], backups: [] });
  });

  it("a run's counts follow from its backups: one that ended before the run's total was set is counted", async () => {
    const { backups, runs } = t.ctx.syncRepos;
    const accountId = await newAccount("17841400000077005");
    const now = new Date();
    await t.ctx.syncRepos.posts.savePosts(
      accountId,
      Array.from({ length: 3 }, (_, n) => post(accountId, n, 0)),
      now,
    );
    const { job, claimed } = await startSync(accountId, now);
    expect(claimed).toHaveLength(3);
    const end = async (postId: string) => {
      const lease = randomUUID();
      const b = await backups.claimBackup(postId, lease, now, new Date(now.getTime() + 60_000));
      expect(b?.sync_job_id).toBe(job?.id);
      return backups.finishBackup(b?.id as string, lease, {
        status: "completed",
        error_message: null,
        now,
      });
    };
    // A backup queued earlier (a retry) ends between the claim and the run's total.
    await end(claimed[0]?.post_id as string);
    const counted = async () => {
      const j = await runs.findSyncJob(job?.id as string);
      return [j?.status, j?.posts_processed, j?.posts_total];
    };
    expect(await counted()).toEqual(["running", 1, 0]);
    const settled = await runs.settleSyncRun(job?.id as string, now);
    expect([settled?.status, settled?.posts_processed, settled?.posts_total]).toEqual([
      "running",
      1,
      3,
    ]);
    // The others end at once: each counts itself in the statement that ends it.
    await Promise.all(claimed.slice(1).map((c) => end(c.post_id)));
    expect(await counted()).toEqual(["completed", 3, 3]);
    // Settling a run that ended changes nothing.
    expect(await runs.settleSyncRun(job?.id as string, now)).toBeUndefined();
    expect(await drift()).toEqual({ posts: [], backups: [] });
  });

  it("a backup's end takes its run's row before its own, and waits for it holding nothing", async () => {
    const { posts, backups, runs } = t.ctx.syncRepos;
    const accountId = await newAccount("17841400000077009");
    const now = new Date();
    await posts.savePosts(accountId, [post(accountId, 9001, 0)], now);
    const { job, claimed } = await startSync(accountId, now);
    const lease = randomUUID();
    const later = new Date(now.getTime() + 60_000);
    const held = await backups.claimBackup(claimed[0]?.post_id as string, lease, now, later);
    // Another session holds the run's row (as another backup of the run ending would).
    const other = await t.ctx.pool.connect();
    const probe = await t.ctx.pool.connect();
    try {
      await other.query("BEGIN");
      await other.query("SELECT id FROM sync_jobs WHERE id = $1 FOR UPDATE", [job?.id]);
      const ending = backups.finishBackup(held?.id as string, lease, {
        status: "completed",
        error_message: null,
        backup_size_bytes: 10,
        now,
      });
      // The backup's end waits for the run's row.
      await until(
        async () =>
          (
            await probe.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_stat_activity
               WHERE datname = current_database() AND wait_event_type = 'Lock'
                 AND query LIKE '%ended AS%'`,
            )
          ).rows[0]?.n,
        (n) => n === 1,
        10_000,
      );
      // While it waits, the backup's row is free: it was not taken before the run's.
      await probe.query("BEGIN");
      const free = await probe.query("SELECT id FROM backups WHERE id = $1 FOR UPDATE NOWAIT", [
        held?.id,
      ]);
      expect(free.rowCount).toBe(1);
      await probe.query("ROLLBACK");
      await other.query("ROLLBACK");
      expect((await ending)?.status).toBe("completed");
      const run = await runs.findSyncJob(job?.id as string);
      // Counted in the run (whose total the sync's settlement sets later).
      expect([run?.status, run?.posts_processed]).toEqual(["running", 1]);
    } finally {
      await other.query("ROLLBACK").catch(() => {});
      other.release();
      probe.release();
    }
  });
});
