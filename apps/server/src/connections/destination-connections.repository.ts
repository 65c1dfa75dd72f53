import type { DestinationKind } from "@keepsake/contracts";
import type { Db } from "../db/database.ts";
import { inTransaction } from "../db/transaction.ts";
import type { AccountChosen } from "./destination-state.ts";
import type { DestinationConnectionRow, NewDestinationConnection } from "./tables.ts";

/** The destinations with a row of their own here (Google Drive keeps google_connections). */
export type ConnectedKind = DestinationConnectionRow["kind"];

/** What a refresh or a reconnection may change of a stored connection. */
export interface DestinationConnectionUpdate {
  credentials_encrypted?: string;
  access_token_encrypted?: string | null;
  access_token_expires_at?: Date | null;
  status?: DestinationConnectionRow["status"];
  status_reason?: string | null;
}

/** The row for `c`, inserted or replaced, active. */
function upsertRow(db: Db, c: NewDestinationConnection, now: Date) {
  return db
    .insertInto("destination_connections")
    .values({ ...c, status: "active", status_reason: null, connected_at: now, updated_at: now })
    .onConflict((oc) =>
      oc.columns(["user_id", "kind"]).doUpdateSet({
        external_id: c.external_id,
        label: c.label,
        credentials_encrypted: c.credentials_encrypted,
        access_token_encrypted: c.access_token_encrypted ?? null,
        access_token_expires_at: c.access_token_expires_at ?? null,
        status: "active",
        status_reason: null,
        connected_at: now,
        updated_at: now,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * `destination_connections`: one Dropbox, OneDrive or S3 connection per user and kind. Tokens,
 * keys and settings arrive sealed (`lib/crypto.ts`); nothing here opens them.
 */
export function createDestinationConnectionsRepository(db: Db) {
  /**
   * Changes a connection. `credentialsWere` (the sealed credentials read before a refresh)
   * makes it conditional: a reconnection in between is not overwritten (undefined then).
   */
  function update(
    userId: string,
    kind: ConnectedKind,
    change: DestinationConnectionUpdate,
    now: Date,
    credentialsWere?: string,
  ): Promise<DestinationConnectionRow | undefined> {
    let q = db
      .updateTable("destination_connections")
      .set({ ...change, updated_at: now })
      .where("user_id", "=", userId)
      .where("kind", "=", kind);
    if (credentialsWere !== undefined) q = q.where("credentials_encrypted", "=", credentialsWere);
    // Marking happens once: of refusals found at once (several backups), the row lock lets one
    // make the change and be reported; the others find it made.
    if (change.status === "needs_reconnection") q = q.where("status", "<>", "needs_reconnection");
    return q.returningAll().executeTakeFirst();
  }

  return {
    find(userId: string, kind: ConnectedKind): Promise<DestinationConnectionRow | undefined> {
      return db
        .selectFrom("destination_connections")
        .selectAll()
        .where("user_id", "=", userId)
        .where("kind", "=", kind)
        .executeTakeFirst();
    },

    list(userId: string): Promise<DestinationConnectionRow[]> {
      return db
        .selectFrom("destination_connections")
        .selectAll()
        .where("user_id", "=", userId)
        .orderBy("kind")
        .execute();
    },

    /**
     * Connecting (again): the row is replaced by what the provider just granted, active; in one
     * transaction with `chosen`, told which account is connected now and which one was.
     */
    upsert(
      c: NewDestinationConnection,
      now: Date,
      chosen?: AccountChosen,
    ): Promise<DestinationConnectionRow> {
      return inTransaction(db, async (trx) => {
        const before = await trx
          .selectFrom("destination_connections")
          .select("external_id")
          .where("user_id", "=", c.user_id)
          .where("kind", "=", c.kind)
          .forUpdate()
          .executeTakeFirst();
        const row = await upsertRow(trx, c, now);
        await chosen?.(trx, {
          userId: c.user_id,
          kind: c.kind,
          account: row.external_id,
          previous: before?.external_id ?? null,
        });
        return row;
      });
    },

    update,

    /**
     * The provider refused the grant: kept, marked, with why in the user's words. Answers the
     * row only to the call that marked it.
     */
    markNeedsReconnection(
      userId: string,
      kind: ConnectedKind,
      reason: string,
      now: Date,
      credentialsWere?: string,
    ): Promise<DestinationConnectionRow | undefined> {
      return update(
        userId,
        kind,
        {
          status: "needs_reconnection",
          status_reason: reason,
          access_token_encrypted: null,
          access_token_expires_at: null,
        },
        now,
        credentialsWere,
      );
    },

    /** Forgets the connection; answers the rows removed (0 or 1). */
    async remove(userId: string, kind: ConnectedKind): Promise<number> {
      const r = await db
        .deleteFrom("destination_connections")
        .where("user_id", "=", userId)
        .where("kind", "=", kind)
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },

    /** How many of the user's Instagram accounts are backed up to each destination. */
    async accountsUsing(userId: string): Promise<Partial<Record<DestinationKind, number>>> {
      const rows = await db
        .selectFrom("instagram_accounts")
        .select(["destination", (eb) => eb.fn.countAll<string>().as("n")])
        .where("user_id", "=", userId)
        .groupBy("destination")
        .execute();
      return Object.fromEntries(rows.map((r) => [r.destination, Number(r.n)]));
    },
  };
}

export type DestinationConnectionsRepository = ReturnType<
  typeof createDestinationConnectionsRepository
>;
