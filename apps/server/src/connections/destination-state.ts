import { type DestinationKind, syncMessages } from "@keepsake/contracts";
import type { Db } from "../db/database.ts";
import { connectFirstWords, reconnectWords } from "../providers/failure-words.ts";

/**
 * Where a user's destination of one kind stands, as backups and syncs need it: connected or
 * not, working or waiting for a reconnect (with why), and the key folders are kept under
 * (the Google account for Drive; the connection for the others).
 */
export interface DestinationState {
  kind: DestinationKind;
  connected: boolean;
  needsReconnection: boolean;
  /** What the user reads when it cannot be written to (not connected, or why it must be reconnected). */
  problem: string | null;
  accountKey: string;
}

/** "Please connect your Dropbox account first", as Drive's message says it. */
export const notConnectedWords = (kind: DestinationKind) =>
  kind === "google_drive" ? syncMessages.googleNotConnected : connectFirstWords[kind];

/** "Dropbox access was revoked or expired…", as Drive's message says it. */
export const destinationReconnectWords = (kind: DestinationKind) =>
  kind === "google_drive" ? reconnectWords.google : reconnectWords[kind];

/** Reads google_connections and destination_connections (both this area's). */
export function createDestinationStates(db: Db) {
  return {
    async destinationState(userId: string, kind: DestinationKind): Promise<DestinationState> {
      const row =
        kind === "google_drive"
          ? await db
              .selectFrom("google_connections")
              .select(["google_sub as key", "status", "status_reason"])
              .where("user_id", "=", userId)
              .executeTakeFirst()
          : await db
              .selectFrom("destination_connections")
              .select(["id as key", "status", "status_reason"])
              .where("user_id", "=", userId)
              .where("kind", "=", kind)
              .executeTakeFirst();
      if (!row) {
        return {
          kind,
          connected: false,
          needsReconnection: false,
          problem: notConnectedWords(kind),
          accountKey: "",
        };
      }
      const needs = row.status === "needs_reconnection";
      return {
        kind,
        connected: true,
        needsReconnection: needs,
        problem: needs ? (row.status_reason ?? destinationReconnectWords(kind)) : null,
        accountKey: row.key,
      };
    },
  };
}
