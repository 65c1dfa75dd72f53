import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backupHelpers, FAST_ENGINE } from "../support/backup.ts";
import { burst } from "../support/burst.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

/** One running sync per account holds under a parallel burst of Backup now (issue 26). */
let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;

beforeAll(async () => {
  t = await createSandboxedApp({}, { engineSettings: FAST_ENGINE });
  h = backupHelpers(t);
});
afterAll(async () => {
  await t?.close();
});

describe("Backup now pressed 30 times at once", () => {
  it("starts exactly one sync and queues one job; every answer names it", async () => {
    const u = await h.connectedUser({ tier: "pro" });
    const { answers, statuses } = await burst(30, () =>
      t.call("POST", "/api/sync/start", { token: u.token, body: {} }),
    );
    expect(statuses).toEqual({ 200: 30 });
    const rows = await t.ctx.db
      .selectFrom("sync_jobs")
      .select("id")
      .where("account_id", "=", u.accountId)
      .execute();
    expect(rows).toHaveLength(1);
    expect(new Set(answers.map((a) => a.body.sync_job.id))).toEqual(new Set([rows[0]?.id]));
    expect(answers.filter((a) => !a.body.already_running)).toHaveLength(1);
    const queued = await t.ctx.pool.query(
      `SELECT count(*)::int AS n FROM ${t.ctx.queueSchema}.job
       WHERE name = 'sync-account' AND data->>'accountId' = $1`,
      [u.accountId],
    );
    expect(queued.rows[0].n).toBe(1);
  });
});
