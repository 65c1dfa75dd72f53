import { z } from "zod";
import { defineJob } from "../../jobs/job.ts";

export const sidecarSingletonKey = (accountId: string, instagramId: string) =>
  `sidecar:${accountId}:${instagramId}`;

/**
 * Writes a backed-up post's sidecar again in place (same Drive file) after the archive learnt
 * something new about it: a reading of its counters, or that it left or came back to Instagram.
 * `stately` per post: one queued and one running at most; each run writes what is known then.
 */
export const refreshSidecarJob = defineJob({
  name: "archive-refresh-sidecar",
  payload: z.object({ accountId: z.uuid(), instagramId: z.string().min(1).max(64) }),
  queue: {
    policy: "stately",
    retryLimit: 5,
    retryDelay: 30,
    retryBackoff: true,
    retryDelayMax: 1800,
  },
  concurrency: 2,
  async handler(
    { accountId, instagramId },
    ctx: {
      backupEngine: {
        refreshSidecar(accountId: string, instagramId: string): Promise<unknown>;
      };
    },
  ) {
    await ctx.backupEngine.refreshSidecar(accountId, instagramId);
  },
});
