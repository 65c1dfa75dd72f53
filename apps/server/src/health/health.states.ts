import type { AccountHealth, PlanHealth } from "@keepsake/contracts";
import { DESTINATION_PROVIDER, failureNames, throttledBy } from "../providers/failure-words.ts";
import {
  destinationHealth,
  destinationOf,
  isDestinationWords,
  waitingFor,
} from "./health.destinations.ts";
import type { AccountFacts, HealthFacts } from "./health.facts.ts";
import { CAUSES, FIXES } from "./health.words.ts";

/**
 * The state of each destination, account and the plan (issue 36), with its cause and fix;
 * health.rules.ts puts them together. Pure: the facts are read by the service.
 */

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);
const earliest = (ds: Date[]) => new Date(Math.min(...ds.map((d) => +d)));

export { destinationHealth };

/** The account's latest finished sync, when Instagram's limit ended it (and none ran since). */
function throttledSync(a: AccountFacts, f: HealthFacts) {
  const latest = (f.recentRuns ?? []).find(
    (r) => r.account_id === a.id && r.status !== "running" && r.status !== "cancelled",
  );
  return latest?.status === "failed" && throttledBy(latest.error_message) === "instagram"
    ? latest
    : null;
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
  // Failures the destination explains (full, access ended, its own errors) are its state's.
  const theirs =
    failing &&
    (isDestinationWords(failing.latest) ||
      failureNames(failing.latest, DESTINATION_PROVIDER[destinationOf(a)]));
  if (failing && !theirs) {
    return {
      ...base,
      state: "failing",
      cause: CAUSES.accountFailing(a.username, failing.failed, failing.latest),
      fix: FIXES.retryFailed,
      since: iso(failing.since),
    };
  }
  // Instagram limits Keepsake's requests: backups wait for it, or it ended the last sync.
  const limited = waitingFor(f, "instagram", a.id);
  const sync = limited.length === 0 ? throttledSync(a, f) : null;
  if (limited.length > 0 || sync) {
    const since = sync ? sync.completed_at : iso(earliest(limited.map((x) => x.since)));
    return {
      ...base,
      state: "throttled",
      cause: CAUSES.accountThrottled(
        a.username,
        limited.reduce((n, x) => n + x.waiting, 0),
      ),
      fix: limited.length > 0 ? FIXES.seeWaiting : null,
      since: since ?? null,
    };
  }
  const lost = f.lostStories?.find((x) => x.accountId === a.id);
  if (lost) {
    return {
      ...base,
      state: "stories_lost",
      cause: CAUSES.storiesLost(a.username, lost.lost),
      fix: FIXES.viewBackups,
      since: iso(lost.since),
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
  const stale = f.stale?.find((x) => x.id === a.id);
  if (stale) {
    const last = stale.last_sync_at ? new Date(stale.last_sync_at) : null;
    return {
      ...base,
      state: "stale",
      cause: CAUSES.syncStale(a.username, last),
      fix: FIXES.backupNow,
      since: iso(last ?? stale.connected_at),
    };
  }
  return { ...base, state: "ok", cause: null, fix: null, since: null };
}

/** The plan: a payment Stripe could not take, while it retries and the plan still runs. */
export function planHealth(f: HealthFacts): PlanHealth {
  if (!f.payment) return { state: "ok", cause: null, fix: null, since: null };
  return {
    state: "payment_failed",
    cause: CAUSES.paymentFailed(f.payment.tier, f.payment.periodEnd),
    fix: FIXES.updatePayment,
    since: iso(f.payment.since),
  };
}
