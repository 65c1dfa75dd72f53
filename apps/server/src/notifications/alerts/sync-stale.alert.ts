import { CAUSES, FIXES } from "../../health/index.ts";
import { type AlertContext, alertKind, DAY_MS, defineAlert } from "./define.ts";

/** Accounts on a paid plan without a successful sync for 24 hours (the periodic check). */
const kind = alertKind("alert_sync_stale", "alert-sync-stale", {
  label: "Backups not running",
  why: "You are receiving this e-mail because one of your accounts has not been backed up for a day.",
  setting: {
    label: "Backups not running",
    description: "No successful sync for 24 hours on a paid plan.",
  },
});

export const syncStaleCause = (accountId: string) => `sync-stale:${accountId}`;

async function staleSyncs(ctx: AlertContext, now: Date): Promise<number> {
  let sent = 0;
  for (const a of await ctx.sources.staleAccounts(new Date(now.getTime() - DAY_MS))) {
    const since = a.last_sync_at ? new Date(a.last_sync_at) : null;
    const r = await ctx.notify(a.user_id, {
      key: `alert:sync-stale:${a.id}:${since ? since.toISOString() : `never:${new Date(a.connected_at).toISOString()}`}`,
      cause: syncStaleCause(a.id),
      kind,
      title: `@${a.username} hasn't been backed up for a day`,
      paragraphs: [
        // The health state's "stale" cause, from the same rows (its `stale` source).
        CAUSES.syncStale(a.username, since),
        `Check the connection of the account and of Google Drive, then press ${FIXES.backupNow.label} on the dashboard.`,
      ],
      action: FIXES.backupNow,
    });
    if (r.created) sent++;
  }
  return sent;
}

export const syncStaleAlert = defineAlert({
  kind,
  check: { name: "stale_syncs", run: staleSyncs },
  /** Resolved once the account synced successfully (or left the paid plans). */
  async fixed(ctx, now) {
    const stale = await ctx.openAlerts("sync-stale:");
    if (stale.length === 0) return [];
    const still = await ctx.sources.staleAccountIds(new Date(now.getTime() - DAY_MS));
    return stale.filter((a) => !still.has(a.cause.slice("sync-stale:".length))).map((a) => a.cause);
  },
});
