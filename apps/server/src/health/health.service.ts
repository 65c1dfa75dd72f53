import {
  type SyncHealth,
  type SyncJob,
  type SyncProgress,
  TOKEN_WARNING_WINDOW_MS,
} from "@keepsake/contracts";
import type { Clock } from "../lib/clock.ts";
import {
  type AccountFacts,
  type DriveFacts,
  type FailureFacts,
  syncHealth,
} from "./health.rules.ts";

/** What the health state reads of the other areas (their repositories, wired in context.ts). */
export interface HealthSources {
  accounts(userId: string): Promise<AccountFacts[]>;
  drive(userId: string): Promise<DriveFacts | undefined>;
  failures(userId: string): Promise<FailureFacts[]>;
  lastCompletedAt(userId: string): Promise<Date | null>;
  /** The user's newest runs, newest first (any running one among them). */
  recentRuns(userId: string): Promise<SyncJob[]>;
  /** When a run of the user last completed (null: never). */
  lastCompletedRun(userId: string): Promise<Date | null>;
  /** The running backups' progress, from the Pending count's definition (backups area). */
  progress?(userId: string): Promise<SyncProgress | null>;
}

/** One health state per account and destination for a user (issue 36; see health.rules.ts). */
export function createHealthService(deps: { sources: HealthSources; clock: Clock }) {
  const { sources, clock } = deps;
  return {
    async health(userId: string): Promise<SyncHealth> {
      const [accounts, drive, failures, lastCompletedAt, runs, lastDone] = await Promise.all([
        sources.accounts(userId),
        sources.drive(userId),
        sources.failures(userId),
        sources.lastCompletedAt(userId),
        sources.recentRuns(userId),
        sources.lastCompletedRun(userId),
      ]);
      const running = runs.filter((r) => r.status === "running");
      const progress =
        running.length > 0 && sources.progress ? await sources.progress(userId) : null;
      return syncHealth({
        now: clock.now(),
        accounts,
        drive,
        failures,
        lastCompletedAt,
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
