import type { DestinationKind } from "@keepsake/contracts";
import {
  billingMessages,
  syncMessages as m,
  type StartSyncResponse,
  type SubscriptionTier,
  type SyncJob,
  type SyncStatus,
} from "@keepsake/contracts";
import { hasAutomaticBackups, postLimit, tierLabel } from "../billing/index.ts";
import type { DestinationState } from "../connections/index.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import { reconnectWords } from "../providers/failure-words.ts";
import type { SyncDirectory } from "./engine.types.ts";
import type { EngineSettings } from "./engine-settings.ts";
import type { SyncRequest } from "./sync.engine.ts";
import type { SyncRepositories } from "./sync.repositories.ts";
import { toSyncJob } from "./sync.shapes.ts";
import type { SyncJobRow } from "./tables.ts";

export interface SyncRunsServiceDeps {
  repos: Pick<SyncRepositories, "posts" | "backups" | "runs">;
  directory: Pick<SyncDirectory, "userAccounts" | "destinationState">;
  clock: Clock;
  settings: Pick<EngineSettings, "staleSyncMs">;
  enqueueSync(req: SyncRequest): Promise<void>;
  /** Queues the account's scheduled sync of the current interval if its time is ahead. */
  enqueueScheduledThisInterval?(accountId: string): Promise<void>;
}

/**
 * Starting syncs (Backup now, Refresh, after connecting) and retries, and what is running:
 * the write side of /api/sync. Every read and write is scoped to the caller.
 */
export function createSyncRunsService(deps: SyncRunsServiceDeps) {
  const { repos, directory, clock } = deps;

  /** Runs of disconnected accounts end at once; runs whose worker died, after staleSyncMs. */
  const expireStale = () =>
    repos.runs.endAbandonedSyncJobs(
      new Date(clock.now().getTime() - deps.settings.staleSyncMs),
      clock.now(),
      { stale: m.syncFailed, disconnected: m.accountDisconnected },
    );

  /** Where each of `accounts` is backed up, and whether it can be written to now. */
  async function destinationsOf(userId: string, accounts: { destination: DestinationKind }[]) {
    const states = new Map<DestinationKind, DestinationState>();
    for (const kind of new Set(accounts.map((a) => a.destination))) {
      states.set(kind, await directory.destinationState(userId, kind));
    }
    return (a: { destination: DestinationKind }) => states.get(a.destination) as DestinationState;
  }

  /**
   * The accounts a sync would run on, after checking both connections (SPEC §5 messages): each
   * account's destination (Google Drive unless the user chose another) must be connected and
   * working; accounts whose destination is not are left out.
   */
  async function syncTargets(userId: string, accountId?: string) {
    const accounts = await directory.userAccounts(userId);
    if (accounts.length === 0) throw new AppError("bad_request", m.instagramNotConnected);
    const chosen = accountId ? accounts.filter((a) => a.id === accountId) : accounts;
    const pool = chosen.length > 0 ? chosen : accounts;
    const stateOf = await destinationsOf(userId, pool);
    if (!pool.some((a) => stateOf(a).problem === null)) {
      throw new AppError("bad_request", stateOf(pool[0] as (typeof pool)[number]).problem ?? "");
    }
    if (chosen.length === 0) throw new AppError("not_found", m.accountNotFound);
    const unpaused = chosen.filter((a) => !a.paused_by_plan);
    if (unpaused.length === 0) throw new AppError("forbidden", billingMessages.accountPaused);
    const usable = unpaused.filter((a) => a.status === "active");
    if (usable.length === 0) {
      const first = chosen[0] as (typeof chosen)[number];
      throw new AppError(
        "bad_request",
        first.status_reason ?? reconnectWords.instagram(first.username),
      );
    }
    const writable = usable.filter((a) => stateOf(a).problem === null);
    if (writable.length === 0) {
      throw new AppError(
        "bad_request",
        stateOf(usable[0] as (typeof usable)[number]).problem ?? "",
      );
    }
    return writable;
  }

  async function start(
    userId: string,
    accountId: string | undefined,
    mode: "backup" | "refresh",
  ): Promise<StartSyncResponse> {
    return startOn(userId, await syncTargets(userId, accountId), mode);
  }

  async function startOn(
    userId: string,
    targets: { id: string }[],
    mode: "backup" | "refresh",
  ): Promise<StartSyncResponse> {
    await expireStale();
    const jobs: SyncJobRow[] = [];
    let alreadyRunning = false;
    for (const a of targets) {
      const inserted = await repos.runs.insertSyncJob({
        user_id: userId,
        account_id: a.id,
        job_type: "manual",
        mode,
        now: clock.now(),
      });
      if (!inserted) {
        const running = await repos.runs.runningSyncJob(a.id);
        if (running) {
          alreadyRunning = true;
          jobs.push(running);
          continue;
        }
        throw new AppError("conflict", "A sync just finished; please try again.");
      }
      await deps.enqueueSync({ accountId: a.id, syncJobId: inserted.id, kind: "manual", mode });
      jobs.push(inserted);
    }
    const out = jobs.map(toSyncJob);
    return {
      message: alreadyRunning
        ? m.syncAlreadyRunning
        : mode === "refresh"
          ? m.refreshStarted
          : m.syncStarted,
      already_running: alreadyRunning,
      sync_job: out[0] as SyncJob,
      sync_jobs: out,
    };
  }

  /**
   * After an Instagram account or Google Drive is connected (or reconnected), on any plan:
   * the first sync and its backups start at once for the given accounts (all when absent),
   * once both connections work. Answers the jobs started; nothing when a side is missing.
   * `destination`: only the accounts backed up there (that destination was just connected).
   */
  async function startAfterConnect(
    userId: string,
    accountIds?: string[],
    destination?: DestinationKind,
  ): Promise<SyncJob[]> {
    const candidates = (await directory.userAccounts(userId)).filter(
      (a) =>
        a.status === "active" &&
        !a.paused_by_plan &&
        (!accountIds || accountIds.includes(a.id)) &&
        (!destination || a.destination === destination),
    );
    if (candidates.length === 0) return [];
    const stateOf = await destinationsOf(userId, candidates);
    const targets = candidates.filter((a) => stateOf(a).problem === null);
    if (targets.length === 0) return [];
    return (await startOn(userId, targets, "backup")).sync_jobs;
  }

  return {
    start: (userId: string, accountId?: string) => start(userId, accountId, "backup"),
    refreshPosts: (userId: string, accountId?: string) => start(userId, accountId, "refresh"),

    startAfterConnect,

    /**
     * A plan's post limit, at once (a plan change; the next sync's claim applies it too): the
     * newest posts within the limit may be backed up, older ones are marked.
     */
    async applyPostLimit(userId: string, tier: SubscriptionTier): Promise<void> {
      const limit = postLimit(tier);
      await repos.posts.applyPostLimit(userId, {
        limit,
        reason: limit === null ? null : m.postLimit(limit, tierLabel(tier)),
      });
    },

    /**
     * After a plan change to a plan with automatic backups: a backup sync of every usable
     * account starts now (it backs up what the new limits unlock), and each account's
     * scheduled sync of the current interval is queued when its time is still ahead, as the
     * scheduler would have done had the plan been in force at its tick: the dashboard's
     * "Next sync in" counts down to a sync that happens.
     */
    async startAfterPlanChange(userId: string, tier: SubscriptionTier): Promise<SyncJob[]> {
      if (!hasAutomaticBackups(tier)) return [];
      const started = await startAfterConnect(userId);
      for (const job of started) {
        if (job.account_id) await deps.enqueueScheduledThisInterval?.(job.account_id);
      }
      return started;
    },

    /**
     * After Instagram accounts of the user were disconnected: their running syncs are
     * cancelled (their posts and backups are gone, so they would never complete).
     */
    async endRunsOfDisconnectedAccounts(userId: string): Promise<number> {
      return repos.runs.cancelOrphanedSyncJobs(clock.now(), m.accountDisconnected, userId);
    },

    async syncJobs(userId: string, limit: number): Promise<SyncJob[]> {
      await expireStale();
      return (await repos.runs.listSyncJobs(userId, limit)).map(toSyncJob);
    },

    async status(userId: string): Promise<SyncStatus> {
      await expireStale();
      const running = await repos.runs.latestRunningSyncJob(userId);
      if (running) {
        // "Processing X of Y" as the dashboard's stats give it: Y - X is the Pending count.
        const progress =
          running.mode === "backup" ? await repos.backups.syncProgress(userId) : null;
        return { is_syncing: true, sync_job: toSyncJob(running), progress };
      }
      const [latest] = await repos.runs.listSyncJobs(userId, 1);
      return { is_syncing: false, sync_job: latest ? toSyncJob(latest) : null, progress: null };
    },
  };
}

export type SyncRunsService = ReturnType<typeof createSyncRunsService>;
