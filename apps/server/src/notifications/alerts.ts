import type { Clock } from "../lib/clock.ts";
import type { ServiceLog } from "../lib/log.ts";
import { asError } from "../lib/log.ts";
import { type AlertResolution, alertCause } from "./alert-resolution.ts";
import type { AlertSources, BillingEvent, FailedBackup, LostConnection } from "./alert-sources.ts";
import { bytesWords, dateWords, day, isoWeek } from "./alert-words.ts";
import type { NotificationsRepository } from "./notifications.repository.ts";
import { type Alert, type NotificationsService, shortHash } from "./notifications.service.ts";

const DAY_MS = 24 * 3600 * 1000;
/** Where each fix is. */
export const FIX = {
  connections: "/settings?tab=connections",
  subscription: "/settings?tab=subscription",
  backups: "/backups",
  dashboard: "/dashboard",
  driveStorage: "https://drive.google.com/settings/storage",
} as const;

export interface AlertsDeps {
  notifications: NotificationsService;
  /** Resolves the alerts whose cause was fixed (each check runs it first). */
  resolution?: AlertResolution;
  repo: NotificationsRepository;
  sources: AlertSources;
  clock: Clock;
  log?: ServiceLog;
}

/** Reasons whose own alert covers them (a connection alert), left out of the daily summary. */
const COVERED = new Set(["google_revoked", "instagram_revoked", "google_not_connected", "gone"]);

/**
 * Detects the events users are told about and words them: hooks the other areas call when
 * something happens (a connection ended, a backup failed for good, a Stripe event), and the
 * periodic checks of the `alerts-check` and `weekly-digest` jobs. Every alert has a key that
 * names its event, so detecting it again adds nothing.
 */
export function createAlerts(deps: AlertsDeps) {
  const { notifications, repo, sources, clock } = deps;
  const safe =
    <A extends unknown[]>(what: string, fn: (...args: A) => Promise<unknown>) =>
    async (...args: A): Promise<void> => {
      try {
        await fn(...args);
      } catch (err) {
        // An alert never fails the work that reported it; the periodic checks catch up.
        deps.log?.error({ err: asError(err) }, `alert (${what}) failed`);
      }
    };

  async function connectionLost(c: LostConnection) {
    const google = c.provider === "google";
    let key = `alert:connection:${c.provider}:${c.subjectId}:${c.grant}`;
    // The same grant refused again after its alert was resolved is a new event.
    const told = await notifications.byKey(key);
    if (told?.resolved_at) key = `${key}:after:${new Date(told.resolved_at).getTime()}`;
    const alert: Alert = {
      key,
      cause: alertCause.connection(c.provider, c.subjectId),
      category: "alert_connection",
      title: google
        ? "Reconnect Google Drive: your backups have stopped"
        : `Reconnect ${c.label}: its backups have stopped`,
      paragraphs: [
        c.reason,
        google
          ? `Keepsake can no longer write to the Google Drive of ${c.label}. Until you reconnect it, nothing is backed up — and stories disappear from Instagram after 24 hours.`
          : `Keepsake can no longer read ${c.label} on Instagram. Until you reconnect it, its new posts and stories are not backed up — and stories disappear after 24 hours.`,
        "Reconnecting takes a minute: Settings → Connected Accounts. Backups resume on their own.",
      ],
      action: { label: "Reconnect", path: FIX.connections },
    };
    await notifications.notify(c.userId, alert);
  }

  async function backupFailed(f: FailedBackup) {
    if (COVERED.has(f.reason)) return;
    const owner = await sources.accountOwner(f.accountId);
    if (!owner) return;
    const now = clock.now();
    if (f.reason === "drive_full") {
      await notifications.notify(owner.user_id, {
        key: `alert:drive-full:${owner.user_id}:${day(now)}`,
        cause: alertCause.driveFull(owner.user_id),
        category: "alert_drive_full",
        title: "Your Google Drive is full: backups are on hold",
        paragraphs: [
          "Google Drive refused a backup because your storage is full or over its quota.",
          "Free up space in Google Drive (or add storage with Google One), then press Retry on the Backups page — or wait for the next automatic sync, which tries again.",
        ],
        action: { label: "Manage Drive storage", path: FIX.driveStorage },
      });
      return;
    }
    await repo.recordBackupFailure({
      post_id: f.postId,
      account_id: f.accountId,
      user_id: owner.user_id,
      reason: f.reason,
      message: f.message,
      failed_at: now,
    });
  }

  /** The day's one summary per account of backups that failed for good. */
  async function summariseFailures(now: Date): Promise<number> {
    let sent = 0;
    for (const { account_id, user_id } of await repo.accountsWithFailures(now)) {
      const owner = await sources.accountOwner(account_id);
      if (!owner) {
        await repo.clearNamedFailures(await repo.failuresOf(account_id, now));
        continue;
      }
      const key = `alert:backup-failures:${account_id}:${day(now)}`;
      const existing = await notifications.byKey(key);
      if (existing) {
        // Today's summary went out: what it covered is done; what failed since waits for tomorrow.
        await repo.clearFailuresBefore(account_id, new Date(existing.created_at));
        continue;
      }
      const failures = await repo.failuresOf(account_id, now);
      if (failures.length === 0) continue;
      const byMessage = new Map<string, number>();
      for (const f of failures) byMessage.set(f.message, (byMessage.get(f.message) ?? 0) + 1);
      const n = failures.length;
      const r = await notifications.notify(user_id, {
        key,
        cause: alertCause.backupFailures(account_id, day(now)),
        category: "alert_backup_failures",
        title: `${n} ${n === 1 ? "backup" : "backups"} of @${owner.username} failed`,
        paragraphs: [
          `${n} ${n === 1 ? "post" : "posts"} of @${owner.username} could not be backed up after several attempts.`,
          "Most failures are temporary: press Retry all on the Backups page, or let the next sync try again. If it keeps failing, reconnecting the account in Settings → Connected Accounts usually fixes it.",
        ],
        items: [...byMessage].map(([m, c]) => (c > 1 ? `${c} × ${m}` : m)),
        action: { label: "Retry failed backups", path: FIX.backups },
      });
      await repo.clearNamedFailures(failures);
      if (r.created) sent++;
    }
    return sent;
  }

  /** Instagram tokens that will end within 7 days and that Keepsake cannot renew. */
  async function expiringTokens(now: Date): Promise<number> {
    let sent = 0;
    const rows = await sources.expiringTokens(now, new Date(now.getTime() + 7 * DAY_MS));
    for (const a of rows) {
      if (!a.token_expires_at) continue;
      const expires = new Date(a.token_expires_at);
      // Instagram Login tokens are renewed by the refresh job (every 6 h, once ≥ 24 h old and
      // within 7 days): still this close after two of its runs means renewal is not working.
      if (a.connected_via === "instagram") {
        const issued = new Date(a.token_issued_at).getTime();
        const renewable = now.getTime() - issued >= DAY_MS;
        if (!renewable || expires.getTime() - now.getTime() > 7 * DAY_MS - 12 * 3600 * 1000)
          continue;
      }
      const r = await notifications.notify(a.user_id, {
        key: `alert:token-expiring:${a.id}:${expires.toISOString()}`,
        cause: alertCause.tokenExpiring(a.id),
        category: "alert_connection",
        title: `Reconnect @${a.username} before ${dateWords(expires)}`,
        paragraphs: [
          `Keepsake's access to @${a.username} ends on ${dateWords(expires)} and cannot be renewed automatically${a.connected_via === "facebook" ? " (accounts connected through Facebook need you to sign in again)" : ""}.`,
          "Reconnect the account before then so its backups don't stop.",
        ],
        action: { label: "Reconnect", path: FIX.connections },
      });
      if (r.created) sent++;
    }
    return sent;
  }

  /** Accounts on a paid plan without a successful sync for 24 hours. */
  async function staleSyncs(now: Date): Promise<number> {
    let sent = 0;
    for (const a of await sources.staleAccounts(new Date(now.getTime() - DAY_MS))) {
      const since = a.last_sync_at ? new Date(a.last_sync_at) : null;
      const r = await notifications.notify(a.user_id, {
        key: `alert:sync-stale:${a.id}:${since ? since.toISOString() : `never:${new Date(a.connected_at).toISOString()}`}`,
        cause: alertCause.syncStale(a.id),
        category: "alert_sync_stale",
        title: `@${a.username} hasn't been backed up for a day`,
        paragraphs: [
          since
            ? `The last successful backup sync of @${a.username} was on ${dateWords(since)}. Automatic backups run every 10 minutes on your plan, so something is holding them up.`
            : `@${a.username} has not completed a backup sync since it was connected. Automatic backups run every 10 minutes on your plan, so something is holding them up.`,
          "Check the connection of the account and of Google Drive, then press Backup now on the dashboard.",
        ],
        action: { label: "Open dashboard", path: FIX.dashboard },
      });
      if (r.created) sent++;
    }
    return sent;
  }

  /** Stories whose 24 hours ended before they were backed up (one alert per account per check). */
  async function lostStories(now: Date): Promise<number> {
    const rows = await sources.expiredStories(new Date(now.getTime() - 7 * DAY_MS), now);
    const byAccount = new Map<string, typeof rows>();
    for (const r of rows) byAccount.set(r.account_id, [...(byAccount.get(r.account_id) ?? []), r]);
    let sent = 0;
    for (const [accountId, stories] of byAccount) {
      const ids = stories.map((s) => s.post_id).sort();
      const marked = await repo.mark("story-lost", ids, now);
      const fresh = stories.filter((s) => marked.has(s.post_id));
      if (fresh.length === 0) continue;
      const owner = await sources.accountOwner(accountId);
      if (!owner) continue;
      const n = fresh.length;
      try {
        const r = await notifications.notify(owner.user_id, {
          key: `alert:stories-lost:${accountId}:${shortHash(fresh.map((s) => s.post_id).join(","))}`,
          category: "alert_stories",
          title: `${n} ${n === 1 ? "story" : "stories"} of @${owner.username} expired before ${n === 1 ? "it" : "they"} could be saved`,
          paragraphs: [
            `Instagram removes stories after 24 hours, and ${n === 1 ? "this one" : `these ${n}`} could not be backed up in time. They can no longer be saved.`,
            "To keep the next ones, make sure the account and Google Drive stay connected and your Drive has room.",
          ],
          items: fresh.map(
            (s) =>
              `Story posted ${new Date(s.posted_at).toISOString().slice(0, 16).replace("T", " ")} UTC${s.error_message ? ` — ${s.error_message}` : ""}`,
          ),
          action: { label: "View backups", path: FIX.backups },
        });
        if (r.created) sent++;
      } catch (err) {
        // Not told: let the next check try again.
        await repo.unmark(
          "story-lost",
          fresh.map((s) => s.post_id),
        );
        throw err;
      }
    }
    return sent;
  }

  async function billingEvent(e: BillingEvent) {
    if (e.type === "invoice.payment_failed") {
      const until = e.periodEnd ? ` until ${dateWords(e.periodEnd)}` : "";
      await notifications.notify(e.userId, {
        key: `alert:payment-failed:${e.eventId}`,
        category: "alert_billing",
        title: "Your Keepsake payment failed",
        paragraphs: [
          `We couldn't charge your card for your ${e.after} plan. Your plan keeps running${until} while Stripe tries again over the next days.`,
          "If every retry fails, the subscription ends and your plan returns to Free: automatic backups stop, and accounts beyond the free plan's one are paused. Update your payment method to keep everything running.",
        ],
        action: { label: "Update payment method", path: FIX.subscription },
      });
    }
    if (e.after !== e.before) {
      await notifications.notify(e.userId, {
        key: `alert:plan-changed:${e.eventId}`,
        category: "alert_billing",
        title: `Your plan is now ${e.after[0]?.toUpperCase()}${e.after.slice(1)}`,
        paragraphs: [
          `Your Keepsake plan changed from ${e.before} to ${e.after}.`,
          e.after === "free"
            ? "Automatic backups have stopped; press Backup now on the dashboard whenever you want a backup."
            : "Your plan's limits apply now.",
        ],
        action: { label: "View subscription", path: FIX.subscription },
      });
      const paused = await sources.pausedAccounts(e.userId);
      if (paused.length > 0) {
        await notifications.notify(e.userId, {
          key: `alert:accounts-paused:${e.eventId}`,
          category: "alert_billing",
          title: `${paused.length} ${paused.length === 1 ? "account is" : "accounts are"} paused on your ${e.after} plan`,
          paragraphs: [
            `Your ${e.after} plan includes fewer Instagram accounts than you have connected, so backups of ${paused.map((u) => `@${u}`).join(", ")} are paused. Nothing already in your Drive is touched.`,
            "Choose which account to keep in Settings → Connected Accounts, or upgrade to resume them all.",
          ],
          items: paused.map((u) => `@${u}`),
          action: { label: "Choose accounts", path: FIX.connections },
        });
      }
    }
  }

  async function weeklyDigest(now: Date): Promise<number> {
    const week = isoWeek(now);
    let sent = 0;
    for (const userId of await sources.digestUsers()) {
      if (!(await sources.mayReceiveDigest(userId))) continue;
      const s = await sources.userSummary(userId, new Date(now.getTime() - 7 * DAY_MS));
      const actions = await sources.connectionActions(userId);
      const attention = [
        ...actions,
        ...(s.failed_total > 0
          ? [`${s.failed_total} failed ${s.failed_total === 1 ? "backup" : "backups"} to retry`]
          : []),
      ];
      const r = await notifications.mailOnly(userId, `digest:${userId}:${week}`, "digest-weekly", {
        title: "Your Keepsake week",
        paragraphs: [
          `This week Keepsake backed up ${s.backed_up_since} ${s.backed_up_since === 1 ? "post" : "posts"} into your Google Drive.`,
          `In all, ${s.completed_total} ${s.completed_total === 1 ? "post is" : "posts are"} safe in your Drive, using ${bytesWords(s.bytes_total)}.`,
          attention.length > 0
            ? "Needs your attention:"
            : "Nothing needs your attention: everything is running.",
        ],
        items: attention,
        action: { label: "Open dashboard", path: FIX.dashboard },
      });
      if (r.id !== null && r.created) sent++;
    }
    return sent;
  }

  return {
    /** Hooks for the other areas (never throw: an alert does not fail the work that reported it). */
    connectionLost: safe("connection", connectionLost),
    backupFailed: safe("backup", backupFailed),
    billingEvent: safe("billing", billingEvent),

    /** The periodic checks (the `alerts-check` job): each event once, however often it runs. */
    async check() {
      const now = clock.now();
      return {
        resolved: (await deps.resolution?.reconcile(now)) ?? 0,
        expiring_tokens: await expiringTokens(now),
        stale_syncs: await staleSyncs(now),
        failure_summaries: await summariseFailures(now),
        lost_stories: await lostStories(now),
      };
    },

    /** The `weekly-digest` job: one e-mail per user who turned it on, per ISO week. */
    weeklyDigest: () => weeklyDigest(clock.now()),
  };
}

export type Alerts = ReturnType<typeof createAlerts>;
