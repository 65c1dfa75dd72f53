import { syncMessages } from "@keepsake/contracts";
import { DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syncSchedulerJob } from "../../src/sync/jobs/sync-scheduler.job.ts";
import {
  minutesUntilNextSync,
  SKIP_FROM_PERCENT,
  SPREAD_FROM_PERCENT,
  spreadOffsetSeconds,
  syncThisInterval,
} from "../../src/sync/schedule.ts";
import { backupHelpers } from "../support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

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
  const { rows } = await t.ctx.pool.query<QueuedSync>(
    `SELECT data->>'accountId' AS account_id, data->>'kind' AS kind, start_after, created_on
       FROM ${t.ctx.queueSchema}.job WHERE name = 'sync-account' AND state IN ('created', 'retry')`,
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
    await t.setTier(free.user.id, "pro");
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

  it("stores the Graph usage each sync saw; an account near Graph's limit syncs less often", async () => {
    // Each Instagram account belongs to one user at a time: free the demo accounts first.
    await t.rows.connections.deleteAllInstagramAccounts();
    const u = await h.connectedUser({ tier: "pro" });
    // Below 80 % no call is slowed down, yet the scheduler already halves the account's syncs.
    await h.control("/graph/usage", { body: { app_call_count: 72, buc_call_count: 12 } });
    let refresh: Awaited<ReturnType<typeof h.syncAndDrain>>["job"];
    try {
      ({ job: refresh } = await h.syncAndDrain(u.user.id, u.accountId, "refresh"));
    } finally {
      await h.control("/graph/usage", { body: { app_call_count: null, buc_call_count: null } });
    }
    // A refresh queues no backup: its run ends counting every post and story it listed.
    const listed = await t.ctx.db
      .selectFrom("posts")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("account_id", "=", u.accountId)
      .executeTakeFirstOrThrow();
    expect(refresh).toMatchObject({ status: "completed", posts_processed: Number(listed.n) });
    expect(refresh?.posts_total).toBe(Number(listed.n));
    expect(Number(listed.n)).toBeGreaterThan(0);
    const state = () => h.syncState(u.accountId);
    expect((await state()).graph_usage_percent).toBe(72);
    expect((await state()).graph_usage_at?.getTime()).toBe(t.clock.now().getTime());

    const tick = async () => {
      await t.ctx.pool.query(`DELETE FROM ${t.ctx.queueSchema}.job WHERE name = 'sync-account'`);
      await syncSchedulerJob.handler({}, t.ctx, { id: crypto.randomUUID(), retryCount: 0 });
      t.clock.advance(10 * 60_000);
      return (await queuedSyncs()).some((q) => q.account_id === u.accountId);
    };
    // Two ticks in a row: queued in exactly one of them.
    expect([await tick(), await tick()].filter(Boolean)).toHaveLength(1);

    // At 85 % it waits every tick of the hour, then syncs once the reading is an hour old.
    await t.rows.sync.updateSyncState(u.accountId, {
      graph_usage_percent: 85,
      graph_usage_at: t.clock.now(),
    });
    // The dashboard counts down to the turn that syncs, not to one the scheduler skips.
    const stats = await t.call("GET", "/api/sync/dashboard/stats", { token: u.token });
    expect(stats.body.next_sync_in).toBeGreaterThan(50);
    const hour = [];
    for (let i = 0; i < 6; i++) hour.push(await tick());
    expect(hour).toEqual([false, false, false, false, false, false]);
    expect(await tick()).toBe(true);
  });

  it("the countdown starts again only at a turn the scheduler syncs, whatever the Graph usage", () => {
    const start = Date.UTC(2026, 10, 23, 12, 3, 17);
    for (const percent of [null, 30, SPREAD_FROM_PERCENT + 10, SKIP_FROM_PERCENT + 5]) {
      for (let n = 0; n < 20; n++) {
        const id = crypto.randomUUID();
        const usage = { percent, at: percent === null ? null : new Date(start) };
        const offset = spreadOffsetSeconds(id);
        /** Whether a scheduled sync of the account starts in (from, to]. */
        const syncsBetween = (from: number, to: number) => {
          for (let tick = from - (from % 600_000); tick <= to; tick += 600_000) {
            const at = tick + offset * 1000;
            if (at > from && at <= to && syncThisInterval(id, usage, new Date(tick))) return true;
          }
          return false;
        };
        let previous = minutesUntilNextSync(id, new Date(start), usage);
        for (let t0 = start; t0 < start + 2 * 3600_000; t0 += 30_000) {
          const next = minutesUntilNextSync(id, new Date(t0 + 30_000), usage);
          if (next > previous) expect(syncsBetween(t0, t0 + 30_000)).toBe(true);
          else expect(next).toBeGreaterThanOrEqual(previous - 1);
          previous = next;
        }
      }
    }
  });

  it("syncs an account at half the rate from 50 % Graph usage and not at all from 80 %", () => {
    const id = crypto.randomUUID();
    const start = Date.UTC(2026, 10, 23, 12, 0, 0);
    const ticks = Array.from({ length: 12 }, (_, i) => new Date(start + i * 10 * 60_000));
    const runs = (percent: number | null) =>
      ticks.filter((now) =>
        syncThisInterval(id, { percent, at: percent === null ? null : now }, now),
      ).length;
    expect(runs(null)).toBe(12);
    expect(runs(SPREAD_FROM_PERCENT - 1)).toBe(12);
    expect(runs(SPREAD_FROM_PERCENT)).toBe(6);
    expect(runs(SKIP_FROM_PERCENT - 1)).toBe(6);
    expect(runs(SKIP_FROM_PERCENT)).toBe(0);
  });
});

describe("a scheduled sync and the account's other runs", () => {
  it("runs once per queue job, waits while another run is alive, and fails a run whose worker died", async () => {
    await t.rows.connections.deleteAllInstagramAccounts();
    const u = await h.connectedUser({ tier: "pro" });
    const runs = t.ctx.syncRepos.runs;
    const scheduled = (syncJobId: string) =>
      t.ctx.syncEngine.run(
        { accountId: u.accountId, syncJobId, kind: "scheduled", mode: "refresh" },
        { retryCount: 0, retryLimit: 3 },
      );
    const rows = () =>
      t.ctx.db
        .selectFrom("sync_jobs")
        .select(["id", "status", "error_message"])
        .where("account_id", "=", u.accountId)
        .orderBy("seq")
        .execute();

    // The queue job's id is the run's id: a second delivery of the same job adds no run.
    const first = crypto.randomUUID();
    expect((await scheduled(first)).outcome).toBe("done");
    expect((await scheduled(first)).outcome).toBe("skipped");
    expect(await rows()).toEqual([{ id: first, status: "completed", error_message: null }]);

    // A run that is alive (a fresh heartbeat) keeps the account: the scheduled one steps aside.
    const live = await runs.insertSyncJob({
      user_id: u.user.id,
      account_id: u.accountId,
      job_type: "manual",
      mode: "refresh",
      now: t.clock.now(),
    });
    const second = crypto.randomUUID();
    expect((await scheduled(second)).outcome).toBe("skipped");
    expect((await rows()).map((r) => [r.id, r.status])).toEqual([
      [first, "completed"],
      [live?.id, "running"],
    ]);

    // Its worker died: once its heartbeat is older than staleSyncMs, the next scheduled sync
    // marks it failed and runs.
    t.clock.advance(t.ctx.engine.staleSyncMs + 60_000);
    const third = crypto.randomUUID();
    expect((await scheduled(third)).outcome).toBe("done");
    expect(await rows()).toEqual([
      { id: first, status: "completed", error_message: null },
      { id: live?.id, status: "failed", error_message: syncMessages.syncFailed },
      { id: third, status: "completed", error_message: null },
    ]);
  });
});

describe("reading sync status", () => {
  it("ends abandoned runs in one sweep: a run whose heartbeat stopped fails, one left without its account is cancelled", async () => {
    // The demo account is free again (an Instagram account has one owner; tests above hold it).
    await t.rows.connections.deleteAllInstagramAccounts();
    const u = await h.connectedUser({ tier: "pro" });
    const runs = t.ctx.syncRepos.runs;
    const stale = await runs.insertSyncJob({
      user_id: u.user.id,
      account_id: u.accountId,
      job_type: "manual",
      mode: "backup",
      now: t.clock.now(),
    });
    t.clock.advance(t.ctx.engine.staleSyncMs + 60_000);
    // As a disconnect leaves a run it could not end: no account any more, still running.
    const orphan = await t.rows.sync.insertSyncJob({
      user_id: u.user.id,
      account_id: null,
      job_type: "manual",
      mode: "backup",
      status: "running",
      started_at: t.clock.now(),
      heartbeat_at: t.clock.now(),
    });
    const status = await t.call("GET", "/api/sync/status", { token: u.token });
    expect(status.body.is_syncing).toBe(false);
    const rows = await t.ctx.db
      .selectFrom("sync_jobs")
      .select(["id", "status", "error_message"])
      .where("user_id", "=", u.user.id)
      .orderBy("started_at")
      .execute();
    expect(rows).toEqual([
      { id: stale?.id, status: "failed", error_message: syncMessages.syncFailed },
      { id: orphan.id, status: "cancelled", error_message: syncMessages.accountDisconnected },
    ]);
  });
});
