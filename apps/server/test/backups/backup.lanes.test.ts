import { DEMO_IG } from "@keepsake/sandbox";
import { describe, expect, it } from "vitest";
import { connectDestination } from "../support/destination-connect.ts";
import { until } from "../support/wait.ts";
import { h, startWorker, t, workerProcessSuite } from "../support/worker-suite.ts";

workerProcessSuite();

describe("a worker process's transfer lanes", () => {
  it("moves three media files at once while more posts are in progress beside them", async () => {
    const user = await h.connectedUser({ tier: "pro" });
    await h.listPosts(user);
    const images = (await h.media())
      .filter((x) => x.media_type === "IMAGE" && !x.media_url_withheld)
      .slice(0, 12);
    expect(images).toHaveLength(12);
    await h.leaveOnlyToBackUp(user.user.id, new Set(images.map((x) => x.id)));
    // Each download waits 300 ms at the CDN: a post holding a lane holds it that long at least.
    await h.control("/latency", { body: { endpoint: "cdn", ms: 300 } });
    await h.control("/calls", { method: "DELETE" });

    const worker = await startWorker();
    const started = await t.call("POST", "/api/sync/start", { token: user.token, body: {} });
    expect(started.status).toBe(200);
    // The most backups claimed at once, read every 20 ms until the run ends (a minute at most).
    let claimedAtOnce = 0;
    let job: Awaited<ReturnType<typeof t.ctx.syncRepos.runs.findSyncJob>>;
    for (const end = Date.now() + 60_000; ; ) {
      const { n } = await t.ctx.db
        .selectFrom("backups")
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .where("user_id", "=", user.user.id)
        .where("status", "=", "processing")
        .executeTakeFirstOrThrow();
      claimedAtOnce = Math.max(claimedAtOnce, Number(n));
      job = await t.ctx.syncRepos.runs.findSyncJob(started.body.sync_job.id);
      if (job?.status !== "running" || Date.now() > end) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(job).toMatchObject({ status: "completed", posts_processed: 12 });

    const { calls, peak_in_flight } = await h.control<{
      calls: Record<string, number>;
      peak_in_flight: Record<string, number>;
    }>("/calls");
    // Every image downloaded once, never more than three at a time...
    expect(calls.cdn).toBe(12);
    expect(peak_in_flight.cdn).toBe(3);
    // ...while more than three posts were in progress (the job runs six).
    expect(claimedAtOnce).toBeGreaterThan(3);
    expect(claimedAtOnce).toBeLessThanOrEqual(6);

    const files = (await h.driveFiles()).filter((f) => !f.isFolder && !f.trashed);
    for (const x of images) {
      const count = (key: string) =>
        files.filter((f) => f.appProperties.keepsakeMediaId === key).length;
      expect(count(x.id), x.id).toBe(1);
      expect(count(`${x.id}_meta`)).toBe(1);
    }
    // The next test's user lists posts with no worker about.
    const exited = new Promise((r) => worker.once("exit", r));
    worker.kill("SIGTERM");
    await exited;
  });

  it("finds or makes a folder the posts in progress share once between them", async () => {
    const user = await h.connectedUser({ tier: "pro", instagram: DEMO_IG.creator.id });
    await connectDestination(t, user.token, "dropbox", [user.accountId]);
    await h.listPosts(user);
    // Posts of one year: one folder (Dropbox makes it in one request, when it is first needed).
    const byYear = new Map<string, string[]>();
    for (const x of await h.media(DEMO_IG.creator.username)) {
      if (x.media_type !== "IMAGE" || x.media_url_withheld) continue;
      const year = x.timestamp.slice(0, 4);
      byYear.set(year, [...(byYear.get(year) ?? []), x.id]);
    }
    const ids = [...byYear.values()].sort((a, b) => b.length - a.length)[0]!.slice(0, 8);
    expect(ids.length).toBeGreaterThanOrEqual(6);
    await h.leaveOnlyToBackUp(user.user.id, new Set(ids));
    // The folder request answers slowly, so every post in progress asks while it is out.
    await h.control("/latency", { body: { endpoint: "dropbox.files/create_folder_v2", ms: 300 } });
    await h.control("/calls", { method: "DELETE" });

    await startWorker();
    const started = await t.call("POST", "/api/sync/start", { token: user.token, body: {} });
    expect(started.status).toBe(200);
    const job = await until(
      () => t.ctx.syncRepos.runs.findSyncJob(started.body.sync_job.id),
      (j) => j?.status !== "running",
    );
    expect(job).toMatchObject({ status: "completed", posts_processed: ids.length });
    const { calls } = await h.control<{ calls: Record<string, number> }>("/calls");
    expect(calls["dropbox.files/create_folder_v2"]).toBe(1);
  });
});
