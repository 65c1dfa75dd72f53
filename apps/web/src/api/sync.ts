import type {
  BackupsQuery,
  BackupsResponse,
  DashboardStats,
  NewPostsCheck,
  PostsQuery,
  PostsResponse,
  RetryBackupResponse,
  RetryFailedResponse,
  StartSyncRequest,
  StartSyncResponse,
  SyncJob,
  SyncStatus,
} from "@keepsake/contracts";
import {
  keepPreviousData,
  useMutation,
  useMutationState,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import { errorToast } from "../lib/fix-toast.tsx";
import { toast } from "../lib/toast.ts";
import { api, errorDetail } from "./client.ts";

/** Query keys of /api/sync; everything under `all` is refetched after a sync. */
export const syncKeys = {
  all: ["sync"] as const,
  stats: ["sync", "stats"] as const,
  status: ["sync", "status"] as const,
  jobs: (limit: number) => ["sync", "jobs", limit] as const,
  posts: (query: PostsQuery) => ["sync", "posts", query] as const,
  newPosts: ["sync", "check-new-posts"] as const,
  backups: (query: BackupsQuery) => ["sync", "backups", query] as const,
};

/** SPEC §3 "Filters": empty values are dropped from the query. */
function dropEmpty<T extends object>(query: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== ""),
  ) as Partial<T>;
}

export async function fetchDashboardStats(): Promise<DashboardStats> {
  const { data } = await api.get<unknown>("/sync/dashboard/stats");
  return data as DashboardStats;
}

export async function fetchSyncStatus(): Promise<SyncStatus> {
  const { data } = await api.get<unknown>("/sync/status");
  return data as SyncStatus;
}

export async function fetchSyncJobs(limit: number): Promise<SyncJob[]> {
  const { data } = await api.get<unknown>("/sync/sync-jobs", { params: { limit } });
  return data as SyncJob[];
}

export async function fetchPosts(query: PostsQuery): Promise<PostsResponse> {
  const { data } = await api.get<unknown>("/sync/posts", { params: dropEmpty(query) });
  return data as PostsResponse;
}

export async function checkNewPosts(): Promise<NewPostsCheck> {
  const { data } = await api.get<unknown>("/sync/check-new-posts");
  return data as NewPostsCheck;
}

export async function startSync(body: StartSyncRequest = {}): Promise<StartSyncResponse> {
  const { data } = await api.post<unknown>("/sync/start", dropEmpty(body));
  return data as StartSyncResponse;
}

export async function refreshInstagramPosts(): Promise<StartSyncResponse> {
  const { data } = await api.post<unknown>("/sync/refresh-instagram-posts");
  return data as StartSyncResponse;
}

/** `refetchInterval` may depend on the last answer (e.g. faster while backups are pending). */
export function useDashboardStats(
  options: {
    refetchInterval?: number | false | ((data: DashboardStats | undefined) => number | false);
  } = {},
) {
  const { refetchInterval = false } = options;
  return useQuery({
    queryKey: syncKeys.stats,
    queryFn: fetchDashboardStats,
    refetchInterval:
      typeof refetchInterval === "function"
        ? (query) => refetchInterval(query.state.data)
        : refetchInterval,
  });
}

/**
 * The latest `limit` sync jobs. `runningPollMs` (SPEC §9: 2 s) applies while the newest job
 * runs; `idlePollMs` otherwise (false: no polling).
 */
export function useSyncJobs(
  limit: number,
  options: { runningPollMs?: number; idlePollMs?: number | false; enabled?: boolean } = {},
) {
  const { runningPollMs = 2_000, idlePollMs = false, enabled = true } = options;
  return useQuery({
    queryKey: syncKeys.jobs(limit),
    queryFn: () => fetchSyncJobs(limit),
    enabled,
    refetchInterval: (query) =>
      query.state.data?.[0]?.status === "running" ? runningPollMs : idlePollMs,
  });
}

/** One page of posts; the previous page stays on screen while the next loads. */
export function usePosts(
  query: PostsQuery,
  options: { enabled?: boolean; refetchInterval?: number | false } = {},
) {
  return useQuery({
    queryKey: syncKeys.posts(query),
    queryFn: () => fetchPosts(query),
    placeholderData: keepPreviousData,
    // Going back to a page seen a moment ago does not ask again; a sync invalidates it.
    staleTime: 30_000,
    enabled: options.enabled ?? true,
    refetchInterval: options.refetchInterval ?? false,
  });
}

/** SPEC §9: polled every 60 s, for free users only. */
/**
 * The free banner's check, every minute; `refetchMs` while a sync runs, so its "not backed up
 * yet" follows the Pending card read at the same pace (one definition on the server).
 */
export function useNewPostsCheck(enabled: boolean, refetchMs = 60_000) {
  return useQuery({
    queryKey: syncKeys.newPosts,
    queryFn: checkNewPosts,
    enabled,
    refetchInterval: enabled ? refetchMs : false,
  });
}

/**
 * Refresh button of the content grid: the server's detail (e.g. the §5 connection messages),
 * else §8 'Failed to refresh posts'.
 */
export function useRefreshInstagramPosts() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: refreshInstagramPosts,
    onSuccess: async (answer) => {
      toast.info(answer.message);
      await queryClient.invalidateQueries({ queryKey: syncKeys.all });
    },
    onError: (error) => {
      errorToast(errorDetail(error, "Failed to refresh posts"));
    },
  });
}

export async function fetchBackups(query: BackupsQuery): Promise<BackupsResponse> {
  const { data } = await api.get<unknown>("/sync/backups", { params: dropEmpty(query) });
  return data as BackupsResponse;
}

/** `postId` is Keepsake's post id (`backup.instagram_post_id`). */
export async function retryBackup(postId: string): Promise<RetryBackupResponse> {
  const { data } = await api.post<unknown>(`/sync/backups/${encodeURIComponent(postId)}/retry`);
  return data as RetryBackupResponse;
}

/** "Retry All Failed": every failed backup of the account (all accounts when absent), at once. */
export async function retryFailedBackups(accountId?: string): Promise<RetryFailedResponse> {
  const { data } = await api.post<unknown>("/sync/backups/retry-failed", {
    ...(accountId ? { account_id: accountId } : {}),
  });
  return data as RetryFailedResponse;
}

/** SPEC §9: the backups list is polled every 5 s. */
export function useBackups(
  query: BackupsQuery,
  options: { refetchInterval?: number | false } = {},
) {
  return useQuery({
    queryKey: syncKeys.backups(query),
    queryFn: () => fetchBackups(query),
    placeholderData: keepPreviousData,
    refetchInterval: options.refetchInterval ?? 5_000,
  });
}

/** SPEC §4: after a retry the lists are fetched again 2 s later. */
export const RETRY_REFETCH_MS = 2_000;

const retryBackupKey = ["sync", "retry-backup"] as const;

/** Retries one failed backup; §8 'Failed to retry backup' (or the server's detail) on failure. */
export function useRetryBackup() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: retryBackupKey,
    mutationFn: retryBackup,
    onSuccess: (answer) => {
      toast.success(answer.message);
      setTimeout(() => {
        void queryClient.invalidateQueries({ queryKey: syncKeys.all });
      }, RETRY_REFETCH_MS);
    },
    onError: (error) => {
      errorToast(errorDetail(error, "Failed to retry backup"));
    },
  });
}

/** Post ids whose retry (useRetryBackup) is still being sent. */
export function useRetryingPostIds(): ReadonlySet<string> {
  const ids = useMutationState({
    filters: { mutationKey: retryBackupKey, status: "pending" },
    select: (mutation) => mutation.state.variables as string,
  });
  return new Set(ids);
}
