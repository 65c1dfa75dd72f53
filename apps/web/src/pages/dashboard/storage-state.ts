import type { DestinationHealth, SyncHealth } from "@keepsake/contracts";
import { DESTINATION_LABELS } from "@keepsake/contracts/destination-kinds";

/**
 * Where the dashboard's accounts are backed up, from the server's health state (issue 38): it
 * lists one destination per destination the accounts use, Google Drive only when one uses it
 * (or before any account is connected). Until the state has answered (or when an answer lists
 * none), the dashboard keeps reading Google Drive's connection from the OAuth status.
 */

/** Whether the accounts use Google Drive (true while unknown: Drive is everyone's default). */
export function usesDrive(health: SyncHealth | undefined): boolean {
  const list = health?.destinations ?? [];
  return list.length === 0 || list.some((d) => d.kind === "google_drive");
}

/** The storage that stops backups, other than Drive: not connected, or its access ended. */
export interface StorageNeed {
  kind: DestinationHealth["kind"];
  /** "Dropbox", "OneDrive", "S3 storage". */
  label: string;
  /** It was connected and its access ended: Reconnect, not Connect. */
  reconnect: boolean;
}

/** The first destination other than Drive that the accounts use and that cannot be written. */
export function otherStorageNeed(health: SyncHealth | undefined): StorageNeed | null {
  const d = (health?.destinations ?? []).find(
    (x) =>
      x.kind !== "google_drive" &&
      (x.state === "not_connected" || x.state === "needs_reconnection"),
  );
  return d
    ? {
        kind: d.kind,
        label: DESTINATION_LABELS[d.kind],
        reconnect: d.state === "needs_reconnection",
      }
    : null;
}

/** The labels of the destinations the accounts use ("Google Drive" while unknown). */
export function storageLabels(health: SyncHealth | undefined): string[] {
  const list = health?.destinations ?? [];
  return list.length === 0 ? ["Google Drive"] : list.map((d) => DESTINATION_LABELS[d.kind]);
}
