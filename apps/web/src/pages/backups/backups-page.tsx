import type { BackupStatus, SyncHealth } from "@keepsake/contracts";
import { BACKUPS_PAGE_SIZE } from "@keepsake/contracts/sync-messages";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useInstagramAccounts } from "../../api/connections.ts";
import { healthKey, useSyncHealth } from "../../api/health.ts";
import {
  useBackups,
  useDashboardStats,
  useRetryBackup,
  useRetryingPostIds,
  useSyncJobs,
} from "../../api/sync.ts";
import { BusyButton } from "../../components/busy-button.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { Pagination } from "../../components/pagination.tsx";
import { useAuth } from "../../lib/auth.tsx";
import { overLimitText, storageWords } from "../../lib/backup-summary.ts";
import { formatCount } from "../../lib/format.ts";
import { pageCount } from "../../lib/pagination.ts";
import { isMultiAccountTier } from "../../lib/plans.ts";
import { usePaging } from "../../lib/use-paging.ts";
import { BackupsTable, visibleBackups } from "./backups-table.tsx";
import { SyncJobCard } from "./sync-job-card.tsx";
import { useRetryAllFailed } from "./use-retry-all.ts";
import "./backups.css";

// SPEC §2's filters; backups unavailable from Instagram are listed under "all".
// "gone": the backups of posts no longer on Instagram (issue 30).
type Filter = "all" | Exclude<BackupStatus, "unavailable"> | "gone";
const FILTERS: Filter[] = ["all", "pending", "processing", "completed", "failed", "gone"];
const LABELS: Record<Filter, string> = {
  all: "All",
  pending: "Pending",
  processing: "Processing",
  completed: "Completed",
  failed: "Failed",
  gone: "No longer on Instagram",
};

/**
 * The causes of the health state's "throttled" (issue 36): a provider limits Keepsake's
 * requests and backups wait for it, which the Pending filter ("See waiting backups") lists.
 */
export function throttledCauses(health: SyncHealth | undefined): string[] {
  if (!health) return [];
  return [...health.destinations, ...health.accounts]
    .filter((x) => x.state === "throttled" && x.cause)
    .map((x) => x.cause as string);
}

/** SPEC §2 /backups: the current sync, the backups (polled every 5 s), filters and retries. */
export function BackupsPage() {
  const { user } = useAuth();
  // `?filter=failed` (the health state's "Retry failed backups" fix) opens on that filter.
  const [filter, setFilter] = useState<Filter>(() => {
    const asked = new URLSearchParams(window.location.search).get("filter");
    return (FILTERS as string[]).includes(asked ?? "") ? (asked as Filter) : "all";
  });
  const [accountId, setAccountId] = useState("");
  const multiAccountTier = isMultiAccountTier(user?.subscription_tier);
  const accounts = useInstagramAccounts(multiAccountTier);
  const showAccountFilter = multiAccountTier && (accounts.data?.accounts.length ?? 0) > 1;
  const account = showAccountFilter && accountId ? accountId : undefined;

  const [page, setPage] = usePaging(JSON.stringify([filter, account ?? null]));

  const backups = useBackups({
    status_filter: filter === "all" || filter === "gone" ? undefined : filter,
    instagram_status: filter === "gone" ? "gone" : undefined,
    account_id: account,
    limit: BACKUPS_PAGE_SIZE,
    offset: (page - 1) * BACKUPS_PAGE_SIZE,
  });
  const jobs = useSyncJobs(1, { runningPollMs: 2_000, idlePollMs: 5_000 });
  const retryOne = useRetryBackup();
  const retrying = useRetryingPostIds();
  const { retryAll, isRetrying } = useRetryAllFailed(account);

  const stats = useDashboardStats({ refetchInterval: 5_000 });
  // The run's words come from the health state, read again whenever the latest run changes.
  const health = useSyncHealth();
  const queryClient = useQueryClient();
  const rows = visibleBackups(backups.data?.backups ?? []);
  const total = backups.data?.total ?? 0;
  const job = jobs.data?.[0];
  const jobState = job ? `${job.id}:${job.status}` : "";
  useEffect(() => {
    if (jobState) void queryClient.invalidateQueries({ queryKey: healthKey });
  }, [jobState, queryClient]);
  // The health state read before the latest run last changed may describe it as it was (or
  // another run): until a newer answer arrives the card waits instead of guessing (a failed
  // run shown without its fix, or "Successfully processed" before the failures are known).
  const jobSeen = useRef({ state: "", at: 0 });
  if (jobSeen.current.state !== jobState) jobSeen.current = { state: jobState, at: Date.now() };
  const runFresh = health.isError || health.dataUpdatedAt >= jobSeen.current.at;
  const limits = throttledCauses(health.data);
  const overLimit = stats.data
    ? overLimitText(stats.data, user?.subscription_tier ?? "free")
    : null;

  return (
    <div className="container page backups-page">
      <PageHeader
        title="Backup Progress"
        subtitle={`Every post Keepsake copies into ${storageWords(health.data ?? null)}, and how it went.`}
      >
        <span className="badge badge-success auto-refresh" title="Updated every 5 seconds">
          <span className="status-dot status-dot-live" aria-hidden="true" /> Auto-refreshing
        </span>
      </PageHeader>

      {job && (
        <SyncJobCard
          job={job}
          overLimit={overLimit}
          run={runFresh ? health.data?.last_run : null}
          runLoading={!runFresh}
          progress={stats.data?.sync_progress}
        />
      )}

      {limits.length > 0 && (
        <div className="backups-waiting" role="status" data-testid="throttled-note">
          {limits.map((cause) => (
            <p key={cause}>{cause}</p>
          ))}
        </div>
      )}

      <div className="backups-toolbar">
        <fieldset className="filter-buttons">
          <legend className="visually-hidden">Filter by status</legend>
          {FILTERS.map((f) => (
            <button
              key={f}
              type="button"
              className={`btn btn-sm ${filter === f ? "btn-primary" : "btn-ghost"}`}
              aria-pressed={filter === f}
              onClick={() => setFilter(f)}
            >
              {LABELS[f]}
            </button>
          ))}
        </fieldset>
        <div className="backups-toolbar-end">
          {showAccountFilter && (
            <label className="account-filter">
              <span className="visually-hidden">Account</span>
              <select
                value={accountId}
                onChange={(e) => setAccountId(e.target.value)}
                aria-label="Account"
              >
                <option value="">All accounts</option>
                {accounts.data?.accounts.map((a) => (
                  <option key={a.id} value={a.id}>
                    @{a.username}
                  </option>
                ))}
              </select>
            </label>
          )}
          <BusyButton busy={isRetrying} busyLabel="Retrying..." onClick={retryAll}>
            Retry All Failed
          </BusyButton>
        </div>
      </div>

      {backups.isPending ? (
        <div className="card backups-empty">
          <span className="spinner" aria-hidden="true" /> <span>Loading backups...</span>
        </div>
      ) : backups.isError && !backups.data ? (
        <div className="card backups-empty">
          <p className="backups-empty-title">Failed to load backups</p>
          <button
            type="button"
            className="btn btn-secondary btn-sm"
            onClick={() => backups.refetch()}
          >
            Try Again
          </button>
        </div>
      ) : rows.length === 0 ? (
        <div className="card backups-empty">
          <p className="backups-empty-title">No backups found</p>
          <p className="backups-empty-hint">
            {filter === "all"
              ? "Start your first sync to see backups here."
              : filter === "gone"
                ? "Every backed-up post is still on Instagram."
                : `No backups with status "${filter}" found.`}
          </p>
        </div>
      ) : (
        <>
          <p className="muted backups-count">
            {formatCount(total)} backup{total === 1 ? "" : "s"}
          </p>
          <BackupsTable
            backups={rows}
            onRetry={(b) => retryOne.mutate(b.instagram_post_id)}
            retrying={retrying}
          />
        </>
      )}
      <Pagination
        page={page}
        totalPages={pageCount(total, BACKUPS_PAGE_SIZE)}
        onChange={setPage}
        label="Backups pages"
      />
    </div>
  );
}
