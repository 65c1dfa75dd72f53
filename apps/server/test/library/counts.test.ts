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
  }, 240_000);
});
