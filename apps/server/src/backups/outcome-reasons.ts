import type { DestinationKind } from "@keepsake/contracts";

/**
 * The reason word a backup fails with when its destination is missing or must be reconnected.
 * Google Drive keeps the words alerts and the digest have always used; the others name theirs.
 */
export const notConnectedReason = (kind: DestinationKind) =>
  kind === "google_drive" ? "google_not_connected" : `${kind}_not_connected`;

export const revokedReason = (kind: DestinationKind) =>
  kind === "google_drive" ? "google_revoked" : `${kind}_revoked`;

/** Reasons a connection alert covers (no failure summary repeats them). */
export const CONNECTION_REASONS: readonly string[] = [
  "instagram_revoked",
  "gone",
  ...(["google_drive", "dropbox", "onedrive", "s3"] as const).flatMap((k) => [
    notConnectedReason(k),
    revokedReason(k),
  ]),
];
