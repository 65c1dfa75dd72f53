import type { HealthFix } from "@keepsake/contracts";

/**
 * The words of each cause a health state names, and where its fix is (issue 36). The health
 * rules (health.rules.ts) word every screen's state with them, and the alerts
 * (notifications/alerts/) word the bell and the e-mails with the same ones, so a message never
 * says something the dashboard does not.
 */

/** Where each fix is done. */
export const FIXES = {
  connectInstagram: { label: "Connect Instagram", path: "/settings?tab=connections" },
  connectDrive: { label: "Connect Google Drive", path: "/settings?tab=connections" },
  reconnectDrive: { label: "Reconnect Google Drive", path: "/settings?tab=connections" },
  reconnect: (username: string) => ({
    label: `Reconnect @${username}`,
    path: "/settings?tab=connections",
  }),
  chooseAccounts: { label: "Choose accounts", path: "/settings?tab=connections" },
  driveStorage: { label: "Free up Drive space", path: "https://drive.google.com/settings/storage" },
  retryFailed: { label: "Retry failed backups", path: "/backups?filter=failed" },
  /** Nothing to do (a provider's limit): where the waiting backups are seen. */
  seeWaiting: { label: "See waiting backups", path: "/backups?filter=pending" },
  /** The dashboard's own button (SPEC §2 "Backup now" on paid plans). */
  backupNow: { label: "Backup now", path: "/dashboard" },
  viewBackups: { label: "View backups", path: "/backups" },
  updatePayment: { label: "Update payment method", path: "/settings?tab=subscription" },
} as const satisfies Record<string, HealthFix | ((u: string) => HealthFix)>;

export const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** A day as people read it ("November 30, 2026"). */
export const dateWords = (d: Date) =>
  d.toLocaleDateString("en-US", {
    month: "long",
    day: "numeric",
    year: "numeric",
    timeZone: "UTC",
  });

/** Each cause in words. */
export const CAUSES = {
  driveNotConnected: "Google Drive is not connected: backups have nowhere to go.",
  /** Google refused or ended the grant: its own words when the connection kept them. */
  driveRevoked: (reason: string | null) => reason ?? "Google Drive access was revoked or expired.",
  driveFull: "Your Google Drive is full: new backups are refused until there is space.",
  accountPaused: (username: string) =>
    `Backups of @${username} are paused: your plan includes fewer accounts.`,
  /** Instagram refused or ended the token: its own words when the connection kept them. */
  accountRevoked: (username: string, reason: string | null) =>
    reason ?? `Instagram access for @${username} expired or was revoked.`,
  accountFailing: (username: string, failed: number, latest: string | null) =>
    `${plural(failed, "backup", "backups")} of @${username} failed${latest ? `: ${latest}` : "."}`,
  tokenExpiring: (username: string, expires: Date) =>
    `Access to @${username} ends on ${dateWords(expires)} and cannot be renewed automatically.`,
  /** Google Drive limits how fast Keepsake writes: it waits and retries by itself. */
  driveThrottled: (waiting: number) =>
    `Google Drive is limiting how fast Keepsake can write: ${plural(waiting, "backup waits", "backups wait")} and Keepsake retries on its own. Nothing to do.`,
  /** Instagram limits Keepsake's requests (backups waiting, or the last sync refused). */
  accountThrottled: (username: string, waiting: number) =>
    waiting > 0
      ? `Instagram is limiting requests for @${username}: ${plural(waiting, "backup waits", "backups wait")} and Keepsake retries on its own. Nothing to do.`
      : `Instagram is limiting requests for @${username}: Keepsake tries again at the next sync. Nothing to do.`,
  /** A paid plan's automatic backups of the account have not completed a sync for a day. */
  syncStale: (username: string, lastSync: Date | null) =>
    lastSync
      ? `The last successful backup sync of @${username} was on ${dateWords(lastSync)}. Automatic backups run every 10 minutes on your plan, so something is holding them up.`
      : `@${username} has not completed a backup sync since it was connected. Automatic backups run every 10 minutes on your plan, so something is holding them up.`,
  storiesLost: (username: string, lost: number) =>
    `${lost === 1 ? "A story" : `${lost} stories`} of @${username} expired before Keepsake could save ${lost === 1 ? "it" : "them"}: Instagram removes stories after 24 hours, so ${lost === 1 ? "it" : "they"} can no longer be saved.`,
  /** Stripe could not charge the card and retries; the plan runs meanwhile. */
  paymentFailed: (tier: string, until: Date | null) =>
    `We couldn't charge your card for your ${tier} plan. Your plan keeps running${until ? ` until ${dateWords(until)}` : ""} while Stripe tries again over the next days.`,
} as const;
