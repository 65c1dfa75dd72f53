import { syncMessages as m } from "@keepsake/contracts";
import { DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NEW_POSTS_PROFILE_MAX_AGE_MS } from "../../src/library/dashboard.service.ts";
import { backupHelpers, FAST_ENGINE } from "../support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";
import { until } from "../support/wait.ts";

let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
type Connected = Awaited<ReturnType<ReturnType<typeof backupHelpers>["connectedUser"]>>;
let owner: Connected;
let other: Connected;

beforeAll(async () => {
  t = await createSandboxedApp(
    {},
    { sandbox: { largeVideoBytes: 2 * 1024 * 1024 }, engineSettings: FAST_ENGINE },
  );
  h = backupHelpers(t);
  owner = await h.connectedUser({ tier: "free" });
  other = await h.connectedUser({
    instagram: DEMO_IG.creator.id,
    google: DEMO_GOOGLE.maya.sub,
    tier: "pro",
  });
});
afterAll(async () => {
  await t?.close();
});

describe("/api/sync", () => {
  it("answers 401 without a session", async () => {
    for (const [method, url] of [
      ["GET", "/api/sync/sync-jobs"],
      ["GET", "/api/sync/posts"],
      ["GET", "/api/sync/backups"],
      ["GET", "/api/sync/dashboard/stats"],
      ["GET", "/api/sync/status"],
      ["POST", "/api/sync/start"],
      ["POST", "/api/sync/refresh-instagram-posts"],
      ["GET", "/api/sync/check-new-posts"],
      ["GET", "/api/sync/instagram-media/123"],
    ] as const) {
      expect((await t.call(method, url)).status, url).toBe(401);
    }
  });

  it("refuses to start without Instagram or without Drive, with SPEC's messages", async () => {
    const bare = await t.signUp();
    const noIg = await t.call("POST", "/api/sync/start", { token: bare.token, body: {} });
    expect(noIg).toMatchObject({ status: 400, body: { detail: m.instagramNotConnected } });
    await t.connectInstagram(bare.token, DEMO_IG.personal.id);
    // The personal account is refused by Connections; a professional one is needed first.
    const accounts = await t.ctx.db
      .selectFrom("instagram_accounts")
      .select("id")
      .where("user_id", "=", bare.user.id)
      .execute();
    if (accounts.length === 0) {
      await t.rows.connections.insertInstagramAccount({
        user_id: bare.user.id,
        instagram_user_id: "test-only-1",
        connected_via: "instagram",
        username: "someone",
        access_token_encrypted: "v1.x.y.z",
        token_issued_at: new Date(),
      });
    }
    const noDrive = await t.call("POST", "/api/sync/start", { token: bare.token, body: {} });
    expect(noDrive).toMatchObject({ status: 400, body: { detail: m.googleNotConnected } });
    const bad = await t.call("POST", "/api/sync/start", {
      token: bare.token,
      body: { account_id: "nope" },
    });
    expect(bad.status).toBe(422);
  });

  it("lists posts within the free plan's limit and records why the rest are not backed up", async () => {
    const res = await t.call("POST", "/api/sync/refresh-instagram-posts", { token: owner.token });
    expect(res.status).toBe(200);
    const job = res.body.sync_job;
    await t.ctx.syncEngine.run(
      { accountId: owner.accountId, syncJobId: job.id, kind: "manual", mode: "refresh" },
      { retryCount: 0, retryLimit: 3 },
    );
    const all = await t.call("GET", "/api/sync/posts?limit=200", { token: owner.token });
    expect(all.body.total).toBeGreaterThan(150);
    const blocked = all.body.posts.filter(
      (p: { not_backed_up_reason: string | null }) => p.not_backed_up_reason,
    );
    expect(blocked.length).toBe(all.body.total - 100);
    expect(blocked[0].not_backed_up_reason).toBe(m.postLimit(100, "Free"));
    // Newest first: the blocked ones are the oldest.
    const times = all.body.posts.map((p: { timestamp: string }) => p.timestamp);
    expect([...times].sort().reverse()).toEqual(times);
    expect(
      all.body.posts
        .slice(0, 100)
        .every((p: { not_backed_up_reason: unknown }) => !p.not_backed_up_reason),
    ).toBe(true);

    const check = await t.call("GET", "/api/sync/check-new-posts", { token: owner.token });
    expect(check.body).toMatchObject({ has_new_posts: true });
    // Only the posts within the plan count as "not backed up yet": Backup Now backs those up.
    expect(check.body.unbacked_posts_count).toBe(100);
    expect(check.body.upgrade_message).toMatch(/Upgrade to Premium/);
  });

  it("filters posts by type and caption, pages them, and counts the total", async () => {
    const videos = await t.call("GET", "/api/sync/posts?media_type=video&limit=5", {
      token: owner.token,
    });
    expect(videos.body.posts.length).toBe(5);
    expect(videos.body.posts.every((p: { media_type: string }) => p.media_type === "video")).toBe(
      true,
    );
    const page2 = await t.call("GET", "/api/sync/posts?media_type=video&limit=5&offset=5", {
      token: owner.token,
    });
    expect(page2.body.total).toBe(videos.body.total);
    expect(page2.body.posts[0].id).not.toBe(videos.body.posts[0].id);
    const sample = videos.body.posts.find((p: { caption: string | null }) => p.caption)
      ?.caption as string;
    const word = sample.split(/\s+/).find((w) => w.length > 4) as string;
    const found = await t.call(
      "GET",
      `/api/sync/posts?search=${encodeURIComponent(word)}&media_type=`,
      {
        token: owner.token,
      },
    );
    expect(found.body.total).toBeGreaterThan(0);
    for (const p of found.body.posts) expect(p.caption.toLowerCase()).toContain(word.toLowerCase());
    const none = await t.call("GET", "/api/sync/posts?search=%25_no-such-caption", {
      token: owner.token,
    });
    expect(none.body).toEqual({ posts: [], total: 0, total_exact: true });
    expect(
      (await t.call("GET", "/api/sync/posts?media_type=gif", { token: owner.token })).status,
    ).toBe(422);
  });

  it("runs a manual sync through the queue: the job, the status and the backups fill in", async () => {
    // Everything but three images counts as backed up already, so the run stays small.
    const posts = await t.ctx.db
      .selectFrom("posts")
      .selectAll()
      .where("user_id", "=", owner.user.id)
      .execute();
    const keep = posts
      .filter(
        (p) =>
          p.media_type === "IMAGE" && !p.not_backed_up_reason && p.media_product_type !== "STORY",
      )
      .slice(0, 3);
    for (const p of posts.filter((x) => !keep.includes(x))) {
      await t.rows.backups.insertBackups([
        {
          post_id: p.id,
          user_id: p.user_id,
          account_id: p.account_id,
          status: "completed",
          backup_size_bytes: 10,
        },
      ]);
    }
    // A slow CDN keeps the backups running long enough to watch the job while it runs.
    await h.control("/latency", { body: { endpoint: "cdn", ms: 500 } });
    await t.ctx.queue.work(t.ctx);
    const started = await t.call("POST", "/api/sync/start", { token: owner.token, body: {} });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ already_running: false, message: m.syncStarted });
    const again = await t.call("POST", "/api/sync/start", { token: owner.token, body: {} });
    expect(again.body.already_running).toBe(true);
    expect(again.body.sync_job.id).toBe(started.body.sync_job.id);

    const readings: { is_syncing: boolean; sync_job: { posts_total: number } | null }[] = [];
    const status = await until(
      async () => {
        const body = (await t.call("GET", "/api/sync/status", { token: owner.token })).body;
        readings.push(body);
        return body;
      },
      (s) => s.is_syncing === false,
    );
    await h.control("/latency", { body: { endpoint: "cdn", ms: 0 } });
    // While it ran, the job already knew how many posts it had to back up.
    expect(readings.some((r) => r.is_syncing && r.sync_job?.posts_total === 3)).toBe(true);
    expect(status.sync_job).toMatchObject({
      status: "completed",
      posts_processed: 3,
      posts_total: 3,
    });
    const jobs = await t.call("GET", "/api/sync/sync-jobs?limit=1", { token: owner.token });
    expect(jobs.body).toHaveLength(1);
    expect(jobs.body[0].id).toBe(started.body.sync_job.id);

    const done = await t.call("GET", "/api/sync/backups?status_filter=completed&limit=200", {
      token: owner.token,
    });
    expect(done.body.total).toBe(done.body.backups.length);
    const mine = done.body.backups.filter((b: { instagram_post_id: string }) =>
      keep.some((k) => k.id === b.instagram_post_id),
    );
    expect(mine).toHaveLength(3);
    for (const b of mine) {
      expect(b.google_drive_file_id).toBeTruthy();
      expect(b.google_drive_url).toContain("/drive/file/");
      expect(b.backup_size_bytes).toBeGreaterThan(1000);
      expect(b.instagram_post.media_type).toBe("image");
      expect(b.instagram_post.is_backed_up).toBe(true);
    }
    const stats = await t.call("GET", "/api/sync/dashboard/stats", { token: owner.token });
    expect(stats.body).toMatchObject({ pending_backups: 0, next_sync_in: null });
    // Every post has a completed backup now (the fake ones and the three real ones).
    expect(stats.body.backed_up_posts).toBe(posts.length);
    expect(stats.body.last_sync).toBeTruthy();
    const failed = await t.call("GET", "/api/sync/backups?status_filter=failed", {
      token: owner.token,
    });
    expect(failed.body).toEqual({ backups: [], total: 0 });
  });

  it("retries a failed backup, and only the owner may", async () => {
    const [target] = await t.ctx.db
      .selectFrom("backups as b")
      .innerJoin("posts as p", "p.id", "b.post_id")
      .select(["b.post_id", "p.instagram_id"])
      .where("b.user_id", "=", owner.user.id)
      .where("p.media_type", "=", "IMAGE")
      .where("b.google_drive_file_id", "is", null)
      .where("p.not_backed_up_reason", "is", null)
      .limit(1)
      .execute();
    await t.rows.backups.updateBackups(
      { postId: target!.post_id },
      { status: "failed", error_message: "Instagram is not responding right now" },
    );
    const stranger = await t.call("POST", `/api/sync/backups/${target!.post_id}/retry`, {
      token: other.token,
    });
    expect(stranger.status).toBe(404);
    const res = await t.call("POST", `/api/sync/backups/${target!.post_id}/retry`, {
      token: owner.token,
    });
    expect(res.status).toBe(200);
    expect(res.body.backup.status).toBe("pending");
    const backup = await until(
      () => t.ctx.syncRepos.backups.findBackupByPost(owner.user.id, target!.post_id),
      (b) => b?.status === "completed",
    );
    expect(backup?.google_drive_file_id).toBeTruthy();
    const twice = await t.call("POST", `/api/sync/backups/${target!.post_id}/retry`, {
      token: owner.token,
    });
    expect(twice.status).toBe(409);
  });

  it("keeps every answer to the caller's own data", async () => {
    const theirs = await t.call("GET", "/api/sync/posts", { token: other.token });
    expect(theirs.body).toEqual({ posts: [], total: 0, total_exact: true });
    expect((await t.call("GET", "/api/sync/backups", { token: other.token })).body).toEqual({
      backups: [],
      total: 0,
    });
    const ownerPost = await t.ctx.db
      .selectFrom("posts")
      .select(["instagram_id", "account_id"])
      .where("user_id", "=", owner.user.id)
      .where("media_type", "=", "IMAGE")
      .executeTakeFirstOrThrow();
    const filtered = await t.call("GET", `/api/sync/posts?account_id=${ownerPost.account_id}`, {
      token: other.token,
    });
    expect(filtered.body.total).toBe(0);
    const stolen = await t.call("GET", `/api/sync/instagram-media/${ownerPost.instagram_id}`, {
      token: other.token,
    });
    expect(stolen.status).toBe(404);
    const mine = await t.app.inject({
      method: "GET",
      url: `/api/sync/instagram-media/${ownerPost.instagram_id}`,
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(mine.statusCode).toBe(200);
    expect(mine.headers["content-type"]).toBe("image/jpeg");
    expect(mine.rawPayload.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(
      (await t.call("GET", "/api/sync/instagram-media/..%2F..%2Fetc", { token: owner.token }))
        .status,
    ).toBe(404);
    const stats = await t.call("GET", "/api/sync/dashboard/stats", { token: other.token });
    expect(stats.body).toMatchObject({ total_posts: 0, backed_up_posts: 0, last_sync: null });
    expect(stats.body.next_sync_in).toBeGreaterThanOrEqual(1);
    expect(stats.body.next_sync_in).toBeLessThanOrEqual(10);
  });

  it("check-new-posts sees posts published on Instagram once the profile is a few minutes old", async () => {
    const check = async () =>
      (await t.call("GET", "/api/sync/check-new-posts", { token: owner.token })).body;
    const before = await check();
    await h.control("/instagram/posts", {
      body: { account: DEMO_IG.business.username, count: 2 },
    });
    // The profile was read a moment ago: the count is not asked for again yet.
    expect((await check()).new_posts_count).toBe(before.new_posts_count);
    t.clock.advance(NEW_POSTS_PROFILE_MAX_AGE_MS);
    const after = await check();
    expect(after).toMatchObject({
      has_new_posts: true,
      new_posts_count: before.new_posts_count + 2,
    });
  });
});
