import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coverUrl } from "../src/sync/naming.ts";
import { backupHelpers, FAST_ENGINE } from "./support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "./support/sandbox.ts";
import { until } from "./support/wait.ts";

const WORKER = fileURLToPath(new URL("./support/worker-process.ts", import.meta.url));
const secrets = {
  JWT_SECRET: randomBytes(32).toString("hex"),
  ENCRYPTION_KEY: randomBytes(32).toString("hex"),
};

let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
const workers: ChildProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), "keepsake-workers-"));

beforeAll(async () => {
  t = await createSandboxedApp(secrets, {
    sandbox: { largeVideoBytes: 4 * 1024 * 1024 },
    engineSettings: FAST_ENGINE,
  });
  h = backupHelpers(t);
});
afterAll(async () => {
  for (const w of workers) if (w.exitCode === null) w.kill("SIGKILL");
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A worker process; `name` becomes its sessions' application_name in the database. */
function startWorker(name = "keepsake-worker"): Promise<ChildProcess> {
  const child = spawn(process.execPath, [WORKER], {
    env: {
      ...process.env,
      ...secrets,
      PGAPPNAME: name,
      DATA_DIR: dataDir,
      QUEUE_SUPERVISE_SECONDS: "2",
      WORKER_DATABASE_URL: t.database.url,
      ...(t.database.schema ? { WORKER_SCHEMA: t.database.schema } : {}),
      WORKER_SANDBOX_URL: t.sandbox.url,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  workers.push(child);
  let err = "";
  child.stderr?.on("data", (d) => {
    err += String(d);
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (d) => {
      if (String(d).includes("ready")) resolve(child);
    });
    child.on("exit", (code) => reject(new Error(`worker exited (${code}): ${err}`)));
  });
}

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

/**
 * The statements that end a backup, in order, and a pause before each one: a trigger that waits
 * for an advisory lock this test holds. The worker then stands exactly between the statement
 * before and this one when it is killed.
 */
const PAUSE_KEY = 26_007;
const pausePoints = (target: { postId: string; mediaKey: string; metaKey: string }) => [
  {
    name: "after Drive made the media file, before it is recorded",
    table: "backup_files",
    events: "INSERT OR UPDATE",
    when: `NEW.item_key = '${target.mediaKey}' AND NEW.drive_file_id IS NOT NULL`,
  },
  {
    name: "after Drive made the sidecar, before it is recorded",
    table: "backup_files",
    events: "INSERT OR UPDATE",
    when: `NEW.item_key = '${target.metaKey}' AND NEW.drive_file_id IS NOT NULL`,
  },
  {
    name: "with every file recorded, before the backup is marked completed",
    table: "backups",
    events: "UPDATE",
    when: `NEW.post_id = '${target.postId}' AND OLD.status = 'processing' AND NEW.status = 'completed'`,
  },
  {
    name: "with the backup marked completed, before its run counts it",
    table: "sync_jobs",
    events: "UPDATE",
    when: "NEW.posts_processed > OLD.posts_processed",
  },
  {
    name: "with the run's last backup counted, before the run is completed",
    table: "sync_jobs",
    events: "UPDATE",
    when: "OLD.status = 'running' AND NEW.status = 'completed'",
  },
];

// A pause needs a second session that holds a lock while the worker's session waits for it:
// the embedded database is one session for every connection (DESIGN.md), so it runs only on
// the PostgreSQL server (TEST_DATABASE_URL).
describe.runIf(process.env.TEST_DATABASE_URL)(
  "a worker killed between any two statements of a backup's completion",
  () => {
    it("loses nothing and duplicates nothing: another worker finishes, the run ends completed with the right counts", async () => {
      // The workers of the test above stop: each round's worker is the only one at work.
      for (const w of workers.filter((x) => x.exitCode === null && x.signalCode === null)) {
        w.kill("SIGTERM");
        await new Promise((r) => w.once("exit", r));
      }
      // Another Instagram account and Drive than the test above (an account has one owner).
      const user = await h.connectedUser({
        tier: "pro",
        instagram: DEMO_IG.creator.id,
        google: DEMO_GOOGLE.maya.sub,
      });
      await h.listPosts(user);
      const images = (await h.media(DEMO_IG.creator.username)).filter(
        (x) => x.media_type === "IMAGE" && x.media_product_type !== "STORY" && !x.pinned,
      );
      // Every post counts as backed up; each round takes two posts back (a target and one more).
      await h.leaveOnlyToBackUp(user.user.id, new Set());
      const posts = await t.ctx.db
        .selectFrom("posts")
        .select(["id", "instagram_id"])
        .where("user_id", "=", user.user.id)
        .execute();
      const postOf = new Map(posts.map((p) => [p.instagram_id, p.id]));
      const rounds = pausePoints({ postId: "", mediaKey: "", metaKey: "" }).length;
      expect(images.length).toBeGreaterThanOrEqual(rounds * 2);

      const holder = new pg.Client({ connectionString: t.database.url });
      await holder.connect();
      try {
        for (let round = 0; round < rounds; round++) {
          const pair = images.slice(round * 2, round * 2 + 2);
          const target = pair[0]!;
          const ids = pair.map((x) => postOf.get(x.id) as string);
          const point = pausePoints({
            postId: ids[0]!,
            mediaKey: target.id,
            metaKey: `${target.id}_meta`,
          })[round]!;
          const { when, table, events } = point;
          await t.ctx.db.deleteFrom("backups").where("post_id", "in", ids).execute();
          await t.ctx.pool.query(`
            CREATE OR REPLACE FUNCTION test_pause() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM pg_advisory_xact_lock(${PAUSE_KEY}); RETURN NEW; END $$;
            CREATE TRIGGER test_pause BEFORE ${events} ON ${table}
              FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION test_pause();`);
          await holder.query("SELECT pg_advisory_lock($1)", [PAUSE_KEY]);

          const doomedName = `doomed-${round}`;
          const doomed = await startWorker(doomedName);
          const started = await t.call("POST", "/api/sync/start", { token: user.token, body: {} });
          expect(started.status, point.name).toBe(200);
          const runId = started.body.sync_job.id as string;
          // The worker reached the pause: one of its sessions waits for the test's lock.
          await until(
            async () =>
              (
                await holder.query(
                  `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid)
                    WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name = $1`,
                  [doomedName],
                )
              ).rows[0].n as number,
            (n) => n > 0,
          );
          doomed.kill("SIGKILL");
          await new Promise((r) => doomed.once("exit", r));
          // The server drops the dead worker's sessions: what they had not committed is undone.
          await holder.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
            [doomedName],
          );
          await until(
            async () =>
              (
                await holder.query(
                  "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1",
                  [doomedName],
                )
              ).rows[0].n as number,
            (n) => n === 0,
          );
          await t.ctx.pool.query(`DROP TRIGGER test_pause ON ${table}`);
          await holder.query("SELECT pg_advisory_unlock($1)", [PAUSE_KEY]);

          // Another worker takes the job over once the dead one's heartbeat and lease are gone.
          const rescuer = await startWorker(`rescuer-${round}`);
          const job = await until(
            () => t.ctx.syncRepos.runs.findSyncJob(runId),
            (j) => j?.status !== "running",
            120_000,
          ).catch(async (err) => {
            // What the run's backups and their queue jobs were doing, to tell why it is stuck.
            const stuck = await t.ctx.pool.query(
              `SELECT b.status, b.attempts, b.error_message, b.lease_expires_at,
                      (SELECT json_agg(json_build_object('state', j.state, 'retries', j.retry_count,
                                                         'output', j.output))
                         FROM ${t.ctx.queueSchema}.job j
                        WHERE j.name = 'backup-post' AND j.data->>'postId' = b.post_id::text) AS jobs
                 FROM backups b WHERE b.post_id = ANY($1)`,
              [ids],
            );
            throw new Error(`${point.name}: ${String(err)}\n${JSON.stringify(stuck.rows)}`);
          });
          rescuer.kill("SIGTERM");
          await new Promise((r) => rescuer.once("exit", r));
          expect(job, point.name).toMatchObject({
            status: "completed",
            posts_total: 2,
            posts_processed: 2,
          });
          const backups = await t.ctx.db
            .selectFrom("backups")
            .select(["status", "error_message", "sync_job_id"])
            .where("post_id", "in", ids)
            .execute();
          expect(backups, point.name).toEqual([
            { status: "completed", error_message: null, sync_job_id: runId },
            { status: "completed", error_message: null, sync_job_id: runId },
          ]);
          const files = (await h.driveFiles(DEMO_GOOGLE.maya.email)).filter(
            (f) => !f.isFolder && !f.trashed,
          );
          for (const x of pair) {
            for (const key of [x.id, `${x.id}_meta`]) {
              const copies = files.filter((f) => f.appProperties.keepsakeMediaId === key);
              expect(copies, `${point.name}: ${key}`).toHaveLength(1);
            }
          }
          const status = await t.call("GET", "/api/sync/status", { token: user.token });
          expect(status.body.is_syncing, point.name).toBe(false);
        }
      } finally {
        await holder.end();
      }
    }, 900_000);
  },
);
