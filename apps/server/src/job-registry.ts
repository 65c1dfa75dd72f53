import { refreshSidecarJob } from "./archive/jobs/refresh-sidecar.job.ts";
import { accountMailJob } from "./auth/account-mail.job.ts";
import { backupPostJob } from "./backups/jobs/backup-post.job.ts";
import { refreshCommentsJob } from "./comments/refresh-comments.job.ts";
import { refreshInstagramTokensJob } from "./connections/refresh-instagram-tokens.job.ts";
import { deliverMailJob, mailSweepJob } from "./mail/mail.jobs.ts";
import { alertsCheckJob, weeklyDigestJob } from "./notifications/alerts.jobs.ts";
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
  refreshSidecarJob,
  refreshCommentsJob,
  deliverMailJob,
  mailSweepJob,
  accountMailJob,
  alertsCheckJob,
  weeklyDigestJob,
] as const;
