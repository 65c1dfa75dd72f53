import { syncMessages } from "@keepsake/contracts/sync-messages";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import { RETRY_REFETCH_MS, retryFailedBackups, syncKeys } from "../../api/sync.ts";
import { toast } from "../../lib/toast.ts";

/**
 * "Retry All Failed" (SPEC §2, §8): one call retries every failed backup of the current account
 * filter on the server (`POST /sync/backups/retry-failed`); 'No failed backups to retry' when
 * there are none, 'Some retries failed. Please check individual backups.' when the call fails;
 * the lists are fetched again 2 s later.
 */
export function useRetryAllFailed(accountId: string | undefined) {
  const queryClient = useQueryClient();
  const [isRetrying, setIsRetrying] = useState(false);
  const retryAll = useCallback(async () => {
    setIsRetrying(true);
    try {
      const { retried } = await retryFailedBackups(accountId);
      if (retried === 0) {
        toast.info(syncMessages.noFailedBackups);
        return;
      }
      toast.success(syncMessages.retryAllStarted(retried));
      setTimeout(() => {
        void queryClient.invalidateQueries({ queryKey: syncKeys.all });
      }, RETRY_REFETCH_MS);
    } catch {
      toast.error("Some retries failed. Please check individual backups.");
    } finally {
      setIsRetrying(false);
    }
  }, [accountId, queryClient]);
  return { retryAll, isRetrying };
}
