import { type StartSyncResponse, type SyncStatus, syncMessages } from "@keepsake/contracts";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { toast } from "react-toastify";
import { errorDetail } from "../../api/client.ts";
import { fetchSyncStatus, startSync, syncKeys } from "../../api/sync.ts";

/** SPEC §4 and §9: first poll after 2 s, then every 3 s, at most 60, a progress toast every 4th. */
export const MANUAL_BACKUP = {
  firstPollMs: 2_000,
  pollMs: 3_000,
  maxPolls: 60,
  progressEvery: 4,
} as const;

export const manualBackupMessages = {
  completed: "Backup completed successfully!",
  tooLong: "Backup is taking longer than expected. It will continue in the background.",
  startFailed: "Failed to start sync",
  cancelled: "Sync was cancelled",
} as const;

/** SPEC §4 running-card wording, reused for the progress toast. */
export function progressText(job: { posts_processed: number; posts_total: number } | null): string {
  if (!job || job.posts_total <= 0) return "Starting sync...";
  return `Processing ${job.posts_processed} of ${job.posts_total} posts...`;
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
export function useManualBackup(connections: ManualBackupConnections | undefined) {
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
    (status: SyncStatus | null) => {
      setIsWaiting(false);
      const job = status?.sync_job ?? null;
      if (job?.status === "completed") toast.success(manualBackupMessages.completed);
      else if (job?.status === "failed") toast.error(job.error_message || syncMessages.syncFailed);
      else if (job?.status === "cancelled") toast.info(manualBackupMessages.cancelled);
      void refreshData();
    },
    [refreshData],
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
        finish(status);
        return;
      }
      if (count >= MANUAL_BACKUP.maxPolls) {
        setIsWaiting(false);
        toast.warning(manualBackupMessages.tooLong);
        void refreshData();
        return;
      }
      if (count % MANUAL_BACKUP.progressEvery === 0) {
        toast.info(progressText(status.sync_job));
        void refreshData();
      }
      timer.current = setTimeout(() => void poll(id, count + 1), MANUAL_BACKUP.pollMs);
    },
    [finish, queryClient, refreshData],
  );

  const start = useCallback(async (): Promise<StartSyncResponse | null> => {
    if (connections && !connections.instagramConnected) {
      toast.error(syncMessages.instagramNotConnected);
      return null;
    }
    if (connections && !connections.googleConnected) {
      toast.error(syncMessages.googleNotConnected);
      return null;
    }
    if (isStarting || isWaiting) return null;
    setIsStarting(true);
    let started: StartSyncResponse;
    try {
      started = await startSync();
    } catch (error) {
      toast.error(errorDetail(error, manualBackupMessages.startFailed));
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
