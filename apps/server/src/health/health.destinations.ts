import {
  DESTINATION_KINDS,
  DESTINATION_LABELS,
  type DestinationHealth,
  type DestinationKind,
  syncMessages,
} from "@keepsake/contracts";
import {
  connectFirstWords,
  DESTINATION_PROVIDER,
  failureNames,
  fullWords,
  isWriteRefusal,
  reconnectWords,
  throttledBy,
} from "../providers/failure-words.ts";
import type { AccountFacts, HealthFacts, ThrottledFacts } from "./health.facts.ts";
import { CAUSES, FIXES } from "./health.words.ts";

/**
 * The state of each destination the user's accounts use (issue 38 with issue 36): Google Drive
 * (also before any account is connected) and each Dropbox, OneDrive or S3 storage an account is
 * backed up to, each from its own connection and the failures recorded in its own words.
 */

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);
const earliest = (ds: Date[]) => new Date(Math.min(...ds.map((d) => +d)));

/** Where an account's backups go. */
export const destinationOf = (a: Pick<AccountFacts, "destination">): DestinationKind =>
  a.destination ?? "google_drive";

/** What a backup refused for want of space records, per destination. */
const FULL_WORDS: Record<DestinationKind, string> = {
  google_drive: syncMessages.driveFull,
  ...fullWords,
};

/**
 * Failures the destination's own state explains (full, access ended, not connected), not the
 * account's: the account is not called failing for them.
 */
const DESTINATION_WORDS = new Set<string>([
  ...Object.values(FULL_WORDS),
  syncMessages.googleNotConnected,
  reconnectWords.google,
  reconnectWords.dropbox,
  reconnectWords.onedrive,
  reconnectWords.s3,
  ...Object.values(connectFirstWords),
]);
export const isDestinationWords = (s: string | null) =>
  !!s && (DESTINATION_WORDS.has(s) || /Google Drive access/i.test(s));

/** The destinations the accounts use, in the usual order; Drive alone before any account. */
export function usedDestinations(f: Pick<HealthFacts, "accounts">): DestinationKind[] {
  if (f.accounts.length === 0) return ["google_drive"];
  // The accounts backed up now; those a plan paused count only when every account is paused.
  const synced = f.accounts.filter((a) => !a.paused_by_plan);
  const used = new Set((synced.length > 0 ? synced : f.accounts).map(destinationOf));
  return DESTINATION_KINDS.filter((k) => used.has(k));
}

/**
 * Backups waiting for `who`'s limit, marked after the last backup that completed: a backup
 * taken since means the limit let go, and the waiting ones are retried on their own.
 */
export function waitingFor(
  f: HealthFacts,
  who: string,
  accountId?: string,
  lastCompleted: Date | null = f.lastCompletedAt,
) {
  return (f.throttled ?? []).filter(
    (x: ThrottledFacts) =>
      throttledBy(x.message) === who &&
      (accountId === undefined || x.accountId === accountId) &&
      (lastCompleted === null || +x.latestAt > +lastCompleted),
  );
}

/** When the destination last took a backup (any destination's when not known per destination). */
const lastCompletedOf = (kind: DestinationKind, f: HealthFacts): Date | null =>
  f.lastCompletedBy ? (f.lastCompletedBy[kind] ?? null) : f.lastCompletedAt;

/** The connection of one destination, as the health reads it. */
function connectionOf(kind: DestinationKind, f: HealthFacts) {
  if (kind === "google_drive") {
    return f.drive
      ? { label: f.drive.google_email, status: f.drive.status, ...pickWhy(f.drive) }
      : undefined;
  }
  const row = (f.storage ?? []).find((s) => s.kind === kind);
  return row ? { label: row.label, status: row.status, ...pickWhy(row) } : undefined;
}
const pickWhy = (r: { status_reason: string | null; updated_at: Date }) => ({
  reason: r.status_reason,
  updatedAt: r.updated_at,
});

/** One destination's state, with its cause and fix in words that name it. */
export function destinationHealthOf(kind: DestinationKind, f: HealthFacts): DestinationHealth {
  const conn = connectionOf(kind, f);
  const base = { kind, label: conn?.label ?? null };
  if (!conn) {
    const users = f.accounts.filter((a) => destinationOf(a) === kind).map((a) => a.username);
    return {
      ...base,
      state: "not_connected",
      cause: CAUSES.destinationNotConnected(kind, users),
      fix: FIXES.connectDestination(kind),
      since: null,
    };
  }
  if (conn.status === "needs_reconnection") {
    return {
      ...base,
      state: "needs_reconnection",
      cause: CAUSES.destinationRevoked(kind, conn.reason),
      fix: FIXES.reconnectDestination(kind),
      since: iso(conn.updatedAt),
    };
  }
  // It refused a backup for want of space and took none since: nothing fits.
  const took = lastCompletedOf(kind, f);
  const full = f.failures.filter(
    (x) => x.latest === FULL_WORDS[kind] && (took === null || +x.latestAt > +took),
  );
  if (full.length > 0) {
    return {
      ...base,
      state: "full",
      cause: CAUSES.destinationFull(kind),
      fix: FIXES.destinationStorage(kind),
      since: iso(earliest(full.map((x) => x.since))),
    };
  }
  // Backups of the accounts backed up there failed with its words (Retry, or the next sync).
  const users = new Set(f.accounts.filter((a) => destinationOf(a) === kind).map((a) => a.id));
  const failing = f.failures.filter(
    (x) => users.has(x.accountId) && failureNames(x.latest, DESTINATION_PROVIDER[kind]),
  );
  if (failing.length > 0) {
    const newest = failing.reduce((a, b) => (+b.latestAt > +a.latestAt ? b : a));
    return {
      ...base,
      state: "failing",
      cause: CAUSES.destinationFailing(
        kind,
        failing.reduce((n, x) => n + x.failed, 0),
        newest.latest,
      ),
      // Refused writes are fixed in Settings (the words say where); anything else by a retry.
      fix: !isWriteRefusal(newest.latest)
        ? FIXES.retryFailed
        : kind === "s3"
          ? FIXES.destinationStorage(kind)
          : FIXES.reconnectDestination(kind),
      since: iso(earliest(failing.map((x) => x.since))),
    };
  }
  // It limits Keepsake's writes: the backups wait and are retried; nothing to do.
  const limited = waitingFor(f, DESTINATION_PROVIDER[kind], undefined, took);
  if (limited.length > 0) {
    return {
      ...base,
      state: "throttled",
      cause: CAUSES.destinationThrottled(
        kind,
        limited.reduce((n, x) => n + x.waiting, 0),
      ),
      fix: FIXES.seeWaiting,
      since: iso(earliest(limited.map((x) => x.since))),
    };
  }
  return { ...base, state: "ok", cause: null, fix: null, since: null };
}

/** Every destination the accounts use (Drive before any account), each with its state. */
export function destinationsHealth(f: HealthFacts): DestinationHealth[] {
  return usedDestinations(f).map((k) => destinationHealthOf(k, f));
}

/** Google Drive's state (the one destination before issue 38). */
export const destinationHealth = (f: HealthFacts) => destinationHealthOf("google_drive", f);

/** States that stop every backup to the destination until the user acts. */
export const isBroken = (d: DestinationHealth) =>
  d.state === "not_connected" || d.state === "needs_reconnection" || d.state === "full";

/** "Google Drive", "Dropbox"…, as a headline names it. */
export const labelOf = (kind: DestinationKind) => DESTINATION_LABELS[kind];
