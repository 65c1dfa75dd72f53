import { DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syncSchedulerJob } from "../src/jobs/sync-scheduler.job.ts";
import { minutesUntilNextSync, spreadOffsetSeconds } from "../src/sync/schedule.ts";
import { backupHelpers } from "./support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "./support/sandbox.ts";

let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;

beforeAll(async () => {
  t = await createSandboxedApp();
  h = backupHelpers(t);
});
afterAll(async () => {
  await t?.close();
});

interface QueuedSync {
  account_id: string;
  kind: string;
  start_after: Date;
  created_on: Date;
}

/** The sync-account jobs waiting in the queue (no worker runs in this test app). */
async function queuedSyncs(): Promise<QueuedSync[]> {
  const schema = t.database.schema ? `${t.database.schema}_boss` : "pgboss";
  const { rows } = await t.ctx.pool.query<QueuedSync>(
    `SELECT data->>'accountId' AS account_id, data->>'kind' AS kind, start_after, created_on
       FROM ${schema}.job WHERE name = 'sync-account' AND state IN ('created', 'retry')`,
  );
  return rows;
}

describe("the sync scheduler", () => {
  it("runs every 10 minutes", () => {
    expect(syncSchedulerJob.cron).toBe("*/10 * * * *");
  });

  it("queues one sync per account of a paid plan, spread over the interval, none for free", async () => {
    const free = await h.connectedUser({ tier: "free" });
    const premium = await h.connectedUser({
      tier: "premium",
      instagram: DEMO_IG.creator.id,
      google: DEMO_GOOGLE.maya.sub,
    });
    const run = () =>
      syncSchedulerJob.handler({}, t.ctx, { id: crypto.randomUUID(), retryCount: 0 });

    await run();
    expect((await queuedSyncs()).map((q) => q.account_id)).toEqual([premium.accountId]);

    // The free user upgrades to Pro. The next tick queues its account; the premium one is
    // still waiting, so it is not queued twice.
    await t.ctx.db
      .updateTable("users")
      .set({ subscription_tier: "pro" })
      .where("id", "=", free.user.id)
      .execute();
    await run();
    const queued = await queuedSyncs();
    expect(queued.map((q) => q.account_id).sort()).toEqual(
      [premium.accountId, free.accountId].sort(),
    );
    for (const q of queued) {
      expect(q.kind).toBe("scheduled");
      const delay = (new Date(q.start_after).getTime() - new Date(q.created_on).getTime()) / 1000;
      expect(Math.round(delay)).toBe(spreadOffsetSeconds(q.account_id));
    }
  });

  it("spreads accounts over the first 9 minutes and counts down to each one's turn", () => {
    const offsets = Array.from({ length: 200 }, () => spreadOffsetSeconds(crypto.randomUUID()));
    expect(Math.min(...offsets)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...offsets)).toBeLessThan(540);
    // Spread, not bunched: 200 accounts land in at least 8 of the 9 minutes.
    expect(new Set(offsets.map((s) => Math.floor(s / 60))).size).toBeGreaterThanOrEqual(8);

    let id = crypto.randomUUID();
    while (spreadOffsetSeconds(id) < 120) id = crypto.randomUUID();
    const tick = Date.UTC(2026, 10, 21, 12, 0, 0);
    const at = tick + spreadOffsetSeconds(id) * 1000;
    expect(minutesUntilNextSync(id, new Date(at - 90_000))).toBe(2);
    // Just after its turn, the next one is a whole interval away.
    expect(minutesUntilNextSync(id, new Date(at + 1000))).toBe(10);
  });
});
