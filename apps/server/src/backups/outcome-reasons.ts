import { type DestinationKind, syncMessages } from "@keepsake/contracts";
import { fullWords } from "../providers/failure-words.ts";

/**
 * The reason word a backup fails with when its destination is missing or must be reconnected.
 * Google Drive keeps the words alerts and the digest have always used; the others name theirs.
 */
export const notConnectedReason = (kind: DestinationKind) =>
  kind === "google_drive" ? "google_not_connected" : `${kind}_not_connected`;

export const revokedReason = (kind: DestinationKind) =>
  kind === "google_drive" ? "google_revoked" : `${kind}_revoked`;

/** The reason word of a backup its destination refused for want of space (the full alert's). */
export const fullReason = (kind: DestinationKind) =>
  kind === "google_drive" ? "drive_full" : `${kind}_full`;

/** What a backup refused for want of space records: the destination's own words. */
export const destinationFullWords = (kind: DestinationKind) =>
  kind === "google_drive" ? syncMessages.driveFull : fullWords[kind];

/** The destination a full reason names (undefined for other reasons). */
export const fullDestination = (reason: string): DestinationKind | undefined =>
  (["google_drive", "dropbox", "onedrive", "s3"] as const).find((k) => fullReason(k) === reason);

/** Reasons a connection alert covers (no failure summary repeats them). */
export const CONNECTION_REASONS: readonly string[] = [
  "instagram_revoked",
  "gone",
  ...(["google_drive", "dropbox", "onedrive", "s3"] as const).flatMap((k) => [
    notConnectedReason(k),
    revokedReason(k),
  ]),
];
