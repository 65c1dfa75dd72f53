import { syncMessages as m } from "@keepsake/contracts";
import { DEMO_IG } from "@keepsake/sandbox";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coverUrl } from "../../src/backups/naming.ts";
import { backupHelpers, FAST_ENGINE, md5, requests } from "../support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
let user: Awaited<ReturnType<ReturnType<typeof backupHelpers>["connectedUser"]>>;

beforeAll(async () => {
  t = await createSandboxedApp(
    {},
    { sandbox: { largeVideoBytes: 3 * 1024 * 1024 }, engineSettings: FAST_ENGINE },
  );
  h = backupHelpers(t);
  user = await h.connectedUser({ tier: "pro" });
});
afterAll(async () => {
  await t?.close();
});

/** Every media item the account shows (carousel children each), and which are withheld. */
async function expectedItems() {
  const media = await h.media();
  const all = new Map((await h.media()).map((x) => [x.id, x]));
  const items: { id: string; postId: string; video: boolean }[] = [];
  const withheld: string[] = [];
  for (const p of media) {
    if (p.media_url_withheld) {
      withheld.push(p.id);
      continue;
    }
    if (p.media_type === "CAROUSEL_ALBUM") {
      for (const c of p.children) items.push({ id: c, postId: p.id, video: false });
    } else items.push({ id: p.id, postId: p.id, video: p.media_type === "VIDEO" });
  }
  return { media, items, withheld, all };
}

describe("the first sync of the 150-post demo account", () => {
  it("puts every media item and sidecar in Drive exactly once, organised by year, with matching md5", async () => {
    const { job } = await h.syncAndDrain(user.user.id, user.accountId);
    const { media, items, withheld } = await expectedItems();
    expect(media.length).toBeGreaterThanOrEqual(150);

    const files = (await h.driveFiles()).filter((f) => !f.isFolder && !f.trashed);
    const byKey = new Map<string, typeof files>();
    for (const f of files) {
      const key = f.appProperties.keepsakeMediaId as string;
      byKey.set(key, [...(byKey.get(key) ?? []), f]);
    }
    for (const item of items) {
      const copies = byKey.get(item.id) ?? [];
      expect(copies, `media ${item.id}`).toHaveLength(1);
      const f = copies[0]!;
      expect(f.folder).toMatch(
        new RegExp(`^Keepsake/@${DEMO_IG.business.username.replace(".", "\\.")}/\\d{4}$`),
      );
      expect(f.folder.slice(-4)).toBe(f.createdTime.slice(0, 4));
      expect(f.name).toMatch(
        /^\d{4}-\d{2}-\d{2}_(photo|video|reel|carousel|story)_\d+(_\d+)?\.(jpg|mp4)$/,
      );
    }
    // One sidecar per post, the withheld ones too (their caption and metadata are backed up).
    const posts = new Set([...items.map((i) => i.postId), ...withheld]);
    for (const id of posts) expect(byKey.get(`${id}_meta`), `sidecar ${id}`).toHaveLength(1);
    // Videos, and carousels opening with a video, keep the creator's cover image too.
    const covers = await coverKeys();
    for (const key of covers) expect(byKey.get(key), key).toHaveLength(1);
    expect(files.length).toBe(
      items.length + posts.size + (await storyFiles()).length + covers.length,
    );

    // md5: what Drive holds is byte-for-byte what the CDN serves (checked for every video).
    const rows = await t.ctx.db.selectFrom("backup_files").selectAll().execute();
    const recorded = new Map(rows.map((r) => [r.item_key, r]));
    for (const item of items.filter((i) => i.video)) {
      const f = byKey.get(item.id)![0]!;
      const row = recorded.get(item.id)!;
      const post = await t.ctx.db
        .selectFrom("posts")
        .select("media_url")
        .where("instagram_id", "=", item.id)
        .executeTakeFirstOrThrow();
      const original = new Uint8Array(await (await fetch(post.media_url!)).arrayBuffer());
      expect(f.md5Checksum).toBe(md5(original));
      expect(row.md5).toBe(f.md5Checksum);
      expect(f.size).toBe(original.length);
    }

    // The backups and the sync job tell the same story.
    const backups = await h.backups(user.user.id);
    const byStatus = (s: string) => backups.filter((b) => b.status === s);
    expect(byStatus("pending")).toHaveLength(0);
    // Media Instagram withholds is not a failure: it is unavailable, and says why.
    expect(byStatus("failed")).toHaveLength(0);
    expect(withheld.length).toBeGreaterThan(0);
    expect(byStatus("unavailable").length).toBe(withheld.length);
    for (const b of byStatus("unavailable")) {
      expect(b.error_message).toBe(m.mediaUnavailable);
      expect(b.retry_on_sync).toBe(false);
    }
    expect(job?.status).toBe("completed");
    expect(job?.posts_processed).toBe(job?.posts_total);
    expect(job?.posts_total).toBe(backups.length);
  }, 240_000);

  it("stores caption, post time and appProperties on each file", async () => {
    const post = await t.ctx.db
      .selectFrom("posts")
      .selectAll()
      .where("user_id", "=", user.user.id)
      .where("media_type", "=", "VIDEO")
      .where("caption", "is not", null)
      // A video Drive holds (Instagram withholds some reels' media: their backup is unavailable),
      // the same one on every run: without an order, PostgreSQL answers any.
      .where("id", "in", (eb) =>
        eb.selectFrom("backups").select("post_id").where("status", "=", "completed"),
      )
      .orderBy("posted_at")
      .orderBy("id")
      .executeTakeFirstOrThrow();
    const file = (await h.driveFiles()).find(
      (f) => f.appProperties.keepsakeMediaId === post.instagram_id,
    );
    expect(file?.description).toBe(post.caption);
    expect(new Date(file!.createdTime).toISOString()).toBe(new Date(post.posted_at).toISOString());
    const meta = (await h.driveFiles()).find(
      (f) => f.appProperties.keepsakeMediaId === `${post.instagram_id}_meta`,
    );
    expect(meta?.name).toMatch(new RegExp(`_${post.instagram_id}_meta\\.json$`));
  });

  it("a second sync uploads nothing", async () => {
    await h.control("/calls", { method: "DELETE" });
    const before = (await h.driveFiles()).length;
    const stateBefore = await h.syncState(user.accountId);
    t.clock.advance(60_000);
    const { result, job, statements } = await h.syncAndDrain(user.user.id, user.accountId);
    // The run ended in one pass (no retry, no deferral, each of which writes one more
    // statement): checked first, so that a failure below says which it was.
    expect(result.outcome).toBe("done");
    expect(job?.status).toBe("completed");
    // The run's end records the account's sync: its time moves on, its history stays complete.
    const stateAfter = await h.syncState(user.accountId);
    expect(stateBefore.last_sync_at).not.toBeNull();
    expect(Number(stateAfter.last_sync_at)).toBeGreaterThan(Number(stateBefore.last_sync_at));
    expect(stateAfter.history_complete_at).toEqual(stateBefore.history_complete_at);
    expect(stateAfter.history_complete_at).not.toBeNull();
    const calls = await h.calls();
    // An unchanged account costs two Graph calls (the first media page, the stories): it stops
    // after a short run of known posts instead of walking the whole history again, and it makes
    // no Drive call at all.
    expect(requests(calls, "ig.")).toEqual({ "ig.media.list": 1, "ig.stories": 1 });
    // And six SQL statements: the account (with its token), its run, the stored copies of the
    // page's posts and stories (none is written), the archive's readings of the page's posts
    // with the account's walk state (nothing due, no walk: nothing written), the claim after
    // the plan's limit (nothing due), and the run's end with the account's sync state.
    expect(statements).toBe(6);
    expect(requests(calls, "drive.")).toEqual({});
    expect((await h.driveFiles()).length).toBe(before);
    expect(job?.posts_total).toBe(0);
  });

  it("a sync writes no unchanged post; a changed post, and URLs an hour old, are written again", async () => {
    /** Each of the account's posts: its row version (xmin), when it was written, its likes. */
    const rows = async () => {
      const r = await sql<{ id: string; v: string; updated_at: Date; like_count: number }>`
        SELECT id, xmin::text AS v, updated_at, like_count FROM posts
         WHERE account_id = ${user.accountId}`.execute(t.ctx.db);
      return new Map(r.rows.map((x) => [x.id, x]));
    };
    const newest = await t.ctx.db
      .selectFrom("posts")
      .select(["id", "like_count"])
      .where("account_id", "=", user.accountId)
      .where("media_product_type", "<>", "STORY")
      .orderBy("posted_at", "desc")
      .executeTakeFirstOrThrow();
    // Our copy of the newest post's like count falls behind Instagram's.
    await t.rows.sync.updatePost(newest.id, { like_count: (newest.like_count ?? 0) + 1000 });
    const before = await rows();
    await h.syncAndDrain(user.user.id, user.accountId);
    const after = await rows();
    const rewritten = [...after.values()].filter((r) => r.v !== before.get(r.id)?.v);
    expect(rewritten.map((r) => r.id)).toEqual([newest.id]);
    expect(after.get(newest.id)?.like_count).toBe(newest.like_count);

    // An hour on, the posts the sync reads get their fresh CDN URLs.
    t.clock.advance(3600_000);
    await h.syncAndDrain(user.user.id, user.accountId);
    const later = await rows();
    const refreshed = [...later.values()].filter((r) => r.v !== after.get(r.id)?.v);
    expect(refreshed.length).toBeGreaterThan(1);
    for (const r of refreshed)
      expect(r.updated_at.getTime()).toBeGreaterThan(after.get(r.id)!.updated_at.getTime());
  });

  it("picks up new posts and stories", async () => {
    const added = await h.control<{ created: { id: string }[] }>("/instagram/posts", {
      body: { account: DEMO_IG.business.username, count: 3 },
    });
    const story = await h.control<{ created: { id: string }[] }>("/instagram/stories", {
      body: { account: DEMO_IG.business.username, count: 1 },
    });
    const { job } = await h.syncAndDrain(user.user.id, user.accountId);
    const keys = new Set((await h.driveFiles()).map((f) => f.appProperties.keepsakeMediaId));
    for (const p of [...added.created, ...story.created])
      expect(keys.has(`${p.id}_meta`)).toBe(true);
    const storyPost = await t.ctx.db
      .selectFrom("posts")
      .selectAll()
      .where("instagram_id", "=", story.created[0]!.id)
      .executeTakeFirstOrThrow();
    expect(storyPost.media_product_type).toBe("STORY");
    expect(job?.status).toBe("completed");
    expect(job?.posts_total).toBe(4);
  });

  it("a withheld reel's sidecar holds its caption and metadata, and names the file Instagram withholds", async () => {
    const { withheld } = await expectedItems();
    const post = await t.ctx.db
      .selectFrom("posts")
      .selectAll()
      .where("user_id", "=", user.user.id)
      .where("instagram_id", "=", withheld[0]!)
      .executeTakeFirstOrThrow();
    const meta = (await h.driveFiles()).find(
      (f) => f.appProperties.keepsakeMediaId === `${post.instagram_id}_meta`,
    );
    const body = await h.driveContent(meta!.id);
    expect(JSON.parse(body)).toMatchObject({
      instagram_id: post.instagram_id,
      caption: post.caption,
      permalink: post.permalink,
      files: [],
      not_available_from_instagram: [expect.stringContaining(post.instagram_id)],
      not_available_reason: m.mediaWithheld,
    });
    // The screens say so: no Retry (the backup did not fail), and the tile's reason.
    const listed = await t.call("GET", "/api/sync/backups?status_filter=failed", {
      token: user.token,
    });
    expect(listed.body.total).toBe(0);
    const retried = await t.call("POST", "/api/sync/backups/retry-failed", {
      token: user.token,
      body: {},
    });
    expect(retried.body).toEqual({ message: m.noFailedBackups, retried: 0 });
    const one = await t.call("POST", `/api/sync/backups/${post.id}/retry`, { token: user.token });
    expect(one.status).toBe(409);
    expect(one.body.detail).toBe(m.mediaUnavailable);
    const all = await t.call("GET", "/api/sync/backups?limit=200", { token: user.token });
    const row = all.body.backups.find(
      (b: { instagram_post_id: string }) => b.instagram_post_id === post.id,
    );
    expect(row).toMatchObject({ status: "unavailable", error_message: m.mediaUnavailable });
    expect(row.instagram_post.not_backed_up_reason).toBe(m.mediaUnavailable);
  });

  it("finds posts already in Drive by appProperties: completed backups, shown as such, not uploaded", async () => {
    // Keepsake forgets five completed backups (as after a lost database row); Drive keeps them.
    const forgotten = await t.rows.backups.forgetCompleted(user.user.id, 5);
    expect(forgotten).toHaveLength(5);
    await h.control("/calls", { method: "DELETE" });
    const before = (await h.driveFiles()).length;

    const { job } = await h.syncAndDrain(user.user.id, user.accountId);
    expect(job).toMatchObject({ status: "completed", posts_total: 5, posts_processed: 5 });
    const calls = await h.calls();
    expect(calls["drive.upload.multipart"] ?? 0).toBe(0);
    expect(calls["drive.upload.resumable.start"] ?? 0).toBe(0);
    expect((await h.driveFiles()).length).toBe(before);
    const again = await t.ctx.db
      .selectFrom("backups")
      .select(["status", "error_message", "google_drive_file_id"])
      .where(
        "post_id",
        "in",
        forgotten.map((f) => f.post_id),
      )
      .execute();
    expect(again).toHaveLength(5);
    for (const b of again) {
      expect(b).toMatchObject({ status: "completed", error_message: null });
      expect(b.google_drive_file_id).toBeTruthy();
    }
  });
});

describe("an account disconnected and connected again, into the Drive that holds its files", () => {
  it("shows every backup on the Backups screen, as many as the dashboard counts, and uploads nothing", async () => {
    const counts = async () => {
      const stats = await t.call("GET", "/api/sync/dashboard/stats", { token: user.token });
      const completed = await t.call("GET", "/api/sync/backups?status_filter=completed", {
        token: user.token,
      });
      const all: { error_message: string | null }[] = [];
      for (let offset = 0; ; offset += 200) {
        const page = await t.call("GET", `/api/sync/backups?limit=200&offset=${offset}`, {
          token: user.token,
        });
        all.push(...page.body.backups);
        if (page.body.backups.length < 200) break;
      }
      // What the Backups table shows (SPEC §2 hides "skipped duplicate" rows).
      const shown = all.filter((b) => !b.error_message?.includes(m.skippedDuplicate));
      return {
        backedUp: stats.body.backed_up_posts as number,
        completed: completed.body.total as number,
        shown: shown.length,
        listed: all.length,
      };
    };
    const before = await counts();
    expect(before.backedUp).toBeGreaterThan(100);

    const gone = await t.call("DELETE", `/api/accounts/instagram-accounts/${user.accountId}`, {
      token: user.token,
    });
    expect(gone.status).toBe(200);
    t.clock.advance(60_000);
    await t.connectInstagram(user.token, DEMO_IG.business.id);
    const account = await t.ctx.db
      .selectFrom("instagram_accounts")
      .select("id")
      .where("user_id", "=", user.user.id)
      .executeTakeFirstOrThrow();
    // The first sync that connecting queued is run here rather than by a queue worker.
    await t.ctx.pool.query(
      `DELETE FROM ${t.ctx.queueSchema}.job WHERE name = 'sync-account' AND data->>'accountId' = $1`,
      [account.id],
    );
    await t.rows.sync.deleteSyncJobsOfAccount(account.id);
    await h.control("/calls", { method: "DELETE" });
    const filesBefore = (await h.driveFiles()).length;

    const { job } = await h.syncAndDrain(user.user.id, account.id);
    expect(job?.status).toBe("completed");
    const calls = await h.calls();
    expect(calls["drive.upload.multipart"] ?? 0).toBe(0);
    expect(calls["drive.upload.resumable.start"] ?? 0).toBe(0);
    expect((await h.driveFiles()).length).toBe(filesBefore);

    const after = await counts();
    expect(after).toEqual(before);
    expect(after).toEqual({
      backedUp: after.completed,
      completed: after.completed,
      shown: after.listed,
      listed: after.listed,
    });
  }, 240_000);
});

/** The `<id>_cover` keys of every backed-up post that has a cover image. */
async function coverKeys() {
  const rows = await t.ctx.db
    .selectFrom("posts as p")
    .innerJoin("backups as b", "b.post_id", "p.id")
    .selectAll("p")
    .where("p.user_id", "=", user.user.id)
    .where("b.status", "in", ["completed", "unavailable"])
    .execute();
  return rows.filter((p) => coverUrl(p) !== null).map((p) => `${p.instagram_id}_cover`);
}

async function storyFiles() {
  const stories = await t.ctx.db
    .selectFrom("posts")
    .select("instagram_id")
    .where("user_id", "=", user.user.id)
    .where("media_product_type", "=", "STORY")
    .execute();
  // A story is one media item plus its sidecar.
  return stories.flatMap((s) => [s.instagram_id, `${s.instagram_id}_meta`]);
}
