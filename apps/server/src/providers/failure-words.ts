import { ProviderError } from "./provider-error.ts";

/**
 * The one place a provider failure becomes the words a person reads: on the dashboard, in the
 * Backups list, after a connect attempt. Callers pick the situation; the wording lives here.
 */

const WHO = {
  instagram: "Instagram",
  facebook: "Instagram",
  google: "Google Drive",
  dropbox: "Dropbox",
  microsoft: "OneDrive",
  s3: "The S3 storage",
} as const;

/** A provider that did not answer (5xx, timeout, network), as it is said everywhere. */
export const notResponding = (who: string) => `${who} is not responding right now`;

/** The same, as a whole sentence telling the user what to do. */
export const notRespondingTryLater = (who: string) =>
  `${notResponding(who)}. Please try again in a few minutes.`;

/**
 * Access a provider ended (revoked or expired): what the user reads on a backup, a sync, the
 * media proxy. The one place reconnect wording lives.
 */
export const reconnectWords = {
  instagram: (username: string) =>
    `Instagram access for @${username} expired or was revoked. Reconnect the account in Settings to resume backups.`,
  google:
    "Google Drive access was revoked or expired. Reconnect Google Drive in Settings to resume backups.",
  dropbox:
    "Dropbox access was revoked or expired. Reconnect Dropbox in Settings to resume backups.",
  onedrive:
    "OneDrive access was revoked or expired. Reconnect OneDrive in Settings to resume backups.",
  s3: "The S3 storage no longer accepts Keepsake's access keys. Enter new keys in Settings to resume backups.",
} as const;

/** A destination the user never connected (or disconnected) while an account still points at it. */
export const connectFirstWords = {
  dropbox: "Connect Dropbox in Settings first: this account's backups go there.",
  onedrive: "Connect OneDrive in Settings first: this account's backups go there.",
  s3: "Connect your S3 storage in Settings first: this account's backups go there.",
} as const;

/** A provider limiting Keepsake's requests, as a backup waiting for it records it. */
export const limitingWords = (who: string) => `${who} is limiting requests right now`;

/** The provider a destination's failures are recorded under (ProviderError's `provider`). */
export const DESTINATION_PROVIDER = {
  google_drive: "google",
  dropbox: "dropbox",
  onedrive: "microsoft",
  s3: "s3",
} as const;
type Limited = "instagram" | (typeof DESTINATION_PROVIDER)[keyof typeof DESTINATION_PROVIDER];

/**
 * Whose limit a backup's recorded words name ("Retrying: Google Drive is limiting requests
 * right now"): the health state's "throttled" reads it back. Null when the words name none.
 */
export function throttledBy(message: string | null): Limited | null {
  if (!message) return null;
  for (const who of ["google", "dropbox", "microsoft", "s3", "instagram"] as const) {
    if (message.includes(limitingWords(WHO[who]))) return who;
  }
  return null;
}

/**
 * Whether a backup's recorded failure names the destination as its cause ("Dropbox: …",
 * "OneDrive is not responding right now", "Keepsake is not allowed to write to your Google
 * Drive"): the health state's destination "failing" reads it back.
 */
export function failureNames(message: string | null, provider: keyof typeof WHO): boolean {
  if (!message) return false;
  const who = WHO[provider];
  return (
    message.includes(`${who}: `) ||
    message.includes(notResponding(who)) ||
    (provider === "google" && message.includes("not allowed to write to your Google Drive"))
  );
}

/** How each refusal of Keepsake's writes ends: the fix, in Settings. */
const REFUSAL_FIXES = {
  google: "Reconnect Google Drive and allow access.",
  dropbox: "Reconnect Dropbox in Settings and allow access.",
  microsoft: "Reconnect OneDrive in Settings and allow access.",
  s3Endpoint: "Enter the storage's public endpoint in Settings.",
  s3Bucket: "Check the bucket's name in Settings, or create the bucket.",
  s3Keys: "Check the access key's permissions in Settings.",
} as const;

/**
 * A destination that refused Keepsake's writes (not for space, not a dead token): what the
 * backup records. Each names its destination as `failureNames` reads it back, so the health
 * state says which destination is failing, and ends with its fix (`isWriteRefusal`).
 */
export function destinationRefusedWords(err: ProviderError): string {
  if (err.provider === "dropbox" || err.provider === "microsoft") {
    return `${WHO[err.provider]}: Keepsake is not allowed to write to its app folder. ${REFUSAL_FIXES[err.provider]}`;
  }
  if (err.provider === "s3") {
    if (err.code === "endpoint_not_public") {
      const why = err.message.charAt(0).toLowerCase() + err.message.slice(1);
      return `${WHO.s3}: ${why}, which Keepsake does not call. ${REFUSAL_FIXES.s3Endpoint}`;
    }
    if (err.code === "NoSuchBucket")
      return `${WHO.s3}: the bucket does not exist. ${REFUSAL_FIXES.s3Bucket}`;
    return `${WHO.s3}: Keepsake is not allowed to write to the bucket (${err.message}). ${REFUSAL_FIXES.s3Keys}`;
  }
  return `Keepsake is not allowed to write to your Google Drive. ${REFUSAL_FIXES.google}`;
}

/** Whether a backup's recorded failure is a destination refusing the writes: fixed in Settings. */
export function isWriteRefusal(message: string | null): boolean {
  return !!message && Object.values(REFUSAL_FIXES).some((fix) => message.endsWith(fix));
}

/**
 * A destination that refused a backup for want of space (Drive's words are
 * `syncMessages.driveFull`): Dropbox `insufficient_space`, OneDrive 507, an S3 quota.
 */
export const fullWords = {
  dropbox: "Your Dropbox is full. Free up space or upgrade your Dropbox plan, then retry.",
  onedrive: "Your OneDrive is full. Free up space or buy more Microsoft storage, then retry.",
  s3: "Your S3 storage refused new backups: the bucket's quota or storage is full. Free up space or raise the quota, then retry.",
} as const;

/** A backup put off because the provider asked for a wait longer than a worker sleeps. */
export function backupWaitWords(cause: unknown): string {
  return cause instanceof ProviderError && cause.kind === "throttled"
    ? `Waiting: ${limitingWords(WHO[cause.provider])}`
    : "Waiting for the provider's rate limit to reset";
}

/** A backup attempt that will be tried again. */
export function backupRetryWords(err: unknown): string {
  if (err instanceof ProviderError) {
    const who = WHO[err.provider];
    if (err.kind === "throttled") return limitingWords(who);
    if (err.kind === "transient" || err.kind === "network")
      return `${notResponding(who)} (${err.message})`;
    return `${who}: ${err.message}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** A sync that failed; null when the failure has no provider-specific words. */
export function syncFailureWords(err: unknown): string | null {
  if (!(err instanceof ProviderError)) return null;
  if (err.kind === "throttled") {
    return `${limitingWords("Instagram")}. Keepsake will try again shortly.`;
  }
  if (err.kind === "transient" || err.kind === "network") {
    return notRespondingTryLater("Instagram");
  }
  if (err.kind === "permission") {
    return "Instagram did not allow Keepsake to read this account's media. Reconnect it and allow access.";
  }
  return null;
}

/** Why Instagram stopped accepting a token (Graph code 190 subcodes). */
export function tokenRevokedWords(err: ProviderError, label: string): string {
  if (err.subcode === 460) return `The ${label} password was changed. Reconnect the account.`;
  if (err.subcode === 458) return `Keepsake was removed from the account's apps. Reconnect it.`;
  if (err.subcode === 463) return `The ${label} access token expired. Reconnect the account.`;
  return `${label} no longer accepts Keepsake's access. Reconnect the account.`;
}

/** A provider failure while completing a connection: whose fault, and what to tell the user. */
export function connectFailureWords(
  err: ProviderError,
  label: string,
): { refused: boolean; message: string } {
  if (err.kind === "oauth" || err.kind === "token_invalid") {
    return {
      refused: true,
      message: `${label} did not accept the authorization. Please try connecting again.`,
    };
  }
  if (err.kind === "permission") {
    return {
      refused: true,
      message: `${label} did not grant the permissions Keepsake needs. Please connect again and allow them.`,
    };
  }
  return {
    refused: false,
    message: notRespondingTryLater(label),
  };
}
