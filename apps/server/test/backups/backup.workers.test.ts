import { describe, expect, it } from "vitest";
import { coverUrl } from "../../src/backups/naming.ts";
import { FAST_ENGINE } from "../support/backup.ts";
import { until } from "../support/wait.ts";
import { h, startWorker, t, workerProcessSuite } from "../support/worker-suite.ts";

workerProcessSuite();

describe("several worker processes on one database", () => {
  it("end with exactly one copy of each file when one is killed with SIGKILL mid-upload", async () => {
    const user = await h.connectedUser({ tier: "pro" });
    // List the posts, then leave a few to back up: six videos of 1–4 MB and a carousel.
    await h.listPosts(user);
    const media = await h.media();
    const videos = media
      .filter((x) => x.media_type === "VIDEO" && !x.media_url_withheld)
      .filter((x) => (x.video_bytes ?? 0) >= 1024 * 1024 && (x.video_bytes ?? 0) <= 4 * 1024 * 1024)
      .slice(0, 6);
    const carousel = media.find((x) => x.media_type === "CAROUSEL_ALBUM")!;
    const chosen = new Set([...videos.map((v) => v.id), carousel.id]);
    await h.leaveOnlyToBackUp(user.user.id, chosen);
    // Slow chunk uploads down so a kill lands mid-upload.
    await h.control("/latency", { body: { endpoint: "drive.upload.resumable.put", ms: 150 } });
    await h.control("/calls", { method: "DELETE" });

    const doomed = await startWorker();
    const started = await t.call("POST", "/api/sync/start", { token: user.token, body: {} });
    expect(started.status).toBe(200);
    await until(
      () =>
        h.control<{ uploads: { received: number; file_id: string | null }[] }>("/drive/uploads"),
      (u) => u.uploads.some((x) => x.received > 0 && x.file_id === null),
    );
    doomed.kill("SIGKILL");
    await new Promise((r) => doomed.once("exit", r));
    type Uploads = { uploads: { upload_id: string; received: number; file_id: string | null }[] };
    const interrupted = (await h.control<Uploads>("/drive/uploads")).uploads.filter(
      (x) => x.received > 0 && x.file_id === null,
    );
    expect(interrupted.length).toBeGreaterThan(0);

    await Promise.all([startWorker(), startWorker()]);
    const job = await until(
      () => t.ctx.syncRepos.runs.findSyncJob(started.body.sync_job.id),
      (j) => j?.status !== "running",
      180_000,
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
    for (const c of carousel.children) expect(count(c), `child ${c}`).toBe(1);
    // Videos (and a carousel opening with a video) also keep their cover image, once.
    const withCover = (
      await t.ctx.db
        .selectFrom("posts")
        .selectAll()
        .where("user_id", "=", user.user.id)
        .where("instagram_id", "in", [...chosen])
        .execute()
    ).filter((p) => coverUrl(p) !== null);
    for (const p of withCover) expect(count(`${p.instagram_id}_cover`)).toBe(1);
    expect(files).toHaveLength(videos.length * 2 + carousel.children.length + 1 + withCover.length);
    // Folders too: one Keepsake, one @user, one per year.
    const folders = (await h.driveFiles()).filter((f) => f.isFolder);
    expect(new Set(folders.map((f) => `${f.folder}/${f.name}`)).size).toBe(folders.length);
    // The sessions the killed worker left half-done were resumed to the end, not started over.
    const after = new Map(
      (await h.control<Uploads>("/drive/uploads")).uploads.map((u) => [u.upload_id, u]),
    );
    for (const u of interrupted) expect(after.get(u.upload_id)?.file_id, u.upload_id).toBeTruthy();
    // At most the killed worker's in-flight items (3 at a time) may have needed a new session.
    const resumable = files.filter((f) => (f.size ?? 0) > FAST_ENGINE.multipartMaxBytes!).length;
    const sessions = (await h.calls())["drive.upload.resumable.start"] ?? 0;
    expect(sessions).toBeGreaterThanOrEqual(resumable);
    expect(sessions).toBeLessThanOrEqual(resumable + 3);
    const backups = await t.ctx.db
      .selectFrom("backups")
      .selectAll()
      .where("user_id", "=", user.user.id)
      .where("status", "!=", "completed")
      .execute();
    expect(backups).toEqual([]);
  }, 300_000);
});
