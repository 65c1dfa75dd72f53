import { backupPostJob } from "./backup-post.job.ts";
import { refreshInstagramTokensJob } from "./refresh-instagram-tokens.job.ts";
import { statusSampleJob } from "./status-sample.job.ts";
import { syncAccountJob } from "./sync-account.job.ts";
import { syncSchedulerJob } from "./sync-scheduler.job.ts";

/**
 * Every background job Keepsake runs, one file each under jobs/. A job added here gets its
 * queue created at start and its handler run by every worker process.
 */
export const jobRegistry = [
  refreshInstagramTokensJob,
  syncSchedulerJob,
  syncAccountJob,
  backupPostJob,
  statusSampleJob,
] as const;
