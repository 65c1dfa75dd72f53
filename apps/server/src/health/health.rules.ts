import {
  type AccountHealth,
  type DestinationHealth,
  type NextStep,
  type PlanHealth,
  type RunHealth,
  type SyncHealth,
  type SyncJob,
  type SyncProgress,
  syncMessages,
} from "@keepsake/contracts";
import type { HealthFacts } from "./health.facts.ts";
import { accountHealth, destinationHealth, planHealth } from "./health.states.ts";
import { FIXES, plural } from "./health.words.ts";

/**
 * The one definition of "is it working" (issue 36): from what Keepsake stores, the state of
 * each account and destination (health.states.ts), the latest run and the first-run step. Pure:
 * the service reads the rows, these rules word them. Every screen, the bell's fixes and
 * `/api/v1` read this.
 */

export type {
  AccountFacts,
  DriveFacts,
  FailureFacts,
  HealthFacts,
  LostStoriesFacts,
  PaymentFacts,
  StaleFacts,
  ThrottledFacts,
} from "./health.facts.ts";
export { accountHealth, destinationHealth, planHealth };

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
  const plan = planHealth(f);
  const common = { next_step: step, accounts, destinations: [drive], plan, last_run: lastRun };

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
  if (drive.state === "needs_reconnection" || drive.state === "full") {
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
  // What needs the user without stopping backups, or that Keepsake waits out on its own.
  const later = laterTrouble(accounts, drive, plan);
  if (later) return { ...common, state: "attention", ready: true, ...later };
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

type Trouble = Pick<AccountHealth, "cause" | "fix" | "since">;

/**
 * The headline of a state that leaves backups running (after the broken connections, failing
 * backups and ending tokens): a day without a sync, stories lost, a failed payment, then a
 * provider's limit that Keepsake waits out.
 */
function laterTrouble(
  accounts: AccountHealth[],
  drive: DestinationHealth,
  plan: PlanHealth,
): (Trouble & { headline: string }) | null {
  const pick = ({ cause, fix, since }: Trouble) => ({ cause, fix, since });
  const stale = accounts.find((a) => a.state === "stale");
  if (stale)
    return { headline: `@${stale.username} hasn't been backed up for a day`, ...pick(stale) };
  const lost = accounts.find((a) => a.state === "stories_lost");
  if (lost) return { headline: "Stories expired before they could be saved", ...pick(lost) };
  if (plan.state === "payment_failed")
    return { headline: "Payment failed: update your payment method", ...pick(plan) };
  if (drive.state === "throttled")
    return { headline: "Backups slowed: Google Drive is limiting requests", ...pick(drive) };
  const limited = accounts.find((a) => a.state === "throttled");
  if (limited)
    return { headline: "Backups slowed: Instagram is limiting requests", ...pick(limited) };
  return null;
}
