import type { SyncJob } from "@keepsake/contracts";
import { ProgressBar } from "../../components/progress-bar.tsx";
import { REFRESHING } from "../../lib/backup-summary.ts";
import { progressText } from "./use-manual-backup.ts";

export function progressPercent(job: Pick<SyncJob, "posts_processed" | "posts_total">): number {
  if (job.posts_total <= 0) return 0;
  return Math.min(100, Math.max(0, Math.round((job.posts_processed / job.posts_total) * 100)));
}

/** SPEC §4 running card: 'Starting sync...' or 'Processing X of Y posts...' and a bar. */
export function RunningJobCard({ job }: { job: SyncJob }) {
  const percent = progressPercent(job);
  return (
    <section className="card running-job" aria-live="polite" aria-label="Sync in progress">
      <div className="running-job-head">
        <span className="spinner spinner-sm" aria-hidden="true" />
        <p className="running-job-title">
          {job.mode === "refresh"
            ? "Refreshing posts"
            : job.job_type === "scheduled_sync"
              ? "Automatic sync in progress"
              : "Sync in progress"}
        </p>
        <span className="running-job-percent">{percent}%</span>
      </div>
      <p className="running-job-text">{job.mode === "refresh" ? REFRESHING : progressText(job)}</p>
      <ProgressBar percent={percent} label="Sync progress" />
    </section>
  );
}
