import { DEMO_GOOGLE } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backupHelpers, FAST_ENGINE } from "../support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

// Issue 36: every count of posts, backups, pending and failed comes from one definition, the
// plan's limit included: each post is in exactly one bucket, and every answer that counts
// them (stats, the new-posts check, the accounts panel, the Backups list) agrees.
let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;

beforeAll(async () => {
  t = await createSandboxedApp({}, { engineSettings: FAST_ENGINE });
  h = backupHelpers(t);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe("counts that agree", () => {
  it("a free account over its limit, with backed-up, failed, pending and left-out posts", async () => {
    const { accounts } = await h.control<{ accounts: { id: string; username: string }[] }>(
      "/instagram/accounts",
      { body: { count: 1, posts: 104 } },
    );
    const ig = accounts[0]!;
    const u = await h.connectedUser({
      instagram: ig.id,
      google: DEMO_GOOGLE.sam.sub,
      tier: "free",
    });
    const get = async (path: string) => {
      const res = await t.call("GET", path, { token: u.token });
      expect(res.status).toBe(200);
      return res.body;
    };
    // The newest 100 are in Drive already (recorded, without the Drive traffic); the 4
    // oldest are beyond the free plan's limit.
    await h.listPosts(u);
    const oldest = await t.ctx.db
      .selectFrom("posts")
      .select("instagram_id")
      .where("user_id", "=", u.user.id)
      .orderBy("posted_at")
      .limit(4)
      .execute();
    await h.leaveOnlyToBackUp(u.user.id, new Set(oldest.map((p) => p.instagram_id)));
    // One of the oldest failed back when it was within the limit: now the plan leaves it out,
    // it is counted there only (not failed as well), and the Backups list agrees.
    const left = await t.ctx.db
      .selectFrom("posts")
      .select(["id", "user_id", "account_id"])
      .where("user_id", "=", u.user.id)
      .where("instagram_id", "=", oldest[0]!.instagram_id)
      .executeTakeFirstOrThrow();
    await t.rows.backups.insertBackups([
      { post_id: left.id, user_id: left.user_id, account_id: left.account_id, status: "failed" },
    ]);

    // Three new posts; Drive refuses the first upload (full): one backup fails.
    await h.control("/instagram/posts", { body: { account: ig.username, count: 3 } });
    await h.control("/faults", {
      body: { endpoint: "drive.upload", error: "drive:storageQuotaExceeded", count: 1 },
    });
    const { job } = await h.syncAndDrain(u.user.id, u.accountId);
    await h.control("/faults", { method: "DELETE" });
    expect(job).toMatchObject({ posts_total: 3, posts_processed: 3, posts_failed: 1 });
    // Two more, listed by a refresh (no backup yet): pending.
    await h.control("/instagram/posts", { body: { account: ig.username, count: 2 } });
    await h.syncAndDrain(u.user.id, u.accountId, "refresh");

    const stats = await get("/api/sync/dashboard/stats");
    // The posts first backed up stay in Drive (the limit leaves out only what is not there);
    // two of the three new ones joined them.
    expect(stats.backed_up_posts).toBe(stats.total_posts - 7);
    expect(stats).toMatchObject({
      pending_backups: 2,
      failed_backups: 1,
      unavailable_posts: 0,
      posts_over_limit: 4,
      post_limit: 100,
    });
    // Each post in exactly one bucket.
    expect(
      stats.backed_up_posts +
        stats.pending_backups +
        stats.failed_backups +
        stats.unavailable_posts +
        stats.posts_over_limit,
    ).toBe(stats.total_posts);

    // The banner's "not backed up yet" is the dashboard's pending and failed.
    t.clock.advance(10 * 60_000);
    const check = await get("/api/sync/check-new-posts");
    expect(check).toMatchObject({
      unbacked_posts_count: stats.pending_backups + stats.failed_backups,
      failed_backups_count: stats.failed_backups,
    });
    // The accounts panel and the Backups list count the same posts.
    const [panel] = (await get("/api/accounts/instagram-accounts")).accounts;
    expect(panel).toMatchObject({
      synced_posts_count: stats.total_posts,
      backed_up_posts_count: stats.backed_up_posts,
    });
    expect((await get("/api/sync/backups?status_filter=completed&limit=1")).total).toBe(
      stats.backed_up_posts,
    );
    expect((await get("/api/sync/backups?status_filter=failed&limit=1")).total).toBe(
      stats.failed_backups,
    );
    // The archive's charts count the same posts.
    expect((await get(`/api/archive/stats?account_id=${u.accountId}`)).posts).toBe(
      stats.total_posts,
    );

    // An item imported from the user's export (a post with its completed backup) is counted
    // on every screen alike: one more post, one more backed up.
    const [imported] = await t.rows.sync.insertPosts([
      {
        user_id: u.user.id,
        account_id: u.accountId,
        instagram_id: "export-item-1",
        media_type: "IMAGE",
        media_product_type: "FEED",
        posted_at: new Date("2019-05-01T12:00:00Z"),
        source: "export",
      },
    ]);
    await t.rows.backups.insertBackups([
      {
        post_id: imported!.id,
        user_id: u.user.id,
        account_id: u.accountId,
        status: "completed",
        backup_size_bytes: 1000,
        completed_at: t.clock.now(),
      },
    ]);
    const after = await get("/api/sync/dashboard/stats");
    expect(after).toMatchObject({
      total_posts: stats.total_posts + 1,
      backed_up_posts: stats.backed_up_posts + 1,
      pending_backups: stats.pending_backups,
      failed_backups: stats.failed_backups,
      posts_over_limit: stats.posts_over_limit,
    });
    const [panelAfter] = (await get("/api/accounts/instagram-accounts")).accounts;
    expect(panelAfter).toMatchObject({
      synced_posts_count: after.total_posts,
      backed_up_posts_count: after.backed_up_posts,
    });
    expect((await get("/api/sync/backups?status_filter=completed&limit=1")).total).toBe(
      after.backed_up_posts,
    );
    expect((await get("/api/sync/posts?limit=1")).total).toBe(after.total_posts);
    expect((await get(`/api/archive/stats?account_id=${u.accountId}`)).posts).toBe(
      after.total_posts,
    );
    expect((await get("/api/archive/stats")).posts).toBe(after.total_posts);

    // With the accounts panel (pro), the stats of one account: the same definition, and only
    // the caller's (another user's account counts nothing).
    await t.setTier(u.user.id, "pro");
    const { total_posts, backed_up_posts, pending_backups, failed_backups } = after;
    expect(await get(`/api/sync/dashboard/stats?account_id=${u.accountId}`)).toMatchObject({
      total_posts,
      backed_up_posts,
      pending_backups,
      failed_backups,
    });
    const other = await h.connectedUser({ tier: "pro" });
    expect(await get(`/api/sync/dashboard/stats?account_id=${other.accountId}`)).toMatchObject({
      total_posts: 0,
      backed_up_posts: 0,
    });
  }, 240_000);
  it("'Processing X of Y' while backups run: Y - X is the Pending card, the banner's and health's too", async () => {
    const { accounts } = await h.control<{ accounts: { id: string; username: string }[] }>(
      "/instagram/accounts",
      { body: { count: 1, posts: 6 } },
    );
    const ig = accounts[0]!;
    const u = await h.connectedUser({
      instagram: ig.id,
      google: DEMO_GOOGLE.sam.sub,
      tier: "free",
    });
    const get = async (path: string) => {
      const res = await t.call("GET", path, { token: u.token });
      expect(res.status).toBe(200);
      return res.body;
    };
    // A backup run lists the posts (and stories) and claims them; nothing has run yet.
    const started = await t.ctx.sync.runs.start(u.user.id, u.accountId);
    const runId = started.sync_job.id;
    await t.ctx.syncEngine.run(
      { accountId: u.accountId, syncJobId: runId, kind: "manual", mode: "backup" },
      { retryCount: 0, retryLimit: 3 },
    );
    const claimed = await t.ctx.db
      .selectFrom("backups")
      .select("post_id")
      .where("sync_job_id", "=", runId)
      .execute();
    const n = claimed.length;
    expect(n).toBeGreaterThanOrEqual(6);
    let stats = await get("/api/sync/dashboard/stats");
    expect(stats).toMatchObject({ pending_backups: n, sync_progress: { processed: 0, total: n } });

    // Two are backed up, one fails for good (Drive full), the others still wait.
    for (const { post_id } of claimed.slice(0, 2)) {
      await t.ctx.backupEngine.run(post_id, { retryCount: 0, retryLimit: 3 });
    }
    await h.control("/faults", {
      body: { endpoint: "drive.upload", error: "drive:storageQuotaExceeded", count: 1 },
    });
    await t.ctx.backupEngine.run(claimed[2]!.post_id, { retryCount: 3, retryLimit: 3 });
    await h.control("/faults", { method: "DELETE" });
    // And a post listed beside the run, which no run holds yet: it waits too (Pending).
    await t.rows.sync.insertPosts([
      {
        user_id: u.user.id,
        account_id: u.accountId,
        instagram_id: "listed-beside-the-run",
        media_type: "IMAGE",
        media_product_type: "FEED",
        posted_at: t.clock.now(),
      },
    ]);
    // The run's own counters say 3 of n; every screen says the one definition instead.
    expect(await t.ctx.syncRepos.runs.findSyncJob(runId)).toMatchObject({
      status: "running",
      posts_processed: 3,
      posts_total: n,
    });

    stats = await get("/api/sync/dashboard/stats");
    expect(stats).toMatchObject({
      backed_up_posts: 2,
      failed_backups: 1,
      pending_backups: n - 3 + 1,
      sync_progress: { processed: 3, total: n + 1 },
    });
    const { processed, total } = stats.sync_progress;
    expect(total - processed).toBe(stats.pending_backups);
    // The status poll (the progress toast) reads the same progress.
    const status = await get("/api/sync/status");
    expect(status).toMatchObject({ is_syncing: true, progress: stats.sync_progress });
    // The free banner: not backed up yet = what is still to process + the failed ones.
    t.clock.advance(10 * 60_000);
    const check = await get("/api/sync/check-new-posts");
    expect(check).toMatchObject({
      unbacked_posts_count: total - processed + stats.failed_backups,
      failed_backups_count: stats.failed_backups,
    });
    // The health state's run says it in the same words.
    const health = await get("/api/sync/health");
    expect(health.last_run).toMatchObject({
      outcome: "running",
      text: `Processing ${processed} of ${total} posts...`,
    });

    // Once nothing of the run waits, it completes and no progress is shown.
    for (const { post_id } of claimed.slice(3)) {
      await t.ctx.backupEngine.run(post_id, { retryCount: 0, retryLimit: 3 });
    }
    expect(await t.ctx.syncRepos.runs.findSyncJob(runId)).toMatchObject({ status: "completed" });
    stats = await get("/api/sync/dashboard/stats");
    expect(stats).toMatchObject({ pending_backups: 1, sync_progress: null });
    expect(await get("/api/sync/status")).toMatchObject({ is_syncing: false, progress: null });
  }, 240_000);
});
