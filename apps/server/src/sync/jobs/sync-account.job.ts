import { z } from "zod";
import { defineJob, type JobSender } from "../../jobs/job.ts";
import type { SyncEngine } from "../sync.engine.ts";

export const SYNC_RETRY_LIMIT = 3;

/**
 * Syncs one Instagram account (sync/sync.engine.ts). Manual runs carry the sync_jobs row the
 * API created; scheduled runs use the queue job's id as the row id, so a retry continues it.
 * One run per account at a time is enforced by the database (one running row per account).
 */
export const syncAccountJob = defineJob({
  name: "sync-account",
  payload: z.object({
    accountId: z.uuid(),
    kind: z.enum(["manual", "scheduled"]),
    mode: z.enum(["backup", "refresh"]).default("backup"),
    syncJobId: z.uuid().optional(),
  }),
  queue: {
    policy: "stately",
    retryLimit: SYNC_RETRY_LIMIT,
    retryDelay: 15,
    retryBackoff: true,
    retryDelayMax: 300,
    expireInSeconds: 2 * 3600,
    heartbeatSeconds: 15,
  },
  // A sync waits on Graph most of its time: many run at once (bench:sync measures it).
  concurrency: 16,
  async handler(
    payload,
    ctx: {
      syncEngine: Pick<SyncEngine, "run">;
      queue: JobSender;
      /** What other areas do once a sync ended (the comments area reads what is due). */
      syncHooks?: { afterSync(accountId: string): Promise<void> };
    },
    job,
  ) {
    const syncJobId = payload.syncJobId ?? job.id;
    const result = await ctx.syncEngine.run(
      { accountId: payload.accountId, kind: payload.kind, mode: payload.mode, syncJobId },
      { retryCount: job.retryCount, retryLimit: SYNC_RETRY_LIMIT },
    );
    if (result.outcome === "retry") throw result.error;
    if (result.outcome === "done") await ctx.syncHooks?.afterSync(payload.accountId);
    if (result.outcome === "deferred") {
      await ctx.queue.send(
        syncAccountJob,
        { ...payload, syncJobId },
        {
          singletonKey: `sync:${payload.accountId}:deferred`,
          startAfter: Math.ceil(result.delayMs / 1000),
        },
      );
    }
  },
});
