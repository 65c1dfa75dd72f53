import {
  type DestinationKind,
  type SyncHealth,
  type SyncJob,
  type SyncProgress,
  TOKEN_WARNING_WINDOW_MS,
} from "@keepsake/contracts";
import type { Clock } from "../lib/clock.ts";
import type {
  AccountFacts,
  DriveFacts,
  FailureFacts,
  LostStoriesFacts,
  PaymentFacts,
  StaleFacts,
  StorageFacts,
  ThrottledFacts,
} from "./health.facts.ts";
import { syncHealth } from "./health.rules.ts";

/** Stories whose 24 hours ended this long ago or less count as lost (the alert's window). */
const LOST_STORIES_WINDOW_MS = 7 * 24 * 3600_000;
/** Automatic backups a day behind are stale (the alert's threshold). */
const STALE_AFTER_MS = 24 * 3600_000;

/** What the health state reads of the other areas (their repositories, wired in context.ts). */
export interface HealthSources {
  accounts(userId: string): Promise<AccountFacts[]>;
  drive(userId: string): Promise<DriveFacts | undefined>;
  /** The user's Dropbox, OneDrive and S3 connections (connections area; none when absent). */
  storage?(userId: string): Promise<StorageFacts[]>;
  failures(userId: string): Promise<FailureFacts[]>;
  lastCompletedAt(userId: string): Promise<Date | null>;
  /** When each destination last took a backup of the user (backups area). */
  lastCompletedBy?(userId: string): Promise<Partial<Record<DestinationKind, Date>>>;
  /** The user's newest runs, newest first (any running one among them). */
  recentRuns(userId: string): Promise<SyncJob[]>;
  /** When a run of the user last completed (null: never). */
  lastCompletedRun(userId: string): Promise<Date | null>;
  /** The running backups' progress, from the Pending count's definition (backups area). */
  progress?(userId: string): Promise<SyncProgress | null>;
  /** Backups waiting for a provider's limit (backups area). */
  throttled(userId: string): Promise<ThrottledFacts[]>;
  /** The user's accounts of a paid plan without a successful sync since `before` (sync area). */
  stale(userId: string, before: Date): Promise<StaleFacts[]>;
  /** Stories whose 24 hours ended in (from, to] unsaved, with no backup since (backups area). */
  lostStories(userId: string, from: Date, to: Date): Promise<LostStoriesFacts[]>;
  /** The subscription Stripe could not charge, if any (billing area). */
  payment(userId: string): Promise<PaymentFacts | null>;
}

/** One health state per account and destination for a user (issue 36; see health.rules.ts). */
export function createHealthService(deps: { sources: HealthSources; clock: Clock }) {
  const { sources, clock } = deps;
  return {
    async health(userId: string): Promise<SyncHealth> {
      const now = clock.now();
      const [accounts, drive, failures, lastCompletedAt, runs, lastDone] = await Promise.all([
        sources.accounts(userId),
        sources.drive(userId),
        sources.failures(userId),
        sources.lastCompletedAt(userId),
        sources.recentRuns(userId),
        sources.lastCompletedRun(userId),
      ]);
      const [throttled, stale, lostStories, payment, storage, lastCompletedBy] = await Promise.all([
        sources.throttled(userId),
        sources.stale(userId, new Date(now.getTime() - STALE_AFTER_MS)),
        sources.lostStories(userId, new Date(now.getTime() - LOST_STORIES_WINDOW_MS), now),
        sources.payment(userId),
        sources.storage ? sources.storage(userId) : Promise.resolve([]),
        sources.lastCompletedBy ? sources.lastCompletedBy(userId) : Promise.resolve(undefined),
      ]);
      const running = runs.filter((r) => r.status === "running");
      const progress =
        running.length > 0 && sources.progress ? await sources.progress(userId) : null;
      return syncHealth({
        now,
        accounts,
        drive,
        storage,
        failures,
        throttled,
        stale,
        lostStories,
        payment,
        recentRuns: runs,
        lastCompletedAt,
        ...(lastCompletedBy ? { lastCompletedBy } : {}),
        latestRun: running[0] ?? runs[0] ?? null,
        runningAccountIds: new Set(running.flatMap((r) => (r.account_id ? [r.account_id] : []))),
        firstBackupDone: lastDone !== null,
        progress,
        expiringWindowMs: TOKEN_WARNING_WINDOW_MS,
      });
    },
  };
}

export type HealthService = ReturnType<typeof createHealthService>;
