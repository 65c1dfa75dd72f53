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
import {
  destinationOf,
  destinationsHealth,
  isBroken,
  labelOf,
  usedDestinations,
} from "./health.destinations.ts";
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
  StorageFacts,
  ThrottledFacts,
} from "./health.facts.ts";
export { accountHealth, destinationHealth, destinationsHealth, planHealth };

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
          ? `Refreshed ${plural(job.posts_processed, "post", "posts")} from Instagram. Nothing was backed up yet: start a backup to copy them to ${drive.kind === "google_drive" ? "Drive" : labelOf(drive.kind)}.`
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

/** Where a destination keeps Keepsake's backups, as the first-run path says it. */
const WHERE = {
  dropbox: "the Apps/Keepsake folder of your own Dropbox",
  onedrive: "Keepsake's app folder in your own OneDrive",
  s3: "your own S3-compatible bucket",
} as const;

/**
 * The first-run path: connect Instagram → connect the storage the accounts use (Google Drive
 * unless they chose another) → run the first backup.
 */
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
  const used = usedDestinations(f);
  const missing = used.find((k) =>
    k === "google_drive" ? !f.drive : !(f.storage ?? []).some((s) => s.kind === k),
  );
  if (missing === "google_drive") {
    return {
      step: "connect_drive",
      number: 2,
      destination: missing,
      title: "Step 2 of 3: connect your Google Drive",
      text: "Backups are saved to a Keepsake folder in your own Google Drive.",
      fix: FIXES.connectDrive,
    };
  }
  if (missing) {
    const names = f.accounts
      .filter((a) => destinationOf(a) === missing)
      .map((a) => `@${a.username}`)
      .join(", ");
    return {
      step: "connect_storage",
      number: 2,
      destination: missing,
      title: `Step 2 of 3: connect your ${labelOf(missing)}`,
      text: `Backups of ${names} are saved to ${WHERE[missing]}.`,
      fix: FIXES.connectDestination(missing),
    };
  }
  if (!f.firstBackupDone) {
    const only = used.length === 1 ? used[0] : undefined;
    const drive = only === "google_drive";
    const into = only ? labelOf(only) : "your storage";
    return {
      step: "first_backup",
      number: 3,
      ...(only ? { destination: only } : {}),
      title: "Step 3 of 3: run your first backup",
      text:
        f.runningAccountIds.size > 0
          ? `Your first backup is running: your posts appear below as they are saved to ${drive ? "Drive" : into}.`
          : `Both connections are ready. Start your first backup to copy your posts into ${into}.`,
      fix: null,
    };
  }
  return null;
}

/** A broken destination's headline: "Backups paused: reconnect Google Drive". */
function brokenHeadline(d: DestinationHealth): string {
  if (d.state === "full") return `Backups paused: ${labelOf(d.kind)} is full`;
  if (d.state === "needs_reconnection") return `Backups paused: reconnect ${labelOf(d.kind)}`;
  return `Connect ${labelOf(d.kind)} to back up its accounts`;
}

/** Everything together: the header's state and badge, the cause and its fix. */
export function syncHealth(f: HealthFacts): SyncHealth {
  const destinations = destinationsHealth(f);
  const accounts = f.accounts.map((a) => accountHealth(a, f));
  const step = nextStep(f);
  // The latest run is explained by its account's destination (else the first in trouble).
  const runAccount = f.accounts.find((a) => a.id === f.latestRun?.account_id);
  const runDestination =
    destinations.find((d) => runAccount && d.kind === destinationOf(runAccount)) ??
    destinations.find((d) => d.state !== "ok") ??
    (destinations[0] as DestinationHealth);
  const lastRun = runHealth(f.latestRun, runDestination, accounts, f.progress ?? null);
  const synced = accounts.filter((a) => a.state !== "paused_by_plan");
  const stopped = synced.filter((a) => a.state === "needs_reconnection");
  const troubled = accounts.filter((a) =>
    ["needs_reconnection", "failing", "token_expiring"].includes(a.state),
  );
  const plan = planHealth(f);
  const common = { next_step: step, accounts, destinations, plan, last_run: lastRun };

  if (f.accounts.length === 0) {
    return {
      ...common,
      state: "setup",
      ready: false,
      headline: "Connect Instagram to start",
      cause: "Instagram is not connected yet.",
      fix: FIXES.connectInstagram,
      since: null,
    };
  }
  // No destination the accounts use was ever connected: the first-run path's step 2.
  const unconnected = destinations.filter((d) => d.state === "not_connected");
  if (unconnected.length === destinations.length) {
    const d = unconnected[0] as DestinationHealth;
    return {
      ...common,
      state: "setup",
      ready: false,
      headline: `Connect ${labelOf(d.kind)} to start`,
      cause: d.cause,
      fix: d.fix,
      since: null,
    };
  }
  // Every destination in use stops backups (revoked, full or missing): nothing is backed up.
  const broken = destinations.filter(isBroken);
  const worst = broken.find((d) => d.state !== "not_connected") ?? broken[0];
  if (worst && broken.length === destinations.length) {
    return {
      ...common,
      state: "broken",
      ready: false,
      headline: brokenHeadline(worst),
      cause: worst.cause,
      fix: worst.fix,
      since: worst.since,
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
  // Some accounts' destination stops their backups while others' work: never "ready".
  if (worst) {
    return {
      ...common,
      state: "attention",
      ready: false,
      headline: brokenHeadline(worst),
      cause: worst.cause,
      fix: worst.fix,
      since: worst.since,
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
  // Backups failing in a destination's own words (an error it answered): Retry, as an account's.
  const failing = destinations.find((d) => d.state === "failing");
  if (failing) {
    return {
      ...common,
      state: "attention",
      ready: true,
      headline: "Some backups failed",
      cause: failing.cause,
      fix: failing.fix,
      since: failing.since,
    };
  }
  // What needs the user without stopping backups, or that Keepsake waits out on its own.
  const later = laterTrouble(accounts, destinations, plan);
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
  destinations: DestinationHealth[],
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
  const slowed = destinations.find((d) => d.state === "throttled");
  if (slowed)
    return {
      headline: `Backups slowed: ${labelOf(slowed.kind)} is limiting requests`,
      ...pick(slowed),
    };
  const limited = accounts.find((a) => a.state === "throttled");
  if (limited)
    return { headline: "Backups slowed: Instagram is limiting requests", ...pick(limited) };
  return null;
}
