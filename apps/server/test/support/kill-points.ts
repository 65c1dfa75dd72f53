import { DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { chooseDestination, connectDropbox } from "./destination-connect.ts";
import { stored } from "./dropbox-destination.ts";
import { until } from "./wait.ts";
import { h, startWorker, t, workerProcessSuite } from "./worker-suite.ts";

/**
 * The statements that end a backup, in order, and a pause before each one: a trigger that waits
 * for an advisory lock this test holds. The worker then stands exactly between the statement
 * before and this one when it is killed.
 */
const PAUSE_KEY = 26_007;
const pausePoints = (target: { postId: string; mediaKey: string; metaKey: string }) => [
  {
    name: "after the destination made the media file, before it is recorded",
    table: "backup_files",
    events: "INSERT OR UPDATE",
    when: `NEW.item_key = '${target.mediaKey}' AND NEW.drive_file_id IS NOT NULL`,
  },
  {
    name: "after the destination made the sidecar, before it is recorded",
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

/** The statements' names, in order (each test file takes some of them). */
export const KILL_POINTS = pausePoints({ postId: "", mediaKey: "", metaKey: "" }).map(
  (p) => p.name,
);

// A pause needs a second session that holds a lock while the worker's session waits for it
// (real PostgreSQL, embedded or TEST_DATABASE_URL's server). Each takeover waits for the dead worker's job heartbeat to lapse (about
// 30 s), so the points are spread over several files that run side by side.
export function describeKillPoints(
  points: readonly number[],
  destination: "google_drive" | "dropbox" = "google_drive",
) {
  workerProcessSuite();
  const where = destination === "dropbox" ? " (Dropbox)" : "";
  describe(`a worker killed between any two statements of a backup's completion${where}`, () => {
    it(`loses nothing and duplicates nothing (${points.map((i) => KILL_POINTS[i]).join("; ")}): another worker finishes, the run ends completed with the right counts`, async () => {
      // Another Instagram account and Drive than the test above (an account has one owner).
      const user = await h.connectedUser({
        tier: "pro",
        instagram: DEMO_IG.creator.id,
        google: DEMO_GOOGLE.maya.sub,
      });
      if (destination === "dropbox") {
        // The account's backups go to Dropbox, which keeps no tags: the ledger and the paths
        // alone must keep each file single.
        await connectDropbox(t, user.token);
        const chosen = await chooseDestination(t, user.token, user.accountId, "dropbox");
        expect(chosen.status).toBe(200);
      }
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
      expect(images.length).toBeGreaterThanOrEqual(KILL_POINTS.length * 2);

      /** The files an item left in the account's destination. */
      const copiesOf = async (key: string) => {
        if (destination === "dropbox") {
          const meta = key.endsWith("_meta");
          const id = meta ? key.slice(0, -"_meta".length) : key;
          return (await stored(t.sandbox)).files.filter(
            (f) => f.path.includes(`_${id}`) && f.path.endsWith("_meta.json") === meta,
          );
        }
        return (await h.driveFiles(DEMO_GOOGLE.maya.email)).filter(
          (f) => !f.isFolder && !f.trashed && f.appProperties.keepsakeMediaId === key,
        );
      };
      const holder = new pg.Client({ connectionString: t.database.url });
      await holder.connect();
      try {
        for (const round of points) {
          const pair = images.slice(round * 2, round * 2 + 2);
          const target = pair[0]!;
          const ids = pair.map((x) => postOf.get(x.id) as string);
          const point = pausePoints({
            postId: ids[0]!,
            mediaKey: target.id,
            metaKey: `${target.id}_meta`,
          })[round]!;
          const { when, table, events } = point;
          await t.rows.backups.deleteBackupsOfPosts(ids);
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
          // The worker reached the pause: one of its sessions waits for the test's lock (in this
          // file's database: the other kill-point files name their workers alike).
          await until(
            async () =>
              (
                await holder.query(
                  `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid)
                    WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name = $1
                      AND a.datname = current_database()`,
                  [doomedName],
                )
              ).rows[0].n as number,
            (n) => n > 0,
          );
          doomed.kill("SIGKILL");
          await new Promise((r) => doomed.once("exit", r));
          // The server drops the dead worker's sessions: what they had not committed is undone.
          await holder.query(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
              WHERE application_name = $1 AND datname = current_database()`,
            [doomedName],
          );
          await until(
            async () =>
              (
                await holder.query(
                  `SELECT count(*)::int AS n FROM pg_stat_activity
                    WHERE application_name = $1 AND datname = current_database()`,
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
          for (const x of pair) {
            for (const key of [x.id, `${x.id}_meta`]) {
              expect(await copiesOf(key), `${point.name}: ${key}`).toHaveLength(1);
            }
          }
          const status = await t.call("GET", "/api/sync/status", { token: user.token });
          expect(status.body.is_syncing, point.name).toBe(false);
        }
      } finally {
        await holder.end();
      }
    }, 900_000);
  });
}
