import { DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshSidecarJob } from "../../src/archive/jobs/refresh-sidecar.job.ts";
import { backupHelpers, FAST_ENGINE } from "../support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

const DAY = 86_400_000;

let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;

beforeAll(async () => {
  t = await createSandboxedApp({}, { engineSettings: FAST_ENGINE });
  h = backupHelpers(t);
});
afterAll(async () => {
  await t?.close();
});

type Connected = Awaited<ReturnType<ReturnType<typeof backupHelpers>["connectedUser"]>>;

/** Runs the sidecar rewrites the archive queued (as a worker would), and answers their posts. */
async function runSidecarJobs(accountId: string): Promise<string[]> {
  const { rows } = await t.ctx.pool.query<{ id: string; data: { instagramId: string } }>(
    `DELETE FROM ${t.ctx.queueSchema}.job WHERE name = $1 AND data->>'accountId' = $2 RETURNING id, data`,
    [refreshSidecarJob.name, accountId],
  );
  for (const r of rows)
    await refreshSidecarJob.handler({ accountId, instagramId: r.data.instagramId }, t.ctx, {
      id: r.id,
      retryCount: 0,
    });
  return rows.map((r) => r.data.instagramId);
}

interface Sidecar {
  instagram_status: string;
  gone_detected_at: string | null;
  like_count: number | null;
  files: unknown;
  metrics: Record<string, number | string>[];
}

async function sidecarOf(instagramId: string, email: string) {
  const files = (await h.driveFiles(email)).filter(
    (f) => f.appProperties.keepsakeMediaId === `${instagramId}_meta` && !f.trashed,
  );
  expect(files, `sidecars of ${instagramId}`).toHaveLength(1);
  const file = files[0]!;
  return { id: file.id, json: JSON.parse(await h.driveContent(file.id)) as Sidecar };
}

const presence = (accountId: string, instagramId: string) =>
  t.ctx.db
    .selectFrom("post_presence")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("instagram_id", "=", instagramId)
    .executeTakeFirstOrThrow();

const sync = (u: Connected) => h.syncAndDrain(u.user.id, u.accountId);

let u: Connected;

describe("engagement with every post", () => {
  beforeAll(async () => {
    u = await h.connectedUser({
      instagram: DEMO_IG.creator.id,
      google: DEMO_GOOGLE.maya.sub,
      tier: "pro",
    });
  });

  it("keeps the counters the media list returns at backup, in the database and the sidecar, without an extra Graph call", async () => {
    const before = await h.calls();
    await sync(u);
    const after = await h.calls();
    // The counters come with the pages the sync reads anyway: no media read by id.
    expect((after["ig.media.get"] ?? 0) - (before["ig.media.get"] ?? 0)).toBe(0);

    const media = (await h.media(DEMO_IG.creator.username)).filter(
      (m) => m.media_product_type !== "STORY",
    );
    const readings = await t.ctx.db
      .selectFrom("post_metrics")
      .selectAll()
      .where("account_id", "=", u.accountId)
      .execute();
    expect(readings.length).toBe(media.length);
    expect(readings.every((r) => r.reason === "backup")).toBe(true);
    const visible = readings.filter((r) => r.likes !== null);
    const hidden = readings.filter((r) => r.likes === null);
    expect(visible.length).toBeGreaterThan(0);
    // Views come where Instagram returns them; with hidden counts none of them is there.
    expect(visible.every((r) => r.views !== null && r.saves !== null)).toBe(true);
    expect(hidden.every((r) => r.views === null && r.saves === null && r.shares === null)).toBe(
      true,
    );

    const post = visible[0]!;
    const { json } = await sidecarOf(post.instagram_id, DEMO_GOOGLE.maya.email);
    expect(json.instagram_status).toBe("on_instagram");
    expect(json.gone_detected_at).toBeNull();
    expect(json.metrics).toEqual([
      {
        at: t.clock.now().toISOString(),
        likes: post.likes,
        comments: post.comments,
        views: post.views,
        saves: post.saves,
        shares: post.shares,
        reposts: post.reposts,
      },
    ]);
    if (hidden[0]) {
      const hiddenSidecar = (await sidecarOf(hidden[0].instagram_id, DEMO_GOOGLE.maya.email)).json;
      expect(Object.keys(hiddenSidecar.metrics[0]!).sort()).toEqual(["at", "comments"]);
    }
  }, 180_000);

  it("reads them again at the weekly walk and rewrites the sidecar in place, not as a new file", async () => {
    const post = (
      await t.ctx.db
        .selectFrom("post_metrics")
        .selectAll()
        .where("account_id", "=", u.accountId)
        .where("likes", "is not", null)
        .orderBy("instagram_id")
        .execute()
    )[0]!;
    const first = await sidecarOf(post.instagram_id, DEMO_GOOGLE.maya.email);
    await h.control(`/instagram/media/${post.instagram_id}/counters`, {
      body: { like_count: 5001, view_count: 90_210, comments_count: 77 },
    });

    // Six days on: no walk is due, nothing is read again.
    t.clock.advance(6 * DAY);
    await sync(u);
    expect(await runSidecarJobs(u.accountId)).toEqual([]);

    // Past a week: the whole list is walked and the changed counters are kept.
    t.clock.advance(2 * DAY);
    await sync(u);
    const history = await t.ctx.archive.history(u.accountId, post.instagram_id);
    expect(history.metrics.map((m) => [m.reason, m.likes, m.views, m.comments])).toEqual([
      ["backup", post.likes, post.views, post.comments],
      ["walk", 5001, 90_210, 77],
    ]);
    // Only the post whose counters changed is rewritten.
    expect(await runSidecarJobs(u.accountId)).toEqual([post.instagram_id]);
    const second = await sidecarOf(post.instagram_id, DEMO_GOOGLE.maya.email);
    expect(second.id).toBe(first.id);
    expect(second.json.like_count).toBe(5001);
    expect(second.json.metrics).toHaveLength(2);
    expect(second.json.metrics[1]).toMatchObject({ likes: 5001, views: 90_210, comments: 77 });
    expect(second.json.files).toEqual(first.json.files);
  }, 60_000);

  it("takes a reading about 1, 7 and 30 days after posting", async () => {
    // The sandbox stamps a new post with its own clock: set it to Keepsake's.
    await h.control("/clock", { body: { set: t.clock.now().toISOString() } });
    const [created] = (
      await h.control<{ created: { id: string }[] }>("/instagram/posts", {
        body: { account: DEMO_IG.creator.username, count: 1, media_type: "IMAGE" },
      })
    ).created;
    const id = created!.id;
    // The sandbox timestamps it with its own clock: what counts is the post's age at each sync.
    await sync(u);
    const reasons = async () =>
      (await t.ctx.archive.history(u.accountId, id)).metrics.map((m) => m.reason);
    expect(await reasons()).toEqual(["backup"]);
    await h.control("/clock", { body: { advance_seconds: (DAY / 1000) * 1.1 } });
    t.clock.advance(1.1 * DAY);
    await sync(u);
    expect(await reasons()).toEqual(["backup", "day_1"]);
    await sync(u);
    expect(await reasons()).toEqual(["backup", "day_1"]);
    expect(await runSidecarJobs(u.accountId)).toContain(id);
  }, 60_000);
});

describe("posts deleted or archived on Instagram", () => {
  let deleted: string;
  let archived: string;
  let kept: string;
  beforeAll(async () => {
    await runSidecarJobs(u.accountId);
    const feed = (await h.media(DEMO_IG.creator.username)).filter(
      (m) => m.media_product_type !== "STORY" && !m.pinned,
    );
    [deleted, archived, kept] = [feed[3]!.id, feed[10]!.id, feed[20]!.id];
  });

  it("marks a post missing from two walks a day apart, that Instagram then answers 100/33 for; one miss is not enough", async () => {
    const { files: before } = { files: await h.driveFiles(DEMO_GOOGLE.maya.email) };
    await h.control(`/instagram/media/${deleted}/remove`, { body: { as: "deleted" } });
    await h.control(`/instagram/media/${archived}/remove`, { body: { as: "archived" } });

    // The profile says there are fewer posts: the next sync walks the whole list.
    await t.ctx.accounts.refreshProfile(u.user.id, u.accountId);
    expect(await t.ctx.archive.walkDue({ id: u.accountId, media_count: 40 }, null)).toBe(
      "media_count_dropped",
    );
    t.clock.advance(3600_000);
    await sync(u);
    const once = await presence(u.accountId, deleted);
    expect(once.first_missed_at).not.toBeNull();
    expect(once.gone_detected_at).toBeNull();

    // The next sync within a day does not walk again (nothing is confirmed by a second miss yet).
    t.clock.advance(12 * 3600_000);
    await sync(u);
    expect((await presence(u.accountId, deleted)).gone_detected_at).toBeNull();

    // A day after the first miss, a walk confirms it; Instagram answers 100/33 for both.
    t.clock.advance(13 * 3600_000);
    const calls = await h.calls();
    await sync(u);
    const probes = ((await h.calls())["ig.media.get"] ?? 0) - (calls["ig.media.get"] ?? 0);
    expect(probes).toBe(3); // one post the walk saw, then the two missing ones
    const gone = await presence(u.accountId, deleted);
    expect(gone.gone_detected_at?.toISOString()).toBe(t.clock.now().toISOString());
    expect((await presence(u.accountId, archived)).gone_detected_at).not.toBeNull();
    expect((await presence(u.accountId, kept)).gone_detected_at).toBeNull();

    // Nothing left Drive; the sidecar (same file) says the post is no longer on Instagram.
    expect(await runSidecarJobs(u.accountId)).toEqual(expect.arrayContaining([deleted, archived]));
    const after = await h.driveFiles(DEMO_GOOGLE.maya.email);
    expect(
      after
        .filter((f) => !f.trashed)
        .map((f) => f.id)
        .sort(),
    ).toEqual(
      before
        .filter((f) => !f.trashed)
        .map((f) => f.id)
        .sort(),
    );
    const { json } = await sidecarOf(deleted, DEMO_GOOGLE.maya.email);
    expect(json.instagram_status).toBe("gone");
    expect(json.gone_detected_at).toBe(t.clock.now().toISOString());
  }, 60_000);

  it("shows them on the grid and /backups, which filter them, with the date Instagram can restore them until", async () => {
    // The test clock ran past the first session's lifetime: sign in again.
    const login = await t.call("POST", "/api/auth/login", {
      body: { email: u.user.email, password: u.password },
    });
    u = { ...u, token: login.body.access_token };
    const grid = await t.call("GET", "/api/sync/posts?instagram_status=gone&limit=50", {
      token: u.token,
    });
    expect(grid.status).toBe(200);
    const goneIds = grid.body.posts.map((p: { instagram_id: string }) => p.instagram_id).sort();
    expect(goneIds).toEqual([deleted, archived].sort());
    expect(grid.body.total).toBe(2);
    const post = grid.body.posts.find((p: { instagram_id: string }) => p.instagram_id === deleted);
    const seen = await presence(u.accountId, deleted);
    expect(post).toMatchObject({
      instagram_status: "gone",
      gone_detected_at: seen.gone_detected_at?.toISOString(),
      restore_until: new Date(seen.last_seen_at.getTime() + 30 * DAY).toISOString(),
    });
    const all = await t.call("GET", "/api/sync/posts?limit=200", { token: u.token });
    const keptPost = all.body.posts.find((p: { instagram_id: string }) => p.instagram_id === kept);
    expect(keptPost).toMatchObject({ instagram_status: "on_instagram", gone_detected_at: null });
    expect(keptPost.view_count).toEqual(expect.any(Number));

    const backups = await t.call("GET", "/api/sync/backups?instagram_status=gone", {
      token: u.token,
    });
    expect(backups.status).toBe(200);
    expect(backups.body.total).toBe(2);
    expect(
      backups.body.backups
        .map((b: { instagram_post: { instagram_id: string } }) => b.instagram_post.instagram_id)
        .sort(),
    ).toEqual([deleted, archived].sort());

    const history = await t.call("GET", `/api/archive/posts/${u.accountId}/${deleted}/history`, {
      token: u.token,
    });
    expect(history.status).toBe(200);
    expect(history.body.metrics[0].reason).toBe("backup");
    expect(history.body.restore_until).toBe(post.restore_until);
    const stranger = await t.signUp();
    const refused = await t.call("GET", `/api/archive/posts/${u.accountId}/${deleted}/history`, {
      token: stranger.token,
    });
    expect(refused.status).toBe(404);
    // A post no walk has seen and with no reading is not found, for its account's owner too.
    const unknown = await t.call("GET", `/api/archive/posts/${u.accountId}/999999999/history`, {
      token: u.token,
    });
    expect(unknown.status).toBe(404);
    await expect(t.ctx.archive.history(u.accountId, "999999999")).rejects.toThrow("Post not found");
    expect(
      (await t.call("GET", "/api/sync/posts?instagram_status=gone", { token: stranger.token })).body
        .total,
    ).toBe(0);

    const stats = await t.call("GET", `/api/archive/stats?account_id=${u.accountId}`, {
      token: u.token,
    });
    expect(stats.status).toBe(200);
    expect(stats.body.gone).toBe(2);
    // Every post Keepsake keeps, stories included: the dashboard's Total Posts (issue 36).
    const media = await h.media(DEMO_IG.creator.username);
    const stories = (
      await t.ctx.db
        .selectFrom("posts")
        .select("id")
        .where("account_id", "=", u.accountId)
        .where("media_product_type", "=", "STORY")
        .execute()
    ).length;
    expect(stories).toBeGreaterThan(0);
    expect(stats.body).toMatchObject({ posts: media.length + 2 + stories, stories });
    const dashboard = await t.call("GET", "/api/sync/dashboard/stats", { token: u.token });
    expect(dashboard.body.total_posts).toBe(stats.body.posts);
    const csv = await t.call("GET", "/api/archive/stats.csv", { token: u.token });
    expect(csv.status).toBe(200);
    expect(String(csv.headers["content-type"])).toMatch(/^text\/csv/);
    // One row per post per reading (archive.csv.test.ts has the columns); the snapshot one per post.
    const rows = parse(String(csv.body), { columns: true }) as Record<string, string>[];
    // The CSV has the feed posts (a story has no counters to chart).
    const feed = stats.body.posts - stats.body.stories;
    expect(new Set(rows.map((r) => r.instagram_id)).size).toBe(feed);
    const snapshot = await t.call("GET", "/api/archive/stats.csv?view=snapshot", {
      token: u.token,
    });
    expect(parse(String(snapshot.body), { columns: true })).toHaveLength(feed);
    const row = rows.find((r) => r.instagram_id === deleted)!;
    expect(row.account).toBe(DEMO_IG.creator.username);
    expect(row.on_instagram).toBe("no");
    expect(row.gone_detected_at).toBe(post.gone_detected_at);
  });

  it("unmarks a post that comes back", async () => {
    await h.control(`/instagram/media/${archived}/restore`, { body: {} });
    t.clock.advance(8 * DAY);
    await sync(u);
    const back = await presence(u.accountId, archived);
    expect(back.gone_detected_at).toBeNull();
    expect(back.first_missed_at).toBeNull();
    expect((await presence(u.accountId, deleted)).gone_detected_at).not.toBeNull();
    expect(await runSidecarJobs(u.accountId)).toContain(archived);
    expect((await sidecarOf(archived, DEMO_GOOGLE.maya.email)).json.instagram_status).toBe(
      "on_instagram",
    );
  });

  it("never marks anything with a token Instagram no longer accepts", async () => {
    await h.control(`/instagram/media/${kept}/remove`, { body: { as: "deleted" } });
    t.clock.advance(8 * DAY);
    await sync(u);
    expect((await presence(u.accountId, kept)).first_missed_at).not.toBeNull();
    await h.control("/tokens/revoke", { body: { instagram_user_id: DEMO_IG.creator.userId } });
    t.clock.advance(2 * DAY);
    const { job } = await sync(u);
    expect(job?.status).toBe("failed");
    expect((await presence(u.accountId, kept)).gone_detected_at).toBeNull();
  });

  it("does not take a story's 24-hour expiry for a deletion", async () => {
    const rows = await t.ctx.db
      .selectFrom("post_presence")
      .innerJoin("posts", (j) =>
        j
          .onRef("posts.account_id", "=", "post_presence.account_id")
          .onRef("posts.instagram_id", "=", "post_presence.instagram_id"),
      )
      .select("posts.media_product_type")
      .where("post_presence.account_id", "=", u.accountId)
      .execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => r.media_product_type === "STORY")).toBe(false);
  });
});
