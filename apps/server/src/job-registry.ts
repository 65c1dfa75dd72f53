import { backupPostJob } from "./backups/jobs/backup-post.job.ts";
import { refreshInstagramTokensJob } from "./connections/refresh-instagram-tokens.job.ts";
import { statusSampleJob } from "./status/status-sample.job.ts";
import { syncAccountJob } from "./sync/jobs/sync-account.job.ts";
import { syncSchedulerJob } from "./sync/jobs/sync-scheduler.job.ts";

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
