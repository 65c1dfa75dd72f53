import { CONNECTION_REASONS, fullReason } from "../../backups/index.ts";
import { CAUSES, FIXES } from "../../health/index.ts";
import { DESTINATION_PROVIDER, failureNames } from "../../providers/failure-words.ts";
import { day } from "../alert-words.ts";
import { type AlertContext, alertKind, defineAlert } from "./define.ts";

/**
 * Backups that failed for good: the backups area reports each one (recorded in
 * `notification_backup_failures`), and the `alerts-check` job sends one summary per account
 * per day (later failures wait for the next day). Its first line is the health state's
 * "failing" cause, read from the same failed backups the dashboard counts.
 */
const kind = alertKind("alert_backup_failures", "alert-backup-failures", {
  label: "Failing backups",
  why: "You are receiving this e-mail because backups of one of your accounts keep failing (at most one such e-mail per account per day).",
  setting: {
    label: "Failing backups",
    description:
      "Backups that keep failing on an account: at most one e-mail per account per day, with what failed.",
  },
});

export const backupFailuresCause = (accountId: string, today: string) =>
  `backup-failures:${accountId}:${today}`;

/** Reasons whose own alert covers them (a connection alert, a full destination), left out of the summary. */
const COVERED = new Set([
  ...CONNECTION_REASONS,
  ...(["google_drive", "dropbox", "onedrive", "s3"] as const).map(fullReason),
]);

/** The day's one summary per account of backups that failed for good. */
async function summariseFailures(ctx: AlertContext, now: Date): Promise<number> {
  const { repo, sources } = ctx;
  let sent = 0;
  for (const { account_id, user_id } of await repo.accountsWithFailures(now)) {
    const owner = await sources.accountOwner(account_id);
    if (!owner) {
      await repo.clearNamedFailures(await repo.failuresOf(account_id, now));
      continue;
    }
    const key = `alert:backup-failures:${account_id}:${day(now)}`;
    const existing = await ctx.byKey(key);
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
    // The dashboard's words for the account: its failed backups now and the newest failure's
    // words; the summary's own when the backups area holds none failed any more.
    const state = (await sources.failures(user_id)).find((f) => f.accountId === account_id);
    const cause = state
      ? CAUSES.accountFailing(owner.username, state.failed, state.latest)
      : CAUSES.accountFailing(owner.username, n, failures[failures.length - 1]?.message ?? null);
    // Failures in the words of the account's destination: its health state ("failing").
    const destination = owner.destination ?? "google_drive";
    const latest = state?.latest ?? failures[failures.length - 1]?.message ?? null;
    const theirs = failureNames(latest, DESTINATION_PROVIDER[destination])
      ? [CAUSES.destinationFailing(destination, state?.failed ?? n, latest)]
      : [];
    const r = await ctx.notify(user_id, {
      key,
      cause: backupFailuresCause(account_id, day(now)),
      kind,
      title: `${n} ${n === 1 ? "backup" : "backups"} of @${owner.username} failed`,
      paragraphs: [
        // Failures in its destination's words are that destination's state (health "failing").
        theirs[0] ?? cause,
        `${n} ${n === 1 ? "post" : "posts"} of @${owner.username} could not be backed up after several attempts.`,
        "Most failures are temporary: press Retry all on the Backups page, or let the next sync try again. If it keeps failing, reconnecting the account in Settings → Connected Accounts usually fixes it.",
      ],
      items: [...byMessage].map(([m, c]) => (c > 1 ? `${c} × ${m}` : m)),
      action: FIXES.retryFailed,
    });
    await repo.clearNamedFailures(failures);
    if (r.created) sent++;
  }
  return sent;
}

export const backupFailuresAlert = defineAlert({
  kind,
  hooks: {
    async backupFailed(f, ctx) {
      if (COVERED.has(f.reason)) return;
      const owner = await ctx.sources.accountOwner(f.accountId);
      if (!owner) return;
      await ctx.repo.recordBackupFailure({
        post_id: f.postId,
        account_id: f.accountId,
        user_id: owner.user_id,
        reason: f.reason,
        message: f.message,
        failed_at: ctx.clock.now(),
      });
    },
  },
  check: { name: "failure_summaries", run: summariseFailures },
  /** A day's summary is resolved once none of the account's backups is failed. */
  async fixed(ctx) {
    const fixed: string[] = [];
    for (const a of await ctx.openAlerts("backup-failures:")) {
      const accountId = a.cause.split(":")[1] ?? "";
      if ((await ctx.sources.failedBackupsOf(accountId)) === 0) fixed.push(a.cause);
    }
    return fixed;
  },
});
