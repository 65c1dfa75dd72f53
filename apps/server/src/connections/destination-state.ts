import { type DestinationKind, syncMessages } from "@keepsake/contracts";
import type { Db } from "../db/database.ts";
import { connectFirstWords, reconnectWords } from "../providers/failure-words.ts";

/**
 * Where a user's destination of one kind stands, as backups and syncs need it: connected or
 * not, working or waiting for a reconnect (with why), and the account connected there (the
 * Google sub for Drive; the connection's external_id for the others: the Dropbox or Microsoft
 * account, the S3 endpoint, bucket and prefix), which folders and the ledger are kept under.
 */
export interface DestinationState {
  kind: DestinationKind;
  connected: boolean;
  needsReconnection: boolean;
  /** What the user reads when it cannot be written to (not connected, or why it must be reconnected). */
  problem: string | null;
  accountKey: string;
}

/**
 * Told, inside the transaction that stores a connection, which account of the destination is
 * connected now and which one was before (null: none was): the backups area copies again what
 * it completed in another account (`backups/destination-owner.ts`).
 */
export type AccountChosen = (
  trx: Db,
  change: { userId: string; kind: DestinationKind; account: string; previous: string | null },
) => Promise<unknown>;

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
              .select(["external_id as key", "status", "status_reason"])
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
