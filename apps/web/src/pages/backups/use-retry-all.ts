import { BACKUPS_MAX_PAGE_SIZE, type Backup } from "@keepsake/contracts";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import { toast } from "react-toastify";
import { fetchBackups, RETRY_REFETCH_MS, retryBackup, syncKeys } from "../../api/sync.ts";

/** Every failed backup of the account filter, page by page. */
async function allFailed(accountId: string | undefined): Promise<Backup[]> {
  const out: Backup[] = [];
  for (;;) {
    const page = await fetchBackups({
      status_filter: "failed",
      account_id: accountId,
      limit: BACKUPS_MAX_PAGE_SIZE,
      offset: out.length,
    });
    out.push(...page.backups);
    if (page.backups.length === 0 || out.length >= page.total) return out;
  }
}

/**
 * "Retry All Failed" (SPEC §2, §8): retries every failed backup of the current account filter;
 * 'No failed backups to retry' when there are none, 'Some retries failed. Please check
 * individual backups.' when any retry is refused; the lists are fetched again 2 s later.
 */
export function useRetryAllFailed(accountId: string | undefined) {
  const queryClient = useQueryClient();
  const [isRetrying, setIsRetrying] = useState(false);
  const retryAll = useCallback(async () => {
    setIsRetrying(true);
    try {
      const failed = await allFailed(accountId);
      if (failed.length === 0) {
        toast.info("No failed backups to retry");
        return;
      }
      const results = await Promise.allSettled(failed.map((b) => retryBackup(b.instagram_post_id)));
      if (results.some((r) => r.status === "rejected")) {
        toast.error("Some retries failed. Please check individual backups.");
      } else {
        toast.success(`Retrying ${failed.length} failed backup${failed.length === 1 ? "" : "s"}`);
      }
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
