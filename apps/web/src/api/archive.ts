import type { ArchiveStats, PostHistory } from "@keepsake/contracts";
import { useQuery } from "@tanstack/react-query";
import { api } from "./client.ts";

/** The archive (issue 30): a post's engagement history, the accounts' charts, the stats CSV. */
export const archiveKeys = {
  history: (accountId: string, instagramId: string) =>
    ["archive", "history", accountId, instagramId] as const,
  stats: (accountId: string | undefined) => ["archive", "stats", accountId ?? null] as const,
};

/** A post's readings; `enabled` false for a post that has none to ask for (an imported one). */
export function usePostHistory(accountId: string, instagramId: string, enabled = true) {
  return useQuery({
    enabled,
    queryKey: archiveKeys.history(accountId, instagramId),
    queryFn: async (): Promise<PostHistory> => {
      const { data } = await api.get(
        `/archive/posts/${encodeURIComponent(accountId)}/${encodeURIComponent(instagramId)}/history`,
      );
      return data as PostHistory;
    },
  });
}

export function useArchiveStats(accountId: string | undefined) {
  return useQuery({
    queryKey: archiveKeys.stats(accountId),
    queryFn: async (): Promise<ArchiveStats> => {
      const { data } = await api.get("/archive/stats", {
        params: accountId ? { account_id: accountId } : {},
      });
      return data as ArchiveStats;
    },
  });
}

/**
 * Fetches the stats CSV with the session's token and saves it as a file: every reading of every
 * post (`history`), or each post's latest (`snapshot`).
 */
export async function downloadStatsCsv(
  accountId: string | undefined,
  view: "history" | "snapshot" = "history",
) {
  const { data } = await api.get<Blob>("/archive/stats.csv", {
    params: { ...(accountId ? { account_id: accountId } : {}), view },
    responseType: "blob",
  });
  const url = URL.createObjectURL(data);
  const link = document.createElement("a");
  link.href = url;
  link.download = view === "snapshot" ? "keepsake-stats-snapshot.csv" : "keepsake-stats.csv";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
