import type { SyncJob, SyncProgress } from "@keepsake/contracts";
import { ProgressBar } from "../../components/progress-bar.tsx";
import { REFRESHING } from "../../lib/backup-summary.ts";
import { progressText } from "./use-manual-backup.ts";

/** The bar of "Processing X of Y posts...": the server's progress, 0 while none is known. */
export function progressPercent(progress: SyncProgress | null | undefined): number {
  if (!progress || progress.total <= 0) return 0;
  return Math.min(100, Math.max(0, Math.round((progress.processed / progress.total) * 100)));
}

/**
 * SPEC §4 running card: 'Starting sync...' or 'Processing X of Y posts...' and a bar. The
 * numbers are the server's (`sync_progress` of the stats beside it: Y - X is their Pending).
 */
export function RunningJobCard({
  job,
  progress,
}: {
  job: SyncJob;
  progress: SyncProgress | null | undefined;
}) {
  const refresh = job.mode === "refresh";
  const percent = refresh ? 0 : progressPercent(progress);
  return (
    <section className="card running-job" aria-live="polite" aria-label="Sync in progress">
      <div className="running-job-head">
        <span className="spinner spinner-sm" aria-hidden="true" />
        <p className="running-job-title">
          {refresh
            ? "Refreshing posts"
            : job.job_type === "scheduled_sync"
              ? "Automatic sync in progress"
              : "Sync in progress"}
        </p>
        <span className="running-job-percent">{percent}%</span>
      </div>
      <p className="running-job-text">{refresh ? REFRESHING : progressText(progress)}</p>
      <ProgressBar percent={percent} label="Sync progress" />
    </section>
  );
}
