import { describe, expect, it } from "vitest";
import { FAST_ENGINE } from "../support/backup.ts";
import { until } from "../support/wait.ts";
import { h, startWorker, t, workerProcessSuite } from "../support/worker-suite.ts";

workerProcessSuite();

type Uploads = {
  uploads: { upload_id: string; received: number; file_id: string | null; requests: number }[];
};

describe("a worker told to stop (SIGTERM) mid-upload", () => {
  it("hands its running backups back, and the next worker finishes them with each file once", async () => {
    const user = await h.connectedUser({ tier: "pro" });
    await h.listPosts(user);
    const media = await h.media();
    const videos = media
      .filter((x) => x.media_type === "VIDEO" && !x.media_url_withheld)
      .filter(
        (x) => (x.video_bytes ?? 0) >= 2 * 1024 * 1024 && (x.video_bytes ?? 0) <= 4 * 1024 * 1024,
      )
      .slice(0, 4);
    const chosen = new Set(videos.map((v) => v.id));
    await h.leaveOnlyToBackUp(user.user.id, chosen);
    // Slow chunk uploads down so SIGTERM lands mid-upload and the grace period runs out: each
    // chunk request stays in flight longer than the worker gives its handlers to unwind (5 s),
    // so only a chunk request cut off at the stop lets them give their backups up in time.
    await h.control("/latency", { body: { endpoint: "drive.upload.resumable.put", ms: 8000 } });
    await h.control("/calls", { method: "DELETE" });

    // The queue lists the keys running (pg-boss's monitor, every 2 s here); fetches skip them.
    const queue = t.ctx.queueSchema;
    const running = async () =>
      (
        await t.ctx.pool.query<{ keys: string[] | null }>(
          `SELECT singletons_active AS keys FROM ${queue}.queue WHERE name = 'backup-post'`,
        )
      ).rows[0]?.keys ?? [];
    // Production's backup lease (45 s): a claim left held would keep the next worker out that long.
    const stopping = await startWorker("keepsake-worker", {
      SHUTDOWN_GRACE_SECONDS: "0.3",
      WORKER_LEASE_MS: "45000",
    });
    const started = await t.call("POST", "/api/sync/start", { token: user.token, body: {} });
    expect(started.status).toBe(200);
    // Mid-upload, with the running keys listed.
    await until(
      async () => ({ uploads: await h.control<Uploads>("/drive/uploads"), keys: await running() }),
      ({ uploads, keys }) =>
        keys.length > 0 && uploads.uploads.some((x) => x.received > 0 && x.file_id === null),
    );
    const exited = new Promise<number | null>((r) => stopping.once("exit", (code) => r(code)));
    stopping.kill("SIGTERM");
    // It stops on its own, well before a supervisor would SIGKILL it.
    expect(await exited).toBe(0);
    const interrupted = (await h.control<Uploads>("/drive/uploads")).uploads.filter(
      (x) => x.received > 0 && x.file_id === null,
    );
    expect(interrupted.length).toBeGreaterThan(0);
    // Handed back, not failed: ready again at once, and the attempt not counted as a retry.
    const { rows: jobs } = await t.ctx.pool.query<{
      state: string;
      started_on: Date | null;
      retry_count: number;
      output: unknown;
    }>(
      `SELECT state, started_on, retry_count, output FROM ${queue}.job WHERE name = 'backup-post'`,
    );
    expect(jobs.filter((j) => j.state === "active")).toEqual([]);
    const handedBack = jobs.filter((j) => j.state === "retry" || j.state === "created");
    expect(handedBack.length).toBeGreaterThan(0);
    for (const j of handedBack) expect(j).toMatchObject({ started_on: null, retry_count: 0 });
    // ...and off the queue's list of keys running, so the next worker takes them at once rather
    // than after the monitor's next pass and its own next read of the list.
    const { rows: waiting } = await t.ctx.pool.query<{ singleton_key: string }>(
      `SELECT singleton_key FROM ${queue}.job WHERE name = 'backup-post' AND state IN ('retry', 'created')`,
    );
    const stillListed = await running();
    for (const k of waiting) expect(stillListed).not.toContain(k.singleton_key);
    // And their claims on the backups were let go (no waiting out a dead worker's lease).
    const held = await t.ctx.db
      .selectFrom("backups")
      .select("lease_expires_at")
      .where("user_id", "=", user.user.id)
      .where("status", "=", "processing")
      .execute();
    for (const b of held) expect(b.lease_expires_at!.getTime()).toBeLessThanOrEqual(Date.now());

    // The sandbox sleeps out a request's latency before it reads the body, so the chunk requests
    // the stop broke off are still asleep there: wait until they have woken and found their
    // client gone (a real Drive notices at once) before the next worker writes to the same
    // sessions. They wake 8 s after they were sent, so the next worker still starts well inside
    // the 45 s lease a held claim would keep it out for.
    await until(
      () => h.control<Uploads>("/drive/uploads"),
      ({ uploads }) => uploads.every((u) => u.requests === 0),
      15_000,
    );
    await h.control("/latency", { body: { endpoint: "drive.upload.resumable.put", ms: 0 } });
    await startWorker();
    const job = await until(
      () => t.ctx.syncRepos.runs.findSyncJob(started.body.sync_job.id),
      (j) => j?.status !== "running",
      // At once: a claim left held (45 s) or a retry's delay (10 s, then 20 s) would take longer.
      20_000,
    );
    expect(job).toMatchObject({
      status: "completed",
      posts_total: chosen.size,
      posts_processed: chosen.size,
    });
    const files = (await h.driveFiles()).filter((f) => !f.isFolder && !f.trashed);
    const count = (key: string) =>
      files.filter((f) => f.appProperties.keepsakeMediaId === key).length;
    for (const v of videos) {
      expect(count(v.id), `video ${v.id}`).toBe(1);
      expect(count(`${v.id}_meta`)).toBe(1);
    }
    const keys = files.map((f) => f.appProperties.keepsakeMediaId);
    expect(new Set(keys).size).toBe(keys.length);
    // The sessions the stopped worker left half-done were resumed to the end, not started over.
    const after = new Map(
      (await h.control<Uploads>("/drive/uploads")).uploads.map((u) => [u.upload_id, u]),
    );
    for (const u of interrupted) expect(after.get(u.upload_id)?.file_id, u.upload_id).toBeTruthy();
    const resumable = files.filter((f) => (f.size ?? 0) > FAST_ENGINE.multipartMaxBytes!).length;
    expect((await h.calls())["drive.upload.resumable.start"]).toBe(resumable);
    // No attempt of any backup was spent on the shutdown.
    const { rows: done } = await t.ctx.pool.query<{ state: string; retry_count: number }>(
      `SELECT state, retry_count FROM ${queue}.job WHERE name = 'backup-post'`,
    );
    expect(done.length).toBeGreaterThanOrEqual(videos.length);
    for (const j of done) expect(j).toEqual({ state: "completed", retry_count: 0 });
  }, 240_000);
});
