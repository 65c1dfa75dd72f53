import { z } from "zod";
import { defineJob, type JobSender } from "../../jobs/job.ts";
import type { BackupEngine } from "../backup.engine.ts";
import type { BackedUpPost } from "../outcome.ts";

/** Attempts of one backup before it is marked failed (the engine needs to know the last one). */
export const BACKUP_RETRY_LIMIT = 6;

export const backupSingletonKey = (postId: string) => `backup:${postId}`;

/**
 * Backs up one post into Drive (sync/backup/backup.engine.ts). Idempotent: a second run of the same
 * post finds its files by their recorded ids, its open session, or their appProperties.
 * `stately` with the post's key: at most one queued and one running per post. The heartbeat
 * lets another worker take over within a minute when this one dies.
 */
export const backupPostJob = defineJob({
  name: "backup-post",
  payload: z.object({ postId: z.uuid() }),
  queue: {
    policy: "stately",
    retryLimit: BACKUP_RETRY_LIMIT,
    retryDelay: 10,
    retryBackoff: true,
    retryDelayMax: 600,
    expireInSeconds: 4 * 3600,
    heartbeatSeconds: 15,
  },
  // Posts in progress; their media files move through the engine's lanes (`transferLanes`, 3),
  // so one post's claim, records and sidecar never hold up another's download and upload.
  concurrency: 6,
  // Many short jobs: an idle slot asks often, so small files do not wait on the poll.
  pollingIntervalSeconds: 0.5,
  async handler(
    { postId },
    ctx: {
      backupEngine: Pick<BackupEngine, "run">;
      queue: JobSender;
      /** What other areas do once a post is in Drive (the comments area reads its comments). */
      syncHooks?: { afterBackup(post: BackedUpPost): Promise<void> };
    },
    job,
  ) {
    const result = await ctx.backupEngine.run(postId, {
      retryCount: job.retryCount,
      retryLimit: BACKUP_RETRY_LIMIT,
      ...(job.signal ? { signal: job.signal } : {}),
    });
    if (result.outcome === "retry") throw new Error(result.message);
    if (result.outcome === "completed") await ctx.syncHooks?.afterBackup(result.post);
    if (result.outcome === "deferred") {
      await ctx.queue.send(
        backupPostJob,
        { postId },
        { singletonKey: backupSingletonKey(postId), startAfter: Math.ceil(result.delayMs / 1000) },
      );
    }
  },
});
