import { refreshSidecarJob } from "./archive/index.ts";
import { accountMailJob } from "./auth/index.ts";
import { backupPostJob } from "./backups/index.ts";
import { refreshCommentsJob } from "./comments/index.ts";
import { refreshInstagramTokensJob } from "./connections/index.ts";
import { deliverMailJob, mailSweepJob } from "./mail/index.ts";
import { alertsCheckJob, weeklyDigestJob } from "./notifications/index.ts";
import { statusSampleJob } from "./status/index.ts";
import { syncAccountJob, syncSchedulerJob } from "./sync/index.ts";

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
  refreshSidecarJob,
  refreshCommentsJob,
  deliverMailJob,
  mailSweepJob,
  accountMailJob,
  alertsCheckJob,
  weeklyDigestJob,
] as const;
