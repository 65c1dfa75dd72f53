import type { RunHealth, SyncJob, SyncProgress } from "@keepsake/contracts";
import { syncMessages } from "@keepsake/contracts/sync-messages";
import { FixLink } from "../../components/fix-link.tsx";
import { ProgressBar } from "../../components/progress-bar.tsx";
import { completedJobText, REFRESHING } from "../../lib/backup-summary.ts";
import { Link } from "../../lib/navigation.tsx";
import { progressPercent } from "../dashboard/running-job-card.tsx";
import { manualBackupMessages, progressText } from "../dashboard/use-manual-backup.ts";

/**
 * SPEC §4 texts of a sync job in each state; a running one's numbers are the server's
 * progress (`sync_progress` of the stats: its total less what was processed is Pending).
 */
export function syncJobText(job: SyncJob, progress?: SyncProgress | null): string {
  switch (job.status) {
    case "running":
      return job.mode === "refresh" ? REFRESHING : progressText(progress);
    case "completed":
      return completedJobText(job);
    case "failed":
      return job.error_message || syncMessages.syncFailed;
    case "cancelled":
      return manualBackupMessages.cancelled;
  }
}

const TITLES: Record<SyncJob["status"], string> = {
  running: "Sync in progress",
  completed: "Last sync completed",
  failed: "Last sync failed",
  cancelled: "Last sync cancelled",
};

/**
 * The current (or latest) sync: its state text and, while it runs, a progress bar. The server's
 * words for the run (`run`, from the health state) win: a run whose backups failed says what
 * failed and links the fix, never "Successfully processed".
 */
export function SyncJobCard({
  job,
  overLimit,
  run,
  runLoading = false,
  progress,
}: {
  job: SyncJob;
  overLimit?: string | null;
  run?: RunHealth | null | undefined;
  /** The server's words for this finished run are still on their way: say so, guess nothing. */
  runLoading?: boolean;
  /** The running backups' progress (the stats' `sync_progress`). */
  progress?: SyncProgress | null | undefined;
}) {
  const running = job.status === "running";
  const percent = running && job.mode !== "refresh" ? progressPercent(progress) : 0;
  const words = run && run.id === job.id && !running && run.outcome !== "running" ? run : null;
  const waiting = !running && !words && runLoading;
  const failedRun = words ? words.outcome === "partial" || words.outcome === "failed" : false;
  return (
    <section
      className={`card sync-job-card sync-job-${waiting ? "waiting" : failedRun || (job.status === "completed" && job.posts_failed > 0) ? "failed" : job.status}`}
      aria-live="polite"
      aria-label="Current sync"
    >
      <div className="sync-job-head">
        {running && <span className="spinner spinner-sm" aria-hidden="true" />}
        <p className="sync-job-title">
          {waiting
            ? "Last sync"
            : (words?.title ??
              (job.status === "completed" && job.posts_failed > 0
                ? "Last sync finished with errors"
                : TITLES[job.status]))}
          {job.job_type === "scheduled_sync" ? " (automatic)" : ""}
        </p>
        {running && <span className="sync-job-percent">{percent}%</span>}
      </div>
      <p className="sync-job-text">
        {waiting ? "Loading..." : (words?.text ?? syncJobText(job, progress))}
      </p>
      {words?.fix && (
        <p className="sync-job-text sync-job-fix">
          <FixLink fix={words.fix} />
        </p>
      )}
      {overLimit && (
        <p className="sync-job-text sync-job-limit" data-testid="over-limit">
          {overLimit} <Link to="/pricing">Upgrade</Link>
        </p>
      )}
      {running && <ProgressBar percent={percent} label="Sync progress" />}
    </section>
  );
}
