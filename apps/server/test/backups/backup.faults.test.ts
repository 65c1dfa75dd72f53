import { syncMessages as m } from "@keepsake/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import { type backupHelpers, FAST_ENGINE, md5 } from "../support/backup.ts";
import { backupFaultsSuite } from "../support/backup-faults.ts";
import type { SandboxedApp } from "../support/sandbox.ts";

// A backup rides out throttling, 5xx answers, expired URLs and cut uploads (support/backup-faults.ts).
// A full Drive and revoked grants: backup.faults.revoked.test.ts.
const suite = backupFaultsSuite();
const { sleeps, logged, pick, backUp, fault, copiesOf } = suite;
let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
let user: ReturnType<typeof suite.get>["user"];
beforeAll(() => {
  ({ t, h, user } = suite.get());
});

describe("resilience", () => {
  it("rides out a storm of Graph throttling and Drive rate limits with growing, jittered waits", async () => {
    const video = await pick("video");
    await h.control("/cdn/expire", { method: "POST" });
    await fault("ig.media.get", "graph:4", 2);
    await fault("drive.upload", "drive:rateLimitExceeded", 3);
    const { outcome, backup } = await backUp(video.id);
    expect(outcome?.outcome).toBe("completed");
    expect(backup.status).toBe("completed");
    expect(await copiesOf(video.instagram_id)).toHaveLength(1);
    // Waits double (2, 4, 8 ms plus < 2 ms of jitter) between attempts of one call.
    const storm = sleeps.filter((s) => s < 100);
    expect(storm.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...storm)).toBeGreaterThanOrEqual(8);
  });

  it("honours Retry-After", async () => {
    const image = await pick("image");
    await fault("drive.upload", "drive:userRateLimitExceeded", 1, 3);
    const { backup } = await backUp(image.id);
    expect(backup.status).toBe("completed");
    expect(sleeps).toContain(3000);
  });

  it("retries 5xx answers from the CDN and Drive", async () => {
    const carousel = await pick("carousel");
    await fault("cdn", "http:502", 2);
    await fault("drive.upload", "http:503", 2);
    const { backup } = await backUp(carousel.id);
    expect(backup.status).toBe("completed");
    for (const c of carousel.children) expect(await copiesOf(c.id)).toHaveLength(1);
    expect(await copiesOf(`${carousel.instagram_id}_meta`)).toHaveLength(1);
  });

  it("re-fetches media URLs the CDN no longer accepts", async () => {
    const image = await pick("image", 1);
    await h.control("/cdn/expire", { method: "POST" });
    const { backup } = await backUp(image.id);
    expect(backup.status).toBe("completed");
    expect((await h.calls())["ig.media.get"]).toBe(1);
    const after = await t.ctx.db
      .selectFrom("posts")
      .select("media_url")
      .where("id", "=", image.id)
      .executeTakeFirstOrThrow();
    expect(after.media_url).not.toBe(image.media_url);
  });

  it("resumes a cut resumable upload from the server's Range, in the same session", async () => {
    const video = await pick("video", 1);
    await h.control("/drive/cut", { body: { after_bytes: 700_000 } });
    const { backup } = await backUp(video.id);
    expect(backup.status).toBe("completed");
    const calls = await h.calls();
    expect(calls["drive.upload.resumable.start"]).toBe(1);
    // Piped, so nothing sent was kept: the download starts again and skips what Drive holds
    // (one CDN read more than the unsized backup below, which resends from memory).
    expect(calls.cdn).toBe(4);
    const [file] = await copiesOf(video.instagram_id);
    const fresh = await t.ctx.db
      .selectFrom("posts")
      .select("media_url")
      .where("id", "=", video.id)
      .executeTakeFirstOrThrow();
    const original = new Uint8Array(await (await fetch(fresh.media_url!)).arrayBuffer());
    expect(file?.md5Checksum).toBe(md5(original));
    expect(backup.md5).toBe(md5(original));
  });

  it("uploads a download of unknown length in chunks read ahead, and a cut one from Drive's Range", async () => {
    const video = await pick("video", 3);
    await h.control("/cdn/unsized", { body: { on: true } });
    await h.control("/drive/cut", { body: { after_bytes: 700_000 } });
    const { backup } = await backUp(video.id).finally(() =>
      h.control("/cdn/unsized", { body: { on: false } }),
    );
    expect(backup.status).toBe("completed");
    const calls = await h.calls();
    expect(calls["drive.upload.resumable.start"]).toBe(1);
    // Read ahead, not piped: the cut chunk is sent again from memory, with no second download
    // (the piped backup above reads the CDN once more).
    expect(calls.cdn).toBe(3);
    const [file] = await copiesOf(video.instagram_id);
    const fresh = await t.ctx.db
      .selectFrom("posts")
      .select("media_url")
      .where("id", "=", video.id)
      .executeTakeFirstOrThrow();
    const original = new Uint8Array(await (await fetch(fresh.media_url!)).arrayBuffer());
    expect(file?.md5Checksum).toBe(md5(original));
    expect(backup.md5).toBe(md5(original));
  });

  it("lets a later attempt resume the session an earlier attempt left behind", async () => {
    const video = await pick("video", 2);
    // More cuts than one attempt retries: the first attempt gives up, the second resumes.
    await h.control("/drive/cut", { body: { after_bytes: 600_000, count: 5 } });
    const first = await t.ctx.backups.retry(user.user.id, video.id);
    expect(first.backup.status).toBe("pending");
    const a1 = await t.ctx.backupEngine.run(video.id, { retryCount: 0, retryLimit: 5 });
    expect(a1.outcome).toBe("retry");
    // The failed attempt is logged for operators, without the session URL.
    expect(logged).toContainEqual({
      level: "warn",
      obj: expect.objectContaining({ postId: video.id }),
      msg: "backup attempt failed; retrying",
    });
    expect(JSON.stringify(logged)).not.toMatch(/upload_id|access_token/);
    const row = await t.ctx.db
      .selectFrom("backup_files")
      .selectAll()
      .where("item_key", "=", video.instagram_id)
      .executeTakeFirstOrThrow();
    expect(row.upload_session_uri).toBeTruthy();
    // The session URI is a write capability: it is stored sealed, never as the URL itself.
    expect(row.upload_session_uri).not.toMatch(/https?:|upload_id|googleapis/);
    const a2 = await t.ctx.backupEngine.run(video.id, { retryCount: 1, retryLimit: 5 });
    expect(a2.outcome).toBe("completed");
    expect((await h.calls())["drive.upload.resumable.start"]).toBe(1);
    expect(await copiesOf(video.instagram_id)).toHaveLength(1);
  });

  it("records media Instagram withholds as unavailable, not failed, and still writes the post's sidecar", async () => {
    const withheld = (await h.media()).find((x) => x.media_url_withheld);
    const post = await t.ctx.db
      .selectFrom("posts")
      .selectAll()
      .where("instagram_id", "=", withheld!.id)
      .executeTakeFirstOrThrow();
    const { outcome, backup } = await backUp(post.id);
    expect(outcome).toEqual({ outcome: "unavailable", message: m.mediaUnavailable });
    expect(backup).toMatchObject({ status: "unavailable", error_message: m.mediaUnavailable });
    expect(backup.retry_on_sync).toBe(false);
    expect(await copiesOf(post.instagram_id)).toHaveLength(0);
    expect(await copiesOf(`${post.instagram_id}_meta`)).toHaveLength(1);
    // "Retry All Failed" leaves it alone: it did not fail, and retrying cannot bring it.
    const all = await t.call("POST", "/api/sync/backups/retry-failed", {
      token: user.token,
      body: {},
    });
    expect(all.status).toBe(200);
    const after = await t.ctx.db
      .selectFrom("backups")
      .select("status")
      .where("post_id", "=", post.id)
      .executeTakeFirstOrThrow();
    expect(after.status).toBe("unavailable");
  });

  it("slows down before Graph usage reaches 100 % and defers the job when it does", async () => {
    await h.control("/graph/usage", { body: { app_call_count: 95 } });
    // Graph's answers carry the usage (the media page and the stories are read together);
    // every call for the account after them is slowed down.
    expect((await h.listPosts(user)).result.outcome).toBe("done");
    const slow = await h.listPosts(user);
    expect(slow.result.outcome).toBe("done");
    expect(sleeps.some((s) => s > 0 && s <= FAST_ENGINE.maxPacingPauseMs!)).toBe(true);

    await h.control("/graph/usage", {
      body: { app_call_count: null, buc_call_count: 100, regain_minutes: 30 },
    });
    const again = await h.listPosts(user);
    expect(again.result).toEqual({ outcome: "deferred", delayMs: 30 * 60_000 });
    const row = await t.ctx.syncRepos.runs.findSyncJob(again.syncJobId);
    expect(row?.status).toBe("running");
    await h.control("/graph/usage", { body: { buc_call_count: null, regain_minutes: 0 } });
    await t.ctx.syncRepos.runs.finishSyncJob(again.syncJobId, "cancelled", new Date(), null);

    // Until the regain time has passed, this process does not call Graph for the account.
    await h.control("/calls", { method: "DELETE" });
    const runRefresh = async () => {
      const { syncJobId, result } = await h.listPosts(user);
      await t.ctx.syncRepos.runs.finishSyncJob(syncJobId, "cancelled", new Date(), null);
      return result;
    };
    expect((await runRefresh()).outcome).toBe("deferred");
    expect((await h.calls())["ig.media.list"]).toBeUndefined();
    t.clock.advance(31 * 60_000);
    expect((await runRefresh()).outcome).toBe("done");
    expect((await h.calls())["ig.media.list"]).toBeGreaterThan(0);
  });
});
