import { DESTINATION_LABELS, type DestinationKind, type HealthFix } from "@keepsake/contracts";

/**
 * The words of each cause a health state names, and where its fix is (issue 36). The health
 * rules (health.rules.ts) word every screen's state with them, and the alerts
 * (notifications/alerts/) word the bell and the e-mails with the same ones, so a message never
 * says something the dashboard does not.
 */

const FIXES_DRIVE = {
  connect: { label: "Connect Google Drive", path: "/settings?tab=connections" },
  reconnect: { label: "Reconnect Google Drive", path: "/settings?tab=connections" },
  storage: { label: "Free up Drive space", path: "https://drive.google.com/settings/storage" },
} as const;

/** Where each fix is done. */
export const FIXES = {
  connectInstagram: { label: "Connect Instagram", path: "/settings?tab=connections" },
  connectDrive: FIXES_DRIVE.connect,
  reconnectDrive: FIXES_DRIVE.reconnect,
  reconnect: (username: string) => ({
    label: `Reconnect @${username}`,
    path: "/settings?tab=connections",
  }),
  chooseAccounts: { label: "Choose accounts", path: "/settings?tab=connections" },
  driveStorage: FIXES_DRIVE.storage,
  retryFailed: { label: "Retry failed backups", path: "/backups?filter=failed" },
  /** Nothing to do (a provider's limit): where the waiting backups are seen. */
  seeWaiting: { label: "See waiting backups", path: "/backups?filter=pending" },
  /** The dashboard's own button (SPEC §2 "Backup now" on paid plans). */
  backupNow: { label: "Backup now", path: "/dashboard" },
  viewBackups: { label: "View backups", path: "/backups" },
  updatePayment: { label: "Update payment method", path: "/settings?tab=subscription" },
  /** A destination's connection (Settings → Connected Accounts → Storage); Drive's as above. */
  connectDestination: (kind: DestinationKind): HealthFix =>
    kind === "google_drive"
      ? FIXES_DRIVE.connect
      : {
          label: kind === "s3" ? "Connect S3 storage" : `Connect ${DESTINATION_LABELS[kind]}`,
          path: "/settings?tab=connections",
        },
  reconnectDestination: (kind: DestinationKind): HealthFix =>
    kind === "google_drive"
      ? FIXES_DRIVE.reconnect
      : kind === "s3"
        ? { label: "Enter new S3 keys", path: "/settings?tab=connections" }
        : { label: `Reconnect ${DESTINATION_LABELS[kind]}`, path: "/settings?tab=connections" },
  /** Where a full destination gets room: the provider's storage page (S3: the bucket's settings). */
  destinationStorage: (kind: DestinationKind): HealthFix =>
    kind === "google_drive"
      ? FIXES_DRIVE.storage
      : kind === "dropbox"
        ? { label: "Free up Dropbox space", path: "https://www.dropbox.com/account/plan" }
        : kind === "onedrive"
          ? { label: "Free up OneDrive space", path: "https://onedrive.live.com/?v=managestorage" }
          : { label: "Check your S3 storage", path: "/settings?tab=connections" },
} as const satisfies Record<
  string,
  HealthFix | ((u: string) => HealthFix) | ((k: DestinationKind) => HealthFix)
>;

export const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** A day as people read it ("November 30, 2026"). */
export const dateWords = (d: Date) =>
  d.toLocaleDateString("en-US", {
    month: "long",
    day: "numeric",
    year: "numeric",
    timeZone: "UTC",
  });

const CAUSES_DRIVE = {
  notConnected: "Google Drive is not connected: backups have nowhere to go.",
  revoked: (reason: string | null) => reason ?? "Google Drive access was revoked or expired.",
  full: "Your Google Drive is full: new backups are refused until there is space.",
  throttled: (waiting: number) =>
    `Google Drive is limiting how fast Keepsake can write: ${plural(waiting, "backup waits", "backups wait")} and Keepsake retries on its own. Nothing to do.`,
};

const reconnectWordsOf = (kind: Exclude<DestinationKind, "google_drive">) =>
  kind === "s3"
    ? "The S3 storage no longer accepts Keepsake's access keys."
    : `${DESTINATION_LABELS[kind]} access was revoked or expired.`;

/** Each cause in words. */
export const CAUSES = {
  driveNotConnected: CAUSES_DRIVE.notConnected,
  /** Google refused or ended the grant: its own words when the connection kept them. */
  driveRevoked: CAUSES_DRIVE.revoked,
  driveFull: CAUSES_DRIVE.full,
  /** Another destination (Drive's words above): its label, its reason, its own fix. */
  destinationNotConnected: (kind: DestinationKind, usernames: string[] = []) =>
    kind === "google_drive"
      ? CAUSES_DRIVE.notConnected
      : `${DESTINATION_LABELS[kind]} is not connected: ${usernames.length > 0 ? `backups of ${usernames.map((u) => `@${u}`).join(", ")} go there and have` : "backups have"} nowhere to go until it is.`,
  destinationRevoked: (kind: DestinationKind, reason: string | null) =>
    kind === "google_drive" ? CAUSES_DRIVE.revoked(reason) : (reason ?? reconnectWordsOf(kind)),
  destinationFull: (kind: DestinationKind) =>
    kind === "google_drive"
      ? CAUSES_DRIVE.full
      : kind === "s3"
        ? "Your S3 storage is full (the bucket's quota is reached): new backups are refused until there is space."
        : `Your ${DESTINATION_LABELS[kind]} is full: new backups are refused until there is space.`,
  /** Backups to a destination failed with its words (it answered an error, or did not answer). */
  destinationFailing: (kind: DestinationKind, failed: number, latest: string | null) =>
    `${plural(failed, "backup", "backups")} to ${DESTINATION_LABELS[kind]} failed${latest ? `: ${latest}` : "."}`,
  destinationThrottled: (kind: DestinationKind, waiting: number) =>
    kind === "google_drive"
      ? CAUSES_DRIVE.throttled(waiting)
      : `${DESTINATION_LABELS[kind]} is limiting how fast Keepsake can write: ${plural(waiting, "backup waits", "backups wait")} and Keepsake retries on its own. Nothing to do.`,
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
  driveThrottled: CAUSES_DRIVE.throttled,
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
