import type { NotificationsService } from "./notifications.service.ts";

/**
 * What each alert is about (its `cause`), without the event's details: one open alert per
 * cause, and the fix of the cause resolves it (issue 36).
 */
export const alertCause = {
  connection: (provider: "instagram" | "google", subjectId: string) =>
    `connection:${provider}:${subjectId}`,
  tokenExpiring: (accountId: string) => `token-expiring:${accountId}`,
  driveFull: (userId: string) => `drive-full:${userId}`,
  /** Each day's summary names new failures: a cause per day, resolved when none is left. */
  backupFailures: (accountId: string, day: string) => `backup-failures:${accountId}:${day}`,
  syncStale: (accountId: string) => `sync-stale:${accountId}`,
} as const;

/** What the periodic resolution reads of other areas (wired in context.ts). */
export interface ResolutionSources {
  /** How many of the account's backups are failed now. */
  failedBackupsOf(accountId: string): Promise<number>;
  /** Backups of the user completed since `since` (Drive took files again). */
  completedSince(userId: string, since: Date): Promise<number>;
  /** Paid accounts still without a successful sync since `before`. */
  staleAccountIds(before: Date): Promise<Set<string>>;
  /** Whether the connection still needs reconnecting (false once it works again or is gone). */
  stillNeedsReconnection(provider: "instagram" | "google", subjectId: string): Promise<boolean>;
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * Resolves alerts whose cause was fixed: at once when a connection works again (the hook), and
 * in the `alerts-check` job for causes only a later state shows (Drive took files again, no
 * failed backup left, a successful sync).
 */
export function createAlertResolution(deps: {
  notifications: Pick<NotificationsService, "resolve" | "openAlerts">;
  sources: ResolutionSources;
}) {
  const { notifications, sources } = deps;
  return {
    /**
     * A connection was made again (the OAuth callback): Google when `accountIds` is undefined,
     * else those Instagram accounts. Their open alerts are resolved at once.
     */
    async connectionsRestored(userId: string, accountIds: string[] | undefined): Promise<number> {
      const causes =
        accountIds === undefined
          ? [alertCause.connection("google", userId)]
          : accountIds.flatMap((id) => [
              alertCause.connection("instagram", id),
              alertCause.tokenExpiring(id),
            ]);
      return notifications.resolve(causes);
    },

    async reconcile(now: Date): Promise<number> {
      const fixed: string[] = [];
      for (const a of await notifications.openAlerts("connection:")) {
        const [, provider, subjectId] = a.cause.split(":");
        if (provider !== "instagram" && provider !== "google") continue;
        if (!(await sources.stillNeedsReconnection(provider, subjectId ?? ""))) fixed.push(a.cause);
      }
      for (const a of await notifications.openAlerts("drive-full:")) {
        if ((await sources.completedSince(a.user_id, new Date(a.created_at))) > 0)
          fixed.push(a.cause);
      }
      for (const a of await notifications.openAlerts("backup-failures:")) {
        const accountId = a.cause.split(":")[1] ?? "";
        if ((await sources.failedBackupsOf(accountId)) === 0) fixed.push(a.cause);
      }
      const stale = await notifications.openAlerts("sync-stale:");
      if (stale.length > 0) {
        const still = await sources.staleAccountIds(new Date(now.getTime() - DAY_MS));
        for (const a of stale) {
          if (!still.has(a.cause.slice("sync-stale:".length))) fixed.push(a.cause);
        }
      }
      return notifications.resolve(fixed);
    },
  };
}

export type AlertResolution = ReturnType<typeof createAlertResolution>;
