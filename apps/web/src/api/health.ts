import type { SyncHealth } from "@keepsake/contracts";
import { useQuery } from "@tanstack/react-query";
import { api } from "./client.ts";
import { syncKeys } from "./sync.ts";

/** Under `syncKeys.all`: a sync that ends (or a retry) asks again. */
export const healthKey = [...syncKeys.all, "health"] as const;

/** The answer's shape, checked where it is read (a body of another shape is an error). */
function isSyncHealth(data: unknown): data is SyncHealth {
  const d = data as Partial<SyncHealth> | null;
  return (
    typeof d?.state === "string" &&
    typeof d.headline === "string" &&
    Array.isArray(d.accounts) &&
    Array.isArray(d.destinations)
  );
}

export async function fetchSyncHealth(): Promise<SyncHealth> {
  const { data } = await api.get<unknown>("/sync/health");
  if (!isSyncHealth(data)) throw new Error("Unexpected answer from /sync/health");
  return data;
}

/**
 * The server's one health state (issue 36): what works, what is broken, the cause and its fix.
 * Every screen that says "ready", "failed" or "connect first" reads it.
 */
export function useSyncHealth(
  options: { enabled?: boolean; refetchInterval?: number | false } = {},
) {
  return useQuery({
    queryKey: healthKey,
    queryFn: fetchSyncHealth,
    enabled: options.enabled ?? true,
    refetchInterval: options.refetchInterval ?? 30_000,
  });
}
