import { z } from "zod";
import { DESTINATION_KINDS } from "./destination-kinds.ts";

/**
 * `GET /api/sync/health` (issue 36): one health state per account and per destination,
 * computed in one place on the server; the dashboard, /backups, the bell, mails, `/api/v1`
 * and the tier card all read it.
 */

/** The fix of a cause: a button label and where it is done (an in-app path). */
export const healthFix = z.object({ label: z.string(), path: z.string() });
export type HealthFix = z.infer<typeof healthFix>;

export const accountHealthState = z.enum([
  "ok",
  "syncing",
  "needs_reconnection",
  "token_expiring",
  "paused_by_plan",
  "failing",
  /** Instagram limits Keepsake's requests: backups wait and are retried on their own. */
  "throttled",
  /** A paid plan's automatic backups have not completed a sync for a day. */
  "stale",
  /** Stories expired before they were backed up, and no backup completed since. */
  "stories_lost",
]);
export type AccountHealthState = z.infer<typeof accountHealthState>;

export const accountHealth = z.object({
  account_id: z.string(),
  username: z.string(),
  state: accountHealthState,
  /** What is wrong, in words a person understands; null when ok. */
  cause: z.string().nullable(),
  fix: healthFix.nullable(),
  /** Since when (ISO time); null when ok or unknown. */
  since: z.string().nullable(),
});
export type AccountHealth = z.infer<typeof accountHealth>;

/**
 * Where backups go (issue 38): one health per destination the user's accounts use (Google Drive
 * also when no account is connected yet).
 */
export const destinationKind = z.enum(DESTINATION_KINDS);
export const destinationHealthState = z.enum([
  "ok",
  "not_connected",
  "needs_reconnection",
  "full",
  /** Backups to it failed for good with its own words (an error it answered, not answering). */
  "failing",
  /** The destination limits Keepsake's requests: backups wait and are retried on their own. */
  "throttled",
]);
export type DestinationHealthState = z.infer<typeof destinationHealthState>;

export const destinationHealth = z.object({
  kind: destinationKind,
  /** The account it writes to (the Google or Dropbox address, `bucket at host`); null when not connected. */
  label: z.string().nullable(),
  state: destinationHealthState,
  cause: z.string().nullable(),
  fix: healthFix.nullable(),
  since: z.string().nullable(),
});
export type DestinationHealth = z.infer<typeof destinationHealth>;

/** The plan's state: a payment that failed while Stripe retries it (the subscription past due). */
export const planHealth = z.object({
  state: z.enum(["ok", "payment_failed"]),
  cause: z.string().nullable(),
  fix: healthFix.nullable(),
  since: z.string().nullable(),
});
export type PlanHealth = z.infer<typeof planHealth>;

/** The latest backup run, in words that never call a run with failed backups a success. */
export const runHealth = z.object({
  id: z.string(),
  outcome: z.enum(["running", "succeeded", "nothing_new", "partial", "failed", "cancelled"]),
  title: z.string(),
  text: z.string(),
  fix: healthFix.nullable(),
});
export type RunHealth = z.infer<typeof runHealth>;

/**
 * The first-run path: the next thing to do until both connections exist and a backup ran.
 * `connect_drive` when the accounts' storage is Google Drive; `connect_storage` for another
 * destination they use (Dropbox, OneDrive, S3 storage), named in `destination`.
 */
export const nextStep = z.object({
  step: z.enum(["connect_instagram", "connect_drive", "connect_storage", "first_backup"]),
  /** The destination the step connects or writes to; absent before Instagram is connected. */
  destination: destinationKind.optional(),
  /** 1, 2 or 3 of 3. */
  number: z.number().int(),
  title: z.string(),
  text: z.string(),
  /** Where the step is done; null for the first backup (the dashboard's own button). */
  fix: healthFix.nullable(),
});
export type NextStep = z.infer<typeof nextStep>;

export const syncHealth = z.object({
  /**
   * `ready`: everything works; `syncing`: a run is going on; `attention`: something needs the
   * user but some backups still run; `broken`: nothing can be backed up until it is fixed;
   * `setup`: a connection was never made.
   */
  state: z.enum(["setup", "ready", "syncing", "attention", "broken"]),
  /** True only when every connection works (never while one is broken). */
  ready: z.boolean(),
  /** The header badge's words ("✓ Ready for backup", "Backups paused: reconnect Google Drive"). */
  headline: z.string(),
  cause: z.string().nullable(),
  fix: healthFix.nullable(),
  since: z.string().nullable(),
  next_step: nextStep.nullable(),
  accounts: z.array(accountHealth),
  destinations: z.array(destinationHealth),
  plan: planHealth,
  last_run: runHealth.nullable(),
});
export type SyncHealth = z.infer<typeof syncHealth>;
