import type { StartSyncResponse, SyncProgress, SyncStatus } from "@keepsake/contracts";
import { syncMessages } from "@keepsake/contracts/sync-messages";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { errorDetail } from "../../api/client.ts";
import { fetchSyncHealth, healthKey } from "../../api/health.ts";
import { fetchDashboardStats, fetchSyncStatus, startSync, syncKeys } from "../../api/sync.ts";
import { backupDoneText } from "../../lib/backup-summary.ts";
import { errorToast, fixToast } from "../../lib/fix-toast.tsx";
import { toast } from "../../lib/toast.ts";

/** SPEC §4 and §9: first poll after 2 s, then every 3 s, at most 60, a progress toast every 4th. */
export const MANUAL_BACKUP = {
  firstPollMs: 2_000,
  pollMs: 3_000,
  maxPolls: 60,
  progressEvery: 4,
} as const;

/** One progress toast, updated in place and closed when the backup ends. */
export const PROGRESS_TOAST_ID = "manual-backup-progress";

export const manualBackupMessages = {
  completed: "Backup completed successfully!",
  tooLong: "Backup is taking longer than expected. It will continue in the background.",
  startFailed: "Failed to start sync",
  cancelled: "Sync was cancelled",
} as const;

/**
 * SPEC §4 running-card wording, reused for the progress toast: the server's progress of the
 * running backups (`sync_progress` of the stats, `progress` of the status), whose total less
 * what was processed is the Pending card (issue 36); never the run's own counters.
 */
export function progressText(progress: SyncProgress | null | undefined): string {
  if (!progress || progress.total <= 0) return "Starting sync...";
  return `Processing ${progress.processed} of ${progress.total} posts...`;
}

export interface ManualBackupConnections {
  instagramConnected: boolean;
  googleConnected: boolean;
}

/**
 * The manual backup flow of SPEC §4: start the sync (§5 messages when a connection is
 * missing), then wait for it by polling `/sync/status`. `isWaiting` is true from the start
 * until polling ends; a poll that fails only ends the waiting state.
 */
export function useManualBackup(connections: ManualBackupConnections | undefined, tier = "free") {
  const queryClient = useQueryClient();
  const [isStarting, setIsStarting] = useState(false);
  const [isWaiting, setIsWaiting] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const run = useRef(0);

  const stopTimer = useCallback(() => {
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = null;
  }, []);

  // Leaving the dashboard stops the waiting (the sync itself continues on the server).
  useEffect(
    () => () => {
      run.current += 1;
      stopTimer();
    },
    [stopTimer],
  );

  const refreshData = useCallback(
    () => queryClient.invalidateQueries({ queryKey: syncKeys.all }),
    [queryClient],
  );

  const finish = useCallback(
    async (id: number, status: SyncStatus | null) => {
      setIsWaiting(false);
      // A progress toast must not outlive the run it reported on.
      toast.dismiss(PROGRESS_TOAST_ID);
      const job = status?.sync_job ?? null;
      void refreshData();
      if (job?.status === "completed") {
        // The toast says what the server counts: backed up, failed, beyond the plan's limit.
        // And where the accounts are backed up (issue 38): the health state's destinations.
        const [stats, health] = await Promise.all([
          fetchDashboardStats().catch(() => null),
          fetchSyncHealth().catch(() => null),
        ]);
        if (run.current !== id) return;
        if (stats) queryClient.setQueryData(syncKeys.stats, stats);
        if (health) queryClient.setQueryData(healthKey, health);
        const text = backupDoneText(job, stats, tier, health);
        // A run whose backups failed is not a success: the toast says why and links the fix.
        if (job.posts_failed > 0 || (stats?.failed_backups ?? 0) > 0) {
          const fix = health?.state === "broken" ? health.fix : (health?.last_run?.fix ?? null);
          fixToast(job.posts_failed > 0 ? "error" : "warning", text, fix);
        } else toast.success(text);
      } else if (job?.status === "failed") {
        const health = await fetchSyncHealth().catch(() => null);
        if (run.current !== id) return;
        fixToast("error", job.error_message || syncMessages.syncFailed, health?.fix ?? null);
      } else if (job?.status === "cancelled") toast.info(manualBackupMessages.cancelled);
    },
    [queryClient, refreshData, tier],
  );

  const poll = useCallback(
    async (id: number, count: number) => {
      if (run.current !== id) return;
      let status: SyncStatus;
      try {
        status = await fetchSyncStatus();
      } catch {
        // SPEC §4: a status-poll error only stops the waiting state.
        if (run.current === id) setIsWaiting(false);
        return;
      }
      if (run.current !== id) return;
      queryClient.setQueryData(syncKeys.status, status);
      if (!status.is_syncing) {
        await finish(id, status);
        return;
      }
      if (count >= MANUAL_BACKUP.maxPolls) {
        setIsWaiting(false);
        toast.dismiss(PROGRESS_TOAST_ID);
        toast.warning(manualBackupMessages.tooLong);
        void refreshData();
        return;
      }
      if (count % MANUAL_BACKUP.progressEvery === 0) {
        const text = progressText(status.progress);
        if (toast.isActive(PROGRESS_TOAST_ID)) toast.update(PROGRESS_TOAST_ID, { render: text });
        else toast.info(text, { toastId: PROGRESS_TOAST_ID });
        void refreshData();
      }
      timer.current = setTimeout(() => void poll(id, count + 1), MANUAL_BACKUP.pollMs);
    },
    [finish, queryClient, refreshData],
  );

  const start = useCallback(async (): Promise<StartSyncResponse | null> => {
    // "Connect first" messages link to where the connection is made (issue 36).
    if (connections && !connections.instagramConnected) {
      errorToast(syncMessages.instagramNotConnected);
      return null;
    }
    if (connections && !connections.googleConnected) {
      errorToast(syncMessages.googleNotConnected);
      return null;
    }
    if (isStarting || isWaiting) return null;
    setIsStarting(true);
    let started: StartSyncResponse;
    try {
      started = await startSync();
    } catch (error) {
      errorToast(errorDetail(error, manualBackupMessages.startFailed));
      return null;
    } finally {
      setIsStarting(false);
    }
    toast.info(started.message);
    void refreshData();
    stopTimer();
    run.current += 1;
    const id = run.current;
    setIsWaiting(true);
    timer.current = setTimeout(() => void poll(id, 1), MANUAL_BACKUP.firstPollMs);
    return started;
  }, [connections, isStarting, isWaiting, poll, refreshData, stopTimer]);

  return { start, isStarting, isWaiting, isBusy: isStarting || isWaiting };
}
