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
} as const;
