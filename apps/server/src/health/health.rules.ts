import {
  type AccountHealth,
  type DestinationHealth,
  type NextStep,
  type RunHealth,
  type SyncHealth,
  type SyncJob,
  type SyncProgress,
  syncMessages,
} from "@keepsake/contracts";
import { CAUSES, FIXES, plural } from "./health.words.ts";

/**
 * The one definition of "is it working" (issue 36): from what Keepsake stores, the state of
 * each account and destination, the latest run and the first-run step. Pure: the service reads
 * the rows, these rules word them. Every screen, the bell's fixes and `/api/v1` read this.
 */

export interface AccountFacts {
  id: string;
  username: string;
  status: "active" | "needs_reconnection" | string;
  status_reason: string | null;
  paused_by_plan: boolean;
  connected_via: "instagram" | "facebook";
  token_expires_at: Date | null;
  updated_at: Date;
}

export interface DriveFacts {
  google_email: string;
  status: "active" | "needs_reconnection" | string;
  status_reason: string | null;
  updated_at: Date;
}

export interface FailureFacts {
  accountId: string;
  failed: number;
  since: Date;
  /** When the newest failure happened, and its words. */
  latestAt: Date;
  latest: string | null;
}

export interface HealthFacts {
  now: Date;
  accounts: AccountFacts[];
  drive: DriveFacts | undefined;
  failures: FailureFacts[];
  /** When Drive last took a backup (a refusal for space before it is over). */
  lastCompletedAt: Date | null;
  /** The latest run (any account), and whether one is running now. */
  latestRun: SyncJob | null;
  runningAccountIds: Set<string>;
  /**
   * The running backups' progress from the Pending count's definition (backups' `syncProgress`):
   * a running run says "Processing X of Y posts..." with it, never from its own counters.
   */
  progress?: SyncProgress | null;
  /** Whether a backup run ever ended or a post is in Drive (the first-run path is done). */
  firstBackupDone: boolean;
  /** Days before an Instagram token ends that a Facebook Login token is called expiring. */
  expiringWindowMs: number;
}

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);
/** Failures the destination's own state explains (not the account's). */
const driveWords = new Set<string | null>([syncMessages.driveFull]);
const isDriveAccessWords = (s: string | null) => !!s && /Google Drive access/i.test(s);

export function destinationHealth(f: HealthFacts): DestinationHealth {
  const base = { kind: "google_drive" as const, label: f.drive?.google_email ?? null };
  if (!f.drive) {
    return {
      ...base,
      state: "not_connected",
      cause: CAUSES.driveNotConnected,
      fix: FIXES.connectDrive,
      since: null,
    };
  }
  if (f.drive.status === "needs_reconnection") {
    return {
      ...base,
      state: "needs_reconnection",
      cause: CAUSES.driveRevoked(f.drive.status_reason),
      fix: FIXES.reconnectDrive,
      since: iso(f.drive.updated_at),
    };
  }
  // Drive refused a backup for want of space and took none since: nothing fits.
  const full = f.failures.filter(
    (x) =>
      x.latest === syncMessages.driveFull &&
      (f.lastCompletedAt === null || +x.latestAt > +f.lastCompletedAt),
  );
  if (full.length > 0) {
    return {
      ...base,
      state: "full",
      cause: CAUSES.driveFull,
      fix: FIXES.driveStorage,
      since: iso(new Date(Math.min(...full.map((x) => +x.since)))),
    };
  }
  return { ...base, state: "ok", cause: null, fix: null, since: null };
}

export function accountHealth(a: AccountFacts, f: HealthFacts): AccountHealth {
  const base = { account_id: a.id, username: a.username };
  const expires = a.token_expires_at ? new Date(a.token_expires_at) : null;
  if (a.paused_by_plan) {
    return {
      ...base,
      state: "paused_by_plan",
      cause: CAUSES.accountPaused(a.username),
      fix: FIXES.chooseAccounts,
      since: null,
    };
  }
  if (a.status === "needs_reconnection" || (expires && +expires <= +f.now)) {
    return {
      ...base,
      state: "needs_reconnection",
      cause: CAUSES.accountRevoked(a.username, a.status_reason),
      fix: FIXES.reconnect(a.username),
      since: iso(a.status === "needs_reconnection" ? a.updated_at : expires),
    };
  }
  const failing = f.failures.find((x) => x.accountId === a.id);
  if (failing && !driveWords.has(failing.latest) && !isDriveAccessWords(failing.latest)) {
    return {
      ...base,
      state: "failing",
      cause: CAUSES.accountFailing(a.username, failing.failed, failing.latest),
      fix: FIXES.retryFailed,
      since: iso(failing.since),
    };
  }
  if (a.connected_via === "facebook" && expires && +expires - +f.now <= f.expiringWindowMs) {
    return {
      ...base,
      state: "token_expiring",
      cause: CAUSES.tokenExpiring(a.username, expires),
      fix: FIXES.reconnect(a.username),
      since: null,
    };
  }
  if (f.runningAccountIds.has(a.id)) {
    return { ...base, state: "syncing", cause: null, fix: null, since: null };
  }
  return { ...base, state: "ok", cause: null, fix: null, since: null };
}

/** SPEC §4 running card, from the running backups' progress (null: still listing). */
export function progressText(progress: SyncProgress | null): string {
  return progress && progress.total > 0
    ? `Processing ${progress.processed} of ${progress.total} posts...`
    : "Starting sync...";
}

/** The latest run in words: a run whose backups failed is never "completed successfully". */
export function runHealth(
  job: SyncJob | null,
  drive: DestinationHealth,
  accounts: AccountHealth[],
  progress: SyncProgress | null = null,
): RunHealth | null {
  if (!job) return null;
  const base = { id: job.id };
  if (job.status === "running") {
    return {
      ...base,
      outcome: "running",
      title: "Sync in progress",
      text: progressText(job.mode === "backup" ? progress : null),
      fix: null,
    };
  }
  if (job.status === "cancelled") {
    return {
      ...base,
      outcome: "cancelled",
      title: "Last sync cancelled",
      text: "Sync was cancelled",
      fix: null,
    };
  }
  // What explains failures: the destination first, then the account, else a retry.
  const account = accounts.find((a) => a.account_id === job.account_id);
  const cause =
    drive.state !== "ok"
      ? drive
      : account && account.state !== "ok" && account.state !== "syncing"
        ? account
        : null;
  if (job.status === "failed") {
    return {
      ...base,
      outcome: "failed",
      title: "Last sync failed",
      text: job.error_message || syncMessages.syncFailed,
      fix: cause?.fix ?? null,
    };
  }
  if (job.posts_failed > 0) {
    const saved = job.posts_processed - job.posts_failed;
    const all = saved <= 0;
    const why = cause?.cause ?? "some backups could not be written.";
    return {
      ...base,
      outcome: all ? "failed" : "partial",
      title: all ? "Last sync failed" : "Last sync finished with errors",
      text: `${all ? `All ${plural(job.posts_failed, "backup", "backups")} failed` : `${plural(saved, "post", "posts")} backed up, ${plural(job.posts_failed, "backup", "backups")} failed`}: ${why}`,
      fix: cause?.fix ?? FIXES.retryFailed,
    };
  }
  if (job.mode === "refresh") {
    return {
      ...base,
      outcome: job.posts_processed > 0 ? "succeeded" : "nothing_new",
      title: "Last sync completed",
      text:
        job.posts_processed > 0
          ? `Refreshed ${plural(job.posts_processed, "post", "posts")} from Instagram. Nothing was backed up yet: start a backup to copy them to Drive.`
          : "Refreshed your posts from Instagram: nothing new.",
      fix: null,
    };
  }
  return job.posts_processed > 0
    ? {
        ...base,
        outcome: "succeeded",
        title: "Last sync completed",
        text: `Successfully processed ${job.posts_processed} posts`,
        fix: null,
      }
    : {
        ...base,
        outcome: "nothing_new",
        title: "Last sync completed",
        text: "No new posts to process",
        fix: null,
      };
}

/** The first-run path: connect Instagram → connect Google Drive → run the first backup. */
export function nextStep(f: HealthFacts): NextStep | null {
  if (f.accounts.length === 0) {
    return {
      step: "connect_instagram",
      number: 1,
      title: "Step 1 of 3: connect your Instagram account",
      text: "Keepsake reads your posts through Instagram's official login. Connect a professional (Business or Creator) account to start.",
      fix: FIXES.connectInstagram,
    };
  }
  if (!f.drive) {
    return {
      step: "connect_drive",
      number: 2,
      title: "Step 2 of 3: connect your Google Drive",
      text: "Backups are saved to a Keepsake folder in your own Google Drive.",
      fix: FIXES.connectDrive,
    };
  }
  if (!f.firstBackupDone) {
    return {
      step: "first_backup",
      number: 3,
      title: "Step 3 of 3: run your first backup",
      text:
        f.runningAccountIds.size > 0
          ? "Your first backup is running: your posts appear below as they are saved to Drive."
          : "Both connections are ready. Start your first backup to copy your posts into Google Drive.",
      fix: null,
    };
  }
  return null;
}

/** Everything together: the header's state and badge, the cause and its fix. */
export function syncHealth(f: HealthFacts): SyncHealth {
  const drive = destinationHealth(f);
  const accounts = f.accounts.map((a) => accountHealth(a, f));
  const step = nextStep(f);
  const lastRun = runHealth(f.latestRun, drive, accounts, f.progress ?? null);
  const synced = accounts.filter((a) => a.state !== "paused_by_plan");
  const stopped = synced.filter((a) => a.state === "needs_reconnection");
  const troubled = accounts.filter((a) =>
    ["needs_reconnection", "failing", "token_expiring"].includes(a.state),
  );
  const common = { next_step: step, accounts, destinations: [drive], last_run: lastRun };

  if (f.accounts.length === 0 || drive.state === "not_connected") {
    const cause = f.accounts.length === 0 ? "Instagram is not connected yet." : drive.cause;
    return {
      ...common,
      state: "setup",
      ready: false,
      headline:
        f.accounts.length === 0 ? "Connect Instagram to start" : "Connect Google Drive to start",
      cause,
      fix: f.accounts.length === 0 ? FIXES.connectInstagram : FIXES.connectDrive,
      since: null,
    };
  }
  if (drive.state !== "ok") {
    return {
      ...common,
      state: "broken",
      ready: false,
      headline:
        drive.state === "full"
          ? "Backups paused: Google Drive is full"
          : "Backups paused: reconnect Google Drive",
      cause: drive.cause,
      fix: drive.fix,
      since: drive.since,
    };
  }
  if (synced.length > 0 && stopped.length === synced.length) {
    return {
      ...common,
      state: "broken",
      ready: false,
      headline: `Backups paused for ${stopped.map((a) => `@${a.username}`).join(", ")}`,
      cause: stopped[0]!.cause,
      fix: stopped[0]!.fix,
      since: stopped[0]!.since,
    };
  }
  const first = troubled[0];
  if (first) {
    const broken = first.state === "needs_reconnection";
    return {
      ...common,
      state: "attention",
      ready: !broken && stopped.length === 0,
      headline: broken
        ? `Backups paused for ${stopped.map((a) => `@${a.username}`).join(", ")}`
        : first.state === "failing"
          ? "Some backups failed"
          : `Reconnect @${first.username} soon`,
      cause: first.cause,
      fix: first.fix,
      since: first.since,
    };
  }
  if (f.runningAccountIds.size > 0) {
    return {
      ...common,
      state: "syncing",
      ready: true,
      headline: "Backing up now",
      cause: null,
      fix: null,
      since: null,
    };
  }
  return {
    ...common,
    state: "ready",
    ready: true,
    headline: "✓ Ready for backup",
    cause: null,
    fix: null,
    since: null,
  };
}
