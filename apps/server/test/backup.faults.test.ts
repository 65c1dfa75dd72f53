import { syncMessages as m } from "@keepsake/contracts";
import { DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { reconnectWords } from "../src/providers/failure-words.ts";
import { backupHelpers, FAST_ENGINE, md5 } from "./support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "./support/sandbox.ts";

/** Waits the engine asked for; nothing really sleeps, so storms run fast and are inspectable. */
const sleeps: number[] = [];
/** What the engine logged, as the runtime's JSON logger would receive it. */
const logged: { level: string; obj: object; msg: string }[] = [];

let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
let user: Awaited<ReturnType<ReturnType<typeof backupHelpers>["connectedUser"]>>;

beforeAll(async () => {
  t = await createSandboxedApp(
    {},
    {
      sandbox: { largeVideoBytes: 3 * 1024 * 1024 },
      log: {
        warn: (obj, msg) => logged.push({ level: "warn", obj, msg }),
        error: (obj, msg) => logged.push({ level: "error", obj, msg }),
      },
      engineSettings: {
        ...FAST_ENGINE,
        sleep: async (ms) => {
          sleeps.push(ms);
        },
      },
    },
  );
  h = backupHelpers(t);
  user = await h.connectedUser({ tier: "pro" });
  // List the posts without backing anything up: each test backs up the posts it needs.
  expect((await h.listPosts(user)).result.outcome).toBe("done");
});
afterAll(async () => {
  await t?.close();
});
beforeEach(async () => {
  sleeps.length = 0;
  await h.control("/faults", { method: "DELETE" });
  await h.control("/calls", { method: "DELETE" });
});

/** A post of the business account: a feed image, a carousel, or a video of 1–4 MB. */
async function pick(kind: "image" | "carousel" | "video", skip = 0) {
  const media = await h.media();
  const candidates = media.filter((x) =>
    kind === "image"
      ? x.media_type === "IMAGE"
      : kind === "carousel"
        ? x.media_type === "CAROUSEL_ALBUM"
        : x.media_type === "VIDEO" &&
          !x.media_url_withheld &&
          (x.video_bytes ?? 0) > 1024 * 1024 &&
          (x.video_bytes ?? 0) < 4 * 1024 * 1024,
  );
  const chosen = candidates[skip];
  if (!chosen) throw new Error(`no ${kind} post in the demo account`);
  return t.ctx.db
    .selectFrom("posts")
    .selectAll()
    .where("instagram_id", "=", chosen.id)
    .executeTakeFirstOrThrow();
}

/** Queues a backup the way the retry endpoint does and runs it up to `attempts` times. */
async function backUp(postId: string, attempts = 1) {
  await t.ctx.backups.retry(user.user.id, postId);
  let outcome: Awaited<ReturnType<typeof t.ctx.backupEngine.run>> | undefined;
  for (let i = 0; i < attempts; i++) {
    outcome = await t.ctx.backupEngine.run(postId, { retryCount: i, retryLimit: 5 });
    if (outcome.outcome !== "retry") break;
  }
  const backup = await t.ctx.db
    .selectFrom("backups")
    .selectAll()
    .where("post_id", "=", postId)
    .executeTakeFirstOrThrow();
  return { outcome, backup };
}

const fault = (endpoint: string, error: string, count = 1, retryAfter?: number) =>
  h.control("/faults", {
    body: {
      endpoint,
      error,
      count,
      ...(retryAfter !== undefined ? { retry_after: retryAfter } : {}),
    },
  });

async function copiesOf(mediaId: string) {
  return (await h.driveFiles()).filter(
    (f) => !f.trashed && f.appProperties.keepsakeMediaId === mediaId,
  );
}

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

  it("pauses backups into a full Drive, saying so; Retry All Failed and the next sync resume them once space is freed", async () => {
    const [first, second, third] = [
      await pick("image", 2),
      await pick("image", 5),
      await pick("image", 6),
    ];
    const fill = () =>
      h.control("/drive/quota", { body: { email: DEMO_GOOGLE.jordan.email, fill: true } });
    const free = () =>
      h.control("/drive/quota", {
        body: {
          email: DEMO_GOOGLE.jordan.email,
          limit_bytes: 50 * 1024 ** 3,
          free_bytes: 40 * 1024 ** 3,
        },
      });
    const statusOf = async (postId: string) =>
      (
        await t.ctx.db
          .selectFrom("backups")
          .select("status")
          .where("post_id", "=", postId)
          .executeTakeFirstOrThrow()
      ).status;
    await fill();
    try {
      for (const post of [first, second]) {
        const { outcome, backup } = await backUp(post.id, 3);
        expect(outcome?.outcome).toBe("failed");
        expect(backup.error_message).toBe(m.driveFull);
        // Not retried at once: Drive stays full until the user acts.
        expect(backup.attempts).toBe(1);
        expect(await copiesOf(post.instagram_id)).toHaveLength(0);
      }
    } finally {
      await free();
    }

    // "Retry All Failed" from the API: every failed backup at once.
    const all = await t.call("POST", "/api/sync/backups/retry-failed", {
      token: user.token,
      body: {},
    });
    expect(all.status).toBe(200);
    expect(all.body.retried).toBeGreaterThanOrEqual(2);
    expect(all.body.message).toBe(m.retryAllStarted(all.body.retried));
    expect([await statusOf(first.id), await statusOf(second.id)]).toEqual(["pending", "pending"]);
    await h.drain(user.user.id);
    for (const post of [first, second]) {
      expect(await statusOf(post.id)).toBe("completed");
      expect(await copiesOf(post.instagram_id)).toHaveLength(1);
    }
    const none = await t.call("POST", "/api/sync/backups/retry-failed", {
      token: user.token,
      body: {},
    });
    expect(none.body).toEqual({ message: m.noFailedBackups, retried: 0 });
    const bad = await t.call("POST", "/api/sync/backups/retry-failed", {
      token: user.token,
      body: { account_id: "not-an-id" },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toBeTruthy();

    // The next sync (Start Backup) takes up a backup a full Drive paused, once space is freed.
    await fill();
    try {
      expect((await backUp(third.id)).backup.error_message).toBe(m.driveFull);
    } finally {
      await free();
    }
    // The account's other posts count as backed up here, so the sync has only this one to do.
    const stand = await t.rows.backups.completeUnbackedPostsOf(user.accountId);
    try {
      const { job } = await h.syncAndDrain(user.user.id, user.accountId);
      expect(job).toMatchObject({ status: "completed", posts_total: 1, posts_processed: 1 });
      expect(await statusOf(third.id)).toBe("completed");
      expect(await copiesOf(third.instagram_id)).toHaveLength(1);
    } finally {
      await t.rows.backups.deleteBackups(stand.map((r) => r.id));
    }
  });

  it("stops every backup of the user when Google revokes the grant", async () => {
    const a = await pick("image", 3);
    const b = await pick("image", 4);
    const grant = { body: { google_email: DEMO_GOOGLE.jordan.email } };
    await h.control("/tokens/revoke", grant);
    // The sandbox accepts the grant again afterwards, as it was before this test.
    onTestFinished(async () => {
      await h.control("/tokens/unrevoke", grant);
    });
    const first = await backUp(a.id, 3);
    expect(first.backup.status).toBe("failed");
    expect(first.backup.error_message).toBe(reconnectWords.google);
    const g = await t.ctx.db
      .selectFrom("google_connections")
      .selectAll()
      .where("user_id", "=", user.user.id)
      .executeTakeFirstOrThrow();
    expect(g.status).toBe("needs_reconnection");
    await h.control("/calls", { method: "DELETE" });
    const second = await backUp(b.id);
    expect(second.backup.status).toBe("failed");
    expect(second.backup.error_message).toBe(reconnectWords.google);
    const calls = await h.calls();
    expect(Object.keys(calls).filter((k) => k.startsWith("drive."))).toEqual([]);
    expect((await t.call("POST", "/api/sync/start", { token: user.token })).status).toBe(400);

    // The user reconnects Google Drive, so the tests after this one have a Drive again (the
    // sync that reconnecting queues is not this test's).
    await t.connectDrive(user.token, DEMO_GOOGLE.jordan.sub);
    await t.ctx.pool.query(
      `DELETE FROM ${t.ctx.queueSchema}.job WHERE name = 'sync-account' AND data->>'accountId' = $1`,
      [user.accountId],
    );
    await t.rows.sync.deleteSyncJobsOfAccount(user.accountId);
    const again = await t.ctx.db
      .selectFrom("google_connections")
      .select("status")
      .where("user_id", "=", user.user.id)
      .executeTakeFirstOrThrow();
    expect(again.status).toBe("active");
  });

  it("marks the account for reconnection when Instagram revokes the token, and stops its jobs", async () => {
    const video = await pick("video", 3);
    const grant = { body: { instagram_user_id: DEMO_IG.business.id } };
    await h.control("/tokens/revoke", grant);
    onTestFinished(async () => {
      await h.control("/tokens/unrevoke", grant);
    });
    await h.control("/cdn/expire", { method: "POST" });
    // The sync job row is made directly: the Instagram account is what this test revokes.
    const job0 = await t.ctx.syncRepos.runs.insertSyncJob({
      user_id: user.user.id,
      account_id: user.accountId,
      job_type: "manual",
      mode: "refresh",
      now: new Date(),
    });
    const started = { sync_job: job0! };
    const r = await t.ctx.syncEngine.run(
      {
        accountId: user.accountId,
        syncJobId: started.sync_job.id,
        kind: "manual",
        mode: "refresh",
      },
      { retryCount: 0, retryLimit: 3 },
    );
    expect(r.outcome).toBe("done");
    const job = await t.ctx.syncRepos.runs.findSyncJob(started.sync_job.id);
    expect(job?.status).toBe("failed");
    expect(job?.error_message).toBe(reconnectWords.instagram(DEMO_IG.business.username));
    const account = await t.ctx.db
      .selectFrom("instagram_accounts")
      .selectAll()
      .where("id", "=", user.accountId)
      .executeTakeFirstOrThrow();
    expect(account.status).toBe("needs_reconnection");
    await h.control("/calls", { method: "DELETE" });
    await t.rows.backups.upsertPendingBackup({
      post_id: video.id,
      user_id: user.user.id,
      account_id: user.accountId,
    });
    const out = await t.ctx.backupEngine.run(video.id, { retryCount: 0, retryLimit: 5 });
    expect(out).toEqual({
      outcome: "failed",
      message: reconnectWords.instagram(DEMO_IG.business.username),
    });
    expect(await h.calls()).toEqual({});
  });
});
